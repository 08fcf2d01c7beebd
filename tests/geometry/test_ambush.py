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
    edge_facing,
    facing_difference,
    find_ambush_placement,
    footprint,
    layout,
)
from server.geometry.ambush import FACING_WEIGHT_IN_PER_DEG

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


def _cheapest_by_enumeration(
    table: Table,
    formation: RankedFormation,
    point: tuple[float, float],
    requested: Placement,
    grid: float,
    facing_step: float,
) -> tuple[float, Placement] | None:
    """The search's answer found the slow way: every grid position and facing it may try,
    each judged by check_ambush; the cheapest legal one (ties: smaller turn, earlier row,
    smaller facing, earlier row, earlier column)."""
    lay = layout(formation)
    reach = 6.0 + math.hypot(lay.width / 2, lay.depth)
    facings = {requested.facing % 360 + k * facing_step for k in range(-12, 13)}
    facings = {round(f % 360, 9) for f in facings} | {edge_facing(table.battlefield, point) or 0.0}
    n = math.ceil(2 * reach / grid) + 1
    best: tuple[tuple[float, float, float, int, int], Placement] | None = None
    for f in facings:
        turn = facing_difference(f, requested.facing)
        for j in range(-n, n + 1):
            for i in range(-n, n + 1):
                q = Placement(requested.x + grid * i, requested.y + grid * j, f)
                if math.dist(q.point, point) > reach:
                    continue
                cost = math.dist(q.point, requested.point) + FACING_WEIGHT_IN_PER_DEG * turn
                key = (cost, turn, f, j, i)
                if best is not None and key >= best[0]:
                    continue
                if check_ambush(table, "gremlins", formation, q, point).legal:
                    best = (key, q)
    return None if best is None else (best[0][0], best[1])


WOLVES = RankedFormation(RectBase(20, 20), 6, 3)  # 2.36 x 1.57 in
CROWDED = Table(
    Battlefield(72, 48),
    (ROCK, Terrain("cliff", ((41.0, 0.0), (43.0, 0.0), (43.0, 2.5), (41.0, 2.5)), "impassable")),
    {
        "wolves": footprint(WOLVES, Placement(33.0, 5.0, 20)),
        "knights": footprint(RankedFormation(RectBase(25, 50), 5, 5), Placement(38, 9, 180)),
    },
)


@pytest.mark.parametrize(
    ("table", "requested"),
    [
        (TABLE, Placement(32.5, 5.2, 0)),  # the figure's blocked arrival
        (CROWDED, Placement(36.0, 4.0, 0)),
        (CROWDED, Placement(33.2, 4.9, 30)),  # on top of the wolves
        (CROWDED, Placement(39.5, 3.0, 90)),  # on the cliff, turned along the edge
        (CROWDED, Placement(31.0, 2.5, 300)),
    ],
)
def test_search_returns_exactly_the_cheapest_valid_placement(
    table: Table, requested: Placement
) -> None:
    """Cost = distance moved + 0.05 in per degree turned, over the whole grid and all facings:
    the answer is the enumeration's, however far down the list it is."""
    grid, step = 0.5, 45.0
    p = find_ambush_placement(
        table, "gremlins", GREMLINS, POINT, requested, grid=grid, facing_step=step
    )
    expected = _cheapest_by_enumeration(table, GREMLINS, POINT, requested, grid, step)
    assert expected is not None and p is not None
    assert p == expected[1]
    assert check_ambush(table, "gremlins", GREMLINS, p, POINT).legal


def test_search_finds_a_valid_placement_far_from_the_request() -> None:
    """Walls leave one gap, 7 in from the request: the search still finds it."""
    walls = (
        Terrain("w1", ((26, 0), (37.5, 0), (37.5, 8), (26, 8)), TerrainKind.IMPASSABLE),
        Terrain("w2", ((43.5, 0), (46, 0), (46, 8), (43.5, 8)), TerrainKind.IMPASSABLE),
    )
    t = Table(Battlefield(72, 48), walls, {})
    requested = Placement(33.0, 4.0, 0)
    p = find_ambush_placement(t, "gremlins", GREMLINS, (40.0, 0.0), requested)
    assert p is not None
    assert check_ambush(t, "gremlins", GREMLINS, p, (40.0, 0.0)).legal
    assert 38.5 < p.x < 42.5


def test_search_finds_nothing_when_the_point_is_inside_an_obstacle() -> None:
    t = Table(Battlefield(72, 48), (), {"wolves": footprint(WOLVES, Placement(36.0, 1.0, 0))})
    assert find_ambush_placement(t, "gremlins", GREMLINS, (36.0, 0.0), Placement(36, 6, 0)) is None


def test_arrival_zone_is_a_half_disc_on_the_edge() -> None:
    zone = ambush_zone(Battlefield(72, 48), POINT)
    assert zone.area == pytest.approx(math.pi * 36 / 2, rel=0.01)
    assert zone.bounds == pytest.approx((30, 0, 42, 6), abs=1e-9)
