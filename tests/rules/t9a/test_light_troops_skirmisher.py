"""Light Troops and Skirmisher for The 9th Age (seed 000: "Light Troops" and "Skirmisher")."""

from __future__ import annotations

import dataclasses
import math

import pytest

from server.dice import DiceStream
from server.geometry.formation import SKIRMISH_GAP_T9A_IN
from server.rules.questions import preview
from server.rules.units import (
    JoinedCharacter,
    footprint_of,
    ranked_formation,
    turn_moves,
    units_of,
)
from tests.rules.test_battle import act, refused, t9a_deployed

# Gremlins: Advance Rate (Mobility) 5, three 40 mm models in one rank, at (36, 10) facing 0.


def movement_phase():  # type: ignore[no-untyped-def]
    state = t9a_deployed()
    state, _ = act(state, 1, type="end_phase")  # Charge -> Movement
    assert state.battle.phase == "Movement"
    return state


def test_a_light_troops_reform_may_move_its_centre_up_to_twice_its_mobility() -> None:
    """Seed 000, Light Troops: "Reform Move Manoeuvres up to twice its Mobility"; a centre
    moved further than its Mobility counts as a March Move for march-triggered rules, yet the
    unit may still shoot."""
    state = movement_phase()
    start = footprint_of(state, units_of(state)["u1"])
    assert start is not None
    cx, cy = start.centre
    state, events = act(state, 1, type="move_unit", unit="u1", manoeuvre="reform", files=3,
                        facing=90, centre=(cx + 6.0, cy))
    moved = events[0].payload
    assert moved["counts_as_march"] and moved["rule"] == "Light Troops"
    assert "counts as a March Move" in moved["text"]
    assert moved["used"] <= 10.0 + 1e-9 and moved["allowance"] == 10.0
    end = footprint_of(state, units_of(state)["u1"])
    assert end is not None and math.dist(end.centre, (cx + 6.0, cy)) < 1e-3
    assert turn_moves(state)["u1"] == {"moved": True, "marched": False, "march_rules": True}


def test_a_short_light_troops_reform_is_not_a_march() -> None:
    state = movement_phase()
    start = footprint_of(state, units_of(state)["u1"])
    assert start is not None
    state, events = act(state, 1, type="move_unit", unit="u1", manoeuvre="reform", files=3,
                        centre=(start.centre[0] + 3.0, start.centre[1]))
    assert "counts_as_march" not in events[0].payload
    assert turn_moves(state)["u1"] == {"moved": True, "marched": False, "march_rules": False}


def test_the_preview_of_a_long_light_troops_reform_says_it_counts_as_a_march() -> None:
    """The client's ghost shows "counts as a March" from the preview, before the release."""
    state = movement_phase()
    start = footprint_of(state, units_of(state)["u1"])
    assert start is not None
    cx, cy = start.centre
    far, near = (
        preview(state, 1, {"type": "move_unit", "unit": "u1", "manoeuvre": "reform",
                           "files": 3, "centre": [cx + d, cy]}, DiceStream(b"p" * 32))
        for d in (6.0, 3.0)
    )
    assert far["legal"] and far["counts_as_march"] is True
    assert near["legal"] and near["counts_as_march"] is False


def test_beyond_twice_mobility_is_refused() -> None:
    state = movement_phase()
    start = footprint_of(state, units_of(state)["u1"])
    assert start is not None
    err = refused(state, 1, type="move_unit", unit="u1", manoeuvre="reform", files=3,
                  centre=(start.centre[0] + 11.0, start.centre[1]))
    assert err.code == "illegal_move" and err.details["rule"] == "Move Distance"


def test_only_light_troops_move_their_centre_when_reforming() -> None:
    """Seed 000: the rule is Light Troops'; the Citizen Spears (player 2) reform in place."""
    state = movement_phase()
    for _ in range(4):  # Movement, Magic, Shooting, Melee
        state, _ = act(state, 1, type="end_phase")
    state, _ = act(state, 2, type="end_phase")  # player 2: Charge -> Movement
    err = refused(state, 2, type="move_unit", unit="u2", manoeuvre="reform", files=4,
                  centre=(30.0, 40.0))
    assert err.code == "illegal_move" and err.details["rule"] == "Reform"


@pytest.mark.parametrize("models", [1, 3])
def test_skirmishers_keep_their_gaps_while_any_skirmisher_is_left(models: int) -> None:
    """Seed 000, Skirmisher: models 12.5 mm apart, the gaps part of the unit."""
    formation = ranked_formation("t9a", "mageblight-gremlin", models, 3, ("daemon-herald",))
    assert formation.gap_in == pytest.approx(SKIRMISH_GAP_T9A_IN)


def test_the_last_skirmisher_gone_the_unit_contracts_around_its_first_rank() -> None:
    """Seed 000, Skirmisher: "The unit ceases to be in Skirmish Formation when all models with
    Skirmisher have been removed ... contract ... without moving the centre of the first
    rank." The Daemon Herald (no Skirmisher) is left: no gaps, same front-rank centre."""
    state = t9a_deployed()
    unit = units_of(state)["u1"]
    with_herald = dataclasses.replace(
        unit, characters=(JoinedCharacter("daemon-herald", "Daemon Herald"),)
    )
    before = footprint_of(state, with_herald)
    alone = dataclasses.replace(with_herald, models=0)
    after = footprint_of(state, alone)
    assert before is not None and after is not None
    assert after.formation is not None and after.formation.gap_in == 0.0
    assert after.front_centre == pytest.approx(before.front_centre)
    assert len(after.models) == 1
