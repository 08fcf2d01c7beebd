"""Warhammer 40,000 10th edition: the Command phase, the Waaagh!, Roar of Mork, objectives,
victory points and the result (issue 16; FACTS.md, the core loop and its objective Decision).

* **Command step** (the start of each Command phase, `on_phase_start`): both players gain 1 CP;
  the Starting Strength of every unit on the table not yet recorded is recorded;
  the active player's Battle-shock ends, so do the Roar of Mork effects on their units and
  their army's Waaagh! ("until the start of your next Command phase", seed 004).
* **Waaagh!** (`call_waaagh`, seed 004): once per battle, at the start of your Command phase,
  by an army with a unit with the ability. "At the start" is enforced: after the Command step
  (CP) that begins the phase, before any other action of that phase by either player (a Roar
  of Mork, a Stratagem); once anything else was done, the offer says why it is too late
  (`_fold_command_start` records it; notes, proposals and their answers do not count).
* **Roar of Mork** (`roar_of_mork`, FACTS.md, Wurrboy): in the opponent's Command phase, before
  they end it, once per phase: a visible enemy unit within 18 in of the Wurrboy; on a 2+ it
  subtracts 2 from its Battle-shock tests until the start of the opponent's next Command
  phase; on a 1 the Wurrboy's unit suffers D3 mortal wounds.
* **Battle-shock step** (when the active player ends the Command phase, `on_phase_end`): each of
  their units Below Half-strength tests, 2D6 >= its best Ld; a failed unit is Battle-shocked
  (OC 0) until their next Command phase.
* **Objectives** (FACTS.md Decision): five markers, the centre and one in each table quarter
  12 in from the short edges (x 12 and width - 12, y a quarter and three quarters of the
  depth); a player controls one when the total OC of their models within 3 in of it (measured
  to the marker's 40 mm disc) is greater than the opponent's. From battle round 2 the active
  player scores 5 VP per marker they control (at most 15) at the end of their Command phase;
  in battle round 5 the player going second scores at the end of their turn instead.
* **Result** (results.py, the shared `game_result`): at the end of the last battle round the
  player with more VP wins (equal: a draw, no winner); `concede` ends the game at once with the
  opponent the winner.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Literal

import shapely
from pydantic import Field

from server.dice import DiceStream
from server.geometry.los import line_of_sight
from server.geometry.measure import within
from server.rules.battle import (
    BATTLE,
    DEPLOYMENT,
    OVER,
    on_phase_end,
    on_phase_start,
    require_phase,
    require_stage,
    stage,
)
from server.rules.core import (
    ACTIVE,
    BATCH_KEY,
    BOOKKEEPING_EVENTS,
    EITHER,
    ILLEGAL_MOVE,
    OUT_OF_PHASE,
    ActionModel,
    Event,
    GameState,
    Phases,
    RuleError,
    When,
    fold_all,
    register_action,
    register_folder,
    register_folder_hook,
    register_projector,
)
from server.rules.naming import display_name
from server.rules.orders import (
    Offer,
    in_window,
    judge,
    offer,
    refused,
    register_game_offer,
    register_offer,
    throwaway_dice,
)
from server.rules.state import changed
from server.rules.units import Unit, table_of, unit_of, units_of
from server.rules.wh40k10.army import (
    SYSTEM_ID,
    demise_map,
    engaged_with,
    forty,
    has_waaagh,
    is_forty,
    model_polygons,
    models_of,
    set_forty,
    sheets,
    starting_strength,
    target_unit,
)
from server.rules.wh40k10.combat import charged_this_turn, charges_of_phase, fight_chooser
from server.rules.wh40k10.damage_events import resolve_and_chain
from server.rules.wh40k10.wurrboy import (
    ROAR_OF_MORK_MODIFIER,
    ROAR_OF_MORK_RANGE_IN,
    roar_of_mork,
)

CP_PER_COMMAND_PHASE = 1
OBJECTIVE_RANGE_IN = 3.0
MARKER_RADIUS_IN = 20.0 / 25.4
"""Objective markers are 40 mm discs; ranges are measured to the disc."""
OBJECTIVE_EDGE_IN = 12.0
VP_PER_MARKER = 5
VP_MAX_PER_TURN = 15
SCORING_FROM_ROUND = 2
ROAR_OF_MORK = "Roar of Mork"


def _seats(values: Any) -> dict[str, int]:
    base = {"1": 0, "2": 0}
    if isinstance(values, dict):
        base.update({str(k): int(v) for k, v in values.items()})
    return base


def cp(state: GameState) -> dict[str, int]:
    return _seats(forty(state).cp)


def vp(state: GameState) -> dict[str, int]:
    return _seats(forty(state).vp)


def battle_shocked(state: GameState) -> list[str]:
    return list(forty(state).battle_shocked)


# --- objectives --------------------------------------------------------------------------------


def objectives(state: GameState) -> list[dict[str, Any]]:
    """The five markers of FACTS.md's Decision, placed on this game's table."""
    w, d = state.battlefield.width, state.battlefield.depth
    spots = [
        (w / 2, d / 2),
        (OBJECTIVE_EDGE_IN, d / 4),
        (w - OBJECTIVE_EDGE_IN, d / 4),
        (OBJECTIVE_EDGE_IN, 3 * d / 4),
        (w - OBJECTIVE_EDGE_IN, 3 * d / 4),
    ]
    return [{"id": f"obj{i + 1}", "x": x, "y": y} for i, (x, y) in enumerate(spots)]


def model_oc(state: GameState, unit: Unit) -> list[int]:
    shocked = unit.id in battle_shocked(state)
    return [0 if shocked else int(m.stats.OC) for m in models_of(state, unit)]


def control(state: GameState) -> list[dict[str, Any]]:
    """Each marker with the OC of each player's models within 3 in and its controller."""
    out = []
    units = [u for u in units_of(state).values() if u.status == "on_table" and u.positions]
    geometry = {u.id: (model_polygons(state, u), model_oc(state, u)) for u in units}
    for marker in objectives(state):
        disc = shapely.Point(marker["x"], marker["y"]).buffer(MARKER_RADIUS_IN)
        oc = {"1": 0, "2": 0}
        for u in units:
            polys, values = geometry[u.id]
            for poly, value in zip(polys, values, strict=False):
                if within(poly, disc, OBJECTIVE_RANGE_IN):
                    oc[str(u.owner)] += value
        controller = None
        if oc["1"] > oc["2"]:
            controller = 1
        elif oc["2"] > oc["1"]:
            controller = 2
        out.append({**marker, "oc": oc, "controller": controller})
    return out


