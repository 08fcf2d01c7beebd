"""REST: the dice proof of a game and, once it is over, its export for players to archive."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel

from server.api.deps import GameId, ServiceDep, ViewerDep
from server.api.errors import error_responses
from server.games import archive, delay
from server.rules.core import CONFLICT, RuleError

router = APIRouter(prefix="/api/games", tags=["dice", "archive"])


class DiceFailure(BaseModel):
    seq: int | None
    roll: int | None
    start: int | None
    reason: str


class DiceProof(BaseModel):
    commitment: str
    revealed: bool
    rolls: int
    seed: str | None = None
    verified: bool | None = None
    failures: list[DiceFailure] | None = None


@router.get(
    "/{game_id}/dice-proof",
    response_model=DiceProof,
    response_model_exclude_none=True,
    responses=error_responses(400, 401, 404),
)
async def dice_proof(game_id: GameId, service: ServiceDep, viewer: ViewerDep) -> dict[str, Any]:
    """The dice commitment and roll count while the game runs; after its end also the seed and
    a verification of every roll in the log (docs/dice.md). A spectator of a delayed game gets
    the proof of the log up to its horizon (the rolls it has seen)."""
    live = await service.live(game_id)
    until = await delay.horizon(service, live) if viewer is None else None
    events = await asyncio.to_thread(service.store.events, game_id, 0, until)
    return archive.dice_proof(
        live.record.dice_commitment, live.record.dice_seed, events, viewer
    )


@router.get("/{game_id}/export", responses=error_responses(400, 401, 404, 409))
async def export_game(game_id: GameId, service: ServiceDep, viewer: ViewerDep) -> dict[str, Any]:
    """The finished game as a `warfield-game/1` file, as this viewer may see it (hidden events
    of the other seat are placeholders). 409 `conflict` while the game runs (for a spectator
    of a delayed game: until its end is older than the delay)."""
    live = await service.live(game_id)
    if not live.state.over:
        raise RuleError(CONFLICT, "the game is not over; it can be exported after its end")
    if viewer is None and await delay.horizon(service, live) < live.state.seq:
        raise RuleError(CONFLICT, "the game's end is still within its spectator delay; "
                        "spectators can export it once the delay has passed")
    events = await asyncio.to_thread(service.store.events, game_id)
    seats = await asyncio.to_thread(service.store.seat_hashes, game_id)
    return archive.export_document(live.record, events, seats, viewer=viewer)
