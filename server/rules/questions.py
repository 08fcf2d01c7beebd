"""Asking without acting: previews, measurements and line of sight. Pure and non-committing.

Each answer comes from the same geometry judgement the actions use, so what a player is shown
while dragging is exactly what the server will decide on release.
"""

from __future__ import annotations

import math
from typing import Any

import shapely

from server import geometry as geo
from server.dice import DiceStream
from server.geometry.los import line_of_sight as geo_line_of_sight
from server.geometry.measure import distance, distance_to_point
from server.rules.core import (
    ACTIONS,
    BAD_REQUEST,
    NOT_FOUND,
    GameState,
    RuleError,
    decide,
    parse_action,
)
from server.rules.naming import display_name
from server.rules.systems import find_system, variant_of
from server.rules.units import check_in_reach, footprint_of, table_of, units_of


def preview(state: GameState, seat: int | None, action: Any, dice: DiceStream) -> dict[str, Any]:
    """Would `seat`'s action be legal now? `dice` must be a throwaway stream (never the game's),
    and no roll is reported, so a preview tells nothing about the dice to come: an action
    declared `rolls_distance` reports no distance, one declared not to `sweep` no swept region
    (`core.ActionSpec`). It is judged on what `seat` knows: another seat's secrets (whfb8
    Fanatics) cannot shape it."""
    state = variant_of(state.system).without_secrets(state, seat) if state.system else state
    try:
        events = decide(state, seat, action, dice)
    except RuleError as exc:
        if exc.code in (BAD_REQUEST, NOT_FOUND) and "rule" not in exc.details:
            raise
        return _explained(state, seat, action, {
            "legal": False,
            "code": exc.code,
            "message": exc.message,
            "rule": exc.details.get("rule"),
            "obstacle": exc.details.get("obstacle"),
            # What a person reads for the obstacle (the id above is for the table to mark it).
            "obstacle_name": (
                display_name(state, exc.details["obstacle"])
                if exc.details.get("obstacle") else None
            ),
            "distance": exc.details.get("distance"),
            "swept": exc.details.get("swept"),
        })
    first = next((e.payload for e in events if "swept" in e.payload or "distance" in e.payload),
                 {})
    spec = ACTIONS[action["type"]]  # decide has parsed it: a registered action
    swept = first.get("swept") if spec.sweeps else None
    mover = action.get("unit") if isinstance(action, dict) else None
    # What the legal move runs into, in words (whfb8: a released Fanatic and its 2D6 hits): the
    # player reads it on the ghost before confirming, as on the charge preview.
    hazards = (
        variant_of(state.system).move_hazards(state, mover, shapely.geometry.shape(swept))
        if swept and isinstance(mover, str) and mover in units_of(state) and state.system
        else []
    )
    return _explained(state, seat, action, {
        "legal": True,
        "rule": None,
        "obstacle": None,
        "obstacle_name": None,
        "distance": None if spec.rolls_distance else first.get("distance"),
        "swept": first.get("swept") if spec.sweeps else None,
        "used": first.get("used"),
        "allowance": first.get("allowance"),
        # Light Troops (t9a): a Reform whose centre moves further than Mobility counts as a March.
        "counts_as_march": bool(first.get("counts_as_march")),
        "hazards": hazards,
    })


def _explained(state: GameState, seat: int | None, action: Any,
               answer: dict[str, Any]) -> dict[str, Any]:
    """`answer` with what the action's `explain` adds (`core.ActionSpec`), under `explain`."""
    spec, parsed = parse_action(state, action)
    if spec.explain is not None:
        answer["explain"] = spec.explain(state, seat, parsed)
    return answer


def _number(value: Any) -> float:
    """A JSON number as a float (not a string, not a bool), else ValueError."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("not a number")
    return float(value)


def _point(state: GameState, ref: Any, field: str) -> tuple[float, float]:
    """A point {"x","y"} within this game's table plus the margin, or `bad_request`."""
    try:
        x, y = _number(ref["x"]), _number(ref["y"])
    except (KeyError, TypeError, ValueError, OverflowError):
        raise RuleError(
            BAD_REQUEST, f'{field}: a point is {{"x": number, "y": number}}', field=field
        ) from None
    check_in_reach(state, x, y, field)
    return x, y


