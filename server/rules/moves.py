"""Rules-checked movement: advance, march, wheel, pivot, reform (ranked units) and individual
model moves with coherency (wh40k10). Every spatial judgement is the geometry core's.
"""

from __future__ import annotations

import dataclasses
import math
from functools import partial
from typing import Any, Literal

import numpy as np
import shapely
from pydantic import Field

from server import geometry as geo
from server.dice import DiceStream
from server.geometry import movement
from server.geometry.footprint import footprint, placement_for_centre
from server.geometry.formation import ModelPlacement
from server.geometry.table import Table
from server.rules.core import (
    ACTIVE,
    BAD_REQUEST,
    BATTLE,
    ILLEGAL_MOVE,
    OUT_OF_PHASE,
    ActionModel,
    Event,
    GameState,
    RuleError,
    When,
    fold_all,
    register_action,
    register_folder,
)
from server.rules.flee import sheets_of
from server.rules.markers import FLEEING
from server.rules.naming import display_name, possessive, say_inches
from server.rules.orders import judge, offer, refused, register_offer
from server.rules.systems import MOVEMENT_PHASE, RankedRules, has_model_moves, variant_of
from server.rules.units import (
    Coord,
    Facing,
    Finite,
    Unit,
    base_of,
    datasheet_of,
    illegal_move_error,
    phase_moves,
    record_turn_move,
    table_of,
    unit_from_json,
    unit_of,
    units_of,
    with_phase_move,
    with_unit,
)

# --- movement -----------------------------------------------------------------------------------


def allowance(state: GameState, unit: Unit, mode: str) -> float:
    """How far the unit may move in `mode` (advance / march), from its profile, as the system
    says (t9a Advance / March Rate, whfb8 M / 2M, 40k M)."""
    return variant_of(state.system).allowance(datasheet_of(state, unit), mode)


class MoveUnit(ActionModel):
    type: Literal["move_unit"]
    unit: str
    manoeuvre: Literal["forward", "backward", "sideways", "wheel", "pivot", "reform"]
    mode: Literal["advance", "march"] = "advance"
    distance: Finite = 0.0
    degrees: Finite = 0.0
    files: int | None = Field(default=None, ge=1, le=50)
    facing: Facing | None = None
    # Reform only, Light Troops (t9a): where the unit's centre ends (default: where it is).
    centre: tuple[Coord, Coord] | None = None


def _reform_to(
    table: Table, unit_id: str, files: int, facing: float, centre: tuple[float, float]
) -> movement.MoveResult:
    """A Reform that also moves the unit's centre (t9a Light Troops, seed 000): the models are
    set up again around `centre`; the distance is the farthest any model moves (matched rank
    by rank, left to right, as in a Reform in place); only the end position is checked."""
    start = table.units[unit_id]
    assert start.formation is not None
    formation = start.formation.with_files(files)
    end = footprint(formation, placement_for_centre(formation, centre, facing))
    placed = movement.place(table, unit_id, end)
    a, b = start.model_centres, end.model_centres
    n = min(len(a), len(b))
    moved = float(np.max(np.hypot(*(a[:n] - b[:n]).T))) if n else 0.0
    swept = shapely.union_all([start.boundary, end.boundary])
    return dataclasses.replace(placed, swept=swept, distance=moved)


def _require_reform_files(ranked: RankedRules, unit: Unit, files: int) -> None:
    """A Reform changes the number of files by at most the system's limit (t9a: 3)."""
    most = ranked.reform_files_change()
    before = unit.files or 1
    if most is not None and abs(files - before) > most:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{unit.name} has {before} files; a Reform changes that by at most {most}",
            rule="Reform",
            files=files,
        )


