"""The websocket `/ws/games/{id}`: hello/welcome, live events, actions and questions.

Each connection has one writer task draining an outbound queue, so frames leave in the order
they were queued and a slow socket never holds up the others. Events reach the queue already
encoded for this viewer's visibility class (the hub encodes once per class); the writer only
checks seq continuity: it drops batches already sent, and fills a gap from the log.

Every open socket is in the app's `Connections` registry, so a shutdown can `drain` them: let
the messages being handled finish (an action commits and its `ack` is queued), then close each
socket with 1012 after the frames queued before it; clients reconnect and resume from their seq.

A spectator of a game with a spectator delay (server/games/delay.py) is welcomed with the state
at the game's delayed horizon, resumes (`since`) only up to it, then gets each batch when the
hub's delay queue releases it; its measures and lines of sight are answered on the table as it
was shown them (previews and ambush options are refused), and it sees no shared measures.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.websockets import WebSocketState

from server.api.errors import store_unavailable
from server.api.messages import (
    ActionMessage,
    Hello,
    MeasureMessage,
    Ping,
    Question,
    parse_client_message,
    point_of,
)
from server.api.routes.replay import replay_cache, state_at_seq
from server.config import Settings
from server.data import json_input
from server.games import delay, steps
from server.games.service import GameService, LiveGame
from server.hub import dumps, events_frame
from server.rules.core import (
    BAD_REQUEST,
    FORBIDDEN,
    NOT_FOUND,
    RATE_LIMITED,
    TOO_LARGE,
    Event,
    GameState,
    RuleError,
)
from server.store import unreachable

log = logging.getLogger("warfield.ws")
router = APIRouter()

if steps.totals is not None:  # (bench/: the step timing, server/games/steps.py)
    import server.hub

    # The hub's frames count as `encode` (the hub calls its module's `events_frame`).
    server.hub.events_frame = steps.timed("encode_frames", server.hub.events_frame)

    @router.get("/debug/steps")
    async def step_totals(reset: bool = False) -> dict[str, Any]:
        """The step timing's totals since the last reset (and reset them, with `reset`)."""
        assert steps.totals is not None
        report = steps.totals.report()
        if reset:
            steps.totals.reset()
        return report

CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
CLOSE_RESTART = 1012
CLOSE_TRY_LATER = 1013
# (The limits, frame size, message rate, hello timeout, queue length, overlay rate, spectator
# refusals, are `Settings`: server/config.py.)
# After a send missed its deadline: how long the 1013 close frame may take to be written
# before the connection is aborted (a reader that never reads never takes it).
CLOSE_GRACE_S = 2.0
# Presence frames (who is here) go to every socket of the game on each join and leave: with N
# sockets a crowd arriving costs N² frames (1,000 spectators: a million). Up to this many
# sockets of a game on this process each change is sent at once; above it the changes within
# PRESENCE_COALESCE_S are sent as one frame with the latest counts.
PRESENCE_IMMEDIATE_MAX = 64
PRESENCE_COALESCE_S = 0.5


class _Close:
    """A queued instruction to close the socket after the frames queued before it."""

    def __init__(self, code: int, reason: str = "") -> None:
        self.code, self.reason = code, reason


Q = TypeVar("Q", bound=Question)
Answerer = Callable[["Connection", Q], Awaitable[dict[str, Any]]]
# Non-committing questions (preview, measure, line_of_sight, ambush_options), each answered by
# a handler that takes its validated message; registered by server/api/routes/questions.py.
QUESTIONS: dict[str, Answerer[Any]] = {}


def register_question(kind: str) -> Callable[[Answerer[Q]], Answerer[Q]]:
    def wrap(fn: Answerer[Q]) -> Answerer[Q]:
        QUESTIONS[kind] = fn
        return fn

    return wrap


