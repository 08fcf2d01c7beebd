"""Group commit (issue 21): the appends of different games waiting for the database at the same
time are written in one transaction, each durable before its caller hears of it, and one that
fails on its own fails alone (server/store/group.py, `EventStore.append_many`)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from server.rules.core import Event
from server.store import ActionRecord, ConcurrentAppend, DuplicateRef, EventStore, make_engine
from server.store.group import GroupCommit
from server.store.repository import AppendRequest
from tests.store.test_repository import make_game, store  # noqa: F401 - the fixture


def durable_log(url: str, game_id: str) -> list[tuple[int, str]]:
    """The game's log as a new connection of a new engine reads it: what was committed."""
    engine = make_engine(url)
    try:
        return [(e.seq, e.type) for e in EventStore(engine).events(game_id)]
    finally:
        engine.dispose()


def count_transactions(store: EventStore) -> list[int]:  # noqa: F811
    sizes: list[int] = []
    store.on_commit = sizes.append
    return sizes


def test_appends_of_several_games_share_one_transaction(store: EventStore) -> None:  # noqa: F811
    for g in ("g1", "g2", "g3"):
        make_game(store, g)
    sizes = count_transactions(store)
    results = store.append_many([
        AppendRequest("g1", 1, [Event("a", {"n": 1}, actor=1)], ActionRecord(1, "r1", "d1", 0)),
        AppendRequest("g2", 1, [Event("b", {}), Event("c", {})]),
        AppendRequest("g3", 1, [Event("d", {})], ActionRecord(2, "r1", "d2", 0)),
        AppendRequest("g1", 2, [Event("e", {})]),  # the same game again: chained, in order
    ])
    assert sizes == [4]
    assert [[e.seq for e in r] for r in results] == [[2], [2, 3], [2], [3]]  # type: ignore[union-attr]
    url = store.engine.url.render_as_string(hide_password=False)
    assert durable_log(url, "g1") == [(1, "game_created"), (2, "a"), (3, "e")]
    assert durable_log(url, "g2") == [(1, "game_created"), (2, "b"), (3, "c")]
    assert durable_log(url, "g3") == [(1, "game_created"), (2, "d")]
    assert store.find_action("g3", 2, "r1") == ActionRecord(2, "r1", "d2", 2)


def test_a_failing_append_fails_alone(store: EventStore) -> None:  # noqa: F811
    for g in ("g1", "g2", "g3", "g4"):
        make_game(store, g)
    store.append("g2", 1, [Event("x", {})], ActionRecord(1, "used", "d0", 0))
    sizes = count_transactions(store)
    results = store.append_many([
        AppendRequest("g1", 1, [Event("a", {})]),
        AppendRequest("g2", 2, [Event("dup", {})], ActionRecord(1, "used", "d9", 0)),
        AppendRequest("g3", 0, [Event("stale", {})]),  # seq 1 is taken
        AppendRequest("g4", 1, [Event("b", {})], ActionRecord(2, "fresh", "d4", 0)),
    ])
    assert isinstance(results[1], DuplicateRef)
    assert isinstance(results[2], ConcurrentAppend)
    assert [e.seq for e in results[0]] == [2]  # type: ignore[union-attr]
    assert [e.seq for e in results[3]] == [2]  # type: ignore[union-attr]
    # The batch was rolled back whole and written again one transaction per append.
    assert sizes == [4, 1, 1, 1, 1]
    url = store.engine.url.render_as_string(hide_password=False)
    assert durable_log(url, "g1") == [(1, "game_created"), (2, "a")]
    assert durable_log(url, "g2") == [(1, "game_created"), (2, "x")]
    assert durable_log(url, "g3") == [(1, "game_created")]
    assert durable_log(url, "g4") == [(1, "game_created"), (2, "b")]
    assert store.find_action("g2", 1, "used") == ActionRecord(1, "used", "d0", 2)
    assert store.find_action("g4", 2, "fresh") == ActionRecord(2, "fresh", "d4", 2)
    # `append` of one raises as it always did.
    with pytest.raises(ConcurrentAppend):
        store.append("g3", 0, [Event("stale", {})])


def test_appends_waiting_together_are_committed_together(store: EventStore) -> None:  # noqa: F811
    """While one commit is on the disk, the appends that arrive wait and then go in ONE
    transaction; nobody is answered before the transaction holding their events commits."""
    async def run() -> None:
        games = [f"g{n}" for n in range(6)]
        for g in games:
            make_game(store, g)
        started, release = threading.Event(), threading.Event()
        sizes: list[int] = []

        def hold_first(size: int) -> None:
            sizes.append(size)
            if len(sizes) == 1:
                started.set()
                release.wait()

        store.on_commit = hold_first
        group = GroupCommit(store.append_many)
        url = store.engine.url.render_as_string(hide_password=False)
        first = asyncio.create_task(group.append(AppendRequest("g0", 1, [Event("first", {})])))
        await asyncio.to_thread(started.wait)
        rest = [
            asyncio.create_task(group.append(
                AppendRequest(g, 1, [Event("next", {})], ActionRecord(1, f"ref-{g}", "d", 0))
            ))
            for g in games[1:]
        ]
        rest.append(asyncio.create_task(group.append(AppendRequest("g2", 0, [Event("stale", {})]))))
        while group.queued < len(rest):
            await asyncio.sleep(0)
        assert not first.done() and not any(t.done() for t in rest)
        release.set()
        assert [e.seq for e in await first] == [2]
        outcomes = await asyncio.gather(*rest, return_exceptions=True)
        assert [o if isinstance(o, Exception) else [e.seq for e in o] for o in outcomes[:-1]] == (
            [[2]] * (len(games) - 1)
        )
        assert isinstance(outcomes[-1], ConcurrentAppend)
        # One transaction for the first, one for the six that waited (rolled back for the stale
        # one's key, then one each), and the idle group takes a single append alone at once.
        assert sizes[:2] == [1, 6] and sizes[2:] == [1] * 6
        assert group.batches == 2 and group.largest == 6
        for g in games[1:]:
            assert durable_log(url, g) == [(1, "game_created"), (2, "next")]
        sizes.clear()
        await group.append(AppendRequest("g1", 2, [Event("alone", {})]))
        assert sizes == [1]

    asyncio.run(run())
