"""Migration 0002 (issue 12 item 2) on a database holding games made before it, on SQLite and
PostgreSQL: the games keep working, with no invite (their seat 2 stays claimable)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from server.store import EventStore, make_engine
from server.store.migrate import migrations_dir, upgrade
from tests.conftest import postgres_url, require


@pytest.fixture(params=["sqlite", "postgres"])
def empty_database(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    """A database with no tables at all (a fresh one on PostgreSQL, dropped afterwards)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/old.db"
        return
    base = postgres_url()
    name = f"warfield_mig_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except Exception as exc:  # noqa: BLE001 - any failure to reach the server
        require(False, f"PostgreSQL at {base} is not reachable: {exc}")
    yield sa.make_url(base).set(database=name).render_as_string(hide_password=False)
    with admin.connect() as conn:
        conn.exec_driver_sql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
        )
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
    admin.dispose()


def _migrate_to(engine: sa.Engine, revision: str) -> None:
    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, revision)


def test_games_made_before_invites_survive_migration_0002_without_an_invite(
    empty_database: str,
) -> None:
    engine = make_engine(empty_database)
    _migrate_to(engine, "0001")
    now = datetime.now(UTC)
    with engine.begin() as conn:
        assert "invite_hash" not in {c["name"] for c in sa.inspect(conn).get_columns("games")}
        conn.execute(sa.text(
            "INSERT INTO games (id, system, name, dice_seed, dice_commitment, created_at) "
            "VALUES ('old', 't9a', 'Old game', :seed, :commitment, :now)"),
            {"seed": "01" * 32, "commitment": "ab" * 32, "now": now})
    upgrade(engine)  # what `warfield serve` does at start
    upgrade(engine)  # and again at the next start: nothing to do
    store = EventStore(engine)
    record = store.load_game("old")
    assert record is not None and record.name == "Old game"
    assert record.invite_hash is None  # no invite: seat 2 is claimed as before 0002
    assert [g.id for g in store.list_games()] == ["old"]
    assert store.set_invite_hash("old", "cd" * 32) is True
    assert store.load_game("old").invite_hash == "cd" * 32  # type: ignore[union-attr]
    assert store.set_invite_hash("missing", "cd" * 32) is False
    engine.dispose()


def test_games_made_before_migration_0003_have_no_spectator_delay(empty_database: str) -> None:
    """Issue 20 item 4: `games.spectator_delay_s` arrives with 0 for the games already there."""
    engine = make_engine(empty_database)
    _migrate_to(engine, "0002")
    with engine.begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO games (id, system, name, dice_seed, dice_commitment, created_at) "
            "VALUES ('old', 't9a', 'Old game', :seed, :commitment, :now)"),
            {"seed": "01" * 32, "commitment": "ab" * 32, "now": datetime.now(UTC)})
    upgrade(engine)
    record = EventStore(engine).load_game("old")
    assert record is not None and record.spectator_delay_s == 0
    engine.dispose()
