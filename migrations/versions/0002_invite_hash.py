"""The invite secret: `games.invite_hash`, the SHA-256 of the secret that claims seat 2.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01

Before this revision anyone who could see a game (its spectator link is the same URL as the
invite, without `#join`) could claim seat 2 first. From now on `POST /api/games` creates an
invite secret with the game, stores only its hash here and hands the secret to the creator
once; `POST /api/games/{id}/seats` refuses without it (`forbidden`).

Games created before this revision have no invite (the column is NULL for them). Their seat 2
stays claimable as before, without a secret: the creator of such a game has already sent the
only invite link they had (`/games/{id}#join`), and a host who upgrades in the middle of an
evening expects that link to still seat the opponent rather than strand a half-set-up game.
The window closes by itself once seat 2 is taken (most running games have both seats), and a
host who wants it closed earlier runs `warfield invite GAME_ID`, which gives the game an
invite secret (the old link then stops working) and prints the new invite link's fragment.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("invite_hash", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("invite_hash")
