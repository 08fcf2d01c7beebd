"""The spectator delay: spectators of a delayed game see each event `delay` seconds after it
was committed; players are unaffected.

A game created with `spectator_delay_s` > 0 (stored with it: `games.spectator_delay_s`) keeps
its spectators behind in two places, both derived from the event log's commit times, so the
delay survives a restart and holds on every `warfield serve` process alike:

- **The fan-out.** The hub (`server.hub.LocalHub`) hands a delayed game's spectator frames to
  this module's `SpectatorDelay` instead of the spectators' sockets. Per game it keeps a queue
  of `(due, events, frame)` in seq order and one task that releases each batch to the
  spectators watching here at its due time: `commit time + delay`. A game's queue starts when
  its first spectator on this process arrives, from the log (`EventStore.timed_events`: every
  event with its `created_at`), and ends when its last spectator here leaves; batches delivered
  meanwhile are due `delay` after they reached this process (never before their commit). Each
  process delays its own spectators (RedisHub delivers every batch to every process).
- **The horizon.** What a spectator may read over REST is the game at `visible_seq`: the last
  seq committed `delay` ago (`EventStore.visible_seq`), never less than the events the game was
  created with (its system, table and first seat: nothing a player could be coached from).

Both read the same clock, `SpectatorDelay.clock`: the wall clock (the log's times are wall
times), or a `Clock` a test injects and moves by hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from server.rules.core import Event

log = logging.getLogger("warfield.delay")

MAX_DELAY_S = 3600
"""The longest spectator delay a game can be created with (an hour)."""

Release = Callable[[str, Sequence[Event], str | None], None]
"""Hands a due batch (with its spectator frame, or None to encode one) to a game's spectators."""


class Clock(Protocol):
    """Wall-clock seconds (UNIX time) and a way to wait for one."""

    def now(self) -> float: ...

    async def sleep_until(self, moment: float) -> None: ...


class SystemClock:
    """`time.time()` and `asyncio.sleep`."""

    def now(self) -> float:
        return time.time()

    async def sleep_until(self, moment: float) -> None:
        while (left := moment - time.time()) > 0:
            await asyncio.sleep(left)


def timestamp(moment: datetime) -> float:
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


@dataclass
class _Batch:
    due: float
    events: Sequence[Event]
    frame: str | None  # the spectator frame (with its patch) when the batch was delivered live


@dataclass
class DelayedFeed:
    """One delayed game's spectator queue on this process."""

    game_id: str
    delay_s: float
    released: int  # the last seq handed to the spectators here
    pending: deque[_Batch] = field(default_factory=deque)
    queued: int = 0  # the last seq in `pending` (or released)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    joining: int = 0  # spectators being welcomed (not subscribed yet): keep the queue


class SpectatorDelay:
    """Every delayed game's spectator queue on this process (module text)."""

    def __init__(self, release: Release, clock: Clock | None = None) -> None:
        self.release = release
        self.clock: Clock = clock or SystemClock()
        self._feeds: dict[str, DelayedFeed] = {}

    def feed(self, game_id: str) -> DelayedFeed | None:
        return self._feeds.get(game_id)

    def track(
        self, game_id: str, delay_s: float, log: Sequence[tuple[Event, datetime]]
    ) -> DelayedFeed:
        """Start delaying a game's spectators here, from its log with commit times: what is
        older than the delay counts as released, the rest waits for its due time. A game
        already tracked keeps its queue."""
        feed = self._feeds.get(game_id)
        if feed is not None:
            return feed
        now = self.clock.now()
        created = timestamp(log[0][1]) if log else now
        released = 0
        pending: deque[_Batch] = deque()
        for event, at in log:
            moment = timestamp(at)
            due = moment + delay_s
            if (due <= now or moment <= created) and not pending:
                released = event.seq
                continue
            if pending and pending[-1].due == due:
                pending[-1].events = [*pending[-1].events, event]
            else:
                pending.append(_Batch(due, [event], None))
        feed = self._feeds[game_id] = DelayedFeed(game_id, delay_s, released, pending)
        feed.queued = log[-1][0].seq if log else 0
        feed.task = asyncio.create_task(self._run(feed), name=f"spectator-delay-{game_id}")
        return feed

    def untrack(self, game_id: str) -> None:
        """Stop delaying a game here (its last spectator on this process left), unless a
        spectator is being welcomed to it."""
        feed = self._feeds.get(game_id)
        if feed is None or feed.joining:
            return
        del self._feeds[game_id]
        if feed.task is not None:
            feed.task.cancel()

    def tracked(self) -> list[str]:
        return list(self._feeds)

    def push(self, game_id: str, events: Sequence[Event], frame: str | None) -> bool:
        """Queue a batch for a tracked game's spectators, due `delay` from now; False if the
        game is not tracked here. Events already queued (read from the log) are skipped."""
        feed = self._feeds.get(game_id)
        if feed is None:
            return False
        fresh = [e for e in events if e.seq > feed.queued]
        if not fresh:
            return True
        if len(fresh) < len(events):
            frame = None  # (the patch was for the whole batch)
        feed.pending.append(_Batch(self.clock.now() + feed.delay_s, fresh, frame))
        feed.queued = fresh[-1].seq
        feed.wake.set()
        return True

    async def _run(self, feed: DelayedFeed) -> None:
        while True:
            if not feed.pending:
                feed.wake.clear()
                await feed.wake.wait()
                continue
            head = feed.pending[0]
            if self.clock.now() < head.due:
                await self.clock.sleep_until(head.due)
                continue
            feed.pending.popleft()
            feed.released = head.events[-1].seq
            try:
                self.release(feed.game_id, head.events, head.frame)
            except Exception:  # noqa: BLE001 - one bad batch must not stop the game's feed
                log.exception("releasing a delayed batch of game %s failed", feed.game_id)

    async def stop(self) -> None:
        feeds = list(self._feeds.values())
        self._feeds.clear()
        for feed in feeds:
            if feed.task is not None:
                feed.task.cancel()
        for feed in feeds:
            if feed.task is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await feed.task


# --- the service's side (duck-typed: `service` is a GameService, `live` its LiveGame) ----------


def delay_of(live: Any) -> int:
    """The game's spectator delay in seconds (0: none)."""
    return int(getattr(live.record, "spectator_delay_s", 0) or 0)


async def horizon(service: Any, live: Any) -> int:
    """The last seq a spectator of the game may see now: the game's seq without a delay, else
    the last seq committed `delay` ago (never less than the events the game was created with)."""
    delay = delay_of(live)
    if delay <= 0:
        return int(live.state.seq)
    cutoff = datetime.fromtimestamp(service.hub.delay.clock.now() - delay, UTC)
    seq = await asyncio.to_thread(service.store.visible_seq, live.record.id, cutoff)
    return min(seq, int(live.state.seq))


async def feed_for(service: Any, live: Any) -> DelayedFeed:
    """The game's spectator queue on this process, started from the log if it has none
    (call while holding the game's lock, so no batch is delivered meanwhile). The caller
    counts itself in `joining` until its spectator is subscribed."""
    spectators: SpectatorDelay = service.hub.delay
    feed = spectators.feed(live.record.id)
    if feed is None:
        timed = await asyncio.to_thread(
            service.store.timed_events, live.record.id, 0, live.state.seq
        )
        feed = spectators.track(live.record.id, delay_of(live), timed)
    return feed
