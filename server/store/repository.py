"""The event repository: append a game's events with `seq = last + 1`, read them back.

Synchronous SQLAlchemy; the service calls it from a worker thread, except an action's commit
on PostgreSQL, which runs on the event loop (`append_many_async`: psycopg's asynchronous
connection, no thread to hand it to and back; server/games/service.py). The unique
`(game_id, seq)` key is the arbiter when two writers race: the loser gets `ConcurrentAppend`
and nothing of its batch is stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import threading
import time
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from server.rules.core import Event
from server.store.tables import actions, events, games, seats

WRITE_OPTION = "warfield_write"
# The statements of every action's commit, built once: a statement built per call is coerced
# and given a cache key each time (a third of the commit's CPU on SQLite, bench/README.md).
INSERT_EVENTS = events.insert()
INSERT_ACTION = actions.insert()
EVENT_COLUMNS = ("game_id", "seq", "type", "actor", "visibility", "payload", "created_at")
ACTION_COLUMNS = ("game_id", "seat", "ref", "digest", "seq", "created_at")


class StoreError(Exception):
    """Base of the repository's own errors."""


class ConcurrentAppend(StoreError):
    """Another writer stored an event with one of our seqs first; nothing of ours was stored."""


class SeatTaken(StoreError):
    """The seat already has a player."""


class DuplicateRef(StoreError):
    """This seat already used this action `ref`."""


class GameExists(StoreError):
    """A game with this id is stored already (an import under an id in use)."""


class StoreUnavailable(StoreError):
    """The database could not be reached (restarting, a dropped connection, a full pool), on
    the first try and again on a fresh connection. An expected fault, not a bug: what was
    asked may or may not be stored, so it is sent again with the same `ref` (an action's
    ref makes the resend exactly-once) once the database answers again."""

    retry_after_s = 1.0


# The driver's failures that mean "the server is not there right now" (a restart, a dropped
# or refused connection) rather than a bug: psycopg's own, on the append connection.
_DRIVER_UNREACHABLE: tuple[type[BaseException], ...] = ()
try:  # (psycopg is the PostgreSQL driver; SQLite needs none)
    import psycopg as _psycopg

    _DRIVER_UNREACHABLE = (_psycopg.OperationalError, _psycopg.InterfaceError)
except ImportError:  # pragma: no cover - psycopg is a dependency of the project
    pass


def unreachable(exc: BaseException) -> bool:
    """Whether `exc` says the database could not be reached (answered `unavailable`, to be
    tried again), as opposed to a bug (answered `internal`): a dropped or refused PostgreSQL
    connection, directly or through SQLAlchemy, or a pool with no connection to give in time.
    (SQLite's own failures are not among them: its file is not restarted under the server.)"""
    if isinstance(exc, StoreUnavailable | sa.exc.TimeoutError):
        return True
    if isinstance(exc, sa.exc.DBAPIError):
        return exc.connection_invalidated or isinstance(exc.orig, _DRIVER_UNREACHABLE)
    return isinstance(exc, _DRIVER_UNREACHABLE)


@dataclass(frozen=True)
class GameRecord:
    id: str
    system: str
    name: str
    dice_seed: bytes = field(repr=False)  # the game's secret until it ends: never in a log line
    dice_commitment: str
    created_at: datetime
    # SHA-256 of the invite secret that claims seat 2; None for a game made before migration
    # 0002 (or imported without one), whose free seat needs no invite.
    invite_hash: str | None = field(default=None, repr=False)
    # Seconds spectators are kept behind the players (0: none); see server/games/delay.py.
    spectator_delay_s: int = 0


@dataclass(frozen=True, slots=True)
class ActionRecord:
    seat: int
    ref: str
    digest: str
    seq: int


@dataclass(frozen=True, slots=True)
class AppendRequest:
    """One `append`: events after `last_seq`, with the action's ref if it has one."""

    game_id: str
    last_seq: int
    events: Sequence[Event]
    action: ActionRecord | None = None


@dataclass(slots=True)
class _Prepared:
    """An append ready for the driver: its events with their seqs and its rows."""

    stored: list[Event]
    rows: list[Any]
    done: Any  # the action's row, or None


@dataclass(frozen=True, slots=True)
class _Failed:
    """A request that failed alone in the one-by-one retry (`EventStore._attempts`)."""

    index: int
    cause: Exception
    broke_a_key: bool


_Attempts = Generator["list[_Prepared] | _Failed", "Exception | None", None]


def _next_attempt(
    attempts: _Attempts,
    outcome: Exception | None,
    failed: list[tuple[int, Exception]],
    broken: dict[int, Exception],
) -> list[_Prepared] | None:
    """Tell `attempts` how the last commit went; the next batch to commit (None: done),
    recording the requests that failed alone on the way."""
    try:
        step = attempts.send(outcome)
        while isinstance(step, _Failed):
            if step.broke_a_key:
                failed.append((step.index, step.cause))
            else:
                broken[step.index] = step.cause
            step = next(attempts)
    except StopIteration:
        return None
    return step


