"""Random Movement meeting a friend or impassable terrain before an enemy (the Fanatic page,
../shared/seeds/003_39e99837749f8d9d.txt: the move "stops immediately" within 1 in of a friendly
unit or impassable terrain; FACTS.md "whfb8" Random Movement; docs/rules-decisions.md "Random
Movement: what the straight line meets first")."""

from __future__ import annotations

from typing import Any

import pytest

import server.rules  # noqa: F401  (every system's declarations)
from server import geometry as geo
from server.geometry.table import Terrain
from server.rules.automation import mark, partly_automated
from server.rules.core import GameState
from server.rules.units import table_of, units_of
from tests.rules.whfb8.positions import GOBLINS, HALBERDIERS, position, run
from tests.rules.whfb8.test_fanatics import _sheet

BOTH_SIXES = [6, 6]  # 12 in rolled: the Halberdiers 11 in ahead are within reach


@pytest.fixture(autouse=True)
def random_goblins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Night Goblins given Random Movement (2D6): the catalogue has no such unit besides the
    Fanatic, which always moves in a random direction."""
    from server.data.catalog import Catalog

    real = Catalog.get
    changed = _sheet("night-goblins", ["Random Movement (2D6)"])

    def get(self: Catalog, system: str, datasheet: str) -> Any:
        if (system, datasheet) == ("whfb8", "night-goblins"):
            return changed
        return real(self, system, datasheet)

    monkeypatch.setattr(Catalog, "get", get)


def goblins_facing_halberdiers(
    friend: tuple[float, float, float] | None = None,
) -> tuple[GameState, str]:
    """Random-moving Goblins (u1, front edge at y 10, facing up the table) and Empire
    Halberdiers 11 in ahead, facing them; more player 1 Goblins (u2) at `friend`. Returns the
    state and the Halberdiers' id."""
    army1 = [GOBLINS] if friend is None else [GOBLINS, GOBLINS]
    enemy = f"u{len(army1) + 1}"
    places = {"u1": (36.0, 10.0, 0.0), enemy: (36.0, 21.0, 180.0)}
    if friend is not None:
        places["u2"] = friend
    return position(army1, [HALBERDIERS], places, phase="Movement"), enemy


def gap(state: GameState, a: str, b: str) -> float:
    table = table_of(state)
    return geo.distance(table.units[a], table.units[b]).distance


def test_a_friend_between_stops_the_random_move_before_the_enemy_behind_it() -> None:
    """12 in rolled, the Halberdiers 11 in ahead: a reach on its own. But Goblins of the same
    army stand across the line 6 in ahead (their front at y 16): the move meets them first and
    stops 1 in short, after 5 in. No charge, and it never passes through its friends."""
    state, _ = goblins_facing_halberdiers(friend=(36.0, 16.0, 180.0))
    state, events = run(state, 1, BOTH_SIXES, type="random_move", unit="u1", facing=0.0)
    assert [e.type for e in events] == ["unit_moved"]
    assert events[0].payload["stopped"] is True
    assert events[0].payload["distance"] == pytest.approx(5.0, abs=1e-3)
    assert gap(state, "u1", "u2") == pytest.approx(1.0, abs=1e-3)
    assert "u1" not in state.charges.engaged


def test_impassable_terrain_between_stops_the_random_move_before_the_enemy() -> None:
    """The same 12 in against the Halberdiers 11 in ahead, a rock across the line from y 17 to
    y 18: the move stops 1 in short of it, after 6 in, and charges nobody."""
    state, _ = goblins_facing_halberdiers()
    rock = Terrain("rock", ((30.0, 17.0), (42.0, 17.0), (42.0, 18.0), (30.0, 18.0)),
                   kind="impassable")
    state = state.evolve(terrain=(rock,))
    state, events = run(state, 1, BOTH_SIXES, type="random_move", unit="u1", facing=0.0)
    assert [e.type for e in events] == ["unit_moved"]
    assert events[0].payload["distance"] == pytest.approx(6.0, abs=1e-3)
    assert units_of(state)["u1"].placement[1] == pytest.approx(16.0, abs=1e-3)
    assert "u1" not in state.charges.engaged


def test_a_friend_beside_the_line_does_not_stop_the_charge() -> None:
    """Goblins of the same army 8 in to the side never come within 1 in of the line: the
    12 in reach the Halberdiers 11 in ahead, a charge with no reaction."""
    state, enemy = goblins_facing_halberdiers(friend=(52.0, 14.0, 0.0))
    state, events = run(state, 1, BOTH_SIXES, type="random_move", unit="u1", facing=0.0)
    assert [e.type for e in events] == ["charge_succeeded"]
    assert state.charges.engaged["u1"] == enemy


def test_a_friend_already_within_1_in_behind_does_not_hold_a_move_away_from_it() -> None:
    """The page stops a move that "brings" the unit within 1 in: Goblins of the same army
    0.5 in behind it when the move begins do not stop a move away from them: 5 + 4 = 9 in."""
    state, _ = goblins_facing_halberdiers(friend=(36.0, 10.0, 0.0))
    depth = table_of(state).units["u1"].depth
    state, _ = goblins_facing_halberdiers(friend=(36.0, 10.0 - depth - 0.5, 0.0))
    assert gap(state, "u1", "u2") == pytest.approx(0.5, abs=1e-3)
    state, events = run(state, 1, [5, 4], type="random_move", unit="u1", facing=0.0)
    assert events[0].type == "unit_moved" and events[0].payload["stopped"] is False
    assert events[0].payload["distance"] == pytest.approx(9.0)


def test_the_fanatic_card_says_fliers_landing_is_not_automated() -> None:
    """The Fanatic page (../shared/seeds/003_39e99837749f8d9d.txt): a unit stopped by a
    Fanatic's release stops at once, "fliers land". Warfield has no flying moves, so the card
    of the rule (Concealed Fanatic) says that part is not automated."""
    assert mark("whfb8", "Concealed Fanatic") == "partly"
    note = partly_automated("whfb8", "night-goblin-fanatic")["Concealed Fanatic"]
    assert "fliers land" in note.split("Not automated:")[1]