class Outbox:
    """A connection's outbound frames, in order: what `asyncio.Queue` does for one consumer,
    for less per frame (a deque append; a future only while the writer waits on an empty box).
    The hub offers every event to every socket through this, so it is the fan-out's inner loop.
    """

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[Any] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def qsize(self) -> int:
        return len(self._items)

    def idle(self) -> bool:
        """Empty, its writer waiting for the next item (not busy with the last one)."""
        return self._waiter is not None and not self._items

    def empty(self) -> bool:
        return not self._items

    async def get(self) -> Any:
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        return self._items.popleft()


class _TooLarge(Exception):
    """A client frame over the size limit."""


class _SlowReader(Exception):
    """A frame was not written within the send deadline: the client has stopped reading."""


class TokenBucket:
    """A per-connection rate limit: `rate` messages a second, bursts up to `burst`."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens, self.stamp = float(burst), time.monotonic()

    def take(self) -> float:
        """0 if allowed, else the seconds to wait before the next message is allowed."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate


def _transport_of(send: Any, depth: int = 6) -> Any:
    """The asyncio transport under an ASGI `send`: uvicorn's protocol object is the `__self__`
    of the server's `send`, which Starlette's middleware wraps in closures. None if not found
    (another server, the test client)."""
    owner = _protocol_of(send, depth)
    return None if owner is None else owner.transport


def _protocol_of(send: Any, depth: int = 6) -> Any:
    """The server's protocol object behind an ASGI `send` (the owner of its transport)."""
    seen: set[int] = set()
    todo = [send]
    for _ in range(depth):
        found, todo = todo, []
        for fn in found:
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            owner = getattr(fn, "__self__", None)
            transport = getattr(owner, "transport", None)
            if transport is not None and hasattr(transport, "abort"):
                return owner
            for cell in getattr(fn, "__closure__", None) or ():
                with contextlib.suppress(ValueError):  # (an empty cell)
                    if callable(cell.cell_contents):
                        todo.append(cell.cell_contents)
    return None


def origin_allowed(ws: WebSocket, settings: Settings) -> bool:
    """Starlette's CORS does not cover websockets: check Origin against the allow-list.

    No allow-list: a browser's Origin must match the Host it connected to. Clients that send
    no Origin (scripts, other servers) are not browsers and are let through.
    """
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    origin = origin.rstrip("/")
    if settings.origins:
        return origin in settings.origins or "*" in settings.origins
    host = ws.headers.get("host", "")
    return urlsplit(origin).netloc == host


def _echoable_ref(ref: Any) -> str | int | None:
    """The `ref` an answer may echo: the client's string (or integer) as sent (a malformed
    one is refused by the message models with `bad_request`), never a raw value the JSON
    encoder cannot write back (a non-finite number) or a nested object."""
    if isinstance(ref, str) or (isinstance(ref, int) and not isinstance(ref, bool)):
        return ref
    return None


class DirectWriter:
    """Frames written straight to the socket's transport, the websocket framing built once per
    frame however many sockets it goes to (`wire`), instead of each socket's frame passing
    Starlette, uvicorn and the websockets library (encoding, framing: two thirds of the
    writer's CPU with 1,000 spectators).

    Only under uvicorn's `websockets-sansio` protocol (what `warfield serve` runs), only while
    the connection is open, its handshake done, no close sent, no extension negotiated (the
    server offers none: no compression) and the transport not paused for writing: otherwise
    `usable()` is False and the frame takes the ordinary path (which waits for the paused
    transport, or raises for a closed one). A server frame is unmasked and whole, so writing
    one is all the protocol asks; uvicorn's own writes (pings, the close) are whole frames
    written in one call too, so nothing interleaves.
    """

    __slots__ = ("proto", "transport", "writable")

    def __init__(self, proto: Any) -> None:
        self.proto, self.transport, self.writable = proto, proto.transport, proto.writable

    @classmethod
    def of(cls, ws: WebSocket) -> DirectWriter | None:
        proto = _protocol_of(getattr(ws, "_send", None))
        if proto is None or type(proto).__name__ != "WebSocketsSansIOProtocol":
            return None
        if not all(hasattr(proto, a) for a in ("conn", "writable", "close_sent",
                                               "disconnected", "handshake_complete")):
            return None
        if getattr(proto.conn, "extensions", None):
            return None
        return cls(proto)

    def usable(self) -> bool:
        proto = self.proto
        return (
            self.writable.is_set()
            and proto.handshake_complete
            and not proto.close_sent
            and not proto.disconnected
            and not self.transport.is_closing()
        )

    def write(self, data: bytes) -> None:
        self.transport.write(data)


