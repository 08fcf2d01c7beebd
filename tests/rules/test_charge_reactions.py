"""Charge Reactions (t9a, whfb8): a declared charge waits for the charged player's Hold, Flee!
or Stand and Shoot; Fearless (seed 000) forbids Flee! unless Shaken or entirely Feigned Flight;
whfb8 Undead (seed 002: Unstable units are Unbreakable) may not flee; a charger that reaches a
fleeing unit destroys it. wh40k10 has no reactions.

Hand-worked set-up: player 1's Citizen Spears u1 at (36, 27) facing 0, player 2's unit u2 at
(36, 30) facing 180: fronts 3 in apart, each in the other's front arc, nothing between.
"""

from __future__ import annotations

from typing import Any

import pytest

from server.rules.flee import FLEEING, SHAKEN
from server.rules.units import with_engaged, with_phase_moves
from tests.rules.helpers import SEED, Game, battle

SPEARS = {"datasheet": "citizen-spears", "models": 20, "files": 5}
ARCHERS = {"datasheet": "citizen-archers", "models": 10, "files": 5}
GREMLINS = {"datasheet": "mageblight-gremlin", "models": 3}
SEEDS = [bytes([n]) * 32 for n in range(16)]


def close(target: dict[str, Any], seed: bytes = SEED, system: str = "t9a",
          charger: dict[str, Any] = SPEARS) -> Game:
    game = battle(system, [charger], [target], seed)
    game.put("u1", 36, 27, 0)
    game.put("u2", 36, 30, 180)
    if system == "whfb8":
        game.to_phase(1, "Movement")
    return game


def test_a_charge_waits_for_the_reaction() -> None:
    game = close(SPEARS)
    (declared,) = game.act(1, type="declare_charge", unit="u1", target="u2")
    assert declared.type == "charge_declared"
    assert declared.payload["reactions"] == ["hold", "flee"]
    assert declared.payload["refused"]["stand_and_shoot"]["rule"] == "Stand and Shoot"
    assert declared.payload["distance"] == pytest.approx(3.0)
    pending = game.state.to_json()["pending_charge"]
    assert pending == {"unit": "u1", "target": "u2", "reacting_player": 2,
                       "reactions": ["hold", "flee"]}
    assert "roll" not in declared.payload  # the range is rolled after the reaction
    # The active player waits; the reaction is the other player's.
    for seat, action, code in [
        (1, {"type": "end_phase"}, "out_of_phase"),
        (1, {"type": "declare_charge", "unit": "u1", "target": "u2"}, "out_of_phase"),
        (1, {"type": "charge_reaction", "reaction": "hold"}, "out_of_phase"),
        (2, {"type": "charge_reaction", "reaction": "charge"}, "bad_request"),
    ]:
        assert game.refused(seat, **action).code == code
    assert game.refused(1, type="end_phase").details["waiting_for"] == 2


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_hold_then_the_range_is_rolled(seed: bytes) -> None:
    game = close(SPEARS, seed)
    game.act(1, type="declare_charge", unit="u1", target="u2")
    events = game.act(2, type="charge_reaction", reaction="hold")
    assert [e.type for e in events][0] == "charge_reaction"
    assert events[0].payload["name"] == "Hold" and events[0].actor == 2
    charge = events[-1]
    assert charge.actor == 1 and charge.payload["range"] == charge.payload["roll"]["total"] + 5
    # 2D6 + 5 >= 7 > 3 in: a hold is always reached here.
    assert charge.type == "charge_succeeded" and charge.payload["arc"] == "front"
    assert game.state.to_json()["pending_charge"] is None
    assert game.act(1, type="end_phase")[0].type == "phase_ended"


def test_no_reaction_without_a_charge() -> None:
    game = close(SPEARS)
    err = game.refused(2, type="charge_reaction", reaction="hold")
    assert err.code == "out_of_phase"