def scoring_event(state: GameState, seat: int, when: str) -> Event:
    held = [m for m in control(state) if m["controller"] == seat]
    points = min(VP_MAX_PER_TURN, VP_PER_MARKER * len(held))
    total = vp(state)[str(seat)] + points
    return Event(
        "objectives_scored",
        {
            "seat": seat,
            "markers": [m["id"] for m in held],
            "vp": points,
            "total": total,
            "when": when,
            "turn": state.battle.turn,
            "text": f"Player {seat} controls {len(held)} objective markers: {points} VP "
            f"({when}), {total} in all",
        },
    )


# --- the Command phase -------------------------------------------------------------------------


@on_phase_start(SYSTEM_ID, "Command")
def command_step(state: GameState, dice: DiceStream) -> list[Event]:
    active = state.battle.active_seat
    mine = [u.id for u in units_of(state).values() if u.owner == active]
    data = forty(state)
    known = data.start
    return [
        Event(
            "command_phase_started",
            {
                "seat": active,
                "starting_strength": {
                    u.id: len(u.positions)
                    for u in units_of(state).values()
                    if u.id not in known and u.positions
                },
                "cp_gained": {"1": CP_PER_COMMAND_PHASE, "2": CP_PER_COMMAND_PHASE},
                "battle_shock_ended": [u for u in battle_shocked(state) if u in mine],
                "roar_ended": [u for u in data.roared if u in mine],
                "waaagh_ended": active in data.waaagh_active,
                "text": f"Player {active}'s Command phase: both players gain "
                f"{CP_PER_COMMAND_PHASE} CP",
            },
        )
    ]


