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
from typing import Any

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


def _orient(ax: Any, ay: Any, bx: Any, by: Any) -> Any:
    c = ax * by - ay * bx
    return np.where(np.abs(c) <= _ORIENT_EPS, 0.0, np.sign(c))


def segments_cross(
    p0: FloatArray, p1: FloatArray, q0: FloatArray, q1: FloatArray, *, strict: bool = False
) -> npt.NDArray[np.bool_]:
    """(L, E) matrix: does segment p0[l]-p1[l] meet segment q0[e]-q1[e]? Touching counts unless
    `strict` (then only proper crossings count)."""
    rx = (p1[:, 0] - p0[:, 0])[:, None]
    ry = (p1[:, 1] - p0[:, 1])[:, None]
    sx = (q1[:, 0] - q0[:, 0])[None, :]
    sy = (q1[:, 1] - q0[:, 1])[None, :]
    a0x = p0[:, 0][:, None] - q0[:, 0][None, :]
    a0y = p0[:, 1][:, None] - q0[:, 1][None, :]
    a1x = p1[:, 0][:, None] - q0[:, 0][None, :]
    a1y = p1[:, 1][:, None] - q0[:, 1][None, :]
    d1 = _orient(sx, sy, a0x, a0y)
    d2 = _orient(sx, sy, a1x, a1y)
    d3 = _orient(rx, ry, -a0x, -a0y)
    b1x = q1[:, 0][None, :] - p0[:, 0][:, None]
    b1y = q1[:, 1][None, :] - p0[:, 1][:, None]
    d4 = _orient(rx, ry, b1x, b1y)
    if strict:
        return np.asarray((d1 * d2 < 0) & (d3 * d4 < 0))
    hit = (d1 * d2 <= 0) & (d3 * d4 <= 0)
    collinear = (d1 == 0) & (d2 == 0)
    if collinear.any():
        px0 = np.minimum(p0[:, 0], p1[:, 0])[:, None]
        px1 = np.maximum(p0[:, 0], p1[:, 0])[:, None]
        py0 = np.minimum(p0[:, 1], p1[:, 1])[:, None]
        py1 = np.maximum(p0[:, 1], p1[:, 1])[:, None]
        qx0 = np.minimum(q0[:, 0], q1[:, 0])[None, :]
        qx1 = np.maximum(q0[:, 0], q1[:, 0])[None, :]
        qy0 = np.minimum(q0[:, 1], q1[:, 1])[None, :]
        qy1 = np.maximum(q0[:, 1], q1[:, 1])[None, :]
        overlap = (px0 <= qx1) & (qx0 <= px1) & (py0 <= qy1) & (qy0 <= py1)
        hit = np.where(collinear, overlap, hit)
    return np.asarray(hit)