@pytest.mark.parametrize(
    ("markers", "allowed"),
    [
        ((), False),  # Fearless: no Flee!
        ((SHAKEN,), True),  # "unless it is already Shaken"
    ],
)
def test_fearless_cannot_flee_unless_shaken(markers: tuple[str, ...], allowed: bool) -> None:
    """Seed 000, Fearless: a unit containing Fearless cannot choose Flee! as a Charge Reaction
    unless it is already Shaken or the entire unit has Feigned Flight."""
    game = close(GREMLINS)
    game.put("u2", 36, 30, 180, markers=markers)
    (declared,) = game.act(1, type="declare_charge", unit="u1", target="u2")
    if not allowed:
        assert declared.payload["reactions"] == ["hold"]
        err = game.refused(2, type="charge_reaction", reaction="flee")
        assert err.code == "illegal_move" and err.details["rule"] == "Fearless"
        assert "Fearless" in err.message and "Shaken" in err.message
        assert game.act(2, type="charge_reaction", reaction="hold")[0].type == "charge_reaction"
    else:
        assert declared.payload["reactions"] == ["hold", "flee"]
        events = game.act(2, type="charge_reaction", reaction="flee")
        assert events[1].type == "unit_fled"
        assert events[1].payload["roll"]["expression"] == "2D6 maximised x1"  # Swiftstride


def test_stand_and_shoot_is_refused_with_the_reason() -> None:
    """Stand and Shoot is offered as the system says (tests/rules/t9a/test_stand_and_shoot.py,
    tests/rules/whfb8/test_stand_and_shoot.py): here the t9a Archers are charged from 3 in,
    not farther than the Spears' Advance Rate 5 (the t9a Charge Reactions text), and the
    refusal names the rule and the reason."""
    game = close(ARCHERS)
    (declared,) = game.act(1, type="declare_charge", unit="u1", target="u2")
    assert declared.payload["reactions"] == ["hold", "flee"]
    why = declared.payload["refused"]["stand_and_shoot"]
    assert why["rule"] == "Stand and Shoot" and "too close" in why["message"]
    err = game.refused(2, type="charge_reaction", reaction="stand_and_shoot")
    assert err.code == "illegal_move" and "Advance Rate 5" in err.message


@pytest.mark.parametrize("seed", SEEDS)
def test_flee_then_the_charge_reaches_or_fails(seed: bytes) -> None:
    """The spears flee 2D6 straight away (rear edge to front: still 3 in + the flee apart, as
    turning about the centre by 180 degrees leaves the rectangle where it was); the charge
    (2D6 + Advance Rate 5) catches them only if its range covers the new distance; caught,
    the fleeing unit is destroyed (t9a)."""
    game = close(SPEARS, seed)
    game.act(1, type="declare_charge", unit="u1", target="u2")
    events = game.act(2, type="charge_reaction", reaction="flee")
    kinds = [e.type for e in events]
    fled, charge = events[1].payload, events[2].payload
    assert kinds[:2] == ["charge_reaction", "unit_fled"]
    assert charge["distance"] == pytest.approx(3.0 + fled["moved"], abs=1e-3)
    if charge["range"] >= charge["distance"]:
        assert kinds[2:] == ["charge_succeeded", "fleeing_unit_caught"]
        assert charge["caught"] is True and charge["arc"] == "rear"
        assert game.unit("u2").status == "destroyed"
        assert game.state.to_json()["units"]["u1"]["engaged_with"] is None
    else:
        assert kinds[2:] == ["charge_failed"]
        assert game.unit("u2").markers == (FLEEING,)
        # The Failed Charge move (t9a: the Charge Range towards the target, stopping at the
        # furthest point clear of Unit Spacing): straight ahead, never into contact.
        moved = charge["failed_move"]["distance"]
        assert 0 < moved <= charge["range"]
        x, y, facing = game.unit("u1").placement
        assert (x, facing) == (36, 0) and y == pytest.approx(27 + moved, abs=1e-3)
        # Its front no closer than 1 in to the fled unit (Unit Spacing): the furthest legal point.
        assert y <= 27 + 3 + fled["moved"] - 1 + 1e-6


def test_the_seeds_cover_both_flee_outcomes() -> None:
    seen = set()
    for seed in SEEDS:
        game = close(SPEARS, seed)
        game.act(1, type="declare_charge", unit="u1", target="u2")
        seen.add(game.act(2, type="charge_reaction", reaction="flee")[2].type)
    assert seen == {"charge_succeeded", "charge_failed"}


