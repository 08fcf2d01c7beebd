"""The battlefield, its terrain and the units on it, with a spatial index for fast questions.

A `Table` is an immutable value. Its obstacle index (prepared geometries and an STRtree over
terrain and Unit Boundaries) is built on first use and kept for the table's lifetime; changing
the table (`with_unit`, `without_unit`, `with_terrain`) makes a new table, whose index is
built again only when it is asked for (like geopandas' lazily built `sindex`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt
import shapely

from .constants import EPSILON_IN
from .footprint import Footprint
from .frame import Point
from .kinds import Cover, Height, TerrainKind

_DEFAULT_COVER = {
    TerrainKind.IMPASSABLE: Cover.HARD,
    TerrainKind.BLOCKS_LOS: Cover.HARD,
    TerrainKind.COVER: Cover.SOFT,
    TerrainKind.DANGEROUS: Cover.NONE,
    TerrainKind.OPEN: Cover.NONE,
}


def ring_edges(
    geoms: Any,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.intp]]:
    """All ring edges (exteriors and holes, of every part of a multi-polygon) of an array of
    geometries: starts (n, 2), ends (n, 2), and the position of the geometry each belongs to
    (ascending)."""
    parts, part_of = shapely.get_parts(geoms, return_index=True)
    rings, ring_part = shapely.get_rings(parts, return_index=True)
    coords, ring_of = shapely.get_coordinates(rings, return_index=True)
    same = ring_of[1:] == ring_of[:-1]
    owner = part_of[ring_part[ring_of[:-1][same]]]
    return (
        np.asarray(coords[:-1][same], dtype=np.float64),
        np.asarray(coords[1:][same], dtype=np.float64),
        np.asarray(owner, dtype=np.intp),
    )


_REASON_AT = re.compile(r"^(?P<what>.*?)\s*\[(?P<x>\S+) (?P<y>\S+)\]$")


def outline_problem(points: Sequence[Point]) -> str | None:
    """Why `points` (a ring, in order, not closed) do not outline a terrain feature, or None.

    A terrain outline must be a simple polygon with an area: at least three distinct points,
    not all on one line, and edges that never cross or touch each other (a "bowtie" would be
    judged as some other shape than the one drawn). The reason comes from GEOS's validity
    check (`shapely.is_valid_reason`), with the place where the outline crosses itself.
    """
    distinct = {(float(x), float(y)) for x, y in points}
    if len(distinct) < 3:
        return f"it needs at least 3 distinct points (it has {len(distinct)})"
    if shapely.convex_hull(shapely.MultiPoint(list(distinct))).area <= EPSILON_IN:
        return "all its points lie on one line, so it has no area"
    polygon = shapely.Polygon(points)
    if polygon.is_valid:
        return None
    reason = shapely.is_valid_reason(polygon)
    match = _REASON_AT.match(reason)
    if match is None:
        return f"it is not a simple polygon ({reason})"
    at = f"({float(match['x']):g}, {float(match['y']):g})"
    if "Self-intersection" in match["what"]:
        return f"it crosses or touches itself at {at}; draw it without crossing edges"
    return f"it is not a simple polygon: {match['what'].lower()} at {at}"


@dataclass(frozen=True)
class Battlefield:
    """The table rectangle (0, 0)-(width, depth) in inches (T9A/WFB 72 x 48, 40k 60 x 44)."""

    width: float = 72.0
    depth: float = 48.0

    @cached_property
    def polygon(self) -> shapely.Polygon:
        return shapely.box(0.0, 0.0, self.width, self.depth)

    def contains_bounds(self, bounds: Sequence[float] | npt.NDArray[np.float64]) -> bool:
        """True when a geometry with these (minx, miny, maxx, maxy) lies wholly on the table."""
        minx, miny, maxx, maxy = (float(b) for b in bounds)
        return bool(
            minx >= -EPSILON_IN
            and miny >= -EPSILON_IN
            and maxx <= self.width + EPSILON_IN
            and maxy <= self.depth + EPSILON_IN
        )

    def contains_boxes(self, bounds: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
        """Vectorised `contains_bounds` over boxes (..., 4)."""
        return np.asarray(
            (bounds[..., 0] >= -EPSILON_IN)
            & (bounds[..., 1] >= -EPSILON_IN)
            & (bounds[..., 2] <= self.width + EPSILON_IN)
            & (bounds[..., 3] <= self.depth + EPSILON_IN)
        )

    def on_edge(self, point: Point, tolerance: float = 1e-6) -> bool:
        """True when the point lies on one of the four table edges."""
        x, y = point
        inside = -tolerance <= x <= self.width + tolerance and -tolerance <= y <= self.depth + (
            tolerance
        )
        near = (
            abs(x) <= tolerance
            or abs(y) <= tolerance
            or abs(x - self.width) <= tolerance
            or abs(y - self.depth) <= tolerance
        )
        return inside and near


@dataclass(frozen=True, eq=False)
class Terrain:
    """A terrain feature: id, outline (table points), kind, height class and the cover it gives.

    `cover` defaults by kind: impassable and line-of-sight blocking terrain give hard cover,
    cover terrain soft cover, dangerous and open terrain none.
    """

    id: str
    points: tuple[Point, ...]
    kind: TerrainKind = TerrainKind.OPEN
    height: Height = Height.INFINITE
    cover: Cover | None = None

    def __post_init__(self) -> None:
        if len(self.points) < 3:
            raise ValueError(f"terrain {self.id!r} needs at least 3 points")
        object.__setattr__(self, "points", tuple((float(x), float(y)) for x, y in self.points))
        object.__setattr__(self, "kind", TerrainKind(self.kind))
        object.__setattr__(self, "height", Height(self.height))
        if self.cover is None:
            object.__setattr__(self, "cover", _DEFAULT_COVER[self.kind])

    @cached_property
    def polygon(self) -> shapely.Polygon:
        """The outline as a polygon. Placing terrain refuses outlines with an `outline_problem`;
        a crossing outline stored before that check is judged as its repaired shape's hull."""
        poly = shapely.Polygon(self.points)
        if not poly.is_valid:
            fixed = shapely.make_valid(poly)
            hull = shapely.convex_hull(fixed) if not isinstance(fixed, shapely.Polygon) else fixed
            if not isinstance(hull, shapely.Polygon):
                raise ValueError(f"terrain {self.id!r}: {outline_problem(self.points)}")
            poly = hull
        shapely.prepare(poly)
        return poly

    @property
    def impassable(self) -> bool:
        return self.kind is TerrainKind.IMPASSABLE

    @property
    def blocks_sight(self) -> bool:
        """Terrain that can block line of sight (subject to heights)."""
        return self.kind in (TerrainKind.IMPASSABLE, TerrainKind.BLOCKS_LOS)

    @property
    def cover_level(self) -> Cover:
        return self.cover if self.cover is not None else Cover.NONE


