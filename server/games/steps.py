"""Where a move's time goes: CPU per step of the move path, for benchmarks only.

Off unless the server starts with WARFIELD_STEP_TIMING=1 (`python -m bench.ws_fanout --steps`
sets it); off, each hook is one test of a module constant. On, every step adds the CPU time of
the thread it ran on (`time.thread_time_ns`: waiting for a core on a shared machine is not
charged to the step) to a total, and `GET /debug/steps` (server/api/ws.py, mounted only in this
mode) reads or resets the totals. The steps, in the order a move takes them:

- `decode`: the client's frame parsed as JSON (the event loop);
- `validate`: the message checked against its schema, and the action's digest for its `ref`;
- `decide`: the rules judge the action and name its events (`core.decide`, the dice reveal);
- `commit_db`: the transaction that makes the events durable, on the database thread (its
  wall-clock time too, the disk's flush included: `commit_wall_ns`);
- `fold`: the events folded into the live state;
- `patch`: each visibility class's projection of the new state and its patch;
- `encode`: frames encoded (the `events` frame per class, the `ack`);
- `handoff`: the batch offered to each socket's outbox (the hub's loop, minus patch and encode);
- `write`: a socket's writer task sending one queued frame (uvicorn's framing, the transport).

What the event loop does besides (uvicorn reading the frame, the hop to the database thread and
back, task switches) is not a step: the bench reports it as the loop's CPU minus the steps.
`gc` counts the collector's automatic runs by generation and the objects it tracks that were
allocated and not freed before a collection saw them (`young_allocations`: what drives the
young collections), and `sys.getallocatedblocks()`'s change (memory kept).
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

ENABLED = os.environ.get("WARFIELD_STEP_TIMING", "") == "1"
STEPS = ("decode", "validate", "decide", "commit_db", "fold", "patch", "encode", "handoff",
         "write")
# Measured directly: all of STEPS but `handoff` (the whole delivery, `deliver`, patches made
# and frames encoded included, minus those two); `encode` is `encode_frames` + `encode_ack`.
_RAW = ("decode", "validate", "decide", "commit_db", "fold", "patch", "encode_frames",
        "encode_ack", "deliver", "write")
now = time.thread_time_ns
T = TypeVar("T")


class StepTotals:
    """CPU nanoseconds and calls per step since the last `reset`, with the collector's counts."""

    def __init__(self) -> None:
        self.ns: dict[str, int] = dict.fromkeys(_RAW, 0)
        self.calls: dict[str, int] = dict.fromkeys(_RAW, 0)
        self.commit_wall_ns = 0  # the durable commit by the wall clock (fsync included)
        self._gc_runs = [0, 0, 0]
        self._gc_tracked = 0  # young objects a collection found (allocated, not yet freed)
        self._gc_started = 0
        self._blocks = sys.getallocatedblocks()
        self._count0 = gc.get_count()[0]
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = gc.get_count()[0]
            return
        self._gc_runs[info["generation"]] += 1
        self._gc_tracked += self._gc_started

    def add(self, step: str, started_ns: int) -> None:
        self.ns[step] += now() - started_ns
        self.calls[step] += 1

    def take(self, step: str, ns: int) -> None:
        """Charge `ns` measured elsewhere (another thread) to `step`."""
        self.ns[step] += ns
        self.calls[step] += 1

    def reset(self) -> None:
        for step in _RAW:
            self.ns[step] = self.calls[step] = 0
        self.commit_wall_ns = 0
        self._gc_runs = [0, 0, 0]
        self._gc_tracked = 0
        self._blocks = sys.getallocatedblocks()
        self._count0 = gc.get_count()[0]

    def report(self) -> dict[str, Any]:
        ns = dict(self.ns)
        ns["encode"] = ns["encode_frames"] + ns["encode_ack"]
        ns["handoff"] = max(0, ns["deliver"] - ns["patch"] - ns["encode_frames"])
        return {
            "cpu_ns": {step: ns[step] for step in STEPS},
            "raw_cpu_ns": dict(self.ns),
            "calls": dict(self.calls),
            "commit_wall_ns": self.commit_wall_ns,
            "gc": {
                "collections": list(self._gc_runs),
                "young_allocations": self._gc_tracked + gc.get_count()[0] - self._count0,
                "allocated_blocks_change": sys.getallocatedblocks() - self._blocks,
            },
        }


totals = StepTotals() if ENABLED else None


def commit_timed(fn: Callable[..., T]) -> Callable[..., T]:
    """`fn` (the durable commit, on the database thread) charging its CPU to `commit_db` and
    its wall-clock time (waiting for the disk included) to `commit_wall_ns`."""

    def run(*args: Any, **kwargs: Any) -> T:
        wall = time.perf_counter_ns()
        try:
            return timed("commit_db", fn)(*args, **kwargs)
        finally:
            if totals is not None:
                totals.commit_wall_ns += time.perf_counter_ns() - wall

    return run


@contextlib.asynccontextmanager
async def commit_timed_async() -> AsyncIterator[None]:
    """The durable commit on the event loop (PostgreSQL): its wall-clock time, waiting for the
    server included, to `commit_wall_ns`. Its CPU is the loop's, in the steps around it (no
    thread runs it), so `commit_db` is not charged."""
    wall = time.perf_counter_ns()
    try:
        yield
    finally:
        if totals is not None:
            totals.commit_wall_ns += time.perf_counter_ns() - wall


def timed(step: str, fn: Callable[..., T]) -> Callable[..., T]:
    """`fn` charging its own thread's CPU to `step` (any thread: the database's too)."""

    def run(*args: Any, **kwargs: Any) -> T:
        started = now()
        try:
            return fn(*args, **kwargs)
        finally:
            if totals is not None:
                totals.add(step, started)

    return run
