"""The game service: the one place an action is checked, committed and broadcast.

For every action, in this order (boardgame.io's master, STYLE.md): the game exists, the seat is
a player, the action is not a retry of one already applied (`ref`), it is not stale
(`expected_seq`), the rules decide its events, the events are appended in ONE transaction with
`seq = last + 1`, folded into the live state, and only then published. Nobody hears of an event
before it is durable.

A retried `ref` is answered with its first ack and applied once, however old: the store's
`actions` table holds every acknowledged ref (its key refuses a second use in the same
transaction as the events), and each cached game keeps only its last `REFS_REMEMBERED` refs in
memory, so a long game's memory does not grow with its moves.

One writer per game in a process (an asyncio lock); across processes the database's unique
`(game_id, seq)` key decides, and the loser re-reads the log and tries again.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import random
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from server import dice
from server.games import archive, steps
from server.games.delay import MAX_DELAY_S
from server.games.views import Projections
from server.hub import Frames, LocalHub
from server.rules import core, questions, table
from server.rules.core import (
    BAD_REQUEST,
    CONFLICT,
    FORBIDDEN,
    NOT_FOUND,
    STALE,
    UNAUTHORIZED,
    Battlefield,
    Event,
    GameState,
    RuleError,
)
from server.rules.pregame import PREGAME_MODES
from server.rules.systems import find_system
from server.store import (
    ActionRecord,
    ConcurrentAppend,
    DuplicateRef,
    EventStore,
    GameRecord,
    SeatTaken,
)
from server.store.group import GroupCommit
from server.store.repository import AppendRequest, ExpiredGame

T = TypeVar("T")
MAX_APPEND_ATTEMPTS = 12
APPEND_BACKOFF_S = 0.002  # after losing a race: a random pause up to this times the attempt
LIVE_GAMES_CACHED = 2000
# Action refs each cached game remembers (the most recently used): a client's retry after a
# reconnect is answered from memory. An older ref is found in the store's `actions` table.
REFS_REMEMBERED = 32


def new_token() -> str:
    """A seat token: 128 random bits, URL-safe."""
    return secrets.token_urlsafe(16)


def token_hash(token: str) -> str:
    # surrogatepass: a malformed secret (a lone surrogate from JSON) hashes to a value that
    # matches nothing, instead of raising.
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def action_digest(action: Any) -> str:
    return hashlib.sha256(
        json.dumps(action, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


@dataclass
class LiveGame:
    """A game's folded state in memory, with the lock that makes this process its one writer.

    Events another process committed, which reached this one with their frames already
    encoded (server/hub/redis.py), wait in `deferred` and are folded when the state is next
    read: a process whose sockets only watch a game never folds it.
    """

    record: GameRecord
    _state: GameState
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # The last REFS_REMEMBERED acknowledged refs, least recently used first (`remember_ref`).
    refs: OrderedDict[tuple[int, str], ActionRecord] = field(default_factory=OrderedDict)
    projections: Projections = field(default_factory=Projections)
    # Committed events after `_state`, contiguous, none of them an undo (`core.needs_replay`).
    deferred: list[Event] = field(default_factory=list)

    @property
    def state(self) -> GameState:
        """The game's state at its latest known seq (the deferred events folded in)."""
        if self.deferred:
            self._state = core.fold_all(self._state, self.deferred)
            self.deferred = []
        return self._state

    @state.setter
    def state(self, value: GameState) -> None:
        self._state = value
        self.deferred = [e for e in self.deferred if e.seq > value.seq]

    @property
    def seq(self) -> int:
        """The latest seq known here (folded or deferred)."""
        return self.deferred[-1].seq if self.deferred else self._state.seq

    def dice(self) -> dice.DiceStream:
        return dice.DiceStream(self.record.dice_seed, self.state.dice_position)

    def recent_ref(self, seat: int, ref: str) -> ActionRecord | None:
        done = self.refs.get((seat, ref))
        if done is not None:
            self.refs.move_to_end((seat, ref))
        return done

    def remember_ref(self, done: ActionRecord) -> None:
        """Keep `done` among the recent refs; past REFS_REMEMBERED, forget the oldest (the
        store still has it: `GameService._act` looks there when memory has no answer)."""
        self.refs[(done.seat, done.ref)] = done
        self.refs.move_to_end((done.seat, done.ref))
        while len(self.refs) > REFS_REMEMBERED:
            self.refs.popitem(last=False)


