"""An action's commit on PostgreSQL (server/store/repository.py, `_PgAppend`): one statement
on a connection kept for appends, replaced when it breaks, pinged after idling, closed with
the engine (issue 22)."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa

from server.rules.core import Event
from server.store import ActionRecord, DuplicateRef, EventStore, make_engine, repository
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


def test_a_broken_append_connection_is_replaced(pg_store: EventStore,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The server drops the append connection (a restart, an administrator): the append that
    meets the dead connection fails and stores nothing, the next one gets a new connection."""
    monkeypatch.setattr(repository, "APPEND_IDLE_PING_S", 3600.0)  # (no ping: meet it)
    make_game(pg_store)
    pg_store.append("g1", 1, [Event("a", {})], ActionRecord(1, "r1", "d1", 0))
    first = append_connection_pid(pg_store)
    terminate(pg_store, first)
    with pytest.raises(Exception) as failed:
        pg_store.append("g1", 2, [Event("b", {})], ActionRecord(1, "r2", "d2", 0))
    assert not isinstance(failed.value, DuplicateRef)
    stored = pg_store.append("g1", 2, [Event("b", {})], ActionRecord(1, "r2", "d2", 0))
    assert [e.seq for e in stored] == [3]
    assert append_connection_pid(pg_store) != first
    assert [e.type for e in pg_store.events("g1")] == ["game_created", "a", "b"]


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


def test_the_append_connection_closes_with_the_engine(postgres_database: str) -> None:
    engine = make_engine(postgres_database)
    upgrade(engine)
    store = EventStore(engine)
    make_game(store, "g-dispose")
    store.append("g-dispose", 1, [Event("a", {})])
    pid = append_connection_pid(store)
    watcher = make_engine(postgres_database)
    try:
        assert backend_alive(EventStore(watcher), pid)
        engine.dispose()
        assert store._pg_append is not None and store._pg_append._driver is None
        for _ in range(200):  # (the server notices the closed socket at once, or nearly)
            if not backend_alive(EventStore(watcher), pid):
                break
            time.sleep(0.01)
        assert not backend_alive(EventStore(watcher), pid)
    finally:
        watcher.dispose()
