"""Warhammer 40,000 10th edition: Reserves, Deep Strike and Strategic Reserves (issue 16 item 2).

Sources: FACTS.md (wh40k10, Deep Strike: set up in the Reinforcements step of your Movement
phase, from battle round 2, more than 9 in horizontally from every enemy model) and the
10th-edition core rules, recorded in docs/rules-decisions.md ("Reserves"):

* **Deep Strike**: a unit every model of which has it may be set up in Reserves at deployment
  (the shared `declare_reserve`, `Variant.reserve_rules`); it arrives anywhere on the
  battlefield more than 9 in horizontally from every enemy model.
* **Strategic Reserves**: any unit, at deployment (`declare_strategic_reserves`), while the
  units in Strategic Reserves cost at most 25% of the army's points; it arrives wholly within
  6 in of a battlefield edge, more than 9 in from every enemy model, and not in the enemy's
  deployment zone in battle round 2.
* **Arrival** (`arrive_from_reserves`): in your Movement phase (its Reinforcements step:
  Decision, any time in the phase), not in battle round 1; the unit set down model by model
  (or around a point, as deployment does), in Unit Coherency, on no terrain or unit. It counts
  as having made a Normal Move: it moves no further that phase and did not Remain Stationary;
  it may still shoot and charge.
* **Never arrived**: a unit still in Reserves when the battle ends is destroyed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Literal

import shapely
from pydantic import Field

from server.dice import DiceStream
from server.geometry import movement
from server.geometry.footprint import coherency, overlapping_models
from server.geometry.kinds import Rule
from server.geometry.measure import within
from server.rules.battle import BATTLE, on_game_end, other
from server.rules.core import (
    ACTIVE,
    BAD_REQUEST,
    ILLEGAL_MOVE,
    ActionModel,
    Event,
    GameState,
    Phases,
    RuleError,
    When,
    fold_all,
    register_action,
    register_folder,
)
from server.rules.naming import display_name
from server.rules.orders import judge, offer, refused, register_offer
from server.rules.setup import DEPLOYING, after_deploying_unit, deployed_unit, undeployed
from server.rules.units import (
    Coord,
    Unit,
    coherency_faults,
    datasheet_of,
    deployment_zone,
    footprint_of,
    record_turn_move,
    table_of,
    unit_from_json,
    unit_of,
    units_of,
    with_phase_move,
    with_unit,
)
from server.rules.wh40k10.army import SYSTEM_ID, forty, set_forty, sheets
from server.rules.wh40k10.engage import placements

DEEP_STRIKE = "Deep Strike"
STRATEGIC_RESERVES = "Strategic Reserves"
IN_RESERVES = ("reserve", "ambush")
"""The statuses of a unit kept off the table (the shared `declare_reserve` may give either)."""
ENEMY_GAP_IN = 9.0
EDGE_BAND_IN = 6.0
STRATEGIC_SHARE = 0.25
FIRST_ARRIVAL_ROUND = 2


def reserve_rule(state: GameState, unit: Unit) -> str:
    """Deep Strike or Strategic Reserves: how `unit` (in Reserves) arrives."""
    kinds: Mapping[str, str] = forty(state).reserves
    return kinds.get(unit.id, DEEP_STRIKE)


def unit_points(state: GameState, unit: Unit) -> int:
    """The unit's points: its datasheet's tier for its models, and each Leader's."""
    own = sheets(unit)
    total = own[0].points.cost(unit.models) if own[0].points else 0
    return total + sum(s.points.cost(1) for s in own[1:] if s.points)


def _strategic_check(state: GameState, seat: int, unit: Unit) -> None:
    mine = [u for u in units_of(state).values() if u.owner == seat]
    army = sum(unit_points(state, u) for u in mine)
    kinds: Mapping[str, str] = forty(state).reserves
    already = sum(unit_points(state, u) for u in mine if kinds.get(u.id) == STRATEGIC_RESERVES)
    cost = unit_points(state, unit)
    if already + cost > STRATEGIC_SHARE * army:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{display_name(state, unit.id)} costs {cost} points; Strategic Reserves may hold "
            f"at most a quarter of the army's {army} points ({already} already there)",
            rule=STRATEGIC_RESERVES,
        )


class DeclareStrategicReserves(ActionModel):
    type: Literal["declare_strategic_reserves"]
    unit: str = Field(min_length=1, max_length=40)


