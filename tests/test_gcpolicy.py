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


def test_gc_policy_freezes_what_a_collection_found_alive() -> None:
    """After start-up and after each collection of the middle generation, the survivors are
    frozen: a later full collection leaves them alone (a cycle that died after being frozen is
    still there); `stop` unfreezes and unhooks, and then the collector frees it."""

    async def run() -> None:
        policy = GcPolicy(freeze=True)
        hooks = len(gc.callbacks)
        policy.start()
        try:
            assert gc.get_freeze_count() > 0
            assert len(gc.callbacks) == hooks + 1
            alive = cycle()
            dead = weakref.ref(alive)
            before = gc.get_freeze_count()
            gc.collect(1)  # finds the cycle alive; the hook freezes it
            assert gc.get_freeze_count() > before
            assert policy.freezes >= 1
            del alive  # dies frozen: only the collector could free a cycle
            gc.collect()
            assert dead() is not None, "a frozen cycle is outside the collector's view"
        finally:
            await policy.stop()
        assert gc.get_freeze_count() == 0
        assert len(gc.callbacks) == hooks
        gc.collect()
        assert dead() is None

    asyncio.run(run())


def test_gc_policy_reclaim_round_frees_cycles_that_died_frozen() -> None:
    async def run() -> None:
        policy = GcPolicy(freeze=True, reclaim_every_s=3600)
        policy.start()
        try:
            alive = cycle()
            dead = weakref.ref(alive)
            gc.collect(1)
            del alive
            gc.collect()
            assert dead() is not None
            policy.reclaim_round()
            assert dead() is None
            assert gc.get_freeze_count() > 0, "the survivors are frozen again"
        finally:
            await policy.stop()

    asyncio.run(run())


def test_gc_policy_never_freezes_garbage_a_collection_has_not_seen() -> None:
    """A cycle that is already garbage when the collection runs is freed by it, not frozen;
    a young collection (generation 0) freezes nothing."""

    async def run() -> None:
        policy = GcPolicy(freeze=True)
        policy.start()
        try:
            gc.disable()  # no automatic collection between here and the explicit ones
            try:
                dead = weakref.ref(cycle())
                assert dead() is not None, "a cycle lives until the collector finds it"
                frozen = policy.freezes
                gc.collect(0)
                assert policy.freezes == frozen, "generation 0 survivors stay young"
                dead = weakref.ref(cycle())
                gc.collect(1)
            finally:
                gc.enable()
            assert dead() is None
        finally:
            await policy.stop()

    asyncio.run(run())


def test_gc_policy_off_leaves_the_collector_alone() -> None:
    """WARFIELD_GC_FREEZE=0: nothing frozen, no hook, no task."""

    async def run() -> None:
        hooks = len(gc.callbacks)
        policy = GcPolicy(freeze=False, reclaim_every_s=1)
        policy.start()
        assert gc.get_freeze_count() == 0
        assert len(gc.callbacks) == hooks
        assert not policy.on
        await policy.stop()

    asyncio.run(run())


def test_gc_policy_reclaim_rounds_run_on_the_event_loop() -> None:
    async def run() -> None:
        policy = GcPolicy(freeze=True, reclaim_every_s=0.01)
        policy.start()
        try:
            while policy.reclaims < 3:
                await asyncio.sleep(0.01)
            assert gc.get_freeze_count() > 0
        finally:
            await policy.stop()
        assert gc.get_freeze_count() == 0

    asyncio.run(run())


def test_gc_policy_collects_the_middle_generation_every_two_young_collections() -> None:
    """The middle generation's threshold is `MIDDLE_EVERY` young collections while the policy
    runs (its pauses stay short: bench/README.md "many_games"), and CPython's own thresholds
    come back when it stops."""
    from server.gcpolicy import MIDDLE_EVERY

    async def run() -> None:
        before = gc.get_threshold()
        policy = GcPolicy(freeze=True)
        policy.start()
        try:
            assert gc.get_threshold() == (before[0], MIDDLE_EVERY, before[2])
            middle = gc.get_stats()[1]["collections"]
            for _ in range(MIDDLE_EVERY + 1):
                gc.collect(0)
            # (explicit young collections count towards the middle generation's threshold,
            # as the automatic ones do; the next automatic collection is a middle one)
            junk = [[] for _ in range(before[0] * 2)]
            del junk
            assert gc.get_stats()[1]["collections"] > middle
        finally:
            await policy.stop()
        assert gc.get_threshold() == before

    asyncio.run(run())