@dataclass(frozen=True, eq=False)
class ObstacleIndex:
    """Everything on the table that a check may run into, in parallel arrays, with an STRtree.

    Entry i is terrain when `is_unit[i]` is False. Geometries are prepared.
    """

    ids: tuple[str, ...]
    geoms: Any  # numpy object array
    is_unit: npt.NDArray[np.bool_]
    impassable: npt.NDArray[np.bool_]
    blocks_sight: npt.NDArray[np.bool_]
    heights: npt.NDArray[np.int64]
    cover: npt.NDArray[np.int64]
    tree: shapely.STRtree
    position: Mapping[str, int]
    bounds: npt.NDArray[np.float64]
    """(n, 4) bounding boxes (minx, miny, maxx, maxy)."""
    edge_start: npt.NDArray[np.float64]
    edge_end: npt.NDArray[np.float64]
    edge_offsets: npt.NDArray[np.intp]
    """Ring edges of every entry: entry i owns edges edge_offsets[i]:edge_offsets[i + 1]."""
    edge_owner: npt.NDArray[np.intp]
    """The entry each edge belongs to (ascending)."""
    cover_level: npt.NDArray[np.int64]
    """Cover an entry gives a unit behind it: soft for units, the terrain's cover for terrain."""

    def keep_mask(self, drop: list[int]) -> npt.NDArray[np.bool_]:
        """Boolean mask over all entries, False at the positions in `drop`."""
        mask = np.ones(len(self.ids), dtype=bool)
        if drop:
            mask[drop] = False
        return mask

    def edges_of(
        self, entries: npt.NDArray[np.intp]
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.intp]]:
        """Edges (starts, ends) of the given entries (ascending, distinct) and, per edge, the
        position of its entry in `entries` (ascending)."""
        position = np.full(len(self.ids), -1, dtype=np.intp)
        position[entries] = np.arange(len(entries))
        col = position[self.edge_owner]
        sel = np.flatnonzero(col >= 0)
        return self.edge_start[sel], self.edge_end[sel], col[sel]

    def query(self, geom: Any, predicate: str | None = None, distance: float | None = None) -> Any:
        """Indices of entries whose geometry satisfies `predicate` against `geom`."""
        if predicate == "dwithin":
            return self.tree.query(geom, predicate="dwithin", distance=distance)
        return self.tree.query(geom, predicate=predicate)


