"""Fan-out of committed events to every connected viewer.

`LocalHub` delivers within one process. `RedisHub` (when REDIS_URL is set) also publishes each
batch to Redis so the other `warfield serve` processes deliver it to their own sockets.

Each batch is encoded once per visibility class (seat 1, seat 2, spectators), and the same
string is handed to every subscriber of that class: no per-socket JSON encoding.

The spectators of a game with a spectator delay get their frames later: while such a game is
tracked here (`delay`, server/games/delay.py), its spectator frame goes to the delay queue,
which releases it to this process's spectators when it is due.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from server.games.delay import SpectatorDelay
from server.rules.core import Event

Frames = dict[int | None, str]
"""A batch's `events` frames by visibility class (seat 1, seat 2, None: spectators)."""
RemoteHandler = Callable[[str, list[Event], Frames], Awaitable[None]]
RemoteFastPath = Callable[[str, list[Event], Frames], bool]


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), allow_nan=False)


PatchSource = Callable[[int | None], dict[str, Any] | None]
"""What a batch changed in a viewer's projection of the state (see `server.games.views`)."""


PATCH_HEAD = '{"type":"events","patch":'
"""How a frame with a state patch starts: the patch comes before the events, so a process that
only wants the patch (`frame_patch`) reads it without parsing the events."""
_decoder = json.JSONDecoder()


def events_frame(
    events: Sequence[Event], viewer: int | None, patch: dict[str, Any] | None = None
) -> str:
    """The `events` wire frame of a batch as `viewer` may see it, with the state patch that
    brings that viewer's projection from before the batch to after it, when there is one."""
    wired = [e.to_wire(viewer) for e in events]
    if patch is None:
        return dumps({"type": "events", "events": wired})
    return dumps({"type": "events", "patch": patch, "events": wired})


def frame_patch(frame: str) -> Any:
    """The state patch of an `events` frame (None when it has none): parsed alone when the
    frame starts with it (`PATCH_HEAD`), else from the whole frame (an older process's)."""
    if frame.startswith(PATCH_HEAD):
        return _decoder.raw_decode(frame, len(PATCH_HEAD))[0]
    return json.loads(frame).get("patch")


class Subscriber(Protocol):
    """A connection watching one game (seat 1, 2, or None for a spectator)."""

    viewer: int | None

    def offer(self, events: Sequence[Event], frame: str) -> None:
        """Queue a contiguous batch (already encoded for this viewer); must not block."""


class LocalHub:
    """In-process fan-out: game id -> the subscribers watching it."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[Subscriber]] = defaultdict(set)
        # game id -> visibility class -> how many of its subscribers here are of that class
        self._viewers: dict[str, dict[int | None, int]] = {}
        self.on_remote: RemoteHandler | None = None
        self.on_remote_now: RemoteFastPath | None = None
        self.delay = SpectatorDelay(self._release_delayed)

    def subscribe(self, game_id: str, subscriber: Subscriber) -> None:
        subs = self._subscribers[game_id]
        if subscriber not in subs:
            subs.add(subscriber)
            viewers = self._viewers.setdefault(game_id, {})
            viewers[subscriber.viewer] = viewers.get(subscriber.viewer, 0) + 1

    def unsubscribe(self, game_id: str, subscriber: Subscriber) -> None:
        subs = self._subscribers.get(game_id)
        if subs is not None:
            if subscriber in subs:
                subs.discard(subscriber)
                viewers = self._viewers[game_id]
                left = viewers[subscriber.viewer] - 1
                if left:
                    viewers[subscriber.viewer] = left
                else:
                    del viewers[subscriber.viewer]
            if not subs:
                del self._subscribers[game_id]
                self._viewers.pop(game_id, None)
            if not any(s.viewer is None for s in subs):
                self.delay.untrack(game_id)  # (no spectator here any more)

    def watchers(self, game_id: str) -> list[Subscriber]:
        return list(self._subscribers.get(game_id, ()))

    def watched_games(self) -> list[str]:
        return list(self._subscribers)

    def classes(self, game_id: str) -> set[int | None]:
        """The visibility classes this process needs a game's frames for: its subscribers'
        (spectators also when only the delay queue holds them)."""
        wanted = set(self._viewers.get(game_id, ()))
        if self.delay.feed(game_id) is not None:
            wanted.add(None)
        return wanted

    def deliver(
        self,
        game_id: str,
        events: Sequence[Event],
        patches: PatchSource | None = None,
        frames: Frames | None = None,
    ) -> Frames:
        """Hand a committed batch to this process's subscribers of the game: one frame per
        visibility class (with that class's state patch), the same string to each socket.
        `frames` are ones already encoded (by the process that committed the batch); the
        others are encoded here. Returns every frame used (`frames` filled in)."""
        frames = {} if frames is None else frames
        subs = self._subscribers.get(game_id)
        if not subs or not events:
            return frames
        delayed = self.delay.feed(game_id) is not None
        for sub in list(subs):
            if sub.viewer is None and (delayed or getattr(sub, "delay_s", 0) > 0):
                continue  # (their frame goes through the delay queue below)
            frame = frames.get(sub.viewer)
            if frame is None:
                patch = patches(sub.viewer) if patches is not None else None
                frame = frames[sub.viewer] = events_frame(events, sub.viewer, patch)
            sub.offer(events, frame)
        if delayed:
            frame = frames.get(None)
            if frame is None:
                patch = patches(None) if patches is not None else None
                frame = frames[None] = events_frame(events, None, patch)
            self.delay.push(game_id, events, frame)
        return frames

    def _release_delayed(
        self, game_id: str, events: Sequence[Event], frame: str | None
    ) -> None:
        """A delayed batch came due: hand it to this process's spectators of the game."""
        text = frame if frame is not None else events_frame(events, None)
        for sub in list(self._subscribers.get(game_id, ())):
            if sub.viewer is None:
                sub.offer(events, text)

    async def publish(
        self, game_id: str, events: Sequence[Event], patches: PatchSource | None = None
    ) -> None:
        """Deliver a committed batch everywhere (here: only this process)."""
        self.deliver(game_id, events, patches)

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        await self.delay.stop()

    async def ping(self) -> None:
        return None
