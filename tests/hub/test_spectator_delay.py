"""The spectator delay in the fan-out (issue 20 item 4): the queue is rebuilt from the log's
commit times, releases in order at commit time + delay, and with RedisHub each process delays
its own spectators while its players get every batch at once."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from server.games import delay
from server.games.delay import SpectatorDelay
from server.games.service import GameService
from server.hub import LocalHub
from server.hub.redis import RedisHub
from server.rules.core import Event
from server.store import EventStore, make_engine
from server.store.migrate import upgrade
from tests.api.test_spectator_delay import ManualClock
from tests.conftest import redis_url


class Sink:
    """A subscriber that records the seqs it is offered, with the clock's time then."""

    def __init__(self, viewer: int | None, clock: ManualClock) -> None:
        self.viewer, self.clock = viewer, clock
        self.seen: dict[int, float] = {}

    def offer(self, events: Sequence[Event], frame: str) -> None:
        for e in events:
            assert e.seq not in self.seen, f"seq {e.seq} offered twice"
            self.seen[e.seq] = self.clock.now()


async def until(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.01)


def note(seq: int) -> Event:
    return Event("note_added", {"text": str(seq)}, actor=1, seq=seq)


def test_the_queue_starts_from_the_log_commit_times_and_releases_in_order() -> None:
    async def body() -> None:
        clock = ManualClock()
        released: list[list[int]] = []
        spectators = SpectatorDelay(lambda g, es, f: released.append([e.seq for e in es]), clock)
        now = clock.now()
        at = [now - 500, now - 500, now - 61, now - 30, now - 30, now - 5]
        log = [(note(i + 1), datetime.fromtimestamp(t, UTC)) for i, t in enumerate(at)]
        feed = spectators.track("g", 60, log)
        # The creation batch and what is older than the delay count as seen.
        assert feed.released == 3
        assert [[e.seq for e in b.events] for b in feed.pending] == [[4, 5], [6]]
        spectators.push("g", [note(6), note(7)], None)  # 6 came from the log already
        assert [[e.seq for e in b.events] for b in feed.pending] == [[4, 5], [6], [7]]
        clock.advance(30)
        await until(lambda: released == [[4, 5]])
        clock.advance(25)
        await until(lambda: released == [[4, 5], [6]])
        clock.advance(60)
        await until(lambda: released == [[4, 5], [6], [7]])
        assert feed.released == 7
        await spectators.stop()

    asyncio.run(asyncio.wait_for(body(), 30))


def test_a_local_hub_holds_back_only_the_spectators_of_a_delayed_game() -> None:
    async def body() -> None:
        clock = ManualClock()
        hub = LocalHub()
        hub.delay.clock = clock
        player, spectator, elsewhere = Sink(1, clock), Sink(None, clock), Sink(None, clock)
        hub.subscribe("g", player)
        hub.subscribe("g", spectator)
        hub.subscribe("other", elsewhere)
        hub.delay.track("g", 60, [])
        hub.deliver("g", [note(1)])
        hub.deliver("other", [note(1)])
        assert list(player.seen) == [1] and list(elsewhere.seen) == [1]
        assert spectator.seen == {}
        clock.advance(60)
        await until(lambda: list(spectator.seen) == [1])
        feed = hub.delay.feed("g")
        assert feed is not None
        feed.joining = 1  # another spectator is being welcomed: the queue stays
        hub.unsubscribe("g", spectator)
        assert hub.delay.tracked() == ["g"]
        feed.joining = 0
        hub.subscribe("g", spectator)
        hub.unsubscribe("g", spectator)  # the last spectator here: the game's queue ends
        assert hub.delay.tracked() == []
        # A delayed game's spectator is never handed a frame directly, queue or not.
        late = Sink(None, clock)
        late.delay_s = 60  # type: ignore[attr-defined]
        hub.subscribe("g", late)
        hub.deliver("g", [note(2)])
        assert late.seen == {} and list(player.seen) == [1, 2]
        await hub.stop()

    asyncio.run(asyncio.wait_for(body(), 30))


@pytest.mark.redis
def test_each_process_delays_its_own_spectators_and_not_its_players(tmp_path: Any) -> None:
    url = redis_url()
    engine = make_engine(f"sqlite:///{tmp_path}/shared.db")
    upgrade(engine)

    async def body() -> None:
        clocks = ManualClock(), ManualClock()
        hubs = RedisHub(url), RedisHub(url)
        services = [GameService(EventStore(engine), hub) for hub in hubs]
        for hub, clock in zip(hubs, clocks, strict=True):
            hub.delay.clock = clock
            await hub.start()
        try:
            created = await services[0].create_game("t9a", spectator_delay_s=60)
            gid = created.id
            sinks = []
            for service, clock in zip(services, clocks, strict=True):
                live = await service.live(gid)
                async with live.lock:
                    await delay.feed_for(service, live)
                player, spectator = Sink(2, clock), Sink(None, clock)
                service.hub.subscribe(gid, player)
                service.hub.subscribe(gid, spectator)
                sinks.append((player, spectator))
            await until(lambda: all(h.connected.is_set() for h in hubs))
            seq = await services[0].act(gid, 1, {"type": "note", "text": "hi"}, "r1")
            for player, _ in sinks:
                await until(lambda p=player: seq in p.seen)  # the players, on both processes
            assert all(seq not in spectator.seen for _, spectator in sinks)
            clocks[1].advance(61)  # process B's clock: only B's spectator gets it
            await until(lambda: seq in sinks[1][1].seen)
            assert seq not in sinks[0][1].seen
            clocks[0].advance(61)
            await until(lambda: seq in sinks[0][1].seen)
            committed = {e.seq: at.timestamp() for e, at in services[0].store.timed_events(gid)}
            for _, spectator in sinks:
                assert list(spectator.seen) == [seq]  # (the creation batch counted as seen)
                assert spectator.seen[seq] - committed[seq] >= 60
        finally:
            for hub in hubs:
                await hub.stop()

    asyncio.run(asyncio.wait_for(body(), 60))
    engine.dispose()
