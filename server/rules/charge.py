"""Charges: declared against an enemy in the front arc and line of sight (ranked systems) or
within 12 in (wh40k10); the server rolls the range; a successful charger ends in base contact.

t9a and whfb8: a declared charge waits for the charged player's Charge Reaction (Hold, Flee!,
Stand and Shoot) before the range is rolled: `declare_charge` -> `charge_declared` (the state's
`pending_charge` names who must answer and the reactions allowed), then that player's
`charge_reaction` -> `charge_reaction`, a `unit_fled` if it fled (server/rules/flee.py), and
`charge_succeeded` / `charge_failed` (+ `fleeing_unit_caught` when a fleeing unit is reached).
Stand and Shoot shoots the charger before the range is rolled, as the system's `RankedRules`
says (t9a and whfb8: the rank-and-flank volley, server/rules/rankandflank/shooting.py); a
charger destroyed or put to flight by it does not charge (`charge_abandoned`). After a Flee!
the system says what the flight causes (`RankedRules.reaction_flight`: whfb8 Panic Tests of
the friends it passed through). A flee of the reaction (the Flee!, a Panic flee its Stand
and Shoot or that flight caused) that waits for a player part-way (whfb8 Fanatics released at
8 in) suspends the charge after it (`charge_after_reaction`, server/rules/resume.py): rolled,
or abandoned when the charger fled or was destroyed meanwhile.
Not automated: redirecting a charge whose target fled.

The charge move (ranked systems, `charge_path`): straight into contact with the facing the
charger stands in front of; when that slide is blocked by Impassable Terrain or a unit, one
Wheel first (t9a and whfb8 allow a wheel during the charge move) that clears the obstacle, its
arc counted in the distance the charge must cover. A failed charge moves as the system says
(`RankedRules.failed_charge_distance`: t9a the Charge Range, whfb8 the highest single die) along
the same path, stopping short of Unit Spacing. `charge_preview` tells the charging player all
of this before the charge is declared, without dice.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import shapely

from server import geometry as geo
from server.data import Datasheet
from server.dice import DiceStream, parse_expression
from server.geometry import movement
from server.geometry.arcs import arc_of_unit, in_front_arc
from server.geometry.footprint import Footprint, footprint
from server.geometry.frame import Placement
from server.geometry.kinds import Arc, Rule
from server.geometry.measure import distance
from server.rules.core import (
    ACTIVE,
    BATTLE,
    ILLEGAL_MOVE,
    OUT_OF_PHASE,
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
from server.rules.markers import FLED_OFF
from server.rules.moves import engaged_in_combat
from server.rules.naming import display_name, in_the_way, possessive, say_inches, tenths
from server.rules.orders import judge, offer, refused, register_offer
from server.rules.resume import is_suspended, register_frame, suspend_with
from server.rules.state import changed
from server.rules.systems import (
    CHARGE_PHASES,
    REACTION_NAMES,
    has_charge_reactions,
    variant_of,
)
from server.rules.units import (
    Unit,
    is_ranked,
    phase_moves,
    require_in_sight,
    table_of,
    unit_from_json,
    unit_of,
    units_of,
    with_phase_move,
    with_unit,
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


WHEEL_TRIES_DEG: tuple[float, ...] = tuple(
    d * sign for d in (10.0, 20.0, 30.0, 45.0, 60.0, 75.0, 90.0) for sign in (1.0, -1.0)
)
"""The wheels tried, smallest first, when a charger's straight slide into contact is blocked."""
BLOCKING_RULES = (Rule.IMPASSABLE_TERRAIN, Rule.MOVING_THROUGH_UNITS)
"""What a wheel may go around (a wheel cannot fix the table edge or the end position)."""


