"""Fleeing and rallying (server/rules/flee.py): hand-worked flee moves through the geometry
core, the Flee Distance roll (seed 000 Swiftstride: Maximised), Rally Tests (Discipline 2D6)
and whfb8 Feigned Flight (seed 002).

Citizen Spears: 20 models of 20 mm in 5 files, so 3.937 in wide and 4 ranks = 3.1496 in deep.
Player 1's spears u1 stand at (36, 20) facing 0 (ranks behind, to y = 16.85); player 2's u2 at
(36, 30) facing 180 (front edge at y = 30, ranks to y = 33.1496, centre (36, 31.5748)).
"""

from __future__ import annotations

import dataclasses

import pytest

from server.dice import DiceStream
from server.rules.flee import (
    CHARGE_REACTION,
    FEIGNED_FLIGHT,
    FLEEING,
    SHAKEN,
    discipline,
    flee_events,
    flee_path,
    rally_events,
)
from tests.rules.helpers import SEED, Game, battle

DEPTH = 4 * 20 / 25.4  # four ranks of 20 mm bases
SPEARS = {"datasheet": "citizen-spears", "models": 20, "files": 5}
ARCHERS = {"datasheet": "citizen-archers", "models": 10, "files": 5}


def facing_off(seed: bytes = SEED) -> Game:
    """u1 (player 1) and u2 (player 2) 10 in apart, fronts facing; u3 (archers, player 2) far
    off in a corner."""
    game = battle("t9a", [SPEARS], [SPEARS, ARCHERS], seed)
    game.put("u1", 36, 20, 0)
    game.put("u2", 36, 30, 180)
    game.put("u3", 66, 44, 180)
    return game


def test_flee_turns_directly_away_and_moves_straight() -> None:
    """Away from u1's centre (36, 18.43) through u2's centre (36, 31.57) is +y: u2 pivots about
    its centre to face 0 (front edge to y = 31.5748 + 1.5748 = 33.1496), then moves 10 in."""
    game = facing_off()
    path = flee_path(game.state, "u2", "u1", 10.0)
    assert path.facing == pytest.approx(0.0)
    assert path.end is not None and path.end.placement is not None
    assert path.end.placement.x == pytest.approx(36.0)
    assert path.end.placement.y == pytest.approx(30 + DEPTH + 10)
    assert path.moved == pytest.approx(10.0) and path.passed_through == ()


@pytest.mark.parametrize(
    ("distance", "off_table"),
    [
        (14.8, False),  # front edge at 33.1496 + 14.8 = 47.95 <= 48
        (14.9, True),  # 48.05: beyond the Battlefield Edge, the unit is destroyed
    ],
)
def test_flee_off_the_table_destroys(distance: float, off_table: bool) -> None:
    game = facing_off()
    assert flee_path(game.state, "u2", "u1", distance).off_table is off_table


def test_flee_passes_through_a_unit_and_moves_on_until_clear() -> None:
    """Archers u3 (2 ranks, 1.5748 in deep) at (36, 40) facing 180 span y 40..41.5748. An 8 in
    flee would end on them (u2's rear at 38), so u2 moves on until its rear edge is more than
    1 in (Unit Spacing) past them: rear 30 + d > 42.5748, d = 12.6 in 0.1 in steps."""
    game = facing_off()
    game.put("u3", 36, 40, 180)
    path = flee_path(game.state, "u2", "u1", 8.0)
    assert path.moved == pytest.approx(12.6)
    assert path.passed_through == ("u3",)
    assert path.end is not None and path.end.placement is not None
    assert path.end.placement.y == pytest.approx(30 + DEPTH + 12.6)


def test_a_unit_that_cannot_get_clear_before_the_edge_is_destroyed() -> None:
    """u3 at (36, 44) spans 44..45.57; an 11 in flee ends on it and getting clear would need the
    rear edge past 46.57, the front past 49.7: off the table."""
    game = facing_off()
    game.put("u3", 36, 44, 180)
    assert flee_path(game.state, "u2", "u1", 11.0).off_table


def test_flee_events_roll_2d6_and_mark_the_unit_fleeing() -> None:
    game = facing_off()
    events = flee_events(game.state, "u2", "u1", game.dice(), "test")
    game.append(events)
    (fled,) = events
    p = fled.payload
    assert fled.type == "unit_fled" and fled.actor == 2
    assert p["roll"]["expression"] == "2D6" and p["rule"] is None
    assert p["distance"] == p["roll"]["total"] and p["moved"] == pytest.approx(p["distance"])
    unit = game.unit("u2")
    assert unit.markers == (FLEEING,) and unit.status == "on_table"
    assert unit.placement[1] == pytest.approx(30 + DEPTH + p["distance"], abs=1e-3)
    assert game.state.dice_position == p["roll"]["end"]


