"""Driving the pure engine in tests: a game, actions with a chosen dice seed, units put where a
hand-worked case needs them, and the log kept for `core.replay`."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from server.dice import DiceStream
from server.rules import core, table
from server.rules.core import Battlefield, Event, GameState, RuleError
from server.rules.units import units_of

SEED = bytes(range(32))


class Game:
    """A game folded from its log; `act` appends the events an action produces."""

    def __init__(self, system: str = "t9a", seed: bytes = SEED, pregame: str = "fixed",
                 commitment: str = "c") -> None:
        size = Battlefield(60, 44) if system == "wh40k10" else Battlefield(72, 48)
        self.seed = seed
        self.log: list[Event] = []
        self.state = GameState()
        self.append(table.genesis("g", system, "Test", size, commitment, pregame))
        self.append([table.seat_claimed(1), table.seat_claimed(2)])

    def append(self, events: list[Event]) -> list[Event]:
        stored = []
        for e in events:
            e = dataclasses.replace(e, seq=self.state.seq + 1)
            stored.append(e)
            self.log.append(e)
            self.state = core.fold(self.state, e)
        if core.needs_replay(stored):
            self.state = core.replay(self.log)
        return stored

    def dice(self) -> DiceStream:
        return DiceStream(self.seed, self.state.dice_position)

    def act(self, seat: int, **action: Any) -> list[Event]:
        return self.append(core.decide(self.state, seat, action, self.dice()))

    def refused(self, seat: int, **action: Any) -> RuleError:
        with pytest.raises(RuleError) as err:
            core.decide(self.state, seat, action, self.dice())
        return err.value

    def put(self, unit_id: str, x: float, y: float, facing: float, **changes: Any) -> None:
        """Stand a unit on the table at a hand-worked placement (test set-up; logged as a
        `free_move` event so that `core.replay` of the log agrees)."""
        unit = units_of(self.state)[unit_id]
        moved = dataclasses.replace(
            unit, status="on_table", placement=(x, y, facing), **changes
        )
        self.append([Event("free_move", {"unit": moved.to_json(), "set_up": True})])

    def unit(self, unit_id: str) -> Any:
        return units_of(self.state)[unit_id]

    def to_phase(self, seat: int, phase: str) -> None:
        """End phases until it is `seat`'s `phase`."""
        for _ in range(40):
            battle = self.state.battle
            if battle.active_player == seat and battle.phase == phase:
                return
            self.act(int(battle.active_player), type="end_phase")
        raise AssertionError(f"never reached player {seat}'s {phase} phase")


def battle(system: str, army1: list[dict[str, Any]], army2: list[dict[str, Any]],
           seed: bytes = SEED) -> Game:
    """Both armies submitted and deployed along their own edges; the battle has begun."""
    game = Game(system, seed)
    game.act(1, type="submit_army", units=army1)
    game.act(2, type="submit_army", units=army2)
    mine = sorted((u for u in units_of(game.state).values()), key=lambda u: int(u.id[1:]))
    ones = [u for u in mine if u.owner == 1]
    twos = [u for u in mine if u.owner == 2]
    for i in range(max(len(ones), len(twos))):
        if i < len(ones):
            game.act(1, type="deploy_unit", unit=ones[i].id, x=10 + 15 * i, y=6)
        if i < len(twos):
            game.act(2, type="deploy_unit", unit=twos[i].id, x=10 + 15 * i, y=42, facing=180)
    assert game.state.battle.stage == "battle"
    return game