@dataclasses.dataclass(frozen=True)
class ChargePath:
    """How a ranked charger reaches its target: `wheel` degrees about a front corner first
    (0: none), then a straight slide to `end` (in contact with the facing `arc`). `length`
    the inches its front travels (wheel arc + slide), `swept` the area crossed, `rule` and
    `obstacle` what blocks it (None: the path is clear)."""

    start: Footprint
    end: Placement
    arc: Arc
    wheel: float
    pivot: tuple[float, float] | None
    length: float
    swept: Any
    rule: Rule | None
    obstacle: str | None

    def needed(self, gap: float) -> float:
        """The charge range this path needs: the distance to the target, or the whole path
        when the charger wheels first (the wheel is part of the move)."""
        return gap if not self.wheel else max(gap, self.length)

    def at(self, travelled: float) -> Footprint:
        """Where the charger stands after `travelled` inches of this path."""
        start, formation = self.start, self.start.formation
        assert start.placement is not None and formation is not None
        turn_len = start.width * abs(math.radians(self.wheel))
        if self.wheel and travelled <= turn_len:
            part = self.wheel * (travelled / turn_len if turn_len else 1.0)
            return footprint(formation, movement.wheel_placement(start, part)[0])
        a = movement.wheel_placement(start, self.wheel)[0] if self.wheel else start.placement
        rest = self.length - turn_len
        t = 1.0 if rest <= 0 else min(1.0, max(0.0, (travelled - turn_len) / rest))
        turn = ((self.end.facing - a.facing + 180.0) % 360.0) - 180.0
        return footprint(formation, Placement(
            a.x + (self.end.x - a.x) * t, a.y + (self.end.y - a.y) * t, a.facing + turn * t))

    def swept_to(self, travelled: float) -> Any:
        """The area crossed in the first `travelled` inches."""
        start = self.start
        turn_len = start.width * abs(math.radians(self.wheel))
        here = self.at(travelled)
        if not self.wheel:
            return movement.sweep_straight(start, here)
        assert self.pivot is not None
        turned = self.wheel * min(1.0, travelled / turn_len) if turn_len else self.wheel
        mid = self.at(min(travelled, turn_len))
        parts = [movement.sweep_wheel(start, mid, turned, self.pivot)]
        if travelled > turn_len:
            parts.append(movement.sweep_straight(mid, here))
        return shapely.union_all(parts)


def _slide_length(a: Placement, b: Placement) -> float:
    return math.hypot(b.x - a.x, b.y - a.y)


def charge_path(state: GameState, unit: Unit, target: Unit) -> ChargePath:
    """The charge move of a ranked `unit` into contact with `target`, judged by the geometry
    core (`movement.check_area`, the charged unit may be touched): straight when that is clear,
    else the smallest single Wheel that clears what blocks the slide (t9a and whfb8 allow a
    wheel during the charge move); blocked paths name the rule and the obstacle."""
    table = table_of(state)
    start, aim = table.units[unit.id], table.units[target.id]
    assert start.placement is not None and start.formation is not None
    formation = start.formation
    # Units a charge may run into (whfb8 Fanatics, seed 003): `move_contacts` after the move.
    passable = variant_of(state.system).passable(state, unit.id)

    def judged(mid: Footprint, wheel: float, pivot: tuple[float, float] | None) -> ChargePath:
        placement, arc = contact_placement(mid, aim)
        end = footprint(formation, placement)
        assert mid.placement is not None
        path = ChargePath(start, placement, arc, wheel, pivot,
                          start.width * abs(math.radians(wheel))
                          + _slide_length(mid.placement, placement), None, None, None)
        swept = path.swept_to(path.length)
        rule, obstacle = movement.check_area(
            table, unit.id, end.boundary, swept, origin=start.boundary, charging=[target.id],
            ignore=passable,
        )
        return dataclasses.replace(path, swept=swept, rule=rule, obstacle=obstacle)

    straight = judged(start, 0.0, None)
    if straight.rule not in BLOCKING_RULES:
        return straight
    for degrees in WHEEL_TRIES_DEG:
        placement, pivot = movement.wheel_placement(start, degrees)
        mid = footprint(start.formation, placement)
        if not arc_of_unit(aim, mid):
            continue
        tried = judged(mid, degrees, (float(pivot[0]), float(pivot[1])))
        if tried.rule is None:
            return tried
    return straight