def _require_reform_centre(
    ranked: RankedRules, unit: Unit, light: bool, shift: float, mobility: float
) -> None:
    """The unit's centre may travel only as far as the system allows in a Reform (t9a: half
    Mobility; a unit entirely with Light Troops twice its Mobility, seed 000)."""
    most = ranked.reform_centre_limit(mobility, light)
    if most is None:
        if not light:
            raise RuleError(
                ILLEGAL_MOVE,
                f"{unit.name} reforms around its centre; only Light Troops move it",
                rule="Reform",
            )
        most = ranked.reform_allowance(mobility, light)
    if shift > most + 1e-9:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{possessive(unit.name)} centre would travel {say_inches(shift, most)}; "
            f"a Reform allows {most:g} in",
            # Light Troops: the centre's limit is the models' own (twice Mobility).
            rule="Move Distance" if light else "Reform",
            distance=round(shift, 3),
            allowance=most,
        )


def engaged_in_combat(state: GameState, unit: Unit) -> bool:
    """Is `unit` in base contact with an enemy it charged or that charged it (and still
    standing, not fleeing)?"""
    units = units_of(state)
    for a, b in state.charges.engaged.items():
        if unit.id in (a, b):
            enemy = units.get(b if a == unit.id else a)
            if enemy is not None and enemy.status == "on_table" and FLEEING not in enemy.markers:
                return True
    return False


def _ranked_mover(state: GameState, unit: Unit) -> RankedRules:
    """The checks on a ranked unit before any manoeuvre (the phase and owner checked)."""
    if unit.status != "on_table":
        raise RuleError(OUT_OF_PHASE, f"{display_name(state, unit.id)} is not on the table")
    ranked = variant_of(state.system).ranked
    if ranked is None:
        raise RuleError(BAD_REQUEST, "40k units move model by model: use move_models")
    if FLEEING in unit.markers:
        raise RuleError(
            ILLEGAL_MOVE, f"{display_name(state, unit.id)} is fleeing: it moves only when it flees",
                          rule="Fleeing"
        )
    if engaged_in_combat(state, unit):
        raise RuleError(
            ILLEGAL_MOVE, f"{display_name(state, unit.id)} is engaged in combat and cannot move",
            rule="Engaged in Combat",
        )
    done = phase_moves(state).get(unit.id, {})
    if done.get("arrived") or done.get("charged"):
        raise RuleError(
            ILLEGAL_MOVE, f"{display_name(state, unit.id)} cannot move again this phase",
                          rule="One Move per Phase"
        )
    if done.get("reformed"):
        raise RuleError(
            ILLEGAL_MOVE, f"{display_name(state, unit.id)} has reformed; that was its whole move",
                          rule="Reform"
        )
    return ranked


def _check_mode(state: GameState, unit: Unit, wanted: str) -> str:
    """The mode of this phase's move: a unit that began an Advance Move cannot march, and the
    other way round."""
    done = phase_moves(state).get(unit.id, {})
    mode = str(done.get("mode", wanted))
    if done and mode != wanted:
        raise RuleError(
            ILLEGAL_MOVE, f"{display_name(state, unit.id)} is already making a {mode} move",
                          rule="Move Manoeuvres"
        )
    ranked = variant_of(state.system).ranked
    if mode == "march" and ranked is not None:
        no_march = ranked.march_refusal(unit.name, sheets_of(state, unit), unit.markers)
        if no_march is not None:
            raise RuleError(ILLEGAL_MOVE, no_march[1], rule=no_march[0])
    return mode


def _check_manoeuvre(
    state: GameState, unit: Unit, ranked: RankedRules, mode: str, manoeuvre: str
) -> None:
    """The checks on one manoeuvre that need no geometry: a Reform is the whole move; a March
    allows only some manoeuvres."""
    if manoeuvre == "reform" and phase_moves(state).get(unit.id, {}).get("used"):
        raise RuleError(ILLEGAL_MOVE, "a Reform is the whole move", rule="Reform")
    if mode == "march" and manoeuvre in ranked.march_forbids:
        raise RuleError(
            ILLEGAL_MOVE, f"a March Move allows no {manoeuvre} manoeuvre", rule="March Move"
        )


MANOEUVRES: tuple[str, ...] = ("forward", "backward", "sideways", "wheel", "pivot", "reform")
MODES: tuple[str, ...] = ("advance", "march")