@dataclass(frozen=True)
class ExpiredGame:
    """A game past the retention period: `finished` (its `game_ended` event is older than the
    cutoff) or `abandoned` (no event since the cutoff); `last_at` is its latest event."""

    id: str
    reason: str
    last_at: datetime


GAME_ENDED = "game_ended"  # server/rules/endgame.py (the store does not import the rules)


def _now() -> datetime:
    return datetime.now(UTC)


def _utc(moment: datetime) -> datetime:
    """A stored time in UTC (SQLite gives it back without its zone)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _event_row(game_id: str, event: Event, now: datetime) -> dict[str, Any]:
    """The `events` row of a stored event (both write paths build it here)."""
    return {
        "game_id": game_id,
        "seq": event.seq,
        "type": event.type,
        "actor": _actor_to_db(event.actor),
        "visibility": event.visibility,
        "payload": dict(event.payload),
        "created_at": now,
    }


def _actor_to_db(actor: int | str) -> str:
    if not isinstance(actor, (int, str)) or isinstance(actor, bool):
        # (an actor the wire and the log would show differently: null live, "None" stored)
        raise TypeError(f"an event's actor is a seat or a string, not {actor!r}")
    return str(actor)


def _actor_from_db(actor: str) -> int | str:
    if actor == "None":  # ambush rolls stored before their actor was "system"
        return "system"
    return int(actor) if actor.isdigit() else actor


def make_engine(url: str) -> Engine:
    """An engine for `url`; SQLite files get WAL and synchronous=FULL (durable commits)."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 30},
            json_serializer=_dumps,
        )

        @sa.event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            # The driver's own transaction handling is replaced by explicit BEGIN IMMEDIATE,
            # so a writer takes the write lock before it reads the last seq.
            dbapi_conn.isolation_level = None
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=FULL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        @sa.event.listens_for(engine, "begin")
        def _sqlite_begin(conn: Any) -> None:
            writing = conn.get_execution_options().get(WRITE_OPTION, False)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if writing else "BEGIN")

        return engine
    return sa.create_engine(
        url, pool_pre_ping=True, pool_size=10, max_overflow=20, json_serializer=_dumps
    )


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), allow_nan=False)


class _DriverInsert:
    """An INSERT compiled once for the engine's dialect, run on the driver's own connection:
    its values converted by the columns' own bind processors, so a row is stored exactly as
    SQLAlchemy would store it (the same text for times and JSON), without SQLAlchemy's
    execution machinery (most of an action's commit CPU, bench/README.md)."""

    def __init__(self, table: sa.Table, columns: Sequence[str], dialect: Any) -> None:
        # (`inline`: no RETURNING of the generated id, which nobody reads)
        compiled = table.insert().inline().compile(dialect=dialect, column_keys=list(columns))
        self.sql = compiled.string
        self.positional = bool(dialect.positional)
        names = list(compiled.positiontup or ()) if self.positional else list(columns)
        assert sorted(names) == sorted(columns), names
        self.convert = [
            (name, table.c[name].type.dialect_impl(dialect).bind_processor(dialect))
            for name in names
        ]

    def row(self, values: Mapping[str, Any]) -> Any:
        """The driver's parameters for one row: a tuple (SQLite) or a dict (psycopg)."""
        if self.positional:
            return tuple(
                values[name] if process is None else process(values[name])
                for name, process in self.convert
            )
        return {
            name: values[name] if process is None else process(values[name])
            for name, process in self.convert
        }


# An append connection idle longer than this is pinged before it is used (a PostgreSQL that
# restarted meanwhile gets a new connection rather than a failed commit); a busy one is not.
APPEND_IDLE_PING_S = 1.0


