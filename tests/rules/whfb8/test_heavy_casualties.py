"""whfb8 Panic from heavy casualties "from any cause" (FACTS whfb8 "Panic": a unit that loses
25 % of the models it had at the start of a phase tests; units in close combat, already
fleeing, or that already passed a Panic test this phase do not). Shooting is tested in
tests/rules/whfb8/test_attacks.py; here a Fanatic's hits (seed 003) and a combat's losses."""

from __future__ import annotations

from typing import Any

from server.rules.core import Event
from server.rules.rankandflank import break_test as breaking
from server.rules.rankandflank.events import Log, losses_events
from server.rules.units import units_of
from tests.rules.t9a.scripted import ScriptedDice
from tests.rules.whfb8.positions import GOBLINS, position, run, swarm_charged

HIDING = {**GOBLINS, "concealed": {"night-goblin-fanatic": 2}}


def _into_a_fanatic(halberdiers: dict[str, Any], faces: list[int]) -> list[Event]:
    """Night Goblins (player 1) march to 8 in of Empire Halberdiers (player 2) and release two
    Fanatics: one whirls 5 + 4 in through the Halberdiers (1 hit, a 1 to wound) and ends
    behind them; in player 2's Movement phase the Halberdiers step back 2 in into it and take
    2D6 = 3 + 2 = 5 S5 Armour Piercing hits: 2, 2, 1, 6, 5 to wound (2+) = 4 wounds, no armour
    save (the case of tests/rules/whfb8/test_fanatics.py), then `faces` more dice."""
    state = position(
        [HIDING], [halberdiers], {"u1": (36.0, 10.0, 0.0), "u2": (36.0, 24.0, 180.0)},
        phase="Movement",
    )
    state, _ = run(state, 1, [], type="move_unit", unit="u1", manoeuvre="forward",
                   distance=8.0, mode="march")
    state, _ = run(state, 1, [5, 4, 1, 1], type="release_fanatic", unit="u1",
                   point=[36.0, 16.0], facing=0.0)
    state, _ = run(state, 1, [3, 1], type="release_fanatic", unit="u1",
                   point=[34.5, 16.0], facing=90.0)
    from tests.rules.test_battle import fold

    state = fold(state, [Event("phase_ended", {"ended": "Close Combat", "turn": 1,
                                               "active_player": 2, "phase": "Movement"})])
    _, events = run(state, 2, [3, 2, 2, 2, 1, 6, 5, *faces], type="move_unit", unit="u2",
                    manoeuvre="backward", distance=2.0)
    return events


def test_a_fanatics_hits_that_kill_a_quarter_of_the_unit_cause_a_panic_test() -> None:
    """FACTS whfb8 Panic: "when a unit loses 25% of the models it had at the start of a phase,
    from any cause". 10 Halberdiers lose 4 (40 %) to the Fanatic they stepped into: they test
    at once, 2D6 = 3 + 3 = 6 against Leadership 7, and pass."""
    events = _into_a_fanatic({"datasheet": "empire-halberdiers", "models": 10, "files": 5},
                             [3, 3])
    heavy = [e for e in events if e.type == "heavy_casualties"]
    assert [(e.payload["unit"], e.payload["lost"], e.payload["of"]) for e in heavy] == [
        ("u2", 4, 10)
    ]
    panic = [e for e in events if e.type == "panic_test"]
    assert [(p.payload["unit"], p.payload["passed"]) for p in panic] == [("u2", True)]
    kinds = [e.type for e in events]
    assert kinds.index("hp_lost") < kinds.index("heavy_casualties") < kinds.index("panic_test")


def test_a_fanatics_hits_under_a_quarter_cause_no_panic_test() -> None:
    """The same 4 losses from 20 Halberdiers are 20 %: no test, and no more dice are rolled
    (`run` asserts every scripted die is used and no other)."""
    events = _into_a_fanatic({"datasheet": "empire-halberdiers", "models": 20, "files": 5}, [])
    assert not [e for e in events if e.type in ("heavy_casualties", "panic_test")]


def test_a_unit_in_close_combat_does_not_test_for_its_losses() -> None:
    """FACTS whfb8 Panic: "Units in close combat ... do not test". The Halberdiers fighting a
    Tomb Swarm lose 5 of 20 (25 %) in the Close Combat phase: no Panic test, no dice."""
    state = swarm_charged()
    log = Log(state)
    events, _ = losses_events(state, units_of(state)["u2"], 5, cause="close combat")
    log.add(*events)
    assert units_of(log.state)["u2"].model_count == 15
    dice = ScriptedDice([], state.dice_position)
    breaking.heavy_casualties(log, "u2", "u1", dice)
    assert [e.type for e in log.events] == ["hp_lost"]
    assert dice.used == 0


def test_the_test_for_a_fanatics_hits_waits_until_no_fanatic_waits_to_be_released() -> None:
    """Seed 003: the Fanatics are released and move before anything else moves, so the Panic
    test for their hits (FACTS: 25 % from any cause) is taken once the last one has moved. 10
    Halberdiers charge goblins hiding two Fanatics and stop at 8 in; the first Fanatic whirls
    5 + 4 in through them: 4 hits, 2, 2, 2, 1 to wound (2+), no save (6+, S5 -2, AP -1): 3 of
    10 models (30 %), no test yet. The second whirls 1 + 2 in to the side; then the Halberdiers
    test (6 + 6 = 12 against Ld 7, failed) and flee 1 + 1 = 2 in away from the goblins, into
    the first Fanatic behind them (2D6 = 1 + 1 hits, 1 and 1 to wound: no loss); the charge
    ends: the charger is fleeing."""
    state = position([HIDING], [{"datasheet": "empire-halberdiers", "models": 10, "files": 5}],
                     {"u1": (36.0, 10.0, 0.0), "u2": (36.0, 21.0, 180.0)},
                     phase="Movement", active=2)
    state, _ = run(state, 2, [], type="declare_charge", unit="u2", target="u1")
    state, _ = run(state, 1, [4, 4], type="charge_reaction", reaction="hold")
    state, first = run(state, 1, [5, 4, 4, 2, 2, 2, 1], type="release_fanatic", unit="u1",
                       point=[36.0, 9.5], facing=0.0)
    assert [e.payload["unit_after"]["models"] for e in first if e.type == "hp_lost"] == [7]
    assert not [e for e in first if e.type in ("heavy_casualties", "panic_test")]
    state, second = run(state, 1, [1, 2, 6, 6, 1, 1, 1, 1, 1, 1], type="release_fanatic",
                        unit="u1", point=[37.5, 9.5], facing=270.0)
    kinds = [e.type for e in second]
    assert kinds[:5] == ["fanatic_released", "heavy_casualties", "panic_test", "unit_broke",
                         "unit_fled"], kinds
    assert second[2].payload["passed"] is False
    assert kinds[-1] == "charge_abandoned"
    assert "fleeing" in units_of(state)["u2"].markers
