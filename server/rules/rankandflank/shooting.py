"""Rank-and-flank: the `shoot` action (shape in docs/protocol.md "t9a combat").

`shoot {unit, target, weapon?}` in the active player's shooting phase (the system's
`shooting_phase`), registered for every system with rank-and-flank rules:

1. **Who may shoot**: a unit of the active player, on the table and not fleeing, with
   rank-and-file left, that has not shot this phase, is not Engaged and did not March this
   turn (a t9a Light Troops Reform beyond Mobility counts as a March only for march-triggered
   rules: "for the purpose of shooting, this is still a Reform Move", seed 000), unless the
   system's `marched_shooting_rule` lets it (whfb8 Skirmishers: Fire on the March, still
   counting as moving).
2. **At what**: an enemy unit on the table, not Engaged, within the weapon's range (closest
   points of the Unit Boundaries) and in line of sight from the front arc
   (units.require_in_sight, which also gives the target's cover).
3. **The weapon**: the one named, else the system's first (`shooting_weapons`).
4. **Shots**: the weapon's shots for each rank-and-file model in the system's
   `ranks_that_shoot` front ranks (its `shooting_ranks`: t9a the first two, a **Decision**,
   whfb8 one; whfb8 Skirmishers every rank, seed 002), rolled at once when they are dice.
5. **Modifiers**: the system's `shooting_modifiers` (moving, range, cover) and
   `shooting_target_modifiers` (the target unit as a whole: whfb8 Light Troops); the target's
   own rules of a model (t9a Hard Target) are the to-hit step's.
6. **The batch**: `shots_fired`, then the shared attack steps (`attacks.resolve` with the
   system's tables), `hp_lost`, and Panic Tests when the target is destroyed, or (a system
   with `heavy_casualties`, whfb8) the target's own when this phase's losses reach 25 %.

**Stand and Shoot** (a Charge Reaction, server/rules/charge.py, through the system's
`RankedRules.stand_and_shoot_refusal` / `stand_and_shoot`): the charged unit shoots its
default weapon at the charger once the reaction is chosen, before the charge range is rolled:

1. It can shoot: on the table, not fleeing, rank-and-file left, a shooting weapon (a unit
   engaged in combat may only Hold: charge.py).
2. The system's own conditions (`stand_and_shoot_condition`: t9a the charger Located in the
   Front Arc, farther away than its lowest Advance Rate, once per Player Turn).
3. The charger in the front arc and line of sight, and within range, unless the system lets
   a charger beyond range be shot at Long Range (`stand_and_shoot_beyond_range`, t9a).
4. The volley of step 6 with `stand_and_shoot_modifiers` (both systems -1), the charged
   player's; a charger destroyed or fleeing (Panic) after it does not charge.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, Literal

from pydantic import Field

from server.dice import DiceStream
from server.geometry.arcs import front_arc_reach
from server.geometry.footprint import Footprint
from server.geometry.geojson import to_geojson
from server.geometry.measure import distance
from server.rules.core import (
    ACTIVE,
    BATTLE,
    ILLEGAL_MOVE,
    ActionModel,
    Event,
    GameState,
    RuleError,
    When,
    register_action,
    register_folder,
)
from server.rules.naming import display_name, say_inches
from server.rules.orders import judge, offer, refused, register_offer
from server.rules.rankandflank.attacks import Modifier, Roller, plural, times_models
from server.rules.rankandflank.break_test import heavy_casualties, panic_tests
from server.rules.rankandflank.engagement import (
    active,
    is_engaged,
    rank_and_file_sheet,
    sheets_of,
)
from server.rules.rankandflank.events import Log, losses_events, resolve_on_pools, step_events
from server.rules.rankandflank.system import (
    SHOOTING_PHASE,
    rank_and_flank_of,
    rank_and_flank_systems,
)
from server.rules.resume import refuse_while_suspended
from server.rules.units import (
    Unit,
    phase_moves,
    require_in_sight,
    table_of,
    turn_moves,
    unit_of,
    units_of,
    with_phase_move,
)


class Shoot(ActionModel):
    type: Literal["shoot"]
    unit: str = Field(min_length=1, max_length=40)
    target: str = Field(min_length=1, max_length=40)
    weapon: str | None = Field(default=None, max_length=80)


def shooters(fp: Footprint, unit: Unit, ranks: int) -> int:
    """Rank-and-file models in the first `ranks` ranks (module text, step 4)."""
    return (
        sum(
            1
            for rank, char in zip(fp.model_ranks, fp.model_characters, strict=True)
            if char is None and rank is not None and rank < ranks
        )
        if unit.models
        else 0
    )


def _check_shooter(state: GameState, unit: Unit) -> None:
    """The shooter's own checks: on the table, not fleeing, not yet shot, not engaged, not
    marched this turn."""
    if not active(unit) or unit.models == 0:
        raise RuleError(
            ILLEGAL_MOVE, f"{display_name(state, unit.id)} cannot shoot (not on the table or "
                          "fleeing)", rule="Shooting"
        )
    if phase_moves(state).get(unit.id, {}).get("shot"):
        raise RuleError(ILLEGAL_MOVE, f"{display_name(state, unit.id)} has already shot this phase",
                                      rule="Shooting")
    if is_engaged(state, unit.id):
        raise RuleError(ILLEGAL_MOVE, f"{display_name(state, unit.id)} is Engaged in Combat",
                                      rule="Shooting")
    if turn_moves(state).get(unit.id, {}).get("marched") and rank_and_flank_of(
        state
    ).marched_shooting_rule(rank_and_file_sheet(state, unit)) is None:
        raise RuleError(
            ILLEGAL_MOVE, f"{display_name(state, unit.id)} made a March Move this turn and cannot "
                          "shoot",
            rule="Shooting: Marched",
        )


def _check_target(state: GameState, target: Unit) -> None:
    """A target on the table and not in a combat."""
    if target.status != "on_table":
        raise RuleError(ILLEGAL_MOVE, f"{display_name(state, target.id)} is not on the table",
                                      rule="Shooting")
    if is_engaged(state, target.id):
        raise RuleError(
            ILLEGAL_MOVE, f"{display_name(state, target.id)} is Engaged in Combat: no shooting at "
                          "it", rule="Shooting"
        )


def aim(
    state: GameState, unit: Unit, target: Unit, weapon_name: str | None,
    *, beyond_range: bool = False,
) -> tuple[Any, float, Any]:
    """The weapon (by name; default the first), the distance and the line of sight of a shot
    at `target`, or the rule that refuses it (no such weapon, out of range, not in sight).
    `beyond_range`: a target beyond the weapon's range may still be shot (t9a Stand and
    Shoot; the distance then makes it Long Range)."""
    rules = rank_and_flank_of(state)
    weapons = rules.shooting_weapons(rank_and_file_sheet(state, unit))
    if not weapons:
        raise RuleError(ILLEGAL_MOVE, f"{display_name(state, unit.id)} has no shooting weapon",
                                      rule="Shooting")
    weapon = (
        next((w for w in weapons if w.name == weapon_name), None)
        if weapon_name
        else (weapons[0])
    )
    if weapon is None:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{display_name(state, unit.id)} has no {weapon_name!r}; it has "
            f"{', '.join(w.name for w in weapons)}",
            rule="Shooting",
        )
    table = table_of(state)
    gap = float(distance(table.units[unit.id], table.units[target.id]).distance)
    if gap > weapon.range_in + 1e-9 and not beyond_range:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{display_name(state, target.id)} is {say_inches(gap, weapon.range_in)} away; "
            f"{weapon.name} reaches {weapon.range_in} in",
            rule="Shooting: Range",
            distance=round(gap, 3),
        )
    sight = require_in_sight(state, unit, target, "Shooting: Line of Sight")
    return weapon, gap, sight


@register_offer("shoot")
def _offer_shoot(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """Shoot…: in the Shooting phase, for the active player's units with a shooting weapon,
    the weapons (name, range, and the area in range and in the front arc, drawn on the table
    when the shooter is selected) and per enemy unit the weapons that may shoot at it now,
    with the distance and, for a target in sight, how much of it is seen and its cover (the
    same judgement `shoot` makes: `aim`)."""
    if unit.owner != seat or unit.status != "on_table":
        return None
    rules = rank_and_flank_of(state)
    weapons = rules.shooting_weapons(rank_and_file_sheet(state, unit))
    if not weapons:
        return None
    table = table_of(state)
    fp = table.units.get(unit.id)
    arms = [{"name": w.name, "range": w.range_in,
             "area": to_geojson(front_arc_reach(fp, w.range_in), 3) if fp is not None else None}
            for w in weapons]
    err = judge(lambda: _check_shooter(state, unit))
    if err is not None:
        return refused("shoot", err, weapons=arms, targets=[])
    targets: list[dict[str, Any]] = []
    for enemy in units_of(state).values():
        if enemy.owner == seat or enemy.status != "on_table":
            continue
        can: list[str] = []
        sight: Any = None
        why = judge(partial(_check_target, state, enemy))
        for w in weapons if why is None else ():
            try:
                _, _, sight = aim(state, unit, enemy, w.name)
            except RuleError as got:
                if why is None:
                    why = got
                if got.details.get("rule") != "Shooting: Range":
                    break  # not a question of this weapon's range: the others fare no better
                continue
            can.append(w.name)
        efp = table.units.get(enemy.id)
        gap = distance(fp, efp).distance if fp is not None and efp is not None else None
        targets.append({
            "unit": enemy.id,
            "available": bool(can),
            "reason": None if can or why is None else why.message,
            "weapons": can,
            "distance": None if gap is None else round(float(gap), 2),
            "seen": round(float(sight.fraction), 3) if sight is not None else None,
            "cover": sight.cover.label if sight is not None else None,
        })
    if not any(t["available"] for t in targets):
        return offer("shoot", False, "no enemy unit is in range and sight of "
                                     f"{display_name(state, unit.id)}",
                     weapons=arms, targets=targets)
    return offer("shoot", weapons=arms, targets=targets)


@register_action(
    "shoot",
    Shoot,
    systems=rank_and_flank_systems(),
    when=[When(BATTLE, ACTIVE, SHOOTING_PHASE)],
    doing="shooting",
)
def shoot(state: GameState, seat: int, action: Shoot, dice: DiceStream) -> list[Event]:
    """Shoot with a unit's weapon at an enemy unit in range and line of sight (module text)."""
    unit = unit_of(state, action.unit, seat)
    target = unit_of(state, action.target)
    if target.owner == seat:
        raise RuleError(ILLEGAL_MOVE, "shooting targets an enemy unit", rule="Shooting")
    _check_shooter(state, unit)
    _check_target(state, target)
    refuse_while_suspended(state, "Shooting")
    moved = turn_moves(state).get(unit.id, {})
    # A Panic flee it causes may wait part-way for a player (whfb8 Fanatics released at 8 in,
    # server/rules/resume.py): nothing follows the volley in this action, so it may.
    return volley(state, unit, target, action.weapon, dice, moved=bool(moved.get("moved")),
                  actor=seat, resumable=True)


