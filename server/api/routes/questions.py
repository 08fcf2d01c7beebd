"""Asking without acting, over REST and the websocket: preview, measure, line of sight.

They change nothing and are open to spectators too.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from server.api.deps import ServiceDep, ViewerDep
from server.api.errors import error_responses
from server.api.messages import (
    AmbushOptionsIn,
    AmbushOptionsMessage,
    LineOfSightIn,
    LineOfSightMessage,
    MeasureIn,
    MeasureMessage,
    PreviewIn,
    PreviewMessage,
    point_of,
)
from server.api.routes.games import GameId
from server.api.ws import Connection, register_question

router = APIRouter(prefix="/api/games", tags=["questions"])


@router.post("/{game_id}/preview", responses=error_responses(400, 401, 404))
async def preview(game_id: GameId, body: PreviewIn, service: ServiceDep,
                  viewer: ViewerDep) -> dict[str, Any]:
    """Would this action be legal now (as this seat)? Rule, obstacle, distance, swept area."""
    return await service.preview(game_id, viewer, body.action)


@router.post("/{game_id}/measure", responses=error_responses(400, 404))
async def measure(game_id: GameId, body: MeasureIn, service: ServiceDep) -> dict[str, Any]:
    """Closest-point distance between units, tokens or points, in inches."""
    return await service.measure(game_id, point_of(body.from_), point_of(body.to))


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
    return await service.ambush_options(
        game_id,
        body.unit,
        body.point.model_dump(),
        None if body.placement is None else body.placement.model_dump(),
    )


# The same questions over the websocket: each message is its REST body plus `type` and `ref`
# (server/api/messages.py), validated before it gets here.


@register_question("preview")
async def _ws_preview(conn: Connection, msg: PreviewMessage) -> dict[str, Any]:
    result = await conn.service.preview(conn.game_id, conn.viewer, msg.action)
    return {"type": "preview_result", **result}


@register_question("measure")
async def _ws_measure(conn: Connection, msg: MeasureMessage) -> dict[str, Any]:
    result = await conn.service.measure(conn.game_id, point_of(msg.from_), point_of(msg.to))
    return {"type": "measure_result", **result}


@register_question("line_of_sight")
async def _ws_line_of_sight(conn: Connection, msg: LineOfSightMessage) -> dict[str, Any]:
    result = await conn.service.line_of_sight(conn.game_id, msg.viewer, msg.target)
    return {"type": "line_of_sight_result", **result}


@register_question("ambush_options")
async def _ws_ambush_options(conn: Connection, msg: AmbushOptionsMessage) -> dict[str, Any]:
    result = await conn.service.ambush_options(
        conn.game_id,
        msg.unit,
        msg.point.model_dump(),
        None if msg.placement is None else msg.placement.model_dump(),
    )
    return {"type": "ambush_options_result", **result}
