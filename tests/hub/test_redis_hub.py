"""RedisHub against a real Redis: batches cross processes, own messages are ignored, the
subscription follows the local watchers, and a Redis restart ends in a catch-up (issue 7)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.hub import Frames, events_frame
from server.hub import redis as redis_hub
from server.hub.redis import (
    CHANNEL_PREFIX,
    RedisHub,
    decode_batch,
    decode_message,
    encode_batch,
    encode_need,
)
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
    """Stands in for the service's `apply_remote`: records calls, delivers as given (the
    frames that came with the batch, the others encoded here)."""

    def __init__(self, hub: RedisHub) -> None:
        self.hub = hub
        self.calls: list[tuple[str, list[Event]]] = []
        hub.on_remote = self

    async def __call__(self, game_id: str, events: list[Event], frames: Frames) -> None:
        self.calls.append((game_id, events))
        self.hub.deliver(game_id, events, frames=dict(frames))


class FastRemote(Remote):
    """...and the service's `apply_remote_now`: takes a batch at once when it came with a
    frame for every class watching here (as the service does for a game nobody is writing)."""

    def __init__(self, hub: RedisHub) -> None:
        super().__init__(hub)
        self.taken: list[tuple[str, list[Event], Frames]] = []
        hub.on_remote_now = self.now

    def now(self, game_id: str, events: list[Event], frames: Frames) -> bool:
        if not self.hub.classes(game_id) <= frames.keys():
            return False
        self.taken.append((game_id, events, frames))
        self.hub.deliver(game_id, events, frames=dict(frames))
        return True


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


@contextlib.asynccontextmanager
async def started(*hubs: RedisHub) -> AsyncIterator[None]:
    """The hubs started, and stopped again however the block ends."""
    for hub in hubs:
        await hub.start()
    try:
        yield
    finally:
        for hub in hubs:
            await hub.stop()


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
    frames = {None: events_frame(events, None), 1: events_frame(events, 1)}
    origin, back, back_frames = decode_batch(encode_batch("p1", events, frames))
    assert origin == "p1" and back == events and back_frames == frames
    assert back[1].to_wire(None)["type"] == "hidden" and back[1].to_wire(1)["type"] != "hidden"
    assert '"fanatic_hidden"' not in back_frames[None] and '"fanatic_hidden"' in back_frames[1]
    assert decode_batch(encode_batch("p1", events)) == ("p1", events, {})
    assert decode_message(encode_need("p2", {None, 2})) == ("p2", "n", [], {None, 2})
    with pytest.raises(ValueError):
        decode_batch(encode_batch("p1", events, frames).rsplit("\n", 1)[0])  # a frame short


@pytest.mark.redis
def test_batches_reach_the_other_process_once_and_not_the_sender() -> None:
    url = redis_url()
    game = "g" + secrets.token_hex(6)

    async def body() -> None:
        a, b = RedisHub(url), RedisHub(url)
        remote_a, remote_b = Remote(a), Remote(b)
        async with started(a, b):
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

    run(body)


@pytest.mark.redis
def test_a_batch_carries_the_frames_the_other_process_needs_and_it_encodes_nothing() -> None:
    """Process B says which classes it watches (seat 2 and spectators); A's batches then
    carry those frames (and A's own seat's), encoded once on A with A's patches, hidden
    events already hidden for the classes that may not see them; B hands them on as they
    came."""
    url = redis_url()
    game = "g" + secrets.token_hex(6)

    async def body() -> None:
        a, b = RedisHub(url), RedisHub(url)
        Remote(a)
        remote_b = FastRemote(b)
        async with started(a, b):
            p1_a, p2_b, spectator_b = Sink(1), Sink(2), Sink(None)
            a.subscribe(game, p1_a)
            b.subscribe(game, p2_b)
            b.subscribe(game, spectator_b)
            await until(lambda: a._wanted_classes(game) == {2, None})
            hidden = Event("secret", {"u": 1}, actor=1, visibility="player:1", seq=2)
            events = batch(1) + [hidden]
            patches = {1: {"seq": 2, "p": "one"}, 2: {"seq": 2, "p": "two"},
                       None: {"seq": 2, "p": "spectators"}}
            await a.publish(game, events, patches.get)
            await until(lambda: len(spectator_b.seqs) == 2 and len(p2_b.seqs) == 2)
            assert [(g, ev, set(fr)) for g, ev, fr in remote_b.taken] == [
                (game, events, {1, 2, None})]  # (and A's own class: see Projections.advance)
            assert [c for c in remote_b.calls if c[1]] == []  # nothing folded or encoded on B
            assert p2_b.frames == [events_frame(events, 2, patches[2])]
            assert spectator_b.frames == [events_frame(events, None, patches[None])]
            assert '"secret"' not in p2_b.frames[0] + spectator_b.frames[0]
            assert p1_a.frames == [events_frame(events, 1, patches[1])]

            # B's last spectator leaves: A stops encoding the spectators' frame.
            b.unsubscribe(game, spectator_b)
            await until(lambda: a._wanted_classes(game) == {2})

    run(body)


@pytest.mark.redis
def test_a_process_of_spectators_only_gets_their_frame_and_before_the_players_socket() -> None:
    """B holds only spectators (it never commits for the game): A's batch carries the
    spectators' frame alone, and A publishes it before it encodes or writes anything for its
    own player's socket, so B's spectators do not wait for A's player (issue 22)."""
    url = redis_url()
    game = "g" + secrets.token_hex(6)

    async def body() -> None:
        a, b = RedisHub(url), RedisHub(url)
        Remote(a)
        remote_b = FastRemote(b)
        async with started(a, b):
            order: list[str] = []
            p1_a, spectator_b = Sink(1), Sink(None)
            offer_p1, enqueue = p1_a.offer, a._enqueue

            def offered(events: Sequence[Event], frame: str) -> None:
                order.append("player")
                offer_p1(events, frame)

            def published(game_id: str, payload: str, batch_seq: int | None = None) -> None:
                order.append("published")
                enqueue(game_id, payload, batch_seq)

            p1_a.offer = offered  # type: ignore[method-assign]
            a._enqueue = published  # type: ignore[method-assign]
            a.subscribe(game, p1_a)
            b.subscribe(game, spectator_b)
            await until(lambda: a._wanted_classes(game) == {None})
            order.clear()
            patched: list[int | None] = []
            patches = {1: {"seq": 1, "p": "one"}, None: {"seq": 1, "p": "spectators"}}

            def patch(viewer: int | None) -> dict[str, object] | None:
                patched.append(viewer)
                return patches.get(viewer)

            await a.publish(game, batch(1), patch)
            await until(lambda: spectator_b.seqs == [1])
            assert [(ev, set(fr)) for _, ev, fr in remote_b.taken] == [(batch(1), {None})]
            assert spectator_b.frames == [events_frame(batch(1), None, patches[None])]
            assert p1_a.frames == [events_frame(batch(1), 1, patches[1])]
            assert order == ["published", "player"]
            assert patched == [None, 1], "the spectators' patch first, the player's after"

    run(body)


