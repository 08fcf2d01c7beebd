"""Shortest paths around obstacles on the table, for models that move one by one (WFB 8th
Skirmishers, seed 002: "when there is a unit or impassable terrain in the way, the distance
moved must include the distance required to move around these obstacles").

One implementation: a visibility graph. Each obstacle is grown by the moving model's
clearance (half its base, so the path of its centre keeps the whole base off the obstacle)
with mitred corners, which circumscribe the rounded grown shape: a path never comes closer
than the clearance, and around a corner it is at most a little longer than the exact one
(for a right-angled corner, 2 (sqrt 2 - 1) r * (angle turned / 90 degrees) at most). The
graph's nodes are the start, the ends and the grown obstacles' corners; two nodes are joined
when the segment between them enters no grown obstacle (touching its edge is allowed).
Dijkstra's algorithm gives the shortest length from a start to every end.

`model_assignment` answers the Skirmishers' question for a whole unit: can every model reach a
place of the new formation within its allowance (each model one place)? It is a bipartite
matching over the pairs whose path is short enough (exact, by augmenting paths).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .constants import EPSILON_IN
from .frame import Point

_SHRINK_IN = 1e-6
"""Segments are tested against the grown obstacles shrunk by this much, so a segment running
along an edge or through a corner does not count as entering it."""

MITRE_LIMIT = 2.0
"""Mitred corners of the grown obstacles are cut beyond twice the clearance (sharp spikes)."""


@dataclass(frozen=True)
class Obstacles:
    """The obstacles grown by a clearance, ready for path queries."""

    grown: BaseGeometry
    """Union of the grown obstacles (empty when there are none)."""
    inner: BaseGeometry
    """`grown` shrunk by _SHRINK_IN and prepared: what a path segment may not enter."""
    corners: np.ndarray
    """(k, 2) corners of `grown`: the graph's fixed nodes."""


def grow(obstacles: Sequence[BaseGeometry], clearance: float) -> Obstacles:
    """The obstacles grown by `clearance` with mitred corners, merged where they overlap."""
    if not obstacles:
        empty = shapely.GeometryCollection()
        return Obstacles(empty, empty, np.zeros((0, 2)))
    grown = shapely.union_all(
        shapely.buffer(np.asarray(obstacles, dtype=object), clearance, join_style="mitre",
                       mitre_limit=MITRE_LIMIT)
    )
    inner = shapely.buffer(grown, -_SHRINK_IN, join_style="mitre")
    shapely.prepare(inner)
    rings = shapely.get_rings(shapely.get_parts(grown))
    corners = (
        np.vstack([np.asarray(shapely.get_coordinates(r))[:-1] for r in rings])
        if len(rings)
        else np.zeros((0, 2))
    )
    return Obstacles(grown, inner, corners)


def _visible(a: np.ndarray, b: np.ndarray, obstacles: Obstacles) -> np.ndarray:
    """(len(a), len(b)) whether each segment a[i]-b[j] stays out of the grown obstacles."""
    if shapely.is_empty(obstacles.inner):
        return np.ones((len(a), len(b)), dtype=bool)
    aa = np.repeat(a, len(b), axis=0)
    bb = np.tile(b, (len(a), 1))
    segs = shapely.linestrings(np.stack([aa, bb], axis=1))
    same = np.all(np.abs(aa - bb) < 1e-12, axis=1)
    blocked = shapely.intersects(segs[~same], obstacles.inner)
    ok = np.ones(len(aa), dtype=bool)
    ok[~same] = ~blocked
    return ok.reshape(len(a), len(b))


