"""Group commit: the appends of different games waiting for the database at the same time are
written in ONE transaction with one flush (`EventStore.append_many`).

On one SQLite file every durable commit is a flush of the disk (0.2-7.5 ms on the 2-core bench
machine, bench/README.md), and they run one at a time; at 200 actions per second the commits
queued for the write lock (all the thread pool's workers waiting on it, bench/README.md "Group
commit"). Here one task at a time drains the queue on a worker thread: it takes everything
waiting, commits it in one transaction, tells each caller, and takes what arrived meanwhile.
Nothing waits for company: an append that finds the drain idle starts it at once, so an idle
server commits each action alone, as before; a batch is only what is already waiting
(natural batching, no timer).

Guarantees, as for `EventStore.append`: a caller is answered only after the transaction that
holds its events has committed (durable before the ack); an append that fails on its own
(`ConcurrentAppend`, `DuplicateRef`) fails alone and stores nothing, the others of its batch
are committed; appends are committed in the order they arrived (a game's appends are
serialised by its lock in server/games/service.py, so at most one per game is waiting).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from server.rules.core import Event
from server.store.repository import AppendRequest

# The most appends one transaction carries; more waiting go in the next one. (A bound on the
# transaction, not a delay: at 200 actions per second a batch holds a handful.)
MAX_BATCH = 256

Commit = Callable[[Sequence[AppendRequest]], list[list[Event] | Exception]]


@dataclass(slots=True)
class _Waiting:
    request: AppendRequest
    future: asyncio.Future[list[Event]]
    loop: asyncio.AbstractEventLoop


def _settle(future: asyncio.Future[list[Event]], result: list[Event] | BaseException) -> None:
    if future.done():  # (its caller was cancelled: the commit happened all the same)
        return
    if isinstance(result, BaseException):
        future.set_exception(result)
    else:
        future.set_result(result)


class GroupCommit:
    """Appends from the event loop, committed in batches by one drain on a worker thread.

    `commit` is `EventStore.append_many` (or a wrapper of it): one result per request, in
    order, the stored events or the request's own exception; an exception it raises fails the
    whole batch (nothing of it was committed).
    """

    def __init__(self, commit: Commit) -> None:
        self._commit = commit
        self._mutex = threading.Lock()
        self._waiting: list[_Waiting] = []
        self._draining = False
        # Statistics (bench/, tests): transactions committed, appends in them, largest batch.
        self.batches = 0
        self.appends = 0
        self.largest = 0

    @property
    def queued(self) -> int:
        """Appends waiting for the next transaction (not counting the one being committed)."""
        with self._mutex:
            return len(self._waiting)

    async def append(self, request: AppendRequest) -> list[Event]:
        """Commit `request` (with whatever else is waiting); its stored events once durable."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[list[Event]] = loop.create_future()
        with self._mutex:
            self._waiting.append(_Waiting(request, future, loop))
            start = not self._draining
            self._draining = True
        if start:
            try:
                loop.run_in_executor(None, self._drain)
            except BaseException:
                with self._mutex:
                    self._draining = False
                raise
        return await future

    def _drain(self) -> None:
        """Commit batches until nothing waits (on a worker thread)."""
        batch: list[_Waiting] = []
        try:
            while True:
                with self._mutex:
                    batch = self._waiting[:MAX_BATCH]
                    del self._waiting[:MAX_BATCH]
                    if not batch:
                        self._draining = False
                        return
                results: Sequence[list[Event] | Exception]
                try:
                    results = self._commit([w.request for w in batch])
                except Exception as exc:  # the whole batch failed: nothing of it is stored
                    results = [exc] * len(batch)
                self.batches += 1
                self.appends += len(batch)
                self.largest = max(self.largest, len(batch))
                for waiting, result in zip(batch, results, strict=True):
                    _call_soon(waiting, result)
                batch = []
        except BaseException as exc:
            # (an interpreter exit or a broken commit callable: fail what was taken and
            # everything still waiting rather than leave callers hanging)
            with self._mutex:
                left = batch + self._waiting
                self._waiting = []
                self._draining = False
            failure = exc if isinstance(exc, Exception) else RuntimeError(str(exc) or repr(exc))
            for waiting in left:
                _call_soon(waiting, failure)
            raise


def _call_soon(waiting: _Waiting, result: Any) -> None:
    with contextlib.suppress(RuntimeError):  # (its loop is closed: nobody waits any more)
        waiting.loop.call_soon_threadsafe(_settle, waiting.future, result)