FAILED_MOVE_HALVINGS = 24
"""Halvings of the search for the furthest legal end of a Failed Charge move (2^-24 of it)."""


def failed_charge_move(
    state: GameState, unit: Unit, path: ChargePath, inches: float
) -> tuple[Footprint, float, Any, str | None] | None:
    """Where a failed charge ends: `inches` along the charge path or, when that end is not
    legal (Unit Spacing from any unit, the target included: a failed charge makes no contact;
    Impassable Terrain; the table edge; through a unit), the furthest legal point of the path
    before it, found by halving; with the distance travelled, the area crossed and what stopped
    it in words. None when it cannot move at all."""
    table = table_of(state)

    def judged(travelled: float) -> tuple[Footprint, Any, str | None]:
        here = path.at(travelled)
        swept = path.swept_to(travelled)
        rule, obstacle = movement.check_area(
            table, unit.id, here.boundary, swept, origin=path.start.boundary
        )
        return here, swept, None if rule is None else f"{rule}{in_the_way(state, obstacle)}"

    far = min(inches, path.length)
    if far <= 1e-9:
        return None
    here, swept, stopped_by = judged(far)
    if stopped_by is None:
        return here, far, swept, None
    lo, hi = 0.0, far
    for _ in range(FAILED_MOVE_HALVINGS):
        mid = (lo + hi) / 2.0
        if judged(mid)[2] is None:
            lo = mid
        else:
            hi = mid
    if lo < 0.005:
        return None
    here, swept, _ = judged(lo)
    return here, lo, swept, stopped_by


def charge_preview(
    state: GameState, seat: int | None, unit_id: str, target_id: str
) -> dict[str, Any]:
    """What the server would judge of `unit_id`'s charge on `target_id`, before it is declared
    and without dice: the distance needed, whether the target is in the front arc and line of
    sight (or within the declaration range), whether the charge move's path is blocked (and by
    what, in words) or needs a wheel, and the most the charge roll can reach. Pure; it reads
    only the table, so it tells nothing about dice or another seat's secrets."""
    units = units_of(state)
    unit, target = units.get(unit_id), units.get(target_id)
    if unit is None or target is None or unit.status != "on_table" \
            or target.status != "on_table":
        return {}
    table = table_of(state)
    start, aim = table.units[unit.id], table.units[target.id]
    gap = float(distance(start, aim).distance)
    sight = None
    declare_within = variant_of(state.system).charge_declare_range_in
    out: dict[str, Any] = {"unit": unit.id, "target": target.id, "distance": round(gap, 3),
                           "needed": round(gap, 3)}
    if declare_within is None:
        from server.geometry.los import line_of_sight

        sight = line_of_sight(table, unit.id, target.id)
        pts = shapely.get_coordinates(aim.boundary)
        out["in_arc"] = bool(in_front_arc(start, pts).any()) if start.ranked else True
        out["in_sight"] = bool(sight.visible)
        out["sight_blocked_by"] = (display_name(state, sight.blockers[0])
                                   if sight.blockers and not sight.visible else None)
    else:
        out["declare_within"] = declare_within
        out["within_range"] = gap <= declare_within + 1e-9
    expression, bonus = charge_roll_expression(state, sheets_of(state, unit))
    high = dice_max(expression) + bonus
    out["roll"] = expression + (f" + {bonus}" if bonus else "")
    out["max_range"] = high
    if is_ranked(state.system):
        path = charge_path(state, unit, target)
        out["needed"] = round(path.needed(gap), 3)
        out["wheel"] = round(path.wheel, 1)
        out["path_length"] = round(path.length, 3)
        out["blocked"] = path.rule is not None
        out["rule"] = None if path.rule is None else str(path.rule)
        out["obstacle"] = path.obstacle
        out["obstacle_name"] = display_name(state, path.obstacle) if path.obstacle else None
        out["swept"] = geo.to_geojson(path.swept)
        out["hazards"] = variant_of(state.system).move_hazards(state, unit.id, path.swept)
        failed = variant_of(state.system).ranked
        out["failed_move"] = failed.failed_charge_words if failed is not None else None
    else:
        out["blocked"] = False
    out["reachable"] = high + 1e-9 >= out["needed"] and not out["blocked"]
    return out


