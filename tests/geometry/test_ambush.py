"""T9A Ambush arrival, seed 000_ac64b535f31b5cdf (Mageblight Gremlin): at least three of four
corners within 6 in of the chosen point, following Unit Spacing, with no other unit and no
Impassable Terrain directly between any point of the Unit Boundary and the chosen point.

The seed's figure shows three arrivals from a Battlefield Edge point: one valid, one with
Impassable Terrain between the Unit Boundary and the point, one with parts more than 6 in away.
The unit here is the seed's own: four Gremlins on 40 x 40 mm bases in Skirmish Formation
(12.5 mm gaps), two files: a square of 92.5 mm (3.642 in).
"""

from __future__ import annotations

import json
import math

import pytest

from server.geometry import (
    Battlefield,
    Placement,
    RankedFormation,
    RectBase,
    Rule,
    Table,
    Terrain,
    TerrainKind,
    ambush_zone,
    check_ambush,
    find_ambush_placement,
    footprint,
)

GREMLINS = RankedFormation.skirmish(RectBase(40, 40), 4, 2)
SIDE = 92.5 / 25.4
POINT = (36.0, 0.0)  # on player 1's Battlefield Edge
# A small rock between the point and where the blocked unit stands, > 1 in from that unit.
ROCK = Terrain("rock", ((35.1, 0.4), (35.5, 0.4), (35.5, 0.8), (35.1, 0.8)), TerrainKind.IMPASSABLE)
TABLE = Table(Battlefield(72, 48), (ROCK,), {})


def test_figure_valid_arrival() -> None:
    """Seed figure, yellow check: the unit beside the point, facing into the table: rear-left
    1.23 in, front-left 4.17, rear-right 4.83 are within 6 in; front-right 6.26 is not, and
    three of four is enough. Nothing lies between it and the point."""
    fp = footprint(GREMLINS, Placement(39, 4, 0))
    assert fp.corners is not None
    d = [math.dist(c, POINT) for c in fp.corners.as_tuple()]
    assert d == pytest.approx([4.17, 6.26, 1.23, 4.83], abs=0.01)
    r = check_ambush(TABLE, "gremlins", GREMLINS, Placement(39, 4, 0), POINT)
    assert r.legal and r.rule is None
    assert r.corners_within == 3
    json.dumps(r.to_dict())


def test_figure_blocked_by_impassable_terrain_between_boundary_and_point() -> None:
    """Seed figure, left red cross: three corners are within 6 in (rear-right 2.29, front-right
    5.46, rear-left 5.54; front-left 7.44) and the rock is more than 1 in from the unit
    (1.09 in), but it lies between the Unit Boundary and the chosen point."""
    placement = Placement(32.5, 5.2, 0)
    fp = footprint(GREMLINS, placement)
    assert fp.corners is not None
    d = [math.dist(c, POINT) for c in fp.corners.as_tuple()]
    assert d == pytest.approx([7.44, 5.46, 5.54, 2.29], abs=0.01)
    assert fp.boundary.distance(ROCK.polygon) > 1.0
    r = check_ambush(TABLE, "gremlins", GREMLINS, placement, POINT)
    assert (r.legal, r.rule, r.obstacle) == (False, Rule.AMBUSH_NOTHING_BETWEEN, "rock")
    assert r.corners_within == 3
    # Without the rock the same arrival is valid.
    assert check_ambush(Table(), "gremlins", GREMLINS, placement, POINT).legal


def test_figure_parts_more_than_six_inches_away() -> None:
    """Seed figure, right red cross: only the rear-left corner is within 6 in (4.57 in);
    front-left 6.93, rear-right 8.04, front-right 9.43."""
    r = check_ambush(TABLE, "gremlins", GREMLINS, Placement(42, 5.5, 0), POINT)
    assert (r.legal, r.rule) == (False, Rule.AMBUSH_CORNERS)
    assert str(r.rule) == "Ambush: 3 of 4 corners within 6 in"
    assert r.corners_within == 1


