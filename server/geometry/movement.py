"""Movement legality: straight moves, wheels, pivots, reforms, free placement, 40k model moves.

A move is legal when its swept area stays on the table, crosses no Impassable Terrain and no
other unit, and its end position is more than UNIT_SPACING_IN from every other unit and from
Impassable Terrain, except units it is charging (T9A/WFB Unit Spacing, FACTS.md). An illegal
move names the rule that failed (`Rule`) and the obstacle's id. Every move returns its swept
polygon and the distance it used.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict, Unpack

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .constants import CONTACT_TOLERANCE_IN, ENGAGEMENT_RANGE_IN, EPSILON_IN, UNIT_SPACING_IN
from .footprint import (
    Footprint,
    coherency,
    convex_hull_of,
    footprint,
    model_polygons,
    models_footprint,
    overlapping_models,
    placement_for_centre,
)
from .formation import ModelPlacement, RankedFormation
from .frame import Placement, Point, rotate_points
from .geojson import to_geojson
from .kinds import Height, Rule
from .table import Table

ARC_STEP_DEG = 3.0
"""Angular step of the arcs drawn in wheel sweeps."""

PIVOT_STEP_DEG = 10.0
"""Angular step between the copies whose hulls make a pivot's sweep."""


@dataclass(frozen=True, eq=False)
class MoveResult:
    """The verdict on a move: legal or the rule that failed and the obstacle, the area swept,
    the distance used (inches), and where the unit ends."""

    legal: bool
    rule: Rule | None
    obstacle: str | None
    swept: BaseGeometry
    distance: float
    footprint: Footprint
    placement: Placement | None = None
    model_distances: tuple[float, ...] = ()
    incoherent: tuple[int, ...] = ()
    models: tuple[ModelPlacement, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly summary for the client (swept area as GeoJSON)."""
        out: dict[str, Any] = {
            "legal": self.legal,
            "rule": None if self.rule is None else str(self.rule),
            "obstacle": self.obstacle,
            "distance": self.distance,
            "swept": to_geojson(self.swept),
        }
        if self.placement is not None:
            out["placement"] = self.placement.to_dict()
        if self.model_distances:
            out["model_distances"] = list(self.model_distances)
        if self.incoherent:
            out["incoherent"] = list(self.incoherent)
        return out


def _nearest(table: Table, origin: BaseGeometry, hits: Any) -> str:
    """Id of the hit obstacle nearest to `origin` (the first one the move runs into)."""
    idx = table.index
    if len(hits) == 1:
        return idx.ids[int(hits[0])]
    d = shapely.distance(origin, idx.geoms[hits])
    return idx.ids[int(hits[int(np.argmin(d))])]


def check_area(
    table: Table,
    unit_id: str | None,
    end: BaseGeometry,
    swept: BaseGeometry,
    *,
    origin: BaseGeometry | None = None,
    ignore: Collection[str] = (),
    charging: Collection[str] = (),
    spacing: float = UNIT_SPACING_IN,
    terrain_spacing: bool = True,
) -> tuple[Rule | None, str | None]:
    """Check a swept area and its end boundary against the table; (None, None) when legal.

    In order: Battlefield Edge (swept area off the table), Impassable Terrain (swept area
    crosses it), Moving Through Units (swept area crosses a unit not being charged), Unit
    Spacing (end within `spacing` of a unit not being charged, or of Impassable Terrain), Unit
    Overlap (end overlaps a unit being charged instead of touching it). With
    `terrain_spacing` False, Impassable Terrain only has to be avoided, not kept clear of.
    """
    if not table.battlefield.contains_bounds(shapely.bounds(swept)):
        return Rule.BATTLEFIELD_EDGE, None
    idx = table.index
    cand = idx.query(swept, "dwithin", spacing)
    if len(cand) == 0:
        return None, None
    skip = [idx.position[i] for i in ignore if i in idx.position]
    if unit_id is not None and unit_id in idx.position:
        skip.append(idx.position[unit_id])
    if skip:
        cand = cand[idx.keep_mask(skip)[cand]]
    if len(cand) == 0:
        return None, None
    origin = end if origin is None else origin
    is_unit = idx.is_unit[cand]
    if charging:
        targets_at = [idx.position[i] for i in charging if i in idx.position]
        charged = ~idx.keep_mask(targets_at)[cand]
    else:
        charged = np.zeros(len(cand), dtype=bool)
    imp = cand[idx.impassable[cand]]
    if len(imp):
        hits = imp[shapely.intersects(swept, idx.geoms[imp])]
        if len(hits):
            return Rule.IMPASSABLE_TERRAIN, _nearest(table, origin, hits)
    others = cand[is_unit & ~charged]
    if len(others):
        hits = others[shapely.intersects(swept, idx.geoms[others])]
        if len(hits):
            return Rule.MOVING_THROUGH_UNITS, _nearest(table, origin, hits)
    keep_clear = is_unit & ~charged
    if terrain_spacing:
        keep_clear |= idx.impassable[cand]
    spaced = cand[keep_clear]
    if len(spaced):
        hits = spaced[shapely.dwithin(end, idx.geoms[spaced], spacing)]
        if len(hits):
            return Rule.UNIT_SPACING, _nearest(table, end, hits)
    targets = cand[charged]
    if len(targets):
        inter = shapely.area(shapely.intersection(end, idx.geoms[targets]))
        hits = targets[inter > CONTACT_TOLERANCE_IN**2]
        if len(hits):
            return Rule.UNIT_OVERLAP, _nearest(table, end, hits)
    return None, None


class Judging(TypedDict, total=False):
    """How a ranked move is judged, as keywords of every move function: units its models may
    pass through (`ignore`), units it is charging (it may end touching them: `charging`), and
    the most it may travel (`max_distance`, inches; None: no limit)."""

    ignore: Collection[str]
    charging: Collection[str]
    max_distance: float | None


def _judged(
    table: Table,
    unit_id: str,
    start: Footprint,
    end: Footprint,
    swept: BaseGeometry,
    dist: float,
    judging: Judging,
) -> MoveResult:
    """The verdict on a ranked move from `start` to `end` over `swept`, `dist` inches long:
    Move Distance first, then `check_area`."""
    max_distance = judging.get("max_distance")
    if max_distance is not None and dist > max_distance + EPSILON_IN:
        rule: Rule | None = Rule.MOVE_DISTANCE
        obstacle: str | None = None
    else:
        rule, obstacle = check_area(
            table,
            unit_id,
            end.boundary,
            swept,
            origin=start.boundary,
            ignore=judging.get("ignore", ()),
            charging=judging.get("charging", ()),
        )
    return MoveResult(rule is None, rule, obstacle, swept, dist, end, end.placement)


def _start(table: Table, unit_id: str, start: Footprint | None) -> Footprint:
    fp = table.units[unit_id] if start is None else start
    if fp.placement is None or fp.formation is None:
        raise ValueError(f"unit {unit_id!r} is not a ranked formation; use move_models")
    return fp


def sweep_straight(start: Footprint, end: Footprint) -> BaseGeometry:
    """Area swept by a unit sliding in a straight line: the convex hull of both positions
    (exact for rectangles, slightly generous for an incomplete last rank)."""
    pts = np.vstack([start.hull_points, end.hull_points])
    return convex_hull_of(pts)


def move_straight(
    table: Table,
    unit_id: str,
    forward: float,
    sideways: float = 0.0,
    *,
    start: Footprint | None = None,
    **judging: Unpack[Judging],
) -> MoveResult:
    """Move a unit forward (negative: backward) and sideways (positive: to its right) in its own
    frame without turning. The distance used is the length of the move."""
    fp = _start(table, unit_id, start)
    assert fp.placement is not None and fp.formation is not None
    end = footprint(fp.formation, fp.placement.moved(forward, sideways))
    dist = math.hypot(forward, sideways)
    return _judged(table, unit_id, fp, end, sweep_straight(fp, end), dist, judging)

def _arc(pivot: Point, radius: float, a0: float, sweep: float) -> np.ndarray:
    steps = max(1, math.ceil(abs(sweep) / math.radians(ARC_STEP_DEG)))
    a = a0 + np.linspace(0.0, sweep, steps + 1)
    return np.column_stack([pivot[0] + radius * np.cos(a), pivot[1] + radius * np.sin(a)])


def wheel_placement(start: Footprint, degrees: float) -> tuple[Placement, Point]:
    """Placement after wheeling `degrees` (positive: counter-clockwise, i.e. to the left, about
    the front-left corner; negative: to the right about the front-right corner) and the pivot."""
    assert start.placement is not None and start.corners is not None
    pivot = start.corners.front_left if degrees > 0 else start.corners.front_right
    fc = rotate_points(np.array([start.placement.point], dtype=np.float64), pivot, degrees)[0]
    return Placement(float(fc[0]), float(fc[1]), start.placement.facing + degrees), pivot


def sweep_wheel(start: Footprint, end: Footprint, degrees: float, pivot: Point) -> BaseGeometry:
    """Area swept by a wheel of the unit's rectangle about its inner front corner.

    Built directly: the start's trailing flank and rear edge, the arc of the far rear corner,
    then the end's outer flank and front edge back to the pivot (exact for turns up to 180
    degrees; larger turns take the union of start, end and the far corner's sector).
    """
    assert start.corners is not None and end.corners is not None
    c0, c1 = start.corners, end.corners
    if degrees > 0:
        near, far, lead = c0.rear_left, c0.rear_right, c1.front_right
    else:
        near, far, lead = c0.rear_right, c0.rear_left, c1.front_left
    radius = math.hypot(far[0] - pivot[0], far[1] - pivot[1])
    a0 = math.atan2(far[1] - pivot[1], far[0] - pivot[0])
    arc = _arc(pivot, radius, a0, math.radians(degrees))
    if abs(degrees) <= 180.0:
        ring = np.vstack([[pivot, near], arc, [lead, pivot]])
        poly = shapely.polygons(ring)
        if shapely.is_valid(poly):
            return poly
    sector = shapely.polygons(np.vstack([[pivot], arc, [pivot]]))
    return shapely.union_all([start.rectangle, end.rectangle, sector])


def wheel(
    table: Table,
    unit_id: str,
    degrees: float,
    *,
    start: Footprint | None = None,
    **judging: Unpack[Judging],
) -> MoveResult:
    """Wheel: turn about the inner front corner (the front-left corner for a wheel to the left,
    positive degrees). The distance used is the outer front corner's arc: width x angle (rad).

    The swept area is both positions plus the sector swept by the far rear corner, which is
    the exact sweep of the unit's rectangle about its corner.
    """
    fp = _start(table, unit_id, start)
    assert fp.formation is not None and fp.corners is not None
    placement, pivot = wheel_placement(fp, degrees)
    end = footprint(fp.formation, placement)
    swept = sweep_wheel(fp, end, degrees, pivot)
    return _judged(table, unit_id, fp, end, swept, fp.width * abs(math.radians(degrees)), judging)

def pivot(
    table: Table,
    unit_id: str,
    degrees: float,
    *,
    start: Footprint | None = None,
    **judging: Unpack[Judging],
) -> MoveResult:
    """Pivot about the centre of the unit's rectangle by `degrees` (counter-clockwise positive).
    The distance used is the arc travelled by the corners."""
    fp = _start(table, unit_id, start)
    assert fp.formation is not None and fp.placement is not None
    centre = fp.centre
    placement = placement_for_centre(fp.formation, centre, fp.placement.facing + degrees)
    end = footprint(fp.formation, placement)
    steps = max(1, math.ceil(abs(degrees) / PIVOT_STEP_DEG))
    pts = fp.hull_points
    copies = [rotate_points(pts, centre, degrees * k / steps) for k in range(steps + 1)]
    hulls = [convex_hull_of(np.vstack([copies[k], copies[k + 1]])) for k in range(steps)]
    swept = hulls[0] if steps == 1 else shapely.union_all(hulls)
    radius = math.hypot(fp.width / 2.0, fp.depth / 2.0)
    return _judged(table, unit_id, fp, end, swept, radius * abs(math.radians(degrees)), judging)

def reform(
    table: Table,
    unit_id: str,
    files: int,
    facing: float,
    *,
    start: Footprint | None = None,
    **judging: Unpack[Judging],
) -> MoveResult:
    """Reform: the unit keeps its centre and takes `files` files and a new facing.

    Models are matched by their positional index (rank by rank, left to right) and the
    distance used is the farthest any model moves. The area checked is both positions.
    """
    fp = _start(table, unit_id, start)
    assert fp.formation is not None
    formation: RankedFormation = fp.formation.with_files(files)
    end = footprint(formation, placement_for_centre(formation, fp.centre, facing))
    a, b = fp.model_centres, end.model_centres
    n = min(len(a), len(b))
    dist = float(np.max(np.hypot(*(a[:n] - b[:n]).T))) if n else 0.0
    swept = shapely.union_all([fp.boundary, end.boundary])
    return _judged(table, unit_id, fp, end, swept, dist, judging)

def place(
    table: Table,
    unit_id: str,
    fp: Footprint,
    *,
    ignore: Collection[str] = (),
    charging: Collection[str] = (),
) -> MoveResult:
    """Free placement (deployment, arrival): only the end position is checked."""
    rule, obstacle = check_area(
        table, unit_id, fp.boundary, fp.boundary, ignore=ignore, charging=charging
    )
    return MoveResult(rule is None, rule, obstacle, fp.boundary, 0.0, fp, fp.placement)


def move_models(
    table: Table,
    unit_id: str,
    start: Sequence[ModelPlacement],
    end: Sequence[ModelPlacement],
    *,
    ignore: Collection[str] = (),
    charging: Collection[str] = (),
    max_distance: float | None = None,
    engagement_range: float = ENGAGEMENT_RANGE_IN,
) -> MoveResult:
    """Move individually placed models (40k), each in a straight line from `start[i]` to
    `end[i]`. Friendly units the models may pass go in `ignore`.

    Checked in order: Move Distance (any model farther than `max_distance`), Battlefield Edge,
    Impassable Terrain, Moving Through Units, Engagement Range (ends within
    `engagement_range` of a unit not being charged), Unit Overlap (overlaps a charged unit),
    Model Overlap (two of its own models overlap, or a model ends on a model of a unit in
    `ignore`: models may move through friendly models but never end on one), Unit Coherency
    (which models break it).
    """
    if len(start) != len(end) or not end:
        raise ValueError("start and end must list the same, non-zero number of models")
    s = np.array([[m.x, m.y] for m in start], dtype=np.float64)
    e = np.array([[m.x, m.y] for m in end], dtype=np.float64)
    dists = tuple(float(x) for x in np.hypot(*(e - s).T))
    start_polys = model_polygons(list(start))
    height = table.units[unit_id].height if unit_id in table.units else Height.STANDARD
    end_fp = models_footprint(list(end), height)
    end_polys = end_fp.model_polygons
    hull_in = [
        np.vstack([shapely.get_coordinates(a), shapely.get_coordinates(b)])
        for a, b in zip(start_polys, end_polys, strict=True)
    ]
    hulls = shapely.convex_hull(shapely.multipoints(hull_in))
    swept = shapely.union_all(hulls)
    incoherent = coherency(list(end))

    def result(rule: Rule | None, obstacle: str | None = None) -> MoveResult:
        return MoveResult(
            rule is None,
            rule,
            obstacle,
            swept,
            max(dists),
            end_fp,
            None,
            dists,
            incoherent,
            tuple(end),
        )

    if max_distance is not None and max(dists) > max_distance + EPSILON_IN:
        return result(Rule.MOVE_DISTANCE)
    rule, obstacle = check_area(
        table,
        unit_id,
        end_fp.boundary,
        swept,
        origin=shapely.multipolygons(start_polys),
        ignore=ignore,
        charging=charging,
        spacing=engagement_range,
        terrain_spacing=False,
    )
    if rule is Rule.UNIT_SPACING:
        rule = Rule.ENGAGEMENT_RANGE
    if rule is not None:
        return result(rule, obstacle)
    if overlapping_models(end_fp):
        return result(Rule.MODEL_OVERLAP)
    passed = [i for i in ignore if i in table.units and i != unit_id]
    if passed:
        shared = shapely.area(shapely.intersection(
            end_fp.boundary, [table.units[i].boundary for i in passed]
        ))
        for friend, area in zip(passed, shared, strict=True):
            if area > CONTACT_TOLERANCE_IN**2:
                return result(Rule.MODEL_OVERLAP, friend)
    if incoherent:
        return result(Rule.UNIT_COHERENCY)
    return result(None)
