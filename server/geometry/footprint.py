"""Footprints: a unit's models, Unit Boundary, corners and centre on the table.

`footprint(formation, placement)` places a ranked or skirmish formation; `models_footprint`
turns individually placed (40k) models into a footprint. Footprints are immutable values; the
polygons inside them are shapely geometries, never changed after construction.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .bases import Base, RoundBase, base_outline
from .constants import COHERENCY_IN, COHERENCY_LARGE_UNIT, EPSILON_IN
from .formation import ModelPlacement, RankedFormation, layout
from .frame import FloatArray, Placement, Point, forward_vector, right_vector
from .kinds import Height


@dataclass(frozen=True)
class Corners:
    """The four corners of a unit's rectangle (front-left, front-right, rear-left, rear-right)."""

    front_left: Point
    front_right: Point
    rear_left: Point
    rear_right: Point

    def as_tuple(self) -> tuple[Point, Point, Point, Point]:
        return (self.front_left, self.front_right, self.rear_left, self.rear_right)

    def as_array(self) -> FloatArray:
        return np.array(self.as_tuple(), dtype=np.float64)


@dataclass(frozen=True)
class ModelFootprint:
    """One model of a footprint: its positional index, rank and file (0-based, left to right;
    None for individually placed models), character index or None, and its base polygon."""

    index: int
    rank: int | None
    file: int | None
    character: int | None
    polygon: shapely.Polygon

    @property
    def centre(self) -> Point:
        c = self.polygon.centroid
        return (c.x, c.y)


@dataclass(frozen=True, eq=False)
class Footprint:
    """Where a unit is: its models' bases, its Unit Boundary and its facings.

    For a ranked or skirmish unit `boundary` is one polygon covering the models and the gaps
    between them (seed 000 Skirmisher: gaps are part of the unit), `corners` are those of its
    rectangle and `placement` is the front-edge centre and facing. For individually placed
    models `boundary` is the union of their bases, `corners` and `placement` are None and the
    unit has a single 360 degree front arc.
    """

    boundary: shapely.Polygon | shapely.MultiPolygon
    model_ranks: tuple[int | None, ...]
    model_files: tuple[int | None, ...]
    model_characters: tuple[int | None, ...]
    centre: Point
    front_centre: Point
    height: Height = Height.STANDARD
    corners: Corners | None = None
    placement: Placement | None = None
    width: float = 0.0
    depth: float = 0.0
    skirmish: bool = False
    formation: RankedFormation | None = None
    given_polygons: Any = None
    """Base polygons of individually placed models (numpy object array); None when ranked."""

    @property
    def ranked(self) -> bool:
        """True for rank-and-flank (and skirmish) units, which have facings and four arcs."""
        return self.placement is not None

    @property
    def facing(self) -> float | None:
        return None if self.placement is None else self.placement.facing

    @cached_property
    def model_rings(self) -> FloatArray:
        """(n, 5, 2) closed rectangles of a ranked unit's bases (built on first use)."""
        if self.formation is None or self.placement is None:
            raise ValueError("individually placed models have polygons, not ranked rings")
        return self.placement.to_world(layout(self.formation).model_rings)

    @property
    def rank_widths(self) -> tuple[int, ...]:
        """Files filled in each rank of a ranked unit, front first (`Layout.rank_widths`); empty
        for individually placed models."""
        if self.formation is None:
            return ()
        return layout(self.formation).rank_widths

    @cached_property
    def model_polygons(self) -> Any:
        """Numpy object array of the models' base polygons (built on first use)."""
        if self.given_polygons is not None:
            return self.given_polygons
        return shapely.polygons(self.model_rings)

    @cached_property
    def model_centres(self) -> FloatArray:
        """(n, 2) centres of the models' bases."""
        if self.given_polygons is not None:
            cs = shapely.centroid(self.given_polygons)
            return np.asarray(shapely.get_coordinates(cs), dtype=np.float64)
        return np.asarray(self.model_rings[:, :-1, :].mean(axis=1), dtype=np.float64)

    @cached_property
    def models(self) -> tuple[ModelFootprint, ...]:
        return tuple(
            ModelFootprint(i, r, f, c, p)
            for i, (r, f, c, p) in enumerate(
                zip(
                    self.model_ranks,
                    self.model_files,
                    self.model_characters,
                    self.model_polygons,
                    strict=True,
                )
            )
        )

    @cached_property
    def rectangle(self) -> shapely.Polygon:
        """The unit's rectangle (corners in order), or the boundary's envelope without corners."""
        if self.corners is None:
            env = self.boundary.envelope
            assert isinstance(env, shapely.Polygon)
            return env
        fl, fr, rl, rr = self.corners.as_tuple()
        return shapely.Polygon([fl, fr, rr, rl])

    @cached_property
    def hull_points(self) -> FloatArray:
        """Vertices of the boundary (with repeats); enough for convex hulls of sweeps."""
        return np.asarray(shapely.get_coordinates(self.boundary), dtype=np.float64)

    def to_geojson(self, *, models: bool = True) -> dict[str, Any]:
        """A GeoJSON FeatureCollection: the Unit Boundary, then (optionally) each model.

        Built once per footprint (footprints are immutable and shared) and returned as the
        same object every time: read it, do not change it."""
        from .geojson import footprint_to_geojson

        key = "_geojson_models" if models else "_geojson_boundary"
        cached: dict[str, Any] | None = self.__dict__.get(key)
        if cached is None:
            cached = self.__dict__[key] = footprint_to_geojson(self, models=models)
        return cached


