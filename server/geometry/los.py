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
from .footprint import Footprint
from .frame import FloatArray, Point
from .kinds import Cover
from .table import Table

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


def _edges(geoms: Any) -> tuple[FloatArray, FloatArray, npt.NDArray[np.intp]]:
    """All ring edges of the geometries: starts, ends, and which geometry each belongs to."""
    rings, gidx = shapely.get_rings(geoms, return_index=True)
    coords, ridx = shapely.get_coordinates(rings, return_index=True)
    same = ridx[1:] == ridx[:-1]
    return coords[:-1][same], coords[1:][same], gidx[ridx[:-1][same]]


def segments_cross(
    p0: FloatArray, p1: FloatArray, q0: FloatArray, q1: FloatArray, *, strict: bool = False
) -> npt.NDArray[np.bool_]:
    """(L, E) matrix: does segment p0[l]-p1[l] meet segment q0[e]-q1[e]? Touching counts unless
    `strict` (then only proper crossings count)."""
    e = _ORIENT_EPS
    rx = (p1[:, 0] - p0[:, 0])[:, None]
    ry = (p1[:, 1] - p0[:, 1])[:, None]
    sx = (q1[:, 0] - q0[:, 0])[None, :]
    sy = (q1[:, 1] - q0[:, 1])[None, :]
    a0x = p0[:, 0][:, None] - q0[:, 0][None, :]
    a0y = p0[:, 1][:, None] - q0[:, 1][None, :]
    a1x = p1[:, 0][:, None] - q0[:, 0][None, :]
    a1y = p1[:, 1][:, None] - q0[:, 1][None, :]
    d1 = sx * a0y - sy * a0x  # side of p0 relative to edge q
    d2 = sx * a1y - sy * a1x  # side of p1
    b1x = q1[:, 0][None, :] - p0[:, 0][:, None]
    b1y = q1[:, 1][None, :] - p0[:, 1][:, None]
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
        px0 = np.minimum(p0[:, 0], p1[:, 0])[:, None]
        px1 = np.maximum(p0[:, 0], p1[:, 0])[:, None]
        py0 = np.minimum(p0[:, 1], p1[:, 1])[:, None]
        py1 = np.maximum(p0[:, 1], p1[:, 1])[:, None]
        qx0 = np.minimum(q0[:, 0], q1[:, 0])[None, :]
        qx1 = np.maximum(q0[:, 0], q1[:, 0])[None, :]
        qy0 = np.minimum(q0[:, 1], q1[:, 1])[None, :]
        qy1 = np.maximum(q0[:, 1], q1[:, 1])[None, :]
        overlap = (px0 <= qx1 + e) & (qx0 <= px1 + e) & (py0 <= qy1 + e) & (qy0 <= py1 + e)
        hit = np.where(collinear, overlap, hit)
    return np.asarray(hit)


_CLEAR = LineOfSight(True, 1.0, Cover.NONE)


def _samples(fp: Footprint) -> tuple[FloatArray, FloatArray, FloatArray, bool]:
    """Viewer points, target points, target normals, and whether the outline is non-convex;
    cached on the (immutable) footprint."""
    cached = fp.__dict__.get("_los_samples")
    if cached is None:
        tpts, tnorm = _target_samples(fp)
        concave = fp.ranked and len(shapely.get_coordinates(fp.boundary)) > 5
        cached = (_viewer_samples(fp), tpts, tnorm, concave)
        fp.__dict__["_los_samples"] = cached
    return cast(tuple[FloatArray, FloatArray, FloatArray, bool], cached)


