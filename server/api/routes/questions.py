"""Asking without acting, over REST and the websocket: preview, measure, line of sight.

They change nothing and are open to spectators too.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from server.api.deps import ServiceDep, TokenDep
from server.api.errors import error_responses
from server.api.routes.games import GameId
from server.api.ws import Connection, register_question

router = APIRouter(prefix="/api/games", tags=["questions"])


class PreviewIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: dict[str, Any]


class MeasureIn(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    from_: str | dict[str, float] = Field(alias="from")
    to: str | dict[str, float]


class LineOfSightIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    viewer: str
    target: str


class AmbushOptionsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    unit: str
    point: dict[str, float]
    placement: dict[str, float] | None = None


@router.post("/{game_id}/preview", responses=error_responses(400, 401, 404))
async def preview(game_id: GameId, body: PreviewIn, service: ServiceDep,
                  token: TokenDep) -> dict[str, Any]:
    """Would this action be legal now (as this seat)? Rule, obstacle, distance, swept area."""
    viewer = await service.authenticate(game_id, token)
    return await service.preview(game_id, viewer, body.action)


@router.post("/{game_id}/measure", responses=error_responses(400, 404))
async def measure(game_id: GameId, body: MeasureIn, service: ServiceDep) -> dict[str, Any]:
    """Closest-point distance between units, tokens or points, in inches."""
    return await service.measure(game_id, body.from_, body.to)


@router.post("/{game_id}/line-of-sight", responses=error_responses(400, 404))
async def line_of_sight(game_id: GameId, body: LineOfSightIn,
                        service: ServiceDep) -> dict[str, Any]:
    """Whether one unit sees another: fraction, cover, blockers, sight lines."""
    return await service.line_of_sight(game_id, body.viewer, body.target)


@router.post("/{game_id}/ambush-options", responses=error_responses(400, 404, 409, 422))
async def ambush_options(game_id: GameId, body: AmbushOptionsIn,
                         service: ServiceDep) -> dict[str, Any]:
    """t9a Ambush: the 6 in zone around an edge point, whether the requested placement is
    valid, and the nearest valid placement (for snapping)."""
    return await service.ambush_options(game_id, body.unit, body.point, body.placement)


@register_question("preview")
async def _ws_preview(conn: Connection, data: dict[str, Any]) -> dict[str, Any]:
    result = await conn.service.preview(conn.game_id, conn.viewer, data.get("action"))
    return {"type": "preview_result", **result}


@register_question("measure")
async def _ws_measure(conn: Connection, data: dict[str, Any]) -> dict[str, Any]:
    result = await conn.service.measure(conn.game_id, data.get("from"), data.get("to"))
    return {"type": "measure_result", **result}


@register_question("line_of_sight")
async def _ws_line_of_sight(conn: Connection, data: dict[str, Any]) -> dict[str, Any]:
    result = await conn.service.line_of_sight(conn.game_id, data.get("viewer"),
                                              data.get("target"))
    return {"type": "line_of_sight_result", **result}


@register_question("ambush_options")
async def _ws_ambush_options(conn: Connection, data: dict[str, Any]) -> dict[str, Any]:
    result = await conn.service.ambush_options(
        conn.game_id, data.get("unit"), data.get("point"), data.get("placement")
    )
    return {"type": "ambush_options_result", **result}