def dice_max(expression: str) -> int:
    """The most a charge roll's dice can show ("2D6" 12; "2D6 maximised x1" keeps two: 12)."""
    spec = parse_expression(expression)
    return spec.count * spec.sides + spec.constant


REACTIONS: tuple[str, ...] = tuple(REACTION_NAMES)


def reaction_options(
    state: GameState, target: Unit, charger_id: str
) -> tuple[list[str], dict[str, dict[str, str]]]:
    """The Charge Reactions `target` may choose against the charge of `charger_id`, and why
    each other one is refused.

    A fleeing unit must flee again; a unit engaged in combat can only Hold. Flee! is refused
    as the system says (`RankedRules.flee_refusal`: t9a Fearless, seed 000; whfb8 Undead,
    Unstable, Unbreakable, Immunity (Psychology), seed 002). Stand and Shoot is refused as the
    system says (`RankedRules.stand_and_shoot_refusal`: no shooting weapon, the charger out of
    range or sight; t9a also outside the Front Arc, too close, or already done this turn).
    """
    refused: dict[str, dict[str, str]] = {}
    name = target.name
    if FLEEING in target.markers:
        why = {"rule": "Fleeing", "message": f"{name} is fleeing: its only reaction is Flee!"}
        return ["flee"], {"hold": why, "stand_and_shoot": why}
    engaged = state.charges.engaged
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
    no_shots = (
        ranked.stand_and_shoot_refusal(state, target.id, charger_id)
        if ranked is not None and "stand_and_shoot" in offered
        else None
    )
    if no_shots is not None:
        refused["stand_and_shoot"] = {"rule": no_shots[0], "message": no_shots[1]}
    return [r for r in offered if r not in refused], refused


def check_charger(state: GameState, unit: Unit) -> None:
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
    if engaged_in_combat(state, unit):
        raise RuleError(
            ILLEGAL_MOVE,
            f"{display_name(state, unit.id)} is engaged in combat and cannot declare a charge",
            rule="Charge",
        )


def check_charge_target(state: GameState, seat: int, unit: Unit, target: Unit) -> float:
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
            f"{display_name(state, target.id)} is {say_inches(gap, declare_within)} away; "
            f"charges are declared within {declare_within:g} in",
            rule="Charge",
        )
    return gap


def charge_targets(state: GameState, seat: int, unit: Unit) -> list[dict[str, Any]]:
    """Every enemy unit on the table as a charge order's target: whether `unit` may declare a
    charge on it (`check_charge_target`), the reason when not, the distance when it may. The
    one list every charge order offers (this module's `declare_charge`, 40k's `charge`)."""
    targets: list[dict[str, Any]] = []
    for enemy in units_of(state).values():
        if enemy.owner == seat or enemy.status != "on_table":
            continue
        try:
            gap, why = [check_charge_target(state, seat, unit, enemy)], None
        except RuleError as err:
            gap, why = [], err
        targets.append({
            "unit": enemy.id,
            "available": why is None,
            "reason": None if why is None else why.message,
            "distance": round(gap[0], 3) if gap else None,
        })
    return targets


