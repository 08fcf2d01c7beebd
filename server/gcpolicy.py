"""How `warfield serve` keeps CPython's garbage collector from stalling the event loop.

A full collection walks every container object the process holds, and a server with many open
games holds many: each open websocket keeps about 250 (the coroutines, tasks, queues and
headers of its connection) for as long as it is open, so at 4,000 sockets a full collection
took 500-600 ms, all of it with the event loop stopped (issue 21). Those objects are alive,
not garbage: walking them again and again finds nothing.

The policy (`GcPolicy`, on unless WARFIELD_GC_FREEZE_S=0):

- after start-up, collect once and `gc.freeze()` what is left (modules, schemas, the app):
  the collector never walks it again;
- every `freeze_every_s` seconds, collect the young generations (cheap: only what was
  allocated since) and freeze the survivors, so long-lived objects (open sockets, cached
  games) leave the collector's view instead of piling up in the oldest generation. A full
  collection then walks only what was allocated since the last freeze;
- every `reclaim_every_s` seconds (0: never), unfreeze, collect everything once and freeze
  again: frozen objects are still freed by reference counting when they die, but a reference
  cycle that dies after being frozen (rare: a closed socket's objects are freed by reference
  counting) waits for this round. It is the one full pause left, at a known rate.

The collection thresholds stay CPython's (700, 10, 10): measured, a larger young threshold
(10,000) let ~9,000 objects survive each young collection while games were being set up, and
the middle generation then took 40 ms (CPU) to walk; with 700 it stays a few thousand objects.
The freeze period is short for the same reason: at 400 games (1,600 sockets) 5 s of survivors
were ~30,000 objects (each socket that wakes leaves a new chain of coroutines and futures) and
the young collection before the freeze took 26-31 ms of CPU; every 1 s it takes about 5 ms.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging

log = logging.getLogger("warfield.gc")


class GcPolicy:
    def __init__(self, freeze_every_s: float, reclaim_every_s: float = 0.0) -> None:
        self.freeze_every_s = freeze_every_s
        self.reclaim_every_s = reclaim_every_s
        self._task: asyncio.Task[None] | None = None
        self.freezes = 0
        self.reclaims = 0

    @property
    def on(self) -> bool:
        return self.freeze_every_s > 0

    def start(self) -> None:
        """Freeze what start-up left and start the periodic rounds (call from the loop)."""
        if not self.on or self._task is not None:
            return
        gc.collect()
        gc.freeze()
        self._task = asyncio.get_running_loop().create_task(self._run())
        log.info("gc: froze %d objects after start-up; freezing survivors every %gs",
                 gc.get_freeze_count(), self.freeze_every_s)

    def freeze_round(self) -> None:
        gc.collect(1)
        gc.freeze()
        self.freezes += 1

    def reclaim_round(self) -> None:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.reclaims += 1

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        next_reclaim = loop.time() + self.reclaim_every_s if self.reclaim_every_s > 0 else None
        while True:
            await asyncio.sleep(self.freeze_every_s)
            if next_reclaim is not None and loop.time() >= next_reclaim:
                self.reclaim_round()
                next_reclaim = loop.time() + self.reclaim_every_s
            else:
                self.freeze_round()

    async def stop(self) -> None:
        if self._task is None:
            return
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None
        gc.unfreeze()
