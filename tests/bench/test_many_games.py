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


def play(monkeypatch: pytest.MonkeyPatch, period: float, first_due: str,
         seats: tuple[int, ...], ends_in: float) -> tuple[many_games.ManyGames, Game]:
    """One `ManyGames.play` of a stub game: each player's first action due at the start of
    its period (`first_due` "low") or at its end ("high"), the run ending `ends_in` s later."""
    bench = many_games.ManyGames(deployment=None, games=1, seconds=ends_in,  # type: ignore[arg-type]
                                 period=period)
    monkeypatch.setattr(many_games.random, "uniform",
                        lambda low, high: low if first_due == "low" else high)
    game = Game()

    async def run() -> None:
        loop = asyncio.get_running_loop()
        # (a hang guard, not a timing assertion: a player that waits past the end would sleep
        # up to a whole period)
        await asyncio.wait_for(bench.play(game, seats, loop.time() + ends_in), 60)  # type: ignore[arg-type]

    asyncio.run(run())
    return bench, game


def test_a_player_whose_first_action_falls_due_after_the_run_does_not_hold_it_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With a period longer than the run (`--period 300 --seconds 30`), a player whose first
    action would fall due after the end returns at once: the run, and the server CPU it counts,
    end with the acting period, not when the last player's first action would have been due."""
    bench, game = play(monkeypatch, 300.0, "high", (1,), 0.2)
    assert game.players[0].sent == [] and bench.latencies == []


def test_a_player_acts_every_period_until_the_run_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    """Players act at their offset, then every period, taking turns when they share a game
    (`--per-game`), and stop once the next action would fall due after the end (here between
    the 4th action, due at 0.15 s, and the 5th, at 0.20 s)."""
    bench, game = play(monkeypatch, 0.05, "low", (1, 2), 0.175)
    assert game.players[0].sent == ["m1", "m3"] and game.players[1].sent == ["m2", "m4"]
    assert len(bench.latencies) == 4 and bench.errors == {}