@register_offer("move_unit")
def _offer_move_unit(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """A ranked unit's move in its owner's Movement phase: per mode (Advance, March) the
    allowance in inches, what is used, and which manoeuvres are allowed (with why not)."""
    ranked = variant_of(state.system).ranked
    if ranked is None or unit.owner != seat or unit.status != "on_table":
        return None
    err = judge(lambda: _ranked_mover(state, unit))
    if err is not None:
        return refused("move_unit", err)
    done = phase_moves(state).get(unit.id, {})
    light = ranked.light_reform(sheets_of(state, unit))
    used = float(done.get("used", 0.0))
    modes: dict[str, Any] = {}
    for mode in MODES:
        limit = allowance(state, unit, mode)
        mode_err = judge(partial(_check_mode, state, unit, mode))
        manoeuvres: dict[str, Any] = {}
        for m in MANOEUVRES:
            m_err = mode_err or judge(partial(_check_manoeuvre, state, unit, ranked, mode, m))
            entry: dict[str, Any] = {"available": m_err is None,
                                     "reason": None if m_err is None else m_err.message}
            if m in ("backward", "sideways"):
                entry["cost"] = ranked.manoeuvre_cost(m)
            if m == "reform":
                entry["allowance"] = ranked.reform_allowance(limit, light)
            manoeuvres[m] = entry
        modes[mode] = {
            "available": mode_err is None,
            "reason": None if mode_err is None else mode_err.message,
            "allowance": limit,
            "used": round(used, 4) if mode_err is None else 0.0,
            "left": round(max(limit - used, 0.0), 4) if mode_err is None else 0.0,
            "manoeuvres": manoeuvres,
        }
    return offer(
        "move_unit",
        mode=done.get("mode"),
        modes=modes,
        # The ✥ handle: a unit entirely of Light Troops reforms around a new centre, up to
        # twice its Mobility (seed 000).
        reform_centre=light,
    )


def check_unit_move(
    state: GameState, seat: int, action: MoveUnit
) -> tuple[Unit, movement.MoveResult, dict[str, Any]]:
    """The geometry verdict on one manoeuvre of a ranked unit, with the allowance applied.

    Several manoeuvres make one Advance or March Move; their distances add up against the
    allowance. Backward and sideways moves cost double; a March allows only forward moves and
    wheels; a Reform is the whole move (Light Troops: up to twice the allowance). The stage,
    player and phase are `decide`'s to check (`MOVING`)."""
    unit = unit_of(state, action.unit, seat)
    ranked = _ranked_mover(state, unit)
    done = phase_moves(state).get(unit.id, {})
    mode = _check_mode(state, unit, action.mode)
    light = ranked.light_reform(sheets_of(state, unit))  # entirely (issue 17 item 1)
    limit = allowance(state, unit, mode)
    used = float(done.get("used", 0.0))
    table = table_of(state)
    cost = 1.0
    reform_march: float | None = None
    if action.manoeuvre != "reform" and action.centre is not None:
        raise RuleError(BAD_REQUEST, "`centre` belongs to a reform")
    # Units a move may run into (whfb8 Fanatics); the system says what then happens.
    passable = variant_of(state.system).passable(state, unit.id)
    if action.manoeuvre == "forward":
        result = movement.move_straight(table, unit.id, action.distance, ignore=passable)
    elif action.manoeuvre == "backward":
        result = movement.move_straight(table, unit.id, -abs(action.distance), ignore=passable)
        cost = ranked.manoeuvre_cost(action.manoeuvre)
    elif action.manoeuvre == "sideways":
        result = movement.move_straight(table, unit.id, 0.0, action.distance, ignore=passable)
        cost = ranked.manoeuvre_cost(action.manoeuvre)
    elif action.manoeuvre == "wheel":
        result = movement.wheel(table, unit.id, action.degrees, ignore=passable)
    elif action.manoeuvre == "pivot":
        result = movement.pivot(table, unit.id, action.degrees)
    else:
        _check_manoeuvre(state, unit, ranked, mode, "reform")
        start = table.units[unit.id]
        assert start.placement is not None
        files = action.files or unit.files or 1
        _require_reform_files(ranked, unit, files)
        facing = start.placement.facing if action.facing is None else action.facing
        if action.centre is not None:
            mobility = allowance(state, unit, "advance")
            centre = (float(action.centre[0]), float(action.centre[1]))
            shift = math.dist(centre, start.centre)
            _require_reform_centre(ranked, unit, light, shift, mobility)
            result = _reform_to(table, unit.id, files, facing, centre)
            if light and shift > mobility + 1e-9:
                reform_march = round(shift, 3)
        else:
            result = movement.reform(table, unit.id, files, facing)
        limit = ranked.reform_allowance(limit, light)
    _check_manoeuvre(state, unit, ranked, mode, action.manoeuvre)
    spent = used + result.distance * cost
    info: dict[str, Any] = {"used": round(spent, 4), "allowance": limit, "mode": mode}
    if reform_march is not None:
        # Seed 000, Light Troops: a Reform whose centre moves further than the unit's Mobility
        # is a March Move for march-triggered rules, yet still a Reform for shooting.
        info["counts_as_march"] = True
        info["rule"] = "Light Troops"
        info["text"] = (
            f"Light Troops: {possessive(display_name(state, unit.id))} centre moved "
            f"{say_inches(reform_march)}, "
            "more than its "
            f"Mobility {allowance(state, unit, 'advance'):g} in; this Reform counts as a March "
            "Move for rules triggered by marching, and the unit may still shoot"
        )
    if result.legal and spent > limit + 1e-9:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{display_name(state, unit.id)} would move {say_inches(spent, limit)} of its "
            f"{limit:g} in {mode} "
            "allowance",
            rule="Move Distance",
            obstacle=None,
            distance=round(spent, 3),
            allowance=limit,
            swept=geo.to_geojson(result.swept),
        )
    return unit, result, info


