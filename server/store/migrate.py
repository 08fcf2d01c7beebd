"""Run Alembic's migrations programmatically (at `warfield serve` start and `warfield migrate`)."""

from __future__ import annotations

import os
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Engine


def migrations_dir() -> Path:
    """`migrations/` beside the source tree, or WARFIELD_MIGRATIONS, or ./migrations."""
    override = os.environ.get("WARFIELD_MIGRATIONS")
    candidates = [Path(override)] if override else []
    candidates += [Path(__file__).resolve().parents[2] / "migrations", Path.cwd() / "migrations"]
    for path in candidates:
        if (path / "env.py").exists():
            return path
    raise FileNotFoundError(
        "Alembic migrations not found; set WARFIELD_MIGRATIONS to the migrations/ folder"
    )


def upgrade(engine: Engine) -> None:
    """Bring the database behind `engine` to the newest schema."""
    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            # Several `warfield serve` processes may start at once: one migrates, others wait.
            conn.exec_driver_sql("SELECT pg_advisory_xact_lock(726972)")
        config.attributes["connection"] = conn
        command.upgrade(config, "head")
