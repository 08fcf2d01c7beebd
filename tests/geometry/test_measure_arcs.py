"""Measurement between Unit Boundaries and T9A arcs (FACTS.md: measure between closest points;
arcs bounded by lines at 135 degrees from the corners; a point on a line is in both arcs)."""

from __future__ import annotations

import math

import pytest
import shapely

from server.geometry import (
    Arc,
    Placement,
    RankedFormation,
    RectBase,
    arc_of_unit,
    arc_polygons,
    arcs_fought,
    arcs_of_point,
    distance,
    distance_to_point,
    footprint,
    in_base_contact,
    within,
)

MM = 1 / 25.4
INCH_BASE = RectBase(25.4, 25.4)  # 1 x 1 in


def block(x: float, y: float, facing: float = 0.0, models: int = 4, files: int = 2):
    """A 2 x 2 in unit (four 1 in bases) with its front edge centred at (x, y)."""
    return footprint(RankedFormation(INCH_BASE, models, files), Placement(x, y, facing))


# Unit A spans x 0..2, y -2..0 (front centre (1, 0)); B is placed by its front centre.
DISTANCES = [
    # B's placement, expected distance, closest point on A, closest point on B
    ((1, 5, 180), 5.0, None, None),  # face to face, 5 in apart
    ((6, 0, 0), 3.0, None, None),  # side by side: B spans x 5..7
    ((6, 6, 0), 5.0, (2, 0), (5, 4)),  # diagonal: corners (2,0)-(5,4), a 3-4-5 triangle
    ((-3, -6, 0), math.hypot(2, 4), (0, -2), (-2, -6)),  # diagonal behind-left
    ((3, 0, 0), 0.0, None, None),  # touching flank to flank
]


@pytest.mark.parametrize(("b_at", "expected", "pa", "pb"), DISTANCES)
def test_distance_between_units(
    b_at: tuple[float, float, float],
    expected: float,
    pa: tuple[float, float] | None,
    pb: tuple[float, float] | None,
) -> None:
    a = block(1, 0)
    b = block(*b_at)
    m = distance(a, b)
    assert m.distance == pytest.approx(expected)
    assert math.dist(m.from_point, m.to_point) == pytest.approx(expected)
    if pa is not None and pb is not None:
        assert m.from_point == pytest.approx(pa)
        assert m.to_point == pytest.approx(pb)
    back = distance(b, a)
    assert back.distance == m.distance
    assert back.from_point == m.to_point


def test_point_to_unit() -> None:
    a = block(1, 0)
    assert distance_to_point(a, (5, -1)).distance == pytest.approx(3.0)
    assert distance_to_point(a, (5, 4)).distance == pytest.approx(5.0)  # corner (2, 0)
    assert distance_to_point(a, (1, -1)).distance == 0.0


@pytest.mark.parametrize(("gap", "contact"), [(0.0, True), (0.01, True), (0.0101, False)])
def test_base_contact_within_a_hundredth(gap: float, contact: bool) -> None:
    a = block(1, 0)
    b = block(1, 2 + gap, 0)  # B spans y gap .. gap + 2, A spans y -2 .. 0
    assert in_base_contact(a, b) is contact


def test_within_is_at_most() -> None:
    """T9A: "within" means at most the distance."""
    assert within(block(1, 0), block(1, 5, 180), 5.0)
    assert not within(block(1, 0), block(1, 5, 180), 4.999)


# Unit A: front centre (1, 0), facing 0, 2 in wide and 2 deep (x 0..2, y -2..0).
ARC_POINTS = [
    ((1, 5), {Arc.FRONT}),
    ((-3, 1), {Arc.LEFT}),
    ((5, -1), {Arc.RIGHT}),
    ((1, -6), {Arc.REAR}),
    ((-3, 3), {Arc.FRONT, Arc.LEFT}),  # on the 135 degree line from the front-left corner
    ((4, 2), {Arc.FRONT, Arc.RIGHT}),  # on the line from the front-right corner
    ((-1, -3), {Arc.LEFT, Arc.REAR}),
    ((3, -3), {Arc.RIGHT, Arc.REAR}),
    ((-2.9, 3), {Arc.FRONT}),
    ((-3, 2.9), {Arc.LEFT}),
]


@pytest.mark.parametrize(("point", "arcs"), ARC_POINTS)
def test_arcs_of_point(point: tuple[float, float], arcs: set[Arc]) -> None:
    assert arcs_of_point(block(1, 0), point) == arcs


def test_arcs_turn_with_the_unit() -> None:
    a = block(0, 0, 90)  # facing -x, body x 0..2, y -1..1
    assert arcs_of_point(a, (-5, 0)) == {Arc.FRONT}
    assert arcs_of_point(a, (1, -5)) == {Arc.LEFT}
    assert arcs_of_point(a, (1, 5)) == {Arc.RIGHT}
    assert arcs_of_point(a, (8, 0)) == {Arc.REAR}


def test_a_unit_is_in_the_arc_of_its_front_centre() -> None:
    """T9A: a unit is located in the arc containing the centre of its front facing."""
    a = block(1, 0)
    flanker = block(-4, -1, 270)  # to A's left, facing +x; front centre (-4, -1)
    assert arc_of_unit(a, flanker) == {Arc.LEFT}
    assert arc_of_unit(flanker, a) == {Arc.FRONT}
    behind = block(1, -5, 0)  # behind A, facing the same way: front centre (1, -5)
    assert arc_of_unit(a, behind) == {Arc.REAR}
    assert arc_of_unit(behind, a) == {Arc.FRONT}


def test_arc_polygons_cover_the_plane_around_the_unit() -> None:
    a = block(1, 0, 37)
    polys = arc_polygons(a, reach=50)
    everything = shapely.union_all([*polys.values(), a.rectangle])
    probe = shapely.Point(a.centre).buffer(40)
    assert probe.difference(everything).area == pytest.approx(0.0, abs=1e-6)
    # Arc polygons agree with the classifier.
    for arc, poly in polys.items():
        c = poly.representative_point()
        assert arc in arcs_of_point(a, (c.x, c.y))


def test_arcs_fought_are_where_two_units_touch_not_where_a_front_centre_lies() -> None:
    """A 1 in wide unit (one 1 in base, front edge x 0..1 at y 0, facing +y) and a 4 in wide
    one face to face, in contact along x 0..1 with its front centre at x 2.5: that centre lies
    in the narrow unit's right arc, but the two touch along the narrow unit's front, so that
    is the arc they fight in. A unit touching its flank edge fights its flank; one not touching
    is judged where it is located (`arc_of_unit`)."""
    narrow = footprint(RankedFormation(INCH_BASE, 1, 1), Placement(0.5, 0.0, 0.0))
    wide = footprint(RankedFormation(INCH_BASE, 4, 4), Placement(2.5, 0.0, 180.0))
    assert arc_of_unit(narrow, wide) == {Arc.RIGHT}
    assert arcs_fought(narrow, wide) == {Arc.FRONT}
    assert arcs_fought(wide, narrow) == {Arc.FRONT}
    on_the_flank = footprint(RankedFormation(INCH_BASE, 4, 2), Placement(1.0, -0.5, 90.0))
    assert distance(narrow, on_the_flank).distance == pytest.approx(0.0)
    assert arcs_fought(narrow, on_the_flank) == {Arc.RIGHT}
    apart = footprint(RankedFormation(INCH_BASE, 4, 4), Placement(2.5, 3.0, 180.0))
    assert arcs_fought(narrow, apart) == arc_of_unit(narrow, apart)
