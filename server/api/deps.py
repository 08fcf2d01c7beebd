"""Typed dependencies shared by the routers (FastAPI template style)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Path, Request

from server.config import Settings
from server.games.service import GameService
from server.rules.core import UNAUTHORIZED, RuleError


def get_service(request: Request) -> GameService:
    service: GameService = request.app.state.service
    return service


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def bearer_token(authorization: Annotated[str | None, Header()] = None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, if any."""
    if authorization is None:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise RuleError(UNAUTHORIZED, "Authorization must be 'Bearer <seat token>'")
    return token.strip()


GameId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
ServiceDep = Annotated[GameService, Depends(get_service)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
TokenDep = Annotated[str | None, Depends(bearer_token)]


async def current_viewer(game_id: GameId, service: ServiceDep, token: TokenDep) -> int | None:
    """Who is asking about game `game_id`: the seat its bearer token holds, or None (a
    spectator, no token). `unauthorized` for a token that holds no seat in this game,
    `not_found` for no such game."""
    return await service.authenticate(game_id, token)


ViewerDep = Annotated[int | None, Depends(current_viewer)]
"""The viewer of the route's game, from `Authorization: Bearer <seat token>` (one place)."""
