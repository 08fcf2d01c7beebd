"""Charges: declared against an enemy in the front arc and line of sight (ranked systems) or
within 12 in (wh40k10); the server rolls the range; a successful charger ends in base contact.

t9a and whfb8: a declared charge waits for the charged player's Charge Reaction (Hold, Flee!,
Stand and Shoot) before the range is rolled: `declare_charge` -> `charge_declared` (the state's
`pending_charge` names who must answer and the reactions allowed), then that player's
`charge_reaction` -> `charge_reaction`, a `unit_fled` if it fled (server/rules/flee.py), and
`charge_succeeded` / `charge_failed` (+ `fleeing_unit_caught` when a fleeing unit is reached).
Not automated: Stand and Shoot's shots (taken as Hold), redirecting a charge whose target fled,
the Failed Charge move.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
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
from server.geometry.measure import distance
from server.rules.core import (
    ACTIVE,
    BATTLE,
    ILLEGAL_MOVE,
    REACTING,
    ActionModel,
    Event,
    GameState,
    RuleError,
    When,
    fold_all,
    register_action,
    register_folder,
)
from server.rules.flee import (
    CHARGE_REACTION,
    FLEEING,
    flee_events,
    sheets_of,
)
from server.rules.naming import display_name, in_the_way
from server.rules.orders import judge, offer, refused, register_offer
from server.rules.resume import is_suspended, register_frame, suspend_with
from server.rules.systems import (
    CHARGE_PHASES,
    REACTION_NAMES,
    has_charge_reactions,
    variant_of,
)
from server.rules.units import (
    Unit,
    _set,
    _unit,
    _with_unit,
    is_ranked,
    phase_moves,
    require_in_sight,
    table_of,
    unit_from_json,
    units_of,
)

# --- charges ------------------------------------------------------------------------------------


class DeclareCharge(ActionModel):
    type: Literal["declare_charge"]
    unit: str
    target: str


def charge_roll_expression(state: GameState, sheets: Sequence[Datasheet]) -> tuple[str, int]:
    """The dice of a charge and what is added to them, as the system says (t9a 2D6 + Advance
    Rate, FACTS.md decision; whfb8 M + 2D6; 40k 2D6; a unit entirely with Swiftstride in t9a
    and whfb8 rolls Maximised, 3D6 keep 2). `sheets`: every model kind of the unit."""
    return variant_of(state.system).unit_charge_roll(sheets)


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


REACTIONS: tuple[str, ...] = tuple(REACTION_NAMES)
STAND_AND_SHOOT_NOTE = (
    "Stand and Shoot is not automated: the engine treats it as Hold; resolve the shots by hand"
)


def _shoots(sheet: Datasheet) -> bool:
    return bool(getattr(sheet.profile, "shooting", None))


def reaction_options(state: GameState, target: Unit) -> tuple[list[str], dict[str, dict[str, str]]]:
    """The Charge Reactions `target` may choose, and why each other one is refused.

    A fleeing unit must flee again; a unit engaged in combat can only Hold. Flee! is refused
    as the system says (`RankedRules.flee_refusal`: t9a Fearless, seed 000; whfb8 Undead,
    Unstable, Unbreakable, Immunity (Psychology), seed 002). Stand and Shoot needs a shooting
    weapon on the datasheet (so no whfb8 unit here: their sheets carry no missile weapons yet)
    and is not automated.
    """
    refused: dict[str, dict[str, str]] = {}
    name = target.name
    if FLEEING in target.markers:
        why = {"rule": "Fleeing", "message": f"{name} is fleeing: its only reaction is Flee!"}
        return ["flee"], {"hold": why, "stand_and_shoot": why}
    engaged = state.extra.get("engaged", {})
    if target.id in engaged or target.id in engaged.values():
        why = {
            "rule": "Engaged in Combat",
            "message": f"{name} is engaged in combat: its only reaction is Hold",
        }
        return ["hold"], {"flee": why, "stand_and_shoot": why}
    sheets = sheets_of(state, target)
    ranked = variant_of(state.system).ranked
    offered = ranked.reactions if ranked is not None else ()
    no_flee = ranked.flee_refusal(name, sheets, target.markers) if ranked is not None else None
    if no_flee is not None:
        refused["flee"] = {"rule": no_flee[0], "message": no_flee[1]}
    if not any(_shoots(s) for s in sheets):
        refused["stand_and_shoot"] = {
            "rule": "Stand and Shoot",
            "message": f"{name} has no shooting weapon to Stand and Shoot with",
        }
    return [r for r in offered if r not in refused], refused


def _check_charger(state: GameState, unit: Unit) -> None:
    """The charger's own checks: on the table, not fleeing, not yet moved this phase."""
    if unit.status != "on_table":
        raise RuleError(ILLEGAL_MOVE, "both units must be on the table", rule="Charge")
    if FLEEING in unit.markers:
        raise RuleError(
            ILLEGAL_MOVE, f"{display_name(state, unit.id)} is fleeing and cannot charge",
            rule="Fleeing",
        )
    if phase_moves(state).get(unit.id):
        raise RuleError(
            ILLEGAL_MOVE,
            f"{display_name(state, unit.id)} has already moved or charged this phase",
            rule="Charge",
        )
    refusal = variant_of(state.system).charge_refusal(state, unit.id)
    if refusal is not None:
        raise RuleError(ILLEGAL_MOVE, refusal[1], rule=refusal[0])