def footprint(formation: RankedFormation, placement: Placement) -> Footprint:
    """Place a ranked or skirmish formation with the centre of its front edge at `placement`."""
    lay = layout(formation)
    outline = placement.to_world(lay.outline)
    boundary = shapely.polygons(outline)
    rx, ry = right_vector(placement.facing)
    fx, fy = forward_vector(placement.facing)
    hw, d = lay.width / 2.0, lay.depth
    x, y = placement.x, placement.y
    corners = Corners(
        (x - hw * rx, y - hw * ry),
        (x + hw * rx, y + hw * ry),
        (x - hw * rx - d * fx, y - hw * ry - d * fy),
        (x + hw * rx - d * fx, y + hw * ry - d * fy),
    )
    return Footprint(
        boundary=boundary,
        model_ranks=lay.ranks,
        model_files=lay.files,
        model_characters=lay.characters,
        centre=(x - d / 2.0 * fx, y - d / 2.0 * fy),
        front_centre=(x, y),
        height=formation.height,
        corners=corners,
        placement=placement,
        width=lay.width,
        depth=lay.depth,
        skirmish=formation.is_skirmish,
        formation=formation,
    )


def placement_for_centre(formation: RankedFormation, centre: Point, facing: float) -> Placement:
    """The placement (front-edge centre) that puts the unit's rectangle centre at `centre`."""
    d = layout(formation).depth
    fx, fy = forward_vector(facing)
    return Placement(centre[0] + d / 2.0 * fx, centre[1] + d / 2.0 * fy, facing)


def model_polygons(models: tuple[ModelPlacement, ...] | list[ModelPlacement]) -> Any:
    """Base polygons of individually placed models (numpy object array)."""
    out = np.empty(len(models), dtype=object)
    by_base: dict[tuple[Base, float], list[int]] = {}
    for i, m in enumerate(models):
        by_base.setdefault((m.base, m.facing), []).append(i)
    for (base, facing), idx in by_base.items():
        ring = base_outline(base)
        centres = np.array([[models[i].x, models[i].y] for i in idx], dtype=np.float64)
        if facing % 360.0 != 0.0 and not isinstance(base, RoundBase):
            ring = Placement(0.0, 0.0, facing).to_world(ring)
        coords = ring[None, :, :] + centres[:, None, :]
        out[idx] = shapely.polygons(coords)
    return out


