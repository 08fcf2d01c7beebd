"""Fan-out of committed events to every connected viewer.

`LocalHub` delivers within one process. `RedisHub` (when REDIS_URL is set) also publishes each
batch to Redis so the other `warfield serve` processes deliver it to their own sockets.

Each batch is encoded once per visibility class (seat 1, seat 2, spectators), and the same
string is handed to every subscriber of that class: no per-socket JSON encoding.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from server.rules.core import Event

RemoteHandler = Callable[[str, list[Event]], Awaitable[None]]


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), allow_nan=False)


PatchSource = Callable[[int | None], dict[str, Any] | None]
"""What a batch changed in a viewer's projection of the state (see `server.games.views`)."""


def events_frame(
    events: Sequence[Event], viewer: int | None, patch: dict[str, Any] | None = None
) -> str:
    """The `events` wire frame of a batch as `viewer` may see it, with the state patch that
    brings that viewer's projection from before the batch to after it, when there is one."""
    frame: dict[str, Any] = {"type": "events", "events": [e.to_wire(viewer) for e in events]}
    if patch is not None:
        frame["patch"] = patch
    return dumps(frame)


class Subscriber(Protocol):
    """A connection watching one game (seat 1, 2, or None for a spectator)."""

    viewer: int | None

    def offer(self, events: Sequence[Event], frame: str) -> None:
        """Queue a contiguous batch (already encoded for this viewer); must not block."""


class LocalHub:
    """In-process fan-out: game id -> the subscribers watching it."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[Subscriber]] = defaultdict(set)
        self.on_remote: RemoteHandler | None = None

    def subscribe(self, game_id: str, subscriber: Subscriber) -> None:
        self._subscribers[game_id].add(subscriber)

    def unsubscribe(self, game_id: str, subscriber: Subscriber) -> None:
        subs = self._subscribers.get(game_id)
        if subs is not None:
            subs.discard(subscriber)
            if not subs:
                del self._subscribers[game_id]

    def watchers(self, game_id: str) -> list[Subscriber]:
        return list(self._subscribers.get(game_id, ()))

    def watched_games(self) -> list[str]:
        return list(self._subscribers)

    def deliver(
        self, game_id: str, events: Sequence[Event], patches: PatchSource | None = None
    ) -> None:
        """Hand a committed batch to this process's subscribers of the game: one frame per
        visibility class (with that class's state patch), the same string to each socket."""
        subs = self._subscribers.get(game_id)
        if not subs or not events:
            return
        frames: dict[int | None, str] = {}
        for sub in list(subs):
            frame = frames.get(sub.viewer)
            if frame is None:
                patch = patches(sub.viewer) if patches is not None else None
                frame = frames[sub.viewer] = events_frame(events, sub.viewer, patch)
            sub.offer(events, frame)

    async def publish(
        self, game_id: str, events: Sequence[Event], patches: PatchSource | None = None
    ) -> None:
        """Deliver a committed batch everywhere (here: only this process)."""
        self.deliver(game_id, events, patches)

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def ping(self) -> None:
        return None
