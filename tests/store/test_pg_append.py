"""An action's commit on PostgreSQL (server/store/repository.py, `_PgAppend`): one statement
on a connection kept for appends, replaced when it breaks, pinged after idling, closed with
the engine (issue 22)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import psycopg
import pytest
import sqlalchemy as sa

from server.rules.core import Event
from server.store import (
    ActionRecord,
    ConcurrentAppend,
    DuplicateRef,
    EventStore,
    StoreUnavailable,
    make_engine,
    repository,
    unreachable,
)
from server.store.migrate import upgrade
from server.store.repository import AppendRequest
from tests.store.test_repository import make_game


@pytest.fixture
def pg_store(postgres_database: str) -> EventStore:
    engine = make_engine(postgres_database)
    upgrade(engine)
    with engine.begin() as conn:
        for table in ("actions", "events", "seats", "games"):
            conn.execute(sa.text(f"DELETE FROM {table}"))
    store = EventStore(engine)
    yield store
    engine.dispose()


def append_connection_pid(store: EventStore) -> int:
    assert store._pg_append is not None and store._pg_append._driver is not None
    pid: int = store._pg_append._driver.info.backend_pid
    return pid


def terminate(store: EventStore, pid: int) -> None:
    with store.engine.connect() as conn:
        conn.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})


def backend_alive(store: EventStore, pid: int) -> bool:
    with store.engine.connect() as conn:
        found = conn.execute(
            sa.text("SELECT count(*) FROM pg_stat_activity WHERE pid = :pid"), {"pid": pid}
        ).scalar_one()
    return bool(found)


def test_one_statement_stores_a_batch_of_several_games_or_nothing(pg_store: EventStore) -> None:
    """A batch's events and action rows go in one statement: all of them are stored, in seq
    order per game; when one request breaks a key the others are stored and it fails alone."""
    make_game(pg_store, "g1")
    make_game(pg_store, "g2")

    results = pg_store.append_many([
        AppendRequest("g1", 1, [Event("a", {"n": 2}), Event("b", {"n": 3})],
                      ActionRecord(1, "r1", "d1", 0)),
        AppendRequest("g2", 1, [Event("c", {"x": [1, 2]})]),
        AppendRequest("g1", 3, [], ActionRecord(2, "r2", "d2", 0)),
    ])
    assert [[e.seq for e in r] for r in results if not isinstance(r, Exception)] == [
        [2, 3], [2], []]
    assert [(e.seq, e.type) for e in pg_store.events("g1")] == [
        (1, "game_created"), (2, "a"), (3, "b")]
    assert pg_store.find_action("g1", 1, "r1") == ActionRecord(1, "r1", "d1", 3)
    assert pg_store.find_action("g1", 2, "r2") == ActionRecord(2, "r2", "d2", 3)
    assert pg_store.events("g2")[-1].payload == {"x": [1, 2]}
    again = pg_store.append_many([
        AppendRequest("g1", 3, [Event("d", {})], ActionRecord(1, "r1", "d1", 0)),
        AppendRequest("g2", 2, [Event("e", {})]),
    ])
    assert isinstance(again[0], DuplicateRef)
    assert [e.seq for e in again[1]] == [3]  # type: ignore[union-attr]
    assert [e.type for e in pg_store.events("g1")][-1] == "b"


def test_a_broken_append_connection_is_replaced_and_the_append_stored_once(
        pg_store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server drops the append connection (a restart, an administrator): the append that
    meets the dead connection is tried again on a fresh one and stored, once."""
    monkeypatch.setattr(repository, "APPEND_IDLE_PING_S", 3600.0)  # (no ping: meet it)
    make_game(pg_store)
    pg_store.append("g1", 1, [Event("a", {})], ActionRecord(1, "r1", "d1", 0))
    first = append_connection_pid(pg_store)
    terminate(pg_store, first)
    stored = pg_store.append("g1", 2, [Event("b", {})], ActionRecord(1, "r2", "d2", 0))
    assert [e.seq for e in stored] == [3]
    assert append_connection_pid(pg_store) != first
    assert [e.type for e in pg_store.events("g1")] == ["game_created", "a", "b"]
    assert pg_store.find_action("g1", 1, "r2") == ActionRecord(1, "r2", "d2", 3)


class _AnswerLost:
    """A connection whose first statement is stored by the server but whose answer never
    arrives (the server went away between its commit and its reply)."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.closed = self.broken = False

    def execute(self, sql: str, values: Any = None) -> Any:
        self.real.execute(sql, values)
        raise psycopg.OperationalError("server closed the connection unexpectedly")


def test_a_commit_whose_answer_was_lost_counts_once(pg_store: EventStore,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The first try committed, then its connection failed: the retry on a fresh connection
    breaks a key on our own rows, finds them, and the append stands, stored once (not a
    ConcurrentAppend, not a DuplicateRef, not two copies)."""
    make_game(pg_store)
    pg_append = pg_store._pg_append
    assert pg_append is not None
    connect = pg_append._connection
    calls = []

    def connection() -> Any:
        calls.append(1)
        real = connect()
        return _AnswerLost(real) if len(calls) == 1 else real

    monkeypatch.setattr(pg_append, "_connection", connection)
    stored = pg_store.append("g1", 1, [Event("a", {"n": 1})], ActionRecord(1, "r1", "d1", 0))
    assert [e.seq for e in stored] == [2]
    assert len(calls) == 2
    assert [e.type for e in pg_store.events("g1")] == ["game_created", "a"]
    assert pg_store.find_action("g1", 1, "r1") == ActionRecord(1, "r1", "d1", 2)


