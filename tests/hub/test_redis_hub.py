"""RedisHub against a real Redis: batches cross processes, own messages are ignored, the
subscription follows the local watchers, and a Redis restart ends in a catch-up (issue 7)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.hub import events_frame
from server.hub.redis import CHANNEL_PREFIX, RedisHub, decode_batch, encode_batch
from server.rules.core import Event
from tests.conftest import redis_url


class Sink:
    """A subscriber that records what it is offered."""

    def __init__(self, viewer: int | None) -> None:
        self.viewer = viewer
        self.frames: list[str] = []
        self.seqs: list[int] = []

    def offer(self, events: Sequence[Event], frame: str) -> None:
        self.frames.append(frame)
        self.seqs.extend(e.seq for e in events)


class Remote:
    """Stands in for the service's `apply_remote`: records calls, delivers as given."""

    def __init__(self, hub: RedisHub) -> None:
        self.hub = hub
        self.calls: list[tuple[str, list[Event]]] = []
        hub.on_remote = self

    async def __call__(self, game_id: str, events: list[Event]) -> None:
        self.calls.append((game_id, events))
        self.hub.deliver(game_id, events)


def batch(first: int, n: int = 1) -> list[Event]:
    return [
        Event("token_moved", {"id": "t1", "x": float(i), "y": 2.0}, actor=1, seq=first + i)
        for i in range(n)
    ]


async def until(check: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.01)


def run(body: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(asyncio.wait_for(body(), 30))


async def channels(url: str) -> set[str]:
    client = aioredis.Redis.from_url(url, decode_responses=True)
    try:
        return set(await client.pubsub_channels(CHANNEL_PREFIX + "*"))
    finally:
        await client.aclose()


def test_a_batch_round_trips_with_its_visibility() -> None:
    events = [
        Event("note_added", {"text": "hi"}, actor=2, seq=7),
        Event("fanatic_hidden", {"unit": "u3"}, actor="system", visibility="player:1", seq=8),
    ]
    origin, back = decode_batch(encode_batch("p1", events))
    assert origin == "p1" and back == events
    assert back[1].to_wire(None)["type"] == "hidden" and back[1].to_wire(1)["type"] != "hidden"


@pytest.mark.redis
def test_batches_reach_the_other_process_once_and_not_the_sender() -> None:
    url = redis_url()
    game = "g" + secrets.token_hex(6)

    async def body() -> None:
        a, b = RedisHub(url), RedisHub(url)
        remote_a, remote_b = Remote(a), Remote(b)
        await a.start()
        await b.start()
        try:
            on_a, p1_b, spectator_b = Sink(1), Sink(1), Sink(None)
            a.subscribe(game, on_a)
            b.subscribe(game, p1_b)
            b.subscribe(game, spectator_b)
            await until(lambda: len(remote_b.calls) >= 1 and len(remote_a.calls) >= 1)
            assert remote_b.calls[0] == (game, [])  # the catch-up after subscribing
            hidden = Event("secret", {"u": 1}, actor=1, visibility="player:1", seq=2)
            await a.publish(game, batch(1) + [hidden])
            await a.publish(game, batch(3, 2))
            await until(lambda: len(spectator_b.seqs) == 4)
            assert on_a.seqs == [1, 2, 3, 4]  # delivered locally at once
            assert p1_b.seqs == spectator_b.seqs == [1, 2, 3, 4]
            assert spectator_b.frames[0] == events_frame(batch(1) + [hidden], None)
            assert '"secret"' in p1_b.frames[0] and '"secret"' not in spectator_b.frames[0]
            await asyncio.sleep(0.1)
            assert [c for c in remote_a.calls if c[1]] == []  # its own batches are ignored
            assert [len(c[1]) for c in remote_b.calls if c[1]] == [2, 2]
        finally:
            await a.stop()
            await b.stop()

    run(body)


@pytest.mark.redis
def test_the_subscription_follows_the_first_and_last_local_watcher() -> None:
    url = redis_url()
    game = "g" + secrets.token_hex(6)

    async def body() -> None:
        hub = RedisHub(url)
        Remote(hub)
        await hub.start()
        try:
            await hub.connected.wait()
            assert CHANNEL_PREFIX + game not in await channels(url)
            one, two = Sink(1), Sink(None)
            hub.subscribe(game, one)
            hub.subscribe(game, two)

            async def subscribed() -> bool:
                return CHANNEL_PREFIX + game in await channels(url)

            for _ in range(200):
                if await subscribed():
                    break
                await asyncio.sleep(0.01)
            assert await subscribed()
            hub.unsubscribe(game, one)
            await asyncio.sleep(0.1)
            assert await subscribed()
            hub.unsubscribe(game, two)
            for _ in range(200):
                if not await subscribed():
                    break
                await asyncio.sleep(0.01)
            assert not await subscribed()
            await hub.ping()
        finally:
            await hub.stop()

    run(body)


def test_a_redis_restart_reconnects_and_catches_up_every_watched_game(own_redis: Any) -> None:
    games = ["g" + secrets.token_hex(6) for _ in range(3)]

    async def body() -> None:
        a, b = RedisHub(own_redis.url), RedisHub(own_redis.url)
        Remote(a)
        remote_b = Remote(b)
        await a.start()
        await b.start()
        try:
            sinks = [Sink(None) for _ in games]
            for game, sink in zip(games, sinks, strict=True):
                b.subscribe(game, sink)
            await until(lambda: {g for g, ev in remote_b.calls if not ev} == set(games))
            await a.publish(games[0], batch(1))
            await until(lambda: sinks[0].seqs == [1])

            own_redis.kill()
            await until(lambda: not b.connected.is_set())
            with pytest.raises(Exception):  # noqa: B017 - any connection error
                await b.ping()
            await a.publish(games[0], batch(2))  # lost: nobody is listening
            remote_b.calls.clear()
            restarted = asyncio.get_running_loop().time()
            own_redis.start()
            await until(lambda: {g for g, ev in remote_b.calls if not ev} == set(games))
            assert asyncio.get_running_loop().time() - restarted < 2.0
            assert b.reconnects >= 1
            await b.ping()
            await a.publish(games[0], batch(3))
            await until(lambda: sinks[0].seqs == [1, 3])
        finally:
            await a.stop()
            await b.stop()

    run(body)
