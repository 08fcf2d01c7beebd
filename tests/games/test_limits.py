"""Nothing the service keeps in memory grows without bound (issue 12 item 4 a, b).

(a) asking for game ids that do not exist leaves nothing behind; (b) the cache of live games
stays at its size even when its oldest game is watched: eviction passes over games in use.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from server.games import service as service_module
from server.games.service import GameService
from server.hub import LocalHub
from server.rules.core import NOT_FOUND, Event, RuleError
from server.store import EventStore, make_engine
from server.store.migrate import upgrade


class Spectator:
    """An idle watcher (what an open spectator socket is to the hub)."""

    viewer = None

    def offer(self, events: Sequence[Event], frame: str) -> None:
        pass


@pytest.fixture
def store(database_url: str) -> Any:
    engine = make_engine(database_url)
    upgrade(engine)
    yield EventStore(engine)
    engine.dispose()


def test_unknown_game_ids_leave_no_loading_lock_behind(store: EventStore) -> None:
    """1,000 ids that name no game, asked for in bursts: each is `not_found`, and the map of
    games being loaded is empty afterwards (it held one lock per unknown id before)."""
    service = GameService(store)

    async def ask(game_id: str) -> str:
        try:
            await service.live(game_id)
        except RuleError as exc:
            return exc.code
        return "found"

    async def run() -> list[str]:
        codes: list[str] = []
        for start in range(0, 1000, 100):
            # The same id twice in a burst: the second waits on the first one's lock.
            ids = [f"nope{n:06d}" for n in range(start, start + 100)]
            codes += await asyncio.gather(*(ask(i) for i in ids + ids[:10]))
        return codes

    codes = asyncio.run(run())
    assert codes == [NOT_FOUND] * 1100
    assert len(service._loading) == 0


def test_loading_a_real_game_leaves_no_lock_behind(store: EventStore) -> None:
    """A game loaded from the log by many callers at once is loaded once; no lock remains."""
    first = GameService(store)

    async def run() -> tuple[list[Any], GameService]:
        created = await first.create_game("t9a")
        second = GameService(store)  # a fresh process: nothing cached
        loaded = await asyncio.gather(*(second.live(created.id) for _ in range(20)))
        return loaded, second

    loaded, second = asyncio.run(run())
    assert all(live is loaded[0] for live in loaded)
    assert len(second._loading) == 0


def test_a_watched_old_game_does_not_stop_eviction(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spectator idles on the first game; 40 more games are created. The cache stays at its
    bound (5), the watched game stays in it, and the newest games are the others cached."""
    monkeypatch.setattr(service_module, "LIVE_GAMES_CACHED", 5)
    hub = LocalHub()
    service = GameService(store, hub)

    async def run() -> tuple[str, list[str]]:
        old = await service.create_game("t9a")
        hub.subscribe(old.id, Spectator())
        ids = [(await service.create_game("t9a")).id for _ in range(40)]
        return old.id, ids

    old_id, ids = asyncio.run(run())
    assert len(service._live) == 5
    assert service.cached(old_id) is not None
    assert set(service._live) == {old_id, *ids[-4:]}


def test_every_watched_game_stays_cached_past_the_bound(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More watched games than the cache holds: none of them is evicted (their sockets need
    the live state) and every unwatched one is but the one just created (its creator is
    about to use it), which goes when the next game comes."""
    monkeypatch.setattr(service_module, "LIVE_GAMES_CACHED", 3)
    hub = LocalHub()
    service = GameService(store, hub)

    async def run() -> tuple[list[str], list[str]]:
        watched, others = [], []
        for _ in range(5):
            game = await service.create_game("t9a")
            hub.subscribe(game.id, Spectator())
            watched.append(game.id)
        for _ in range(5):
            others.append((await service.create_game("t9a")).id)
        return watched, others

    watched, others = asyncio.run(run())
    assert set(service._live) == {*watched, others[-1]}
