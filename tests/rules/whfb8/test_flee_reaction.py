"""whfb8: a Flee! Charge Reaction through friends makes them test for Panic (FACTS.md "whfb8: the
battle", Panic: "when fleeing friends pass through"), except after a Skirmishers' Feigned
Flight (seed 002: it "does not cause Panic from fleeing through friendly units"); t9a has no
such test.

Hand-worked position: 10 Empire Halberdiers (player 1, u1) charge 10 Empire Halberdiers
(player 2, u2, front edge at y 20 facing down the table, 5 x 2); 10 Empire Handgunners
(player 2, u3) stand 2.4 in behind them (front edge at y 24).
"""

from __future__ import annotations

import dataclasses

from server.rules.markers import FEIGNED_FLIGHT
from server.rules.rankandflank.break_test import reaction_flight_panic
from tests.rules.t9a.scripted import ScriptedDice
from tests.rules.whfb8.positions import fold, position, run, unit

HALBERDIERS = {"datasheet": "empire-halberdiers", "models": 10, "files": 5}
HANDGUNNERS = {"datasheet": "empire-handgunners", "models": 10, "files": 5}
PLACES = {"u1": (36.0, 14.0, 0.0), "u2": (36.0, 20.0, 180.0), "u3": (36.0, 24.0, 180.0)}


def test_fleeing_through_friends_makes_them_test_for_panic() -> None:
    """u2 flees 6 + 6 = 12 in straight away from the charger, through the Handgunners: they
    test Panic on Ld 7, roll 11 and flee 3 + 3 = 6 in; then the charge is rolled (4 + 2 + 2 =
    8 in, short of the fled Halberdiers: it fails)."""
    state = position([HALBERDIERS], [HALBERDIERS, HANDGUNNERS], PLACES, phase="Movement")
    state, _ = run(state, 1, [], type="declare_charge", unit="u1", target="u2")
    state, events = run(state, 2, [6, 6] + [6, 5] + [3, 3] + [2, 2], type="charge_reaction",
                        reaction="flee")
    assert [e.type for e in events] == [
        "charge_reaction", "unit_fled", "panic_test", "unit_broke", "unit_fled", "charge_failed",
    ]
    assert events[1].payload["passed_through"] == ["u3"]
    panic = events[2].payload
    assert (panic["unit"], panic["cause"], panic["leadership"], panic["passed"]) == (
        "u3", "u2", 7, False
    )
    assert "fled through them" in panic["text"]
    assert "fleeing" in unit(state, "u3").markers


def test_a_passed_panic_test_and_the_charge_goes_on() -> None:
    state = position([HALBERDIERS], [HALBERDIERS, HANDGUNNERS], PLACES, phase="Movement")
    state, _ = run(state, 1, [], type="declare_charge", unit="u1", target="u2")
    state, events = run(state, 2, [6, 6] + [3, 4] + [2, 2], type="charge_reaction",
                        reaction="flee")
    assert [e.type for e in events] == [
        "charge_reaction", "unit_fled", "panic_test", "charge_failed",
    ]
    assert events[2].payload["passed"] is True
    assert "fleeing" not in unit(state, "u3").markers


def test_a_feigned_flight_causes_no_panic() -> None:
    """Seed 002, Feigned Flight: a unit that fled as a Feigned Flight (flee.py marks it) makes
    no friend it passed through test; the same flight without the mark does."""
    state = position([HALBERDIERS], [HALBERDIERS, HANDGUNNERS], PLACES, phase="Movement")
    state, _ = run(state, 1, [], type="declare_charge", unit="u1", target="u2")
    _, events = run(state, 2, [6, 6] + [3, 4] + [2, 2], type="charge_reaction", reaction="flee")
    fled = events[:2]  # the reaction and the flight, before any Panic Test
    after = fold(state, fled)
    units = dict(after.units)
    units["u2"] = dataclasses.replace(units["u2"], markers=(*units["u2"].markers, FEIGNED_FLIGHT))
    feigned = after.evolve(units=units)
    dice = ScriptedDice([], after.dice_position)
    assert reaction_flight_panic(feigned, "u2", "u1", fled, dice) == [] and dice.used == 0
    tested = reaction_flight_panic(after, "u2", "u1", fled, ScriptedDice([3, 4]))
    assert [e.type for e in tested] == ["panic_test"]
