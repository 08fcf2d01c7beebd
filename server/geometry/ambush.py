"""T9A Ambush arrival (seed 000_ac64b535f31b5cdf, Ambush and its figure of valid and invalid
arrivals).

The arriving unit is deployed with at least three of its four corners within 6 in of the
chosen point (here a point on a Battlefield Edge), wholly on the Battlefield, following Unit
Spacing, and with no other unit and no Impassable Terrain directly between any point of its
Unit Boundary and the chosen point. "Directly between" is read as: the region swept from the
point to the boundary (the convex hull of the point and the boundary, less the boundary) must
meet nothing.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .constants import (
    AMBUSH_CORNERS_REQUIRED,
    AMBUSH_RANGE_IN,
    EPSILON_IN,
    UNIT_SPACING_IN,
)
from .footprint import Footprint, footprint
from .formation import RankedFormation, layout
from .frame import Placement, Point, facing_difference, normalize_facing
from .geojson import to_geojson
from .kinds import Rule
from .table import Battlefield, Table

FACING_WEIGHT_IN_PER_DEG = 0.05
"""Search cost of turning away from the requested facing: 1 in per 20 degrees."""

SEARCH_GRID_IN = 0.25
"""Spacing of the positions the placement search tries (aligned on the requested position)."""

SEARCH_FACING_STEP_DEG = 15.0
"""Facings the search tries: the requested one, then steps of this many degrees each way."""

_CHUNK = 24
SEARCH_MAX_CHECKS_PER_FACING = 8 * _CHUNK
"""At most this many positions (nearest first) are fully checked per facing, bounding the
search when most of the zone is blocked."""


@dataclass(frozen=True, eq=False)
class AmbushCheck:
    """The verdict on an ambush arrival: legal or the failing rule and obstacle; how many
    corners are within 6 in; the region between point and boundary (for drawing)."""

    legal: bool
    rule: Rule | None
    obstacle: str | None
    footprint: Footprint
    corners_within: int
    region: BaseGeometry

    def to_dict(self) -> dict[str, Any]:
        return {
            "legal": self.legal,
            "rule": None if self.rule is None else str(self.rule),
            "obstacle": self.obstacle,
            "corners_within": self.corners_within,
            "region": to_geojson(self.region),
            "placement": None
            if self.footprint.placement is None
            else self.footprint.placement.to_dict(),
        }


def ambush_zone(
    battlefield: Battlefield, point: Point, radius: float = AMBUSH_RANGE_IN
) -> shapely.Polygon:
    """The part of the table within `radius` (6 in) of the chosen point, for drawing."""
    disc = shapely.buffer(shapely.Point(point), radius, quad_segs=16)
    zone = shapely.intersection(disc, battlefield.polygon)
    assert isinstance(zone, shapely.Polygon)
    return zone


def edge_facing(battlefield: Battlefield, point: Point) -> float | None:
    """The facing that looks straight into the table from an edge point (None off the edges)."""
    x, y = point
    tol = 1e-6
    if abs(y) <= tol:
        return 0.0
    if abs(y - battlefield.depth) <= tol:
        return 180.0
    if abs(x) <= tol:
        return 270.0
    if abs(x - battlefield.width) <= tol:
        return 90.0
    return None


def _corners_within(fp: Footprint, point: Point) -> int:
    assert fp.corners is not None
    c = fp.corners.as_array()
    d = np.hypot(c[:, 0] - point[0], c[:, 1] - point[1])
    return int((d <= AMBUSH_RANGE_IN + EPSILON_IN).sum())


def check_ambush(
    table: Table,
    unit_id: str,
    formation: RankedFormation,
    placement: Placement,
    point: Point,
    *,
    require_edge: bool = True,
    ignore: Collection[str] = (),
    spacing: float = UNIT_SPACING_IN,
) -> AmbushCheck:
    """Check an ambush arrival of `formation` at `placement` from the chosen `point`.

    In order: the point is on a Battlefield Edge (when `require_edge`), 3 of 4 corners within
    6 in, wholly on the table (Battlefield Edge), no Impassable Terrain under it, nothing
    between the Unit Boundary and the point, Unit Spacing.
    """
    fp = footprint(formation, placement)
    boundary = fp.boundary
    pts = np.vstack([fp.hull_points, [point]])
    region = shapely.convex_hull(shapely.multipoints(pts))
    n = _corners_within(fp, point)

    def verdict(rule: Rule | None, obstacle: str | None = None) -> AmbushCheck:
        return AmbushCheck(rule is None, rule, obstacle, fp, n, region)

    if require_edge and not table.battlefield.on_edge(point):
        return verdict(Rule.AMBUSH_EDGE_POINT)
    if n < AMBUSH_CORNERS_REQUIRED:
        return verdict(Rule.AMBUSH_CORNERS)
    if not table.battlefield.contains_bounds(shapely.bounds(boundary)):
        return verdict(Rule.BATTLEFIELD_EDGE)
    idx = table.index
    skip = set(ignore) | {unit_id}
    cand = [
        c
        for c in idx.query(region, "dwithin", spacing)
        if idx.ids[c] not in skip and (idx.is_unit[c] or idx.impassable[c])
    ]
    if not cand:
        return verdict(None)
    arr = np.array(cand, dtype=np.intp)
    geoms = idx.geoms[arr]
    touching = shapely.intersects(boundary, geoms)
    imp = touching & idx.impassable[arr]
    if imp.any():
        return verdict(Rule.IMPASSABLE_TERRAIN, idx.ids[int(arr[np.argmax(imp)])])
    between = ~touching & shapely.intersects(region, geoms)
    if between.any():
        hits = arr[between]
        d = shapely.distance(shapely.Point(point), idx.geoms[hits])
        return verdict(Rule.AMBUSH_NOTHING_BETWEEN, idx.ids[int(hits[int(np.argmin(d))])])
    close = shapely.dwithin(boundary, geoms, spacing)
    if close.any():
        hits = arr[close]
        d = shapely.distance(boundary, idx.geoms[hits])
        return verdict(Rule.UNIT_SPACING, idx.ids[int(hits[int(np.argmin(d))])])
    return verdict(None)


def _rot(local: np.ndarray, facing: float) -> np.ndarray:
    """Unit-frame offsets (k, 2) to table offsets for a facing."""
    t = math.radians(facing)
    c, s = math.cos(t), math.sin(t)
    # right = (c, s), forward = (-s, c)
    return np.column_stack([local[:, 0] * c - local[:, 1] * s, local[:, 0] * s + local[:, 1] * c])


def find_ambush_placement(
    table: Table,
    unit_id: str,
    formation: RankedFormation,
    point: Point,
    requested: Placement,
    *,
    require_edge: bool = True,
    ignore: Collection[str] = (),
    spacing: float = UNIT_SPACING_IN,
    grid: float = SEARCH_GRID_IN,
    facing_step: float = SEARCH_FACING_STEP_DEG,
) -> Placement | None:
    """The valid ambush placement nearest to `requested` (for snapping while dragging), or None.

    Nearness is the distance between front-edge centres plus FACING_WEIGHT_IN_PER_DEG per
    degree of turn. Positions are tried on a grid of `grid` inches aligned on the requested
    position (so a valid request comes back unchanged); facings are the requested one, the
    one looking straight into the table, and steps of `facing_step` degrees either way.
    """
    bf = table.battlefield
    if require_edge and not bf.on_edge(point):
        return None
    lay = layout(formation)
    hw, depth = lay.width / 2.0, lay.depth
    corners_local = np.array([[-hw, 0.0], [hw, 0.0], [-hw, -depth], [hw, -depth]])
    outline_local = np.asarray(lay.outline, dtype=np.float64)
    reach = AMBUSH_RANGE_IN + math.hypot(hw, depth)

    # Grid of front-centre positions around the point, aligned on the requested position.
    px, py = point
    rx, ry = requested.x, requested.y
    i0 = math.floor((px - reach - rx) / grid)
    i1 = math.ceil((px + reach - rx) / grid)
    j0 = math.floor((py - reach - ry) / grid)
    j1 = math.ceil((py + reach - ry) / grid)
    gx = rx + grid * np.arange(i0, i1 + 1)
    gy = ry + grid * np.arange(j0, j1 + 1)
    xx, yy = np.meshgrid(gx, gy)
    pos = np.column_stack([xx.ravel(), yy.ravel()])
    pos = pos[np.hypot(pos[:, 0] - px, pos[:, 1] - py) <= reach]
    dist_req = np.hypot(pos[:, 0] - rx, pos[:, 1] - ry)

    # Obstacles that can matter anywhere in the search area.
    idx = table.index
    area = shapely.buffer(shapely.Point(point), reach + spacing + EPSILON_IN, quad_segs=4)
    skip = set(ignore) | {unit_id}
    near = [
        c
        for c in idx.query(area, "intersects")
        if idx.ids[c] not in skip and (idx.is_unit[c] or idx.impassable[c])
    ]
    obstacles = idx.geoms[np.array(near, dtype=np.intp)] if near else None

    facings: list[tuple[float, float]] = []
    seen: set[float] = set()
    base = normalize_facing(requested.facing)
    extra = edge_facing(bf, point)
    steps = int(180.0 // facing_step)
    options = [base] + [base + s * k * facing_step for k in range(1, steps + 1) for s in (1, -1)]
    if extra is not None:
        options.append(extra)
    for f in options:
        f = round(normalize_facing(f), 9)
        if f not in seen:
            seen.add(f)
            facings.append((FACING_WEIGHT_IN_PER_DEG * facing_difference(f, base), f))
    facings.sort()

    best: tuple[float, Placement] | None = None
    for penalty, facing in facings:
        if best is not None and penalty >= best[0]:
            break
        corners = pos[:, None, :] + _rot(corners_local, facing)[None, :, :]
        within = (
            np.hypot(corners[..., 0] - px, corners[..., 1] - py) <= AMBUSH_RANGE_IN + EPSILON_IN
        ).sum(axis=1) >= AMBUSH_CORNERS_REQUIRED
        outline = _rot(outline_local, facing)
        lo = outline.min(axis=0)
        hi = outline.max(axis=0)
        on_table = (
            (pos[:, 0] + lo[0] >= -EPSILON_IN)
            & (pos[:, 1] + lo[1] >= -EPSILON_IN)
            & (pos[:, 0] + hi[0] <= bf.width + EPSILON_IN)
            & (pos[:, 1] + hi[1] <= bf.depth + EPSILON_IN)
        )
        ok = np.flatnonzero(within & on_table)
        if len(ok) == 0:
            continue
        cost = dist_req[ok] + penalty
        order = ok[np.argsort(cost, kind="stable")]
        for start in range(0, min(len(order), SEARCH_MAX_CHECKS_PER_FACING), _CHUNK):
            chunk = order[start : start + _CHUNK]
            if best is not None and dist_req[chunk[0]] + penalty >= best[0]:
                break
            valid = _valid_positions(pos[chunk], outline, point, obstacles, spacing)
            if valid.any():
                k = int(chunk[int(np.argmax(valid))])
                fx, fy = float(pos[k, 0]), float(pos[k, 1])
                candidate = (float(dist_req[k] + penalty), Placement(fx, fy, facing))
                if best is None or candidate[0] < best[0]:
                    best = candidate
                break
    return None if best is None else best[1]


def _valid_positions(
    pos: np.ndarray,
    outline: np.ndarray,
    point: Point,
    obstacles: Any,
    spacing: float,
) -> np.ndarray:
    """For front-centre positions (m, 2) of one facing: is nothing between boundary and point,
    and is Unit Spacing kept (obstacle-free hull, obstacles farther than `spacing`)?"""
    m = len(pos)
    if obstacles is None:
        return np.ones(m, dtype=bool)
    rings = pos[:, None, :] + outline[None, :, :]
    boundaries = shapely.polygons(rings)
    with_point = np.concatenate([rings, np.broadcast_to(np.array(point), (m, 1, 2))], axis=1)
    hulls = shapely.convex_hull(shapely.multipoints(with_point))
    bad = shapely.intersects(hulls[:, None], obstacles[None, :]).any(axis=1)
    bad |= shapely.dwithin(boundaries[:, None], obstacles[None, :], spacing).any(axis=1)
    return np.asarray(~bad)