@pytest.mark.redis
def test_a_batch_without_a_needed_frame_is_encoded_by_the_receiver() -> None:
    """A process that has not said what it needs yet (or whose need lapsed) gets a batch
    without its frames: it folds and encodes them itself (the service's `apply_remote`), and
    asks for them, so the next batches carry them."""
    url = redis_url()
    game = "g" + secrets.token_hex(6)

    async def body() -> None:
        a, b = RedisHub(url), RedisHub(url)
        Remote(a)
        remote_b = FastRemote(b)
        async with started(a, b):
            p1_a, spectator_b = Sink(1), Sink(None)
            a.subscribe(game, p1_a)
            b.subscribe(game, spectator_b)
            await until(lambda: a._wanted_classes(game) == {None})
            a._wanted.clear()  # (as if B's need had lapsed on A ...
            b._needed.clear()  # ... long ago: B asks again at once)
            await a.publish(game, batch(1))
            await until(lambda: spectator_b.seqs == [1])
            assert remote_b.taken == [] and [c[1] for c in remote_b.calls if c[1]] == [batch(1)]
            assert spectator_b.frames == [events_frame(batch(1), None)]
            await until(lambda: a._wanted_classes(game) == {None})  # B asked again
            await a.publish(game, batch(2))
            await until(lambda: spectator_b.seqs == [1, 2])
            assert [ev for _, ev, _ in remote_b.taken] == [batch(2)]

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


async def crossing(a: RedisHub, b: RedisHub, games: list[str]) -> tuple[Remote, list[Sink]]:
    """Both hubs started; a spectator on B watches each game, B has caught each up from the
    log, and a first batch of `games[0]` published on A has reached B's spectator."""
    Remote(a)
    remote_b = Remote(b)
    await a.start()
    await b.start()
    sinks = [Sink(None) for _ in games]
    for game, sink in zip(games, sinks, strict=True):
        b.subscribe(game, sink)
    await until(lambda: {g for g, ev in remote_b.calls if not ev} == set(games))
    await a.publish(games[0], batch(1))
    await until(lambda: sinks[0].seqs == [1])
    return remote_b, sinks


