"""REST: create and join games, read a game as a viewer may see it, read its events.

A spectator (no token) of a game with a spectator delay reads the game as it was `delay`
seconds ago: the state and events up to its horizon (server/games/delay.py), never newer.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Query
from pydantic import BaseModel, ConfigDict, Field

from server.api.deps import GameId, ServiceDep, ViewerDep
from server.api.errors import error_responses
from server.api.messages import MAX_SEQ, ActionIn
from server.api.routes.replay import ReplaysDep, state_at_seq
from server.games import delay
from server.games.delay import MAX_DELAY_S
from server.rules.core import Battlefield

router = APIRouter(prefix="/api/games", tags=["games"])
__all__ = ["MAX_SEQ", "ActionIn", "GameId", "router"]


class BattlefieldIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    width: float = Field(gt=0, le=240, allow_inf_nan=False)
    depth: float = Field(gt=0, le=240, allow_inf_nan=False)


class GameCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    system: Literal["t9a", "whfb8", "wh40k10"]
    name: str | None = Field(default=None, max_length=200)
    battlefield: BattlefieldIn | None = None
    spectator_delay_s: int = Field(
        default=0,
        ge=0,
        le=MAX_DELAY_S,
        description="Seconds spectators are kept behind the players (0..3600; 0: live). "
        "Players are unaffected.",
    )
    pregame: Literal["roll_offs", "fixed"] = Field(
        default="fixed",
        description="How the first deployment and the first turn are decided: \"roll_offs\" "
        "as the game system says (the lobby's choice), or \"fixed\": player 1 deploys first "
        "and takes the first turn.",
    )


class GameCreated(BaseModel):
    id: str
    system: str
    seat: int
    token: str
    dice_commitment: str
    invite: str = Field(
        description="The secret that claims seat 2 (`POST /api/games/{id}/seats`); shown "
        "only here, stored hashed. Give it to the opponent, never to spectators."
    )


class SeatClaim(BaseModel):
    model_config = ConfigDict(extra="forbid")
    invite: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="The invite secret the game's creator was given (games made before "
        "invites existed need none)",
    )


class SeatClaimed(BaseModel):
    seat: int
    token: str


class GameView(BaseModel):
    id: str
    system: str
    seq: int
    state: dict[str, Any]
    spectator_delay_s: int = Field(
        default=0, description="Seconds spectators are kept behind (0: live)"
    )


class WireEvent(BaseModel):
    seq: int
    type: str
    actor: int | str
    payload: dict[str, Any]


class EventList(BaseModel):
    events: list[WireEvent]


class Ack(BaseModel):
    seq: int


@router.post("", status_code=201, response_model=GameCreated, responses=error_responses(400))
async def create_game(body: GameCreate, service: ServiceDep) -> GameCreated:
    """Create a game; the caller holds seat 1 with the returned token (keep it secret) and
    gets the game's `invite`, the secret that claims seat 2 (send it to the opponent only)."""
    battlefield = (
        Battlefield(body.battlefield.width, body.battlefield.depth) if body.battlefield else None
    )
    created = await service.create_game(
        body.system, body.name or "", battlefield, body.spectator_delay_s, body.pregame
    )
    return GameCreated(
        id=created.id,
        system=created.system,
        seat=created.seat,
        token=created.token,
        dice_commitment=created.dice_commitment,
        invite=created.invite,
    )


@router.post(
    "/{game_id}/seats",
    status_code=201,
    response_model=SeatClaimed,
    responses=error_responses(400, 403, 404, 409),
)
async def claim_seat(
    game_id: GameId, service: ServiceDep, body: Annotated[SeatClaim | None, Body()] = None
) -> SeatClaimed:
    """Take the free seat (seat 2) with the game's invite secret (`{"invite": "..."}`);
    403 without it or with a wrong one, 409 when both seats are taken."""
    seat, token = await service.claim_seat(game_id, body.invite if body else None)
    return SeatClaimed(seat=seat, token=token)


@router.get("/{game_id}", response_model=GameView, responses=error_responses(400, 401, 404))
async def read_game(
    game_id: GameId, service: ServiceDep, viewer: ViewerDep, cache: ReplaysDep
) -> GameView:
    """The game as this viewer may see it (a seat's token shows that seat's secrets); a
    spectator of a delayed game sees it as it was `spectator_delay_s` ago."""
    live = await service.live(game_id)
    delay_s = delay.delay_of(live)
    if viewer is None and delay_s > 0:
        seq = await delay.horizon(service, live)
        state = await state_at_seq(service, cache, live, seq)
        return GameView(
            id=game_id, system=live.state.system, seq=seq,
            state=state.to_json(None), spectator_delay_s=delay_s,
        )
    return GameView(**await service.view(game_id, viewer), spectator_delay_s=delay_s)


@router.get("/{game_id}/events", response_model=EventList, responses=error_responses(400, 401, 404))
async def read_events(
    game_id: GameId,
    service: ServiceDep,
    viewer: ViewerDep,
    since: Annotated[int, Query(ge=0, le=MAX_SEQ)] = 0,
) -> EventList:
    """The game's events after `since`, as this viewer may see them (a spectator of a
    delayed game: only those committed `spectator_delay_s` ago)."""
    until = None
    if viewer is None:
        live = await service.live(game_id)
        if delay.delay_of(live) > 0:
            until = await delay.horizon(service, live)
            if since >= until:
                return EventList(events=[])
    events = await service.events_since(game_id, since, viewer, until)
    return EventList(events=[WireEvent(**e) for e in events])


@router.post(
    "/{game_id}/actions",
    response_model=Ack,
    responses=error_responses(400, 401, 403, 404, 409, 422),
)
async def post_action(
    game_id: GameId, body: ActionIn, service: ServiceDep, viewer: ViewerDep
) -> Ack:
    """Act as a seat (the same actions as the websocket's `action` message)."""
    seq = await service.act(game_id, viewer, body.action, body.ref, body.expected_seq)
    return Ack(seq=seq)
