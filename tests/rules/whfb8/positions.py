"""Hand-worked whfb8 positions for the battle tests: armies submitted, units standing where a
case needs them, a charge made, and actions run with scripted dice (the t9a helpers,
tests/rules/t9a/test_combat.py, for Warhammer Fantasy Battle 8th edition)."""

from __future__ import annotations

import dataclasses
from typing import Any

from server.rules import core
from server.rules.core import Event, GameState
from server.rules.rankandflank import break_test as breaking
from server.rules.rankandflank.events import Log
from server.rules.units import Unit, units_of
from tests.rules.t9a.scripted import ScriptedDice
from tests.rules.t9a.test_combat import charged
from tests.rules.test_battle import act, fold, new_game

SWARM = {"datasheet": "tomb-swarm", "models": 3, "files": 3}
HALBERDIERS = {"datasheet": "empire-halberdiers", "models": 20, "files": 5}
HANDGUNNERS = {"datasheet": "empire-handgunners", "models": 10, "files": 5}
SKELETONS = {"datasheet": "skeleton-warriors", "models": 20, "files": 5}
GOBLINS = {"datasheet": "night-goblins", "models": 20, "files": 5}


def position(
    army1: list[dict[str, Any]],
    army2: list[dict[str, Any]],
    places: dict[str, tuple[float, float, float]],
    *,
    phase: str = "Close Combat",
    active: int = 1,
    own_units1: list[dict[str, Any]] | None = None,
) -> GameState:
    """A whfb8 game with both armies submitted and units standing at `places` (x, y, facing
    of the front-edge centre), in `phase` of player `active`'s first turn; `own_units1`:
    player 1's units of your own (issue 18), for entries the catalogue's faction lacks."""
    state = new_game("whfb8")
    state, _ = act(state, 1, type="submit_army", units=army1,
                   **({"own_units": own_units1} if own_units1 else {}))
    state, _ = act(state, 2, type="submit_army", units=army2)
    state = fold(
        state, [Event("battle_started", {"turn": 1, "active_player": active, "phase": phase})]
    )
    units = dict(units_of(state))
    for uid, placement in places.items():
        units[uid] = dataclasses.replace(units[uid], status="on_table", placement=placement)
    return state.evolve(units=units)


def swarm_charged(
    army2: dict[str, Any] | None = None, swarm: dict[str, Any] | None = None
) -> GameState:
    """A Tomb Swarm (player 1, u1) charged the front of a block (player 2, u2, default 20
    Empire Halberdiers 5 x 4)."""
    state = position(
        [swarm or SWARM],
        [army2 or HALBERDIERS],
        {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)},
    )
    return charged(state, "u1", "u2")


def run(
    state: GameState, seat: int, faces: list[int], **action: Any
) -> tuple[GameState, list[Event]]:
    """Decide `action` with exactly `faces` as its dice, and fold its events."""
    dice = ScriptedDice(faces, state.dice_position)
    events = core.decide(state, seat, action, dice)  # type: ignore[arg-type]
    assert dice.used == len(faces), f"{dice.used} dice used of {len(faces)}"
    return fold(state, events), events


def break_test(
    state: GameState, uid: str, difference: int, enemy_ranks: int, faces: list[int],
    winner: str = "u1",
) -> tuple[GameState, list[Event]]:
    log = Log(state)
    dice = ScriptedDice(faces, state.dice_position)
    breaking.break_test(log, unit(state, uid), difference, enemy_ranks, [winner], dice)
    assert dice.used == len(faces), f"{dice.used} dice used of {len(faces)}"
    return log.state, log.events


def unit(state: GameState, uid: str) -> Unit:
    return units_of(state)[uid]


def with_units(state: GameState, **changes: dict[str, Any]) -> GameState:
    units = dict(units_of(state))
    for uid, fields in changes.items():
        units[uid] = dataclasses.replace(units[uid], **fields)
    return state.evolve(units=units)


def assert_dice_in_order(events: list[Event], start: int | None = None) -> None:
    """Every roll of `events` starts where the one before ended (docs/dice.md: the dice proof
    checks the log's rolls cover the stream in order, each draw exactly once)."""
    rolls = [r for e in events for r in core.rolls_of(e.payload)]
    at = rolls[0]["start"] if start is None else start
    for roll in rolls:
        assert roll["start"] == at, (roll, at)
        at = roll["end"]