_WIRE: dict[int, tuple[str, bytes]] = {}  # id(frame) -> (frame, its websocket frame)
_WIRE_MAX = 256


def wire(frame: str) -> bytes:
    """`frame` as a whole unmasked websocket text frame; built once for all the sockets it
    goes to (the hub hands them the same string), kept for the last few frames."""
    key = id(frame)
    hit = _WIRE.get(key)
    if hit is not None and hit[0] is frame:
        return hit[1]
    payload = frame.encode()
    n = len(payload)
    if n < 126:
        head = bytes((0x81, n))
    elif n < 65536:
        head = bytes((0x81, 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x81, 127)) + n.to_bytes(8, "big")
    data = head + payload
    if len(_WIRE) >= _WIRE_MAX:
        _WIRE.clear()
    _WIRE[key] = (frame, data)  # (the frame is kept alive with it: its id stays unique)
    return data


class Connections(set["Connection"]):
    """The app's open sockets (past the handshake); `draining` once a shutdown has begun.
    `presence_due`: games whose coalesced presence frame is scheduled (see `_presence_changed`).
    """

    draining: bool = False

    def __init__(self) -> None:
        super().__init__()
        self.presence_due: dict[str, asyncio.TimerHandle] = {}


async def drain(connections: Connections, timeout: float = 8.0) -> None:
    """Finish the messages in flight, then close every socket with 1012 (service restart).

    New frames arriving meanwhile are not handled: the socket closes, and the client retries
    them after it reconnects (an action's `ref` makes the retry safe). Idempotent.
    """
    connections.draining = True
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while any(c.busy for c in connections) and loop.time() < deadline:
        await asyncio.sleep(0.02)
    for conn in list(connections):
        await conn.restart()
    while connections and loop.time() < deadline:
        await asyncio.sleep(0.02)


