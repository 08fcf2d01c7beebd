"""WFB 8th Entombed Beneath the Sands (seed 002_20fe50c61f72ab35): the marker and the unit that
emerges at it, as pure geometry.

- `scatter_marker`: an arrow of the scatter die moves the marker the artillery die's inches in
  the arrow's direction (a direction in degrees, the table's facing convention: 0 = +y,
  counter-clockwise positive).
- `push_clear`: a marker under a friendly unit, Impassable Terrain or a building is put
  MARKER_CLEARANCE_IN (1 in) away from the closest edge of what it is under.
- `check_emergence` / `find_emergence`: the unit placed in a legal formation touching the
  marker (facing any way), or, when the marker is under an enemy, in base contact with that
  enemy in its front arc, front edge flush against the enemy's front (it counts as charging);
  or (Mishap 5-6) entering from a table edge: rear edge on that edge, facing into the table.
  Legal means wholly on the table, on no Impassable Terrain, overlapping nothing, and more
  than Unit Spacing (1 in) from every unit and Impassable Terrain but the enemy it contacts.

The marker is "a small marker (such as a coin)": here a disc MARKER_RADIUS_IN in radius around
the marker point, so a unit touches it when its Unit Boundary comes within that distance of
the point (docs/rules-decisions.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .arcs import arc_of_unit
from .constants import CONTACT_TOLERANCE_IN, EPSILON_IN, UNIT_SPACING_IN
from .footprint import Footprint, footprint
from .formation import RankedFormation, layout
from .frame import Placement, Point, facing_difference, forward_vector, normalize_facing
from .kinds import Arc
from .movement import place
from .table import Table

MARKER_RADIUS_IN = 0.5
"""The marker is a coin about 1 in across: touching it = Unit Boundary within 0.5 in."""

MARKER_CLEARANCE_IN = 1.0
"""Seed 002: not within 1 in of a deployed unit; moved 1 in away from the closest edge."""

SEARCH_STEP_IN = 0.5
"""Spacing of the points along a boundary or an edge that the placement search tries."""

SEARCH_FACING_STEP_DEG = 15.0
"""Facings the search tries around a marker: the requested one, then steps either way."""

ALIGN_TOLERANCE_DEG = 0.5
"""How far from exactly opposite (or straight in) a facing may be and still count as flush."""

EDGE_TOLERANCE_IN = 0.01
"""How far a rear edge may stand from the table edge and still touch it."""

MAX_PUSHES = 8
"""A marker pushed out of one obstacle into another is pushed again, at most this often."""

EDGES: dict[str, float] = {"south": 0.0, "east": 90.0, "north": 180.0, "west": 270.0}
"""Table edges and the facing looking straight into the table from each (y = 0 is south)."""


class EmergenceRule(StrEnum):
    """The rules an emergence can fail, beyond the movement ones (`Rule`)."""

    TOUCH_MARKER = "Entombed: the unit must touch the marker"
    FRONT_CONTACT = "Entombed: base contact with the enemy in its front arc, front to front"
    TABLE_EDGE = "Entombed Mishap: rear edge on the rolled table edge, facing into the table"
    MARKER_OFF_TABLE = "Entombed: the marker left the table"
    MARKER_STUCK = "Entombed: the marker could not be put clear"


def scatter_marker(point: Point, direction_deg: float, inches: float) -> Point:
    """The marker moved `inches` in the arrow's direction (facing convention)."""
    fx, fy = forward_vector(direction_deg)
    return (point[0] + fx * inches, point[1] + fy * inches)


def _outward(poly: shapely.Polygon, at: Point, inside: Point) -> tuple[float, float]:
    """Unit vector from `inside` through the boundary point `at`; when the two coincide (the
    marker on the edge), the normal of that edge pointing out of the polygon."""
    dx, dy = at[0] - inside[0], at[1] - inside[1]
    length = math.hypot(dx, dy)
    if length > 1e-9:
        return dx / length, dy / length
    ring = np.asarray(poly.exterior.coords, dtype=np.float64)
    seg = np.diff(ring, axis=0)
    p = np.asarray(at, dtype=np.float64)
    rel = p - ring[:-1]
    t = np.clip((rel * seg).sum(1) / np.maximum((seg * seg).sum(1), 1e-18), 0.0, 1.0)
    near = ring[:-1] + seg * t[:, None]
    k = int(np.argmin(np.hypot(*(near - p).T)))
    ex, ey = seg[k] / max(float(np.hypot(*seg[k])), 1e-18)
    for nx, ny in ((ey, -ex), (-ey, ex)):
        if not poly.covers(shapely.Point(p[0] + nx * 1e-6, p[1] + ny * 1e-6)):
            return nx, ny
    return ey, -ex


