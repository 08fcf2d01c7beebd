"""Retention (issue 12 item 4 d): finished and abandoned games expire after N days and
`warfield prune` deletes them with their events, seats and action refs; recent and active games
stay. On SQLite and PostgreSQL. Ages come from `events.created_at` / `games.created_at` (the
tests backdate those columns, as if the games had been played weeks ago)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from server import cli
from server.games.service import GameService
from server.store import EventStore, make_engine
from server.store.migrate import upgrade
from server.store.tables import actions, events, games, seats

NOW = datetime.now(UTC)


@pytest.fixture
def store(database_url: str) -> Any:
    engine = make_engine(database_url)
    upgrade(engine)
    with engine.begin() as conn:  # the PostgreSQL database is shared by the session's tests
        for table in ("actions", "events", "seats", "games"):
            conn.execute(sa.text(f"DELETE FROM {table}"))
    yield EventStore(engine)
    engine.dispose()


def backdate(store: EventStore, game_id: str, days: float, from_seq: int = 0) -> None:
    """Make the game's events after `from_seq` (and, from 0, its creation) `days` old."""
    when = NOW - timedelta(days=days)
    with store.engine.begin() as conn:
        conn.execute(events.update().where(events.c.game_id == game_id, events.c.seq > from_seq)
                     .values(created_at=when))
        if from_seq == 0:
            conn.execute(games.update().where(games.c.id == game_id).values(created_at=when))


def rows(store: EventStore, game_id: str) -> dict[str, int]:
    with store.engine.connect() as conn:
        return {
            table.name: conn.execute(
                sa.select(sa.func.count()).select_from(table).where(
                    (table.c.id if table is games else table.c.game_id) == game_id)
            ).scalar_one()
            for table in (games, events, seats, actions)
        }


async def played(service: GameService, concede: bool) -> str:
    """A game with both seats, a few acknowledged actions (with refs), maybe conceded."""
    game = await service.create_game("t9a")
    await service.claim_seat(game.id, game.invite)
    await service.act(game.id, 1, {"type": "place_token", "x": 5, "y": 5}, ref="a1")
    await service.act(game.id, 2, {"type": "roll_dice", "dice": "D6"}, ref="b1")
    if concede:
        await service.act(game.id, 1, {"type": "concede"}, ref="a2")
    return game.id


@pytest.fixture
def library(store: EventStore) -> dict[str, str]:
    """Six games: which ones a 30-day retention deletes is in the name."""

    async def make() -> dict[str, str]:
        service = GameService(store)
        return {
            "old_finished": await played(service, concede=True),
            "old_abandoned": await played(service, concede=False),
            "old_never_played": (await service.create_game("whfb8")).id,
            "recent_finished": await played(service, concede=True),
            "active": await played(service, concede=False),
            "old_but_played_today": await played(service, concede=False),
        }

    ids = asyncio.run(make())
    backdate(store, ids["old_finished"], 45)
    backdate(store, ids["old_abandoned"], 31)
    backdate(store, ids["old_never_played"], 60)
    backdate(store, ids["recent_finished"], 2)
    # Created long ago, but its last move (seq 5, the roll) was made today.
    backdate(store, ids["old_but_played_today"], 90)
    backdate(store, ids["old_but_played_today"], 0.01, from_seq=store.last_seq(
        ids["old_but_played_today"]) - 1)
    return ids


GOES = {"old_finished", "old_abandoned", "old_never_played"}


def test_old_finished_and_abandoned_games_expire_recent_and_active_ones_stay(
    store: EventStore, library: dict[str, str]
) -> None:
    expired = {e.id: e.reason for e in store.expired_games(30, NOW)}
    assert expired == {
        library["old_finished"]: "finished",
        library["old_abandoned"]: "abandoned",
        library["old_never_played"]: "abandoned",
    }
    # A shorter period reaches the game that ended two days ago, not the active ones.
    assert library["recent_finished"] in {e.id for e in store.expired_games(1, NOW)}
    assert {e.id for e in store.expired_games(1, NOW)} & {
        library["active"], library["old_but_played_today"]} == set()


def test_prune_deletes_expired_games_with_their_events_seats_and_actions(
    store: EventStore, library: dict[str, str]
) -> None:
    service = GameService(store)
    before = {name: rows(store, gid) for name, gid in library.items()}
    assert all(n > 0 for n in before["old_finished"].values())  # seats, events, action refs

    dry = asyncio.run(service.prune(30, dry_run=True))
    assert {e.id for e in dry} == {library[n] for n in GOES}
    assert {name: rows(store, gid) for name, gid in library.items()} == before

    pruned = asyncio.run(service.prune(30))
    assert {e.id for e in pruned} == {library[n] for n in GOES}
    for name, gid in library.items():
        if name in GOES:
            assert rows(store, gid) == {"games": 0, "events": 0, "seats": 0, "actions": 0}
        else:
            assert rows(store, gid) == before[name]
    assert asyncio.run(service.prune(30)) == []


def test_prune_evicts_the_deleted_games_from_the_live_cache(
    store: EventStore, library: dict[str, str]
) -> None:
    service = GameService(store)

    async def run() -> None:
        for gid in library.values():
            await service.live(gid)
        await service.prune(30)

    asyncio.run(run())
    cached = {name for name, gid in library.items() if service.cached(gid) is not None}
    assert cached == set(library) - GOES


def test_warfield_prune_command(
    store: EventStore, library: dict[str, str], database_url: str,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """`warfield prune --dry-run` lists, `warfield prune` deletes, `--days` or the setting
    gives the period, and without either it refuses (exit 2)."""
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.delenv("WARFIELD_RETENTION_DAYS", raising=False)
    assert cli.main(["prune"]) == 2
    assert "WARFIELD_RETENTION_DAYS" in capsys.readouterr().err

    assert cli.main(["prune", "--days", "30", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert all(library[n] in out for n in GOES) and "would delete 3 game(s)" in out
    assert rows(store, library["old_finished"])["games"] == 1

    monkeypatch.setenv("WARFIELD_RETENTION_DAYS", "30")
    assert cli.main(["prune"]) == 0
    assert "deleted 3 game(s)" in capsys.readouterr().out
    remaining = {name for name, gid in library.items() if rows(store, gid)["games"]}
    assert remaining == set(library) - GOES


def test_the_server_prunes_expired_games_when_retention_is_set(
    store: EventStore, library: dict[str, str], database_url: str, tmp_path: Any
) -> None:
    """With WARFIELD_RETENTION_DAYS the server deletes expired games itself (at start, then
    every WARFIELD_PRUNE_INTERVAL_S); the recent and active games stay."""
    import time

    from fastapi.testclient import TestClient

    from server.api.app import create_app
    from server.config import Settings

    settings = Settings(DATABASE_URL=database_url, WARFIELD_DATA_DIR=str(tmp_path),
                        WARFIELD_RETENTION_DAYS=30, WARFIELD_PRUNE_INTERVAL_S=0.2)
    with TestClient(create_app(settings)) as client:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and any(
            rows(store, library[n])["games"] for n in GOES
        ):
            time.sleep(0.05)
        assert all(rows(store, library[n]) == {"games": 0, "events": 0, "seats": 0, "actions": 0}
                   for n in GOES)
        for name in set(library) - GOES:
            assert client.get(f"/api/games/{library[name]}").status_code == 200