@register_folder("command_phase_started")
def _fold_command(state: GameState, event: Event) -> GameState:
    p = event.payload
    data = forty(state)
    points = cp(state)
    for seat, n in p["cp_gained"].items():
        points[seat] += int(n)
    seat = int(p["seat"])
    return set_forty(
        state,
        start={**data.start, **p.get("starting_strength", {})},
        cp=points,
        battle_shocked=[u for u in battle_shocked(state) if u not in p["battle_shock_ended"]],
        roared=[u for u in data.roared if u not in p["roar_ended"]],
        waaagh_active=[s for s in data.waaagh_active if s != seat],
    )


def below_half(state: GameState, unit: Unit) -> bool:
    """Below Half-strength (FACTS.md): fewer than half its Starting Strength models; a unit of
    one model: fewer than half its wounds left."""
    models = models_of(state, unit)
    start = starting_strength(state, unit)
    if start == 1 and len(models) == 1:
        return models[0].left * 2 < models[0].wounds
    return len(models) * 2 < start


def insane_bravery_event(state: GameState, unit: Unit) -> Event | None:
    from server.rules.wh40k10.stratagems import insane_bravery_test

    return insane_bravery_test(state, unit)


@on_phase_end(SYSTEM_ID, "Command")
def battle_shock_step(state: GameState, dice: DiceStream) -> list[Event]:
    """The Battle-shock step, then (from round 2) the active player's objective VP."""
    active = state.battle.active_seat
    out: list[Event] = []
    for unit in units_of(state).values():
        if unit.owner != active or unit.status != "on_table" or not unit.positions:
            continue
        if not below_half(state, unit):
            continue
        best = min(int(m.stats.Ld) for m in models_of(state, unit))
        brave = insane_bravery_event(state, unit)  # stratagems.py: passed without a roll
        if brave is not None:
            out.append(brave)
            continue
        roared = unit.id in forty(state).roared
        needed = best - (ROAR_OF_MORK_MODIFIER if roared else 0)
        roll = dice.roll("2D6")
        total = roll.total or 0
        passed = total >= needed
        out.append(
            Event(
                "battle_shock_test",
                {
                    "unit": unit.id,
                    "roll": roll.to_payload(),
                    "needed": needed,
                    "leadership": best,
                    "roar_of_mork": roared,
                    "passed": passed,
                    "text": f"{display_name(state, unit.id)} Battle-shock test: rolled {total}, "
                            f"needing {needed}"
                    + (f" (Ld {best}+, Roar of Mork -2)" if roared else f" (Ld {best}+)")
                    + (": passed" if passed else ": Battle-shocked (OC 0)"),
                },
            )
        )
    state = fold_all(state, out)
    turn = (state.battle.turn or 1)
    first = state.battle.first_player
    last_round = turn == 5 and active != first
    if turn >= SCORING_FROM_ROUND and not last_round:
        out.append(scoring_event(state, active, "end of the Command phase"))
    return out


@register_folder("battle_shock_test")
def _fold_battle_shock(state: GameState, event: Event) -> GameState:
    p = event.payload
    shocked = [u for u in battle_shocked(state) if u != p["unit"]]
    if not p["passed"]:
        shocked.append(p["unit"])
    return set_forty(state, battle_shocked=shocked)


@register_folder("objectives_scored")
def _fold_scored(state: GameState, event: Event) -> GameState:
    p = event.payload
    points = vp(state)
    points[str(p["seat"])] = int(p["total"])
    record = {"seat": int(p["seat"]), "vp": int(p["vp"]), "turn": p.get("turn"),
              "when": p.get("when"), "markers": list(p.get("markers") or [])}
    return set_forty(state, vp=points, scored=(*forty(state).scored, record))


