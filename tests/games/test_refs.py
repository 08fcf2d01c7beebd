"""Exactly-once by `ref` with a bounded memory per game (issue 21 item 4).

Each cached game remembers only its last `REFS_REMEMBERED` refs; any older ref, and every ref
after a restart, is answered from the store's `actions` table: its first ack, applied once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from server.games import service as service_module
from server.games.service import REFS_REMEMBERED, GameService
from server.rules.core import BAD_REQUEST, STALE, RuleError
from server.store import EventStore, make_engine
from server.store.migrate import upgrade


@pytest.fixture
def store(database_url: str) -> Iterator[EventStore]:
    engine = make_engine(database_url)
    upgrade(engine)
    yield EventStore(engine)
    engine.dispose()


def move(n: int) -> dict[str, Any]:
    """Seat 1's n-th move of its token: each n puts it somewhere else than n - 1 did."""
    return {"type": "move_token", "id": "", "x": float(1 + n % 70), "y": 10.0}


async def new_game(service: GameService) -> str:
    """Both seats claimed, and seat 1's one token on the table (no ref)."""
    created = await service.create_game("t9a")
    await service.claim_seat(created.id, created.invite)
    await service.act(created.id, 1, {"type": "place_token", "x": 36.0, "y": 24.0})
    return created.id


def token_of(service: GameService, game_id: str) -> Any:
    live = service.cached(game_id)
    assert live is not None
    (token,) = live.state.tokens.values()
    return token


async def act(
    service: GameService, game_id: str, n: int, ref: str, expected_seq: int | None = None
) -> int:
    action = {**move(n), "id": token_of(service, game_id).id}
    return await service.act(game_id, 1, action, ref=ref, expected_seq=expected_seq)


async def play(service: GameService, game_id: str, first: int, count: int) -> dict[str, int]:
    """Seat 1 makes moves first..first+count-1 with refs r{n}; the ack of each ref."""
    acks: dict[str, int] = {}
    for n in range(first, first + count):
        acks[f"r{n}"] = await act(service, game_id, n, f"r{n}")
    return acks


def test_ref_memory_per_game_is_bounded(store: EventStore) -> None:
    """500 actions with refs: the game's in-memory record holds at most REFS_REMEMBERED of them,
    the most recent ones; every one of the 500 is still in the store."""

    async def run() -> None:
        service = GameService(store)
        game_id = await new_game(service)
        acks = await play(service, game_id, 0, 500)
        live = service.cached(game_id)
        assert live is not None
        assert len(live.refs) == REFS_REMEMBERED
        recent = [f"r{n}" for n in range(500 - REFS_REMEMBERED, 500)]
        assert [ref for _seat, ref in live.refs] == recent
        stored = await asyncio.to_thread(store.actions, game_id)
        assert {a.ref: a.seq for a in stored} == acks

    assert REFS_REMEMBERED < 500
    asyncio.run(run())


def test_old_ref_evicted_from_memory_is_answered_with_its_first_seq_and_applied_once(
    store: EventStore,
) -> None:
    """A ref pushed out of memory by later actions, sent again: its first ack, nothing new in
    the log or the state. Still legal now (the store refuses the ref's second use) and no longer
    legal (stale `expected_seq`: answered from the store before the stale check bites)."""

    async def run() -> None:
        service = GameService(store)
        game_id = await new_game(service)
        first = await play(service, game_id, 0, 1)
        seen_then = first["r0"]
        last = REFS_REMEMBERED + 10
        await play(service, game_id, 1, last)
        live = service.cached(game_id)
        assert live is not None and (1, "r0") not in live.refs
        seq_before = live.state.seq
        where = (token_of(service, game_id).x, token_of(service, game_id).y)
        assert where == (move(last).get("x"), move(last).get("y"))

        # Still legal: decided again, but the append is refused and rolled back.
        assert await act(service, game_id, 0, "r0") == seen_then
        # Stale now (the client had seen seq `seen_then - 1` when it first sent it).
        assert await act(service, game_id, 0, "r0", expected_seq=seen_then - 1) == seen_then
        assert live.state.seq == seq_before
        assert (token_of(service, game_id).x, token_of(service, game_id).y) == where
        assert await asyncio.to_thread(store.last_seq, game_id) == seq_before

        # The same old ref for a different action: refused, nothing changes.
        with pytest.raises(RuleError) as refused:
            await act(service, game_id, 999, "r1")
        assert refused.value.code == BAD_REQUEST
        assert await asyncio.to_thread(store.last_seq, game_id) == seq_before

        # A new ref with a stale expected_seq is still refused as stale.
        with pytest.raises(RuleError) as stale:
            await act(service, game_id, 5, "new", expected_seq=1)
        assert stale.value.code == STALE
        assert await asyncio.to_thread(store.last_seq, game_id) == seq_before

    asyncio.run(run())


def test_ref_retried_after_a_restart_is_answered_from_the_store(store: EventStore) -> None:
    """A new process (a new service on the same store) loads no refs at all, yet a retried ref
    gets its first ack and is applied once, stale or not."""

    async def run() -> None:
        before = GameService(store)
        game_id = await new_game(before)
        acks = await play(before, game_id, 0, 5)
        last = await asyncio.to_thread(store.last_seq, game_id)

        after = GameService(store)
        live = await after.live(game_id)
        assert len(live.refs) == 0
        for n in range(5):
            assert await act(after, game_id, n, f"r{n}") == acks[f"r{n}"]
        assert await act(after, game_id, 2, "r2", expected_seq=3) == acks["r2"]
        assert await asyncio.to_thread(store.last_seq, game_id) == last
        assert live.state.seq == last
        assert token_of(after, game_id).x == move(4)["x"], "no retried move was applied again"

    asyncio.run(run())


def test_ref_memory_bound_holds_under_a_smaller_limit(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bound is the module's constant, not an accident of the first test's numbers."""
    monkeypatch.setattr(service_module, "REFS_REMEMBERED", 3)

    async def run() -> None:
        service = GameService(store)
        game_id = await new_game(service)
        acks = await play(service, game_id, 0, 10)
        live = service.cached(game_id)
        assert live is not None
        assert [ref for _seat, ref in live.refs] == ["r7", "r8", "r9"]
        assert await act(service, game_id, 0, "r0") == acks["r0"]
        assert [ref for _seat, ref in live.refs] == ["r8", "r9", "r0"]

    asyncio.run(run())