def test_a_fleeing_target_flees_at_once() -> None:
    """A unit already fleeing has no choice: Flee! is taken for it, without waiting."""
    game = close(SPEARS)
    game.put("u2", 36, 30, 180, markers=(FLEEING,))
    events = game.act(1, type="declare_charge", unit="u1", target="u2")
    assert [e.type for e in events][:3] == ["charge_declared", "charge_reaction", "unit_fled"]
    assert events[1].payload["forced"] is True and events[1].payload["reaction"] == "flee"
    assert game.state.to_json()["pending_charge"] is None


def test_an_engaged_unit_can_only_hold() -> None:
    game = close(SPEARS)
    game.state = with_engaged(game.state, {"u2": "u9"})
    (declared,) = game.act(1, type="declare_charge", unit="u1", target="u2")
    assert declared.payload["reactions"] == ["hold"]
    err = game.refused(2, type="charge_reaction", reaction="flee")
    assert err.details["rule"] == "Engaged in Combat"


def test_a_fleeing_unit_cannot_charge() -> None:
    game = close(SPEARS)
    game.put("u1", 36, 27, 0, markers=(FLEEING,))
    err = game.refused(1, type="declare_charge", unit="u1", target="u2")
    assert (err.code, err.details["rule"]) == ("illegal_move", "Fleeing")


@pytest.mark.parametrize(
    ("target", "reactions", "rule"),
    [
        ({"datasheet": "skeleton-warriors", "models": 20, "files": 5}, ["hold"], "Undead"),
        ({"datasheet": "tomb-swarm", "models": 3}, ["hold"], "Undead"),
        ({"datasheet": "night-goblins", "models": 20, "files": 5}, ["hold", "flee"], None),
    ],
)
def test_whfb8_reactions(target: dict[str, Any], reactions: list[str], rule: str | None) -> None:
    """whfb8: charges are declared in the Movement phase; Undead units (seed 002: Unstable,
    hence Unbreakable) may not flee."""
    charger = {"datasheet": "empire-halberdiers", "models": 20, "files": 5}
    game = close(target, system="whfb8", charger=charger)
    (declared,) = game.act(1, type="declare_charge", unit="u1", target="u2")
    assert declared.payload["reactions"] == reactions
    if rule is not None:
        err = game.refused(2, type="charge_reaction", reaction="flee")
        assert err.details["rule"] == rule
    else:
        events = game.act(2, type="charge_reaction", reaction="flee")
        assert events[1].type == "unit_fled" and events[1].payload["roll"]["expression"] == "2D6"


def test_wh40k10_has_no_charge_reactions() -> None:
    game = Game("wh40k10")
    err = game.refused(2, type="charge_reaction", reaction="hold")
    assert err.code == "bad_request"


def test_a_unit_engaged_in_combat_cannot_declare_a_charge() -> None:
    """A unit in combat fights; it does not declare charges (t9a Charge Phase: only units not
    Engaged in Combat declare charges; the browser let a Tomb Swarm charge the Halberdiers it
    was already fighting "from 0.0 in")."""
    game = close(SPEARS)
    game.act(1, type="declare_charge", unit="u1", target="u2")
    assert game.act(2, type="charge_reaction", reaction="hold")[-1].type == "charge_succeeded"
    # Player 1's next Charge Phase, the two units still locked in combat.
    game.state = with_phase_moves(game.state, {})
    err = game.refused(1, type="declare_charge", unit="u1", target="u2")
    assert (err.code, err.details["rule"]) == ("illegal_move", "Charge")
    assert "engaged in combat" in err.message
    offer = game.state.to_json(1)["orders"]["units"]["u1"]["declare_charge"]
    assert not offer["available"] and "engaged in combat" in offer["reason"]


def test_the_melee_phase_ends_only_once_every_combat_is_fought() -> None:
    """Each combat is fought in the Melee Phase (t9a; whfb8's Close Combat phase): ending the
    phase with a combat unfought is refused, naming it; once fought, the phase ends."""
    game = close(SPEARS)
    game.act(1, type="declare_charge", unit="u1", target="u2")
    game.act(2, type="charge_reaction", reaction="hold")
    game.to_phase(1, "Melee")
    err = game.refused(1, type="end_phase")
    assert err.code == "out_of_phase" and err.details["rule"] == "Melee"
    assert "has not been fought" in err.message and "Citizen Spears" in err.message
    assert not game.state.to_json(1)["orders"]["game"]["end_phase"]["available"]
    game.act(1, type="fight_combat", unit="u1")
    assert game.act(1, type="end_phase")[0].type == "phase_ended"