@on_phase_end(SYSTEM_ID, "Fight")
def last_round_scoring(state: GameState, dice: DiceStream) -> list[Event]:
    """Battle round 5: the player going second scores at the end of their turn."""
    active = state.battle.active_seat
    if (state.battle.turn or 1) == 5 and active != state.battle.first_player:
        return [scoring_event(state, active, "end of the last turn")]
    return []


@on_phase_end(SYSTEM_ID, "Charge")
def record_charges(state: GameState, dice: DiceStream) -> list[Event]:
    """The units that charged this phase fight first this turn (FACTS.md)."""
    charged = charges_of_phase(state)
    names = ", ".join(units_of(state)[u].name for u in charged)
    text = f"{names} charged: they fight first this turn"
    return [Event("charges_recorded", {"units": charged, "text": text})] if charged else []


@register_folder("result_declared")
def _fold_result(state: GameState, event: Event) -> GameState:
    """Logs stored before the result became `game_result` (results.py) still hold this event
    before their `game_ended`; it is folded as it was then, so they replay to the same state."""
    outcome = changed(state.outcome, declared_winner=event.payload["winner"])
    return state.evolve(outcome=outcome)


# --- the Waaagh! -------------------------------------------------------------------------------


class CallWaaagh(ActionModel):
    type: Literal["call_waaagh"]


@register_game_offer("call_waaagh")
def _offer_waaagh(state: GameState, seat: int) -> dict[str, Any] | None:
    """Call a Waaagh!: the active player's Command phase, for an army with the ability; shown
    with the reason once called (it is called once per battle)."""
    if not in_window(state, seat, "call_waaagh"):
        return None
    if not any(
        u.owner == seat and any(has_waaagh(s) for s in sheets(u))
        for u in units_of(state).values()
    ):
        return None
    err = judge(lambda: call_waaagh(state, seat, CallWaaagh(type="call_waaagh"),
                                    throwaway_dice(state)))
    return offer("call_waaagh") if err is None else refused("call_waaagh", err)


@register_action(
    "call_waaagh",
    CallWaaagh,
    systems=[SYSTEM_ID],
    when=[When(BATTLE, ACTIVE, Phases.named("Command"))],
    doing="calling a Waaagh!",
)
def call_waaagh(state: GameState, seat: int, action: CallWaaagh, dice: DiceStream) -> list[Event]:
    """Waaagh! (seed 004): once per battle, at the start of your Command phase."""
    require_phase(state, seat, ("Command",), "calling a Waaagh!")
    if seat in forty(state).waaagh_used:
        raise RuleError(ILLEGAL_MOVE, "the Waaagh! is called once per battle", rule="Waaagh!")
    begun = forty(state).command_start
    if begun.get("at") == _command_at(state) and begun.get("acted"):
        raise RuleError(
            OUT_OF_PHASE,
            "the Waaagh! is called at the start of your Command phase, before anything else is "
            "done in it: something already was this phase",
            rule="Waaagh!",
        )
    if not any(
        u.owner == seat and any(has_waaagh(s) for s in sheets(u))
        for u in units_of(state).values()
    ):
        raise RuleError(ILLEGAL_MOVE, "no unit of your army has the Waaagh!", rule="Waaagh!")
    return [
        Event(
            "waaagh_called",
            {
                "seat": seat,
                "text": f"Player {seat} calls a Waaagh!: until their next Command phase, units "
                "with the ability may charge after Advancing, have +1 Strength and Attacks on "
                "melee weapons and a 5+ invulnerable save",
            },
            actor=seat,
        )
    ]


@register_folder("waaagh_called")
def _fold_waaagh(state: GameState, event: Event) -> GameState:
    seat = int(event.payload["seat"])
    data = forty(state)
    return set_forty(
        state,
        waaagh_used=[*data.waaagh_used, seat],
        waaagh_active=[*data.waaagh_active, seat],
    )


NOT_AN_ACTION = frozenset({"waaagh_called", "note_added"})
"""Events that leave the Command phase at its start for the Waaagh!: the call itself, and a
note in the log (words between players, not a move of the game)."""


def _command_at(state: GameState) -> list[Any]:
    return [state.battle.player_turn, "Command"]


