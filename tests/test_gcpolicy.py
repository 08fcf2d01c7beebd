"""The garbage-collection policy of `warfield serve` (issue 21 item 3, server/gcpolicy.py)."""

from __future__ import annotations

import asyncio
import gc
import weakref

from server.gcpolicy import GcPolicy


class Node:
    """A container object that can sit in a reference cycle and be weakly referenced."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> Node:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a


def test_gc_policy_freezes_survivors_so_collections_skip_them() -> None:
    """After start-up and after each round, what survives is frozen: a later full collection
    leaves it alone (a cycle that died after being frozen is still there); `stop` unfreezes,
    and then the collector frees it."""

    async def run() -> None:
        policy = GcPolicy(freeze_every_s=3600)
        policy.start()
        try:
            assert gc.get_freeze_count() > 0
            alive = cycle()
            dead = weakref.ref(alive)
            before = gc.get_freeze_count()
            policy.freeze_round()
            assert gc.get_freeze_count() > before  # the live cycle among the survivors
            del alive  # dies frozen: only the collector could free a cycle
            gc.collect()
            assert dead() is not None, "a frozen cycle is outside the collector's view"
        finally:
            await policy.stop()
        assert gc.get_freeze_count() == 0
        gc.collect()
        assert dead() is None

    asyncio.run(run())


def test_gc_policy_reclaim_round_frees_cycles_that_died_frozen() -> None:
    async def run() -> None:
        policy = GcPolicy(freeze_every_s=3600, reclaim_every_s=3600)
        policy.start()
        try:
            alive = cycle()
            dead = weakref.ref(alive)
            policy.freeze_round()
            del alive
            gc.collect()
            assert dead() is not None
            policy.reclaim_round()
            assert dead() is None
            assert gc.get_freeze_count() > 0, "the survivors are frozen again"
        finally:
            await policy.stop()

    asyncio.run(run())


def test_gc_policy_young_garbage_is_collected_before_each_freeze() -> None:
    """A round collects the young generations first: a cycle that is already garbage is freed,
    not frozen."""

    async def run() -> None:
        policy = GcPolicy(freeze_every_s=3600)
        policy.start()
        try:
            gc.disable()  # no automatic collection between here and the round
            try:
                dead = weakref.ref(cycle())
                assert dead() is not None, "a cycle lives until the collector finds it"
                policy.freeze_round()
            finally:
                gc.enable()
            assert dead() is None
        finally:
            await policy.stop()

    asyncio.run(run())


def test_gc_policy_off_leaves_the_collector_alone() -> None:
    """WARFIELD_GC_FREEZE_S=0: nothing frozen, no task."""

    async def run() -> None:
        policy = GcPolicy(freeze_every_s=0)
        policy.start()
        assert gc.get_freeze_count() == 0
        assert not policy.on
        await policy.stop()

    asyncio.run(run())


def test_gc_policy_rounds_run_on_the_event_loop() -> None:
    async def run() -> None:
        policy = GcPolicy(freeze_every_s=0.01)
        policy.start()
        try:
            while policy.freezes < 3:
                await asyncio.sleep(0.01)
        finally:
            await policy.stop()
        assert gc.get_freeze_count() == 0

    asyncio.run(run())
