"""The Mageblight Gremlin page read exactly (issue 17 items 1-3), with the Gremlins joined by a
Daemon Herald (seed 000: a Supernal character of the same Height may join them) and a 5x4 block
of Citizen Spears.

Seed 000 (000_ac64b535f31b5cdf.txt): "Any unit entirely with Ambush may choose to not be
Deployed normally"; "A unit entirely with Light Troops can perform Reform Move Manoeuvres up to
twice its Mobility (instead of the normal half Mobility)" and "this rule has no effect on other
Move Manoeuvres"; "Rolls for Charge Range, Flee Distance and Pursue Distance by units entirely
with Swiftstride gain Maximised"; "A unit containing Fearless automatically passes Panic Tests".
"""

from __future__ import annotations

import math
from typing import Any

from server.rules.charge import charge_roll_expression
from server.rules.flee import flee_expression
from server.rules.units import containing, entirely, footprint_of, sheets_of, units_of
from tests.rules.test_battle import act, new_game, refused

GREMLINS_WITH_HERALD = {
    "datasheet": "mageblight-gremlin",
    "models": 3,
    "joined_characters": ["daemon-herald"],
}


def joined_deployed(deploy_gremlins: bool = True) -> Any:
    """Player 1: Gremlins + Daemon Herald; player 2: 20 Citizen Spears in 5 files."""
    state = new_game()
    state, _ = act(state, 1, type="submit_army", units=[GREMLINS_WITH_HERALD])
    state, _ = act(state, 2, type="submit_army",
                   units=[{"datasheet": "citizen-spears", "models": 20, "files": 5}])
    if deploy_gremlins:
        state, _ = act(state, 1, type="deploy_unit", unit="u1", x=36, y=10)
        state, _ = act(state, 2, type="deploy_unit", unit="u2", x=36, y=40, facing=180)
    return state


def movement_phase(state: Any, seat: int = 1) -> Any:
    for _ in range(20):
        if state.battle.active_player == seat and state.battle.phase == "Movement":
            return state
        state, _ = act(state, int(state.battle.active_player), type="end_phase")
    raise AssertionError("no Movement Phase")


# --- item 1: one "entirely" judgement -------------------------------------------------------------


def test_entirely_counts_joined_characters_and_containing_any_model() -> None:
    """Seed 000: "entirely" is every model, characters included; "containing" any model. The
    Herald has Supernal and Fearless but not Ambush, Light Troops or Swiftstride."""
    state = joined_deployed()
    unit = units_of(state)["u1"]
    assert [s.id for s in sheets_of(state, unit)] == ["mageblight-gremlin", "daemon-herald"]
    for rule in ("Ambush", "Light Troops", "Swiftstride", "Skirmisher"):
        assert containing(state, unit, rule) and not entirely(state, unit, rule)
    for rule in ("Supernal", "Fearless"):
        assert entirely(state, unit, rule)


def test_sheets_of_drops_the_rank_and_file_once_none_remain() -> None:
    """One list for flee and the battle: with every Gremlin gone, the Herald alone is the unit
    (and is then entirely without Swiftstride)."""
    import dataclasses

    state = joined_deployed()
    unit = dataclasses.replace(units_of(state)["u1"], models=0)
    assert [s.id for s in sheets_of(state, unit)] == ["daemon-herald"]
    alone = dataclasses.replace(units_of(state)["u2"], characters=())
    assert [s.id for s in sheets_of(state, alone)] == ["citizen-spears"]


def test_a_unit_not_entirely_with_ambush_cannot_go_into_ambush() -> None:
    """Seed 000, Ambush: "Any unit entirely with Ambush": the Gremlins joined by the Herald
    (who has no Ambush) must deploy normally."""
    state = joined_deployed(deploy_gremlins=False)
    err = refused(state, 1, type="declare_reserve", unit="u1")
    assert err.code == "illegal_move" and err.details["rule"] == "Ambush"
    assert "entirely" in err.message


def test_the_gremlins_alone_still_go_into_ambush() -> None:
    state = new_game()
    state, _ = act(state, 1, type="submit_army",
                   units=[{"datasheet": "mageblight-gremlin", "models": 3}])
    state, _ = act(state, 2, type="submit_army",
                   units=[{"datasheet": "citizen-spears", "models": 20, "files": 5}])
    state, events = act(state, 1, type="declare_reserve", unit="u1")
    assert units_of(state)["u1"].status == "ambush" and events[0].payload["rule"] == "Ambush"


def test_a_mixed_unit_charges_without_swiftstride_as_it_flees_without_it() -> None:
    """Seed 000, Swiftstride: only "units entirely with Swiftstride" roll Maximised, for the
    charge exactly as for the flee roll."""
    state = joined_deployed()
    unit = units_of(state)["u1"]
    assert charge_roll_expression(state, sheets_of(state, unit)) == ("2D6", 5)
    assert flee_expression(state, unit) == ("2D6", None)