@register_folder_hook
def _fold_command_start(state: GameState, event: Event) -> GameState:
    """Record the Command phase as it begins and whether an action other than the Waaagh! was
    taken in it since (module text). The action that entered the phase (the end of the last
    phase, with its Command step) does not count; proposals and their answers do not either."""
    if state.system != SYSTEM_ID or state.battle.phase != "Command":
        return state
    if event.type in BOOKKEEPING_EVENTS or event.type in NOT_AN_ACTION:
        return state
    at = _command_at(state)
    batch = event.seq if BATCH_KEY in event.payload else state.batch[0]
    begun = forty(state).command_start
    if begun.get("at") != at:
        return set_forty(state, command_start={"at": at, "batch": batch, "acted": False})
    if begun.get("acted") or begun.get("batch") == batch:
        return state
    return set_forty(state, command_start={**begun, "acted": True})


# --- Roar of Mork -----------------------------------------------------------------------------


class RoarOfMork(ActionModel):
    type: Literal["roar_of_mork"]
    unit: str = Field(min_length=1, max_length=40)
    target: str = Field(min_length=1, max_length=40)


@register_action(
    "roar_of_mork",
    RoarOfMork,
    systems=[SYSTEM_ID],
    when=[When(BATTLE, EITHER, Phases.named("Command"))],
    doing="Roar of Mork",
)
def roar(state: GameState, seat: int, action: RoarOfMork, dice: DiceStream) -> list[Event]:
    """Roar of Mork (FACTS.md, Wurrboy), in the opponent's Command phase."""
    unit, roarer, target = _check_roar(state, seat, action)
    own = target_unit(state, unit)
    w6 = demise_map(state, unit)
    state, events = resolve_and_chain(
        state,
        unit,
        lambda: roar_of_mork(own, dice, within_6in=w6),
        dice,
        kind="roar_of_mork",
        actor=seat,
        attacker=None,
        text=f"{roarer.name}: Roar of Mork at {display_name(state, target.id)}",
    )
    succeeded = bool(events[0].payload.get("succeeded"))
    return [
        *events,
        Event(
            "roar_of_mork_used",
            {
                "unit": unit.id,
                "target": target.id,
                "succeeded": succeeded,
                "text": f"{display_name(state, target.id)} subtracts 2 from Battle-shock and "
                        "Leadership tests "
                "until the start of its player's next Command phase"
                if succeeded
                else "Roar of Mork fails",
            },
            actor=seat,
        ),
    ]


def _check_roar(state: GameState, seat: int, action: RoarOfMork) -> tuple[Unit, Any, Unit]:
    """Every check of Roar of Mork before its roll (the action and its offer ask the same):
    the Wurrboy's unit, the Wurrboy model and the target."""
    require_stage(state, BATTLE)
    if state.battle.phase != "Command" or state.battle.active_player == seat:
        raise RuleError(
            OUT_OF_PHASE,
            "Roar of Mork is used in your opponent's Command phase",
            phase=state.battle.phase,
            active_player=state.battle.active_player,
        )
    unit = unit_of(state, action.unit, seat)
    roarer = next(
        (m for m in models_of(state, unit) if m.sheet.has_rule(ROAR_OF_MORK)), None
    )
    if unit.status != "on_table" or roarer is None:
        raise RuleError(ILLEGAL_MOVE, f"{display_name(state, unit.id)} has no model with Roar of "
                                      "Mork",
                        rule=ROAR_OF_MORK)
    at = [state.battle.player_turn, state.battle.phase]
    if forty(state).roar_used == at:
        raise RuleError(ILLEGAL_MOVE, "Roar of Mork is used once per phase", rule=ROAR_OF_MORK)
    target = unit_of(state, action.target)
    if target.owner == seat:
        raise RuleError(ILLEGAL_MOVE, "Roar of Mork picks an enemy unit", rule=ROAR_OF_MORK)
    table = table_of(state)
    if target.id not in table.units:
        raise RuleError(ILLEGAL_MOVE, f"{display_name(state, target.id)} is not on the table",
                                      rule=ROAR_OF_MORK)
    poly = model_polygons(state, unit)[roarer.index]
    if not within(poly, table.units[target.id], ROAR_OF_MORK_RANGE_IN):
        raise RuleError(
            ILLEGAL_MOVE,
            f"{display_name(state, target.id)} is not within {ROAR_OF_MORK_RANGE_IN} in of the "
            f"{roarer.name}",
            rule=ROAR_OF_MORK,
        )
    if not line_of_sight(table, unit.id, target.id).visible:
        raise RuleError(ILLEGAL_MOVE, f"{display_name(state, target.id)} is not visible",
                        rule=ROAR_OF_MORK)
    return unit, roarer, target