def volley(
    state: GameState,
    unit: Unit,
    target: Unit,
    weapon_name: str | None,
    dice: Roller,
    *,
    moved: bool,
    actor: int,
    extra: Sequence[Modifier] = (),
    beyond_range: bool = False,
    resumable: bool = False,
) -> list[Event]:
    """`unit` shoots `weapon_name` (default its first weapon) at `target`: range, line of
    sight, modifiers (the system's and `extra`), then module text step 6. `shoot` calls it
    after its own checks; a charge reaction's Stand and Shoot calls it through
    `stand_and_shoot`."""
    rules = rank_and_flank_of(state)
    weapon, gap, sight = aim(state, unit, target, weapon_name, beyond_range=beyond_range)
    table = table_of(state)
    modifiers: list[Modifier] = rules.shooting_modifiers(
        moved=moved, distance=gap, weapon=weapon, cover=sight.cover
    )
    modifiers += list(extra)
    modifiers += rules.shooting_target_modifiers(sheets_of(state, target), target.model_count)

    log = Log(state, resumable=resumable)
    models = shooters(
        table.units[unit.id], unit, rules.ranks_that_shoot(rank_and_file_sheet(state, unit))
    )
    shots_value = times_models(weapon.shots, models)
    shots_roll = None
    if isinstance(shots_value, int):
        shots = shots_value
    else:
        shots_roll = dice.roll(shots_value)
        shots = shots_roll.total or 0
    strike = rules.shooting_strike(weapon, shots, f"{display_name(state, unit.id)} ({weapon.name})")
    text = (
        f"{display_name(state, unit.id)} shoot {weapon.name} at {display_name(state, target.id)} "
        f"({say_inches(gap)}"
        + (f", beyond its {weapon.range_in:g} in: Long Range" if gap > weapon.range_in else "")
        + f"): {plural(shots, 'shot')}"
    )
    log.add(
        Event(
            "shots_fired",
            {
                "unit": unit.id,
                "target": target.id,
                "weapon": weapon.name,
                "distance": round(gap, 3),
                "shots": shots,
                "cover": sight.cover.label,
                "modifiers": [{"rule": m.rule, "value": m.value} for m in modifiers],
                "roll": None if shots_roll is None else shots_roll.to_payload(),
                "text": text,
                "rules": [],
            },
            actor=actor,
        )
    )
    outcomes, losses = resolve_on_pools(
        state, target, strike, lambda ds: rules.guard(ds, parry=False, charged=False), dice,
        modifiers,
    )
    for outcome in outcomes:
        log.add(*step_events(outcome, unit, target))
    events, _ = losses_events(log.state, log.unit(target.id), losses, cause="shooting")
    log.add(*events)
    if log.unit(target.id).status == "destroyed":
        where = table.units[target.id]
        panic_tests(log, target.id, where, unit.id, dice, f"{display_name(state, target.id)} "
                                                          "destroyed")
    else:
        heavy_casualties(log, target.id, unit.id, dice)
    return log.events


