"""HTTP limits in front of the app (pure ASGI middleware, so nothing is read before they pass).

- `RestRateLimit`: every POST under `/api` (creating a game, claiming a seat, acting, asking
  a question) takes one token from its client address's bucket: `rest_rate_per_min` a minute,
  bursts up to `rest_rate_burst`. An empty bucket answers `429 rate_limited` with
  `Retry-After`. The address is the peer's, or the one X-Forwarded-For names when the peer is
  a trusted proxy (uvicorn's proxy headers, `WARFIELD_FORWARDED_ALLOW_IPS`); IPv6 clients are
  counted per /64, since one host gets a whole /64 to pick addresses from.
- `BodySizeLimit`: a request body over `max_body_bytes` gets `413 too_large` as soon as its
  `Content-Length` says so or, without one (chunked), as soon as the bytes received pass the
  limit; the app only ever sees a body that fits.
- `JsonNestingLimit`: a JSON body (a `application/json` or `+json` content type) nested
  deeper than `server.data.json_input.MAX_DEPTH` gets `400 bad_request` before anything parses
  it (the framework's parser would recurse once per level: thousands deep is a
  RecursionError). Routes that read a body of another type as JSON parse it with
  `server.data.json_input.loads`, which has the same limit.
"""

from __future__ import annotations

import ipaddress
import json
import math
import time
from collections import OrderedDict
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.data.json_input import MAX_DEPTH, as_text, too_deep
from server.rules.core import BAD_REQUEST, RATE_LIMITED, TOO_LARGE

MAX_TRACKED_CLIENTS = 65_536  # buckets kept; the least recently seen address is forgotten


async def send_error(
    send: Send, status: int, code: str, message: str, details: dict[str, Any],
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    """An error response in the API's `{"code", "message", "details"}` shape."""
    body = json.dumps(
        {"code": code, "message": message, "details": details}, separators=(",", ":")
    ).encode()
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *(headers or []),
        ],
    })
    await send({"type": "http.response.body", "body": body})


def client_key(scope: Scope) -> str:
    """The address a request is counted under: IPv4 as is, IPv6 by its /64."""
    client = scope.get("client")
    host = client[0] if client else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host or "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


class Buckets:
    """Token buckets by key, at most `capacity` of them (least recently used forgotten; a
    forgotten key starts full again, which only ever errs on the side of the client)."""

    def __init__(self, per_s: float, burst: int, capacity: int = MAX_TRACKED_CLIENTS) -> None:
        self.per_s, self.burst, self.capacity = per_s, float(burst), capacity
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # tokens, stamp

    def __len__(self) -> int:
        return len(self._buckets)

    def take(self, key: str, now: float | None = None) -> float:
        """0 if a request is allowed now, else the seconds until the next one is."""
        now = time.monotonic() if now is None else now
        tokens, stamp = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - stamp) * self.per_s)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) / self.per_s
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self.capacity:
            self._buckets.popitem(last=False)
        return wait


class RestRateLimit:
    """429 `rate_limited` with `Retry-After` for a client address past its REST write rate."""

    def __init__(self, app: ASGIApp, per_min: float, burst: int) -> None:
        self.app = app
        self.buckets = Buckets(per_min / 60.0, burst)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") != "POST"
            or not scope.get("path", "").startswith("/api/")
        ):
            await self.app(scope, receive, send)
            return
        wait = self.buckets.take(client_key(scope))
        if wait <= 0:
            await self.app(scope, receive, send)
            return
        retry_after = max(1, math.ceil(wait))
        await send_error(
            send, 429, RATE_LIMITED,
            f"too many requests from your address; try again in {retry_after} s",
            {"retry_after": round(wait, 3)},
            [(b"retry-after", str(retry_after).encode())],
        )


class BodySizeLimit:
    """413 `too_large` for a request body over `limit` bytes, before it is read in full."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def _refuse(self, send: Send) -> None:
        await send_error(
            send, 413, TOO_LARGE,
            f"the request body is over the limit of {self.limit} bytes",
            {"limit": self.limit},
            [(b"connection", b"close")],
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = next(
            (v for k, v in scope.get("headers", ()) if k.lower() == b"content-length"), None
        )
        if declared is not None:
            try:
                length = int(declared)
            except ValueError:
                length = -1
            if length > self.limit:
                await self._refuse(send)
                return
        if scope.get("method") in ("GET", "HEAD", "OPTIONS", "DELETE"):
            await self.app(scope, receive, send)  # no body is read on these routes
            return
        # Read the body here (never more than the limit plus one chunk), then hand the app a
        # `receive` that replays it: a body without Content-Length is counted as it streams.
        body = await read_body(receive, self.limit)
        if body is None:
            return  # the client went away before its body was whole: nobody to answer
        if len(body) > self.limit:
            await self._refuse(send)
            return
        await self.app(scope, replaying(body, receive), send)


async def read_body(receive: Receive, limit: int | None = None) -> bytes | None:
    """The request's body, read to its end or (with `limit`) until it is past `limit` bytes;
    None if the client went away first."""
    chunks: list[bytes] = []
    size = 0
    more = True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        chunks.append(chunk)
        if limit is not None and size > limit:
            break
        more = message.get("more_body", False)
    return b"".join(chunks)


def replaying(body: bytes, receive: Receive) -> Receive:
    """A `receive` that gives the app `body` whole, then whatever the client sends next."""
    pending: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Message:
        if pending:
            return pending.pop()
        return await receive()

    return replay


def is_json(scope: Scope) -> bool:
    """Whether the request says its body is JSON (`application/json`, `application/*+json`):
    the bodies the framework parses as JSON."""
    declared = next(
        (v for k, v in scope.get("headers", ()) if k.lower() == b"content-type"), b""
    )
    kind = declared.split(b";", 1)[0].strip().lower()
    return kind == b"application/json" or (
        kind.startswith(b"application/") and kind.endswith(b"+json")
    )


class JsonNestingLimit:
    """400 `bad_request` for a JSON body nested deeper than `limit`, before it is parsed."""

    def __init__(self, app: ASGIApp, limit: int = MAX_DEPTH) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") in ("GET", "HEAD", "OPTIONS", "DELETE")
            or not is_json(scope)
        ):
            await self.app(scope, receive, send)
            return
        body = await read_body(receive)  # (its size is BodySizeLimit's, outside this one)
        if body is None:
            return
        try:
            refused = too_deep(as_text(body), self.limit)
        except ValueError:
            refused = None  # not text: the framework's parser answers that it is not JSON
        if refused is not None:
            await send_error(send, 400, BAD_REQUEST, f"the request body: {refused.message}",
                             refused.details())
            return
        await self.app(scope, replaying(body, receive), send)