@register_offer("roar_of_mork", anytime=True)
def _offer_roar(state: GameState, seat: int, unit: Unit) -> Offer | None:
    """Roar of Mork… for the player whose unit has a Wurrboy, in the opponent's Command phase
    (the player is not the one acting then, hence `anytime`; the action's window keeps it to
    the Command phase): each enemy unit on the table, allowed or refused with the rule's
    reason, asked of the action's own checks."""
    if not is_forty(state) or unit.owner != seat or unit.status != "on_table":
        return None
    if state.battle.active_player == seat:
        return None
    if not any(m.sheet.has_rule(ROAR_OF_MORK) for m in models_of(state, unit)):
        return None
    table = table_of(state)
    targets: list[dict[str, Any]] = []
    for enemy in units_of(state).values():
        if enemy.owner == seat or enemy.id not in table.units:
            continue
        err = judge(partial(_check_roar, state, seat,
                            RoarOfMork(type="roar_of_mork", unit=unit.id, target=enemy.id)))
        targets.append({"unit": enemy.id, "available": err is None,
                        "reason": None if err is None else err.message})
    usable = [t for t in targets if t["available"]]
    if usable:
        return offer("roar_of_mork", targets=targets)
    why = next((t["reason"] for t in targets), None) or "no enemy unit is on the battlefield"
    return offer("roar_of_mork", False, why, rule=ROAR_OF_MORK, targets=targets)


@register_folder("roar_of_mork_used")
def _fold_roar(state: GameState, event: Event) -> GameState:
    at = [state.battle.player_turn, state.battle.phase]
    roared = list(forty(state).roared)
    if event.payload["succeeded"] and event.payload["target"] not in roared:
        roared.append(event.payload["target"])
    return set_forty(state, roar_used=at, roared=roared)


# --- what everyone sees ------------------------------------------------------------------------


@register_projector
def _project_forty(state: GameState, viewer: int | None, out: dict[str, Any]) -> None:
    # From deployment on: where to set a unit up depends on the objective markers, so they
    # are on the table (with CP and VP, none yet) before the first battle round.
    if not is_forty(state) or stage(state) not in (DEPLOYMENT, BATTLE, OVER):
        return
    data = forty(state)
    chooser: int | None = None
    step: list[str] = []
    if state.battle.phase == "Fight" and stage(state) == BATTLE:
        chooser, step = fight_chooser(state)
    units = units_of(state)
    out["forty"] = {
        "cp": cp(state),
        "vp": vp(state),
        "waaagh": {
            "used": list(data.waaagh_used),
            "active": list(data.waaagh_active),
        },
        "battle_shocked": battle_shocked(state),
        "roared": list(data.roared),
        "objectives": control(state),
        "fights_first": charged_this_turn(state),
        "fight_next": {"seat": chooser, "units": step},
        "allocation": dict(data.allocation),
        "model_order": {k: list(v) for k, v in data.model_order.items()},
        "models": {
            u.id: [
                {"id": m.id, "name": m.name, "wounds": m.wounds, "lost": m.lost,
                 "character": m.character}
                for m in models_of(state, u)
            ]
            for u in units.values()
            if u.status == "on_table" and u.positions
        },
        "starting_strength": {u.id: starting_strength(state, u) for u in units.values()},
        "engaged": {
            u.id: engaged_with(state, u)
            for u in units.values()
            if u.status == "on_table" and u.positions
        },
    }