def line_of_sight(
    table: Table,
    viewer_id: str,
    target_id: str,
    *,
    viewer: Footprint | None = None,
    target: Footprint | None = None,
) -> LineOfSight:
    """Line of sight from unit `viewer_id` to unit `target_id` on `table` (footprints default
    to the table's). A unit's line of sight to itself is trivially clear."""
    if viewer_id == target_id:
        return _CLEAR
    vfp = table.units[viewer_id] if viewer is None else viewer
    tfp = table.units[target_id] if target is None else target

    vpts = _samples(vfp)[0]
    _, tpts, tnorm, concave = _samples(tfp)
    nv, nt = len(vpts), len(tpts)
    in_arc = in_front_arc(vfp, tpts) if vfp.ranked else np.ones(nt, dtype=bool)

    # Which target points face which viewer points (not hidden by the target itself).
    to_viewer = vpts[:, None, :] - tpts[None, :, :]
    self_ok = (to_viewer * tnorm[None, :, :]).sum(axis=2) > EPSILON_IN
    if concave:
        e0, e1, _ = _edges(np.array([tfp.boundary], dtype=object))
        p0 = np.repeat(vpts, nt, axis=0)
        p1 = np.tile(tpts, (nv, 1))
        hidden = segments_cross(p0, p1, e0, e1, strict=True).any(axis=1).reshape(nv, nt)
        self_ok &= ~hidden
    facing = self_ok.any(axis=0)
    considered = facing & in_arc
    n_facing = int(facing.sum())
    if not considered.any():
        return LineOfSight(False, 0.0, Cover.NONE)

    # The sight lines that matter: facing, in the arc.
    ii, jj = np.nonzero(self_ok & considered[None, :])
    p0, p1 = vpts[ii], tpts[jj]

    # Obstacles near them.
    idx = table.index
    hull = shapely.convex_hull(shapely.multipoints(np.vstack([vpts, tpts[considered]])))
    cand = idx.query(hull, "intersects")
    own = [idx.position[i] for i in (viewer_id, target_id) if i in idx.position]
    cand = cand[idx.keep_mask(own)[cand]]
    is_unit = idx.is_unit[cand]
    tallest = max(int(vfp.height), int(tfp.height))
    block = idx.blocks_sight[cand] & (idx.heights[cand] >= tallest)
    level = np.where(is_unit, int(Cover.SOFT), idx.cover[cand])
    keep = is_unit & block
    standing_in: list[tuple[str, int]] = []
    terr = np.flatnonzero(~is_unit)
    if len(terr):
        g = idx.geoms[cand[terr]]
        on_target = shapely.intersects(tfp.boundary, g)
        on_viewer = shapely.intersects(vfp.boundary, g)
        keep[terr] = ~on_target & ~on_viewer & (block[terr] | (level[terr] > 0))
        for k in np.flatnonzero(on_target & (level[terr] > 0)):
            c = cand[terr[k]]
            inside = shapely.area(shapely.intersection(idx.geoms[c], tfp.boundary))
            if inside >= 0.5 * shapely.area(tfp.boundary):
                standing_in.append((idx.ids[c], int(level[terr[k]])))
    cand, block, level = cand[keep], block[keep], level[keep]

    n_lines = len(ii)
    line_block = np.zeros(n_lines, dtype=bool)
    line_level = np.zeros(n_lines, dtype=np.int64)
    used: npt.NDArray[np.bool_] = np.zeros(len(cand), dtype=bool)
    if len(cand):
        e0, e1, col = idx.edges_of(cand)
        hits = segments_cross(p0, p1, e0, e1)
        starts = np.flatnonzero(np.r_[True, col[1:] != col[:-1]])
        crossed = np.logical_or.reduceat(hits, starts, axis=1)  # (lines, candidates)
        blocked_by = crossed & block[None, :]
        line_block = blocked_by.any(axis=1)
        blocked_level = np.where(blocked_by, level[None, :], 0).max(axis=1)
        open_level = np.where(crossed & ~block[None, :], level[None, :], 0).max(axis=1)
        line_level = np.where(line_block, np.maximum(blocked_level, int(Cover.SOFT)), open_level)
        used = np.asarray(crossed.any(axis=0))

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
    lines = tuple(
        (
            (float(vpts[best_line[j], 0]), float(vpts[best_line[j], 1])),
            (float(tpts[j, 0]), float(tpts[j, 1])),
        )
        for j in np.flatnonzero(seen)
    )
    return LineOfSight(
        visible=True,
        fraction=fraction,
        cover=cover,
        blockers=tuple(blockers_l),
        lines=lines,
        cover_from=tuple(dict.fromkeys(cover_from)),
    )