def test_a_redis_restart_reconnects_and_catches_up_every_watched_game(own_redis: Any) -> None:
    games = ["g" + secrets.token_hex(6) for _ in range(3)]

    async def body() -> None:
        a, b = RedisHub(own_redis.url), RedisHub(own_redis.url)
        try:
            remote_b, sinks = await crossing(a, b, games)

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


@pytest.mark.redis
@pytest.mark.parametrize("lost", ["before the batch", "with the batch unanswered"])
def test_a_batch_dropped_while_the_publishing_connection_is_down_is_hinted_at_once_it_is_back(
    monkeypatch: pytest.MonkeyPatch, lost: str
) -> None:
    """After a Redis restart the other processes' subscriptions may come back (and catch up
    from the log) before this process's publishing connection does. A batch committed in
    between is dropped, and it may be the game's last for a while: no next batch shows the gap.
    Once the publishing connection is back a hint goes out, and the other process reads the
    log (tests/hub/test_multiprocess.py's Redis restart once waited 30 s for such a batch)."""
    url = redis_url()
    game = "g" + secrets.token_hex(6)

    async def body() -> None:
        a, b = RedisHub(url), RedisHub(url)
        gate = asyncio.Event()
        connect = redis_hub.resp.connect

        async def publisher_held(url: str, on_reply: Any, on_lost: Any,
                                 timeout: float) -> Any:
            if on_reply == a._published:  # (A's publishing connection waits for the gate)
                await gate.wait()
            return await connect(url, on_reply, on_lost, timeout)

        try:
            remote_b, sinks = await crossing(a, b, [game])
            monkeypatch.setattr(redis_hub.resp, "connect", publisher_held)
            publishing = a._pub
            assert publishing is not None
            remote_b.calls.clear()
            publishing.abort()
            if lost == "before the batch":
                await until(lambda: a._pub is None)
                await a.publish(game, batch(2))  # dropped: no publishing connection
            else:
                await a.publish(game, batch(2))  # written to a connection being lost
                assert a.dropped == 0 and len(a._pub_pending) == 1
                await until(lambda: a._pub is None)  # (its reply will never come)
            assert a.dropped == 1 and sinks[0].seqs == [1] and remote_b.calls == []
            gate.set()
            # B is told to read the log (here: `Remote` records the catch-up, events empty).
            await until(lambda: (game, []) in remote_b.calls)
            await a.publish(game, batch(3))
            await until(lambda: sinks[0].seqs == [1, 3])
        finally:
            gate.set()
            await a.stop()
            await b.stop()

    run(body)


def test_a_redis_that_stops_answering_without_closing_is_detected_and_healed(
    own_redis: Any,
) -> None:
    """A frozen Redis (SIGSTOP: its sockets stay open, nothing is answered) is noticed by the
    subscription's PING going unanswered; the hub reconnects and, once Redis answers again,
    catches every watched game up from the log, as after a restart (issue 22)."""
    games = ["g" + secrets.token_hex(6) for _ in range(2)]

    async def body() -> None:
        a = RedisHub(own_redis.url)
        b = RedisHub(own_redis.url, health_every_s=0.1, health_timeout_s=0.3)
        try:
            remote_b, sinks = await crossing(a, b, games)
            assert b.unanswered == 0  # (a Redis that answers is never given up on)

            remote_b.calls.clear()
            own_redis.proc.send_signal(signal.SIGSTOP)
            try:
                await until(lambda: b.unanswered >= 1, timeout=20)
            finally:
                own_redis.proc.send_signal(signal.SIGCONT)
            await until(lambda: b.reconnects >= 1, timeout=20)
            await until(lambda: {g for g, ev in remote_b.calls if not ev} == set(games),
                        timeout=20)
            await until(lambda: b.connected.is_set(), timeout=20)
            await a.publish(games[0], batch(2))
            await until(lambda: 2 in sinks[0].seqs, timeout=20)
        finally:
            await a.stop()
            await b.stop()

    asyncio.run(asyncio.wait_for(body(), 90))


