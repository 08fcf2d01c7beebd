"""Warhammer 40,000 10th edition: Fall Back and Desperate Escape (FACTS.md, the core loop;
issue 16 items 1 and 2).

A unit that starts its Movement phase within Engagement Range of an enemy unit and moves in it
(`move_models`: the geometry core lets it end out of Engagement Range, nowhere else) has Fallen
Back: it may neither shoot nor declare a charge that turn (`Shooter.fell_back`,
`Warhammer40k.charge_refusal`). The engagements are recorded as the Movement phase starts
(`movement_started`), the units that moved out of them as it ends (`fell_back`). A
Battle-shocked unit that Falls Back takes a Desperate Escape test for each model: a D6, 1-2
destroys it (docs/rules-decisions.md: the dice are rolled as the phase ends, once the move is
made; the models destroyed are chosen as attacks are allocated: casualties.py).
"""

from __future__ import annotations

import dataclasses

from server.dice import DiceStream
from server.rules.battle import on_phase_end, on_phase_start
from server.rules.core import Event, GameState, fold_all, register_folder
from server.rules.naming import display_name
from server.rules.units import Unit, phase_moves, units_of
from server.rules.wh40k10.army import (
    SYSTEM_ID,
    demise_map,
    engaged_with,
    forty,
    set_forty,
    target_unit,
)
from server.rules.wh40k10.damage import Board, Recorder, Resolution, destroyed, faces, finish
from server.rules.wh40k10.damage_events import resolve_and_chain

DESPERATE_ESCAPE_FAILS = 2
"""A D6 of 1-2 fails a Desperate Escape test (FACTS.md)."""


def fell_back_this_turn(state: GameState) -> list[str]:
    record = forty(state).fell_back
    if record.get("pt") != state.battle.player_turn:
        return []
    return list(record.get("units", []))


def started_engaged(state: GameState, unit: Unit) -> bool:
    """Did `unit` start this Movement phase within Engagement Range of an enemy unit? (The
    record made as the phase started; a unit that has not moved is where it started.)"""
    at = [state.battle.player_turn, state.battle.phase]
    record = forty(state).engaged_at_movement
    if record.get("at") == at and unit.id in record.get("units", []):
        return True
    return unit.id not in phase_moves(state) and bool(engaged_with(state, unit))


@on_phase_start(SYSTEM_ID, "Movement")
def record_engagements(state: GameState, dice: DiceStream) -> list[Event]:
    active = state.battle.active_player
    engaged = [
        u.id
        for u in units_of(state).values()
        if u.owner == active and u.status == "on_table" and u.positions and engaged_with(state, u)
    ]
    if not engaged:
        return []
    names = ", ".join(units_of(state)[u].name for u in engaged)
    text = f"{names}: in Engagement Range; moving out of it is a Fall Back"
    return [Event("movement_started", {"engaged": engaged, "text": text})]


@register_folder("movement_started")
def _fold_movement_started(state: GameState, event: Event) -> GameState:
    at = [state.battle.player_turn, state.battle.phase]
    return set_forty(state, engaged_at_movement={"at": at, "units": event.payload["engaged"]})


@on_phase_end(SYSTEM_ID, "Movement")
def fall_back(state: GameState, dice: DiceStream) -> list[Event]:
    at = [state.battle.player_turn, state.battle.phase]
    record = forty(state).engaged_at_movement
    if record.get("at") != at:
        return []
    moved = phase_moves(state)
    units = [u for u in record.get("units", []) if moved.get(u, {}).get("used") is not None]
    if not units:
        return []
    events = [
        Event(
            "fell_back",
            {
                "units": units,
                "text": ", ".join(units_of(state)[u].name for u in units)
                + " Fell Back: no shooting and no charge this turn",
            },
        )
    ]
    state = fold_all(state, events)
    shocked = forty(state).battle_shocked
    for uid in units:
        unit = units_of(state)[uid]
        if uid not in shocked or not unit.positions:
            continue
        before = state

        def run(before: GameState = before, unit: Unit = unit) -> Resolution:
            return desperate_escape(before, unit, dice)

        state, made = resolve_and_chain(
            state,
            unit,
            run,
            dice,
            kind="desperate_escape",
            actor="system",
            text=f"{display_name(state, unit.id)}: Desperate Escape tests (Battle-shocked, "
                 "Falling Back)",
        )
        events += made
    return events


def desperate_escape(state: GameState, unit: Unit, dice: DiceStream) -> Resolution:
    """One D6 per model; each 1-2 destroys a model, chosen as attacks are allocated (Deadly
    Demise is rolled for a model destroyed so)."""
    tu = target_unit(state, unit)
    within_6in = demise_map(state, unit)
    rec = Recorder(dice)
    board = Board(tu)
    roll, index = rec.roll(f"{len(tu.alive)}D6")
    failed = sum(1 for f in faces(roll) if f <= DESPERATE_ESCAPE_FAILS)
    rec.add(
        "desperate_escape",
        f"{display_name(state, unit.id)}: {len(tu.alive)} Desperate Escape tests: {failed} failed",
        roll=index,
        needed=DESPERATE_ESCAPE_FAILS + 1,
        data={"tests": len(tu.alive), "failed": failed},
    )
    order = [m for m in board.living() if not m.character] + [
        m for m in board.living() if m.character
    ]
    for model in order[:failed]:
        board.set(dataclasses.replace(model, wounds_left=0))
        destroyed(rec, board, model, within_6in)
    return finish(rec, board, 0, tests=len(tu.alive), failed=failed)


@register_folder("fell_back")
def _fold_fell_back(state: GameState, event: Event) -> GameState:
    units = fell_back_this_turn(state) + list(event.payload["units"])
    return set_forty(state, fell_back={"pt": state.battle.player_turn, "units": units})