def shortest_lengths(
    starts: Sequence[Point], ends: Sequence[Point], obstacles: Obstacles
) -> np.ndarray:
    """(len(starts), len(ends)) lengths of the shortest paths around the grown obstacles
    (inf when an end cannot be reached, e.g. it lies inside a grown obstacle)."""
    s = np.asarray(starts, dtype=np.float64).reshape(-1, 2)
    e = np.asarray(ends, dtype=np.float64).reshape(-1, 2)
    c = obstacles.corners
    inside_s = _inside(s, obstacles)
    inside_e = _inside(e, obstacles)
    # Corner-to-corner edges (shared by every query).
    cc = _visible(c, c, obstacles) if len(c) else np.zeros((0, 0), dtype=bool)
    dcc = np.hypot(c[:, None, 0] - c[None, :, 0], c[:, None, 1] - c[None, :, 1])
    ce = _visible(c, e, obstacles) if len(c) else np.zeros((0, len(e)), dtype=bool)
    dce = np.hypot(c[:, None, 0] - e[None, :, 0], c[:, None, 1] - e[None, :, 1])
    se = _visible(s, e, obstacles)
    dse = np.hypot(s[:, None, 0] - e[None, :, 0], s[:, None, 1] - e[None, :, 1])
    sc = _visible(s, c, obstacles) if len(c) else np.zeros((len(s), 0), dtype=bool)
    dsc = np.hypot(s[:, None, 0] - c[None, :, 0], s[:, None, 1] - c[None, :, 1])
    out = np.full((len(s), len(e)), np.inf)
    for i in range(len(s)):
        if inside_s[i]:
            continue
        # Dijkstra over the corners from start i.
        dist = np.full(len(c), np.inf)
        heap: list[tuple[float, int]] = []
        for first in np.flatnonzero(sc[i]):
            dist[first] = dsc[i, first]
            heapq.heappush(heap, (float(dist[first]), int(first)))
        done = np.zeros(len(c), dtype=bool)
        while heap:
            d, k = heapq.heappop(heap)
            if done[k] or d > dist[k]:
                continue
            done[k] = True
            for m in np.flatnonzero(cc[k] & ~done):
                nd = d + dcc[k, m]
                if nd < dist[m] - 1e-12:
                    dist[m] = nd
                    heapq.heappush(heap, (float(nd), int(m)))
        direct = np.where(se[i], dse[i], np.inf)
        via = (
            np.min(np.where(ce, dist[:, None] + dce, np.inf), axis=0)
            if len(c)
            else np.full(len(e), np.inf)
        )
        out[i] = np.where(inside_e, np.inf, np.minimum(direct, via))
    return out


def _inside(points: np.ndarray, obstacles: Obstacles) -> np.ndarray:
    if shapely.is_empty(obstacles.inner) or len(points) == 0:
        return np.zeros(len(points), dtype=bool)
    return np.asarray(shapely.contains_xy(obstacles.inner, points[:, 0], points[:, 1]))


def shortest_path(start: Point, end: Point, obstacles: Obstacles) -> list[Point] | None:
    """The shortest path itself (start, corners passed, end), or None when unreachable."""
    c = obstacles.corners
    nodes = np.vstack([np.asarray([start], dtype=np.float64), c, [end]])
    if _inside(nodes[[0, -1]], obstacles).any():
        return None
    vis = _visible(nodes, nodes, obstacles)
    d = np.hypot(nodes[:, None, 0] - nodes[None, :, 0], nodes[:, None, 1] - nodes[None, :, 1])
    n = len(nodes)
    dist = np.full(n, np.inf)
    prev = np.full(n, -1)
    dist[0] = 0.0
    heap = [(0.0, 0)]
    while heap:
        du, u = heapq.heappop(heap)
        if du > dist[u]:
            continue
        for v in np.flatnonzero(vis[u]):
            if v == u:
                continue
            nd = du + d[u, v]
            if nd < dist[v] - 1e-12:
                dist[v], prev[v] = nd, u
                heapq.heappush(heap, (float(nd), int(v)))
    if not math.isfinite(dist[-1]):
        return None
    path = [n - 1]
    while path[-1] != 0:
        path.append(int(prev[path[-1]]))
    return [(float(nodes[k, 0]), float(nodes[k, 1])) for k in reversed(path)]


def model_assignment(lengths: np.ndarray, allowance: float) -> list[int] | None:
    """Which new place each model takes (index per model) so that none travels more than
    `allowance`, or None when no such assignment exists. Among the possible ones the longest
    single path is made as short as possible (bottleneck assignment: matchings tried over
    the sorted distinct lengths)."""
    n, m = lengths.shape
    if n != m:
        raise ValueError(f"{n} models for {m} places")
    if n == 0:
        return []
    limits = np.unique(lengths[lengths <= allowance + EPSILON_IN])
    lo, hi, best = 0, len(limits) - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        match = _perfect_matching(lengths <= limits[mid] + 1e-12)
        if match is not None:
            best, hi = match, mid - 1
        else:
            lo = mid + 1
    return best


def _perfect_matching(ok: np.ndarray) -> list[int] | None:
    """A perfect matching of rows to columns over the True cells (augmenting paths)."""
    n = ok.shape[0]
    owner = [-1] * n  # column -> row

    def augment(r: int, seen: list[bool]) -> bool:
        for col in np.flatnonzero(ok[r]):
            if seen[col]:
                continue
            seen[col] = True
            if owner[col] == -1 or augment(owner[col], seen):
                owner[col] = r
                return True
        return False

    for r in range(n):
        if not augment(r, [False] * n):
            return None
    out = [0] * n
    for col, r in enumerate(owner):
        out[r] = col
    return out
