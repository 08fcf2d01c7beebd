"""Base contact within reach (server/geometry/contact.py), for the 40k Charge move's "each model
that can must end its Charge move in base-to-base contact with an enemy model" (10th-edition
core rules, Charge phase; docs/rules-decisions.md "Charges: base contact")."""

from __future__ import annotations

import math

import pytest
import shapely

from server.geometry import (
    Battlefield,
    ModelPlacement,
    OvalBase,
    RoundBase,
    Table,
    Terrain,
    TerrainKind,
    in_base_contact,
    models_footprint,
)
from server.geometry.contact import contact_ring, reach_contact
from server.geometry.footprint import model_polygons

BASE = RoundBase(32)
R = 32 / 25.4 / 2


def _m(x: float, y: float) -> ModelPlacement:
    return ModelPlacement(x, y, BASE)


def _table(mine: list[ModelPlacement], enemy: list[ModelPlacement], *terrain: Terrain) -> Table:
    return Table(Battlefield(60, 44), terrain,
                 {"me": models_footprint(mine), "enemy": models_footprint(enemy)})


def test_the_contact_ring_of_two_round_bases_is_the_sum_of_their_radii() -> None:
    """Two 32 mm bases touch when their centres are one base width apart (within the 0.01 in
    contact tolerance, never overlapping)."""
    other = model_polygons([_m(10, 10)])[0]
    ring = contact_ring(_m(0, 0), other)
    pts = shapely.get_coordinates(ring)
    d = [math.hypot(x - 10, y - 10) for x, y in pts]
    assert min(d) >= 2 * R * math.cos(math.pi / 32) - 1e-9
    assert max(d) <= 2 * R + 0.01
    for x, y in pts[::7]:
        poly = model_polygons([_m(float(x), float(y))])[0]
        assert in_base_contact(poly, other)
        assert shapely.area(shapely.intersection(poly, other)) < 1e-6


def test_an_oval_base_touches_along_its_own_shape() -> None:
    """The ring follows both shapes (Minkowski sum): a 60x35 mm oval touches a 32 mm base at
    half its width plus the radius side on, half its depth plus the radius end on."""
    other = model_polygons([_m(10, 10)])[0]
    oval = ModelPlacement(0, 0, OvalBase(60, 35))
    ring = contact_ring(oval, other)
    minx, miny, maxx, maxy = shapely.bounds(ring)
    assert (maxx - 10) == pytest.approx(30 / 25.4 + R, abs=0.01)
    assert (maxy - 10) == pytest.approx(17.5 / 25.4 + R, abs=0.01)


def test_a_model_within_the_roll_reaches_contact_nearest_first() -> None:
    """A model 3 in from an enemy model reaches base contact on a roll of 4, the shortest
    move first (straight at it); on a roll of 2 it does not."""
    mine, enemy = [_m(10, 10)], [_m(10, 10 + 2 * R + 3)]
    t = _table(mine, enemy)
    contacts = list(model_polygons(enemy))
    found = list(reach_contact(t, "me", mine, 0, mine[0], contacts, max_distance=4,
                               charging=["enemy"]))
    assert found
    first, k = found[0]
    assert k == 0
    assert math.hypot(first.x - 10, first.y - 10) == pytest.approx(3, abs=0.01)
    assert not list(reach_contact(t, "me", mine, 0, mine[0], contacts, max_distance=2,
                                  charging=["enemy"]))


def test_impassable_terrain_in_the_way_and_the_unit_s_coherency_limit_the_reach() -> None:
    """A wall across the straight way leaves only the places around it; a model that would
    leave its unit's coherency to touch cannot count those places."""
    mine, enemy = [_m(10, 10)], [_m(10, 10 + 2 * R + 3)]
    wall = Terrain("wall", ((6, 11.5), (14, 11.5), (14, 12), (6, 12)), TerrainKind.IMPASSABLE)
    t = _table(mine, enemy, wall)
    contacts = list(model_polygons(enemy))
    assert not list(reach_contact(t, "me", mine, 0, mine[0], contacts, max_distance=4,
                                  charging=["enemy"]))
    # Two models 30 in from the enemy; the first stays: the second, touching the enemy,
    # would be out of coherency (more than 2 in from the first).
    pair = [_m(40, 10), _m(38, 10)]
    t = _table(pair, enemy)
    assert not list(reach_contact(t, "me", pair, 1, pair[1], contacts, max_distance=30,
                                  charging=["enemy"]))
    assert list(reach_contact(t, "me", [_m(10, 12), pair[1]], 1, pair[1], contacts,
                              max_distance=30, charging=["enemy"]))


def test_a_place_taken_by_a_model_of_its_own_unit_does_not_count() -> None:
    """The only place within reach is taken by the other model's end position."""
    enemy = [_m(10, 20)]
    start = [_m(10, 20 - 2 * R - 1), _m(10 + 2 * R + 0.5, 20 - 2 * R - 1)]
    t = _table(start, enemy)
    contacts = list(model_polygons(enemy))
    # The first model ends straight in contact; the second (1 in away diagonally) could
    # reach the places beside it, not the taken one.
    ends = [_m(10, 20 - 2 * R - 0.002), start[1]]
    for place, _ in reach_contact(t, "me", ends, 1, start[1], contacts, max_distance=1.5,
                                  charging=["enemy"]):
        assert math.hypot(place.x - ends[0].x, place.y - ends[0].y) >= 2 * R - 1e-6