@pytest.mark.redis
def test_an_idle_hub_stays_connected_over_many_health_pings(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A process that watches no game (its subscription connection is subscribed to nothing,
    so Redis answers the health PING with the bare message, not ["pong", message]) takes that
    answer as the PONG: it stays connected, never reconnects and logs no warning, over many
    health periods; and so does one whose last game's sockets left (unsubscribed from every
    channel, the same answer again)."""
    url = redis_url()
    game = "g" + secrets.token_hex(6)

    async def body() -> None:
        hub = RedisHub(url, health_every_s=0.05, health_timeout_s=0.5)
        Remote(hub)
        async with started(hub):
            await until(hub.connected.is_set)
            await until(lambda: hub.pongs >= 8)  # (16 timeouts' worth of health periods)
            assert hub.unanswered == 0 and hub.reconnects == 0

            sink = Sink(None)
            hub.subscribe(game, sink)
            await until(lambda: game in hub._confirmed)
            seen = hub.pongs
            await until(lambda: hub.pongs >= seen + 3)  # (answered ["pong", message])
            hub.unsubscribe(game, sink)
            await until(lambda: not hub._unconfirmed)
            seen = hub.pongs
            await until(lambda: hub.pongs >= seen + 8)  # (the bare message again)
            assert hub.unanswered == 0 and hub.reconnects == 0 and hub.connected.is_set()

    with caplog.at_level(logging.INFO, logger="warfield.hub"):
        run(body)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


@pytest.mark.redis
def test_a_process_alone_on_a_game_stops_publishing_until_another_one_listens() -> None:
    """A batch whose PUBLISH reached only the committing process's own subscription (the
    proxy keeps a game's sockets together, so most games are watched on one process) makes the
    game alone: its next batches are not published, only delivered here (issue 22). Another
    process that starts watching says which frames it needs; publishing resumes at once, and a
    hint says how far the log went meanwhile, which the newcomer reads (it may have caught up
    from the log before the unpublished batches were written)."""
    url = redis_url()
    game = "g" + secrets.token_hex(6)

    async def body() -> None:
        a, b = RedisHub(url), RedisHub(url)
        Remote(a)
        remote_b = Remote(b)
        heals: list[str] = []
        heal = b._heal

        def counted_heal(game_id: str) -> None:
            heals.append(game_id)
            heal(game_id)

        b._heal = counted_heal  # type: ignore[method-assign]
        await a.start()
        try:
            player = Sink(1)
            a.subscribe(game, player)
            await until(lambda: game in a._confirmed)
            await a.publish(game, batch(1))
            await until(lambda: game in a._alone)  # (the PUBLISH's reply: 1 receiver, us)
            await a.publish(game, batch(2))
            await a.publish(game, batch(3))
            assert a.unpublished == 2 and player.seqs == [1, 2, 3]

            await b.start()
            spectator = Sink(None)
            b.subscribe(game, spectator)
            await until(lambda: game not in a._alone and game not in a._unsent)
            # b's own catch-up after subscribing, and the one the hint asked for
            await until(lambda: heals == [game] and remote_b.calls.count((game, [])) == 2)
            await a.publish(game, batch(4))
            await until(lambda: (game, batch(4)) in remote_b.calls)
            assert a.unpublished == 2

            b.unsubscribe(game, spectator)  # b says it needs nothing more
            await until(lambda: not a._wanted.get(game))
            await a.publish(game, batch(5))
            await until(lambda: game in a._alone)
            await a.publish(game, batch(6))
            assert a.unpublished == 3 and player.seqs == [1, 2, 3, 4, 5, 6]
        finally:
            await a.stop()
            await b.stop()

    run(body)


@pytest.mark.redis
def test_an_alone_game_is_published_again_after_the_probe_time(monkeypatch: Any) -> None:
    """Being alone is re-checked: once `ALONE_PROBE_S` has passed, the next batch is published
    again (a listener that was missed, say its need was lost while Redis restarted, is found
    within that time); a subscription lost and made again forgets every alone game."""
    url = redis_url()
    game = "g" + secrets.token_hex(6)
    monkeypatch.setattr(redis_hub, "ALONE_PROBE_S", 0.0)

    async def body() -> None:
        a = RedisHub(url)
        Remote(a)
        async with started(a):
            a.subscribe(game, Sink(1))
            await until(lambda: game in a._confirmed)
            for seq in range(1, 4):
                await a.publish(game, batch(seq))
                await until(lambda: not a._pub_pending)
            assert a.unpublished == 0 and game in a._alone
            a._forget_subscription()
            assert a._alone == {} and game not in a._confirmed

    run(body)


@pytest.mark.redis
def test_a_subscription_is_confirmed_only_when_redis_has_done_all_we_asked() -> None:
    """Subscribe, unsubscribe and subscribe again before Redis answers: the channel counts as
    subscribed (for the alone check) only after the last confirmation, not the first."""
    url = redis_url()
    game = "g" + secrets.token_hex(6)

    async def body() -> None:
        a = RedisHub(url)
        Remote(a)
        async with started(a):
            await until(lambda: a.connected.is_set())
            first, second = Sink(1), Sink(1)
            a.subscribe(game, first)
            a.unsubscribe(game, first)
            a.subscribe(game, second)
            assert a._unconfirmed == {game: 3} and game not in a._confirmed
            await until(lambda: game in a._confirmed)
            assert a._unconfirmed == {}

    run(body)
