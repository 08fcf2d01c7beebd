"""The event repository on SQLite and PostgreSQL: append with seq, atomicity, races (issue 2)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from server.rules.core import Event
from server.store import (
    ActionRecord,
    ConcurrentAppend,
    DuplicateRef,
    EventStore,
    GameRecord,
    SeatTaken,
    make_engine,
)
from server.store.migrate import upgrade


@pytest.fixture
def store(database_url: str) -> EventStore:
    engine = make_engine(database_url)
    upgrade(engine)
    upgrade(engine)  # idempotent: a second start migrates nothing
    with engine.begin() as conn:  # the PostgreSQL database is shared by the session's tests
        for table in ("actions", "events", "seats", "games"):
            conn.execute(sa.text(f"DELETE FROM {table}"))
    yield EventStore(engine)
    engine.dispose()


def make_game(store: EventStore, game_id: str = "g1") -> list[Event]:
    record = GameRecord(game_id, "t9a", "Test", b"\x01" * 32, "ab" * 32, datetime.now(UTC))
    return store.create_game(record, f"hash-of-{game_id}", [Event("game_created", {"n": 1})])


def test_create_and_read_back(store: EventStore) -> None:
    stored = make_game(store)
    assert [e.seq for e in stored] == [1]
    record = store.load_game("g1")
    assert record is not None and record.dice_seed == b"\x01" * 32
    assert store.seat_for_token_hash("g1", "hash-of-g1") == 1
    assert store.seat_for_token_hash("g1", "nope") is None
    assert store.load_game("missing") is None


def test_append_assigns_contiguous_seqs_and_keeps_payloads(store: EventStore) -> None:
    make_game(store)
    stored = store.append("g1", 1, [Event("a", {"x": 1.5, "nested": {"k": [1, 2]}}, actor=1),
                                    Event("b", {}, actor="system", visibility="player:2")])
    assert [e.seq for e in stored] == [2, 3]
    back = store.events("g1")
    assert [(e.seq, e.type, e.actor, e.visibility) for e in back] == [
        (1, "game_created", "system", "public"),
        (2, "a", 1, "public"),
        (3, "b", "system", "player:2"),
    ]
    assert back[1].payload == {"x": 1.5, "nested": {"k": [1, 2]}}
    assert [e.seq for e in store.events("g1", since=1, until=2)] == [2]
    assert store.last_seq("g1") == 3


def test_a_stale_append_stores_nothing(store: EventStore) -> None:
    make_game(store)
    store.append("g1", 1, [Event("a", {})])
    with pytest.raises(ConcurrentAppend):
        store.append("g1", 1, [Event("b", {}), Event("c", {})])
    assert [e.type for e in store.events("g1")] == ["game_created", "a"]


def test_duplicate_ref_is_refused_atomically(store: EventStore) -> None:
    make_game(store)
    store.append("g1", 1, [Event("a", {})], ActionRecord(1, "r1", "d1", 0))
    with pytest.raises(DuplicateRef):
        store.append("g1", 2, [Event("b", {})], ActionRecord(1, "r1", "d2", 0))
    assert store.last_seq("g1") == 2
    found = store.find_action("g1", 1, "r1")
    assert found == ActionRecord(1, "r1", "d1", 2)
    # The same ref from the other seat is a different action.
    store.append("g1", 2, [Event("b", {})], ActionRecord(2, "r1", "d2", 0))


def test_a_seat_is_claimed_once(store: EventStore) -> None:
    make_game(store)
    store.claim_seat("g1", 2, "h2", 1, [Event("seat_claimed", {"seat": 2})])
    with pytest.raises(SeatTaken):
        store.claim_seat("g1", 2, "h3", 2, [Event("seat_claimed", {"seat": 2})])
    assert store.seat_hashes("g1") == {1: "hash-of-g1", 2: "h2"}
    assert store.last_seq("g1") == 2


def test_racing_writers_never_duplicate_or_lose_a_seq(store: EventStore) -> None:
    """Threads append with retry-on-conflict; the log ends contiguous with every event once."""
    make_game(store)
    per_writer, writers = 15, 4

    def writer(n: int) -> None:
        for i in range(per_writer):
            while True:
                last = store.last_seq("g1")
                try:
                    store.append("g1", last, [Event("w", {"writer": n, "i": i})])
                    break
                except ConcurrentAppend:
                    continue

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    events = store.events("g1")
    assert [e.seq for e in events] == list(range(1, 2 + per_writer * writers))
    written = sorted((e.payload["writer"], e.payload["i"]) for e in events[1:])
    assert written == sorted((n, i) for n in range(writers) for i in range(per_writer))


def test_sqlite_is_durable_by_configuration(tmp_path: object) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/d.db")
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
    engine.dispose()


def test_schema_has_the_unique_seq_key(store: EventStore) -> None:
    inspector = sa.inspect(store.engine)
    uniques = inspector.get_unique_constraints("events")
    assert any(set(u["column_names"]) == {"game_id", "seq"} for u in uniques)
    columns = {c["name"] for c in inspector.get_columns("seats")}
    assert "token_hash" in columns and "token" not in columns


def test_an_ambush_roll_has_the_same_actor_live_stored_and_on_resume(store: EventStore) -> None:
    """Issue 12 item 6: `ambush_rolled` was `actor: null` live and `"None"` once stored. A
    system event's actor is "system" everywhere; rolls stored as "None" read back so too."""
    from tests.rules.t9a.test_ambush import ambush_game, end_phases_until

    _state, events = end_phases_until(ambush_game(), 2, 1, "Movement", faces=[3])
    [live] = [e for e in events if e.type == "ambush_rolled"]
    assert live.actor == "system"
    make_game(store)
    [stored] = store.append("g1", 1, [live])
    [back] = store.events("g1", since=1)
    assert back.actor == live.actor == "system"
    assert back.to_wire(None) == stored.to_wire(None)
    with pytest.raises(TypeError):
        store.append("g1", 2, [Event("ambush_rolled", {}, actor=None)])  # type: ignore[arg-type]
    with store.engine.begin() as conn:  # a roll stored by an older version
        conn.execute(sa.text("UPDATE events SET actor = 'None' WHERE seq = 2"))
    assert store.events("g1", since=1)[0].actor == "system"


def test_an_action_commit_stores_rows_as_every_other_write_does(store: EventStore) -> None:
    """An action's commit (`append`) writes on SQLite through the driver directly; its rows
    are the same text as the rows other writes store through SQLAlchemy (the game's first
    events): times in one format, JSON compact, actors as text, and they read back alike."""
    make_game(store)
    store.append("g1", 1, [Event("game_created", {"n": 1})], ActionRecord(1, "r1", "d1", 0))
    with store.engine.connect() as conn:
        rows = conn.execute(sa.text(
            "SELECT seq, type, actor, visibility, payload, created_at FROM events "
            "WHERE game_id = 'g1' ORDER BY seq"
        )).all()
        action = conn.execute(sa.text(
            "SELECT seat, ref, digest, seq, created_at FROM actions WHERE game_id = 'g1'"
        )).one()
    first, second = rows
    assert first[1:5] == second[1:5]
    assert type(first.created_at) is type(second.created_at)  # noqa: E721 - same storage
    if isinstance(first.created_at, str):  # (SQLite keeps text: both in SQLAlchemy's format)
        assert len(first.created_at) == len(second.created_at) == len(action.created_at)
    assert tuple(action[:4]) == (1, "r1", "d1", 2)
    assert store.find_action("g1", 1, "r1") == ActionRecord(1, "r1", "d1", 2)
    assert [e.payload for e in store.events("g1")] == [{"n": 1}, {"n": 1}]
