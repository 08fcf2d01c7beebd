"""Asking without acting, over REST and the websocket: preview, measure, line of sight.

They change nothing and are open to spectators too. A spectator of a game with a spectator
delay is answered on the table it may see (the game at its delayed horizon: REST's horizon,
the websocket's last seq sent), and is refused previews and ambush options (`forbidden`): they
are for acting, and would answer from the table as it is now.
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
from server.api.routes.replay import ReplayCache, ReplaysDep, state_at_seq
from server.api.ws import Connection, register_question
from server.games import delay
from server.games.service import GameService
from server.rules import questions
from server.rules.core import FORBIDDEN, GameState, RuleError

router = APIRouter(prefix="/api/games", tags=["questions"])


async def not_delayed_spectator(service: GameService, game_id: str, viewer: int | None) -> None:
    """`forbidden` for a spectator of a game with a spectator delay (the answers would show
    the table as it is now)."""
    if viewer is None and delay.delay_of(await service.live(game_id)) > 0:
        raise RuleError(
            FORBIDDEN,
            "this game keeps spectators behind the players; previews and ambush options are "
            "for its players",
        )


async def delayed_state(
    service: GameService, cache: ReplayCache, game_id: str, viewer: int | None
) -> GameState | None:
    """The table a spectator of a delayed game may see (at its horizon); None otherwise."""
    if viewer is not None:
        return None
    live = await service.live(game_id)
    if delay.delay_of(live) <= 0:
        return None
    return await state_at_seq(service, cache, live, await delay.horizon(service, live))


@router.post("/{game_id}/preview", responses=error_responses(400, 401, 403, 404))
async def preview(game_id: GameId, body: PreviewIn, service: ServiceDep,
                  viewer: ViewerDep) -> dict[str, Any]:
    """Would this action be legal now (as this seat)? Rule, obstacle, distance, swept area."""
    await not_delayed_spectator(service, game_id, viewer)
    return await service.preview(game_id, viewer, body.action)


@router.post("/{game_id}/measure", responses=error_responses(400, 401, 404))
async def measure(game_id: GameId, body: MeasureIn, service: ServiceDep,
                  viewer: ViewerDep, cache: ReplaysDep) -> dict[str, Any]:
    """Closest-point distance between units, tokens or points, in inches."""
    state = await delayed_state(service, cache, game_id, viewer)
    if state is not None:
        return questions.measure(state, point_of(body.from_), point_of(body.to))
    return await service.measure(game_id, point_of(body.from_), point_of(body.to))


@router.post("/{game_id}/line-of-sight", responses=error_responses(400, 401, 404))
async def line_of_sight(game_id: GameId, body: LineOfSightIn, service: ServiceDep,
                        viewer: ViewerDep, cache: ReplaysDep) -> dict[str, Any]:
    """Whether one unit sees another: fraction, cover, blockers, sight lines."""
    state = await delayed_state(service, cache, game_id, viewer)
    if state is not None:
        return questions.line_of_sight(state, body.viewer, body.target)
    return await service.line_of_sight(game_id, body.viewer, body.target)


@router.post("/{game_id}/ambush-options",
             responses=error_responses(400, 401, 403, 404, 409, 422))
async def ambush_options(game_id: GameId, body: AmbushOptionsIn,
                         service: ServiceDep, viewer: ViewerDep) -> dict[str, Any]:
    """t9a Ambush: the 6 in zone around an edge point, whether the requested placement is
    valid, and the nearest valid placement (for snapping)."""
    await not_delayed_spectator(service, game_id, viewer)
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
    if conn.delay_s > 0:
        await not_delayed_spectator(conn.service, conn.game_id, conn.viewer)
    result = await conn.service.preview(conn.game_id, conn.viewer, msg.action)
    return {"type": "preview_result", **result}


@register_question("measure")
async def _ws_measure(conn: Connection, msg: MeasureMessage) -> dict[str, Any]:
    state = await conn.delayed_state()
    if state is not None:
        result = questions.measure(state, point_of(msg.from_), point_of(msg.to))
    else:
        result = await conn.service.measure(conn.game_id, point_of(msg.from_), point_of(msg.to))
    return {"type": "measure_result", **result}


@register_question("line_of_sight")
async def _ws_line_of_sight(conn: Connection, msg: LineOfSightMessage) -> dict[str, Any]:
    state = await conn.delayed_state()
    if state is not None:
        result = questions.line_of_sight(state, msg.viewer, msg.target)
    else:
        result = await conn.service.line_of_sight(conn.game_id, msg.viewer, msg.target)
    return {"type": "line_of_sight_result", **result}


@register_question("ambush_options")
async def _ws_ambush_options(conn: Connection, msg: AmbushOptionsMessage) -> dict[str, Any]:
    if conn.delay_s > 0:
        await not_delayed_spectator(conn.service, conn.game_id, conn.viewer)
    result = await conn.service.ambush_options(
        conn.game_id,
        msg.unit,
        msg.point.model_dump(),
        None if msg.placement is None else msg.placement.model_dump(),
    )
    return {"type": "ambush_options_result", **result}