class Connection:
    """One websocket watching one game, as seat 1, seat 2 or a spectator (viewer None)."""

    def __init__(
        self,
        ws: WebSocket,
        service: GameService,
        settings: Settings,
        game_id: str,
        connections: Connections | None = None,
    ):
        self.ws = ws
        self.connections = connections if connections is not None else Connections()
        self.service = service
        self.settings = settings
        self.game_id = game_id
        self.viewer: int | None = None
        self.delay_s = 0  # the game's spectator delay, when this socket is a spectator's
        self.sent = -1  # highest seq this socket has been sent (welcome included)
        self.subscribed = False
        self.queue = Outbox()
        self.bucket = TokenBucket(settings.rate_limit_per_s, settings.rate_limit_burst)
        self.overlay_bucket = TokenBucket(settings.overlay_rate_per_s, settings.overlay_burst)
        self.refusals = TokenBucket(
            settings.spectator_refusals_per_s, settings.spectator_refusals_burst
        )
        self.closing = False  # a close is queued: offer nothing more
        self.busy = False  # handling a message (drain waits for it)
        self.writer: asyncio.Task[None] | None = None
        # The send deadline (`_send_text`): when the frame being written was started (None
        # between frames), the timer that checks it, and whether it fired.
        self._sending_since: float | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self._missed_deadline = False
        self.direct: DirectWriter | None = None  # (set when the writer starts)

    async def restart(self) -> None:
        """Close with 1012 once the frames already queued are sent (see `drain`)."""
        if self.writer is not None and not self.writer.done():
            self.queue.put_nowait(_Close(CLOSE_RESTART, "server restarting; reconnect"))
            return
        with contextlib.suppress(Exception):
            await self.ws.close(code=CLOSE_RESTART, reason="server restarting; reconnect")

    # --- the hub's side ------------------------------------------------------------------------

    def offer(self, events: Sequence[Event], frame: str) -> None:
        if self.closing:
            return
        if self.queue.qsize() > self.settings.max_queued_frames:
            # Too far behind: drop it; the client reconnects and resumes from its last seq.
            self.closing = True
            self.queue.put_nowait(_Close(CLOSE_TRY_LATER, "too far behind; reconnect"))
            return
        direct = self.direct
        if (
            direct is not None
            and self.queue.idle()
            and events
            and events[0].seq == self.sent + 1
            and direct.usable()
        ):
            # Nothing queued or being written, the batch follows what was sent: write it now
            # (the writer would do exactly this, a task step later for each socket).
            started = steps.now() if steps.totals is not None else 0  # (bench/: step timing)
            direct.write(wire(frame))
            if steps.totals is not None:
                steps.totals.add("write", started)
            self.sent = events[-1].seq
            if self.service.metrics is not None:  # metrics hook: commit -> delivered
                self.service.metrics.delivered_now()
            return
        self.queue.put_nowait((events, frame, time.perf_counter()))  # (metrics: queued at)

    def send(self, message: dict[str, Any]) -> None:
        if steps.totals is not None:  # (bench/: the step timing)
            started = steps.now()
            text = dumps(message)
            steps.totals.add("encode_ack", started)
            self.queue.put_nowait(text)
            return
        self.queue.put_nowait(dumps(message))

    def error(self, ref: Any, exc: RuleError) -> None:
        self.send({"type": "error", "ref": ref, **exc.to_wire()})

    async def _send_text(self, text: str) -> None:
        """Write one frame, within the send deadline (`_SlowReader` past it).

        The fan-out's inner loop (every frame to every socket) so no timer per frame
        (`asyncio.wait_for` made a task and a timer for each, a third of the writer's CPU with
        1,000 spectators): the write notes when it started, and one timer per socket, armed
        when none is pending, checks at the deadline whether a write is still under way and
        started that long ago; if so it cancels the writer (`_deadline_due`). A socket whose
        reader keeps up re-arms it at most once per `send_timeout_s`."""
        loop = asyncio.get_running_loop()
        now = self._sending_since = loop.time()
        if self._deadline is None:
            self._deadline = loop.call_at(now + self.settings.send_timeout_s, self._deadline_due)
        started = steps.now() if steps.totals is not None else 0  # (bench/: the step timing)
        try:
            await self.ws.send_text(text)
        finally:
            self._sending_since = None
            if steps.totals is not None:
                steps.totals.add("write", started)

    def _deadline_due(self) -> None:
        self._deadline = None
        started = self._sending_since
        if started is None:
            return  # (between frames: re-armed by the next write)
        due = started + self.settings.send_timeout_s
        loop = asyncio.get_running_loop()
        if loop.time() < due:  # (a later frame: check again at its own deadline)
            self._deadline = loop.call_at(due, self._deadline_due)
            return
        if self.writer is not None and not self.writer.done():
            self._missed_deadline = True
            self.writer.cancel()

    async def _writer(self) -> None:
        try:
            await self._write_queued()
        except asyncio.CancelledError:
            if not self._missed_deadline:
                raise  # (cancelled: the connection is ending)
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()  # (the deadline's cancel is handled here)
            log.info("closing a socket of game %s that stopped reading", self.game_id)
            await self._close_slow_reader()
        except _SlowReader:
            log.info("closing a socket of game %s that stopped reading", self.game_id)
            await self._close_slow_reader()
        finally:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

    async def _close_slow_reader(self) -> None:
        """Close with 1013 (try again later); if even the close frame cannot be written in
        CLOSE_GRACE_S (the client reads nothing), abort the connection. The ASGI interface has
        no way to abort, so this reaches uvicorn's protocol (what `warfield serve` runs)."""
        self.closing = True
        try:
            await asyncio.wait_for(
                self.ws.close(code=CLOSE_TRY_LATER, reason="too slow reading; reconnect"),
                CLOSE_GRACE_S,
            )
            return
        except TimeoutError:
            pass
        except Exception:  # noqa: BLE001 - already closed or failed: abort below all the same
            log.debug("close of a slow socket failed", exc_info=True)
        transport = _transport_of(self.ws._send)
        if transport is not None:
            transport.abort()  # the server sees the disconnect; `run` then cleans up
        else:
            log.warning("cannot abort a socket that stopped reading (not served by uvicorn)")

    async def _write_queued(self) -> None:
        self.direct = direct = DirectWriter.of(self.ws)
        while True:
            item = await self.queue.get()
            if isinstance(item, _Close):
                self.closing = True
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(
                        self.ws.close(code=item.code, reason=item.reason),
                        self.settings.send_timeout_s,
                    )
                    return
                raise _SlowReader
            if isinstance(item, str):
                await self._send_text(item)
                continue
            events, frame, queued_at = item
            first, last = events[0].seq, events[-1].seq
            if last <= self.sent:
                continue
            if first > self.sent + 1:
                missing = await self.service.events_since(
                    self.game_id, self.sent, self.viewer, until=first - 1
                )
                if missing:
                    await self._send_text(dumps({"type": "events", "events": missing}))
            elif first <= self.sent:
                frame = events_frame([e for e in events if e.seq > self.sent], self.viewer)
            if direct is not None and direct.usable():
                direct.write(wire(frame))
            else:
                await self._send_text(frame)
            self.sent = last
            if self.service.metrics is not None:  # metrics hook: commit -> delivered
                self.service.metrics.delivered(queued_at)

    # --- the client's side ---------------------------------------------------------------------

    async def run(self) -> None:
        try:
            if not await self._hello():
                return
        except WebSocketDisconnect:
            return
        writer = self.writer = asyncio.create_task(self._writer())
        try:
            await self._serve(writer)
        except WebSocketDisconnect:
            pass
        finally:
            if self.subscribed:
                self.service.hub.unsubscribe(self.game_id, self)
                self.subscribed = False
                if self.service.metrics is not None:  # metrics hook: open sockets by role
                    self.service.metrics.socket_closed(self.viewer)
                self._presence_changed()
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer

    async def _receive(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next JSON object from the client; None (after an error frame) if malformed."""
        message = await asyncio.wait_for(self.ws.receive(), timeout)
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000))
        text = message.get("text")
        if text is None and message.get("bytes") is not None:
            text = message["bytes"].decode("utf-8", errors="replace")
        if text is None:
            return None
        started = steps.now() if steps.totals is not None else 0  # (bench/: the step timing)
        if len(text.encode()) > self.settings.max_frame_bytes:
            raise _TooLarge
        try:
            data = json_input.loads(text)  # (nested deeper than its limit: refused unparsed)
        except json_input.JsonInputError as exc:
            self.error(None, RuleError(BAD_REQUEST, f"the frame is not valid JSON: "
                                       f"{exc.message}", **exc.details()))
            return None
        if steps.totals is not None:
            steps.totals.add("decode", started)
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            self.error(None, RuleError(BAD_REQUEST, "a message is a JSON object with a 'type'"))
            return None
        return data

    async def _refuse(self, exc: RuleError, code: int = CLOSE_POLICY) -> None:
        """Before the writer runs: send the error, then close (each within the deadline)."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(
                self.ws.send_text(dumps({"type": "error", "ref": None, **exc.to_wire()})),
                self.settings.send_timeout_s,
            )
            await asyncio.wait_for(
                self.ws.close(code=code, reason=exc.message[:120]), self.settings.send_timeout_s
            )

    def _too_large(self) -> str:
        return f"frames are limited to {self.settings.max_frame_bytes // 1024} KiB"

    async def _hello(self) -> bool:
        try:
            data = await self._receive(self.settings.hello_timeout_s)
        except _TooLarge:
            await self._refuse(RuleError(TOO_LARGE, self._too_large()), CLOSE_TOO_BIG)
            return False
        except TimeoutError:
            await self._refuse(RuleError(BAD_REQUEST, "send 'hello' first"))
            return False
        if data is None or data["type"] != "hello":
            await self._refuse(RuleError(BAD_REQUEST, "the first message must be 'hello'"))
            return False
        try:
            hello = parse_client_message(data)
        except RuleError as exc:
            await self._refuse(exc)
            return False
        assert isinstance(hello, Hello)
        self.busy = True
        try:
            return await self._welcome(hello)
        finally:
            self.busy = False

    async def _welcome(self, hello: Hello) -> bool:
        since = hello.since
        try:
            self.viewer = await self.service.authenticate(self.game_id, hello.token)
            live = await self.service.live(self.game_id)
        except RuleError as exc:
            await self._refuse(exc)
            return False
        except Exception as exc:
            if not unreachable(exc):
                raise
            # The database restarting: the client reconnects after 1013, as after a restart.
            log.warning("the database is unreachable welcoming a socket: %s", exc)
            await self._refuse(store_unavailable(), CLOSE_TRY_LATER)
            return False
        refused = self._admission()
        if refused is not None:
            await self._refuse(refused, CLOSE_TRY_LATER)
            return False
        if self.viewer is None and delay.delay_of(live) > 0:
            await self._welcome_delayed(live, since)
            self._presence_changed()
            return True
        async with live.lock:
            state = live.state
            missed: list[dict[str, Any]] = []
            if since is not None and since < state.seq:
                missed = await self.service.events_since(
                    self.game_id, since, self.viewer, until=state.seq
                )
            self.service.hub.subscribe(self.game_id, self)
            self.subscribed = True
            if self.service.metrics is not None:  # metrics hook: open sockets by role
                self.service.metrics.socket_opened(self.viewer)
            self.sent = state.seq
            self.send(
                {
                    "type": "welcome",
                    "seat": self.viewer,
                    "seq": state.seq,
                    "state": state.to_json(self.viewer),
                    "limits": self.settings.client_limits(),
                }
            )
            if missed:
                self.send({"type": "events", "events": missed})
        self._presence_changed()
        return True

    async def _welcome_delayed(self, live: LiveGame, since: int | None) -> None:
        """A spectator of a delayed game: the state at the delay queue's released seq, the
        events after `since` up to it, then what the queue releases (module text)."""
        self.delay_s = delay.delay_of(live)
        async with live.lock:  # (no batch of this game is delivered while the queue starts)
            feed = await delay.feed_for(self.service, live)
            feed.joining += 1  # (a spectator leaving meanwhile must not end the queue)
        seq = feed.released
        try:
            state = await state_at_seq(self.service, replay_cache(self.ws.app), live, seq)
            missed: list[dict[str, Any]] = []
            if since is not None and since < seq:
                missed = await self.service.events_since(self.game_id, since, None, until=seq)
            self.service.hub.subscribe(self.game_id, self)
            self.subscribed = True
        finally:
            feed.joining -= 1
            if not self.subscribed and not any(
                w.viewer is None for w in self.service.hub.watchers(self.game_id)
            ):
                self.service.hub.delay.untrack(self.game_id)  # (no spectator to feed here)
        if self.service.metrics is not None:  # metrics hook: open sockets by role
            self.service.metrics.socket_opened(self.viewer)
        self.sent = seq
        self.send(
            {
                "type": "welcome",
                "seat": None,
                "seq": seq,
                "state": state.to_json(None),
                "limits": self.settings.client_limits(),
                "spectator_delay_s": self.delay_s,
            }
        )
        if missed:
            self.send({"type": "events", "events": missed})
        released = feed.released
        if released > seq:  # released while the state was folded: from the log, in order
            events = await asyncio.to_thread(
                self.service.store.events, self.game_id, seq, released
            )
            if events:
                self.offer(events, events_frame(events, None))

    async def delayed_state(self) -> GameState | None:
        """The table as this socket has been shown it, for a spectator of a delayed game;
        None for everyone else (who see the live state)."""
        if self.delay_s <= 0:
            return None
        live = await self.service.live(self.game_id)
        return await state_at_seq(self.service, replay_cache(self.ws.app), live, self.sent)

    def _admission(self) -> RuleError | None:
        """Seats and spectators are counted apart: each seat may have a few sockets of its own
        (tabs, devices) however many spectators watch, so a crowd never locks a player out."""
        watchers = self.service.hub.watchers(self.game_id)
        if self.viewer is None:
            spectators = sum(1 for w in watchers if getattr(w, "viewer", None) is None)
            if spectators >= self.settings.max_spectators_per_game:
                return RuleError(
                    RATE_LIMITED, "this game has too many spectators", retry_after=30
                )
            return None
        mine = sum(1 for w in watchers if getattr(w, "viewer", None) == self.viewer)
        if mine >= self.settings.max_sockets_per_seat:
            return RuleError(
                RATE_LIMITED,
                f"seat {self.viewer} is already open in {mine} tabs or devices; close one",
                retry_after=5,
            )
        return None

    def _presence_changed(self) -> None:
        """Tell every socket of the game who is here: at once in a small audience, else once
        per PRESENCE_COALESCE_S however many came and went (the counts when it is sent)."""
        due = self.connections.presence_due
        if self.game_id in due:
            return  # (scheduled: it will carry this change too)
        if len(self.service.hub.watchers(self.game_id)) > PRESENCE_IMMEDIATE_MAX:
            due[self.game_id] = asyncio.get_running_loop().call_later(
                PRESENCE_COALESCE_S, self._presence_due
            )
            return
        self._send_presence()

    def _presence_due(self) -> None:
        self.connections.presence_due.pop(self.game_id, None)
        self._send_presence()

    def _send_presence(self) -> None:
        watchers = self.service.hub.watchers(self.game_id)
        players = sorted({w.viewer for w in watchers if w.viewer is not None})
        frame = dumps(
            {
                "type": "presence",
                "players": players,
                "spectators": sum(1 for w in watchers if w.viewer is None),
            }
        )
        for watcher in watchers:
            if isinstance(watcher, Connection):
                watcher.queue.put_nowait(frame)

    async def _serve(self, writer: asyncio.Task[None]) -> None:
        while True:
            try:
                data = await self._receive()
            except _TooLarge:
                self.error(None, RuleError(TOO_LARGE, self._too_large()))
                self.queue.put_nowait(_Close(CLOSE_TOO_BIG, "frame too large"))
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(writer, 5)
                return
            if data is None or self.connections.draining:
                continue  # (draining: not handled; the client retries after it reconnects)
            kind, ref = data["type"], _echoable_ref(data.get("ref"))
            wait = self.bucket.take()
            if wait:
                self.error(ref, RuleError(RATE_LIMITED, "slow down", retry_after=round(wait, 3)))
                if self.viewer is None and self.refusals.take():
                    # A spectator flooding on despite the errors: closed (players never are).
                    self.closing = True
                    self.queue.put_nowait(_Close(CLOSE_POLICY, "too many messages"))
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(writer, CLOSE_GRACE_S + 1)
                    return
                continue
            self.busy = True
            try:
                started = steps.now() if steps.totals is not None else 0  # (bench/: timing)
                msg = parse_client_message(data)
                if steps.totals is not None:
                    steps.totals.add("validate", started)
                await self._handle(msg, ref)
            except RuleError as exc:
                self.error(ref, exc)
            except WebSocketDisconnect:
                raise
            except Exception as exc:  # noqa: BLE001 - a bug must not cost the player the socket
                if unreachable(exc):  # a database restart: an expected fault, sent again
                    log.warning("the database is unreachable handling %s: %s", kind, exc)
                    self.error(ref, store_unavailable())
                    continue
                log.exception("unexpected error handling %s", kind)
                self.error(ref, RuleError("internal", "the server failed to handle this "
                                          "message; nothing was changed"))
            finally:
                self.busy = False

    async def _handle(self, msg: Hello | Ping | ActionMessage | Question, ref: Any) -> None:
        """One validated message (`ref` as the client sent it, echoed in the answer)."""
        if isinstance(msg, ActionMessage):
            await self._action(msg)
        elif isinstance(msg, Ping):
            self.send({"type": "pong", "ref": ref, "seq": self.sent})
        elif isinstance(msg, Hello):
            raise RuleError(BAD_REQUEST, "already said hello")
        elif msg.type not in QUESTIONS:  # (server/api/routes/questions.py not loaded)
            raise RuleError(BAD_REQUEST, f"{msg.type!r} is not answered by this server")

        else:
            answer = await QUESTIONS[msg.type](self, msg)
            if isinstance(msg, MeasureMessage) and msg.share:
                answer = {**answer, "shared": self._share_measure(msg, answer)}
            self.send({"ref": ref, **answer})

    def _share_measure(self, msg: MeasureMessage, answer: dict[str, Any]) -> bool:
        """Show a player's measurement to everyone else watching the game, as a transient
        `overlay` frame: not an event, never stored. Spectators' measures stay their own, and
        a seat sharing faster than the overlay limit gets its answer unshared."""
        if self.viewer is None or self.overlay_bucket.take():
            return False
        frame = dumps(
            {
                "type": "overlay",
                "kind": "measure",
                "seat": self.viewer,
                "from": point_of(msg.from_),
                "to": point_of(msg.to),
                "points": answer.get("points", []),
                "distance": answer.get("distance"),
            }
        )
        delayed = self.service.hub.delay.feed(self.game_id) is not None
        for watcher in self.service.hub.watchers(self.game_id):
            if isinstance(watcher, Connection) and watcher is not self:
                if delayed and watcher.viewer is None:
                    continue  # (a delayed game's spectators see no live measures)
                watcher.queue.put_nowait(frame)
        return True

    async def _action(self, msg: ActionMessage) -> None:
        if self.viewer is None:
            raise RuleError(FORBIDDEN, "spectators cannot act")
        seq = await self.service.act(
            self.game_id, self.viewer, msg.action, msg.ref, msg.expected_seq
        )
        self.send({"type": "ack", "ref": msg.ref, "seq": seq})


@router.websocket("/ws/games/{game_id}")
async def game_socket(ws: WebSocket, game_id: str) -> None:
    settings: Settings = ws.app.state.settings
    service: GameService = ws.app.state.service
    connections: Connections = ws.app.state.connections
    if not origin_allowed(ws, settings):
        log.warning("websocket refused: origin %s not allowed", ws.headers.get("origin"))
        await ws.close(code=CLOSE_POLICY)
        return
    await ws.accept()
    conn = Connection(ws, service, settings, game_id, connections)
    if connections.draining:
        await conn.restart()
        return
    if len(game_id) > 64:
        await conn._refuse(RuleError(NOT_FOUND, "no such game"))
        return
    connections.add(conn)
    try:
        await conn.run()
    finally:
        connections.discard(conn)
        if ws.client_state == WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):
                await ws.close()
