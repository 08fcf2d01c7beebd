"""Typed dependencies shared by the routers (FastAPI template style)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from server.config import Settings
from server.games.service import GameService
from server.rules.core import UNAUTHORIZED, RuleError


def get_service(request: Request) -> GameService:
    service: GameService = request.app.state.service
    return service


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def well_formed(text: str) -> bool:
    """Whether `text` is real Unicode text: JSON lets a client send a lone surrogate
    (`"\\ud800"`), which no database column can store (UTF-8 cannot encode it)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def bearer_token(authorization: Annotated[str | None, Header()] = None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, if any."""
    if authorization is None:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise RuleError(UNAUTHORIZED, "Authorization must be 'Bearer <seat token>'")
    return token.strip()


ServiceDep = Annotated[GameService, Depends(get_service)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
TokenDep = Annotated[str | None, Depends(bearer_token)]
