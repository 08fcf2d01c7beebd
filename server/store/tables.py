"""The database schema (SQLAlchemy Core). Alembic's migrations in `migrations/` create it."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

games = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("system", sa.String(16), nullable=False),
    sa.Column("name", sa.String(200), nullable=False),
    # The dice seed is the game's secret until the game ends; only its SHA-256 is published.
    sa.Column("dice_seed", sa.String(64), nullable=False),
    sa.Column("dice_commitment", sa.String(64), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    # SHA-256 of the invite secret that claims seat 2 (migration 0002); NULL for games made
    # before it, whose seat 2 anyone may claim (see the migration's docstring).
    sa.Column("invite_hash", sa.String(64), nullable=True),
    # Seconds spectators are kept behind the game (migration 0003; 0: none).
    sa.Column("spectator_delay_s", sa.Integer, nullable=False, server_default="0"),
)

seats = sa.Table(
    "seats",
    metadata,
    sa.Column(
        "game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("seat", sa.SmallInteger, primary_key=True),
    # SHA-256 of the seat token; the token itself is never stored.
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

events = sa.Table(
    "events",
    metadata,
    sa.Column(
        "id",
        sa.BigInteger().with_variant(sa.Integer, "sqlite"),
        primary_key=True,
        autoincrement=True,
    ),
    sa.Column(
        "game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("type", sa.String(64), nullable=False),
    sa.Column("actor", sa.String(16), nullable=False),
    sa.Column("visibility", sa.String(16), nullable=False),
    sa.Column("payload", sa.JSON, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("game_id", "seq", name="uq_events_game_seq"),
)

# One row per acknowledged action, so a retried `ref` is applied once (exactly-once delivery).
actions = sa.Table(
    "actions",
    metadata,
    sa.Column(
        "game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("seat", sa.SmallInteger, primary_key=True),
    sa.Column("ref", sa.String(64), primary_key=True),
    sa.Column("digest", sa.String(64), nullable=False),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)