def test_a_database_that_cannot_be_reached_is_store_unavailable() -> None:
    """No server at the address (PostgreSQL down or restarting): the append raises
    StoreUnavailable, an expected fault the server answers `unavailable`, never `internal`."""
    store = EventStore(make_engine("postgresql+psycopg://postgres@127.0.0.1:1/test"))
    try:
        with pytest.raises(StoreUnavailable):
            store.append_many([AppendRequest("g1", 1, [Event("a", {})])])
        with pytest.raises(StoreUnavailable):
            asyncio.run(store.append_many_async([AppendRequest("g1", 1, [Event("a", {})])]))
        with pytest.raises(sa.exc.OperationalError) as read:
            store.events("g1")
        assert unreachable(read.value)
    finally:
        store.engine.dispose()


def test_an_idle_append_connection_is_pinged_first(pg_store: EventStore,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A connection that idled longer than APPEND_IDLE_PING_S is pinged before the append, so
    one that died meanwhile is replaced without failing the append."""
    make_game(pg_store)
    pg_store.append("g1", 1, [Event("a", {})], ActionRecord(1, "r1", "d1", 0))
    first = append_connection_pid(pg_store)
    terminate(pg_store, first)
    monkeypatch.setattr(repository, "APPEND_IDLE_PING_S", 0.0)
    stored = pg_store.append("g1", 2, [Event("b", {})], ActionRecord(1, "r2", "d2", 0))
    assert [e.seq for e in stored] == [3]
    assert append_connection_pid(pg_store) != first


def fresh_store(url: str) -> EventStore:
    engine = make_engine(url)
    upgrade(engine)
    return EventStore(engine)


def wait_until_gone(watcher: EventStore, *pids: int) -> None:
    """Until none of `pids` is a live backend (the server notices a closed socket at once, or
    nearly; asserted after 2 s)."""
    for _ in range(200):
        if not any(backend_alive(watcher, pid) for pid in pids):
            break
        time.sleep(0.01)
    for pid in pids:
        assert not backend_alive(watcher, pid)


def test_the_append_connection_closes_with_the_engine(postgres_database: str) -> None:
    store = fresh_store(postgres_database)
    make_game(store, "g-dispose")
    store.append("g-dispose", 1, [Event("a", {})])
    pid = append_connection_pid(store)
    watcher = fresh_store(postgres_database)
    try:
        assert backend_alive(watcher, pid)
        store.engine.dispose()
        assert store._pg_append is not None and store._pg_append._driver is None
        wait_until_gone(watcher, pid)
    finally:
        watcher.engine.dispose()


# --- on the event loop (`_PgAppend.commit_async`, `EventStore.append_many_async`) -------------


def loop_connection_pid(store: EventStore) -> int:
    assert store._pg_append is not None and store._pg_append._async is not None
    pid: int = store._pg_append._async[1].info.backend_pid
    return pid


def append_on_the_loop(store: EventStore, *requests: AppendRequest) -> list[Any]:
    return asyncio.run(store.append_many_async(list(requests)))


def test_on_the_loop_a_batch_is_one_statement_and_a_broken_key_fails_alone(
    pg_store: EventStore,
) -> None:
    """The event loop's commit stores what the thread's stores (the same statement): a batch of
    several games in seq order; a reused ref is a `DuplicateRef` and a taken seq a
    `ConcurrentAppend`, each failing alone while the rest of the batch is stored."""
    make_game(pg_store, "g1")
    make_game(pg_store, "g2")
    sizes: list[int] = []
    pg_store.on_commit = sizes.append
    results = append_on_the_loop(
        pg_store,
        AppendRequest("g1", 1, [Event("a", {"n": 2}), Event("b", {"n": 3})],
                      ActionRecord(1, "r1", "d1", 0)),
        AppendRequest("g2", 1, [Event("c", {"x": [1, 2]})]),
    )
    assert [[e.seq for e in r] for r in results] == [[2, 3], [2]]
    assert sizes == [2]
    assert [(e.seq, e.type) for e in pg_store.events("g1")] == [
        (1, "game_created"), (2, "a"), (3, "b")]
    assert pg_store.find_action("g1", 1, "r1") == ActionRecord(1, "r1", "d1", 3)
    assert pg_store.events("g2")[-1].payload == {"x": [1, 2]}
    sizes.clear()
    again = append_on_the_loop(
        pg_store,
        AppendRequest("g1", 3, [Event("d", {})], ActionRecord(1, "r1", "d1", 0)),
        AppendRequest("g2", 1, [Event("stale", {})]),
        AppendRequest("g2", 2, [Event("e", {})]),
    )
    assert isinstance(again[0], DuplicateRef)
    assert isinstance(again[1], ConcurrentAppend)
    assert [e.seq for e in again[2]] == [3]
    assert sizes == [3, 1, 1, 1]  # (rolled back whole, then one statement each)
    assert [e.type for e in pg_store.events("g1")][-1] == "b"
    assert [e.type for e in pg_store.events("g2")] == ["game_created", "c", "e"]


def test_on_the_loop_a_broken_connection_is_replaced_and_the_append_stored_once(
        pg_store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop's connection dropped by the server: the append that meets it is tried again
    on a fresh connection and stored, once."""
    monkeypatch.setattr(repository, "APPEND_IDLE_PING_S", 3600.0)  # (no ping: meet it)
    make_game(pg_store)

    async def run() -> None:
        await pg_store.append_many_async(
            [AppendRequest("g1", 1, [Event("a", {})], ActionRecord(1, "r1", "d1", 0))])
        first = loop_connection_pid(pg_store)
        await asyncio.to_thread(terminate, pg_store, first)
        stored = await pg_store.append_many_async(
            [AppendRequest("g1", 2, [Event("b", {})], ActionRecord(1, "r2", "d2", 0))])
        assert [e.seq for e in stored[0]] == [3]  # type: ignore[union-attr]
        assert loop_connection_pid(pg_store) != first

    asyncio.run(run())
    assert [e.type for e in pg_store.events("g1")] == ["game_created", "a", "b"]


def test_on_the_loop_an_idle_connection_is_pinged_first(pg_store: EventStore,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    make_game(pg_store)

    async def run() -> None:
        await pg_store.append_many_async([AppendRequest("g1", 1, [Event("a", {})])])
        first = loop_connection_pid(pg_store)
        await asyncio.to_thread(terminate, pg_store, first)
        monkeypatch.setattr(repository, "APPEND_IDLE_PING_S", 0.0)
        stored = await pg_store.append_many_async([AppendRequest("g1", 2, [Event("b", {})])])
        assert [e.seq for e in stored[0]] == [3]  # type: ignore[union-attr]
        assert loop_connection_pid(pg_store) != first

    asyncio.run(run())


def test_each_event_loop_gets_its_own_connection_and_dispose_closes_it(
    postgres_database: str,
) -> None:
    """A connection belongs to the loop that opened it: another loop's first append closes it
    and opens its own; the engine's dispose closes the last one (no loop needed)."""
    store = fresh_store(postgres_database)
    make_game(store, "g-loops")
    append_on_the_loop(store, AppendRequest("g-loops", 1, [Event("a", {})]))
    first = loop_connection_pid(store)
    append_on_the_loop(store, AppendRequest("g-loops", 2, [Event("b", {})]))
    second = loop_connection_pid(store)
    assert second != first
    watcher = fresh_store(postgres_database)
    try:
        assert backend_alive(watcher, second)
        store.engine.dispose()
        assert store._pg_append is not None and store._pg_append._async is None
        wait_until_gone(watcher, first, second)
    finally:
        watcher.engine.dispose()


def test_on_the_loop_concurrent_appends_take_turns_on_one_connection(
    pg_store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many actions committing at once on one loop (the server's case: each action awaits its
    own commit) take turns on the loop's one connection: every one is stored, each game's in
    seq order, and the one whose seq another took fails alone with `ConcurrentAppend`."""
    games = [f"g{n}" for n in range(8)]
    for g in games:
        make_game(pg_store, g)
    opened: list[Any] = []
    connect = psycopg.AsyncConnection.connect

    async def counted(*args: Any, **kwargs: Any) -> Any:
        opened.append(await connect(*args, **kwargs))
        return opened[-1]

    monkeypatch.setattr(psycopg.AsyncConnection, "connect", counted)

    async def run() -> list[Any]:
        requests = [
            AppendRequest(g, 1 + k, [Event(f"e{k}", {})], ActionRecord(1, f"{g}-r{k}", "d", 0))
            for k in range(3) for g in games
        ]
        requests.append(AppendRequest("g0", 1, [Event("stale", {})]))  # (seq 2 is taken)
        outcomes = await asyncio.gather(
            *(pg_store.append_many_async([r]) for r in requests))
        return [o[0] for o in outcomes]

    results = asyncio.run(run())
    assert len(opened) == 1
    assert isinstance(results[-1], ConcurrentAppend)
    assert all(isinstance(r, list) for r in results[:-1])
    for g in games:
        assert [(e.seq, e.type) for e in pg_store.events(g)] == [
            (1, "game_created"), (2, "e0"), (3, "e1"), (4, "e2")]
        assert pg_store.find_action(g, 1, f"{g}-r2") == ActionRecord(1, f"{g}-r2", "d", 4)
