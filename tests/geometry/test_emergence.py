"""The geometry of Entombed Beneath the Sands (seed 002_20fe50c61f72ab35): the scattered
marker, the marker put 1 in away from the closest edge, and the unit placed touching it, in
base contact with an enemy's front, or from a table edge; positions worked by hand."""

from __future__ import annotations

import pytest
import shapely

from server.geometry.bases import RectBase
from server.geometry.constants import SKIRMISH_GAP_WHFB8_IN
from server.geometry.emergence import (
    EmergenceRule,
    check_emergence,
    contact_candidates,
    edge_candidates,
    emergence_candidates,
    find_emergence,
    push_clear,
    scatter_marker,
)
from server.geometry.footprint import footprint
from server.geometry.formation import RankedFormation, layout
from server.geometry.frame import Placement
from server.geometry.kinds import Rule, TerrainKind
from server.geometry.table import Battlefield, Table, Terrain

SWARM = RankedFormation(RectBase(40, 40), 3, 3, gap_in=SKIRMISH_GAP_WHFB8_IN)
"""Three Tomb Swarm bases (40 mm) in one rank, 0.5 in apart: 5.724 in wide, 1.575 in deep."""
HALBERDIERS = RankedFormation(RectBase(20, 20), 20, 5)
BF = Battlefield(72, 48)


def box(tid: str, x0: float, y0: float, x1: float, y1: float,
        kind: TerrainKind = TerrainKind.IMPASSABLE) -> Terrain:
    return Terrain(tid, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), kind)


def square(x0: float, y0: float, x1: float, y1: float) -> shapely.Polygon:
    return shapely.box(x0, y0, x1, y1)


@pytest.mark.parametrize(
    ("direction", "inches", "expected"),
    [(0.0, 6, (10.0, 16.0)), (90.0, 4, (6.0, 10.0)), (180.0, 10, (10.0, 0.0)),
     (270.0, 2, (12.0, 10.0))],
)
def test_an_arrow_moves_the_marker_the_artillery_inches_in_its_direction(
    direction: float, inches: int, expected: tuple[float, float]
) -> None:
    """Seed 002: "If you roll an arrow, move the marker the number, in inches, indicated by the
    artillery dice in the direction shown" (facing convention: 0 = +y, 90 = -x)."""
    x, y = scatter_marker((10.0, 10.0), direction, inches)
    assert (round(x, 9), round(y, 9)) == expected


@pytest.mark.parametrize(
    ("marker", "expected"),
    [((31.0, 22.0), (29.0, 22.0)),   # closest edge x = 30 (1 in in): 1 in beyond it
     ((33.0, 25.5), (33.0, 27.0)),   # closest edge y = 26
     ((30.0, 23.0), (29.0, 23.0)),   # on the edge: straight out, 1 in
     ((35.9, 20.3), (37.0, 20.3))],  # x = 36 (0.1) nearer than y = 20 (0.3)
)
def test_a_marker_under_terrain_is_put_1_in_from_the_closest_edge(
    marker: tuple[float, float], expected: tuple[float, float]
) -> None:
    """Seed 002: "If the marker is under a friendly unit, impassable terrain or a building,
    place it 1" away from the closest edge of the unit/terrain"."""
    pushed = push_clear(marker, [("farmhouse", square(30, 20, 36, 26))])
    assert pushed.moved_off == ("farmhouse",) and not pushed.stuck
    assert pushed.point == pytest.approx(expected)
    assert shapely.distance(square(30, 20, 36, 26), shapely.Point(pushed.point)) == (
        pytest.approx(1.0)
    )


def test_a_marker_clear_of_everything_stays_and_a_chain_of_pushes_ends_clear() -> None:
    """Pushed off one obstacle onto another, it is moved off that one too (35, 25.8): out of
    A through y = 26 to (35, 27), inside B, whose closest edge is x = 34.8: to (33.8, 27)."""
    a, b = square(30, 20, 36, 26), square(34.8, 26.5, 40, 28)
    assert push_clear((10, 10), [("a", a)]).moved_off == ()
    pushed = push_clear((35.0, 25.8), [("a", a), ("b", b)])
    assert pushed.moved_off == ("a", "b") and not pushed.stuck
    assert pushed.point == pytest.approx((33.8, 27.0))


def test_a_marker_bouncing_between_two_close_obstacles_is_stuck() -> None:
    """Two pieces 0.5 in apart: each push lands in the other, so no clear point is found
    (then the unit cannot be placed: a Mishap)."""
    pushed = push_clear((35.5, 23.0), [("a", square(30, 20, 36, 26)),
                                        ("b", square(36.5, 20, 40, 26))])
    assert pushed.stuck


def test_the_unit_touches_the_marker_within_the_coins_radius() -> None:
    """Seed 002: "place the emerging unit in a legal formation such that it touches the
    marker, facing any direction" (the marker a coin of 0.5 in radius)."""
    table = Table(BF)
    marker = (36.0, 24.0)
    near = check_emergence(table, "s", SWARM, Placement(36.0, 23.6, 0.0), marker=marker)
    assert near.legal  # front edge 0.4 in short of the marker
    over = check_emergence(table, "s", SWARM, Placement(36.0, 24.5, 0.0), marker=marker)
    assert over.legal  # standing on the marker touches it too
    far = check_emergence(table, "s", SWARM, Placement(36.0, 23.4, 0.0), marker=marker)
    assert not far.legal and far.rule == EmergenceRule.TOUCH_MARKER
    turned = check_emergence(table, "s", SWARM, Placement(36.0, 24.4, 180.0), marker=marker)
    assert turned.legal  # any facing: front edge 0.4 in beyond, facing the other way