class _PgAppend:
    """An action's commit on PostgreSQL through psycopg: ONE statement, run in autocommit mode
    on a connection kept for appends, so it is its own transaction and durable when it
    returns (PostgreSQL flushes its WAL at commit; `synchronous_commit` is not touched).

    The statement inserts every event of the batch and every action row (a data-modifying
    `WITH`), so a batch is one statement and one round trip, and a broken key
    (`uq_events_game_seq`, the actions' primary key) fails all of it: nothing of the batch is
    stored, as with a transaction. Against the pipelined BEGIN, INSERTs, COMMIT on a pooled
    connection (whose checkout pinged the server first) this halves an append's wall-clock
    time and cuts its CPU by more (bench/README.md "The PostgreSQL append").

    The values are the ones SQLAlchemy's own INSERT stores: the same JSON text (the engine's
    serializer, cast to `json`, which keeps text as it is), the same times, actors as text.
    The connection is taken from the engine's pool and detached from it; it is replaced after
    any failure that is not a broken key, pinged when it was idle a while, and closed with the
    engine (`Engine.dispose`).
    """

    EVENT_VALUES = "(%s, %s, %s, %s, %s, %s::json, %s)"
    ACTION_VALUES = "(%s, %s, %s, %s, %s, %s)"
    INSERT_EVENTS = (
        "INSERT INTO events (game_id, seq, type, actor, visibility, payload, created_at) VALUES "
    )
    INSERT_ACTIONS = "INSERT INTO actions (game_id, seat, ref, digest, seq, created_at) VALUES "

    @classmethod
    @functools.lru_cache(maxsize=128)
    def statement(cls, events: int, actions: int) -> str:
        """The one statement storing `events` rows and `actions` rows (kept for the 128 latest
        shapes; psycopg prepares a shape on the server after its fifth use, and keeps 100)."""
        stored = cls.INSERT_EVENTS + ", ".join([cls.EVENT_VALUES] * events)
        done = cls.INSERT_ACTIONS + ", ".join([cls.ACTION_VALUES] * actions)
        if not actions:
            return stored
        if not events:
            return done
        return f"WITH stored AS ({stored}) {done}"

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._lock = threading.Lock()
        self._raw: Any = None  # SQLAlchemy's detached connection
        self._driver: Any = None  # its psycopg connection
        self._used = 0.0
        self._integrity_error: type[Exception] = engine.dialect.loaded_dbapi.IntegrityError
        # The event loop's connection (`commit_async`): its loop and psycopg connection.
        self._async: tuple[asyncio.AbstractEventLoop, Any] | None = None
        self._async_used = 0.0
        self._async_lock: tuple[asyncio.AbstractEventLoop, asyncio.Lock] | None = None
        sa.event.listen(engine, "engine_disposed", self._on_dispose)

    @staticmethod
    def event_row(game_id: str, event: Event, now: datetime) -> tuple[Any, ...]:
        row = _event_row(game_id, event, now)
        row["payload"] = _dumps(row["payload"])
        return tuple(row[name] for name in EVENT_COLUMNS)

    @staticmethod
    def action_row(values: Mapping[str, Any]) -> tuple[Any, ...]:
        return tuple(values[name] for name in ACTION_COLUMNS)

    def statement_for(self, batch: Sequence[_Prepared]) -> tuple[str, list[Any]] | None:
        """The one statement storing `batch` and its parameters (None: nothing to store)."""
        values: list[Any] = []
        done: list[Any] = []
        events = actions = 0
        for prepared in batch:
            for row in prepared.rows:
                values.extend(row)
                events += 1
            if prepared.done is not None:
                done.extend(prepared.done)
                actions += 1
        if not events and not actions:
            return None
        values.extend(done)
        return self.statement(events, actions), values

    def commit(self, batch: Sequence[_Prepared]) -> None:
        """Store `batch` in one statement; raises the driver's IntegrityError on a broken key
        (nothing stored), or whatever else failed (the connection is then replaced)."""
        statement = self.statement_for(batch)
        if statement is None:
            return
        sql, values = statement
        with self._lock:
            try:
                driver = self._connection()
                driver.execute(sql, values)
            except self._integrity_error:
                raise
            except BaseException as exc:
                self._close()
                if not unreachable(exc):
                    raise
                self._commit_again(sql, values, batch, exc)
            self._used = time.monotonic()

    def _commit_again(
        self, sql: str, values: list[Any], batch: Sequence[_Prepared], first: BaseException
    ) -> None:
        """The one retry of a commit whose connection failed, on a fresh connection. The
        first try may have committed before its answer was lost: a broken key on the retry is
        then our own rows, found by `_already_stored`, and the commit stands."""
        try:
            driver = self._connection()
            try:
                driver.execute(sql, values)
            except self._integrity_error:
                if self._already_stored(driver, batch):
                    return
                raise
        except self._integrity_error:
            raise
        except BaseException as exc:
            self._close()
            if unreachable(exc):
                raise StoreUnavailable(f"the database cannot be reached: {exc}") from first
            raise

    def _connection(self) -> Any:
        driver: Any = self._driver
        if driver is not None:
            if driver.closed or driver.broken:
                self._close()
            elif time.monotonic() - self._used > APPEND_IDLE_PING_S:
                try:
                    driver.execute("SELECT 1")
                except Exception:
                    self._close()
        if self._raw is None:
            raw = self._engine.raw_connection()
            driver = raw.driver_connection
            raw.detach()
            driver.autocommit = True
            self._raw, self._driver = raw, driver
        return self._driver

    def _close(self) -> None:
        raw, self._raw, self._driver = self._raw, None, None
        if raw is not None:
            with contextlib.suppress(Exception):
                raw.close()

    # --- on the event loop (PostgreSQL's commits in the server: server/games/service.py) -------

    async def commit_async(self, batch: Sequence[_Prepared]) -> None:
        """`commit` on the running event loop, through psycopg's asynchronous connection: the
        statement is sent and its result read by the loop itself, with no database thread, no
        hand-off to it and back, and no contention for the GIL with it (bench/README.md "Sixth
        sitting"). The same statement, durability and failures as `commit`.

        One connection per event loop, kept, pinged after idling, replaced after any failure
        that is not a broken key (a cancelled statement included: its outcome is unknown, and
        the log says what was stored), closed with the engine. Concurrent callers take turns
        (`_loop_lock`, first come first served): each statement is its own transaction, as
        PostgreSQL's one connection runs them."""
        statement = self.statement_for(batch)
        if statement is None:
            return
        sql, values = statement
        async with self._loop_lock():
            try:
                driver = await self._async_connection()
                await driver.execute(sql, values)
            except self._integrity_error:
                raise
            except BaseException as exc:
                self._close_async()
                if not unreachable(exc):
                    raise
                await self._commit_again_async(sql, values, batch, exc)
            self._async_used = time.monotonic()

    async def _commit_again_async(
        self, sql: str, values: list[Any], batch: Sequence[_Prepared], first: BaseException
    ) -> None:
        """`_commit_again` on the event loop's connection."""
        try:
            driver = await self._async_connection()
            try:
                await driver.execute(sql, values)
            except self._integrity_error:
                if await self._already_stored_async(driver, batch):
                    return
                raise
        except self._integrity_error:
            raise
        except BaseException as exc:
            self._close_async()
            if unreachable(exc):
                raise StoreUnavailable(f"the database cannot be reached: {exc}") from first
            raise

    # A batch is one statement, so all of it is stored or none: one of its rows tells. An
    # event row is ours when its game, seq, kind and time (to the microsecond, set by us) are;
    # an action row when its seat, ref and digest are.
    FIND_EVENT = (
        "SELECT 1 FROM events WHERE game_id = %s AND seq = %s AND type = %s AND created_at = %s"
    )
    FIND_ACTION = (
        "SELECT 1 FROM actions WHERE game_id = %s AND seat = %s AND ref = %s AND digest = %s"
    )

    @classmethod
    def _probe(cls, batch: Sequence[_Prepared]) -> tuple[str, tuple[Any, ...]]:
        for prepared in batch:
            if prepared.rows:
                game_id, seq, kind, _actor, _visibility, _payload, created = prepared.rows[0]
                return cls.FIND_EVENT, (game_id, seq, kind, created)
        done = next(p.done for p in batch if p.done is not None)
        game_id, seat, ref, digest, _seq, _created = done
        return cls.FIND_ACTION, (game_id, seat, ref, digest)

    def _already_stored(self, driver: Any, batch: Sequence[_Prepared]) -> bool:
        sql, params = self._probe(batch)
        return driver.execute(sql, params).fetchone() is not None

    async def _already_stored_async(self, driver: Any, batch: Sequence[_Prepared]) -> bool:
        sql, params = self._probe(batch)
        cursor = await driver.execute(sql, params)
        return await cursor.fetchone() is not None

    def _loop_lock(self) -> asyncio.Lock:
        """The running loop's turn-taking lock (a new loop, as in tests, gets its own)."""
        loop = asyncio.get_running_loop()
        if self._async_lock is None or self._async_lock[0] is not loop:
            self._async_lock = (loop, asyncio.Lock())
        return self._async_lock[1]

    async def _async_connection(self) -> Any:
        """The running loop's connection (under `_loop_lock`): opened when there is none,
        replaced when it belongs to another loop or broke, pinged when it idled a while."""
        loop = asyncio.get_running_loop()
        held = self._async
        if held is not None:
            held_loop, driver = held
            if held_loop is not loop or driver.closed or driver.broken:
                self._close_async()
            elif time.monotonic() - self._async_used > APPEND_IDLE_PING_S:
                try:
                    await driver.execute("SELECT 1")
                except Exception:
                    self._close_async()
        if self._async is None:
            import psycopg  # (only a PostgreSQL engine gets here)

            args, kwargs = self._engine.dialect.create_connect_args(self._engine.url)
            driver = await psycopg.AsyncConnection.connect(*args, **kwargs, autocommit=True)
            self._async = (loop, driver)
        return self._async[1]

    def _close_async(self) -> None:
        """Close the loop's connection at once, from any thread or loop (libpq's own close: no
        await, so a dispose or a failure needs no running loop)."""
        held, self._async = self._async, None
        if held is not None:
            with contextlib.suppress(Exception):
                held[1].pgconn.finish()

    def _on_dispose(self, _engine: Engine) -> None:
        with self._lock:
            self._close()
        self._close_async()