@register_offer("declare_charge")
def _offer_charge(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """Charge…: in the charge phase, for the active player's units on the table, the enemy
    units it may charge (in arc, sight or range, as the server judges), each with why not."""
    if unit.owner != seat or unit.status != "on_table":
        return None
    err = judge(lambda: check_charger(state, unit))
    if err is not None:
        return refused("declare_charge", err, targets=[])
    targets = charge_targets(state, seat, unit)
    if not any(t["available"] for t in targets):
        return offer("declare_charge", False, "no enemy unit can be charged from here",
                     targets=targets)
    return offer("declare_charge", targets=targets)


@register_offer("charge_reaction")
def _offer_reaction(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """The charged unit's Charge Reactions, for its owner while the charge waits."""
    pending = state.charges.pending
    if not pending or pending.get("target") != unit.id or unit.owner != seat:
        return None
    options, refusals = reaction_options(state, unit, pending["unit"])
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


ChargeWait = Callable[
    [GameState, int, Unit, list[str], dict[str, float], str], "list[Event] | None"
]
CHARGE_WAITS: dict[str, ChargeWait] = {}


def register_charge_wait(system: str, fn: ChargeWait) -> ChargeWait:
    """Register `fn(state, seat, charger, targets, distances, action) -> events | None` for a
    system without Charge Reactions whose charged player may still answer a declared charge
    before its roll: the `charge_declared` that makes the charge wait, or None (no answer
    possible: the charge is rolled at once)."""
    CHARGE_WAITS[system] = fn
    return fn


def charge_wait(
    state: GameState, seat: int, unit: Unit, targets: list[str], gaps: dict[str, float],
    action: str,
) -> list[Event] | None:
    """The declared charge's wait for the charged player's answer, if the system has one."""
    fn = CHARGE_WAITS.get(state.system or "")
    return None if fn is None else fn(state, seat, unit, targets, gaps, action)


@register_action(
    "declare_charge",
    DeclareCharge,
    when=[When(BATTLE, ACTIVE, CHARGE_PHASES)],
    doing="charging",
    sweeps=False,
    explain=lambda state, seat, action: charge_preview(state, seat, action.unit, action.target),
)
def declare_charge(
    state: GameState, seat: int, action: DeclareCharge, dice: DiceStream
) -> list[Event]:
    """Declare a charge against an enemy in the charger's front arc and line of sight.

    wh40k10 has no charge reactions: the server rolls the range at once, unless the charged
    player may answer first (`register_charge_wait`: Fire Overwatch). In t9a and whfb8 the
    charge waits (`charge_declared`, state `pending_charge`) for the charged player's
    `charge_reaction`; a unit already fleeing has no choice and flees at once.
    """
    unit = unit_of(state, action.unit, seat)
    target = unit_of(state, action.target)
    check_charger(state, unit)
    gap = check_charge_target(state, seat, unit, target)
    if not has_charge_reactions(state.system):
        waiting = charge_wait(state, seat, unit, [target.id], {target.id: gap}, "declare_charge")
        return waiting if waiting is not None else charge_result(state, seat, unit, target, dice)
    options, refused = reaction_options(state, target, unit.id)
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
            f"{display_name(state, target.id)} ({say_inches(gap)} away)",
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
    """The charged player's answer to a declared charge: Hold, Flee! or Stand and Shoot (the
    charged unit shoots the charger first). Then the charge range is rolled and resolved."""
    pending = waiting_charge(state)
    target = unit_of(state, pending["target"], seat)
    options, refused = reaction_options(state, target, pending["unit"])
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


def waiting_charge(state: GameState) -> Mapping[str, Any]:
    """The declared charge waiting for its Charge Reaction (`out_of_phase` when none is)."""
    pending = state.charges.pending
    if pending is None:
        raise RuleError(OUT_OF_PHASE, "no charge is waiting for a Charge Reaction")
    return pending


def react(state: GameState, reaction: str, dice: DiceStream, *, forced: bool) -> list[Event]:
    """The pending charge's reaction, the flee it may cause or the shots it makes, then the
    charge itself (unless the shots destroyed the charger or put it to flight)."""
    pending = waiting_charge(state)
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
    events = [Event("charge_reaction", payload, actor=target.owner)]
    after = fold_all(state, events)
    ranked = variant_of(state.system).ranked
    if reaction == "flee":
        fled = flee_events(after, target.id, charger.id, dice, CHARGE_REACTION, suspend=True)
        if is_suspended(fled):  # the flee waits for a player (whfb8 Fanatics); then what the
            # flight causes (the Panic Tests of friends it fled through), then the charge
            panicked = [] if ranked is None else ranked.reaction_flight(
                fold_all(after, fled), target.id, charger.id, fled, dice)
            return events + suspend_with([*fled, *panicked],
                                         _charge_frame(state, charger, target, reaction))
        events += fled
        after = fold_all(after, fled)
        if ranked is not None:
            panicked = ranked.reaction_flight(after, target.id, charger.id, fled, dice)
            if is_suspended(panicked):  # a friend's Panic flee waits (whfb8 Fanatics)
                return events + suspend_with(panicked,
                                             _charge_frame(state, charger, target, reaction))
            events += panicked
            after = fold_all(after, panicked)
    if reaction == "stand_and_shoot":
        assert ranked is not None  # (reactions exist only for ranked systems)
        shots = ranked.stand_and_shoot(after, target.id, charger.id, dice)
        if is_suspended(shots):  # a Panic flee it caused waits (whfb8 Fanatics); then the charge
            return events + suspend_with(shots, _charge_frame(state, charger, target, reaction))
        events += shots
        after = fold_all(after, shots)
    abandoned = _abandoned(after, charger.id, target.id, reaction)
    if abandoned is not None:
        return events + [abandoned]
    target, charger = units_of(after)[target.id], units_of(after)[charger.id]  # as they now stand
    return events + charge_result(after, charger.owner, charger, target, dice)


def _abandoned(state: GameState, charger_id: str, target_id: str, reaction: str) -> Event | None:
    """`charge_abandoned` when the charger can no longer charge after the reaction (destroyed
    or put to flight by a Stand and Shoot), else None."""
    charger = units_of(state)[charger_id]
    if charger.status == "on_table" and FLEEING not in charger.markers:
        return None
    if reaction == "stand_and_shoot":
        shooters = possessive(display_name(state, target_id))
        fled = FLEEING in charger.markers or FLED_OFF in charger.markers
        if fled and charger.status == "destroyed":  # e.g. a whfb8 Fanatic on the flee path
            why = f"they flee after {shooters} Stand and Shoot and are destroyed as they flee"
        elif fled:
            why = f"they flee after {shooters} Stand and Shoot"
        else:
            why = f"destroyed by {shooters} Stand and Shoot"
    else:
        why = "the charger can no longer charge"
    return Event(
        "charge_abandoned",
        {"unit": charger_id, "target": target_id, "reason": why,
         "text": f"{display_name(state, charger_id)} do not charge: {why}"},
        actor=charger.owner,
    )


def _charge_frame(state: GameState, charger: Unit, target: Unit, reaction: str) -> dict[str, Any]:
    """What a charge reaction suspended for a player (its flee, or a Panic flee its Stand and
    Shoot caused, waiting for whfb8 Fanatics' releases) leaves to do: the charge itself, or its
    abandonment (server/rules/resume.py)."""
    return {
        "kind": "charge_after_reaction",
        "charger": charger.id,
        "target": target.id,
        "reaction": reaction,
        "text": f"{display_name(state, charger.id)} roll their charge against "
        f"{display_name(state, target.id)}",
    }


@register_frame("charge_after_reaction")
def _resume_charge(state: GameState, frame: Any, dice: DiceStream) -> list[Event]:
    """The charge after its reaction's suspended part went on: rolled and resolved as `react`
    does, with the charger and its target as they now stand; abandoned when the charger fled
    or was destroyed meanwhile."""
    units = units_of(state)
    charger, target = units[frame["charger"]], units[frame["target"]]
    abandoned = _abandoned(state, charger.id, target.id, str(frame.get("reaction", "flee")))
    if abandoned is not None:
        return [abandoned]
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
        + ("" if gap is None else f", needing {say_inches(gap)}")
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
    path = charge_path(state, unit, target) if is_ranked(state.system) else None
    if path is not None and path.wheel:
        payload["wheel"] = round(path.wheel, 1)
    if reach + 1e-9 < gap or (path is not None and path.rule is None
                              and reach + 1e-9 < path.needed(gap)):
        needed = gap if path is None or path.rule is not None else path.needed(gap)
        why = f"rolled {reach}, needed {tenths(needed)}" + (
            f" (with a {abs(path.wheel):g}° wheel)" if path is not None and path.wheel else "")
        return _failed(state, seat, unit, path, payload, roll.to_payload(), reach,
                       {"reason": why, "text": failed_text})
    if path is not None:
        if path.rule is not None:
            blocked = f"{path.rule}{in_the_way(state, path.obstacle)}"
            return _failed(state, seat, unit, path, payload, roll.to_payload(), reach,
                           {"reason": blocked, "blocked_by": path.obstacle,
                            "text": f"{failed_text}: {blocked}"})
        placement, arc = path.end, path.arc
        swept = path.swept
        moved = dataclasses.replace(
            unit,
            placement=(round(placement.x, 4), round(placement.y, 4), round(placement.facing, 4)),
        )
        payload["arc"] = str(arc)
        payload["swept"] = geo.to_geojson(path.swept)
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
        straight = [(round(x + dx, 4), round(y + dy, 4)) for x, y in unit.positions]
        moved = dataclasses.replace(unit, positions=tuple(
            variant_of(state.system).finish_model_charge(
                state, unit.id, [target.id], straight, float(reach))))
        refusal = variant_of(state.system).model_charge_refusal(
            state, unit.id, [target.id], moved.positions, float(reach)
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
    return events + _contact(fold_all(state, events), unit.id, target.id)


def _contact(state: GameState, charger_id: str, target_id: str) -> list[Event]:
    """What the system does the moment a charge reaches base contact (`Variant.charge_contact`),
    when the charger is still in it (a Fanatic on the way may have destroyed it)."""
    if charger_id not in state.charges.engaged:
        return []
    return variant_of(state.system).charge_contact(state, charger_id, target_id)


def straight_way(start: Footprint, end: Placement) -> Callable[[float], Footprint]:
    """A charger's way from `start` to `end` (its place in contact): its front centre along
    the straight line, turning evenly on the way; `path(t)` is its footprint a fraction `t`
    of the way."""
    assert start.placement is not None and start.formation is not None
    a, formation = start.placement, start.formation
    turn = ((end.facing - a.facing + 180.0) % 360.0) - 180.0

    def path(t: float) -> Footprint:
        return footprint(
            formation,
            Placement(a.x + (end.x - a.x) * t, a.y + (end.y - a.y) * t, a.facing + turn * t),
        )

    return path


def _failed(
    state: GameState,
    seat: int,
    unit: Unit,
    path: ChargePath | None,
    payload: dict[str, Any],
    roll: dict[str, Any],
    reach: float,
    why: dict[str, Any],
) -> list[Event]:
    """`charge_failed`, with the Failed Charge move the system makes (ranked systems: along
    the charge path, `RankedRules.failed_charge_distance`, stopping clear of everything), cut
    short where a rule stops moves (`Variant.move_stop`: whfb8 Fanatics released at 8 in,
    whose events follow)."""
    out = {**payload, **why}
    ranked = variant_of(state.system).ranked
    after: list[Event] = []
    if path is not None and ranked is not None:
        inches = ranked.failed_charge_distance(roll, reach)
        ended = failed_charge_move(state, unit, path, inches)
        words = f"Failed Charge move: {ranked.failed_charge_words} ({inches:g} in)"
        if ended is None:
            out["failed_move"] = {"distance": 0.0, "allowed": inches, "rule": words}
            out["text"] = f"{out['text']}; {words}: no room to move"
        else:
            here, travelled, swept, stopped_by = ended
            whole = travelled
            stop = variant_of(state.system).move_stop(
                state, unit.id, lambda t: path.at(t * whole))
            if stop is not None:
                travelled, after = whole * stop[0], stop[1]
                here, swept = path.at(travelled), path.swept_to(travelled)
                stopped_by = "a rule stops the move"
            assert here.placement is not None
            p = here.placement
            moved = dataclasses.replace(
                unit, placement=(round(p.x, 4), round(p.y, 4), round(p.facing % 360.0, 4))
            )
            out["failed_move"] = {"distance": round(travelled, 3), "allowed": inches,
                                  "rule": words, "stopped_by": stopped_by}
            out["unit_after"] = moved.to_json()
            out["swept"] = geo.to_geojson(swept)
            out["text"] = (f"{out['text']}; {words}: "
                           f"{display_name(state, unit.id)} move {say_inches(travelled)} towards "
                           f"{display_name(state, str(payload['target']))}"
                           + (f" ({stopped_by})" if stopped_by else ""))
    return [Event("charge_failed", out, actor=seat), *after]


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
    path = straight_way(start, end)
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
                "text": f"{display_name(state, unit.id)} stop part-way through the charge; they "
                        "complete it after",
            },
            actor=seat,
        ),
        *after,
    ]