_CLEAR = LineOfSight(True, 1.0, Cover.NONE)


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

    vpts = _viewer_samples(vfp)
    tpts, tnorm = _target_samples(tfp)
    nv, nt = len(vpts), len(tpts)
    in_arc = in_front_arc(vfp, tpts) if vfp.ranked else np.ones(nt, dtype=bool)

    # Lines (i, j) flattened as i * nt + j.
    p0 = np.repeat(vpts, nt, axis=0)
    p1 = np.tile(tpts, (nv, 1))
    to_viewer = p0 - p1
    normals = np.tile(tnorm, (nv, 1))
    self_ok = (to_viewer[:, 0] * normals[:, 0] + to_viewer[:, 1] * normals[:, 1]) > EPSILON_IN
    if tfp.ranked:
        e0, e1, _ = _edges(np.array([tfp.boundary], dtype=object))
        self_ok &= ~segments_cross(p0, p1, e0, e1, strict=True).any(axis=1)

    # Obstacles near the sight lines.
    idx = table.index
    hull = shapely.convex_hull(shapely.multipoints(np.vstack([vpts, tpts])))
    cand = idx.query(hull, "intersects")
    tallest = max(int(vfp.height), int(tfp.height))
    ids: list[str] = []
    geoms: list[Any] = []
    blocks: list[bool] = []
    levels: list[int] = []
    standing_in: list[tuple[str, int]] = []
    for c in cand:
        oid = idx.ids[c]
        if oid in (viewer_id, target_id):
            continue
        g = idx.geoms[c]
        is_unit = bool(idx.is_unit[c])
        level = int(Cover.SOFT) if is_unit else int(idx.cover[c])
        if not is_unit and (
            shapely.intersects(g, tfp.boundary) or shapely.intersects(g, vfp.boundary)
        ):
            if level and shapely.intersects(g, tfp.boundary):
                inside = shapely.area(shapely.intersection(g, tfp.boundary))
                if inside >= 0.5 * shapely.area(tfp.boundary):
                    standing_in.append((oid, level))
            continue
        block = bool(idx.blocks_sight[c]) and int(idx.heights[c]) >= tallest
        if is_unit and not block:
            continue  # lower units neither block nor obscure
        if not block and level == 0:
            continue
        ids.append(oid)
        geoms.append(g)
        blocks.append(block)
        levels.append(level)

    n_lines = nv * nt
    line_block = np.zeros(n_lines, dtype=bool)
    line_level = np.zeros(n_lines, dtype=np.int64)  # cover of the line as the target sees it
    crossed: npt.NDArray[np.bool_] = np.zeros((n_lines, 0), dtype=bool)
    col_blocks: npt.NDArray[np.bool_] = np.zeros(0, dtype=bool)
    if geoms:
        garr = np.empty(len(geoms), dtype=object)
        garr[:] = geoms
        e0, e1, owner = _edges(garr)
        hits = segments_cross(p0, p1, e0, e1)
        starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        crossed = np.logical_or.reduceat(hits, starts, axis=1)
        present = owner[starts]
        blk = col_blocks = np.array(blocks)[present]
        lvl = np.array(levels, dtype=np.int64)[present]
        line_block = (crossed & blk[None, :]).any(axis=1)
        blocked_level = np.where(crossed & blk[None, :], lvl[None, :], 0).max(axis=1)
        open_level = np.where(crossed & ~blk[None, :], lvl[None, :], 0).max(axis=1)
        line_level = np.where(line_block, np.maximum(blocked_level, int(Cover.SOFT)), open_level)
        ids = [ids[k] for k in present]

    self_ok2 = self_ok.reshape(nv, nt)
    clear2 = (self_ok & ~line_block).reshape(nv, nt)
    facing = self_ok2.any(axis=0)
    considered = facing & in_arc
    seen = considered & clear2.any(axis=0)
    n_facing = int(facing.sum())
    n_seen = int(seen.sum())
    fraction = n_seen / n_facing if n_facing else 0.0

    # Cover: per considered target point, the best (lowest) cover over its lines.
    big = np.int64(99)
    lvl2 = np.where(self_ok2, line_level.reshape(nv, nt), big)
    best = lvl2.min(axis=0)
    cover = Cover.NONE
    n_cons = int(considered.sum())
    if n_cons:
        if int((best[considered] >= Cover.HARD).sum()) * 2 >= n_cons:
            cover = Cover.HARD
        elif int((best[considered] >= Cover.SOFT).sum()) * 2 >= n_cons:
            cover = Cover.SOFT
    cover_from: list[str] = [oid for oid, lvl_ in standing_in]
    for _, lvl_ in standing_in:
        cover = max(cover, Cover(lvl_))

    blockers: list[str] = []
    lines: list[tuple[Point, Point]] = []
    if crossed.shape[1]:
        relevant = self_ok & np.tile(in_arc, nv)
        used = np.asarray(crossed[relevant].any(axis=0))
        for k, oid in enumerate(ids):
            if used[k]:
                (blockers if col_blocks[k] else cover_from).append(oid)
    if n_seen:
        best_line = np.where(clear2, lvl2, big).argmin(axis=0)
        for j in np.flatnonzero(seen):
            i = int(best_line[j])
            lines.append(
                ((float(vpts[i, 0]), float(vpts[i, 1])), (float(tpts[j, 0]), float(tpts[j, 1])))
            )
    return LineOfSight(
        visible=n_seen > 0,
        fraction=fraction,
        cover=cover if n_seen else Cover.NONE,
        blockers=tuple(dict.fromkeys(blockers)),
        lines=tuple(lines),
        cover_from=tuple(dict.fromkeys(cover_from)),
    )
