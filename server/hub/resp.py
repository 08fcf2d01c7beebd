"""A Redis connection for the fan-out's two jobs, PUBLISH and SUBSCRIBE, speaking RESP2 itself.

The hub sends one PUBLISH per committed batch and receives one message per batch of the games
it watches; redis-py spends more CPU on each of those (a coroutine per command, the connection
pool, its parser) than the rest of a remote delivery. Here a command is written to the socket
at once, without waiting for its reply, and each reply or pushed message is parsed as it
arrives and handed to a callback, in order. Everything else (PING for /readyz) still goes
through redis-py.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Callable
from typing import Any, cast
from urllib.parse import unquote, urlsplit

log = logging.getLogger("warfield.hub")

Reply = bytes | int | str | list[Any] | None


class RespError(Exception):
    """An error reply from Redis."""


class _Incomplete(Exception):
    """The buffer ends inside a reply: wait for more bytes."""


def encode_command(*args: str | bytes) -> bytes:
    """A command as a RESP array of bulk strings."""
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg.encode() if isinstance(arg, str) else arg
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


# A pushed pub/sub message: an array of "message", the channel and the payload (most of what a
# subscription reads, so it is parsed without the general path's recursion).
MESSAGE_HEAD = b"*3\r\n$7\r\nmessage\r\n"


def parse(buf: bytes | bytearray, pos: int) -> tuple[Reply | RespError, int]:
    """One RESP2 reply starting at `pos`: (value, position after it); `_Incomplete` when the
    buffer ends first. Bulk strings stay bytes; an error reply is returned as `RespError`."""
    if buf.startswith(MESSAGE_HEAD, pos):
        channel, after = _bulk(buf, pos + len(MESSAGE_HEAD))
        data, after = _bulk(buf, after)
        return [b"message", channel, data], after
    end = buf.find(b"\r\n", pos)
    if end < 0:
        raise _Incomplete
    kind, line = buf[pos : pos + 1], buf[pos + 1 : end]
    after = end + 2
    if kind == b"$":
        size = int(line)
        if size < 0:
            return None, after
        if len(buf) < after + size + 2:
            raise _Incomplete
        return bytes(buf[after : after + size]), after + size + 2
    if kind == b"*":
        count = int(line)
        if count < 0:
            return None, after
        items: list[Any] = []
        for _ in range(count):
            item, after = parse(buf, after)
            items.append(item)
        return items, after
    if kind == b":":
        return int(line), after
    if kind == b"+":
        return bytes(line).decode(), after
    if kind == b"-":
        return RespError(bytes(line).decode(errors="replace")), after
    raise ValueError(f"not RESP: {bytes(buf[pos:end])[:40]!r}")


def _bulk(buf: bytes | bytearray, pos: int) -> tuple[Reply | RespError, int]:
    """A bulk string at `pos` (anything else: the general path)."""
    if buf[pos : pos + 1] != b"$":
        return parse(buf, pos)
    end = buf.find(b"\r\n", pos)
    if end < 0:
        raise _Incomplete
    size = int(buf[pos + 1 : end])
    after = end + 2
    if size < 0:
        return None, after
    if len(buf) < after + size + 2:
        raise _Incomplete
    return bytes(buf[after : after + size]), after + size + 2


class RespConnection(asyncio.Protocol):
    """One connection: `send` writes a command at once; every reply and pushed message is
    handed to `on_reply` as it arrives; `on_lost` once the connection is gone."""

    def __init__(
        self, on_reply: Callable[[Reply | RespError], None], on_lost: Callable[[], None]
    ) -> None:
        self.on_reply, self.on_lost = on_reply, on_lost
        self.transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # asyncio.Protocol's stub types every transport as the base class; a stream
        # connection's has write/close (uvloop's too, though it is no subclass of
        # asyncio.Transport, so isinstance cannot narrow it).
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        buf = self._buffer
        buf += data
        pos = 0
        try:
            while pos < len(buf):
                reply, pos = parse(buf, pos)
                try:
                    self.on_reply(reply)
                except Exception:  # noqa: BLE001 - one bad reply must not stop the others
                    log.exception("handling a redis reply failed")
        except _Incomplete:
            pass
        except ValueError:  # (not Redis speaking)
            self.abort()
            return
        del buf[:pos]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed:
            self.closed = True
            self.on_lost()

    def send(self, *args: str | bytes) -> None:
        if self.transport is None or self.closed:
            raise ConnectionError("redis connection is closed")
        self.transport.write(encode_command(*args))

    def buffered(self) -> int:
        """Bytes written but not yet sent (Redis is slow or gone)."""
        return self.transport.get_write_buffer_size() if self.transport is not None else 0

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()


async def connect(
    url: str,
    on_reply: Callable[[Reply | RespError], None],
    on_lost: Callable[[], None],
    timeout: float,
) -> RespConnection:
    """A connection to the Redis at `url` (redis:// or rediss://, with its user and password
    if any), authenticated; the replies to the AUTH are not passed on."""
    parts = urlsplit(url)
    tls: ssl.SSLContext | None = ssl.create_default_context() if parts.scheme == "rediss" else None
    host, port = parts.hostname or "localhost", parts.port or 6379
    loop = asyncio.get_running_loop()
    authed: asyncio.Future[Reply | RespError] = loop.create_future()
    password = unquote(parts.password) if parts.password else None

    def first(reply: Reply | RespError) -> None:
        if not authed.done():
            authed.set_result(reply)

    _, conn = await asyncio.wait_for(
        loop.create_connection(lambda: RespConnection(first, on_lost), host, port, ssl=tls),
        timeout,
    )
    if password is not None:
        user = unquote(parts.username) if parts.username else None
        conn.send(*(("AUTH", user, password) if user else ("AUTH", password)))
        try:
            reply = await asyncio.wait_for(authed, timeout)
        except BaseException:
            conn.abort()
            raise
        if isinstance(reply, RespError):
            conn.abort()
            raise reply
    conn.on_reply = on_reply
    return conn
