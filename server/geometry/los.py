"""Line of sight from a viewer unit to a target unit, with the fraction seen, cover, blockers
and sight lines to draw.

Sight lines run from points along the viewer's front edge (a ranked unit sees from its front
facing, into its front arc) or from its models' centres (individually placed models, 360
degrees) to points spread evenly along the target's Unit Boundary. A target point counts when
it is on the side of the target facing the viewer; it is seen when it lies in the viewer's
front arc and some line to it crosses nothing that blocks.

Blocking (decision, following T9A heights): Impassable and line-of-sight blocking terrain and
other units block a line when their height class is at least the greater of the viewer's and
the target's. Terrain overlapping the viewer or the target does not block lines between them
(a unit in a wood sees out and is seen), but gives the target cover. The viewer's and
target's own boundaries, skirmisher gaps included, never block their own lines.

Cover (decision): each facing target point in the arc takes the lowest cover over its lines
(the shooter picks the best line): none if a line is clear of everything, the obstacle's cover
if the best line only passes non-blocking obscuring terrain (soft for cover terrain, hard for
low walls), hard if every line is blocked by terrain, soft if blocked only by units. The target
has hard cover when half or more of those points have hard cover, soft cover when half or more
have at least soft; standing half or more inside cover terrain gives at least that cover.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import shapely

from .arcs import in_front_arc
from .constants import EPSILON_IN
from .footprint import Footprint, convex_hull_of
from .frame import BoolArray, FloatArray, Point
from .kinds import Cover
from .table import ObstacleIndex, Table, ring_edges

LOS_VIEWER_SAMPLES = 5
"""Points along a ranked viewer's front edge that sight lines start from."""

LOS_TARGET_SAMPLES = 32
"""Points along a ranked target's Unit Boundary that sight lines end at."""

LOS_MODEL_SAMPLES = 8
"""Points per model of an individually placed target (fewer for big units, at least 4)."""

LOS_MAX_TARGET_POINTS = 64

_ORIENT_EPS = 1e-12


@dataclass(frozen=True)
class LineOfSight:
    """Whether the viewer sees the target, how much of it, its cover, what blocks, and one clear
    sight line per target point seen."""

    visible: bool
    fraction: float
    cover: Cover
    blockers: tuple[str, ...] = ()
    lines: tuple[tuple[Point, Point], ...] = ()
    cover_from: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "visible": self.visible,
            "fraction": self.fraction,
            "cover": self.cover.label,
            "blockers": list(self.blockers),
            "cover_from": list(self.cover_from),
            "lines": [[list(a), list(b)] for a, b in self.lines],
        }


def _ring_samples(ring: FloatArray, n: int) -> tuple[FloatArray, FloatArray]:
    """`n` points evenly spread along a closed ring (avoiding its vertices) and the outward
    unit normals of the edges they lie on."""
    seg = np.diff(ring, axis=0)
    lengths = np.hypot(seg[:, 0], seg[:, 1])
    keep = lengths > 0
    seg, starts, lengths = seg[keep], ring[:-1][keep], lengths[keep]
    cum = np.concatenate([[0.0], np.cumsum(lengths)])
    at = (np.arange(n) + 0.5) * (cum[-1] / n)
    k = np.clip(np.searchsorted(cum, at, side="right") - 1, 0, len(seg) - 1)
    t = (at - cum[k]) / lengths[k]
    pts = starts[k] + seg[k] * t[:, None]
    signed = float(
        np.sum(
            starts[:, 0] * (starts[:, 1] + seg[:, 1]) - (starts[:, 0] + seg[:, 0]) * starts[:, 1]
        )
    )
    sgn = 1.0 if signed > 0 else -1.0  # counter-clockwise rings: outward normal is (dy, -dx)
    normals = np.column_stack([seg[k, 1], -seg[k, 0]]) * (sgn / lengths[k])[:, None]
    return pts, normals


