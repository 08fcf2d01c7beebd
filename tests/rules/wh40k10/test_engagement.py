"""Engagement follows the table: it is recomputed after every removal and every move
(server/rules/wh40k10/engagement.py).

FACTS.md (wh40k10, Movement): Engagement Range is 1 in horizontally. A unit is engaged while
one of its models is within Engagement Range of an enemy model, and only then: the link a
successful charge makes ("Engaged with ...") does not outlive the enemy unit, nor the contact
(the enemy Falling Back, the models in range removed as casualties)."""

from __future__ import annotations

from dataclasses import replace

from server.rules import core
from server.rules.core import Event, GameState
from server.rules.units import units_of
from server.rules.wh40k10.army import target_unit
from server.rules.wh40k10.damage import Resolution, mortal_wounds
from server.rules.wh40k10.damage_events import resolution_event
from tests.rules.test_battle import act, fold
from tests.rules.wh40k10.dice import ScriptedDice
from tests.rules.wh40k10.game import BASE_IN, deployed, place, row, to_phase

BOYZ = {"datasheet": "beast-snagga-boyz", "models": 10}
SQUAD = {"datasheet": "intercessor-squad", "models": 5}
TO_WITHIN_ER = 30.0 - BASE_IN - 0.9 - 24.0
"""The Boyz row moves 3.84 in and stands 0.9 in from the squad's row: within Engagement Range,
out of reach of base contact on a Charge roll of 4 (tests/rules/wh40k10/test_charges.py)."""


def _declare(state: GameState, faces: list[int], **action: object) -> tuple[GameState, list[Event]]:
    """Player 1 declares a charge with the given dice; when it waits for the charged player's
    answer (Fire Overwatch), player 2 declines. The events of the roll."""
    dice = ScriptedDice(faces, state.dice_position)
    events = core.decide(state, 1, {"type": "charge", **action}, dice)  # type: ignore[arg-type]
    state = fold(state, events)
    if events and events[0].type == "charge_declared":
        events = core.decide(state, 2, {"type": "decline_overwatch"}, dice)  # type: ignore[arg-type]
        state = fold(state, events)
        events = events[1:]
    return state, events


def _charged() -> GameState:
    """Ten Boyz (u1, a row at y 24 from x 20) have charged five Intercessors (u2, a row at
    y 30 from x 20): Boyz 1 to 5 stand within Engagement Range of the squad, 6 to 10 do not."""
    state = to_phase(deployed([BOYZ], [SQUAD]), 1, "Charge")
    state = place(state, "u1", row(10, 24.0, x0=20.0))
    state = place(state, "u2", row(5, 30.0, x0=20.0))
    state, _ = _declare(state, [2, 2], unit="u1", targets=["u2"])
    ahead = [(x, y + TO_WITHIN_ER) for x, y in units_of(state)["u1"].positions]
    state, events = act(state, 1, type="charge_move", unit="u1", positions=ahead)
    assert events[0].type == "charge_succeeded"
    return state


def _engaged_words(state: GameState, unit_id: str) -> tuple[object, object]:
    """What a player reads: the unit's charge link and the engaged units, as projected."""
    view = state.to_json()
    return view["units"][unit_id]["engaged_with"], view["forty"]["engaged"].get(unit_id, [])


def test_a_charge_leaves_the_units_engaged_with_each_other() -> None:
    state = _charged()
    assert _engaged_words(state, "u1") == ("u2", ["u2"])
    assert _engaged_words(state, "u2") == (None, ["u1"])


def test_engagement_does_not_outlive_the_enemy_unit() -> None:
    """The squad is destroyed: nobody is engaged with it any more."""
    state = _charged()
    squad = units_of(state)["u2"]
    res = mortal_wounds(target_unit(state, squad), 20, ScriptedDice([]))
    state = fold(state, [resolution_event(state, squad, res, kind="mortal_wounds",
                                          actor="system")])
    assert units_of(state)["u2"].status == "destroyed"
    assert state.charges.engaged == {}
    assert _engaged_words(state, "u1") == (None, [])


def test_engagement_ends_when_the_models_in_range_are_removed() -> None:
    """The five Boyz within Engagement Range are removed as casualties: the five left stand
    1.3 in and more from the squad, so the Boyz are no longer engaged."""
    state = _charged()
    boyz = units_of(state)["u1"]
    tu = target_unit(state, boyz)
    gone = [f"u1.{i}" for i in range(5)]
    after = tu.with_models({m.id: replace(m, wounds_left=0) for m in tu.models if m.id in gone})
    res = Resolution(after, (), (), tuple(gone), 6)
    state = fold(state, [resolution_event(state, boyz, res, kind="fight", actor=2)])
    assert len(units_of(state)["u1"].positions) == 5
    assert state.charges.engaged == {}
    assert _engaged_words(state, "u1") == (None, [])
    assert _engaged_words(state, "u2") == (None, [])


def test_a_unit_whose_enemy_fell_back_may_charge_again() -> None:
    """The squad Falls Back out of Engagement Range in its Movement phase: the Boyz are not
    engaged, so in their next Charge phase they may declare a charge (the charge is rolled,
    not refused as "engaged in combat")."""
    state = _charged()
    state = to_phase(state, 2, "Movement")
    away = [(x, y + 4.0) for x, y in units_of(state)["u2"].positions]
    state, events = act(state, 2, type="move_models", unit="u2", positions=away)
    assert events[0].type == "unit_moved"
    assert state.charges.engaged == {}
    assert _engaged_words(state, "u1") == (None, [])
    state = to_phase(state, 1, "Charge")
    state, events = _declare(state, [1, 1], unit="u1", targets=["u2"])
    assert events[0].type == "charge_failed"  # rolled 2: short, but declared
