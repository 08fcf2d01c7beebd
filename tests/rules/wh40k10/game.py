"""A 40k game for the engine tests: Beast Snagga Boyz led by a Wurrboy (player 1) against an
Intercessor Squad (player 2), with helpers to reach a phase, set models down and act with
scripted dice (tests/rules/wh40k10/dice.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from server.rules import core
from server.rules.core import Event, GameState
from server.rules.units import units_of, with_unit
from server.rules.wh40k10.army import set_forty
from tests.rules.test_battle import act, fold, new_game
from tests.rules.wh40k10.dice import ScriptedDice

LED_BOYZ = {"datasheet": "beast-snagga-boyz", "models": 10, "joined_characters": ["wurrboy"]}
INTERCESSORS = {"datasheet": "intercessor-squad", "models": 5}
BASE_IN = 32 / 25.4


def deployed(
    army1: Sequence[dict[str, Any]] = (LED_BOYZ,), army2: Sequence[dict[str, Any]] = (INTERCESSORS,)
) -> GameState:
    """Both armies deployed (player 1 at y 9.5, facing its Leader forward; player 2 at y 35):
    the battle has begun, in player 1's first Command phase."""
    state = new_game("wh40k10")
    state, _ = act(state, 1, type="submit_army", units=list(army1))
    state, _ = act(state, 2, type="submit_army", units=list(army2))
    ids1 = [u.id for u in units_of(state).values() if u.owner == 1]
    ids2 = [u.id for u in units_of(state).values() if u.owner == 2]
    for i, uid in enumerate(ids1):
        state, _ = act(state, 1, type="deploy_unit", unit=uid, x=15 + 25 * i, y=9.5, facing=180)
        if i < len(ids2):
            state, _ = act(
                state, 2, type="deploy_unit", unit=ids2[i], x=15 + 25 * i, y=35, facing=180
            )
    for j in range(len(ids1), len(ids2)):
        state, _ = act(state, 2, type="deploy_unit", unit=ids2[j], x=15 + 25 * j, y=35,
                       facing=180)
    return state


def to_phase(state: GameState, seat: int, phase: str, turn: int | None = None) -> GameState:
    """End phases until `seat`'s `phase` (of battle round `turn`, if given)."""
    while not (
        state.battle.active_player == seat
        and state.battle.phase == phase
        and (turn is None or state.battle.turn == turn)
    ):
        state, _ = act(state, int(state.battle.active_player), type="end_phase")
    return state


def place(state: GameState, unit_id: str, positions: Iterable[tuple[float, float]]) -> GameState:
    """Set a unit's models down at `positions` (test setup, not a move)."""
    unit = units_of(state)[unit_id]
    moved = dataclasses.replace(unit, positions=tuple((float(x), float(y)) for x, y in positions))
    return with_unit(state, moved)


def row(n: int, y: float, x0: float = 20.0, gap: float = 0.1) -> list[tuple[float, float]]:
    """`n` models side by side (in base contact plus `gap`), from x0."""
    return [(x0 + i * (BASE_IN + gap), y) for i in range(n)]


def block(n: int, y: float, x0: float = 20.0, per_row: int = 6, dy: float = -1.4) -> list[
    tuple[float, float]
]:
    """`n` models in rows of `per_row`, the first row at `y`, the next ones `dy` behind."""
    out: list[tuple[float, float]] = []
    for i in range(n):
        r, c = divmod(i, per_row)
        out.append((x0 + c * (BASE_IN + 0.1), y + r * dy))
    return out


def scripted(
    state: GameState, seat: int, faces: Iterable[int], **action: Any
) -> tuple[GameState, list[Event], ScriptedDice]:
    """`action` by `seat` with the given D6 faces, in order (an unused face is left unread)."""
    dice = ScriptedDice(faces, state.dice_position)
    events = core.decide(state, seat, action, dice)  # type: ignore[arg-type]
    return fold(state, events), events, dice


def charging(
    state: GameState, seat: int, faces: Iterable[int], **action: Any
) -> tuple[GameState, list[Event], ScriptedDice]:
    """A charge declared (`action` by `seat`) and rolled with the given faces: when it waits
    for the charged player's answer (Fire Overwatch), that player declines, and the events
    returned are those of the roll."""
    dice = ScriptedDice(faces, state.dice_position)
    events = core.decide(state, seat, action, dice)  # type: ignore[arg-type]
    state = fold(state, events)
    if events and events[0].type == "charge_declared":
        answer = core.decide(state, 2 if seat == 1 else 1, {"type": "decline_overwatch"},
                             dice)  # type: ignore[arg-type]
        state = fold(state, answer)
        assert answer[0].type == "charge_reaction"
        events = answer[1:]
    return state, events, dice


def with_forty(state: GameState, **values: Any) -> GameState:
    return set_forty(state, **values)


def steps(events: Iterable[Event], kind: str | None = None) -> list[dict[str, Any]]:
    return [
        s
        for e in events
        if e.type == "attacks_resolved" and (kind is None or e.payload["kind"] == kind)
        for s in e.payload["steps"]
    ]


def texts(events: Iterable[Event], kind: str | None = None) -> list[str]:
    return [s["text"] for s in steps(events, kind)]
