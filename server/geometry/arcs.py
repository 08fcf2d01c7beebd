"""Arcs: which of a unit's front, flank and rear arcs a point or another unit is in.

T9A (FACTS.md): the four arcs are bounded by lines from the corners of the Unit Boundary at
135 degrees to the facings; a point on a line is in both arcs; a unit is in the arc that holds
the centre of its front facing. Individually placed models (round bases) have one 360 degree
front arc.
"""

from __future__ import annotations

import numpy as np
import shapely

from .constants import CONTACT_TOLERANCE_IN, EPSILON_IN
from .footprint import Footprint
from .frame import BoolArray, FloatArray, Point
from .kinds import Arc

ALL_ARCS: frozenset[Arc] = frozenset(Arc)
_FRONT_ONLY: frozenset[Arc] = frozenset({Arc.FRONT})


def _reaches(target: Footprint, points: FloatArray) -> tuple[FloatArray, ...]:
    """How far each table point (n, 2) lies beyond the front, rear, left and right edges of
    `target`'s rectangle (negative: short of that edge's line)."""
    assert target.placement is not None
    local = target.placement.to_local(points)
    u, v = local[:, 0], local[:, 1]
    hw, d = target.width / 2.0, target.depth
    return v, -d - v, -hw - u, u - hw


def arc_tests(target: Footprint, points: FloatArray) -> dict[Arc, BoolArray]:
    """Boolean arrays, one per arc, telling for each table point (n, 2) whether it is in that
    arc of `target`. Points on a dividing line are in both arcs."""
    n = points.shape[0]
    if target.placement is None:
        ones = np.ones(n, dtype=bool)
        zeros = np.zeros(n, dtype=bool)
        return {Arc.FRONT: ones, Arc.LEFT: zeros, Arc.RIGHT: zeros.copy(), Arc.REAR: zeros.copy()}
    # The 135 degree lines from the corners are the diagonals |du| = |dv| out of each corner.
    front, rear, left, right = _reaches(target, points)
    tol = EPSILON_IN
    return {
        Arc.FRONT: front >= np.maximum(left, right) - tol,
        Arc.REAR: rear >= np.maximum(left, right) - tol,
        Arc.LEFT: left >= np.maximum(front, rear) - tol,
        Arc.RIGHT: right >= np.maximum(front, rear) - tol,
    }


def arcs_of_point(target: Footprint, point: Point) -> frozenset[Arc]:
    """The arcs of `target` that contain `point` (two when it is on a dividing line)."""
    if target.placement is None:
        return _FRONT_ONLY
    tests = arc_tests(target, np.array([point], dtype=np.float64))
    return frozenset(a for a in (Arc.FRONT, Arc.LEFT, Arc.RIGHT, Arc.REAR) if tests[a][0])


def arc_of_unit(target: Footprint, other: Footprint) -> frozenset[Arc]:
    """The arcs of `target` that `other` is located in: those holding the centre of `other`'s
    front facing (its centre for individually placed models)."""
    return arcs_of_point(target, other.front_centre)


def arcs_fought(target: Footprint, other: Footprint) -> frozenset[Arc]:
    """The arcs of `target` that `other` fights it in: when the two are in base contact, the
    arcs holding the middle of the line where they touch (a unit in contact with a front
    facing fights that front, however far its own front centre sticks out past the corner of
    a narrower enemy); when they are not touching, the arcs `other` is located in
    (`arc_of_unit`)."""
    if target.placement is None:
        return _FRONT_ONLY
    touching = shapely.intersection(
        shapely.buffer(target.boundary, CONTACT_TOLERANCE_IN), other.boundary
    )
    if touching.is_empty:
        return arc_of_unit(target, other)
    middle = shapely.centroid(touching)
    edge = shapely.boundary(target.boundary)
    on_edge = shapely.line_interpolate_point(edge, shapely.line_locate_point(edge, middle))
    return arcs_of_point(target, (float(shapely.get_x(on_edge)), float(shapely.get_y(on_edge))))


def in_front_arc(viewer: Footprint, points: FloatArray) -> BoolArray:
    """Boolean (n,) array: which table points lie in the viewer's front arc."""
    if viewer.placement is None:
        return np.ones(points.shape[0], dtype=bool)
    front, _, left, right = _reaches(viewer, points)
    return np.asarray(front >= np.maximum(left, right) - EPSILON_IN)


def arc_polygons(target: Footprint, reach: float = 100.0) -> dict[Arc, shapely.Polygon]:
    """Polygons of the four arcs out to `reach` inches from the unit, for drawing. A unit of
    individually placed models gets one front arc: its boundary buffered by `reach`."""
    if target.placement is None:
        poly = shapely.buffer(target.boundary, reach)
        assert isinstance(poly, shapely.Polygon | shapely.MultiPolygon)
        return {Arc.FRONT: shapely.convex_hull(poly)}
    hw, d, r = target.width / 2.0, target.depth, reach
    local = {
        Arc.FRONT: [(-hw, 0.0), (-hw - r, r), (hw + r, r), (hw, 0.0)],
        Arc.RIGHT: [(hw, 0.0), (hw + r, r), (hw + r, -d - r), (hw, -d)],
        Arc.REAR: [(hw, -d), (hw + r, -d - r), (-hw - r, -d - r), (-hw, -d)],
        Arc.LEFT: [(-hw, -d), (-hw - r, -d - r), (-hw - r, r), (-hw, 0.0)],
    }
    out: dict[Arc, shapely.Polygon] = {}
    for arc, pts in local.items():
        world = target.placement.to_world(np.array(pts + [pts[0]], dtype=np.float64))
        out[arc] = shapely.Polygon(world)
    return out


def front_arc_reach(viewer: Footprint, reach: float) -> shapely.Geometry:
    """The part of the table within `reach` inches of `viewer`'s Unit Boundary (closest
    points, as `measure.distance` measures a weapon's range) and in its front arc, for drawing
    a weapon's range: the boundary buffered by `reach`, cut to the front arc's polygon."""
    area = shapely.buffer(viewer.boundary, reach)
    front = arc_polygons(viewer, reach + 1.0)[Arc.FRONT]
    return shapely.intersection(area, front)
