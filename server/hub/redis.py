"""Fan-out across `warfield serve` processes through Redis pub/sub (when REDIS_URL is set).

Every committed batch is published, once, on the channel `warfield:game:{id}`, then delivered
to this process's sockets (as `LocalHub` does). Each process subscribes to the channels of
the games its own sockets watch (on the first local subscriber; it unsubscribes after the last),
ignores its own messages and hands the others' batches to the service.

**What crosses.** A batch goes out with its events and, for each visibility class another
process asked for (seat 1, seat 2, spectators), and each its own sockets watch when another
process holds a player of the game (it commits too), the `events` frame the committing process
encoded: the events as that class may see them and its state
patch, the same string its own sockets of that class get. So a receiving process does not
fold, project or encode anything: it hands the frames to its sockets and keeps the events to
fold later, when something here reads the game's state (`LiveGame.deferred`); one that commits
batches of the game too applies the patches to the projections it keeps, ready for its next
patch (`Projections.advance`). Which classes a process needs it says on the
game's channel (a "need" message) when its sockets' classes change, when a batch came without
one it needs, and every `NEED_RENEW_S` while it receives batches; the committing process
encodes those classes for `NEED_TTL_S` after it last heard. A batch that lacks a class a
process needs (it asked too late, or the asker restarted) is folded and projected there, as
before: the frames save work, correctness never depends on them.

**A game nobody else watches.** Behind the proxy, a game's sockets are all on one process, so
most batches would reach nobody but the committing process's own subscription. A PUBLISH's reply
counts its receivers: when it is 1 (our own subscription, confirmed before the PUBLISH and not
lost since) and no other process said a need for the game meanwhile, the game is "alone" and
its next batches are only delivered here, not published. Another process that starts watching
says its needs (on subscribing, again once Redis confirms the subscription, and whenever its
publishing connection comes back); hearing it ends the game's being alone, and if batches went
unpublished meanwhile a hint (`encode_hint`: the last seq) makes the newcomer read the log,
for what it may have missed after its own catch-up. Being alone is re-checked every
`ALONE_PROBE_S` (the next batch after it is published again) and forgotten whenever the
subscription connection starts or ends.

Redis is only a doorbell. The PostgreSQL event log stays the single source of truth: a batch
lost in Redis shows up as a seq gap at the next one (the service reads the log), and whenever
the subscription (re)starts, every watched game is caught up from the log. So a Redis restart
costs a reconnect (with backoff) and one log read per watched game, never an event. A Redis
that stops answering without closing the connection (frozen, a half-open TCP connection) is
found by a PING on the subscription every `HEALTH_EVERY_S`: with no PONG within
`HEALTH_TIMEOUT_S` the connection is dropped and healed the same way.

Publishing never holds up an action: the PUBLISH is written to the socket at once and its reply
counted when it comes (server/hub/resp.py: no coroutine, pool or round trip per batch). While
Redis is unreachable, or past `PUBLISH_BUFFER_MAX` bytes not yet sent, batches are dropped (and
healed as above). A dropped batch may be the game's last for a while, with no next one to show
the gap, and the other processes' subscriptions may have come back before our publishing
connection did (they caught up then, before the batch was committed): so once the publishing
connection is back, a hint goes out for every game whose batches were dropped, and whoever
watches it reads the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import time
from collections import deque
from collections.abc import Sequence

import redis.asyncio as aioredis
from redis.backoff import NoBackoff
from redis.retry import Retry

from server.hub import Frames, LocalHub, PatchSource, Subscriber, events_frame, resp
from server.rules.core import Event

log = logging.getLogger("warfield.hub")

CHANNEL_PREFIX = "warfield:game:"
PUBLISH_BUFFER_MAX = 8 * 1024 * 1024  # bytes written and not yet sent: past it, drop
BACKOFF_FIRST_S = 0.05
BACKOFF_MAX_S = 0.8
SOCKET_TIMEOUT_S = 2.0
NEED_RENEW_S = 20.0  # a receiving process repeats which classes it needs this often...
NEED_TTL_S = 60.0  # ...and a committing process encodes them for this long after hearing it
NEED_RETRY_S = 1.0  # at most this often after a batch that lacked a class
# The subscription is pinged this often; with no PONG within HEALTH_TIMEOUT_S it is taken for
# lost (a Redis that stops answering without closing: frozen, a half-open TCP connection, a
# proxy holding it) and reconnected, which catches every watched game up from the log.
HEALTH_EVERY_S = 5.0
HEALTH_TIMEOUT_S = 5.0
HEALTH_PING = b"warfield-health"
# A batch whose PUBLISH reached no process but this one (its reply counts the receivers) makes
# the game "alone": its next batches are not published until another process says it needs the
# game's frames, or for this long, after which one batch is published again to find out.
ALONE_PROBE_S = 30.0
BATCH, NEED, HINT = "b", "n", "s"


CHANNEL_BYTES = CHANNEL_PREFIX.encode()


def channel(game_id: str) -> str:
    return CHANNEL_PREFIX + game_id


def _class_key(viewer: int | None) -> int | None:
    if viewer is None or (isinstance(viewer, int) and not isinstance(viewer, bool)):
        return viewer
    raise ValueError(f"not a visibility class: {viewer!r}")


def encode_batch(origin: str, events: Sequence[Event], frames: Frames | None = None) -> str:
    """The pub/sub payload of a batch, one item a line: who sent it, "b", the events
    (visibility included), the classes of the frames that follow, then those frames. (Every
    part is JSON with its non-ASCII escaped: none holds a newline.)"""
    frames = frames or {}
    classes = list(frames)
    head = json.dumps(
        [[e.seq, e.type, e.actor, e.visibility, e.payload] for e in events],
        separators=(",", ":"),
        allow_nan=False,
    )
    return "\n".join([origin, BATCH, head, json.dumps(classes), *(frames[c] for c in classes)])


def encode_need(origin: str, classes: set[int | None]) -> str:
    """The payload saying which classes' frames `origin` needs for the channel's game."""
    return "\n".join([origin, NEED, json.dumps(sorted(classes, key=lambda c: c or 0))])


def encode_hint(origin: str, seq: int) -> str:
    """The payload saying that `origin` committed the channel's game up to `seq` without
    publishing it (no other process listened then, or the batch was dropped): a process behind
    that reads the log."""
    return "\n".join([origin, HINT, str(seq)])


def decode_message(data: str | bytes) -> tuple[str, str, list[Event], Frames | set[int | None]]:
    """(origin, kind, events, frames) of a batch; (origin, kind, [], classes) of a need;
    (origin, kind, [], set()) of a hint."""
    text = data.decode() if isinstance(data, bytes) else data
    parts = text.split("\n")
    origin, kind = parts[0], parts[1]
    if kind == NEED:
        return origin, kind, [], {_class_key(c) for c in json.loads(parts[2])}
    if kind == HINT:
        int(parts[2])  # (a seq: malformed otherwise)
        return origin, kind, [], set()
    if kind != BATCH:
        raise ValueError(f"unknown message kind {kind!r}")
    events = [
        Event(type=t, payload=payload, actor=actor, visibility=visibility, seq=int(seq))
        for seq, t, actor, visibility, payload in json.loads(parts[2])
    ]
    classes = [_class_key(c) for c in json.loads(parts[3])]
    if len(parts) != 4 + len(classes):
        raise ValueError("a batch's frames do not match its classes")
    return origin, kind, events, dict(zip(classes, parts[4:], strict=True))


def decode_batch(data: str | bytes) -> tuple[str, list[Event], Frames]:
    origin, kind, events, frames = decode_message(data)
    if kind != BATCH or not isinstance(frames, dict):
        raise ValueError("not a batch")
    return origin, events, frames


class RedisHub(LocalHub):
    """`LocalHub` plus Redis pub/sub between processes."""

    def __init__(
        self,
        url: str,
        *,
        process_id: str | None = None,
        health_every_s: float = HEALTH_EVERY_S,
        health_timeout_s: float = HEALTH_TIMEOUT_S,
    ) -> None:
        super().__init__()
        self.url = url
        self.health_every_s, self.health_timeout_s = health_every_s, health_timeout_s
        self.unanswered = 0  # subscriptions given up because a PING went unanswered
        self.pongs = 0  # health PINGs answered
        self._pong: asyncio.Event | None = None  # set when the subscription's PONG arrives
        self.process_id = process_id or f"{os.getpid()}-{secrets.token_hex(4)}"
        self._client: aioredis.Redis | None = None  # (for PING only)
        self._started = False
        self._tasks: list[asyncio.Task[None]] = []
        self.connected = asyncio.Event()  # set while the subscription is live
        self.reconnects = 0  # subscription (re)starts after the first
        self.dropped = 0  # batches not published because Redis was unreachable
        # Publishing: the connection (None while down), PUBLISHes awaiting their reply, drops
        # not logged yet, and the task reconnecting it.
        self._pub: resp.RespConnection | None = None
        # Per PUBLISH awaiting its reply, in order: its game (None: not a batch), how many
        # needs we had heard for the game when it was sent, whether our own subscription
        # to the game's channel was confirmed then, in this generation (`_published`), and the
        # batch's last seq.
        self._pub_pending: deque[tuple[str | None, int, int, int]] = deque()
        # Games whose batches were dropped (module text): the last seq dropped, hinted at
        # once the publishing connection is back.
        self._dropped_up_to: dict[str, int] = {}
        self._pub_unlogged = 0
        self._pub_task: asyncio.Task[None] | None = None
        # Listening: the subscription's connection and the channels it is subscribed to.
        self._sub: resp.RespConnection | None = None
        self._channels: set[str] = set()
        self._confirmed: set[str] = set()  # games whose channel Redis confirmed we subscribed
        self._unconfirmed: dict[str, int] = {}  # game id -> (un)subscribes sent, not confirmed
        self._sub_generation = 0  # one more for each subscription connection, and each loss
        # Games no other process listens to (module text): until when their batches are not
        # published; the last seq not published while so; needs heard from other processes.
        self._alone: dict[str, float] = {}
        self._unsent: dict[str, int] = {}
        self._heard: dict[str, int] = {}
        self.unpublished = 0  # batches not published because no other process listened
        # Batches from other processes waiting for their game's drainer (one per game).
        self._inbound: dict[str, deque[tuple[list[Event], Frames]]] = {}
        self._drainers: set[asyncio.Task[None]] = set()
        # game id -> process id -> (classes it needs frames of, until when: monotonic seconds)
        self._wanted: dict[str, dict[str, tuple[set[int | None], float]]] = {}
        # game id -> (classes we last said we need, when we said it)
        self._needed: dict[str, tuple[set[int | None], float]] = {}
        self._own_prefix = (self.process_id + "\n").encode()

    def _new_client(self) -> aioredis.Redis:
        # No library-level retries: a broken connection surfaces here and we reconnect
        # ourselves, so we know when to catch up from the log.
        return aioredis.Redis.from_url(
            self.url,
            retry=Retry(NoBackoff(), 0),
            socket_timeout=SOCKET_TIMEOUT_S,
            socket_connect_timeout=SOCKET_TIMEOUT_S,
        )

    # --- subscribers: the first and last of a game change the Redis subscription -------------

    def subscribe(self, game_id: str, subscriber: Subscriber) -> None:
        first = game_id not in self._subscribers
        super().subscribe(game_id, subscriber)
        if first:
            self._sync_channels()
        self._say_needs(game_id, changed_only=True)

    def unsubscribe(self, game_id: str, subscriber: Subscriber) -> None:
        super().unsubscribe(game_id, subscriber)
        if game_id not in self._subscribers:
            self._sync_channels()
            self._wanted.pop(game_id, None)  # (we no longer hear the others' needs)
            self._alone.pop(game_id, None)  # (nor would we hear a newcomer's)
            self._unsent.pop(game_id, None)
            self._heard.pop(game_id, None)
        self._say_needs(game_id, changed_only=True)

    # --- which frames each process needs ---------------------------------------------------------

    def _say_needs(self, game_id: str, changed_only: bool = False) -> None:
        """Tell the other processes which classes' frames we need for the game (when that
        changed, with `changed_only`): our sockets' classes."""
        classes = self.classes(game_id)
        said = self._needed.get(game_id)
        if changed_only and (said is None and not classes or said and said[0] == classes):
            return
        if classes:
            self._needed[game_id] = (classes, time.monotonic())
        else:
            self._needed.pop(game_id, None)
        self._enqueue(game_id, encode_need(self.process_id, classes))

    def _heard_needs(self, game_id: str, origin: str, classes: set[int | None]) -> None:
        if game_id not in self._subscribers:
            return  # (only the processes that commit a game's actions encode for it)
        self._heard[game_id] = self._heard.get(game_id, 0) + 1
        wanted = self._wanted.setdefault(game_id, {})
        if classes:
            wanted[origin] = (classes, time.monotonic() + NEED_TTL_S)
            # Someone listens now: publish again, and if batches went unpublished while we
            # were alone, say up to where (what it missed since its own catch-up: module text).
            self._alone.pop(game_id, None)
            seq = self._unsent.pop(game_id, None)
            if seq is not None:
                self._enqueue(game_id, encode_hint(self.process_id, seq))
        else:
            wanted.pop(origin, None)

    def _wanted_classes(self, game_id: str) -> set[int | None]:
        wanted = self._wanted.get(game_id)
        if not wanted:
            return set()
        now = time.monotonic()
        out: set[int | None] = set()
        for origin, (classes, until) in list(wanted.items()):
            if until < now:
                del wanted[origin]
            else:
                out |= classes
        return out

    # --- publishing ------------------------------------------------------------------------------

    async def publish(
        self, game_id: str, events: Sequence[Event], patches: PatchSource | None = None
    ) -> None:
        if not events or not self._started:
            self.deliver(game_id, events, patches)
            return
        until = self._alone.get(game_id)
        if until is not None:
            if time.monotonic() < until:
                self._unsent[game_id] = events[-1].seq
                self.unpublished += 1
                self.deliver(game_id, events, patches)
                return
            del self._alone[game_id]  # (published again, to find out)
        self._unsent.pop(game_id, None)  # (a receiver heals any gap from this batch)
        # The frames the other processes asked for, encoded here once (module text). When one
        # of them holds a player's socket (it asked for a seat's frames), it commits for the
        # game too, and our own sockets' classes go along: with them it keeps their
        # projections current without projecting (`Projections.advance`). The batch is
        # published before anything else is encoded for, or written to, this process's own
        # sockets, so the other processes' sockets do not wait for ours.
        frames: Frames = {}
        wanted = self._wanted_classes(game_id)
        if any(viewer is not None for viewer in wanted):
            wanted |= self.classes(game_id)
        for viewer in wanted:
            patch = patches(viewer) if patches is not None else None
            frames[viewer] = events_frame(events, viewer, patch)
        self._enqueue(game_id, encode_batch(self.process_id, events, frames), events[-1].seq)
        self.deliver(game_id, events, patches, frames)

    def _enqueue(self, game_id: str, payload: str, batch_seq: int | None = None) -> None:
        """PUBLISH now (written to the socket; the reply is counted when it comes), or drop
        it while Redis is unreachable or not keeping up (healed from the log: module text).
        `batch_seq`: the last seq of the batch it carries (None: a need or a hint). A need
        that cannot go is not counted: it is said again (`_heal`, `_received`)."""
        batch = batch_seq is not None
        if not self._started:
            return
        pub = self._pub
        if pub is not None and pub.buffered() <= PUBLISH_BUFFER_MAX:
            try:
                pub.send("PUBLISH", channel(game_id), payload)
            except (ConnectionError, OSError, RuntimeError):
                pass  # (closing: `_publisher_lost` follows)
            else:
                confirmed = batch and game_id in self._confirmed
                self._pub_pending.append((
                    game_id if batch else None,
                    self._heard.get(game_id, 0),
                    self._sub_generation if confirmed else -1,
                    batch_seq or 0,
                ))
                return
        if batch_seq is not None:
            self.dropped += 1
            self._pub_unlogged += 1
            self._dropped(game_id, batch_seq)
        self._reconnect_publisher()

    def _dropped(self, game_id: str, seq: int) -> None:
        """A batch of the game up to `seq` did not (or may not) reach Redis: hint at it when
        the publishing connection is back (module text)."""
        self._dropped_up_to[game_id] = max(seq, self._dropped_up_to.get(game_id, 0))

    def _published(self, reply: resp.Reply | resp.RespError) -> None:
        game_id, heard, generation, _ = self._pub_pending.popleft()
        if isinstance(reply, resp.RespError):
            self.dropped += 1
            log.warning("redis publish failed (%s); 1 batch(es) dropped", reply)
            return
        if game_id is None or not isinstance(reply, int):
            return
        if reply > 1:
            self._alone.pop(game_id, None)
        elif (
            generation == self._sub_generation
            and self._heard.get(game_id, 0) == heard
            and game_id in self._subscribers
        ):
            # Only our own subscription got it: it was confirmed before the PUBLISH and has
            # not been lost since, and no other process said it needs the game meanwhile.
            self._alone[game_id] = time.monotonic() + ALONE_PROBE_S

    def _publisher_lost(self) -> None:
        # What was written without a reply may or may not have gone out: counted as dropped
        # (the receivers heal a gap from the log either way).
        self._pub = None
        waiting = 0
        for game_id, _, _, seq in self._pub_pending:
            if game_id is not None:
                waiting += 1
                self._dropped(game_id, seq)
        self.dropped += waiting
        self._pub_unlogged += waiting
        self._pub_pending.clear()
        self._reconnect_publisher()

    def _reconnect_publisher(self) -> None:
        if self._started and (self._pub_task is None or self._pub_task.done()):
            self._pub_task = asyncio.create_task(self._connect_publisher(), name="redis-publisher")

    async def _connect_publisher(self) -> None:
        delay = BACKOFF_FIRST_S
        while True:
            try:
                pub = await resp.connect(
                    self.url, self._published, self._publisher_lost, SOCKET_TIMEOUT_S
                )
            except (OSError, TimeoutError, resp.RespError) as exc:
                if self._pub_unlogged:
                    log.warning("redis publish failed (%s); %d batch(es) dropped",
                                type(exc).__name__, self._pub_unlogged)
                    self._pub_unlogged = 0
                await asyncio.sleep(delay)
                delay = min(delay * 2, BACKOFF_MAX_S)
                continue
            if self._pub_unlogged:
                log.warning("redis publish failed (ConnectionError); %d batch(es) dropped",
                            self._pub_unlogged)
                self._pub_unlogged = 0
            self._pub = pub
            # A need said while we could not publish was lost, and a process alone on a game
            # publishes nothing that would make us say it again: say them all now.
            for game_id in list(self._needed):
                self._say_needs(game_id)
            # The batches dropped meanwhile: whoever watches those games reads the log.
            dropped, self._dropped_up_to = self._dropped_up_to, {}
            for game_id, seq in dropped.items():
                self._enqueue(game_id, encode_hint(self.process_id, seq))
            if dropped:
                log.info("redis publishing restored; %d game(s) with dropped batches hinted "
                         "at (their other processes read the log)", len(dropped))
            return

    # --- listening -------------------------------------------------------------------------------

    async def _listener(self) -> None:
        """Keep one subscription connection; after each (re)connect every watched game is
        subscribed again, and each subscription's confirmation catches that game up."""
        delay = BACKOFF_FIRST_S
        first = True
        while True:
            lost = asyncio.Event()
            try:
                sub = await resp.connect(self.url, self._pushed, lost.set, SOCKET_TIMEOUT_S)
            except (OSError, TimeoutError, resp.RespError):
                await asyncio.sleep(delay)
                delay = min(delay * 2, BACKOFF_MAX_S)
                continue
            self._sub, self._channels = sub, set()
            self._forget_subscription()
            try:
                self._sync_channels()
                if not first:
                    self.reconnects += 1
                    log.info("redis subscription restored; catching up %d game(s) from the log",
                             len(self._subscribers))
                self.connected.set()
                delay = BACKOFF_FIRST_S
                if await self._watch(sub, lost):
                    log.warning("redis subscription lost (ConnectionError); reconnecting")
                else:
                    self.unanswered += 1
                    log.warning("redis subscription stopped answering (no PONG within %.1f s); "
                                "reconnecting", self.health_timeout_s)
            finally:
                self.connected.clear()
                self._sub = None
                self._forget_subscription()
                sub.abort()
            first = False
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX_S)

    def _forget_subscription(self) -> None:
        """A subscription connection starts or ends: nothing is confirmed on it, and no game
        is taken to be alone any more (until a publish on the new one says so again)."""
        self._sub_generation += 1
        self._confirmed.clear()
        self._unconfirmed.clear()
        self._alone.clear()

    async def _watch(self, sub: resp.RespConnection, lost: asyncio.Event) -> bool:
        """Until the subscription is lost (True) or a PING on it goes unanswered (False):
        every `health_every_s` a PING, answered in order after any message before it."""
        pong = self._pong = asyncio.Event()
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(lost.wait(), self.health_every_s)
                return True
            pong.clear()
            try:
                sub.send("PING", HEALTH_PING)
            except (ConnectionError, OSError, RuntimeError):
                return True
            waiting = [asyncio.ensure_future(e.wait()) for e in (pong, lost)]
            try:
                done, _ = await asyncio.wait(waiting, timeout=self.health_timeout_s,
                                             return_when=asyncio.FIRST_COMPLETED)
            finally:
                for w in waiting:
                    w.cancel()
            if lost.is_set():
                return True
            if not done:
                return False

    def _sync_channels(self) -> None:
        """Keep the Redis subscription equal to the set of games watched here."""
        sub = self._sub
        if sub is None or sub.closed:
            return  # (the listener subscribes them all when it connects)
        wanted = {channel(g) for g in self._subscribers}
        add, drop = wanted - self._channels, self._channels - wanted
        try:
            if add:
                sub.send("SUBSCRIBE", *add)
            if drop:
                sub.send("UNSUBSCRIBE", *drop)
        except (ConnectionError, OSError, RuntimeError):
            return  # (the connection is going: the listener resubscribes on the next one)
        self._channels = wanted
        for name in add | drop:
            game_id = name[len(CHANNEL_PREFIX) :]
            self._unconfirmed[game_id] = self._unconfirmed.get(game_id, 0) + 1
            self._confirmed.discard(game_id)
        if drop:
            # (a PUBLISH already sent may reach Redis after the UNSUBSCRIBE: its reply no
            # longer counts us, so it must not make a game alone)
            self._sub_generation += 1

    def _pushed(self, reply: resp.Reply | resp.RespError) -> None:
        """A message or a (un)subscribe confirmation on the subscription (or the PONG)."""
        # Redis answers PING two ways: on a connection subscribed to some channel with
        # ["pong", message]; on one subscribed to nothing (an idle process: no game watched
        # here) with the message alone, as a bulk string. Both say Redis is alive.
        if reply == HEALTH_PING or (
            isinstance(reply, list) and len(reply) == 2 and reply == [b"pong", HEALTH_PING]
        ):
            self.pongs += 1
            if self._pong is not None:
                self._pong.set()
            return
        if not isinstance(reply, list) or len(reply) != 3:
            if isinstance(reply, resp.RespError):
                log.warning("redis refused a subscription command: %s", reply)
            return
        kind, name, data = reply
        if not isinstance(name, bytes) or not name.startswith(CHANNEL_BYTES):
            return
        game_id = name[len(CHANNEL_BYTES) :].decode()
        if kind == b"message" and isinstance(data, bytes):
            self._received(game_id, data)
        elif kind == b"subscribe":
            # From here on every batch reaches us; anything before is in the log.
            if self._confirm(game_id) and channel(game_id) in self._channels:
                self._confirmed.add(game_id)
            self._heal(game_id)
        elif kind == b"unsubscribe":
            self._confirm(game_id)

    def _confirm(self, game_id: str) -> bool:
        """One (un)subscribe of the game's channel confirmed: True when it was the last one
        sent (the subscription is now as we last asked)."""
        left = self._unconfirmed.get(game_id, 0) - 1
        if left > 0:
            self._unconfirmed[game_id] = left
            return False
        self._unconfirmed.pop(game_id, None)
        return True

    def _received(self, game_id: str, data: str | bytes) -> None:
        if isinstance(data, bytes) and data.startswith(self._own_prefix):
            return  # our own batch: delivered here when it was committed
        try:
            origin, kind, events, frames = decode_message(data)
        except (ValueError, KeyError, TypeError, IndexError):
            log.warning("ignoring a malformed message on %s", channel(game_id))
            return
        if origin == self.process_id:
            return
        if kind == NEED:
            assert isinstance(frames, set)
            self._heard_needs(game_id, origin, frames)
            return
        if kind == HINT:
            if game_id in self._subscribers:
                self._dispatch(game_id, [], {})  # (read the log from what we know)
            return
        if not events or not isinstance(frames, dict):
            return
        said = self._needed.get(game_id)
        now = time.monotonic()
        if said is None or now - said[1] > NEED_RENEW_S or (
            now - said[1] > NEED_RETRY_S and not self.classes(game_id) <= frames.keys()
        ):
            self._say_needs(game_id)
        self._dispatch(game_id, events, frames)

    def _heal(self, game_id: str) -> None:
        """Catch a watched game up from the log (the service delivers what is new)."""
        if game_id in self._subscribers:
            self._dispatch(game_id, [], {})
            self._say_needs(game_id)

    def _dispatch(self, game_id: str, events: list[Event], frames: Frames) -> None:
        """Hand a batch to the service at once when it can take it without waiting (the
        usual case: `on_remote_now`), else to its game's drainer, in order.

        Applying a batch may wait for the game's lock (held while a local action is written),
        so the listener must not await it: one busy game would hold up every other game's events
        on this process (head-of-line blocking), and under load the others would then lose
        append races against a log they have not caught up with.
        """
        pending = self._inbound.get(game_id)
        if pending is not None:
            pending.append((events, frames))
            return
        if events and self.on_remote_now is not None:
            try:
                if self.on_remote_now(game_id, events, frames):
                    return
            except Exception:  # noqa: BLE001 - one game's trouble must not stop the listener
                log.exception("failed to apply remote events of game %s", game_id)
                return
        self._inbound[game_id] = deque([(events, frames)])
        task = asyncio.create_task(self._drain(game_id), name=f"redis-remote-{game_id}")
        self._drainers.add(task)
        task.add_done_callback(self._drainers.discard)

    async def _drain(self, game_id: str) -> None:
        pending = self._inbound[game_id]
        try:
            while pending:
                await self._remote(game_id, *pending.popleft())
        finally:
            del self._inbound[game_id]

    async def _remote(self, game_id: str, events: list[Event], frames: Frames) -> None:
        if self.on_remote is None:
            self.deliver(game_id, events, frames=dict(frames))
            return
        try:
            await self.on_remote(game_id, events, frames)
        except Exception:  # noqa: BLE001 - one game's trouble must not stop the listener
            log.exception("failed to apply remote events of game %s", game_id)

    # --- life cycle ------------------------------------------------------------------------------

    async def start(self) -> None:
        self._started = True
        self._client = self._new_client()
        self._reconnect_publisher()
        self._tasks = [asyncio.create_task(self._listener(), name="redis-listener")]

    async def stop(self) -> None:
        self._started = False
        tasks = [*self._tasks, *self._drainers]
        if self._pub_task is not None:
            tasks.append(self._pub_task)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []
        await self.delay.stop()
        self.connected.clear()
        for conn in (self._pub, self._sub):
            if conn is not None:
                conn.abort()
        self._pub = self._sub = None
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.aclose()
            self._client = None

    async def ping(self) -> None:
        client = self._client or self._new_client()
        await client.ping()