@dataclass(frozen=True, eq=False)
class Table:
    """The battlefield with its terrain features and the units on it (id -> footprint)."""

    battlefield: Battlefield = field(default_factory=Battlefield)
    terrain: tuple[Terrain, ...] = ()
    units: Mapping[str, Footprint] = field(default_factory=dict)
    # Answers kept with this (immutable) table, one dict per question, keyed by the asker's
    # name (line of sight between two of its units, `los.line_of_sight`; 40k distances):
    # never part of the table's value.
    memo: dict[str, dict[Any, Any]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "terrain", tuple(self.terrain))
        object.__setattr__(self, "units", dict(self.units))
        ids = [t.id for t in self.terrain]
        if len(set(ids)) != len(ids) or set(ids) & set(self.units):
            raise ValueError("terrain and unit ids must be distinct")

    def with_unit(self, unit_id: str, fp: Footprint) -> Table:
        """A new table with `unit_id` placed (or moved) to `fp`."""
        units = dict(self.units)
        units[unit_id] = fp
        return Table(self.battlefield, self.terrain, units)

    def without_unit(self, unit_id: str) -> Table:
        units = dict(self.units)
        units.pop(unit_id, None)
        return Table(self.battlefield, self.terrain, units)

    def with_terrain(self, terrain: Iterable[Terrain]) -> Table:
        return Table(self.battlefield, tuple(terrain), self.units)

    def terrain_by_id(self, terrain_id: str) -> Terrain:
        for t in self.terrain:
            if t.id == terrain_id:
                return t
        raise KeyError(terrain_id)

    @cached_property
    def index(self) -> ObstacleIndex:
        """The obstacle index, built on first use."""
        ids: list[str] = []
        geoms: list[Any] = []
        is_unit: list[bool] = []
        impassable: list[bool] = []
        blocks: list[bool] = []
        heights: list[int] = []
        cover: list[int] = []
        for t in self.terrain:
            ids.append(t.id)
            geoms.append(t.polygon)
            is_unit.append(False)
            impassable.append(t.impassable)
            blocks.append(t.blocks_sight)
            heights.append(int(t.height))
            cover.append(int(t.cover_level))
        for uid, fp in self.units.items():
            ids.append(uid)
            geoms.append(fp.boundary)
            is_unit.append(True)
            impassable.append(False)
            blocks.append(True)
            heights.append(int(fp.height))
            cover.append(int(Cover.SOFT))
        arr = np.empty(len(geoms), dtype=object)
        arr[:] = geoms
        shapely.prepare(arr)
        starts, ends, owner = ring_edges(arr)
        offsets = np.searchsorted(owner, np.arange(len(geoms) + 1)).astype(np.intp)
        return ObstacleIndex(
            ids=tuple(ids),
            geoms=arr,
            is_unit=np.array(is_unit, dtype=bool),
            impassable=np.array(impassable, dtype=bool),
            blocks_sight=np.array(blocks, dtype=bool),
            heights=np.array(heights, dtype=np.int64),
            cover=np.array(cover, dtype=np.int64),
            tree=shapely.STRtree(arr),
            position={k: i for i, k in enumerate(ids)},
            bounds=np.asarray(shapely.bounds(arr), dtype=np.float64).reshape(len(geoms), 4),
            edge_start=starts,
            edge_end=ends,
            edge_offsets=offsets,
            edge_owner=owner,
            cover_level=np.where(is_unit, int(Cover.SOFT), cover).astype(np.int64),
        )
