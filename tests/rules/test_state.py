"""Issue 23 item 3, "State has types": the typed parts of `GameState` (server/rules/state.py),
the parts a module owns (`part_of`, `with_part`), the fast `evolve` and the derived cache.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from server.rules import core
from server.rules.core import GameState, part_of, with_part
from server.rules.state import (
    Battle,
    Charges,
    Moves,
    Muster,
    Outcome,
    PregameState,
    Proposals,
    changed,
)
from server.rules.t9a.results import Objectives
from server.rules.units import table_of, with_unit
from server.rules.wh40k10.army import Forty
from server.rules.whfb8.fanatics import FanaticState
from tests.rules.helpers import battle

RULES = Path(__file__).resolve().parents[2] / "server" / "rules"


@dataclasses.dataclass(frozen=True)
class Tally:
    """A test-only part of the state."""

    count: int = 0


def test_evolve_makes_the_state_replace_makes_and_changes_nothing_made() -> None:
    game = battle("t9a", [{"datasheet": "citizen-spears", "models": 20, "files": 5}],
                  [{"datasheet": "citizen-archers", "models": 10, "files": 5}])
    state = game.state
    changes = {"seq": state.seq + 1, "battle": dataclasses.replace(state.battle, phase="Magic"),
               "notes": 3}
    fast, slow = state.evolve(**changes), dataclasses.replace(state, **changes)
    assert fast == slow
    assert [getattr(fast, f.name) for f in dataclasses.fields(GameState)
            if f.compare] == [getattr(slow, f.name) for f in dataclasses.fields(GameState)
                              if f.compare]
    assert set(vars(fast)) == set(vars(slow))
    assert state.battle.phase != "Magic" and state.notes == 0  # the old state is unchanged


def test_evolve_refuses_a_field_the_state_does_not_have() -> None:
    with pytest.raises(TypeError, match="extra"):
        GameState().evolve(extra={})
    with pytest.raises(TypeError, match="derived"):
        GameState().evolve(derived=core.Derived())


def test_the_derived_cache_belongs_to_one_state_object() -> None:
    """The table cache is a declared slot, not compared and not carried to a changed state:
    a state built from another starts with an empty cache (the units may have moved)."""
    game = battle("t9a", [{"datasheet": "citizen-spears", "models": 20, "files": 5}],
                  [{"datasheet": "citizen-archers", "models": 10, "files": 5}])
    state = game.state
    table = table_of(state)
    assert state.derived.table is table and table_of(state) is table
    unit = next(iter(state.units.values()))
    moved = with_unit(state, dataclasses.replace(unit, placement=(30.0, 30.0, 0.0)))
    assert moved.derived.table is None and dataclasses.replace(state).derived.table is None
    assert table_of(moved) is not table
    assert moved.derived is not state.derived


def test_a_part_is_found_by_its_type_and_is_empty_until_set() -> None:
    state = GameState()
    assert part_of(state, Tally) == Tally()
    counted = with_part(state, Tally(2))
    assert part_of(counted, Tally).count == 2 and part_of(state, Tally).count == 0
    assert with_part(counted, Tally(3)).parts == {Tally: Tally(3)}


def test_the_typed_parts_start_empty() -> None:
    state = GameState()
    assert (state.battle, state.charges, state.moves, state.muster, state.pregame,
            state.proposals, state.outcome) == (Battle(), Charges(), Moves(), Muster(),
                                                PregameState(), Proposals(), Outcome())
    assert state.units == {} and state.terrain == () and state.parts == {}
    with pytest.raises(ValueError, match="no active player"):
        _ = state.battle.active_seat


def test_no_module_reaches_into_an_untyped_extra() -> None:
    """The state has no `extra` mapping any more, and no rules module sets attributes on a
    frozen state (`object.__setattr__`)."""
    assert "extra" not in {f.name for f in dataclasses.fields(GameState)}
    for path in RULES.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "extra":
                owner = ast.unparse(node.value)
                assert "state" not in owner, f"{path}: {owner}.extra"
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "object.__setattr__":
                raise AssertionError(f"{path}:{node.lineno}: object.__setattr__")
            # Nor keeps a cache in a state's `__dict__` (`evolve` would copy it to the next
            # state): caches go in `state.derived` (core.Derived).
            if (isinstance(node, ast.Attribute) and node.attr == "__dict__"
                    and path.name not in ("core.py", "state.py")):
                raise AssertionError(f"{path}:{node.lineno}: {ast.unparse(node)}")


@pytest.mark.parametrize("part, changes", [
    (Battle(), {"phase": "Magic", "turn": 2}),
    (Charges(), {"pending": {"unit": "u1"}}),
    (Moves(), {"phase": {"u1": {"moved": True}}}),
    (PregameState(), {"finished_first": 2}),
    (Proposals(), {"made": 3}),
    (Outcome(), {"declared_winner": 1}),
    (Forty(), {"cp": {"1": 2, "2": 1}, "battle_shocked": ["u3"]}),
    (FanaticState(), {"concealed": {"u1": 2}}),
    (Objectives(), {"chosen": "hold_the_ground"}),
])
def test_changed_makes_what_replace_makes(part: object, changes: dict[str, object]) -> None:
    before = dataclasses.replace(part)
    fast = changed(part, **changes)
    assert fast == dataclasses.replace(part, **changes)
    assert type(fast) is type(part) and part == before  # the part itself is unchanged
    with pytest.raises(TypeError, match="no field"):
        changed(part, no_such_field=1)