MOVING = [When(BATTLE, ACTIVE, MOVEMENT_PHASE)]
"""Every move: the active player, in the system's movement phase."""


@register_action("move_unit", MoveUnit, when=MOVING, doing="moving")
def move_unit(state: GameState, seat: int, action: MoveUnit, dice: DiceStream) -> list[Event]:
    """One manoeuvre of a ranked unit in the Movement phase, checked by the geometry core."""
    unit, result, info = check_unit_move(state, seat, action)
    if not result.legal:
        raise illegal_move_error(
            state, result, f"{display_name(state, unit.id)} cannot {action.manoeuvre} there"
        )
    after: list[Event] = []
    stop = _move_stop(state, unit.id, action)
    if stop is not None:
        # A rule stops the move part-way (whfb8 Fanatics, seed 003): the unit moves to the
        # stopping point; its player may carry on with the rest of the allowance later.
        fraction, after = stop
        action = action.model_copy(
            update={"distance": action.distance * fraction, "degrees": action.degrees * fraction}
        )
        unit, result, info = check_unit_move(state, seat, action)
        info["stopped"] = True
    end = result.footprint
    assert end.placement is not None
    moved = dataclasses.replace(
        unit,
        placement=(
            round(end.placement.x, 4),
            round(end.placement.y, 4),
            round(end.placement.facing % 360.0, 4),
        ),
        files=end.formation.files if end.formation is not None else unit.files,
    )
    done = Event(
        "unit_moved",
        {
            "unit": moved.to_json(),
            "manoeuvre": action.manoeuvre,
            "distance": round(result.distance, 4),
            "swept": geo.to_geojson(result.swept),
            "reformed": action.manoeuvre == "reform",
            **info,
        },
        actor=seat,
    )
    contacts = variant_of(state.system).move_contacts(
        fold_all(state, [done]), unit.id, result.swept, dice
    )
    return [done, *contacts, *after]