@dataclass(frozen=True)
class Pushed:
    """Where the marker ends after `push_clear`: the point, the obstacles it was moved off (in
    order) and whether it is still under one after MAX_PUSHES moves."""

    point: Point
    moved_off: tuple[str, ...]
    stuck: bool


def push_clear(
    point: Point,
    obstacles: Sequence[tuple[str, BaseGeometry]],
    clearance: float = MARKER_CLEARANCE_IN,
) -> Pushed:
    """Seed 002: "If the marker is under a friendly unit, impassable terrain or a building,
    place it 1" away from the closest edge of the unit/terrain."

    The marker under (inside or on the edge of) an obstacle moves to the closest point of that
    obstacle's edge and on, straight out, `clearance` inches beyond it. Landing under another
    obstacle, it is moved off that one the same way (at most MAX_PUSHES times)."""
    current = (float(point[0]), float(point[1]))
    moved: list[str] = []
    for _ in range(MAX_PUSHES + 1):
        under = [
            (oid, geom) for oid, geom in obstacles if geom.covers(shapely.Point(current))
        ]
        if not under:
            return Pushed(current, tuple(moved), False)
        if len(moved) == MAX_PUSHES:
            break
        oid, geom = under[0]
        polys = list(getattr(geom, "geoms", [geom]))
        poly = next(p for p in polys if p.covers(shapely.Point(current)))
        edge = poly.exterior
        at = edge.interpolate(edge.project(shapely.Point(current)))
        nx, ny = _outward(poly, (at.x, at.y), current)
        current = (at.x + nx * clearance, at.y + ny * clearance)
        moved.append(oid)
    return Pushed(current, tuple(moved), True)


# --- the emerging unit ----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class EmergenceCheck:
    """The verdict on an emergence: legal, or the rule that failed and the obstacle."""

    legal: bool
    rule: str | None
    obstacle: str | None
    footprint: Footprint

    def to_dict(self) -> dict[str, Any]:
        assert self.footprint.placement is not None
        return {
            "legal": self.legal,
            "rule": self.rule,
            "obstacle": self.obstacle,
            "placement": self.footprint.placement.to_dict(),
        }


def _edge_line(table: Table, edge: str) -> shapely.LineString:
    w, d = table.battlefield.width, table.battlefield.depth
    ends = {
        "south": ((0.0, 0.0), (w, 0.0)),
        "north": ((0.0, d), (w, d)),
        "west": ((0.0, 0.0), (0.0, d)),
        "east": ((w, 0.0), (w, d)),
    }[edge]
    return shapely.LineString(ends)


def check_emergence(
    table: Table,
    unit_id: str,
    formation: RankedFormation,
    placement: Placement,
    *,
    marker: Point | None = None,
    enemy: str | None = None,
    edge: str | None = None,
) -> EmergenceCheck:
    """Check the unit emerging at `placement`: touching `marker`; or, with `enemy`, in base
    contact with it in its front arc, front edges flush; or, with `edge`, entering from that
    table edge. Then the placement itself (`movement.place`, the enemy counting as charged)."""
    fp = footprint(formation, placement)

    def verdict(rule: str | None, obstacle: str | None = None) -> EmergenceCheck:
        return EmergenceCheck(rule is None, rule, obstacle, fp)

    if enemy is not None:
        target = table.units[enemy]
        assert target.placement is not None
        opposite = normalize_facing(target.placement.facing + 180.0)
        if (
            facing_difference(placement.facing, opposite) > ALIGN_TOLERANCE_DEG
            or shapely.distance(fp.boundary, target.boundary) > CONTACT_TOLERANCE_IN
            or Arc.FRONT not in arc_of_unit(target, fp)
            or shapely.distance(shapely.Point(placement.point), target.boundary)
            > CONTACT_TOLERANCE_IN
        ):
            return verdict(EmergenceRule.FRONT_CONTACT, enemy)
    elif edge is not None:
        line = _edge_line(table, edge)
        assert fp.corners is not None
        rear = (fp.corners.rear_left, fp.corners.rear_right)
        if facing_difference(placement.facing, EDGES[edge]) > ALIGN_TOLERANCE_DEG or any(
            line.distance(shapely.Point(p)) > EDGE_TOLERANCE_IN for p in rear
        ):
            return verdict(EmergenceRule.TABLE_EDGE)
    elif marker is not None:
        if shapely.distance(fp.boundary, shapely.Point(marker)) > MARKER_RADIUS_IN + EPSILON_IN:
            return verdict(EmergenceRule.TOUCH_MARKER)
    else:
        raise ValueError("an emergence is at a marker, onto an enemy or from a table edge")
    result = place(table, unit_id, fp, charging=[enemy] if enemy is not None else ())
    return verdict(None if result.rule is None else str(result.rule), result.obstacle)


