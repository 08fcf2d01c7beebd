"""Issue 23 item 6: server/rules/units.py, directly: the unit as state and as JSON, where 40k
units are set down, deployment zones, references to units, points in reach, the per-turn move
record, and the questions the shared modules ask of the system (docs/systems.md).
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from server.data import load_catalog
from server.rules.core import RuleError
from server.rules.units import (
    DEPLOYMENT_DEPTH_IN,
    JoinedCharacter,
    Unit,
    check_in_reach,
    deployment_zone,
    footprint_of,
    grid_positions,
    is_ranked,
    record_turn_move,
    reserve_rules,
    skirmishes,
    turn_moves,
    unit_from_json,
    unit_of,
)
from tests.rules.helpers import Game, battle


def test_a_unit_survives_its_json_round_trip() -> None:
    """What the events carry is the whole unit: ranked (placement, files, characters with
    their damage, markers) and model by model (positions)."""
    ranked = Unit("u4", 2, "citizen-spears", "Citizen Spears + Highborn Commander", 19, 5,
                  "on_table", (20.5, 30.25, 180.0), (),
                  (JoinedCharacter("highborn-commander", "Highborn Commander", 1),),
                  damage=0, markers=("standard", "fleeing"))
    models = Unit("u7", 1, "boyz", "Boyz", 10, None, "on_table", None,
                  ((1.0, 2.0), (3.5, 2.0)), damage=1)
    for unit in (ranked, models):
        assert unit_from_json(unit.to_json()) == unit
    assert ranked.model_count == 20
    assert ranked.to_json()["placement"] == {"x": 20.5, "y": 30.25, "facing": 180.0}


def test_40k_units_are_set_down_in_rows_of_five_half_an_inch_apart() -> None:
    """Seven Boyz (32 mm bases) around (30, 10) facing 0: five in front, two behind, centred,
    every base 0.5 in from its neighbours, so each model is within 2 in of another
    (FACTS.md "Movement": unit coherency)."""
    sheet = load_catalog().get("wh40k10", "boyz")
    step = 32 / 25.4 + 0.5
    positions = grid_positions(sheet, 7, 30, 10, 0)
    assert len(positions) == 7
    front, back = positions[:5], positions[5:]
    assert [y for _, y in front] == pytest.approx([10 + step / 2] * 5, abs=1e-4)
    assert [y for _, y in back] == pytest.approx([10 - step / 2] * 2, abs=1e-4)
    assert [x for x, _ in front] == pytest.approx([30 + (i - 2) * step for i in range(5)],
                                                  abs=1e-4)
    assert [x for x, _ in back] == pytest.approx([30 - step / 2, 30 + step / 2], abs=1e-4)
    for i, (x, y) in enumerate(positions):
        nearest = min(math.dist((x, y), p) for j, p in enumerate(positions) if j != i)
        assert nearest == pytest.approx(step, abs=1e-3) and nearest - 32 / 25.4 <= 2
    # turned to face 90 degrees, the row runs along the y axis
    turned = grid_positions(sheet, 3, 30, 10, 90)
    flat = [c for p in turned for c in p]
    assert flat == pytest.approx([30, 10 - step, 30, 10, 30, 10 + step], abs=1e-3)


@pytest.mark.parametrize("system", ["t9a", "wh40k10"])
def test_deployment_zones_are_12_in_deep_along_each_players_edge(system: str) -> None:
    state = Game(system).state
    w, d = state.battlefield.width, state.battlefield.depth
    assert deployment_zone(state, 1).bounds == (0, 0, w, DEPLOYMENT_DEPTH_IN)
    assert deployment_zone(state, 2).bounds == (0, d - DEPLOYMENT_DEPTH_IN, w, d)
    assert DEPLOYMENT_DEPTH_IN == 12


def test_a_unit_reference_says_what_is_wrong_with_it() -> None:
    game = Game("t9a")
    game.act(1, type="submit_army", units=[{"datasheet": "citizen-spears", "models": 10}])
    assert unit_of(game.state, "u1", 1).name == "Citizen Spears"
    with pytest.raises(RuleError) as err:
        unit_of(game.state, "u9")
    assert (err.value.code, err.value.details) == ("not_found", {"unit": "u9"})
    with pytest.raises(RuleError) as err:
        unit_of(game.state, "u1", 2)
    assert (err.value.code, err.value.message) == (
        "forbidden", "Citizen Spears belongs to player 1"
    )


def test_a_point_is_in_reach_up_to_12_in_off_the_table() -> None:
    state = Game("t9a").state  # 72 x 48 in
    for x, y in ((-12, -12), (84, 60), (36, 24)):
        check_in_reach(state, x, y, "point")
    for x, y in ((-12.01, 0), (0, 60.5), (math.inf, 0), (math.nan, 1)):
        with pytest.raises(RuleError) as err:
            check_in_reach(state, x, y, "point")
        assert err.value.code == "bad_request" and err.value.details["field"] == "point"
    with pytest.raises(RuleError) as err:
        check_in_reach(state, 90, 0, "to")
    assert err.value.details["limit"] == {"min_x": -12, "max_x": 84, "min_y": -12, "max_y": 60}


def test_the_turn_move_record_lasts_one_player_turn() -> None:
    """How a unit moved this Player Turn (marched: no shooting) is forgotten when the next
    Player Turn begins; flags only ever add up within a turn."""
    state = Game("t9a").state
    state = state.evolve(battle=dataclasses.replace(state.battle, player_turn=3))
    state = record_turn_move(state, "u1", moved=True, marched=True)
    state = record_turn_move(state, "u1", marched=False, charged=True)
    assert turn_moves(state) == {"u1": {"moved": True, "marched": True, "charged": True}}
    later = state.evolve(battle=dataclasses.replace(state.battle, player_turn=4))
    assert turn_moves(later) == {}


def test_a_footprint_exists_only_on_the_table() -> None:
    """Ranked: 5 files of 20 mm bases make a 100 mm (3.937 in) front; an undeployed unit has
    no footprint."""
    block = [{"datasheet": "citizen-spears", "models": 20, "files": 5}]
    game = battle("t9a", block, block)
    fp = footprint_of(game.state, game.unit("u1"))
    assert fp is not None
    minx, _, maxx, _ = fp.boundary.bounds
    assert maxx - minx == pytest.approx(100 / 25.4, abs=1e-6)
    undeployed = dataclasses.replace(game.unit("u1"), status="undeployed", placement=None)
    assert footprint_of(game.state, undeployed) is None


def test_the_shared_questions_asked_of_each_system() -> None:
    """docs/systems.md: ranked or model by model, the reserve rules, and skirmishing (t9a
    Skirmisher, seed 000; whfb8 Skirmishers, seed 002)."""
    assert (is_ranked("t9a"), is_ranked("whfb8"), is_ranked("wh40k10")) == (True, True, False)
    assert reserve_rules("t9a") == ("Ambush",)
    assert reserve_rules("whfb8") == ("Ambushers", "Entombed Beneath the Sands")
    assert reserve_rules("wh40k10") == ("Deep Strike",)
    catalog = load_catalog()
    assert skirmishes("t9a", catalog.get("t9a", "mageblight-gremlin"))
    assert skirmishes("whfb8", catalog.get("whfb8", "tomb-swarm"))
    assert not skirmishes("whfb8", catalog.get("whfb8", "skeleton-warriors"))