def _check_charge_target(state: GameState, seat: int, unit: Unit, target: Unit) -> float:
    """May `unit` declare a charge on `target`: an enemy on the table, in the front arc and
    line of sight (or within the system's declaration range). The distance between them."""
    if target.owner == seat:
        raise RuleError(ILLEGAL_MOVE, "a charge targets an enemy unit", rule="Charge")
    if unit.status != "on_table" or target.status != "on_table":
        raise RuleError(ILLEGAL_MOVE, "both units must be on the table", rule="Charge")
    # A target no charge may be declared against (whfb8 Fanatics, seed 003).
    refusal = variant_of(state.system).charge_target_refusal(state, target.id)
    if refusal is not None:
        raise RuleError(ILLEGAL_MOVE, refusal[1], rule=refusal[0])
    declare_within = variant_of(state.system).charge_declare_range_in
    table = table_of(state)
    start, aim = table.units[unit.id], table.units[target.id]
    gap = float(distance(start, aim).distance)
    if declare_within is None:
        require_in_sight(state, unit, target, "Charge: Line of Sight")
    elif gap > declare_within:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{display_name(state, target.id)} is {gap:.1f} in away; charges are "
            f"declared within {declare_within:g} in",
            rule="Charge",
        )
    return gap


@register_offer("declare_charge")
def _offer_charge(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """Charge…: in the charge phase, for the active player's units on the table, the enemy
    units it may charge (in arc, sight or range, as the server judges), each with why not."""
    if unit.owner != seat or unit.status != "on_table":
        return None
    err = judge(lambda: _check_charger(state, unit))
    if err is not None:
        return refused("declare_charge", err, targets=[])
    targets: list[dict[str, Any]] = []
    for enemy in units_of(state).values():
        if enemy.owner == seat or enemy.status != "on_table":
            continue
        try:
            gap, why = [_check_charge_target(state, seat, unit, enemy)], None
        except RuleError as err:
            gap, why = [], err
        targets.append({
            "unit": enemy.id,
            "available": why is None,
            "reason": None if why is None else why.message,
            "distance": round(gap[0], 3) if gap else None,
        })
    if not any(t["available"] for t in targets):
        return offer("declare_charge", False, "no enemy unit can be charged from here",
                     targets=targets)
    return offer("declare_charge", targets=targets)


@register_offer("charge_reaction")
def _offer_reaction(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """The charged unit's Charge Reactions, for its owner while the charge waits."""
    pending = state.extra.get("pending_charge")
    if not pending or pending.get("target") != unit.id or unit.owner != seat:
        return None
    options, refusals = reaction_options(state, unit)
    ranked = variant_of(state.system).ranked
    offered = ranked.reactions if ranked is not None else ()
    reactions = [
        {
            "reaction": r,
            "name": REACTION_NAMES[r],
            "available": r in options,
            "reason": None if r in options else refusals.get(r, {}).get("message"),
            "rule": None if r in options else refusals.get(r, {}).get("rule"),
        }
        for r in offered
        if r in options or r in refusals
    ]
    return offer("charge_reaction", charger=pending.get("unit"), reactions=reactions)


@register_action(
    "declare_charge",
    DeclareCharge,
    when=[When(BATTLE, ACTIVE, CHARGE_PHASES)],
    doing="charging",
    sweeps=False,
)
def declare_charge(
    state: GameState, seat: int, action: DeclareCharge, dice: DiceStream
) -> list[Event]:
    """Declare a charge against an enemy in the charger's front arc and line of sight.

    wh40k10 has no charge reactions: the server rolls the range at once. In t9a and whfb8 the
    charge waits (`charge_declared`, state `pending_charge`) for the charged player's
    `charge_reaction`; a unit already fleeing has no choice and flees at once.
    """
    unit = _unit(state, action.unit, seat)
    target = _unit(state, action.target)
    _check_charger(state, unit)
    gap = _check_charge_target(state, seat, unit, target)
    if not has_charge_reactions(state.system):
        return charge_result(state, seat, unit, target, dice)
    options, refused = reaction_options(state, target)
    declared = Event(
        "charge_declared",
        {
            "unit": unit.id,
            "target": target.id,
            "distance": round(gap, 3),
            "reacting_player": target.owner,
            "reactions": options,
            "refused": refused,
            "text": f"{display_name(state, unit.id)} declare a charge against "
            f"{display_name(state, target.id)} ({gap:.1f} in away)",
        },
        actor=seat,
    )
    if FLEEING in target.markers:
        return [declared] + react(fold_all(state, [declared]), "flee", dice, forced=True)
    return [declared]


class ChargeReaction(ActionModel):
    type: Literal["charge_reaction"]
    reaction: Literal["hold", "flee", "stand_and_shoot"]


@register_action(
    "charge_reaction",
    ChargeReaction,
    systems=has_charge_reactions,
    when=[When(BATTLE, REACTING, CHARGE_PHASES)],
    doing="a Charge Reaction",
    rolls_distance=True,
    sweeps=False,
)
def charge_reaction(
    state: GameState, seat: int, action: ChargeReaction, dice: DiceStream
) -> list[Event]:
    """The charged player's answer to a declared charge: Hold, Flee! or Stand and Shoot (taken
    as Hold; the shots are not automated). Then the charge range is rolled and resolved."""
    pending = state.extra["pending_charge"]
    target = _unit(state, pending["target"], seat)
    options, refused = reaction_options(state, target)
    if action.reaction not in options:
        why = refused[action.reaction]
        raise RuleError(
            ILLEGAL_MOVE,
            why["message"],
            rule=why["rule"],
            obstacle=None,
            reaction=action.reaction,
            allowed=options,
        )
    return react(state, action.reaction, dice, forced=False)


def react(state: GameState, reaction: str, dice: DiceStream, *, forced: bool) -> list[Event]:
    """The pending charge's reaction, the flee it may cause, then the charge itself."""
    pending = state.extra["pending_charge"]
    units = units_of(state)
    charger, target = units[pending["unit"]], units[pending["target"]]
    payload: dict[str, Any] = {
        "unit": target.id,
        "charger": charger.id,
        "reaction": reaction,
        "name": REACTION_NAMES[reaction],
        "forced": forced,
        "text": f"{display_name(state, target.id)}: {REACTION_NAMES[reaction]}"
        + (" (already fleeing, they must flee again)" if forced else ""),
    }
    if reaction == "stand_and_shoot":
        payload["not_automated"] = STAND_AND_SHOOT_NOTE
    events = [Event("charge_reaction", payload, actor=target.owner)]
    after = fold_all(state, events)
    if reaction == "flee":
        fled = flee_events(after, target.id, charger.id, dice, CHARGE_REACTION, suspend=True)
        if is_suspended(fled):  # the flee waits for a player (whfb8 Fanatics); then the charge
            return events + suspend_with(fled, _charge_frame(state, charger, target))
        events += fled
        after = fold_all(after, fled)
    target = units_of(after)[target.id]
    return events + charge_result(after, charger.owner, charger, target, dice)


def _charge_frame(state: GameState, charger: Unit, target: Unit) -> dict[str, Any]:
    """What a charge reaction's flee suspended for a player leaves to do: the charge itself
    (server/rules/resume.py)."""
    return {
        "kind": "charge_after_reaction",
        "charger": charger.id,
        "target": target.id,
        "text": f"{display_name(state, charger.id)} roll their charge against "
        f"{display_name(state, target.id)}",
    }


@register_frame("charge_after_reaction")
def _resume_charge(state: GameState, frame: Any, dice: DiceStream) -> list[Event]:
    """The charge after its reaction's flee went on: rolled and resolved as `react` does, with
    the charger and its target as they now stand."""
    units = units_of(state)
    charger, target = units[frame["charger"]], units[frame["target"]]
    if charger.status != "on_table" or FLEEING in charger.markers:
        reason = "the charger can no longer charge"
        return [Event("charge_abandoned", {"unit": charger.id, "reason": reason,
                                           "text": f"The charge ends: {reason}"})]
    return charge_result(state, charger.owner, charger, target, dice)


def charge_result(
    state: GameState, seat: int, unit: Unit, target: Unit, dice: DiceStream
) -> list[Event]:
    """Roll the charge range and resolve it: on enough the charger moves into base contact
    aligned to the target's facing, else the charge fails and the unit stays. A fleeing target
    reached by the charge is destroyed (`fleeing_unit_caught`); one that fled off the table
    cannot be reached (the range is still rolled, as the rules roll every charge)."""
    expression, bonus = charge_roll_expression(state, sheets_of(state, unit))
    roll = dice.roll(expression)
    reach = (roll.total or 0) + bonus
    table = table_of(state)
    start = table.units[unit.id]
    aim = table.units.get(target.id)
    gap = distance(start, aim).distance if aim is not None else None
    swift = "maximised" in expression
    rolled = (
        f"{display_name(state, unit.id)} roll {roll.total} for the charge"
        + (" (Swiftstride: Maximised)" if swift else "")
        + (f" + {bonus} = {reach} in" if bonus else " in")
        + ("" if gap is None else f", needing {gap:.1f} in")
    )
    payload: dict[str, Any] = {
        "unit": unit.id,
        "target": target.id,
        "distance": None if gap is None else round(gap, 3),
        "roll": roll.to_payload(),
        "bonus": bonus,
        "range": reach,
        "rule": "Swiftstride" if swift else None,
        "text": f"{rolled}: the charge reaches {display_name(state, target.id)}",
    }
    failed_text = f"{rolled}: the charge fails"
    if aim is None or gap is None:
        return [
            Event(
                "charge_failed",
                {**payload, "reason": f"{display_name(state, target.id)} fled off the table",
                 "text": f"{failed_text} ({display_name(state, target.id)} fled off the table)"},
                actor=seat,
            )
        ]
    if reach + 1e-9 < gap:
        return [
            Event(
                "charge_failed",
                {**payload, "reason": f"rolled {reach}, needed {gap:.1f}", "text": failed_text},
                actor=seat,
            )
        ]
    if is_ranked(state.system):
        placement, arc = contact_placement(start, aim)
        end = footprint(start.formation, placement)  # type: ignore[arg-type]
        swept = movement.sweep_straight(start, end)
        # Units a charge may run into (whfb8 Fanatics, seed 003): `move_contacts` below.
        passable = variant_of(state.system).passable(state, unit.id)
        rule, obstacle = movement.check_area(
            table, unit.id, end.boundary, swept, origin=start.boundary, charging=[target.id],
            ignore=passable,
        )
        if rule is not None:
            return [
                Event(
                    "charge_failed",
                    {
                        **payload,
                        "reason": f"{rule}{in_the_way(state, obstacle)}",
                        "blocked_by": obstacle,
                        "text": f"{failed_text}: {rule}{in_the_way(state, obstacle)}",
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
        stopped = _charge_stop(state, seat, unit, start, placement, payload, moved)
        if stopped is not None:
            here = fold_all(state, stopped)
            on_the_way = movement.sweep_straight(start, table_of(here).units[unit.id])
            return stopped + variant_of(state.system).move_contacts(here, unit.id, on_the_way, dice)
    else:
        near = distance(start, aim)
        (ax, ay), (bx, by) = near.from_point, near.to_point
        length = math.hypot(bx - ax, by - ay) or 1.0
        shift = max(0.0, length - 0.01)
        dx, dy = (bx - ax) / length * shift, (by - ay) / length * shift
        moved = dataclasses.replace(
            unit, positions=tuple((round(x + dx, 4), round(y + dy, 4)) for x, y in unit.positions)
        )
        refusal = variant_of(state.system).model_charge_refusal(
            state, unit.id, [target.id], moved.positions
        )
        if refusal is not None:
            return [
                Event(
                    "charge_failed",
                    {**payload, "reason": refusal[1], "text": f"{failed_text}: {refusal[1]}"},
                    actor=seat,
                )
            ]
    events = [Event("charge_succeeded", {**payload, "unit_after": moved.to_json()}, actor=seat)]
    if FLEEING in target.markers:
        payload["caught"] = True
        events = [
            Event("charge_succeeded", {**payload, "unit_after": moved.to_json()}, actor=seat),
            Event(
                "fleeing_unit_caught",
                {
                    "unit": target.id,
                    "by": unit.id,
                    "text": f"{display_name(state, unit.id)} catch the fleeing "
                    f"{display_name(state, target.id)}: destroyed",
                },
                actor=seat,
            ),
        ]
    if is_ranked(state.system):  # what the charge ran into on the way (whfb8 Fanatics)
        events += variant_of(state.system).move_contacts(
            fold_all(state, events), unit.id, swept, dice
        )
    return events


def _charge_stop(
    state: GameState,
    seat: int,
    unit: Unit,
    start: Footprint,
    end: Placement,
    payload: dict[str, Any],
    moved: Unit,
) -> list[Event] | None:
    """A rule of the system stops the charge part-way (whfb8: Fanatics released at 8 in,
    seed 003): `charge_interrupted` moves the charger to the stopping point and keeps the rest;
    the system completes it (`complete_interrupted_charge`) once its rule is resolved."""
    assert start.placement is not None and start.formation is not None
    a, formation = start.placement, start.formation
    turn = ((end.facing - a.facing + 180.0) % 360.0) - 180.0

    def path(t: float) -> Footprint:
        return footprint(
            formation,
            Placement(a.x + (end.x - a.x) * t, a.y + (end.y - a.y) * t, a.facing + turn * t),
        )

    stop = variant_of(state.system).move_stop(state, unit.id, path)
    if stop is None:
        return None
    fraction, after = stop
    here = path(fraction).placement
    assert here is not None
    halted = dataclasses.replace(
        unit, placement=(round(here.x, 4), round(here.y, 4), round(here.facing % 360.0, 4))
    )
    return [
        Event(
            "charge_interrupted",
            {
                "unit": unit.id,
                "target": payload["target"],
                # the charge's roll, in the dice's order (its completion names it distance_roll)
                "roll": payload["roll"],
                "unit_after": halted.to_json(),
                "charge": {**payload, "unit_after": moved.to_json()},
                "text": f"{unit.name} stop part-way through the charge; they complete it after",
            },
            actor=seat,
        ),
        *after,
    ]


def complete_interrupted_charge(state: GameState) -> list[Event]:
    """The rest of an interrupted charge: chargers must complete their charge (seed 003), when
    the charger and its target are still on the table and the charger is not fleeing."""
    pending = state.extra.get("interrupted_charge")
    if not pending:
        return []
    units = units_of(state)
    charger, target = units.get(pending["unit"]), units.get(pending["target"])
    reason = None
    if charger is None or charger.status != "on_table" or FLEEING in charger.markers:
        reason = "the charger can no longer charge"
    elif target is None or target.status != "on_table":
        reason = "the target is gone"
    if reason is not None:
        return [Event("charge_abandoned", {"unit": pending["unit"], "reason": reason,
                                           "text": f"The interrupted charge ends: {reason}"})]
    assert charger is not None and target is not None  # (a reason was given otherwise)
    payload = dict(pending)
    if "roll" in payload:  # recorded on `charge_interrupted`, where it was drawn
        payload["distance_roll"] = payload.pop("roll")
    after = unit_from_json(payload["unit_after"])
    payload["unit_after"] = dataclasses.replace(
        after, models=charger.models, damage=charger.damage, characters=charger.characters
    ).to_json()
    payload["text"] = (
        f"{display_name(state, charger.id)} complete the charge on {display_name(state, target.id)}"
    )
    return [Event("charge_succeeded", payload)]


@register_folder("charge_interrupted")
def _fold_charge_interrupted(state: GameState, event: Event) -> GameState:
    p = event.payload
    state = _with_unit(state, unit_from_json(p["unit_after"]))
    return _set(
        state,
        interrupted_charge=p["charge"],
        phase_moves={**phase_moves(state), p["unit"]: {"charged": p["target"]}},
    )


@register_folder("charge_abandoned")
def _fold_charge_abandoned(state: GameState, event: Event) -> GameState:
    return _set(state, interrupted_charge=None)


@register_folder("charge_declared")
def _fold_charge_declared(state: GameState, event: Event) -> GameState:
    p = event.payload
    return _set(
        state,
        pending_charge={
            "unit": p["unit"],
            "target": p["target"],
            "reacting_player": p["reacting_player"],
            "reactions": list(p["reactions"]),
        },
    )


@register_folder("charge_reaction")
def _fold_charge_reaction(state: GameState, event: Event) -> GameState:
    return _set(state, pending_charge=None)


@register_folder("charge_succeeded")
def _fold_charge_succeeded(state: GameState, event: Event) -> GameState:
    p = event.payload
    state = _with_unit(state, unit_from_json(p["unit_after"]))
    if state.extra.get("interrupted_charge"):
        state = _set(state, interrupted_charge=None)
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
        state,
        phase_moves={
            **phase_moves(state),
            # the target and dice are kept for a re-roll (wh40k10 Command Re-roll)
            p["unit"]: {"charged": None, "failed": True, "target": p["target"],
                        "roll": p.get("roll")},
        },
    )