def _target_samples(target: Footprint) -> tuple[FloatArray, FloatArray]:
    if target.ranked:
        ring = np.asarray(shapely.get_coordinates(target.boundary.exterior), dtype=np.float64)
        return _ring_samples(ring, LOS_TARGET_SAMPLES)
    polys = target.model_polygons
    per = max(4, min(LOS_MODEL_SAMPLES, LOS_MAX_TARGET_POINTS // max(1, len(polys))))
    pts, normals = [], []
    for p in polys:
        a, b = _ring_samples(np.asarray(shapely.get_coordinates(p.exterior)), per)
        pts.append(a)
        normals.append(b)
    return np.vstack(pts), np.vstack(normals)


def _viewer_samples(viewer: Footprint) -> FloatArray:
    if viewer.corners is not None:
        fl = np.array(viewer.corners.front_left)
        fr = np.array(viewer.corners.front_right)
        t = np.linspace(0.0, 1.0, LOS_VIEWER_SAMPLES)[:, None]
        return np.asarray(fl + (fr - fl) * t, dtype=np.float64)
    return viewer.model_centres


def _crossing(
    p0: FloatArray, p1: FloatArray, q0: FloatArray, q1: FloatArray, strict: bool
) -> npt.NDArray[np.bool_]:
    """Do segments p0-p1 and q0-q1 meet? Element-wise over coordinate arrays (..., 2) that
    broadcast against each other. Touching counts unless `strict`."""
    e = _ORIENT_EPS
    rx, ry = p1[..., 0] - p0[..., 0], p1[..., 1] - p0[..., 1]
    sx, sy = q1[..., 0] - q0[..., 0], q1[..., 1] - q0[..., 1]
    a0x, a0y = p0[..., 0] - q0[..., 0], p0[..., 1] - q0[..., 1]
    a1x, a1y = p1[..., 0] - q0[..., 0], p1[..., 1] - q0[..., 1]
    d1 = sx * a0y - sy * a0x  # side of p0 relative to edge q
    d2 = sx * a1y - sy * a1x  # side of p1
    b1x, b1y = q1[..., 0] - p0[..., 0], q1[..., 1] - p0[..., 1]
    d3 = ry * a0x - rx * a0y  # side of q0 relative to segment p (= cross(r, q0 - p0))
    d4 = rx * b1y - ry * b1x  # side of q1
    if strict:
        return np.asarray(
            (((d1 > e) & (d2 < -e)) | ((d1 < -e) & (d2 > e)))
            & (((d3 > e) & (d4 < -e)) | ((d3 < -e) & (d4 > e)))
        )
    apart = ((d1 > e) & (d2 > e)) | ((d1 < -e) & (d2 < -e))
    apart |= ((d3 > e) & (d4 > e)) | ((d3 < -e) & (d4 < -e))
    hit = ~apart
    collinear = (np.abs(d1) <= e) & (np.abs(d2) <= e)
    if collinear.any():
        overlap = (
            (np.minimum(p0[..., 0], p1[..., 0]) <= np.maximum(q0[..., 0], q1[..., 0]) + e)
            & (np.minimum(q0[..., 0], q1[..., 0]) <= np.maximum(p0[..., 0], p1[..., 0]) + e)
            & (np.minimum(p0[..., 1], p1[..., 1]) <= np.maximum(q0[..., 1], q1[..., 1]) + e)
            & (np.minimum(q0[..., 1], q1[..., 1]) <= np.maximum(p0[..., 1], p1[..., 1]) + e)
        )
        hit = np.where(collinear, overlap, hit)
    return np.asarray(hit)


def segments_cross(
    p0: FloatArray, p1: FloatArray, q0: FloatArray, q1: FloatArray, *, strict: bool = False
) -> npt.NDArray[np.bool_]:
    """(L, E) matrix: does segment p0[l]-p1[l] meet segment q0[e]-q1[e]? Touching counts unless
    `strict` (then only proper crossings count)."""
    return _crossing(p0[:, None, :], p1[:, None, :], q0[None, :, :], q1[None, :, :], strict)


def _fan_crossing(
    vpts: FloatArray, tpts: FloatArray, q0: FloatArray, q1: FloatArray
) -> npt.NDArray[np.bool_]:
    """(V, T, E) array: does the sight line vpts[v]-tpts[t] meet edge q0[e]-q1[e] (touching
    counts)? The same arithmetic and tolerance as `segments_cross`, but the terms that depend
    on one end of a line only (which side of an edge a viewer or target point lies) are
    computed once per point rather than once per line."""
    e, n = _ORIENT_EPS, len(q0)
    s = q1 - q0
    ab = np.concatenate([vpts[:, None, :] - q0, q1 - vpts[:, None, :]], axis=1)  # a0 | b1
    a1 = tpts[:, None, :] - q0  # (T, E, 2)
    d1 = s[:, 0] * ab[:, :n, 1] - s[:, 1] * ab[:, :n, 0]  # side of the viewer point of the edge
    d2 = s[:, 0] * a1[..., 1] - s[:, 1] * a1[..., 0]  # side of the target point
    r = (tpts[None, :, :] - vpts[:, None, :])[:, :, None, :]  # (V, T, 1, 2)
    # Sides of q0 and q1 of the line: d3 = cross(r, a0), and -d4 = cross(r, b1) (exactly).
    d34 = r[..., 1] * ab[:, None, :, 0] - r[..., 0] * ab[:, None, :, 1]  # (V, T, 2E)
    above, below = d34 > e, d34 < -e
    apart = (above[..., :n] & below[..., n:]) | (below[..., :n] & above[..., n:])
    apart |= ((d1 > e)[:, None, :] & (d2 > e)) | ((d1 < -e)[:, None, :] & (d2 < -e))
    hit = ~apart
    on_v, on_t = np.abs(d1) <= e, np.abs(d2) <= e
    if (on_v.any(axis=0) & on_t.any(axis=0)).any():  # a line lies along an edge's line
        collinear = on_v[:, None, :] & on_t
        vx, vy, tx, ty = vpts[:, None, 0], vpts[:, None, 1], tpts[None, :, 0], tpts[None, :, 1]
        lo_x, hi_x = np.minimum(vx, tx)[..., None], np.maximum(vx, tx)[..., None]
        lo_y, hi_y = np.minimum(vy, ty)[..., None], np.maximum(vy, ty)[..., None]
        overlap = (
            (lo_x <= np.maximum(q0[:, 0], q1[:, 0]) + e)
            & (np.minimum(q0[:, 0], q1[:, 0]) <= hi_x + e)
            & (lo_y <= np.maximum(q0[:, 1], q1[:, 1]) + e)
            & (np.minimum(q0[:, 1], q1[:, 1]) <= hi_y + e)
        )
        hit = np.where(collinear, overlap, hit)
    return np.asarray(hit)


_CLEAR = LineOfSight(True, 1.0, Cover.NONE)

_BLOCKED = 16
"""Added to the cover level of obstacles that block, so one maximum finds both the highest
blocker and, for lines with none, the highest cover passed."""


def _samples(fp: Footprint) -> tuple[FloatArray, FloatArray, FloatArray, bool]:
    """Viewer points, target points, target normals, and whether the outline is non-convex;
    cached on the (immutable) footprint."""
    cached = fp.__dict__.get("_los_samples")
    if cached is None:
        tpts, tnorm = _target_samples(fp)
        concave = fp.ranked and len(shapely.get_coordinates(fp.boundary)) > 5
        cached = (_viewer_samples(fp), tpts, tnorm, concave)
        fp.__dict__["_los_samples"] = cached
    return cast("tuple[FloatArray, FloatArray, FloatArray, bool]", cached)


def _under(idx: ObstacleIndex, fp: Footprint) -> tuple[BoolArray, BoolArray]:
    """Which entries of the obstacle index meet the footprint's boundary, and which of those
    are cover terrain holding half or more of its area (cached on the immutable footprint
    for the index they were computed against)."""
    cached = fp.__dict__.get("_los_under")
    if cached is None or cached[0] is not idx:
        under = np.zeros(len(idx.ids), dtype=bool)
        under[idx.query(fp.boundary, "intersects")] = True
        half_in = np.zeros(len(idx.ids), dtype=bool)
        cover = np.flatnonzero(under & ~idx.is_unit & (idx.cover_level > 0))
        if len(cover):
            inside = shapely.area(shapely.intersection(idx.geoms[cover], fp.boundary))
            half_in[cover] = inside >= 0.5 * shapely.area(fp.boundary)
        cached = (idx, under, half_in)
        fp.__dict__["_los_under"] = cached
    return cast("tuple[BoolArray, BoolArray]", cached[1:])


def line_of_sight(
    table: Table,
    viewer_id: str,
    target_id: str,
    *,
    viewer: Footprint | None = None,
    target: Footprint | None = None,
) -> LineOfSight:
    """Line of sight from unit `viewer_id` to unit `target_id` on `table` (footprints default
    to the table's). A unit's line of sight to itself is trivially clear. With the table's own
    footprints the answer is kept on the (immutable) table: the orders of a state ask the same
    pairs several times (a Shoot offer, Fire Overwatch, the shot it would fire)."""
    if viewer_id == target_id:
        return _CLEAR
    if viewer is None and target is None:
        known: dict[tuple[str, str], LineOfSight] = table.memo.setdefault("sight", {})
        found = known.get((viewer_id, target_id))
        if found is None:
            found = known[viewer_id, target_id] = _line_of_sight(
                table, viewer_id, target_id, table.units[viewer_id], table.units[target_id])
        return found
    return _line_of_sight(
        table, viewer_id, target_id,
        table.units[viewer_id] if viewer is None else viewer,
        table.units[target_id] if target is None else target)


def _line_of_sight(
    table: Table, viewer_id: str, target_id: str, vfp: Footprint, tfp: Footprint
) -> LineOfSight:
    vpts = _samples(vfp)[0]
    _, tpts, tnorm, concave = _samples(tfp)
    nv, nt = len(vpts), len(tpts)
    in_arc = in_front_arc(vfp, tpts) if vfp.ranked else np.ones(nt, dtype=bool)

    # Which target points face which viewer points (not hidden by the target itself).
    to_viewer = vpts[:, None, :] - tpts[None, :, :]
    self_ok = (to_viewer * tnorm[None, :, :]).sum(axis=2) > EPSILON_IN
    if concave:
        e0, e1, _ = ring_edges(np.array([tfp.boundary], dtype=object))
        p0 = np.repeat(vpts, nt, axis=0)
        p1 = np.tile(tpts, (nv, 1))
        hidden = segments_cross(p0, p1, e0, e1, strict=True).any(axis=1).reshape(nv, nt)
        self_ok &= ~hidden
    facing = self_ok.any(axis=0)
    considered = facing & in_arc
    n_facing = int(facing.sum())
    if not considered.any():
        return LineOfSight(False, 0.0, Cover.NONE)

    # The sight lines that matter: facing, in the arc (kk: among the considered points).
    shown = np.flatnonzero(considered)
    ii, kk = np.nonzero(self_ok[:, shown])
    jj = shown[kk]

    # Obstacles that may matter: units that block (tall enough), and terrain that blocks or
    # gives cover unless the viewer or the target stands in it (a unit in a wood sees out and
    # is seen); of those, the ones that meet the hull of the lines, boxes first.
    idx = table.index
    tallest = max(int(vfp.height), int(tfp.height))
    block_all = idx.blocks_sight & (idx.heights >= tallest)
    under_t, half_in = _under(idx, tfp)
    level_all = idx.cover_level
    terrain_ok = ~(under_t | _under(idx, vfp)[0]) & (block_all | (level_all > 0))
    ends = np.vstack([vpts, tpts[shown]])
    lo, hi = ends.min(axis=0), ends.max(axis=0)
    box = idx.bounds
    near = (box[:, 0] <= hi[0]) & (lo[0] <= box[:, 2]) & (box[:, 1] <= hi[1]) & (lo[1] <= box[:, 3])
    for own in (viewer_id, target_id):
        if own in idx.position:
            near[idx.position[own]] = False
    cand = np.flatnonzero(near & np.where(idx.is_unit, block_all, terrain_ok))
    if len(cand):
        hull = convex_hull_of(ends)
        cand = cand[shapely.intersects(idx.geoms[cand], hull)]  # prepared first
    # Cover terrain the target stands half or more in gives it that cover, wherever the
    # terrain lies relative to the sight lines.
    standing_in = [(idx.ids[c], int(level_all[c])) for c in np.flatnonzero(half_in)]
    block, level = block_all[cand], level_all[cand]

    # Which lines cross which obstacles; what blocks each line, and its cover.
    n_lines = len(ii)
    line_block = np.zeros(n_lines, dtype=bool)
    line_level = np.zeros(n_lines, dtype=np.int64)
    used: npt.NDArray[np.bool_] = np.zeros(len(cand), dtype=bool)
    if len(cand):
        e0, e1, col = idx.edges_of(cand)
        hits = _fan_crossing(vpts, tpts[shown], e0, e1)[ii, kk]  # (lines, edges)
        starts = np.searchsorted(col, np.arange(len(cand)))
        crossed = np.logical_or.reduceat(hits, starts, axis=1)  # (lines, candidates)
        line_block = np.asarray((crossed & block).any(axis=1))
        # Blocked lines: the highest cover among their blockers, at least soft; open lines:
        # the highest cover among the terrain they pass.
        weight = np.where(block, level + _BLOCKED, level)
        worst = (crossed * weight).max(axis=1)
        line_level = np.where(line_block, np.maximum(worst - _BLOCKED, int(Cover.SOFT)), worst)
        used = np.asarray(crossed.any(axis=0))

    # What is seen.
    clear = np.zeros((nv, nt), dtype=bool)
    clear[ii, jj] = ~line_block
    big = np.int64(99)
    lvl = np.full((nv, nt), big, dtype=np.int64)
    lvl[ii, jj] = line_level
    seen = clear.any(axis=0)
    n_seen = int(seen.sum())
    fraction = n_seen / n_facing if n_facing else 0.0
    if not n_seen:
        blockers = tuple(idx.ids[c] for c, u, b in zip(cand, used, block, strict=True) if u and b)
        return LineOfSight(False, 0.0, Cover.NONE, blockers)

    # Cover: per considered target point, the best (lowest) cover over its lines.
    best = lvl.min(axis=0)[considered]
    n_cons = len(best)
    cover = Cover.NONE
    if int((best >= Cover.HARD).sum()) * 2 >= n_cons:
        cover = Cover.HARD
    elif int((best >= Cover.SOFT).sum()) * 2 >= n_cons:
        cover = Cover.SOFT
    cover_from: list[str] = []
    for oid, lv in standing_in:
        cover = max(cover, Cover(lv))
        cover_from.append(oid)
    blockers_l: list[str] = []
    for c, u, b in zip(cand, used, block, strict=True):
        if u:
            (blockers_l if b else cover_from).append(idx.ids[c])

    best_line = np.where(clear, lvl, big).argmin(axis=0)
    at = np.flatnonzero(seen)
    starts = vpts[best_line[at]].tolist()
    lines = tuple(
        ((a[0], a[1]), (b[0], b[1])) for a, b in zip(starts, tpts[at].tolist(), strict=True)
    )
    return LineOfSight(
        visible=True,
        fraction=fraction,
        cover=cover,
        blockers=tuple(blockers_l),
        lines=lines,
        cover_from=tuple(dict.fromkeys(cover_from)),
    )
