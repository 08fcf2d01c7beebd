"""The spectator delay: `games.spectator_delay_s`, seconds spectators are kept behind.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01

A game created with a delay (`POST /api/games {"spectator_delay_s": 120}`, 0..3600) shows its
spectators (no seat token) only the events committed at least that long ago, on the websocket
and over REST; players are unaffected (server/games/delay.py). The delay is stored with the game
so it survives a restart; the events' own `created_at` times say when each becomes visible.
Games made before this revision have no delay (the column's default, 0).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "games",
        sa.Column("spectator_delay_s", sa.Integer, nullable=False, server_default="0"),
    )


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("spectator_delay_s")