@pytest.mark.parametrize(
    ("placement", "point", "rule", "obstacle"),
    [
        (Placement(36, 4, 0), (36.0, 2.0), Rule.AMBUSH_EDGE_POINT, None),
        (Placement(36, 3, 0), POINT, Rule.BATTLEFIELD_EDGE, None),  # rear edge at y -0.64
        (Placement(35.5, 3.7, 0), POINT, Rule.IMPASSABLE_TERRAIN, "rock"),  # stands on it
    ],
)
def test_other_failures(
    placement: Placement, point: tuple[float, float], rule: Rule, obstacle: str | None
) -> None:
    r = check_ambush(TABLE, "gremlins", GREMLINS, placement, point)
    assert (r.legal, r.rule, r.obstacle) == (False, rule, obstacle)


def test_another_unit_between_and_unit_spacing() -> None:
    """Another unit counts like Impassable Terrain: nothing between, and Unit Spacing."""
    wolves = RankedFormation(RectBase(20, 20), 2, 2)  # 1.57 x 0.79 in
    t = Table(Battlefield(72, 48), (), {"wolves": footprint(wolves, Placement(36, 1.0, 0))})
    # Gremlins y 1.86..5.5 straight in front; the wolves (y 0.21..1.0) stand in between.
    r = check_ambush(t, "gremlins", GREMLINS, Placement(36, 5.5, 0), POINT)
    assert r.corners_within == 4
    assert (r.rule, r.obstacle) == (Rule.AMBUSH_NOTHING_BETWEEN, "wolves")
    # Wolves off to the side (x 41.71..43.29), 0.39 in from the Gremlins' right flank.
    t = Table(Battlefield(72, 48), (), {"wolves": footprint(wolves, Placement(42.5, 3.0, 0))})
    r = check_ambush(t, "gremlins", GREMLINS, Placement(39.5, 5, 0), POINT)
    assert (r.rule, r.obstacle) == (Rule.UNIT_SPACING, "wolves")


def test_search_returns_a_valid_request_unchanged() -> None:
    p = find_ambush_placement(TABLE, "gremlins", GREMLINS, POINT, Placement(39, 4, 0))
    assert p == Placement(39, 4, 0)


def test_search_snaps_a_blocked_request_to_the_nearest_valid_placement() -> None:
    requested = Placement(32.5, 5.2, 0)
    p = find_ambush_placement(TABLE, "gremlins", GREMLINS, POINT, requested)
    assert p is not None
    assert check_ambush(TABLE, "gremlins", GREMLINS, p, POINT).legal
    found = math.dist((p.x, p.y), (requested.x, requested.y))
    # No valid placement at the requested facing on the search grid is nearer.
    for i in range(-16, 17):
        for j in range(-16, 17):
            q = Placement(requested.x + 0.25 * i, requested.y + 0.25 * j, 0)
            if math.dist((q.x, q.y), (requested.x, requested.y)) < found - 1e-9:
                assert not check_ambush(TABLE, "gremlins", GREMLINS, q, POINT).legal


def test_search_snaps_a_too_far_request_back_into_range() -> None:
    requested = Placement(42, 5.5, 0)
    p = find_ambush_placement(TABLE, "gremlins", GREMLINS, POINT, requested)
    assert p is not None
    r = check_ambush(TABLE, "gremlins", GREMLINS, p, POINT)
    assert r.legal and r.corners_within >= 3


def test_search_finds_nothing_when_the_point_is_walled_in() -> None:
    wall = Terrain(
        "cliff", ((30, 0), (42, 0), (42, 2), (30, 2)), TerrainKind.IMPASSABLE
    )
    t = Table(Battlefield(72, 48), (wall,), {})
    assert find_ambush_placement(t, "gremlins", GREMLINS, POINT, Placement(36, 6, 0)) is None


def test_arrival_zone_is_a_half_disc_on_the_edge() -> None:
    zone = ambush_zone(Battlefield(72, 48), POINT)
    assert zone.area == pytest.approx(math.pi * 36 / 2, rel=0.01)
    assert zone.bounds == pytest.approx((30, 0, 42, 6), abs=1e-9)
