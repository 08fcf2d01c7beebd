"""Charges: declared against an enemy in the front arc and line of sight (ranked systems) or
within 12 in (wh40k10); the server rolls the range; a successful charger ends in base contact.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

import shapely

from server import geometry as geo
from server.data import Datasheet
from server.dice import DiceStream
from server.geometry import movement
from server.geometry.arcs import arc_of_unit
from server.geometry.footprint import Footprint, footprint
from server.geometry.frame import Placement
from server.geometry.kinds import Arc
from server.geometry.los import line_of_sight
from server.geometry.measure import distance
from server.rules.battle import (
    require_phase,
)
from server.rules.core import (
    ILLEGAL_MOVE,
    ActionModel,
    Event,
    GameState,
    RuleError,
    register_action,
    register_folder,
)
from server.rules.systems import find_system
from server.rules.units import (
    MAX_40K_CHARGE_DECLARE_IN,
    _set,
    _unit,
    _with_unit,
    datasheet_of,
    is_ranked,
    phase_moves,
    table_of,
    unit_from_json,
)

# --- charges ------------------------------------------------------------------------------------


class DeclareCharge(ActionModel):
    type: Literal["declare_charge"]
    unit: str
    target: str


def charge_roll_expression(state: GameState, sheet: Datasheet) -> tuple[str, int]:
    """The dice of a charge and what is added to them: t9a 2D6 + Advance Rate (FACTS.md
    decision), whfb8 M + 2D6, 40k 2D6; Swiftstride (t9a) rolls Maximised (3D6, keep 2)."""
    swift = sheet.has_rule("Swiftstride")
    expression = "2D6 maximised x1" if swift and state.system != "wh40k10" else "2D6"
    bonus = 0
    if state.system == "t9a":
        bonus = sheet.profile.global_characteristics.advance_rate  # type: ignore[union-attr]
    elif state.system == "whfb8":
        m = sheet.profile.models[0].M  # type: ignore[union-attr]
        bonus = m if isinstance(m, int) else 0
    return expression, bonus


def contact_placement(charger: Footprint, target: Footprint) -> tuple[Placement, Arc]:
    """Where a ranked charger ends: its front edge flush against the facing of the target it
    charges (the arc it stands in), centred on the point of that facing nearest to it."""
    assert target.corners is not None and target.placement is not None
    arcs = arc_of_unit(target, charger)
    arc = (
        next(a for a in (Arc.FRONT, Arc.LEFT, Arc.RIGHT, Arc.REAR) if a in arcs)
        if arcs
        else Arc.FRONT
    )
    c = target.corners
    side = {
        Arc.FRONT: (c.front_left, c.front_right),
        Arc.REAR: (c.rear_right, c.rear_left),
        Arc.LEFT: (c.rear_left, c.front_left),
        Arc.RIGHT: (c.front_right, c.rear_right),
    }[arc]
    facing = {Arc.FRONT: 180.0, Arc.REAR: 0.0, Arc.LEFT: -90.0, Arc.RIGHT: 90.0}[arc]
    line = shapely.LineString(side)
    half = min(charger.width / 2.0, line.length / 2.0)
    along = line.project(shapely.Point(charger.front_centre))
    along = (
        min(max(along, half), line.length - half) if line.length >= 2 * half else line.length / 2.0
    )
    point = line.interpolate(along)
    return Placement(point.x, point.y, (target.placement.facing + facing) % 360.0), arc


@register_action("declare_charge", DeclareCharge)
def declare_charge(
    state: GameState, seat: int, action: DeclareCharge, dice: DiceStream
) -> list[Event]:
    """Declare a charge against an enemy in the charger's front arc and line of sight; the
    server rolls the charge range; on enough, the charger moves into base contact aligned to
    the target's facing, else the charge fails and the unit stays."""
    require_phase(state, seat, find_system(state.system).charge_phases, "charging")
    unit = _unit(state, action.unit, seat)
    target = _unit(state, action.target)
    if target.owner == seat:
        raise RuleError(ILLEGAL_MOVE, "a charge targets an enemy unit", rule="Charge")
    if unit.status != "on_table" or target.status != "on_table":
        raise RuleError(ILLEGAL_MOVE, "both units must be on the table", rule="Charge")
    if phase_moves(state).get(unit.id):
        raise RuleError(
            ILLEGAL_MOVE, f"{unit.name} has already moved or charged this phase", rule="Charge"
        )
    table = table_of(state)
    start, aim = table.units[unit.id], table.units[target.id]
    gap = distance(start, aim).distance
    sheet = datasheet_of(state, unit)
    if is_ranked(state.system):
        sight = line_of_sight(table, unit.id, target.id)
        if not sight.visible:
            raise RuleError(
                ILLEGAL_MOVE,
                f"{target.name} is not in {unit.name}'s front arc and line of sight",
                rule="Charge: Line of Sight",
                obstacle=(sight.blockers[0] if sight.blockers else None),
            )
    elif gap > MAX_40K_CHARGE_DECLARE_IN:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{target.name} is {gap:.1f} in away; charges are "
            f"declared within {MAX_40K_CHARGE_DECLARE_IN:g} in",
            rule="Charge",
        )
    expression, bonus = charge_roll_expression(state, sheet)
    roll = dice.roll(expression)
    reach = (roll.total or 0) + bonus
    payload: dict[str, Any] = {
        "unit": unit.id,
        "target": target.id,
        "distance": round(gap, 3),
        "roll": roll.to_payload(),
        "bonus": bonus,
        "range": reach,
        "rule": "Swiftstride" if "maximised" in expression else None,
    }
    if reach + 1e-9 < gap:
        return [
            Event(
                "charge_failed",
                {**payload, "reason": f"rolled {reach}, needed {gap:.1f}"},
                actor=seat,
            )
        ]
    if is_ranked(state.system):
        placement, arc = contact_placement(start, aim)
        end = footprint(start.formation, placement)  # type: ignore[arg-type]
        swept = movement.sweep_straight(start, end)
        rule, obstacle = movement.check_area(
            table, unit.id, end.boundary, swept, origin=start.boundary, charging=[target.id]
        )
        if rule is not None:
            return [
                Event(
                    "charge_failed",
                    {
                        **payload,
                        "reason": f"{rule}{f' ({obstacle} is in the way)' if obstacle else ''}",
                        "blocked_by": obstacle,
                    },
                    actor=seat,
                )
            ]
        moved = dataclasses.replace(
            unit,
            placement=(round(placement.x, 4), round(placement.y, 4), round(placement.facing, 4)),
        )
        payload["arc"] = str(arc)
        payload["swept"] = geo.to_geojson(swept)
    else:
        near = distance(start, aim)
        (ax, ay), (bx, by) = near.from_point, near.to_point
        length = math.hypot(bx - ax, by - ay) or 1.0
        shift = max(0.0, length - 0.01)
        dx, dy = (bx - ax) / length * shift, (by - ay) / length * shift
        moved = dataclasses.replace(
            unit, positions=tuple((round(x + dx, 4), round(y + dy, 4)) for x, y in unit.positions)
        )
    return [Event("charge_succeeded", {**payload, "unit_after": moved.to_json()}, actor=seat)]


@register_folder("charge_succeeded")
def _fold_charge_succeeded(state: GameState, event: Event) -> GameState:
    p = event.payload
    state = _with_unit(state, unit_from_json(p["unit_after"]))
    engaged = {**state.extra.get("engaged", {}), p["unit"]: p["target"]}
    return _set(
        state,
        engaged=engaged,
        phase_moves={**phase_moves(state), p["unit"]: {"charged": p["target"]}},
    )


@register_folder("charge_failed")
def _fold_charge_failed(state: GameState, event: Event) -> GameState:
    p = event.payload
    return _set(
        state, phase_moves={**phase_moves(state), p["unit"]: {"charged": None, "failed": True}}
    )