def test_the_emerging_unit_keeps_unit_spacing_and_stays_on_the_table() -> None:
    """A legal formation: more than 1 in from other units and Impassable Terrain, on the
    table (FACTS.md: units stay 1 in apart except when charging)."""
    other = footprint(HALBERDIERS, Placement(36.0, 26.5, 180.0))  # front edge at y = 26.5
    table = Table(BF, (box("rock", 10, 0, 14, 6),), {"h": other})
    marker = (36.0, 24.0)
    close = check_emergence(table, "s", SWARM, Placement(36.0, 25.9, 0.0), marker=marker)
    assert close.rule == Rule.UNIT_SPACING and close.obstacle == "h"
    edge = check_emergence(table, "s", SWARM, Placement(2.0, 1.0, 0.0), marker=(2.0, 1.2))
    assert edge.rule == Rule.BATTLEFIELD_EDGE
    rock = check_emergence(table, "s", SWARM, Placement(12.0, 8.0, 0.0), marker=(12.0, 8.2))
    assert rock.rule == Rule.UNIT_SPACING and rock.obstacle == "rock"


def test_onto_an_enemy_only_flush_against_its_front() -> None:
    """Seed 002: "If the marker is under an enemy unit, you may place your unit into base
    contact with the enemy unit in their front arc; your unit will counts as charging"."""
    enemy = footprint(HALBERDIERS, Placement(36.0, 30.0, 180.0))  # faces -y, front at y = 30
    table = Table(BF, (), {"h": enemy})
    flush = check_emergence(table, "s", SWARM, Placement(36.0, 30.0, 0.0), enemy="h")
    assert flush.legal
    askew = check_emergence(table, "s", SWARM, Placement(36.0, 30.0, 10.0), enemy="h")
    assert askew.rule == EmergenceRule.FRONT_CONTACT
    short = check_emergence(table, "s", SWARM, Placement(36.0, 29.9, 0.0), enemy="h")
    assert short.rule == EmergenceRule.FRONT_CONTACT
    rear = check_emergence(table, "s", SWARM, Placement(36.0, 30.0 + 1.5748 * 4, 180.0),
                           enemy="h")
    assert rear.rule == EmergenceRule.FRONT_CONTACT
    first = contact_candidates(table, SWARM, "h")[0]
    assert (first.x, first.y, first.facing) == pytest.approx((36.0, 30.0, 0.0))


def test_from_a_table_edge_rear_edge_on_it_facing_in() -> None:
    """Mishap 5-6 (FACTS.md): it enters from a random table edge (docs/rules-decisions.md:
    rear edge on that edge, facing straight into the table)."""
    table = Table(BF)
    depth = layout(SWARM).depth
    assert check_emergence(table, "s", SWARM, Placement(36.0, depth, 0.0), edge="south").legal
    off = check_emergence(table, "s", SWARM, Placement(36.0, depth + 0.1, 0.0), edge="south")
    assert off.rule == EmergenceRule.TABLE_EDGE
    east = edge_candidates(table, SWARM, "east")[0]
    assert (east.x, east.y, east.facing) == pytest.approx((72.0 - depth, 24.0, 90.0))
    assert check_emergence(table, "s", SWARM, east, edge="east").legal


def test_the_search_finds_a_placement_in_the_open_and_none_in_a_2_in_corridor() -> None:
    """Seed 002: "if for any reason some of the models in the unit cannot be placed, then the
    unit does not emerge". A marker in the middle of a 2 in corridor between impassable
    terrain: any unit touching it is within 1 in of a wall."""
    open_table = Table(BF)
    marker = (36.0, 24.0)
    found = find_emergence(open_table, "s", SWARM,
                           emergence_candidates(SWARM, marker, Placement(36.0, 24.0, 0.0)),
                           marker=marker)
    assert found is not None
    assert check_emergence(open_table, "s", SWARM, found, marker=marker).legal
    walls = Table(BF, (box("south", 0, 0, 72, 23), box("north", 0, 25, 72, 48)))
    assert find_emergence(walls, "s", SWARM, emergence_candidates(SWARM, marker),
                          marker=marker) is None


def test_the_quick_rejection_never_drops_a_legal_placement() -> None:
    """`find_emergence` rejects candidates in bulk before the exact check; every candidate it
    drops must be illegal by the exact check (a marker among a unit, a rock and the edge)."""
    from server.geometry.emergence import _clear

    other = footprint(HALBERDIERS, Placement(30.0, 9.0, 180.0))
    table = Table(BF, (box("rock", 38, 4, 41, 9),), {"h": other})
    marker = (35.0, 4.0)
    cands = emergence_candidates(SWARM, marker, Placement(35.0, 4.0, 0.0), step=0.25,
                                 facing_step=30.0)
    kept = {(p.x, p.y, p.facing) for p in _clear(table, "s", SWARM, cands, None)}
    dropped = [p for p in cands if (p.x, p.y, p.facing) not in kept]
    assert dropped and kept
    assert not any(check_emergence(table, "s", SWARM, p, marker=marker).legal for p in dropped)