def _move_stop(
    state: GameState, unit_id: str, action: MoveUnit
) -> tuple[float, list[Event]] | None:
    """Ask the system whether a rule stops this straight move or wheel part-way."""
    if action.manoeuvre not in ("forward", "backward", "sideways", "wheel"):
        return None
    start = table_of(state).units[unit_id]
    placement, formation = start.placement, start.formation
    assert placement is not None and formation is not None
    forward = {"forward": action.distance, "backward": -abs(action.distance)}.get(
        action.manoeuvre, 0.0
    )
    sideways = action.distance if action.manoeuvre == "sideways" else 0.0

    def path(t: float) -> geo.Footprint:
        if action.manoeuvre == "wheel":
            return footprint(formation, movement.wheel_placement(start, action.degrees * t)[0])
        return footprint(formation, placement.moved(forward * t, sideways * t))

    return variant_of(state.system).move_stop(state, unit_id, path)


class Advance(ActionModel):
    type: Literal["advance"]
    unit: str


def _check_advance(state: GameState, unit: Unit) -> None:
    if unit.status != "on_table":
        raise RuleError(OUT_OF_PHASE, f"{display_name(state, unit.id)} is not on the table")
    done = phase_moves(state).get(unit.id)
    if done:
        what = "has already rolled to Advance" if "advanced" in done else "has already moved"
        raise RuleError(
            ILLEGAL_MOVE, f"{display_name(state, unit.id)} {what} this phase", rule="One Move per "
                                                                                    "Phase"
        )
    refusal = variant_of(state.system).advance_refusal(state, unit.id)
    if refusal is not None:
        raise RuleError(ILLEGAL_MOVE, refusal[1], rule=refusal[0])


def _model_mover(state: GameState, seat: int, unit: Unit) -> bool:
    """Is `unit` seat's own unit on the table (model moves; the phase is the window's)?"""
    return unit.owner == seat and unit.status == "on_table"