def test_swiftstride_flee_distance_is_maximised() -> None:
    """Seed 000 Swiftstride: Flee Distance rolls of units entirely with it gain Maximised (one
    extra D6, the lowest discarded)."""
    game = battle("t9a", [SPEARS], [{"datasheet": "mageblight-gremlin", "models": 3}])
    game.put("u1", 36, 20, 0)
    game.put("u2", 36, 30, 180)
    (fled,) = flee_events(game.state, "u2", "u1", game.dice(), "test")
    roll = fled.payload["roll"]
    assert roll["expression"] == "2D6 maximised x1" and fled.payload["rule"] == "Swiftstride"
    kept = [d["face"] for d in roll["dice"] if d["kept"]]
    assert len(roll["dice"]) == 3 and len(kept) == 2
    assert sorted(kept) == sorted(d["face"] for d in roll["dice"])[1:]
    assert fled.payload["distance"] == sum(kept)


def test_discipline_is_the_highest_in_the_unit() -> None:
    """A Highborn Commander (Discipline 9) joined to Citizen Spears (8) lends his."""
    game = battle("t9a", [{**SPEARS, "joined_characters": ["highborn-commander"]}], [SPEARS])
    assert discipline(game.state, game.unit("u1")) == 9
    assert discipline(game.state, game.unit("u2")) == 8


@pytest.mark.parametrize("seed", [bytes([n]) * 32 for n in range(12)])
def test_rally_test_at_the_start_of_the_owners_turn(seed: bytes) -> None:
    """A fleeing unit tests 2D6 against Discipline 8 when its Player Turn begins: passed, it
    stops fleeing and is Shaken (t9a) until that turn ends; failed, it flees again away from
    the nearest enemy (u1)."""
    game = facing_off(seed)
    game.put("u2", 36, 30, 180, markers=(FLEEING,))
    game.to_phase(1, "Melee")
    events = game.act(1, type="end_phase")
    kinds = [e.type for e in events]
    test = next(e for e in events if e.type in ("unit_rallied", "rally_failed"))
    total = test.payload["roll"]["total"]
    assert test.payload["discipline"] == 8 and test.payload["roll"]["expression"] == "2D6"
    if total <= 8:
        assert kinds == ["phase_ended", "unit_rallied"]
        assert game.unit("u2").markers == (SHAKEN,)
        game.to_phase(1, "Charge")  # player 2's turn ends: Shaken ends with it
        assert game.unit("u2").markers == ()
    else:
        assert kinds == ["phase_ended", "rally_failed", "unit_fled"]
        assert events[-1].payload["away_from"] == "u1"
        assert events[-1].payload["reason"] == "failed Rally Test"


def test_both_rally_outcomes_are_covered_by_the_seeds() -> None:
    outcomes = set()
    for n in range(12):
        game = facing_off(bytes([n]) * 32)
        game.put("u2", 36, 30, 180, markers=(FLEEING,))
        game.to_phase(2, "Charge")
        outcomes |= {e.type for e in game.log if e.type in ("unit_rallied", "rally_failed")}
    assert outcomes == {"unit_rallied", "rally_failed"}


def test_whfb8_feigned_flight_rallies_automatically() -> None:
    """Seed 002, Feigned Flight: Skirmishers that flee as a charge reaction rally in their next
    turn without a test (and, whfb8, are not Shaken)."""
    game = battle("whfb8", [{"datasheet": "empire-halberdiers", "models": 20, "files": 5}],
                  [{"datasheet": "tomb-swarm", "models": 3}])
    game.put("u1", 36, 20, 0)
    game.put("u2", 36, 30, 180)
    game.append(flee_events(game.state, "u2", "u1", game.dice(), CHARGE_REACTION))
    assert game.unit("u2").markers == (FLEEING, FEIGNED_FLIGHT)
    game.state = dataclasses.replace(  # as when player 2's turn begins
        game.state, battle=dataclasses.replace(game.state.battle, active_player=2)
    )
    (rallied,) = rally_events(game.state, DiceStream(SEED, game.state.dice_position))
    assert rallied.type == "unit_rallied" and rallied.payload["rule"] == "Feigned Flight"
    assert "roll" not in rallied.payload and rallied.payload["unit_after"]["markers"] == []


def test_a_unit_fleeing_off_the_table_is_destroyed() -> None:
    game = facing_off()
    game.put("u2", 36, 42, 180)  # ranks to 45.15: almost any flee leaves the table
    (fled,) = flee_events(game.state, "u2", "u1", game.dice(), "test")
    game.append([fled])
    if fled.payload["destroyed"]:
        assert game.unit("u2").status == "destroyed"
        assert game.state.to_json()["units"]["u2"]["footprint"] is None
    else:  # only a roll of 2 keeps it on the table: front 45.15 + 2 = 47.15
        assert fled.payload["distance"] <= 2.85
