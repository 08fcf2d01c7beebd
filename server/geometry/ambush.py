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
from .footprint import Footprint, convex_hull_of, footprint
from .formation import RankedFormation, layout
from .frame import (
    BoolArray,
    FloatArray,
    IntArray,
    Placement,
    Point,
    facing_difference,
    forward_vector,
    normalize_facing,
    right_vector,
)
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
"""Positions checked exactly per vectorised call."""

_FIRST_CHECKS = 8
"""The cheapest positions at the requested facing are checked exactly before anything else:
a request that is valid or nearly so is answered without building the forbidden region."""

_SHRINK_IN = 1e-7
"""The cheap rejection tests a boundary shrunk by this much, so rounding can never reject a
valid placement."""


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


def _corners_within(corners: FloatArray, point: Point) -> IntArray:
    """How many of the corners (..., 4, 2) are within 6 in of the point."""
    d = np.hypot(corners[..., 0] - point[0], corners[..., 1] - point[1])
    return np.asarray((d <= AMBUSH_RANGE_IN + EPSILON_IN).sum(axis=-1))


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
    region = convex_hull_of(pts)
    assert fp.corners is not None
    n = int(_corners_within(fp.corners.as_array(), point))

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


def _search_facings(
    battlefield: Battlefield, point: Point, requested: float, step: float
) -> tuple[FloatArray, list[float]]:
    """Turn penalties (ascending) and facings the search tries: the requested facing first,
    then steps of `step` degrees either way and the facing straight into the table."""
    base = normalize_facing(requested)
    options = [base]
    for k in range(1, int(180.0 // step) + 1):
        options += [base + k * step, base - k * step]
    extra = edge_facing(battlefield, point)
    if extra is not None:
        options.append(extra)
    out: dict[float, float] = {}
    for f in options:
        f = round(normalize_facing(f), 9)
        out.setdefault(f, FACING_WEIGHT_IN_PER_DEG * facing_difference(f, base))
    ranked = sorted((penalty, f) for f, penalty in out.items())
    return np.array([p for p, _ in ranked], dtype=np.float64), [f for _, f in ranked]


def _turned(local: FloatArray, facings: list[float]) -> FloatArray:
    """Unit-frame offsets (k, 2) turned to each facing: (F, k, 2) table offsets from the
    front centre (the same arithmetic as `Placement.to_world`)."""
    right = np.array([right_vector(f) for f in facings], dtype=np.float64)[:, None, :]
    fwd = np.array([forward_vector(f) for f in facings], dtype=np.float64)[:, None, :]
    u, v = local[None, :, 0:1], local[None, :, 1:2]
    return np.asarray(0.0 + u * right + v * fwd, dtype=np.float64)


def _probes(outline: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The Unit Boundary outline (unit frame) shrunk by _SHRINK_IN, as a closed ring, and
    points inside it for the cheap rejection: its centroid when inside, its vertices and the
    middles of its edges."""
    inner = shapely.buffer(shapely.polygons(outline), -_SHRINK_IN, join_style="mitre")
    ring = np.asarray(shapely.get_coordinates(inner), dtype=np.float64)
    pts = [ring[:-1], (ring[:-1] + ring[1:]) / 2.0]
    centroid = np.asarray(shapely.get_coordinates(shapely.centroid(inner)), dtype=np.float64)
    if shapely.contains_xy(inner, centroid[0, 0], centroid[0, 1]):
        pts.insert(0, centroid)
    return ring, np.vstack(pts)


def _convex(ring: FloatArray) -> bool:
    """Whether a closed ring turns one way only (collinear vertices allowed): a turn the other
    way smaller than 1e-12 in^2 is rounding, far inside _SHRINK_IN."""
    edge = np.diff(ring, axis=0)
    turn = edge[:, 0] * np.roll(edge[:, 1], -1) - edge[:, 1] * np.roll(edge[:, 0], -1)
    return bool((turn >= -1e-12).all() or (turn <= 1e-12).all())


def _forbidden_region(point: Point, obstacles: Any, spacing: float, reach: float) -> Any:
    """A prepared region that no point of a valid arrival's Unit Boundary may touch.

    A boundary point b makes the arrival invalid when it is within `spacing` of an obstacle
    (Unit Spacing) or lies in an obstacle's shadow seen from the chosen point (then the segment
    from the point to b, inside the region between them, meets the obstacle). The region is
    the obstacles buffered by `spacing` plus their shadows, built from polygons that lie inside
    those sets: buffer arcs are inscribed chords; a convex obstacle's shadow is convex, so the
    hull of its corners and of points farther out on the rays through them lies inside it,
    and a concave obstacle's shadow is the union of such hulls for each edge. So touching the
    region proves a placement invalid; not touching it proves nothing (the exact check
    decides).
    """
    c = np.asarray(point, dtype=np.float64)
    pieces = [shapely.buffer(obstacles, spacing, quad_segs=4)]
    for ob in obstacles:
        rings = shapely.get_rings(ob)
        coords, ring_of = shapely.get_coordinates(rings, return_index=True)
        out = c + (coords - c) * np.maximum(1.0, reach / np.hypot(*(coords - c).T))[:, None]
        if len(rings) == 1 and _convex(coords):
            pieces.append(np.array([convex_hull_of(np.vstack([coords, out]))]))
            continue
        same = ring_of[1:] == ring_of[:-1]
        quads = np.stack([coords[:-1], coords[1:], out[1:], out[:-1]], axis=1)[same]
        pieces.append(convex_hull_of(quads))
    region = shapely.union_all(np.concatenate(pieces))
    shapely.prepare(region)
    return region


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

    Nearness (the cost) is the distance between front-edge centres plus
    FACING_WEIGHT_IN_PER_DEG per degree of turn. Positions are tried on a grid of `grid`
    inches aligned on the requested position (so a valid request comes back unchanged) and
    within 6 in + the unit's half diagonal of the point; facings are the requested one, the
    one looking straight into the table, and steps of `facing_step` degrees either way. The
    answer is the cheapest valid (facing, position) of that grid, exactly; ties go to the
    smaller turn, then to the earlier grid position (row by row).

    How: the cheapest few positions at the requested facing are checked exactly (a request
    that is valid, or nearly, is answered at once). Every other (facing, position) cheaper
    than the best so far goes through vectorised rejections, cheapest first (on the table and
    3 of 4 corners within 6 in, per grid row and column, then per position; then points of
    the boundary and the boundary itself against `_forbidden_region`), and the survivors are
    checked exactly in order of cost.
    """
    bf = table.battlefield
    if require_edge and not bf.on_edge(point):
        return None
    lay = layout(formation)
    hw, depth = lay.width / 2.0, lay.depth
    reach = AMBUSH_RANGE_IN + math.hypot(hw, depth)
    penalties, facings = _search_facings(bf, point, requested.facing, facing_step)
    outlines = _turned(np.asarray(lay.outline, dtype=np.float64), facings)
    corners = _turned(np.array([[-hw, 0.0], [hw, 0.0], [-hw, -depth], [hw, -depth]]), facings)

    # The grid of front-centre positions, aligned on the requested position: columns gx, rows
    # gy, position (row, column) = row * len(gx) + column.
    px, py = point
    rx, ry = requested.x, requested.y
    gx = rx + grid * np.arange(
        math.floor((px - reach - rx) / grid), math.ceil((px + reach - rx) / grid) + 1
    )
    gy = ry + grid * np.arange(
        math.floor((py - reach - ry) / grid), math.ceil((py + reach - ry) / grid) + 1
    )
    in_reach = np.hypot(gx[None, :] - px, gy[:, None] - py) <= reach
    dist_req = np.hypot(gx[None, :] - rx, gy[:, None] - ry).ravel()
    xs = np.broadcast_to(gx[None, :], (len(gy), len(gx))).ravel()
    ys = np.broadcast_to(gy[:, None], (len(gy), len(gx))).ravel()
    lo, hi = outlines.min(axis=1), outlines.max(axis=1)
    in_range = AMBUSH_RANGE_IN + EPSILON_IN

    def candidates(ranks: range, bound: float) -> tuple[IntArray, IntArray, FloatArray]:
        """(facing rank, position, cost) of the placements cheaper than `bound` that are
        within reach, wholly on the table, with 3 of 4 corners within 6 in; by cost, then
        rank, then position."""
        out: list[tuple[IntArray, IntArray]] = []
        for f in ranks:
            if penalties[f] >= bound:
                break
            dx = gx[None, :] + corners[f, :, 0:1] - px  # (4, columns): corner x minus point
            dy = gy[None, :] + corners[f, :, 1:2] - py
            # Necessary per column and row: on the table, 3 corners within 6 in along x (y).
            cols = np.flatnonzero(
                (gx + lo[f, 0] >= -EPSILON_IN)
                & (gx + hi[f, 0] <= bf.width + EPSILON_IN)
                & ((np.abs(dx) <= in_range + _SHRINK_IN).sum(axis=0) >= AMBUSH_CORNERS_REQUIRED)
            )
            rows = np.flatnonzero(
                (gy + lo[f, 1] >= -EPSILON_IN)
                & (gy + hi[f, 1] <= bf.depth + EPSILON_IN)
                & ((np.abs(dy) <= in_range + _SHRINK_IN).sum(axis=0) >= AMBUSH_CORNERS_REQUIRED)
            )
            if len(cols) == 0 or len(rows) == 0:
                continue
            d = np.hypot(dx[:, None, cols], dy[:, rows, None])  # (4, rows, columns)
            ok = (d <= in_range).sum(axis=0) >= AMBUSH_CORNERS_REQUIRED
            ok &= in_reach[np.ix_(rows, cols)]
            at = (rows[:, None] * len(gx) + cols[None, :])[ok]
            at = at[dist_req[at] + penalties[f] < bound]
            out.append((np.full(len(at), f, dtype=np.intp), at))
        if not out:
            return np.empty(0, np.intp), np.empty(0, np.intp), np.empty(0)
        fi, pi = (np.concatenate(x) for x in zip(*out, strict=True))
        cost = dist_req[pi] + penalties[fi]
        order = np.lexsort((pi, fi, cost))
        return fi[order], pi[order], cost[order]

    def first_valid(fi: IntArray, pi: IntArray) -> int | None:
        """Index into (fi, pi) of the first valid arrival, checked exactly in chunks."""
        for start in range(0, len(fi), _CHUNK):
            f, i = fi[start : start + _CHUNK], pi[start : start + _CHUNK]
            rings = np.stack([xs[i], ys[i]], axis=1)[:, None, :] + outlines[f]
            valid = _valid_positions(rings, point, obstacles, spacing)
            if valid.any():
                return start + int(np.argmax(valid))
        return None

    # Obstacles that can matter: a boundary with 3 corners within 6 in of the point lies
    # within 6 in + its diagonal of it.
    idx = table.index
    radius = AMBUSH_RANGE_IN + math.hypot(lay.width, depth) + spacing + EPSILON_IN
    skip = set(ignore) | {unit_id}
    near = [
        c
        for c in idx.query(shapely.Point(point), "dwithin", radius)
        if idx.ids[c] not in skip and (idx.is_unit[c] or idx.impassable[c])
    ]
    obstacles = idx.geoms[np.array(sorted(near), dtype=np.intp)] if near else None
    if obstacles is not None and shapely.intersects(shapely.Point(point), obstacles).any():
        return None  # every region between point and boundary meets the obstacle at the point

    # Facings in groups of growing size, each group's placements cheaper than the best so far
    # in order of cost: the first few exactly, the rest through the cheap rejections first.
    best: tuple[int, int] | None = None
    bound = math.inf
    region: Any = None
    n = len(facings)
    for group in (range(0, 1), range(1, min(5, n)), range(min(5, n), min(13, n)), range(13, n)):
        if len(group) == 0 or penalties[group.start] >= bound:
            break
        fi, pi, cost = candidates(group, bound)
        found: int | None = None
        start = 0
        if region is None:
            found = first_valid(fi[:_FIRST_CHECKS], pi[:_FIRST_CHECKS])
            start = _FIRST_CHECKS
        if found is None and len(fi) > start:
            keep = np.arange(start, len(fi))
            if len(keep) > _CHUNK and obstacles is not None:
                if region is None:
                    region = _forbidden_region(point, obstacles, spacing, 4.0 * radius)
                    ring, probes = _probes(np.asarray(lay.outline, dtype=np.float64))
                    turned_ring, turned_probes = _turned(ring, facings), _turned(probes, facings)
                f, i = fi[keep], pi[keep]
                keep = keep[~_rejected(region, xs[i], ys[i], turned_probes[f], turned_ring[f])]
            found = first_valid(fi[keep], pi[keep])
            found = None if found is None else int(keep[found])
        if found is not None:
            best, bound = (int(fi[found]), int(pi[found])), float(cost[found])
    if best is None:
        return None
    return Placement(float(xs[best[1]]), float(ys[best[1]]), facings[best[0]])


def _rejected(
    region: Any, x: FloatArray, y: FloatArray, probes: FloatArray, rings: FloatArray
) -> BoolArray:
    """Which placements (front centres x, y (m,); probe offsets (m, k, 2); shrunk boundary
    rings (m, r, 2)) surely fail: a probe point, or else the shrunk boundary, touches the
    region."""
    out = np.zeros(len(x), dtype=bool)
    live = np.arange(len(x))
    for k in range(probes.shape[1]):
        hit = shapely.intersects_xy(
            region, x[live] + probes[live, k, 0], y[live] + probes[live, k, 1]
        )
        out[live] = hit
        live = live[~hit]
        if len(live) == 0:
            return out
    front = np.stack([x[live], y[live]], axis=1)[:, None, :]
    out[live] = shapely.intersects(region, shapely.polygons(front + rings[live]))
    return out


def _valid_positions(rings: FloatArray, point: Point, obstacles: Any, spacing: float) -> BoolArray:
    """For placed boundary rings (m, r, 2): is nothing between boundary and point, and is Unit
    Spacing kept (obstacle-free hull, obstacles farther than `spacing`)? The exact check, the
    same as check_ambush's once the corners and the table edge are known to pass."""
    m = len(rings)
    if obstacles is None:
        return np.ones(m, dtype=bool)
    boundaries = shapely.polygons(rings)
    with_point = np.concatenate([rings, np.broadcast_to(np.array(point), (m, 1, 2))], axis=1)
    hulls = convex_hull_of(with_point)
    bad = shapely.intersects(hulls[:, None], obstacles[None, :]).any(axis=1)
    bad |= shapely.dwithin(boundaries[:, None], obstacles[None, :], spacing).any(axis=1)
    return np.asarray(~bad)
