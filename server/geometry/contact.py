"""Base contact within reach: where one model, moving in a straight line like every model move
of `movement.move_models`, could legally end touching another model (40k Charge move, 10th
edition core rules: "each model that can must end its Charge move in base-to-base contact with
an enemy model in one of the target units").

The places where two convex bases touch are the boundary of their Minkowski sum: the convex
hull of every vertex of the one minus every vertex of the other (exact for the polygons the
geometry core draws bases with). The ring is grown by CONTACT_GAP_IN, so a place on it touches
within the contact tolerance and never overlaps. Places are tried along each ring every
SAMPLE_STEP_IN, plus the one nearest the model's start; a place counts when the model reaches
it within its allowance and the move there is legal by `move_models` (table edge, Impassable
Terrain, other units, Engagement Range of units not charged), its swept base crosses none of
the models to touch, its end base overlaps none of `blockers` (its own unit's other models,
friendly models) and the unit stays in coherency with the others where they are.

A narrow gap between the samples can be missed, and only the MOVE_CHECKS nearest places that
pass the cheap tests (reach, overlap, coherency) are judged by `move_models`: then the model is
not required to reach it (the judgement errs towards the player, never refusing a move that
has no legal alternative).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .bases import base_outline
from .constants import CONTACT_TOLERANCE_IN, ENGAGEMENT_RANGE_IN, EPSILON_IN
from .footprint import coherency, model_polygons
from .formation import ModelPlacement
from .frame import Placement
from .movement import move_models
from .table import Table

CONTACT_GAP_IN = CONTACT_TOLERANCE_IN / 4.0
"""How far outside exact touching the tried places stand: within the contact tolerance
(0.01 in), clear of any overlap."""

SAMPLE_STEP_IN = 0.1
"""Spacing of the places tried along each contact ring, inches."""

MOVE_CHECKS = 64
"""At most this many places (the nearest that pass the cheap tests) are judged by
`move_models`, which bounds the time a model left short costs."""


def _outline(model: ModelPlacement) -> np.ndarray:
    ring = base_outline(model.base)[:-1]
    if model.facing % 360.0 != 0.0:
        ring = Placement(0.0, 0.0, model.facing).to_world(ring)
    return np.asarray(ring, dtype=np.float64)


def contact_ring(model: ModelPlacement, other: BaseGeometry) -> BaseGeometry:
    """The ring of centre positions at which `model`'s base (its facing kept) touches the
    convex polygon `other` (grown by CONTACT_GAP_IN)."""
    mine = _outline(model)
    theirs = np.asarray(shapely.get_coordinates(shapely.get_exterior_ring(other)))[:-1]
    sums = (theirs[:, None, :] - mine[None, :, :]).reshape(-1, 2)
    hull = shapely.convex_hull(shapely.multipoints(sums))
    return shapely.get_exterior_ring(shapely.buffer(hull, CONTACT_GAP_IN, join_style="mitre"))


def _places(model: ModelPlacement, start: ModelPlacement, other: BaseGeometry,
            reach: float) -> np.ndarray:
    ring = contact_ring(model, other)
    length = float(shapely.length(ring))
    at = np.arange(0.0, length, SAMPLE_STEP_IN)
    nearest = float(shapely.line_locate_point(ring, shapely.Point(start.x, start.y)))
    pts = shapely.get_coordinates(shapely.line_interpolate_point(ring, np.append(nearest, at)))
    far = np.hypot(pts[:, 0] - start.x, pts[:, 1] - start.y)
    keep = far <= reach + EPSILON_IN / 2.0
    return np.asarray(pts[keep])


def reach_contact(
    table: Table,
    unit_id: str,
    models: Sequence[ModelPlacement],
    index: int,
    start: ModelPlacement,
    contacts: Sequence[BaseGeometry],
    *,
    max_distance: float,
    ignore: Collection[str] = (),
    charging: Collection[str] = (),
    blockers: Sequence[BaseGeometry] = (),
    engagement_range: float = ENGAGEMENT_RANGE_IN,
) -> Iterator[tuple[ModelPlacement, int]]:
    """Legal end places of model `index` of `unit_id` (moving from `start`, at most
    `max_distance`) in base contact with one of `contacts`, the unit's other models where
    `models` puts them: (place, index of the contact touched), the shortest move first."""
    here = models[index]
    moving = ModelPlacement(start.x, start.y, here.base, here.facing)
    start_poly = model_polygons([moving])[0]
    near = [k for k, c in enumerate(contacts)
            if shapely.distance(start_poly, c) <= max_distance + EPSILON_IN]
    if not near:
        return
    found = [(p, k) for k in near for p in _places(moving, moving, contacts[k], max_distance)]
    if not found:
        return
    pts = np.array([p for p, _ in found], dtype=np.float64)
    touched = np.array([k for _, k in found], dtype=np.int64)
    order = np.argsort(np.hypot(pts[:, 0] - start.x, pts[:, 1] - start.y), kind="stable")
    pts, touched = pts[order], touched[order]
    cands = [ModelPlacement(float(x), float(y), here.base, here.facing) for x, y in pts]
    polys = model_polygons(cands)
    others = [p for j, p in enumerate(model_polygons(list(models))) if j != index]
    solid = [*others, *blockers, *contacts]
    bad = np.zeros(len(cands), dtype=bool)
    if solid:
        tree = shapely.STRtree(np.asarray(solid, dtype=object))
        ci, si = tree.query(polys, predicate="intersects")
        if len(ci):
            area = shapely.area(shapely.intersection(polys[ci], tree.geometries[si]))
            bad[ci[area > CONTACT_TOLERANCE_IN**2]] = True
    touch_all = shapely.union_all(np.asarray(contacts, dtype=object))
    checks = 0
    for c, cand in enumerate(cands):
        if bad[c]:
            continue
        trial = [*models[:index], cand, *models[index + 1:]]
        if coherency(trial):
            continue
        checks += 1
        if checks > MOVE_CHECKS:
            return
        result = move_models(table, unit_id, [moving], [cand], ignore=ignore,
                             charging=charging, max_distance=max_distance,
                             engagement_range=engagement_range)
        if not result.legal:
            continue
        through = shapely.area(shapely.intersection(result.swept, touch_all))
        if through > CONTACT_TOLERANCE_IN**2:
            continue
        yield cand, int(touched[c])