class EventStore:
    """Games, seats and the append-only event log in one SQL database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # Writes take SQLite's write lock up front (BEGIN IMMEDIATE); reads do not.
        self.writer = engine.execution_options(**{WRITE_OPTION: True})
        # On SQLite this process's writers queue on a lock of their own first: SQLite's busy
        # handler polls with sleeps of up to 100 ms, which showed as latency spikes under load.
        self._write_lock: Any = (
            threading.Lock() if engine.dialect.name == "sqlite" else contextlib.nullcontext()
        )
        # An action's commit (`append`) goes to the driver directly (`_DriverInsert`) on
        # SQLite and on PostgreSQL through psycopg; any other driver goes through SQLAlchemy.
        self._driver_inserts: tuple[_DriverInsert, _DriverInsert] | None = None
        self._pg_append: _PgAppend | None = None
        if engine.dialect.driver == "psycopg":
            self._pg_append = _PgAppend(engine)
        elif engine.dialect.name == "sqlite":
            self._driver_inserts = (
                _DriverInsert(events, EVENT_COLUMNS, engine.dialect),
                _DriverInsert(actions, ACTION_COLUMNS, engine.dialect),
            )
        # Called with the number of appends before each append transaction (tests count them).
        self.on_commit: Callable[[int], None] | None = None

    @contextlib.contextmanager
    def _write(self) -> Iterator[sa.Connection]:
        """A write transaction (committed when the block ends without an exception)."""
        with self._write_lock, self.writer.begin() as conn:
            yield conn

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def ping(self) -> None:
        with self.engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))

    # --- writes --------------------------------------------------------------------------------

    def create_game(
        self,
        record: GameRecord,
        token_hash: str,
        first_events: Sequence[Event],
    ) -> list[Event]:
        """Create the game, seat 1 and its first events in one transaction."""
        with self._write() as conn:
            self._insert_game(conn, record)
            conn.execute(
                seats.insert().values(
                    game_id=record.id, seat=1, token_hash=token_hash, created_at=_now()
                )
            )
            return self._insert_events(conn, record.id, 0, first_events)

    def import_game(
        self, record: GameRecord, token_hashes: Mapping[int, str], log: Sequence[Event]
    ) -> list[Event]:
        """Restore a game whole (`warfield import`): the game with its invite hash, a seat for
        each token hash and its log from seq 1, in one write transaction. `GameExists` if
        the id is taken; nothing is stored then."""
        try:
            with self._write() as conn:
                self._insert_game(conn, record)
                if token_hashes:
                    now = _now()
                    conn.execute(seats.insert(), [
                        {"game_id": record.id, "seat": seat, "token_hash": digest,
                         "created_at": now}
                        for seat, digest in sorted(token_hashes.items())
                    ])
                return self._insert_events(conn, record.id, 0, log)
        except IntegrityError as exc:
            if self.load_game(record.id) is not None:
                raise GameExists(record.id) from exc
            raise

    @staticmethod
    def _insert_game(conn: sa.Connection, record: GameRecord) -> None:
        conn.execute(
            games.insert().values(
                id=record.id,
                system=record.system,
                name=record.name,
                dice_seed=record.dice_seed.hex(),
                dice_commitment=record.dice_commitment,
                created_at=record.created_at,
                invite_hash=record.invite_hash,
                spectator_delay_s=record.spectator_delay_s,
            )
        )

    def claim_seat(
        self, game_id: str, seat: int, token_hash: str, last_seq: int, new_events: Sequence[Event]
    ) -> list[Event]:
        """Give `seat` a token and append its events, atomically; `SeatTaken` if it has one."""
        try:
            with self._write() as conn:
                conn.execute(
                    seats.insert().values(
                        game_id=game_id, seat=seat, token_hash=token_hash, created_at=_now()
                    )
                )
                return self._insert_events(conn, game_id, last_seq, new_events)
        except IntegrityError as exc:
            if self.seat_hashes(game_id).get(seat) is not None:
                raise SeatTaken(f"seat {seat} is taken") from exc
            raise ConcurrentAppend(str(exc.orig)) from exc

    def set_invite_hash(self, game_id: str, invite_hash: str) -> bool:
        """Give a game a new invite (the host's `warfield invite`); False if no such game."""
        with self._write() as conn:
            done = conn.execute(
                games.update().where(games.c.id == game_id).values(invite_hash=invite_hash)
            )
        return done.rowcount == 1

    def append(
        self,
        game_id: str,
        last_seq: int,
        new_events: Sequence[Event],
        action: ActionRecord | None = None,
    ) -> list[Event]:
        """Append events after `last_seq` in ONE transaction; return them with their seqs.

        Raises `ConcurrentAppend` when another writer took one of the seqs, and `DuplicateRef`
        when the action's `ref` was already used by that seat. Nothing is stored in either case.
        """
        result = self.append_many([AppendRequest(game_id, last_seq, new_events, action)])[0]
        if isinstance(result, Exception):
            raise result
        return result

    def append_many(
        self, requests: Sequence[AppendRequest]
    ) -> list[list[Event] | Exception]:
        """`append` for several requests in ONE transaction with one flush (group commit,
        server/store/group.py); one result per request, in order: its stored events, or the
        error `append` would have raised for it alone (`ConcurrentAppend`, `DuplicateRef`;
        `TypeError` for an event it cannot store), in which case nothing of it is stored and
        the others are committed all the same. Any other failure of the batch's transaction
        (the disk, the connection) raises, and nothing of the batch is stored.

        The requests are written in order, so two of the same game chain (seq after seq). When
        one of them breaks a key, the transaction is rolled back and the requests are written
        again one transaction each (conflicts are rare: a race between processes, the retry of
        a ref), each failing alone.
        """
        if self._driver_inserts is None and self._pg_append is None:
            return [self._append_one(r) for r in requests]
        results, prepared = self._prepare_all(requests)
        failed: list[tuple[int, Exception]] = []
        broken: dict[int, Exception] = {}
        if prepared:
            with self._driver_commit() as commit:
                attempts = self._attempts(prepared)
                outcome: Exception | None = None
                while (batch := _next_attempt(attempts, outcome, failed, broken)) is not None:
                    try:
                        commit(batch)
                        outcome = None
                    except Exception as exc:
                        outcome = exc
        return self._results(requests, results, prepared, failed, broken)

    @property
    def appends_on_the_loop(self) -> bool:
        """Whether `append_many_async` commits on the event loop itself (PostgreSQL)."""
        return self._pg_append is not None

    async def append_many_async(
        self, requests: Sequence[AppendRequest]
    ) -> list[list[Event] | Exception]:
        """`append_many` on the running event loop (PostgreSQL: `_PgAppend.commit_async`): the
        same statement, results and failures, without a database thread. (Explaining a broken
        key reads the actions table: that rare step runs on a thread.)"""
        pg = self._pg_append
        if pg is None:
            raise RuntimeError("appends on the event loop need PostgreSQL")
        results, prepared = self._prepare_all(requests)
        failed: list[tuple[int, Exception]] = []
        broken: dict[int, Exception] = {}
        if prepared:
            attempts = self._attempts(prepared)
            outcome: Exception | None = None
            while (batch := _next_attempt(attempts, outcome, failed, broken)) is not None:
                if self.on_commit is not None:  # (tests: count the transactions)
                    self.on_commit(len(batch))
                try:
                    await pg.commit_async(batch)
                    outcome = None
                except Exception as exc:
                    outcome = exc
        if failed:
            return await asyncio.to_thread(
                self._results, requests, results, prepared, failed, broken)
        return self._results(requests, results, prepared, failed, broken)

    def _prepare_all(
        self, requests: Sequence[AppendRequest]
    ) -> tuple[list[list[Event] | Exception], list[tuple[int, _Prepared]]]:
        """Each request's place in the results (an exception already: it cannot be stored) and
        the prepared ones, with their places."""
        results: list[list[Event] | Exception] = []
        prepared: list[tuple[int, _Prepared]] = []
        for r in requests:
            try:
                prepared.append((len(results), self._prepare(r)))
                results.append([])
            except TypeError as exc:
                results.append(exc)
        return results, prepared

    def _attempts(self, prepared: list[tuple[int, _Prepared]]) -> _Attempts:
        """The commits of a batch (`append_many`): the whole batch; when it broke a key, each
        request alone, each failing alone. Sent each commit's failure (None: committed), it
        yields the next batch to commit; its end records which requests broke a key (`failed`)
        and which failed otherwise in the one-by-one retry (`broken`). A failure of the whole
        batch that is not a broken key is raised: nothing of the batch is stored."""
        integrity_error = self.engine.dialect.loaded_dbapi.IntegrityError
        outcome = yield [p for _, p in prepared]
        if outcome is None:
            return
        if not isinstance(outcome, integrity_error):
            raise outcome
        if len(prepared) == 1:
            yield _Failed(prepared[0][0], outcome, broke_a_key=True)
            return
        for index, one in prepared:
            outcome = yield [one]
            if outcome is not None:
                yield _Failed(index, outcome, broke_a_key=isinstance(outcome, integrity_error))

    def _results(
        self,
        requests: Sequence[AppendRequest],
        results: list[list[Event] | Exception],
        prepared: list[tuple[int, _Prepared]],
        failed: list[tuple[int, Exception]],
        broken: dict[int, Exception],
    ) -> list[list[Event] | Exception]:
        """Each request's result: its stored events, or why it failed alone (a broken key is a
        `DuplicateRef` when the seat's ref is stored already, else a `ConcurrentAppend`)."""
        for index, p in prepared:
            results[index] = broken.get(index, p.stored)
        for index, cause in failed:
            request = requests[index]
            action = request.action
            if action is not None and self.find_action(request.game_id, action.seat, action.ref):
                error: StoreError = DuplicateRef(action.ref)
            else:
                error = ConcurrentAppend(str(cause))
            error.__cause__ = cause
            results[index] = error
        return results

    def _append_one(self, request: AppendRequest) -> list[Event] | StoreError:
        """`append` through SQLAlchemy (a driver other than SQLite's and psycopg)."""
        game_id, last_seq, action = request.game_id, request.last_seq, request.action
        try:
            with self._write() as conn:
                stored = self._insert_events(conn, game_id, last_seq, request.events)
                if action is not None:
                    conn.execute(
                        INSERT_ACTION,
                        {
                            "game_id": game_id,
                            "seat": action.seat,
                            "ref": action.ref,
                            "digest": action.digest,
                            "seq": stored[-1].seq if stored else last_seq,
                            "created_at": _now(),
                        },
                    )
                return stored
        except IntegrityError as exc:
            error: StoreError
            if action is not None and self.find_action(game_id, action.seat, action.ref):
                error = DuplicateRef(action.ref)
            else:
                error = ConcurrentAppend(str(exc.orig))
            error.__cause__ = exc
            return error

    @contextlib.contextmanager
    def _driver_commit(self) -> Iterator[Callable[[Sequence[_Prepared]], None]]:
        """What commits a batch of prepared appends on the driver's own connection: PostgreSQL's
        one statement (`_PgAppend`), or SQLite's transaction on a pooled connection."""

        def counted(commit: Callable[[Sequence[_Prepared]], None]) -> Callable[..., None]:
            def run(batch: Sequence[_Prepared]) -> None:
                if self.on_commit is not None:  # (tests: count the transactions)
                    self.on_commit(len(batch))
                commit(batch)

            return run

        if self._pg_append is not None:
            yield counted(self._pg_append.commit)
            return
        with self._write_lock:
            raw = self.engine.raw_connection()
            try:
                driver: Any = raw.driver_connection
                yield counted(lambda batch: self._commit_sqlite(driver, batch))
            finally:
                raw.close()

    def _prepare(self, request: AppendRequest) -> _Prepared:
        """A request's events with their seqs, and its rows in the driver's parameters."""
        game_id, last_seq, action = request.game_id, request.last_seq, request.action
        now = _now()
        stored = [
            Event(e.type, e.payload, e.actor, e.visibility, last_seq + i)
            for i, e in enumerate(request.events, start=1)
        ]
        done_values = None if action is None else {
            "game_id": game_id,
            "seat": action.seat,
            "ref": action.ref,
            "digest": action.digest,
            "seq": stored[-1].seq if stored else last_seq,
            "created_at": now,
        }
        if self._pg_append is not None:
            rows = [self._pg_append.event_row(game_id, e, now) for e in stored]
            done = None if done_values is None else self._pg_append.action_row(done_values)
            return _Prepared(stored, rows, done)
        assert self._driver_inserts is not None
        insert_events, insert_action = self._driver_inserts
        rows = [insert_events.row(_event_row(game_id, e, now)) for e in stored]
        done = None if done_values is None else insert_action.row(done_values)
        return _Prepared(stored, rows, done)

    def _commit_sqlite(self, driver: Any, batch: Sequence[_Prepared]) -> None:
        """One transaction of `batch`'s rows on SQLite's own connection: BEGIN IMMEDIATE (the
        write lock before anything is read), the rows, COMMIT (synchronous=FULL: durable when
        it returns). Any failure rolls it all back."""
        assert self._driver_inserts is not None
        insert_events, insert_action = self._driver_inserts
        try:
            driver.execute("BEGIN IMMEDIATE")
            for p in batch:
                if p.rows:
                    driver.executemany(insert_events.sql, p.rows)
                if p.done is not None:
                    driver.execute(insert_action.sql, p.done)
            driver.commit()
        except BaseException:
            driver.rollback()
            raise

    def _insert_events(
        self, conn: sa.Connection, game_id: str, last_seq: int, new_events: Sequence[Event]
    ) -> list[Event]:
        now = _now()
        stored = [
            Event(e.type, e.payload, e.actor, e.visibility, last_seq + i)
            for i, e in enumerate(new_events, start=1)
        ]
        if stored:
            conn.execute(INSERT_EVENTS, [_event_row(game_id, e, now) for e in stored])
        return stored

    # --- reads ---------------------------------------------------------------------------------

    def load_game(self, game_id: str) -> GameRecord | None:
        with self.engine.connect() as conn:
            row = conn.execute(games.select().where(games.c.id == game_id)).first()
        if row is None:
            return None
        return GameRecord(
            id=row.id,
            system=row.system,
            name=row.name,
            dice_seed=bytes.fromhex(row.dice_seed),
            dice_commitment=row.dice_commitment,
            created_at=row.created_at,
            invite_hash=row.invite_hash,
            spectator_delay_s=int(row.spectator_delay_s or 0),
        )

    def list_games(self, limit: int = 100) -> list[GameRecord]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                games.select().order_by(games.c.created_at.desc()).limit(limit)
            ).all()
        return [
            GameRecord(
                r.id,
                r.system,
                r.name,
                bytes.fromhex(r.dice_seed),
                r.dice_commitment,
                r.created_at,
                r.invite_hash,
                int(r.spectator_delay_s or 0),
            )
            for r in rows
        ]

    def events(self, game_id: str, since: int = 0, until: int | None = None) -> list[Event]:
        """The game's events with `since < seq <= until`, in seq order."""
        query = (
            sa.select(
                events.c.seq, events.c.type, events.c.actor, events.c.visibility, events.c.payload
            )
            .where(events.c.game_id == game_id, events.c.seq > since)
            .order_by(events.c.seq)
        )
        if until is not None:
            query = query.where(events.c.seq <= until)
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        return [
            Event(r.type, r.payload, _actor_from_db(r.actor), r.visibility, r.seq) for r in rows
        ]

    def timed_events(
        self, game_id: str, since: int = 0, until: int | None = None
    ) -> list[tuple[Event, datetime]]:
        """`events` with each one's commit time (`created_at`, in UTC)."""
        query = (
            sa.select(
                events.c.seq, events.c.type, events.c.actor, events.c.visibility,
                events.c.payload, events.c.created_at,
            )
            .where(events.c.game_id == game_id, events.c.seq > since)
            .order_by(events.c.seq)
        )
        if until is not None:
            query = query.where(events.c.seq <= until)
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        return [
            (
                Event(r.type, r.payload, _actor_from_db(r.actor), r.visibility, r.seq),
                _utc(r.created_at),
            )
            for r in rows
        ]

    def visible_seq(self, game_id: str, cutoff: datetime) -> int:
        """The last seq committed at or before `cutoff`, and never less than the events the
        game was created with (one transaction: they share the first `created_at`); 0 for a
        game without events. What a delayed spectator may see (server/games/delay.py)."""
        first = (
            sa.select(sa.func.min(events.c.created_at))
            .where(events.c.game_id == game_id)
            .scalar_subquery()
        )
        query = sa.select(sa.func.max(events.c.seq)).where(
            events.c.game_id == game_id,
            sa.or_(events.c.created_at <= cutoff, events.c.created_at <= first),
        )
        with self.engine.connect() as conn:
            value = conn.execute(query).scalar()
        return int(value or 0)

    def last_seq(self, game_id: str) -> int:
        with self.engine.connect() as conn:
            value = conn.execute(
                sa.select(sa.func.max(events.c.seq)).where(events.c.game_id == game_id)
            ).scalar()
        return int(value or 0)

    def seat_hashes(self, game_id: str) -> dict[int, str]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(seats.c.seat, seats.c.token_hash).where(seats.c.game_id == game_id)
            ).all()
        return {int(r.seat): r.token_hash for r in rows}

    def seat_for_token_hash(self, game_id: str, token_hash: str) -> int | None:
        with self.engine.connect() as conn:
            value = conn.execute(
                sa.select(seats.c.seat).where(
                    seats.c.game_id == game_id, seats.c.token_hash == token_hash
                )
            ).scalar()
        return int(value) if value is not None else None

    def find_action(self, game_id: str, seat: int, ref: str) -> ActionRecord | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(actions.c.seat, actions.c.ref, actions.c.digest, actions.c.seq).where(
                    actions.c.game_id == game_id, actions.c.seat == seat, actions.c.ref == ref
                )
            ).first()
        return ActionRecord(int(row.seat), row.ref, row.digest, int(row.seq)) if row else None

    def actions(self, game_id: str) -> list[ActionRecord]:
        """Every acknowledged action ref of the game (loaded with its live state)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(actions.c.seat, actions.c.ref, actions.c.digest, actions.c.seq).where(
                    actions.c.game_id == game_id
                )
            ).all()
        return [ActionRecord(int(r.seat), r.ref, r.digest, int(r.seq)) for r in rows]

    # --- retention (`warfield prune`, WARFIELD_RETENTION_DAYS) -------------------------------

    def expired_games(self, days: float, now: datetime | None = None) -> list[ExpiredGame]:
        """The games that expired `days` before `now`: finished ones whose `game_ended` event
        is older than that, and abandoned ones whose latest event (or, with none, whose
        creation) is. Ages come from `events.created_at` and `games.created_at`."""
        cutoff = (now or _now()) - timedelta(days=days)
        last = (
            sa.select(events.c.game_id, sa.func.max(events.c.created_at).label("last_at"))
            .group_by(events.c.game_id)
            .subquery()
        )
        ended = (
            sa.select(events.c.game_id, sa.func.min(events.c.created_at).label("ended_at"))
            .where(events.c.type == GAME_ENDED)
            .group_by(events.c.game_id)
            .subquery()
        )
        last_at = sa.func.coalesce(last.c.last_at, games.c.created_at)
        query = (
            sa.select(games.c.id, ended.c.ended_at, last_at.label("last_at"))
            .select_from(games)
            .outerjoin(last, last.c.game_id == games.c.id)
            .outerjoin(ended, ended.c.game_id == games.c.id)
            .where(sa.or_(ended.c.ended_at < cutoff, last_at < cutoff))
            .order_by(games.c.created_at, games.c.id)
        )
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        return [
            ExpiredGame(r.id, "finished" if r.ended_at is not None else "abandoned", r.last_at)
            for r in rows
        ]

    def delete_games(self, game_ids: Sequence[str], batch: int = 500) -> int:
        """Delete games with their events, seats and action refs; return how many went.

        The children are deleted explicitly (not left to `ON DELETE CASCADE`, which SQLite
        honours only with its foreign-key pragma on); any other table that references a game
        cascades.
        """
        deleted = 0
        ids = list(dict.fromkeys(game_ids))
        for start in range(0, len(ids), batch):
            chunk = ids[start : start + batch]
            with self._write() as conn:
                for child in (events, actions, seats):
                    conn.execute(child.delete().where(child.c.game_id.in_(chunk)))
                deleted += conn.execute(games.delete().where(games.c.id.in_(chunk))).rowcount
        return deleted