@dataclass
class _Loading:
    """The lock that makes one task load a game while the others wait, and how many wait."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    waiters: int = 0


@dataclass(frozen=True)
class CreatedGame:
    id: str
    system: str
    seat: int
    token: str
    dice_commitment: str
    invite: str  # the secret that claims seat 2: shown to the creator once, stored hashed


class GameService:
    """Creates games, seats players, applies actions and answers reads."""

    def __init__(
        self, store: EventStore, hub: LocalHub | None = None, cache_size: int | None = None
    ) -> None:
        self.store = store
        self.hub = hub or LocalHub()
        self.hub.on_remote = self.apply_remote
        self.hub.on_remote_now = self.apply_remote_now
        self.cache_size = max(1, LIVE_GAMES_CACHED if cache_size is None else cache_size)
        self._live: OrderedDict[str, LiveGame] = OrderedDict()
        # One entry per game id being loaded right now, removed by the last task waiting on it
        # (found or not): an id nobody asks for any more leaves nothing behind.
        self._loading: dict[str, _Loading] = {}
        self.listeners: list[Callable[[str, str, Sequence[Event]], None]] = []
        self.metrics: Any = None  # server.metrics.Metrics, set by the app (metrics hook)
        # SQLite: actions' commits of different games waiting at the same time share one
        # transaction and one flush, on a database thread (server/store/group.py). PostgreSQL:
        # each action's commit is awaited on the event loop itself (`_append`).
        self.commits = GroupCommit(self._append_many)

    async def _db(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(fn, *args)

    async def _append(
        self, game_id: str, last_seq: int, events: list[Event], record: ActionRecord | None
    ) -> list[Event]:
        """The durable commit of an action's events.

        On SQLite, on the database thread, in one transaction with the other games' commits
        waiting then (group commit: one flush of the file for all of them). On PostgreSQL, on
        the event loop (`EventStore.append_many_async`): a database thread costs more than it
        saves there, the hand-off to it and back and its contention for the GIL coming to
        about a tenth of the server's CPU per action (bench/README.md "Sixth sitting"); the
        server flushes its WAL per commit, which several connections' commits may share."""
        request = AppendRequest(game_id, last_seq, events, record)
        if not self.store.appends_on_the_loop:
            return await self.commits.append(request)
        if steps.totals is None:
            result = (await self.store.append_many_async([request]))[0]
        else:
            async with steps.commit_timed_async():  # (bench/: the step timing)
                result = (await self.store.append_many_async([request]))[0]
        if isinstance(result, Exception):
            raise result
        return result

    def _append_many(self, requests: Sequence[AppendRequest]) -> list[list[Event] | Exception]:
        append_many = self.store.append_many
        if steps.totals is not None:  # (bench/: the step timing)
            append_many = steps.commit_timed(append_many)
        return append_many(requests)

    # --- games and seats -----------------------------------------------------------------------

    async def create_game(
        self,
        system: str,
        name: str = "",
        battlefield: Battlefield | None = None,
        spectator_delay_s: int = 0,
        pregame: str = "fixed",
    ) -> CreatedGame:
        try:
            game_system = find_system(system)
        except KeyError as exc:
            raise RuleError(BAD_REQUEST, str(exc.args[0]), field="system") from None
        if not 0 <= spectator_delay_s <= MAX_DELAY_S:
            raise RuleError(BAD_REQUEST, f"spectator_delay_s is 0..{MAX_DELAY_S} seconds",
                            field="spectator_delay_s")
        if pregame not in PREGAME_MODES:
            raise RuleError(BAD_REQUEST, f"pregame is one of {', '.join(PREGAME_MODES)}",
                            field="pregame")
        game_id = secrets.token_hex(8)
        seed = secrets.token_bytes(dice.SEED_BYTES)
        invite = new_token()
        record = GameRecord(
            id=game_id,
            system=system,
            name=name or f"{game_system.name} game",
            dice_seed=seed,
            dice_commitment=dice.commitment(seed),
            created_at=datetime.now(UTC),
            invite_hash=token_hash(invite),
            spectator_delay_s=spectator_delay_s,  # (server/games/delay.py)
        )
        token = new_token()
        first = table.genesis(
            game_id,
            system,
            record.name,
            battlefield or game_system.battlefield,
            record.dice_commitment,
            pregame,
        ) + [table.seat_claimed(1)]
        stored = await self._db(self.store.create_game, record, token_hash(token), first)
        live = LiveGame(record, core.fold_all(GameState(), stored))
        self._remember(live)
        return CreatedGame(game_id, system, 1, token, record.dice_commitment, invite)

    async def claim_seat(self, game_id: str, invite: str | None) -> tuple[int, str]:
        """Give the first free seat a new token, for the holder of the game's invite secret;
        `forbidden` without it or with a wrong one, `conflict` when both seats are taken.

        A game made before the invite existed (migration 0002) has no invite hash: its free
        seat is claimed without one, until the host gives it one with `warfield invite`.
        """
        live = await self.live(game_id)
        # Read from the database, not the cached record: `warfield invite` (another process)
        # may have given the game its invite since it was loaded.
        record = await self._db(self.store.load_game, game_id)
        expected = record.invite_hash if record is not None else None
        if expected is not None:
            if not invite:
                raise RuleError(
                    FORBIDDEN,
                    "taking a seat needs the invite secret from the game's creator (the "
                    "invite link); the spectator link only watches",
                    field="invite",
                )
            if not hmac.compare_digest(token_hash(invite), expected):
                raise RuleError(
                    FORBIDDEN, "this invite does not open a seat in this game", field="invite"
                )
        async with live.lock:
            for _ in range(MAX_APPEND_ATTEMPTS):
                free = [s for s in core.SEATS if s not in live.state.seats]
                if not free:
                    raise RuleError(CONFLICT, "both seats of this game are taken")
                seat, token = free[0], new_token()
                try:
                    stored = await self._db(
                        self.store.claim_seat,
                        game_id,
                        seat,
                        token_hash(token),
                        live.state.seq,
                        [table.seat_claimed(seat)],
                    )
                except (SeatTaken, ConcurrentAppend):
                    await self._catch_up(live)
                    continue
                await self._commit(live, stored)
                return seat, token
        raise RuleError(CONFLICT, "could not claim a seat; try again")

    async def reissue_invite(self, game_id: str) -> str:
        """A new invite secret for the game (the old one stops working); `not_found`."""
        invite = new_token()
        if not await self._db(self.store.set_invite_hash, game_id, token_hash(invite)):
            raise RuleError(NOT_FOUND, "no such game")
        return invite

    async def authenticate(self, game_id: str, token: str | None) -> int | None:
        """The seat a token holds in this game; None for no token; `unauthorized` if wrong."""
        await self.live(game_id)
        if token is None or token == "":
            return None
        seat = await self._db(self.store.seat_for_token_hash, game_id, token_hash(token))
        if seat is None:
            raise RuleError(UNAUTHORIZED, "this token holds no seat in this game")
        return seat

    # --- live state ----------------------------------------------------------------------------

    def _pinned(self, game_id: str, game: LiveGame) -> bool:
        """A game in use stays cached: an action holds its lock, or a socket here watches it
        (remote events are folded into the cached state and delivered with its patches)."""
        return game.lock.locked() or bool(self.hub.watchers(game_id))

    def _remember(self, live: LiveGame) -> None:
        """Cache a game; past `cache_size`, evict the least recently used games not in use.

        A pinned game met at the old end counts as just used (moved to the new end), so the
        scan goes on to the next one: a watched old game never stops eviction of the others.
        The game just remembered is never the one evicted (its caller is about to use it), so
        the cache holds at most `max(cache_size, games in use + 1)`.
        """
        self._live[live.record.id] = live
        self._live.move_to_end(live.record.id)
        skipped = 0
        while len(self._live) > self.cache_size and skipped < len(self._live):
            oldest, game = next(iter(self._live.items()))
            if game is live or self._pinned(oldest, game):
                self._live.move_to_end(oldest)
                skipped += 1
                continue
            self._live.pop(oldest)

    def cached(self, game_id: str) -> LiveGame | None:
        return self._live.get(game_id)

    def cached_count(self) -> int:
        """How many games this process holds in memory."""
        return len(self._live)

    def loading_count(self) -> int:
        """How many game ids are being loaded right now (each holds a lock until done)."""
        return len(self._loading)

    def forget(self, game_id: str) -> None:
        """Drop a game from the cache (it was deleted: `prune`)."""
        self._live.pop(game_id, None)

    async def live(self, game_id: str) -> LiveGame:
        """The game's live state, rebuilt from its event log when not in memory."""
        live = self._live.get(game_id)
        if live is not None:
            self._live.move_to_end(game_id)
            return live
        loading = self._loading.get(game_id)
        if loading is None:
            loading = self._loading[game_id] = _Loading()
        loading.waiters += 1
        try:
            async with loading.lock:
                live = self._live.get(game_id)
                if live is None:
                    live = await self._db(self._load, game_id)
                    self._remember(live)
        finally:
            loading.waiters -= 1
            if loading.waiters == 0 and self._loading.get(game_id) is loading:
                del self._loading[game_id]
        return live

    def _load(self, game_id: str) -> LiveGame:
        if len(game_id) > 64:
            raise RuleError(NOT_FOUND, "no such game", game_id=game_id[:64])
        record = self.store.load_game(game_id)
        if record is None:
            raise RuleError(NOT_FOUND, f"no game {game_id!r}", game_id=game_id)
        state = core.replay(self.store.events(game_id))
        # No refs are loaded: a retried ref memory does not know is looked up in the store.
        return LiveGame(record, state)

    async def _catch_up(self, live: LiveGame) -> list[Event]:
        """Fold in events other processes appended since our state (caller holds the lock).

        What is folded is also delivered to this process's sockets: every event that enters
        the live state reaches the watchers (a socket drops what it was already sent).
        """
        newer = await self._db(self.store.events, live.record.id, live.state.seq)
        if newer:
            before = live.state
            await self._fold_in(live, newer)
            self.hub.deliver(live.record.id, newer, live.projections.patches(before, live.state))
        return newer

    async def _fold_in(self, live: LiveGame, events: Sequence[Event]) -> None:
        """Fold events into the live state; an agreed undo among them (`events_undone`) means
        the state is rebuilt from the whole log without the undone events (`core.replay`)."""
        if core.needs_replay(events):
            # Up to this batch's end only: later events reach us (and our sockets) in order.
            log = await self._db(self.store.events, live.record.id, 0, events[-1].seq)
            live.state = core.replay(log)
        else:
            live.state = core.fold_all(live.state, events)

    async def _commit(self, live: LiveGame, stored: Sequence[Event]) -> None:
        """Fold durable events into the live state and publish them (caller holds the lock)."""
        before = live.state
        timing = steps.totals
        if timing is not None:  # (bench/: the step timing)
            started = steps.now()
            await self._fold_in(live, stored)
            timing.add("fold", started)
        else:
            await self._fold_in(live, stored)
        for listener in self.listeners:
            listener(live.record.id, "committed", stored)
        if timing is not None:
            started = steps.now()
            patches = steps.timed("patch", live.projections.patches)(before, live.state)
            await self.hub.publish(live.record.id, stored, steps.timed("patch", patches))
            timing.add("deliver", started)
            return
        await self.hub.publish(
            live.record.id, stored, live.projections.patches(before, live.state)
        )

    def apply_remote_now(self, game_id: str, events: list[Event], frames: Frames) -> bool:
        """A batch another process committed, taken without waiting when it can be: the game
        is not cached here (its frames are delivered as they came), or nobody holds its lock
        and the batch follows what we know, with a frame for every class watching here (it
        is delivered and its events deferred: `_take_remote`). False: `apply_remote` must."""
        live = self._live.get(game_id)
        if live is None:
            self.hub.deliver(game_id, events, frames=dict(frames))
            return True
        if live.lock.locked():
            return False
        return self._take_remote(live, events, frames)

    def _take_remote(self, live: LiveGame, events: list[Event], frames: Frames) -> bool:
        """True when the batch is handled without folding: already known (and delivered), or
        next in line with every frame this process needs (delivered; events deferred)."""
        if not events:
            return False
        if events[-1].seq <= live.seq:
            return True
        if events[0].seq != live.seq + 1 or core.needs_replay(events):
            return False
        if not self.hub.classes(live.record.id) <= frames.keys():
            return False
        base = live.seq
        live.deferred.extend(events)
        self.hub.deliver(live.record.id, events, frames=dict(frames))
        live.projections.advance(base, events[-1].seq, frames)
        return True

    async def apply_remote(
        self, game_id: str, events: list[Event], frames: Frames | None = None
    ) -> None:
        """Events another process committed (via the hub), once the game's lock is free:
        delivered with the frames that came with them, those missing folded and projected here.

        A batch that does not follow our state (a message was lost) and an empty batch (the hub
        asks after a reconnect) both mean: read the log from our seq, fold and deliver that.
        A batch we already folded was already delivered.
        """
        frames = frames or {}
        live = self._live.get(game_id)
        if live is None:
            self.hub.deliver(game_id, events, frames=dict(frames))
            return
        async with live.lock:
            if self._take_remote(live, events, frames):
                return
            if events and events[0].seq == live.seq + 1:
                before = live.state
                await self._fold_in(live, events)
                self.hub.deliver(
                    game_id, events, live.projections.patches(before, live.state), dict(frames)
                )
            elif not events or events[-1].seq > live.seq:
                await self._catch_up(live)

    # --- retention ---------------------------------------------------------------------------

    async def prune(
        self, days: float, dry_run: bool = False, now: datetime | None = None
    ) -> list[ExpiredGame]:
        """Delete the games that expired `days` ago (finished, or no event since); return them.

        A game someone here is watching or acting in right now is left for a later round. The
        deleted games leave this process's cache; with `dry_run` nothing is deleted.
        """
        expired = await self._db(self.store.expired_games, days, now)
        expired = [
            e for e in expired
            if (game := self._live.get(e.id)) is None or not self._pinned(e.id, game)
        ]
        if dry_run or not expired:
            return expired
        await self._db(self.store.delete_games, [e.id for e in expired])
        for e in expired:
            self.forget(e.id)
        return expired

    # --- actions -------------------------------------------------------------------------------

    async def act(
        self,
        game_id: str,
        seat: int | None,
        action: Any,
        ref: str | None = None,
        expected_seq: int | None = None,
    ) -> int:
        """Apply a player's action; return the seq of its last event (the `ack`)."""
        # --- metrics hook (server/metrics.py): outcome and time to commit of every action ---
        if self.metrics is None:
            return await self._act(game_id, seat, action, ref, expected_seq)
        started = time.perf_counter()
        try:
            seq = await self._act(game_id, seat, action, ref, expected_seq)
        except RuleError as exc:
            self.metrics.action(action, exc.code, None)
            raise
        self.metrics.action(action, "ok", time.perf_counter() - started)
        return seq

    async def _act(
        self,
        game_id: str,
        seat: int | None,
        action: Any,
        ref: str | None,
        expected_seq: int | None,
    ) -> int:
        live = await self.live(game_id)
        if steps.totals is not None and ref:  # (bench/: the step timing)
            started = steps.now()
            digest = action_digest(action)
            steps.totals.add("validate", started)
        else:
            digest = action_digest(action) if ref else ""
        async with live.lock:
            for attempt in range(MAX_APPEND_ATTEMPTS):
                if ref and seat is not None and (done := live.recent_ref(seat, ref)):
                    return self._replayed_ack(done, digest, ref)
                try:
                    if expected_seq is not None and expected_seq != live.state.seq:
                        raise RuleError(
                            STALE,
                            f"you have seen seq {expected_seq} but the game is at "
                            f"{live.state.seq}",
                            seq=live.state.seq,
                            expected_seq=expected_seq,
                        )
                    if steps.totals is not None:  # (bench/: the step timing)
                        started = steps.now()
                        events = core.decide(live.state, seat, action, live.dice())
                        steps.totals.add("decide", started)
                    else:
                        events = core.decide(live.state, seat, action, live.dice())
                except RuleError:
                    # A retry of a ref memory has forgotten (or from before a restart) is
                    # answered with its first ack even though it would now be stale or
                    # illegal: the store's `actions` table has every acknowledged ref. A
                    # retry that is still legal needs no look-up: the store refuses its
                    # second use of the ref (`DuplicateRef` below) and nothing is applied.
                    if ref and seat is not None:
                        done = await self._db(self.store.find_action, game_id, seat, ref)
                        if done is not None:
                            live.remember_ref(done)
                            return self._replayed_ack(done, digest, ref)
                    raise
                # Commit-reveal: a batch that ends the game also reveals the dice seed, in the
                # same transaction (server/games/archive.py); nothing else sends the seed.
                events = archive.with_dice_reveal(events, live.record.dice_seed)
                record = ActionRecord(seat, ref, digest, 0) if ref and seat else None
                try:
                    stored = await self._append(game_id, live.state.seq, events, record)
                except DuplicateRef:
                    # The same action reached another process first: answer with its ack.
                    await self._catch_up(live)
                    done = await self._db(self.store.find_action, game_id, seat, ref)
                    assert done is not None
                    live.remember_ref(done)
                    return self._replayed_ack(done, digest, ref or "")
                except ConcurrentAppend:
                    # Another process wrote first: after a short random pause (two busy
                    # writers stop colliding in lockstep), read what it wrote, decide again.
                    await asyncio.sleep(random.uniform(0, APPEND_BACKOFF_S * (attempt + 1)))
                    await self._catch_up(live)
                    continue
                ack = stored[-1].seq if stored else live.state.seq
                if record is not None:
                    live.remember_ref(ActionRecord(record.seat, record.ref, digest, ack))
                await self._commit(live, stored)
                return ack
        raise RuleError(
            STALE, "the game changed under this action too often; try again", seq=live.state.seq
        )

    @staticmethod
    def _replayed_ack(done: ActionRecord, digest: str, ref: str) -> int:
        if done.digest != digest:
            raise RuleError(
                BAD_REQUEST,
                f"ref {ref!r} was already used for a different action",
                field="ref",
                ref=ref,
            )
        return done.seq

    async def preview(self, game_id: str, seat: int | None, action: Any) -> dict[str, Any]:
        """Would this action be legal now? Commits nothing; rolls throwaway dice, never the
        game's stream, so a preview cannot peek at the dice to come."""
        live = await self.live(game_id)
        throwaway = dice.DiceStream(secrets.token_bytes(dice.SEED_BYTES), live.state.dice_position)
        return questions.preview(live.state, seat, action, throwaway)

    async def measure(self, game_id: str, from_ref: Any, to_ref: Any) -> dict[str, Any]:
        live = await self.live(game_id)
        return questions.measure(live.state, from_ref, to_ref)

    async def line_of_sight(self, game_id: str, viewer: Any, target: Any) -> dict[str, Any]:
        live = await self.live(game_id)
        return questions.line_of_sight(live.state, viewer, target)

    async def ambush_options(
        self, game_id: str, unit: Any, point: Any, placement: Any = None
    ) -> dict[str, Any]:
        live = await self.live(game_id)
        return questions.ambush_options(live.state, unit, point, placement)

    # --- reads ---------------------------------------------------------------------------------

    async def view(self, game_id: str, viewer: int | None) -> dict[str, Any]:
        live = await self.live(game_id)
        return {
            "id": game_id,
            "system": live.state.system,
            "seq": live.state.seq,
            "state": live.projections.of(live.state, viewer),
        }

    async def events_since(
        self, game_id: str, since: int, viewer: int | None, until: int | None = None
    ) -> list[dict[str, Any]]:
        await self.live(game_id)
        events = await self._db(self.store.events, game_id, max(since, 0), until)
        return [e.to_wire(viewer) for e in events]
