"""Where an action's commit runs (server/games/service.py, `GameService._append`): on
PostgreSQL on the event loop itself (`EventStore.append_many_async`, no database thread); on
SQLite on the group commit's database thread (server/store/group.py)."""

from __future__ import annotations

import asyncio
import threading

from server.games.service import GameService
from server.store import EventStore
from tests.games.test_refs import act, new_game, store  # noqa: F401 - the fixture


def test_an_action_commits_on_the_loop_on_postgresql_and_on_a_thread_on_sqlite(
    store: EventStore,  # noqa: F811
) -> None:
    committed_on: list[int] = []
    store.on_commit = lambda size: committed_on.append(threading.get_ident())
    service = GameService(store)

    async def run() -> int:
        game_id = await new_game(service)
        for n in range(1, 4):
            await act(service, game_id, n, f"r{n}")
        live = service.cached(game_id)
        assert live is not None and live.state.seq == len(store.events(game_id))
        return threading.get_ident()

    loop_thread = asyncio.run(run())
    assert len(committed_on) == 4  # (the token placed, then three moves)
    if store.appends_on_the_loop:
        assert set(committed_on) == {loop_thread}
        assert service.commits.batches == 0
    else:
        assert loop_thread not in committed_on
        assert service.commits.appends == 4