def models_footprint(
    models: tuple[ModelPlacement, ...] | list[ModelPlacement], height: Height = Height.STANDARD
) -> Footprint:
    """A footprint of individually placed models (40k). Measuring uses the bases themselves."""
    if not models:
        raise ValueError("a unit needs at least one model")
    polys = model_polygons(models)
    boundary = shapely.multipolygons(polys) if len(models) > 1 else polys[0]
    if len(models) > 1 and not boundary.is_valid:
        boundary = shapely.union_all(polys)
    centres = np.array([[m.x, m.y] for m in models], dtype=np.float64)
    c = (float(centres[:, 0].mean()), float(centres[:, 1].mean()))
    n = len(models)
    fp = Footprint(
        boundary=boundary,
        given_polygons=polys,
        model_ranks=(None,) * n,
        model_files=(None,) * n,
        model_characters=(None,) * n,
        centre=c,
        front_centre=c,
        height=height,
    )
    fp.__dict__["model_centres"] = centres  # seed the cached_property with the exact centres
    return fp


def model_gaps(models: tuple[ModelPlacement, ...] | list[ModelPlacement]) -> FloatArray:
    """(n, n) horizontal distances between the edges of the models' bases (diagonal: inf).

    Round bases are measured exactly from their centres and radii; other bases by polygons.
    """
    centres = np.array([[m.x, m.y] for m in models], dtype=np.float64)
    radii = np.array(
        [m.base.radius if isinstance(m.base, RoundBase) else np.nan for m in models],
        dtype=np.float64,
    )
    diff = centres[:, None, :] - centres[None, :, :]
    gaps = np.hypot(diff[..., 0], diff[..., 1]) - radii[:, None] - radii[None, :]
    odd = np.isnan(gaps)
    if odd.any():
        polys = model_polygons(models)
        ii, jj = np.nonzero(odd)
        gaps[ii, jj] = shapely.distance(polys[ii], polys[jj])
    np.fill_diagonal(gaps, np.inf)
    return np.maximum(gaps, 0.0)


def coherency(
    models: tuple[ModelPlacement, ...] | list[ModelPlacement], within: float = COHERENCY_IN
) -> tuple[int, ...]:
    """40k Unit Coherency: indices of models that break it.

    Every model must be within 2 in horizontally of at least one other model of its unit, or of
    at least two others when the unit has 7 or more models. A single model is always coherent.
    """
    n = len(models)
    if n <= 1:
        return ()
    need = 2 if n >= COHERENCY_LARGE_UNIT else 1
    near = (model_gaps(models) <= within + EPSILON_IN).sum(axis=1)
    return tuple(int(i) for i in np.nonzero(near < need)[0])


def overlapping_models(footprint_: Footprint) -> tuple[tuple[int, int], ...]:
    """Pairs of models whose bases overlap (touching is not overlapping)."""
    polys = footprint_.model_polygons
    tree = shapely.STRtree(polys)
    pairs = tree.query(polys, predicate="intersects")
    out: list[tuple[int, int]] = []
    for i, j in pairs.T:
        if i < j:
            inter = shapely.intersection(polys[i], polys[j])
            if shapely.area(inter) > EPSILON_IN:
                out.append((int(i), int(j)))
    return tuple(out)


def convex_hull_of(points: FloatArray) -> Any:
    """Convex hull of points (k, 2), or one hull per row of (m, k, 2). Built through a line
    string (the same hull as through a multi-point, at a third of the cost)."""
    if points.shape[-2] < 2:
        return shapely.convex_hull(shapely.multipoints(points))
    return shapely.convex_hull(shapely.linestrings(points))


def as_geometry(x: Footprint | BaseGeometry) -> BaseGeometry:
    """The geometry to measure: a footprint's Unit Boundary, or the geometry itself."""
    return x.boundary if isinstance(x, Footprint) else x
