"""Fan-out across `warfield serve` processes through Redis pub/sub (when REDIS_URL is set).

Every committed batch is delivered to this process's sockets at once (as `LocalHub` does) and
published, once, on the channel `warfield:game:{id}`. Each process subscribes to the channels of
the games its own sockets watch (on the first local subscriber; it unsubscribes after the last),
ignores its own messages and hands the others' batches to the service (`on_remote`), which folds
them into its live state and delivers them here.

Redis is only a doorbell. The PostgreSQL event log stays the single source of truth: a batch
lost in Redis shows up as a seq gap at the next one (the service reads the log), and whenever
the subscription (re)starts, every watched game is caught up from the log. So a Redis restart
costs a reconnect (with backoff) and one log read per watched game, never an event.

Publishing never holds up an action: batches go into a bounded queue that one task drains with
pipelined PUBLISHes. While Redis is unreachable they are dropped (and healed as above).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
from collections import deque
from collections.abc import Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

from server.hub import LocalHub, PatchSource, Subscriber
from server.rules.core import Event

log = logging.getLogger("warfield.hub")

CHANNEL_PREFIX = "warfield:game:"
PUBLISH_QUEUE_MAX = 10_000
BACKOFF_FIRST_S = 0.05
BACKOFF_MAX_S = 0.8
SOCKET_TIMEOUT_S = 2.0


def channel(game_id: str) -> str:
    return CHANNEL_PREFIX + game_id


def encode_batch(origin: str, events: Sequence[Event]) -> str:
    """The pub/sub payload of a batch: who sent it and the events, visibility included."""
    return json.dumps(
        {
            "origin": origin,
            "events": [
                [e.seq, e.type, e.actor, e.visibility, e.payload] for e in events
            ],
        },
        separators=(",", ":"),
        allow_nan=False,
    )


def decode_batch(data: str | bytes) -> tuple[str, list[Event]]:
    message = json.loads(data)
    events = [
        Event(type=t, payload=payload, actor=actor, visibility=visibility, seq=int(seq))
        for seq, t, actor, visibility, payload in message["events"]
    ]
    return str(message["origin"]), events


class RedisHub(LocalHub):
    """`LocalHub` plus Redis pub/sub between processes."""

    def __init__(self, url: str, *, process_id: str | None = None) -> None:
        super().__init__()
        self.url = url
        self.process_id = process_id or f"{os.getpid()}-{secrets.token_hex(4)}"
        self._client: aioredis.Redis | None = None
        self._outbox: asyncio.Queue[tuple[str, str]] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._changed = asyncio.Event()
        self.connected = asyncio.Event()  # set while the subscription is live
        self.reconnects = 0  # subscription (re)starts after the first
        self.dropped = 0  # batches not published because Redis was unreachable
        # Batches from other processes waiting for their game's drainer (one per game).
        self._inbound: dict[str, deque[list[Event]]] = {}
        self._drainers: set[asyncio.Task[None]] = set()

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
            self._changed.set()

    def unsubscribe(self, game_id: str, subscriber: Subscriber) -> None:
        super().unsubscribe(game_id, subscriber)
        if game_id not in self._subscribers:
            self._changed.set()

    # --- publishing ------------------------------------------------------------------------------

    async def publish(
        self, game_id: str, events: Sequence[Event], patches: PatchSource | None = None
    ) -> None:
        # Other processes fold the batch into their own live state and patch from there.
        self.deliver(game_id, events, patches)
        if not events or self._outbox is None:
            return
        if self._outbox.qsize() >= PUBLISH_QUEUE_MAX:
            self.dropped += 1
            return
        self._outbox.put_nowait((channel(game_id), encode_batch(self.process_id, events)))

    async def _publisher(self) -> None:
        assert self._outbox is not None and self._client is not None
        outbox, client = self._outbox, self._client
        while True:
            batch = [await outbox.get()]
            while not outbox.empty() and len(batch) < 256:
                batch.append(outbox.get_nowait())
            try:
                if len(batch) == 1:
                    await client.publish(*batch[0])
                else:
                    async with client.pipeline(transaction=False) as pipe:
                        for ch, payload in batch:
                            pipe.publish(ch, payload)
                        await pipe.execute()
            except (RedisError, OSError) as exc:
                # Lost here, healed from the log by the other processes when they reconnect
                # (or at their next message for this game: the seq gap).
                self.dropped += len(batch)
                log.warning("redis publish failed (%s); %d batch(es) dropped",
                            type(exc).__name__, len(batch))
                await asyncio.sleep(BACKOFF_FIRST_S)

    # --- listening -------------------------------------------------------------------------------

    async def _listener(self) -> None:
        delay = BACKOFF_FIRST_S
        first = True
        while True:
            client = self._new_client()
            pubsub = client.pubsub()
            try:
                await self._listen(pubsub, first)
            except (RedisError, OSError) as exc:
                if self.connected.is_set():
                    log.warning("redis subscription lost (%s); reconnecting",
                                type(exc).__name__)
                    delay = BACKOFF_FIRST_S
                self.connected.clear()
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                with contextlib.suppress(Exception):
                    await client.aclose()
            first = False
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX_S)

    async def _listen(self, pubsub: Any, first: bool) -> None:
        """One connection's life: subscribe to the watched games, then read until it breaks."""
        subscribed: set[str] = set()
        # A throwaway channel keeps the connection in pub/sub mode while no game is watched.
        await pubsub.subscribe(f"warfield:process:{self.process_id}")
        control = asyncio.create_task(self._sync_channels(pubsub, subscribed))
        try:
            if not first:
                self.reconnects += 1
                log.info("redis subscription restored; catching up %d game(s) from the log",
                         len(self._subscribers))
            self.connected.set()
            while True:
                if control.done():
                    control.result()  # re-raise its connection error
                message = await pubsub.get_message(timeout=None)
                if message is None:
                    continue
                kind = message["type"]
                name = message["channel"]
                name = name.decode() if isinstance(name, bytes) else name
                if not name.startswith(CHANNEL_PREFIX):
                    continue
                game_id = name[len(CHANNEL_PREFIX) :]
                if kind == b"message" or kind == "message":
                    await self._received(game_id, message["data"])
                elif kind == "subscribe" or kind == b"subscribe":
                    # From here on every batch reaches us; anything before is in the log.
                    await self._heal(game_id)
        finally:
            control.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await control

    async def _sync_channels(self, pubsub: Any, subscribed: set[str]) -> None:
        """Keep the Redis subscription equal to the set of games watched here."""
        while True:
            self._changed.clear()
            wanted = set(self._subscribers)
            add, drop = wanted - subscribed, subscribed - wanted
            if add:
                await pubsub.subscribe(*(channel(g) for g in add))
                subscribed |= add
            if drop:
                await pubsub.unsubscribe(*(channel(g) for g in drop))
                subscribed -= drop
            if not self._changed.is_set():
                await self._changed.wait()

    async def _received(self, game_id: str, data: str | bytes) -> None:
        try:
            origin, events = decode_batch(data)
        except (ValueError, KeyError, TypeError):
            log.warning("ignoring a malformed batch on %s", channel(game_id))
            return
        if origin == self.process_id or not events:
            return
        self._dispatch(game_id, events)

    async def _heal(self, game_id: str) -> None:
        """Catch a watched game up from the log (the service delivers what is new)."""
        if game_id in self._subscribers:
            self._dispatch(game_id, [])

    def _dispatch(self, game_id: str, events: list[Event]) -> None:
        """Hand a batch to its game's drainer, in order, without waiting for it.

        Applying a batch waits for the game's lock (held while a local action is written), so
        the listener must not await it: one busy game would hold up every other game's events
        on this process (head-of-line blocking), and under load the others would then lose
        append races against a log they have not caught up with.
        """
        pending = self._inbound.get(game_id)
        if pending is not None:
            pending.append(events)
            return
        self._inbound[game_id] = deque([events])
        task = asyncio.create_task(self._drain(game_id), name=f"redis-remote-{game_id}")
        self._drainers.add(task)
        task.add_done_callback(self._drainers.discard)

    async def _drain(self, game_id: str) -> None:
        pending = self._inbound[game_id]
        try:
            while pending:
                await self._remote(game_id, pending.popleft())
        finally:
            del self._inbound[game_id]

    async def _remote(self, game_id: str, events: list[Event]) -> None:
        if self.on_remote is None:
            self.deliver(game_id, events)
            return
        try:
            await self.on_remote(game_id, events)
        except Exception:  # noqa: BLE001 - one game's trouble must not stop the listener
            log.exception("failed to apply remote events of game %s", game_id)

    # --- life cycle ------------------------------------------------------------------------------

    async def start(self) -> None:
        self._client = self._new_client()
        self._outbox = asyncio.Queue()
        self._tasks = [
            asyncio.create_task(self._publisher(), name="redis-publisher"),
            asyncio.create_task(self._listener(), name="redis-listener"),
        ]

    async def stop(self) -> None:
        tasks = [*self._tasks, *self._drainers]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []
        await self.delay.stop()
        self.connected.clear()
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.aclose()
            self._client = None

    async def ping(self) -> None:
        client = self._client or self._new_client()
        await client.ping()
