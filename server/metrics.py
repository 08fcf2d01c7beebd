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
- `warfield_event_loop_lag_seconds`        how late each of the event loop's 50 ms ticks ran
- `warfield_event_loop_lag_worst_seconds`  the worst tick lag in the last completed interval
                                           (`RUNTIME_INTERVAL_S`); `..._max_seconds` since start
- `warfield_gc_pause_seconds{generation}`  each garbage collection's duration (gc.callbacks)
- `warfield_gc_pause_worst_seconds`        the worst collection in the last completed interval;
                                           `..._max_seconds` since start
- `warfield_gc_cpu_worst_seconds`          the same, in CPU time of the collecting thread (on
                                           a busy machine a pause is longer than its CPU time:
                                           the process waits for a core); `..._max_seconds`

The runtime figures come from `Metrics.start_runtime()` (the app's lifespan): a task on the
event loop and a `gc.callbacks` hook, both removed by `stop_runtime()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
import re
import time
from collections import deque
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
RUNTIME_TICK_S = 0.05  # the event-loop lag probe's period
RUNTIME_INTERVAL_S = 5.0  # the interval of the `..._worst_seconds` gauges


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
        self.loop_lag = Histogram(
            "warfield_event_loop_lag_seconds",
            f"How late the event loop ran a callback due every {RUNTIME_TICK_S} s",
            buckets=LATENCY_BUCKETS, registry=r,
        )
        self.loop_lag_worst = Gauge(
            "warfield_event_loop_lag_worst_seconds",
            f"Worst event-loop lag in the last completed {RUNTIME_INTERVAL_S:g} s interval",
            registry=r,
        )
        self.loop_lag_max = Gauge(
            "warfield_event_loop_lag_max_seconds", "Worst event-loop lag since start",
            registry=r,
        )
        self.gc_pause = Histogram(
            "warfield_gc_pause_seconds", "Garbage collections by generation, by duration",
            ["generation"], buckets=LATENCY_BUCKETS, registry=r,
        )
        for generation in ("0", "1", "2"):
            self.gc_pause.labels(generation)
        self.gc_pause_worst = Gauge(
            "warfield_gc_pause_worst_seconds",
            f"Longest garbage collection in the last completed {RUNTIME_INTERVAL_S:g} s interval",
            registry=r,
        )
        self.gc_pause_max = Gauge(
            "warfield_gc_pause_max_seconds", "Longest garbage collection since start",
            registry=r,
        )
        self.gc_cpu_worst = Gauge(
            "warfield_gc_cpu_worst_seconds",
            "CPU time of the longest garbage collection (by CPU) in the last completed "
            f"{RUNTIME_INTERVAL_S:g} s interval",
            registry=r,
        )
        self.gc_cpu_max = Gauge(
            "warfield_gc_cpu_max_seconds",
            "CPU time of the longest garbage collection (by CPU) since start", registry=r,
        )
        # Filled by the gc callback without taking a lock (a collection may start while this
        # thread holds a metric's lock); drained into the metrics by the runtime task.
        self._gc_started = self._gc_cpu_started = 0.0
        self._gc_max = self._gc_cpu_max = self._lag_max = 0.0
        self._gc_done: deque[tuple[int, float, float]] = deque(maxlen=10_000)
        self._runtime: asyncio.Task[None] | None = None

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
        self._drain_gc()
        return generate_latest(self.registry)

    # --- runtime: event-loop lag and garbage-collection pauses ---------------------------------

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
            self._gc_cpu_started = time.thread_time()
        elif self._gc_started:
            self._gc_done.append((
                info["generation"],
                time.perf_counter() - self._gc_started,
                time.thread_time() - self._gc_cpu_started,
            ))
            self._gc_started = 0.0

    def _drain_gc(self) -> tuple[float, float]:
        """Move the collections timed since the last call into the metrics; the longest
        (wall clock) and the longest in CPU time."""
        worst = worst_cpu = 0.0
        while self._gc_done:
            generation, seconds, cpu = self._gc_done.popleft()
            self.gc_pause.labels(str(generation)).observe(seconds)
            worst, worst_cpu = max(worst, seconds), max(worst_cpu, cpu)
        if worst > self._gc_max:
            self._gc_max = worst
            self.gc_pause_max.set(worst)
        if worst_cpu > self._gc_cpu_max:
            self._gc_cpu_max = worst_cpu
            self.gc_cpu_max.set(worst_cpu)
        return worst, worst_cpu

    async def _watch_runtime(self) -> None:
        loop = asyncio.get_running_loop()
        interval_ends = loop.time() + RUNTIME_INTERVAL_S
        worst_lag = worst_gc = worst_gc_cpu = 0.0
        while True:
            due = loop.time() + RUNTIME_TICK_S
            await asyncio.sleep(RUNTIME_TICK_S)
            now = loop.time()
            lag = max(0.0, now - due)
            self.loop_lag.observe(lag)
            worst_lag = max(worst_lag, lag)
            gc_wall, gc_cpu = self._drain_gc()
            worst_gc, worst_gc_cpu = max(worst_gc, gc_wall), max(worst_gc_cpu, gc_cpu)
            if lag > self._lag_max:
                self._lag_max = lag
                self.loop_lag_max.set(lag)
            if now >= interval_ends:
                self.loop_lag_worst.set(worst_lag)
                self.gc_pause_worst.set(worst_gc)
                self.gc_cpu_worst.set(worst_gc_cpu)
                worst_lag = worst_gc = worst_gc_cpu = 0.0
                interval_ends = now + RUNTIME_INTERVAL_S

    def start_runtime(self) -> None:
        """Start timing garbage collections and probing the running event loop's lag.

        One watcher per `Metrics`: an app whose lifespans run on several event loops (test
        harnesses that start the app on a loop per test) keeps the live one; a watcher whose
        loop has closed is replaced."""
        if self._runtime is not None and not (
            self._runtime.done() or self._runtime.get_loop().is_closed()
        ):
            return
        if self._on_gc not in gc.callbacks:
            gc.callbacks.append(self._on_gc)
        self._runtime = asyncio.get_running_loop().create_task(self._watch_runtime())

    async def stop_runtime(self) -> None:
        """Stop the watcher, from its own loop (awaited) or from another (cancelled there)."""
        task, self._runtime = self._runtime, None
        if task is None:
            return
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._on_gc)
        loop = task.get_loop()
        if loop is asyncio.get_running_loop():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        elif not loop.is_closed():
            loop.call_soon_threadsafe(task.cancel)


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