@register_offer("advance")
def _offer_advance(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """40k Advance: roll the D6 before moving; Move in inches (the die is added)."""
    if not _model_mover(state, seat, unit):
        return None
    if "advanced" in phase_moves(state).get(unit.id, {}):
        return None  # given: its die now counts in the move's allowance (`move_models`)
    err = judge(lambda: _check_advance(state, unit))
    move = allowance(state, unit, "advance")
    return offer("advance", move=move) if err is None else refused("advance", err, move=move)


@register_action("advance", Advance, systems=has_model_moves, when=MOVING, doing="moving")
def advance(state: GameState, seat: int, action: Advance, dice: DiceStream) -> list[Event]:
    """40k: declare that a unit Advances this Movement phase. The D6 is rolled and committed
    here (`advance_rolled`), before the unit moves: its `move_models` is then judged against
    Move + that die. A roll is an event; a refused action never rolls, so no die is seen before
    it counts (issue 12)."""
    unit = unit_of(state, action.unit, seat)
    _check_advance(state, unit)
    move = allowance(state, unit, "advance")
    roll = dice.roll("D6")
    die = roll.total or 0
    return [
        Event(
            "advance_rolled",
            {
                "unit": unit.id,
                "roll": roll.to_payload(),
                "move": move,
                "allowance": move + die,
                "text": f"{display_name(state, unit.id)} Advance: Move {move:g} in + {die} = "
                        f"{move + die:g} in",
            },
            actor=seat,
        )
    ]


class MoveModels(ActionModel):
    type: Literal["move_models"]
    unit: str
    positions: list[tuple[Coord, Coord]] = Field(min_length=1, max_length=200)
    # True: this move is the unit's Advance, which must already be rolled (`advance`).
    advance: bool = False


def _check_model_move(state: GameState, unit: Unit) -> None:
    if unit.status != "on_table":
        raise RuleError(OUT_OF_PHASE, f"{display_name(state, unit.id)} is not on the table")
    done = phase_moves(state).get(unit.id, {})
    if done and ("advanced" not in done or "used" in done):
        raise RuleError(
            ILLEGAL_MOVE, f"{display_name(state, unit.id)} has already moved this phase",
                          rule="One Move per Phase"
        )


@register_offer("move_models")
def _offer_move_models(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """A model-by-model move (40k): the allowance in inches (Move, or Move + the Advance
    die once rolled) and whether this move is the Advance (`advance` in the payload)."""
    if not _model_mover(state, seat, unit):
        return None
    err = judge(lambda: _check_model_move(state, unit))
    if err is not None:
        return refused("move_models", err)
    done = phase_moves(state).get(unit.id, {})
    advanced = "advanced" in done
    limit = float(done["allowance"]) if advanced else allowance(state, unit, "advance")
    return offer("move_models", allowance=limit, advance=advanced)


@register_action(
    "move_models", MoveModels, systems=has_model_moves, when=MOVING, doing="moving"
)
def move_models(state: GameState, seat: int, action: MoveModels, dice: DiceStream) -> list[Event]:
    """40k: move each model up to its Move (or, after an `advance`, Move + the committed
    Advance roll), ending in coherency and out of Engagement Range of enemies. Rolls nothing."""
    unit = unit_of(state, action.unit, seat)
    _check_model_move(state, unit)
    done = phase_moves(state).get(unit.id, {})
    advanced = "advanced" in done
    if action.advance and not advanced:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{display_name(state, unit.id)} has not rolled to Advance: send an `advance` action "
            "first, then move "
            "against Move + the die it rolls",
            rule="Advance",
        )
    if len(action.positions) != len(unit.positions):
        raise RuleError(
            BAD_REQUEST,
            f"{display_name(state, unit.id)} has {len(unit.positions)} models; give one position "
            "for each",
            field="positions",
        )
    sheet = datasheet_of(state, unit)
    base = base_of(sheet)
    limit = float(done["allowance"]) if advanced else allowance(state, unit, "advance")
    result = movement.move_models(
        table_of(state),
        unit.id,
        [ModelPlacement(x, y, base) for x, y in unit.positions],
        [ModelPlacement(x, y, base) for x, y in action.positions],
        max_distance=limit,
        ignore=[u.id for u in units_of(state).values() if u.owner == seat],
    )
    if not result.legal:
        raise illegal_move_error(
            state,
            result,
            f"{display_name(state, unit.id)} cannot move there",
            unit,
            allowance=limit,
            incoherent=list(result.incoherent),
        )
    moved = dataclasses.replace(
        unit, positions=tuple((round(x, 4), round(y, 4)) for x, y in action.positions)
    )
    return [
        Event(
            "unit_moved",
            {
                "unit": moved.to_json(),
                "manoeuvre": "models",
                "distance": round(result.distance, 4),
                "swept": geo.to_geojson(result.swept),
                "used": round(result.distance, 4),
                "allowance": limit,
                "mode": "advance" if advanced else "normal",
            },
            actor=seat,
        )
    ]


@register_folder("advance_rolled")
def _fold_advance_rolled(state: GameState, event: Event) -> GameState:
    """The unit has Advanced this phase: its move is judged against `allowance`; it counts
    as having moved (no second move, no charge this phase)."""
    p = event.payload
    record = {"advanced": p["allowance"] - p["move"], "allowance": p["allowance"],
              "mode": "advance"}
    state = record_turn_move(state, p["unit"], moved=True, advanced=True)
    return with_phase_move(state, p["unit"], record)


@register_folder("unit_moved")
def _fold_unit_moved(state: GameState, event: Event) -> GameState:
    p = event.payload
    unit = unit_from_json(p["unit"])
    record = {
        "used": p.get("used", p.get("distance", 0.0)),
        "mode": p.get("mode", "advance"),
        "reformed": bool(p.get("reformed")),
    }
    if p.get("counts_as_march"):
        record["counts_as_march"] = True
    if p.get("stopped"):
        # A rule stopped the move part-way (whfb8 Fanatics): moves that are the unit's whole
        # move for the phase (Skirmishers) may still carry on.
        record["stopped"] = True
    before = phase_moves(state).get(unit.id, {})
    if "advanced" in before:  # 40k: the Advance roll stays part of this phase's move
        record = {**before, **record}
    state = with_unit(state, unit)
    state = record_turn_move(
        state,
        unit.id,
        moved=True,
        marched=record["mode"] == "march",
        march_rules=record["mode"] == "march" or "counts_as_march" in record,
    )
    return with_phase_move(state, unit.id, record)