def _thing(state: GameState, ref: Any, field: str = "point") -> tuple[Any, str]:
    """A unit's or token's outline, or a point, from an id or {"x","y"}."""
    if isinstance(ref, dict):
        return shapely.Point(*_point(state, ref, field)), "point"
    if isinstance(ref, str):
        unit = units_of(state).get(ref)
        if unit is not None:
            fp = footprint_of(state, unit)
            if fp is None:
                raise RuleError(NOT_FOUND, f"{unit.name} is not on the table", id=ref)
            return fp, "unit"
        token = state.tokens.get(ref)
        if token is not None:
            box = shapely.box(-token.width / 2, -token.depth / 2, token.width / 2,
                              token.depth / 2)
            box = shapely.affinity.rotate(box, token.facing, origin=(0, 0))
            return shapely.affinity.translate(box, token.x, token.y), "token"
        raise RuleError(NOT_FOUND, f"nothing called {ref!r} is on the table", id=ref)
    raise RuleError(BAD_REQUEST, "measure from/to a unit id, a token id or a point")


def measure(state: GameState, from_ref: Any, to_ref: Any) -> dict[str, Any]:
    """Closest-point distance between two things on the table (units by their boundaries)."""
    a, _ = _thing(state, from_ref, "from")
    b, kind_b = _thing(state, to_ref, "to")
    result = distance_to_point(a, (b.x, b.y)) if kind_b == "point" else distance(a, b)
    out = result.to_dict()
    out["distance"] = round(out["distance"], 4)
    return out


def line_of_sight(state: GameState, viewer: Any, target: Any) -> dict[str, Any]:
    """Can unit `viewer` see unit `target`: fraction seen, cover, blockers, sight lines."""
    table = table_of(state)
    for ref in (viewer, target):
        if not isinstance(ref, str):
            raise RuleError(BAD_REQUEST, "line of sight is between two unit ids")
        unit = units_of(state).get(ref)
        if unit is None:
            raise RuleError(NOT_FOUND, f"no unit {ref!r}", id=ref)
        if ref not in table.units:
            raise RuleError(NOT_FOUND, f"{unit.name} is not on the table", id=ref)
    result = geo_line_of_sight(table, viewer, target).to_dict()
    return result


def ambush_options(
    state: GameState, unit_id: Any, point: Any, placement: Any = None
) -> dict[str, Any]:
    """Ambush (t9a): the arrival zone around an edge point, the verdict on a requested
    placement, and the valid placement nearest to it (the client snaps to it), or none."""
    from server.geometry.frame import Placement

    system = find_system(state.system)
    if system.variant.edge_arrival_rule is None:
        raise RuleError(BAD_REQUEST, f"ambush arrival points are not a {system.name} rule")
    if not isinstance(unit_id, str) or unit_id not in units_of(state):
        raise RuleError(NOT_FOUND, f"no unit {unit_id!r}", id=unit_id)
    if not isinstance(point, dict):
        raise RuleError(BAD_REQUEST, 'point: a point is {"x": number, "y": number}', field="point")
    p = _point(state, point, "point")
    wanted = None
    if placement is not None:
        try:
            x, y = _point(state, placement, "placement")
            facing = _number(placement.get("facing", 0)) % 360.0
        except (TypeError, ValueError, AttributeError, OverflowError):
            raise RuleError(
                BAD_REQUEST,
                'a placement is {"x": number, "y": number, "facing": number}',
                field="placement",
            ) from None
        if not math.isfinite(facing):
            raise RuleError(BAD_REQUEST, "placement: facing must be a finite number",
                            field="placement.facing")
        wanted = Placement(x, y, facing)
    answer = system.variant.ambush_options(state, unit_id, p, wanted)
    if answer is None:
        raise RuleError(BAD_REQUEST, f"ambush arrival points are not a {system.name} rule")
    return answer


__all__ = ["ambush_options", "geo", "line_of_sight", "measure", "preview"]
