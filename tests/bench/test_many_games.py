"""bench/many_games.py's load generator on its own (no server): when a player's actions fall
due, and when the run is over for it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bench import many_games


class Player:
    def __init__(self) -> None:
        self.token = "t1"
        self.sent: list[str] = []

    async def request(self, ref: str, action: dict[str, Any]) -> dict[str, Any]:
        self.sent.append(ref)
        return {"type": "ack", "seq": len(self.sent)}


class Game:
    def __init__(self) -> None:
        self.players = [Player(), Player()]
        self.last_ack = 0


def test_a_player_whose_first_action_falls_due_after_the_run_does_not_hold_it_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With a period longer than the run (`--period 300 --seconds 30`), a player whose first
    action would fall due after the end returns at once: the run, and the server CPU it counts,
    end with the acting period, not when the last player's first action would have been due."""
    bench = many_games.ManyGames(deployment=None, games=1, seconds=0.2,  # type: ignore[arg-type]
                                 period=300.0)
    monkeypatch.setattr(many_games.random, "uniform", lambda low, high: high)
    game = Game()

    async def run() -> None:
        loop = asyncio.get_running_loop()
        # (a hang guard, not a timing assertion: unfixed, the player sleeps for 300 s)
        await asyncio.wait_for(bench.play(game, (1,), loop.time() + 0.2), 60)  # type: ignore[arg-type]

    asyncio.run(run())
    assert game.players[0].sent == [] and bench.latencies == []


def test_a_player_acts_every_period_until_the_run_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    """Players act at their offset, then every period, taking turns when they share a game
    (`--per-game`), and stop once the next action would fall due after the end."""
    bench = many_games.ManyGames(deployment=None, games=1, seconds=0.0,  # type: ignore[arg-type]
                                 period=0.05)
    monkeypatch.setattr(many_games.random, "uniform", lambda low, high: low)
    game = Game()

    async def run() -> None:
        loop = asyncio.get_running_loop()
        # the end falls between the 4th action (due at 0.15 s) and the 5th (0.20 s)
        await asyncio.wait_for(bench.play(game, (1, 2), loop.time() + 0.175), 60)  # type: ignore[arg-type]

    asyncio.run(run())
    assert game.players[0].sent == ["m1", "m3"] and game.players[1].sent == ["m2", "m4"]
    assert len(bench.latencies) == 4 and bench.errors == {}