def _facings(requested: float, step: float) -> list[float]:
    base = normalize_facing(requested)
    out = [base]
    for k in range(1, int(180.0 // step) + 1):
        out += [normalize_facing(base + k * step), normalize_facing(base - k * step)]
    return list(dict.fromkeys(round(f, 9) for f in out))


def _perimeter_points(outline: np.ndarray, step: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """Points along a closed outline (unit frame), `step` apart on each edge (ends included),
    with the outward normal of their edge (the outline runs clockwise: right side first)."""
    out: list[tuple[np.ndarray, np.ndarray]] = []
    poly = shapely.Polygon(outline)
    for a, b in zip(outline[:-1], outline[1:], strict=True):
        seg = b - a
        length = float(np.hypot(*seg))
        if length < 1e-12:
            continue
        t = seg / length
        normal = np.array([t[1], -t[0]])
        mid = (a + b) / 2
        if poly.covers(shapely.Point(*(mid + normal * 1e-6))):
            normal = -normal
        n = max(1, math.ceil(length / step))
        for i in range(n + 1):
            out.append((a + seg * (i / n), normal))
    return out


def emergence_candidates(
    formation: RankedFormation,
    marker: Point,
    requested: Placement | None = None,
    *,
    step: float = SEARCH_STEP_IN,
    facing_step: float = SEARCH_FACING_STEP_DEG,
) -> list[Placement]:
    """Placements touching the marker: for each facing (the requested first, then
    `facing_step` either way), the marker half a radius outside each of the points `step`
    apart along the Unit Boundary; nearest to `requested` first (front-centre distance plus
    1 in per 20 degrees of turn)."""
    lay = layout(formation)
    outline = np.asarray(lay.outline, dtype=np.float64)
    anchors = _perimeter_points(outline, step)
    base_facing = 0.0 if requested is None else requested.facing
    want = marker if requested is None else requested.point
    found: list[tuple[float, int, Placement]] = []
    for f in _facings(base_facing, facing_step):
        turn = facing_difference(f, base_facing) * 0.05
        for a, n in anchors:
            local = a + n * (MARKER_RADIUS_IN / 2)
            origin = Placement(0.0, 0.0, f).to_world(local[None, :])[0]
            pl = Placement(marker[0] - origin[0], marker[1] - origin[1], f)
            cost = math.hypot(pl.x - want[0], pl.y - want[1]) + turn
            found.append((cost, len(found), pl))
    found.sort(key=lambda c: (c[0], c[1]))
    return [p for _, _, p in found]


def contact_candidates(
    table: Table, formation: RankedFormation, enemy: str, requested: Placement | None = None,
    *, step: float = SEARCH_STEP_IN,
) -> list[Placement]:
    """Placements in base contact with the enemy's front, front edges flush (facing opposite),
    the front centres `step` apart along the enemy's front edge line wherever the fronts
    overlap; nearest to `requested` (or centred) first."""
    target = table.units[enemy]
    assert target.placement is not None and target.corners is not None
    width = layout(formation).width
    facing = normalize_facing(target.placement.facing + 180.0)
    fl, fr = target.corners.front_left, target.corners.front_right
    centre = target.placement.point
    ux, uy = (fr[0] - fl[0]) / target.width, (fr[1] - fl[1]) / target.width
    reach = target.width / 2 + width / 2 - 0.05
    n = max(1, math.floor(reach / step))
    offsets = [0.0] + [s * k * step for k in range(1, n + 1) for s in (1, -1)]
    out = [Placement(centre[0] + ux * o, centre[1] + uy * o, facing) for o in offsets]
    if requested is not None:
        out.sort(key=lambda p: math.hypot(p.x - requested.x, p.y - requested.y))
    return out


def edge_candidates(
    table: Table, formation: RankedFormation, edge: str, near: Point | None = None,
    *, step: float = SEARCH_STEP_IN,
) -> list[Placement]:
    """Placements with the rear edge on the table `edge`, facing straight in, `step` apart
    along it; nearest to `near` (or the edge's middle) first."""
    lay = layout(formation)
    line = _edge_line(table, edge)
    facing = EDGES[edge]
    fx, fy = forward_vector(facing)
    half = lay.width / 2
    length = line.length
    if length < 2 * half:
        return []
    start = length / 2 if near is None else line.project(shapely.Point(near))
    start = min(max(start, half), length - half)
    n = math.ceil(length / step)
    along = [start] + [start + s * k * step for k in range(1, n + 1) for s in (1, -1)]
    out = []
    for a in along:
        if half - EPSILON_IN <= a <= length - half + EPSILON_IN:
            at = line.interpolate(a)
            out.append(Placement(at.x + fx * lay.depth, at.y + fy * lay.depth, facing))
    return out


def find_emergence(
    table: Table,
    unit_id: str,
    formation: RankedFormation,
    candidates: Iterable[Placement],
    *,
    marker: Point | None = None,
    enemy: str | None = None,
    edge: str | None = None,
) -> Placement | None:
    """The first legal placement of `candidates` (they come nearest first), or None: no model
    of the unit can be placed there, which is the Mishap of seed 002.

    The candidates first go through a vectorised rejection (`_clear`): a Unit Boundary off the
    table, or touching a region that lies wholly within Unit Spacing of an obstacle, cannot be
    legal; the survivors are checked exactly, in order."""
    for pl in _clear(table, unit_id, formation, list(candidates), enemy):
        verdict = check_emergence(
            table, unit_id, formation, pl, marker=marker, enemy=enemy, edge=edge
        )
        if verdict.legal:
            return pl
    return None


_SPACING_SHRINK_IN = 1e-6
"""The rejection region is the obstacles grown by a hair less than Unit Spacing (and with
inscribed round corners), so touching it always means being within Unit Spacing."""


def _clear(
    table: Table,
    unit_id: str,
    formation: RankedFormation,
    candidates: list[Placement],
    enemy: str | None,
) -> list[Placement]:
    """The candidates not certainly illegal (see `find_emergence`), in their order."""
    if not candidates:
        return []
    outline = np.asarray(layout(formation).outline, dtype=np.float64)
    t = np.radians(np.array([p.facing for p in candidates], dtype=np.float64))
    xs = np.array([p.x for p in candidates], dtype=np.float64)
    ys = np.array([p.y for p in candidates], dtype=np.float64)
    u, v = outline[None, :, 0], outline[None, :, 1]
    rx, ry, fx, fy = np.cos(t)[:, None], np.sin(t)[:, None], -np.sin(t)[:, None], np.cos(t)[:, None]
    coords = np.stack([xs[:, None] + u * rx + v * fx, ys[:, None] + u * ry + v * fy], axis=-1)
    bf = table.battlefield
    ok = (
        (coords[..., 0].min(axis=1) >= -EPSILON_IN)
        & (coords[..., 0].max(axis=1) <= bf.width + EPSILON_IN)
        & (coords[..., 1].min(axis=1) >= -EPSILON_IN)
        & (coords[..., 1].max(axis=1) <= bf.depth + EPSILON_IN)
    )
    idx = table.index
    keep = [
        i for i, oid in enumerate(idx.ids)
        if oid not in (unit_id, enemy) and (idx.is_unit[i] or idx.impassable[i])
    ]
    if keep and ok.any():
        region = shapely.union_all(
            shapely.buffer(idx.geoms[np.array(keep, dtype=np.intp)],
                           UNIT_SPACING_IN - _SPACING_SHRINK_IN, quad_segs=4)
        )
        shapely.prepare(region)
        at = np.flatnonzero(ok)
        ok[at] = ~shapely.intersects(shapely.polygons(coords[at]), region)
    return [p for p, good in zip(candidates, ok, strict=True) if good]