def stand_and_shoot_refusal(
    state: GameState, unit_id: str, charger_id: str
) -> tuple[str, str] | None:
    """(rule, why) when the charged unit `unit_id` may not Stand and Shoot at `charger_id`,
    else None (module text "Stand and Shoot")."""
    err = judge(partial(_check_stand_and_shoot, state, unit_id, charger_id))
    if err is None:
        return None
    return str(err.details.get("rule") or "Stand and Shoot"), err.message


def _check_stand_and_shoot(state: GameState, unit_id: str, charger_id: str) -> None:
    """A Stand and Shoot: the charged unit can shoot (on the table, not fleeing, rank-and-file
    left, a shooting weapon), the system's own conditions (`stand_and_shoot_condition`), and
    its default weapon reaches the charger (unless `stand_and_shoot_beyond_range`) in its
    front arc and line of sight."""
    units = units_of(state)
    unit, charger = units[unit_id], units[charger_id]
    rules = rank_and_flank_of(state)
    if not active(unit) or unit.models == 0:
        raise RuleError(
            ILLEGAL_MOVE, f"{display_name(state, unit.id)} cannot shoot (not on the table, "
                          "fleeing or no "
            "rank-and-file left)", rule="Stand and Shoot",
        )
    if not rules.shooting_weapons(rank_and_file_sheet(state, unit)):
        raise RuleError(
            ILLEGAL_MOVE, f"{display_name(state, unit.id)} has no shooting weapon to Stand and "
                          "Shoot with",
            rule="Stand and Shoot",
        )
    table = table_of(state)
    gap = float(distance(table.units[unit.id], table.units[charger.id]).distance)
    why = rules.stand_and_shoot_condition(state, unit, charger, gap)
    if why is not None:
        raise RuleError(ILLEGAL_MOVE, why[1], rule=why[0])
    aim(state, unit, charger, None, beyond_range=rules.stand_and_shoot_beyond_range)