def test_the_gremlins_alone_charge_with_swiftstride() -> None:
    import dataclasses

    state = joined_deployed()
    unit = dataclasses.replace(units_of(state)["u1"], characters=())
    assert charge_roll_expression(state, sheets_of(state, unit)) == ("2D6 maximised x1", 5)


def test_a_mixed_unit_reforms_as_a_normal_unit_not_as_light_troops() -> None:
    """Seed 000, Light Troops: only a unit entirely with Light Troops reforms up to twice its
    Mobility; the Gremlins + Herald move their centre at most half their Mobility (2.5 in)."""
    state = movement_phase(joined_deployed())
    start = footprint_of(state, units_of(state)["u1"])
    assert start is not None
    cx, cy = start.centre
    err = refused(state, 1, type="move_unit", unit="u1", manoeuvre="reform", files=3,
                  centre=(cx + 6.0, cy))
    assert err.code == "illegal_move" and err.details["rule"] == "Reform"
    state, events = act(state, 1, type="move_unit", unit="u1", manoeuvre="reform", files=3,
                        centre=(cx + 2.0, cy))
    assert "counts_as_march" not in events[0].payload
    end = footprint_of(state, units_of(state)["u1"])
    assert end is not None and math.dist(end.centre, (cx + 2.0, cy)) < 1e-3


# --- item 2: Light Troops has no effect on other Move Manoeuvres ------------------------------


def test_light_troops_move_sideways_and_backward_at_double_cost() -> None:
    """Seed 000, Light Troops: "this rule has no effect on other Move Manoeuvres": the Gremlins
    (Advance Rate 5) moving 2 in sideways use 4.0 of 5, and 3 in sideways is refused."""
    import dataclasses

    from server.rules.units import with_unit

    state = movement_phase(joined_deployed())
    alone = dataclasses.replace(units_of(state)["u1"], characters=())
    state = with_unit(state, alone)
    err = refused(state, 1, type="move_unit", unit="u1", manoeuvre="sideways", distance=3.0)
    assert err.details["rule"] == "Move Distance" and err.details["distance"] == 6.0
    state, events = act(state, 1, type="move_unit", unit="u1", manoeuvre="sideways",
                        distance=2.0)
    assert events[0].payload["used"] == 4.0 and events[0].payload["allowance"] == 5.0


def test_light_troops_move_backward_at_double_cost() -> None:
    state = movement_phase(joined_deployed())
    state, events = act(state, 1, type="move_unit", unit="u1", manoeuvre="backward",
                        distance=2.5)
    assert events[0].payload["used"] == 5.0


# --- item 3: the normal Reform limit --------------------------------------------------------------


def spears_movement() -> Any:
    state = joined_deployed()
    state = movement_phase(state, 2)
    return state


def test_a_5x4_block_of_spears_reforms_to_face_its_rear() -> None:
    """The 2nd-edition Reform Move (docs/rules-decisions.md "Reform"): no model moves further
    than twice its Mobility (10 in for Advance Rate 5); the centre stays. Turning the 5x4
    block of Citizen Spears about (3.94 in for the farthest model) is a legal Reform."""
    state = spears_movement()
    start = footprint_of(state, units_of(state)["u2"])
    assert start is not None
    state, events = act(state, 2, type="move_unit", unit="u2", manoeuvre="reform", files=5,
                        facing=0)
    payload = events[0].payload
    assert payload["allowance"] == 10.0 and 3.9 < payload["used"] <= 10.0
    end = footprint_of(state, units_of(state)["u2"])
    assert end is not None and end.placement is not None
    assert end.placement.facing == 0.0 and math.dist(end.centre, start.centre) < 1e-3


def test_a_5x4_block_of_spears_reforms_to_four_files() -> None:
    state = spears_movement()
    state, events = act(state, 2, type="move_unit", unit="u2", manoeuvre="reform", files=4)
    assert units_of(state)["u2"].files == 4


def test_a_reform_changes_the_files_by_at_most_three() -> None:
    """2nd-edition Reform Move: the number of files changes by no more than 3 (5 -> 9 is 4)."""
    state = spears_movement()
    err = refused(state, 2, type="move_unit", unit="u2", manoeuvre="reform", files=9)
    assert err.code == "illegal_move" and err.details["rule"] == "Reform"
    act(state, 2, type="move_unit", unit="u2", manoeuvre="reform", files=8)


def test_a_normal_unit_moves_its_centre_half_its_mobility_in_a_reform() -> None:
    """2nd-edition Reform Move: the centre travels at most half the Mobility (2.5 in)."""
    state = spears_movement()
    start = footprint_of(state, units_of(state)["u2"])
    assert start is not None
    cx, cy = start.centre
    err = refused(state, 2, type="move_unit", unit="u2", manoeuvre="reform", files=5,
                  centre=(cx + 3.0, cy))
    assert err.details["rule"] == "Reform"
    state, _ = act(state, 2, type="move_unit", unit="u2", manoeuvre="reform", files=5,
                   centre=(cx + 2.5, cy))
    end = footprint_of(state, units_of(state)["u2"])
    assert end is not None and math.dist(end.centre, (cx + 2.5, cy)) < 1e-3
