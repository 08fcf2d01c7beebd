"""Prometheus metrics (`/metrics`) and logs that never carry a seat token.

One `Metrics` per app, with its own `CollectorRegistry` (tests build many apps in one process).
It is fed by small hooks: the service reports each action's outcome and time to commit
(`GameService.metrics`), committed batches arrive through `service.listeners`, and a websocket
reports when it opens, closes and has written a batch.

- `warfield_open_sockets{role}`            sockets past hello, by role (player / spectator)
- `warfield_active_games`                  games live in this process's memory
- `warfield_actions_total{type,outcome}`   actions by type and outcome (ok, or the error code)
- `warfield_events_committed_total`        events this process committed
- `warfield_action_commit_seconds`         an action reaching the service -> its events durable
- `warfield_commit_delivered_seconds`      a batch handed to a socket's queue (right after its
                                           commit, or on arrival from another process) -> the
                                           frame written to that socket
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections.abc import Mapping, Sequence
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from server.rules import core
from server.rules.core import Event

LATENCY_BUCKETS = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
)
OTHER = "other"


def role(viewer: int | None) -> str:
    return "spectator" if viewer is None else "player"


class Metrics:
    """The metrics of one app (one `GameService`)."""

    content_type = CONTENT_TYPE_LATEST

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.sockets = Gauge(
            "warfield_open_sockets", "Open websockets past hello, by role", ["role"], registry=r
        )
        for name in ("player", "spectator"):
            self.sockets.labels(name)
        self.games = Gauge("warfield_active_games", "Games live in memory", registry=r)
        self.actions = Counter(
            "warfield_actions", "Actions by type and outcome (ok or error code)",
            ["type", "outcome"], registry=r,
        )
        self.events = Counter(
            "warfield_events_committed", "Events committed by this process", registry=r
        )
        self.commit_latency = Histogram(
            "warfield_action_commit_seconds",
            "From an action reaching the service to its events being durable",
            buckets=LATENCY_BUCKETS, registry=r,
        )
        self.delivery_latency = Histogram(
            "warfield_commit_delivered_seconds",
            "From a committed batch reaching a socket's queue to its frame being written",
            buckets=LATENCY_BUCKETS, registry=r,
        )
        self._observe_delivery = self.delivery_latency.observe

    def bind(self, service: Any) -> Metrics:
        """Feed from `service`: its live games, its commits and its actions."""
        self.games.set_function(lambda: len(service._live))
        service.listeners.append(self.on_service_event)
        service.metrics = self
        return self

    # --- hooks ---------------------------------------------------------------------------------

    def on_service_event(self, _game_id: str, kind: str, events: Sequence[Event]) -> None:
        if kind == "committed":
            self.events.inc(len(events))

    def action(self, action: Any, outcome: str, seconds: float | None) -> None:
        kind = action.get("type") if isinstance(action, dict) else None
        if not isinstance(kind, str) or kind not in core.ACTIONS:
            kind = OTHER  # never a label value a client made up
        self.actions.labels(kind, outcome).inc()
        if seconds is not None:
            self.commit_latency.observe(seconds)

    def socket_opened(self, viewer: int | None) -> None:
        self.sockets.labels(role(viewer)).inc()

    def socket_closed(self, viewer: int | None) -> None:
        self.sockets.labels(role(viewer)).dec()

    def delivered(self, offered_at: float) -> None:
        self._observe_delivery(time.perf_counter() - offered_at)

    def render(self) -> bytes:
        return generate_latest(self.registry)


# --- logs --------------------------------------------------------------------------------------

REDACTED = "[redacted]"
_SECRETS = [
    # Authorization: Bearer <token>
    re.compile(r"(?i)(bearer\s+)[^\s,;'\"]+"),
    # "token": "…", token=…, 'token': '…' (JSON, query strings, reprs)
    re.compile(r"(?i)([\"']?\b(?:token|seat_token|invite)[\"']?\s*[:=]\s*[\"']?)"
               r"(?!null\b|none\b)[^\s,;&'\"}]+"),
    # Authorization: <anything but a Bearer scheme, masked above>
    re.compile(r"(?i)(\bauthorization[\"']?\s*[:=]\s*[\"']?)(?!bearer\b)[^\s,;'\"}]+"),
]
# A bare seat token: 22 URL-safe base64 characters (128 bits) with letters and digits or -/_.
_BARE_TOKEN = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])")


def _mask_bare(match: re.Match[str]) -> str:
    text = match.group(0)
    looks_random = any(c.isdigit() or c in "-_" for c in text) and any(c.isupper() for c in text)
    return REDACTED if looks_random else text


def redact(text: str) -> str:
    """`text` with anything that looks like a seat token or Bearer credential masked."""
    for pattern in _SECRETS:
        text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
    return _BARE_TOKEN.sub(_mask_bare, text)


def _redact_arg(value: Any) -> Any:
    """An argument with its secrets masked; the same object when it holds none (so a `%d`
    still gets its number)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, (int, float, type(None))):
        return value
    text = str(value)
    clean = redact(text)
    return value if clean == text else clean


class RedactTokens(logging.Filter):
    """Masks seat tokens and Bearer headers in a record's message and arguments.

    The arguments are masked one by one and keep their shape: formatters such as uvicorn's
    access log unpack them (client, method, path, version, status), so the record must stay
    one they can format. Only a secret that is still in the message after that (made by
    formatting, not in any one argument) replaces the message whole.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken record is logged as it is
            return True
        clean = redact(message)
        if clean != message:
            if isinstance(record.msg, str):
                record.msg = redact(record.msg)
            if isinstance(record.args, tuple):
                record.args = tuple(_redact_arg(a) for a in record.args)
            elif isinstance(record.args, Mapping):
                record.args = {k: _redact_arg(v) for k, v in record.args.items()}
            try:
                still = redact(record.getMessage()) != record.getMessage()
            except Exception:  # noqa: BLE001 - masking broke the format: keep the clean text
                still = True
            if still:
                record.msg, record.args = clean, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message (and the exception)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exc"] = record.exc_text
        return json.dumps(entry, ensure_ascii=False)


LOGGERS_WITH_HANDLERS = ("", "uvicorn", "uvicorn.error", "uvicorn.access")


def configure_logging(json_lines: bool | None = None) -> None:
    """Redact tokens on every handler of the root and uvicorn loggers; JSON lines when
    `WARFIELD_LOG_FORMAT=json` (or `json_lines`). Idempotent."""
    if json_lines is None:
        json_lines = os.environ.get("WARFIELD_LOG_FORMAT", "").lower() == "json"
    for name in LOGGERS_WITH_HANDLERS:
        for handler in logging.getLogger(name).handlers:
            if not any(isinstance(f, RedactTokens) for f in handler.filters):
                handler.addFilter(RedactTokens())
            if json_lines and not isinstance(handler.formatter, JsonFormatter):
                handler.setFormatter(JsonFormatter())