def stand_and_shoot(state: GameState, unit_id: str, charger_id: str, dice: Roller) -> list[Event]:
    """A charged unit's Stand and Shoot: its default weapon at the charger as the charge is
    declared, before the charge range is rolled (`stand_and_shoot_refusal` says when it may;
    the system's `stand_and_shoot_modifiers`, -1), by the charged unit's owner, with the
    shooting phase's Panic Tests (a charger that flees or dies does not charge). The Charge
    Reaction (server/rules/charge.py) calls it through the system's `RankedRules`; raises
    `RuleError` when it cannot shoot. A Panic flee it causes may wait part-way for a player
    (whfb8 Fanatics released at 8 in): its events then end suspended and `react` suspends the
    charge (or its abandonment) after it (server/rules/resume.py)."""
    _check_stand_and_shoot(state, unit_id, charger_id)
    units = units_of(state)
    unit, charger = units[unit_id], units[charger_id]
    rules = rank_and_flank_of(state)
    return volley(state, unit, charger, None, dice, moved=False, actor=unit.owner,
                  extra=rules.stand_and_shoot_modifiers(),
                  beyond_range=rules.stand_and_shoot_beyond_range, resumable=True)


@register_folder("shots_fired")
def _fold_shots_fired(state: GameState, event: Event) -> GameState:
    p = event.payload
    record = {**phase_moves(state).get(p["unit"], {}), "shot": p["target"]}
    return with_phase_move(state, p["unit"], record)
