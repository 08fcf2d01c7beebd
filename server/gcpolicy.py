"""How `warfield serve` keeps CPython's garbage collector from stalling the event loop.

A full collection walks every container object the process holds, and a server with many open
games holds many: each open websocket keeps about 250 (the coroutines, tasks, queues and
headers of its connection) for as long as it is open, so at 4,000 sockets a full collection
took 500-600 ms, all of it with the event loop stopped (issue 21). Those objects are alive,
not garbage: walking them again and again finds nothing.

The policy (`GcPolicy`, on unless WARFIELD_GC_FREEZE=0):

- after start-up, collect once and `gc.freeze()` what is left (modules, schemas, the app):
  the collector never walks it again;
- after each collection of the middle (or oldest) generation, freeze what survived it (a
  `gc.callbacks` hook; freezing is O(1), a list splice). Long-lived objects (open sockets,
  cached games) thus leave the collector's view as soon as a collection has seen them alive,
  instead of piling up in the oldest generation where every full collection walks them again.
  Nothing is collected that CPython would not collect anyway, and no object is frozen before
  a collection has found it alive;
- every `reclaim_every_s` seconds (0: never), unfreeze and collect everything once (the hook
  freezes the survivors again): frozen objects are still freed by reference counting when they
  die, but a reference cycle that dies after being frozen waits for this round. It is the one
  full pause left, at a known rate.

- the middle generation is collected after every `MIDDLE_EVERY` (2) young collections instead
  of CPython's 10: each of its collections walks what survived 2 young ones, not 10, so the
  longest pause is a fifth as long for the same total work (every object is walked there once,
  then frozen).

Measured (bench/README.md "many_games"): at 1,000 games (4,000 sockets, 200 actions a second)
a middle collection after 10 young ones took 45 ms on average and up to 72 ms, with the
loop stopped; after 2, 15 ms on average and 28 ms at worst, with the same collector CPU in
total (young 3.8 ms each). The young threshold stays CPython's 700: a larger one (10,000) let
~9,000 objects survive each young collection while games were set up, and the middle
generation then took 40 ms (CPU) to walk. A first version froze on a timer
after its own young collection (`gc.collect(1)` every 1-10 s): at 1,000 games those extra
collections were 8 % of the event loop's time and the server fell behind; freezing after the
collections CPython runs anyway costs nothing extra.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging

log = logging.getLogger("warfield.gc")

# Young collections between two collections of the middle generation (CPython's default: 10).
MIDDLE_EVERY = 2


class GcPolicy:
    def __init__(self, freeze: bool = True, reclaim_every_s: float = 0.0) -> None:
        self.freeze = freeze
        self.reclaim_every_s = reclaim_every_s
        self._task: asyncio.Task[None] | None = None
        self._hooked = False
        self._thresholds: tuple[int, int, int] | None = None
        self.freezes = 0
        self.reclaims = 0

    @property
    def on(self) -> bool:
        return self.freeze

    def start(self) -> None:
        """Freeze what start-up left, hook the collector, start the reclaim rounds (call from
        the event loop)."""
        if not self.on or self._hooked:
            return
        gc.collect()
        gc.freeze()
        young, _, oldest = self._thresholds = gc.get_threshold()
        gc.set_threshold(young, MIDDLE_EVERY, oldest)
        gc.callbacks.append(self._after_collection)
        self._hooked = True
        if self.reclaim_every_s > 0:
            self._task = asyncio.get_running_loop().create_task(self._run())
        log.info("gc: froze %d objects after start-up; freezing the survivors of each "
                 "collection", gc.get_freeze_count())

    def _after_collection(self, phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] >= 1:
            # The young generations are empty now: all that is left unfrozen is what this
            # collection (or an earlier one) found alive.
            gc.freeze()
            self.freezes += 1

    def reclaim_round(self) -> None:
        gc.unfreeze()
        gc.collect()  # its survivors are frozen again by the hook
        self.reclaims += 1

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.reclaim_every_s)
            self.reclaim_round()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._hooked:
            with contextlib.suppress(ValueError):
                gc.callbacks.remove(self._after_collection)
            if self._thresholds is not None:
                gc.set_threshold(*self._thresholds)
                self._thresholds = None
            self._hooked = False
            gc.unfreeze()