@register_offer("declare_strategic_reserves")
def _offer_strategic(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """Strategic Reserves: the deploying player's undeployed units, within the 25%."""
    if unit.owner != seat or state.system != SYSTEM_ID or judge(
        lambda: undeployed(state, seat, unit.id)
    ):
        return None
    err = judge(lambda: _strategic_check(state, seat, unit))
    if err is not None:
        return refused("declare_strategic_reserves", err)
    return offer("declare_strategic_reserves", rule=STRATEGIC_RESERVES)


@register_action(
    "declare_strategic_reserves",
    DeclareStrategicReserves,
    systems=[SYSTEM_ID],
    when=DEPLOYING,
    doing="placing a unit in Strategic Reserves",
)
def declare_strategic_reserves(
    state: GameState, seat: int, action: DeclareStrategicReserves, dice: DiceStream
) -> list[Event]:
    """Keep any unit off the table in Strategic Reserves (at most 25% of the army's points)."""
    unit = undeployed(state, seat, action.unit)
    _strategic_check(state, seat, unit)
    kept = dataclasses.replace(unit, status="reserve")
    events = [
        Event("reserves_declared", {"unit": unit.id, "rule": STRATEGIC_RESERVES}, actor=seat),
        Event(
            "unit_deployed",
            {
                "unit": kept.to_json(),
                "rule": STRATEGIC_RESERVES,
                "text": f"{display_name(state, unit.id)} stays off the table, in Strategic "
                f"Reserves "
                f"({unit_points(state, unit)} points)",
            },
            actor=seat,
        ),
    ]
    return events + after_deploying_unit(fold_all(state, events), seat, unit.id, dice)


@register_folder("reserves_declared")
def _fold_declared(state: GameState, event: Event) -> GameState:
    kinds = dict(forty(state).reserves)
    kinds[str(event.payload["unit"])] = str(event.payload["rule"])
    return set_forty(state, reserves=kinds)


# --- arriving -----------------------------------------------------------------------------------


class ArriveFromReserves(ActionModel):
    type: Literal["arrive_from_reserves"]
    unit: str = Field(min_length=1, max_length=40)
    positions: list[tuple[Coord, Coord]] | None = Field(default=None, min_length=1,
                                                        max_length=200)
    x: Coord | None = None
    y: Coord | None = None


def _refuse(rule: str, message: str, **details: Any) -> RuleError:
    return RuleError(ILLEGAL_MOVE, message, rule=rule, **details)


def _in_reserves(state: GameState, seat: int, unit_id: str) -> Unit:
    unit = unit_of(state, unit_id, seat)
    if unit.status not in IN_RESERVES:
        raise _refuse("Reserves", f"{display_name(state, unit.id)} is not in Reserves")
    turn = (state.battle.turn or 1)
    if turn < FIRST_ARRIVAL_ROUND:
        raise _refuse("Reserves",
                      f"{display_name(state, unit.id)} cannot arrive in the first battle round")
    return unit


def arrival_problem(state: GameState, seat: int, placed: Unit) -> RuleError | None:
    """Why `placed` (the unit as it would stand) may not arrive there, or None."""
    name = display_name(state, placed.id)
    rule = reserve_rule(state, placed)
    fp = footprint_of(state, placed)
    assert fp is not None
    table = table_of(state)
    result = movement.place(table, placed.id, fp)
    if not result.legal:
        where = "" if result.obstacle is None else f" ({display_name(state, result.obstacle)})"
        return _refuse(str(result.rule), f"{name} cannot arrive there: {result.rule}{where}",
                       obstacle=result.obstacle)
    if overlapping_models(fp):
        return _refuse(str(Rule.MODEL_OVERLAP), f"{name} cannot arrive there: Model Overlap")
    broken = coherency(placements(state, placed, placed.positions))
    if broken:
        words, named = coherency_faults(state, placed, broken, len(placed.positions))
        return _refuse(str(Rule.UNIT_COHERENCY),
                       f"{name} cannot arrive there: Unit Coherency: {words}",
                       incoherent=list(broken), incoherent_models=named)
    for enemy in units_of(state).values():
        if enemy.owner == seat or enemy.id not in table.units:
            continue
        if within(fp, table.units[enemy.id], ENEMY_GAP_IN):
            return _refuse(
                rule,
                f"{name} must arrive more than {ENEMY_GAP_IN:g} in from every enemy model; "
                f"{display_name(state, enemy.id)} is closer",
                obstacle=enemy.id,
            )
    if rule == STRATEGIC_RESERVES:
        w, d = state.battlefield.width, state.battlefield.depth
        band = shapely.box(0, 0, w, d).difference(
            shapely.box(EDGE_BAND_IN, EDGE_BAND_IN, w - EDGE_BAND_IN, d - EDGE_BAND_IN)
        )
        if not band.buffer(1e-6).covers(fp.boundary):
            return _refuse(rule, f"{name} must arrive wholly within {EDGE_BAND_IN:g} in of a "
                           "battlefield edge")
        zone = deployment_zone(state, other(seat))
        if (state.battle.turn or 1) == FIRST_ARRIVAL_ROUND and (
            shapely.area(shapely.intersection(zone, fp.boundary)) > 1e-9
        ):
            return _refuse(rule, f"{name} cannot arrive in the enemy's deployment zone in "
                           f"battle round {FIRST_ARRIVAL_ROUND}")
    return None


@register_offer("arrive_from_reserves")
def _offer_arrival(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """Arrive…: the active player's units in Reserves, with how they arrive."""
    if unit.owner != seat or unit.status not in IN_RESERVES or state.system != SYSTEM_ID:
        return None
    err = judge(lambda: _in_reserves(state, seat, unit.id))
    rule = reserve_rule(state, unit)
    where = (
        f"wholly within {EDGE_BAND_IN:g} in of a battlefield edge, more than "
        f"{ENEMY_GAP_IN:g} in from every enemy model"
        if rule == STRATEGIC_RESERVES
        else f"anywhere more than {ENEMY_GAP_IN:g} in from every enemy model"
    )
    if err is not None:
        # `rule` names how the unit arrives (not the refusing rule, which the reason words)
        return offer("arrive_from_reserves", False, err.message, rule=rule, where=where,
                     enemy_gap_in=ENEMY_GAP_IN, edge_band_in=EDGE_BAND_IN)
    return offer("arrive_from_reserves", rule=rule, where=where,
                 enemy_gap_in=ENEMY_GAP_IN, edge_band_in=EDGE_BAND_IN)


@register_action(
    "arrive_from_reserves",
    ArriveFromReserves,
    systems=[SYSTEM_ID],
    when=[When(BATTLE, ACTIVE, Phases.named("Movement"))],
    doing="setting up a unit from Reserves",
)
def arrive_from_reserves(
    state: GameState, seat: int, action: ArriveFromReserves, dice: DiceStream
) -> list[Event]:
    """Set a unit in Reserves down (its models' positions, or around the point x, y)."""
    unit = _in_reserves(state, seat, action.unit)
    if action.positions is not None:
        if len(action.positions) != unit.model_count:
            name = display_name(state, unit.id)
            raise RuleError(BAD_REQUEST, f"{name} has {unit.model_count} models; give one "
                            "position for each", field="positions")
        placed = dataclasses.replace(unit, status="on_table", positions=tuple(
            (round(float(x), 4), round(float(y), 4)) for x, y in action.positions))
    elif action.x is not None and action.y is not None:
        placed = deployed_unit(state, seat, unit, action.x, action.y, None, None)
    else:
        raise RuleError(BAD_REQUEST, "give the models' positions or a point (x, y)",
                        field="positions")
    problem = arrival_problem(state, seat, placed)
    if problem is not None:
        raise problem
    rule = reserve_rule(state, unit)
    sheet = datasheet_of(state, unit)
    printed = sheet.rule_printed(rule)
    return [
        Event(
            "reserves_arrived",
            {
                "unit": placed.to_json(),
                "rule": rule,
                "text": f"{display_name(state, unit.id)} arrive from Reserves ({printed}), "
                f"more than "
                f"{ENEMY_GAP_IN:g} in from every enemy model",
            },
            actor=seat,
        )
    ]


@register_folder("reserves_arrived")
def _fold_arrived(state: GameState, event: Event) -> GameState:
    unit = unit_from_json(event.payload["unit"])
    state = with_unit(state, unit)
    state = record_turn_move(state, unit.id, moved=True)
    return with_phase_move(state, unit.id, {"arrived": True})


@on_game_end(SYSTEM_ID)
def never_arrived(state: GameState, dice: DiceStream) -> list[Event]:
    """Units still in Reserves at the end of the battle are destroyed."""
    return [
        Event("reserves_destroyed", {
            "unit": u.id,
            "text": f"{display_name(state, u.id)} never arrived from Reserves: destroyed",
        })
        for u in units_of(state).values()
        if u.status in IN_RESERVES
    ]


@register_folder("reserves_destroyed")
def _fold_destroyed(state: GameState, event: Event) -> GameState:
    unit = units_of(state)[str(event.payload["unit"])]
    return with_unit(state, dataclasses.replace(unit, status="destroyed"))