def complete_interrupted_charge(state: GameState) -> list[Event]:
    """The rest of an interrupted charge: chargers must complete their charge (seed 003), when
    the charger and its target are still on the table and the charger is not fleeing."""
    pending = state.charges.interrupted
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
    done = [Event("charge_succeeded", payload)]
    return done + _contact(fold_all(state, done), charger.id, target.id)


@register_folder("charge_interrupted")
def _fold_charge_interrupted(state: GameState, event: Event) -> GameState:
    p = event.payload
    state = with_unit(state, unit_from_json(p["unit_after"]))
    state = state.evolve(charges=changed(state.charges, interrupted=p["charge"]))
    return with_phase_move(state, p["unit"], {"charged": p["target"]})


@register_folder("charge_abandoned")
def _fold_charge_abandoned(state: GameState, event: Event) -> GameState:
    return state.evolve(charges=changed(state.charges, interrupted=None))


@register_folder("charge_declared")
def _fold_charge_declared(state: GameState, event: Event) -> GameState:
    p = event.payload
    pending = {
        "unit": p["unit"],
        "target": p["target"],
        "reacting_player": p["reacting_player"],
        "reactions": list(p["reactions"]),
    }
    # A system's own answer (wh40k10: Fire Overwatch) names itself and keeps what the charge
    # needs once answered (its targets and distances, the action that declared it).
    pending.update({k: p[k] for k in ("answer", "targets", "distances", "declared_by")
                    if k in p})
    return state.evolve(charges=changed(state.charges, pending=pending))


@register_folder("charge_reaction")
def _fold_charge_reaction(state: GameState, event: Event) -> GameState:
    return state.evolve(charges=changed(state.charges, pending=None))


@register_folder("charge_succeeded")
def _fold_charge_succeeded(state: GameState, event: Event) -> GameState:
    p = event.payload
    state = with_unit(state, unit_from_json(p["unit_after"]))
    engaged = {**state.charges.engaged, p["unit"]: p["target"]}
    state = state.evolve(charges=changed(state.charges, interrupted=None,
                                                     engaged=engaged))
    return with_phase_move(state, p["unit"], {"charged": p["target"]})


@register_folder("charge_failed")
def _fold_charge_failed(state: GameState, event: Event) -> GameState:
    p = event.payload
    if p.get("unit_after"):  # the Failed Charge move
        state = with_unit(state, unit_from_json(p["unit_after"]))
    # the target(s) and dice are kept for a re-roll (wh40k10 Command Re-roll; a charge declared
    # on several targets keeps them all, with their distances)
    kept = {k: p[k] for k in ("targets", "distances") if k in p}
    return with_phase_move(state, p["unit"], {"charged": None, "failed": True,
                                              "target": p["target"], "roll": p.get("roll"),
                                              **kept})
