"""REST: a game's battle report (Markdown or HTML) and its dice luck.

The report is built by server/games/report.py from the game's replay (server/games/replay.py)
as the viewer may see it; like a replay, a finished game's report is anyone's, a running
game's only its players'.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel

from server.api.deps import ServiceDep, TokenDep
from server.api.errors import error_responses
from server.api.routes.replay import GameId, ReplaysDep, replay_for
from server.games import archive
from server.games import report as reports
from server.games.service import GameService, LiveGame

router = APIRouter(prefix="/api/games", tags=["report"])


async def _report(
    service: GameService, live: LiveGame, replay: Any, viewer: int | None
) -> reports.Report:
    proof = archive.dice_proof(
        live.record.dice_commitment, live.record.dice_seed, replay.events, viewer
    )
    return await asyncio.to_thread(reports.build_report, live.record.id, replay, viewer, proof)


@router.get(
    "/{game_id}/report",
    response_class=Response,
    responses={
        **error_responses(400, 401, 403, 404),
        200: {"content": {"text/markdown": {"schema": {"type": "string"}},
                          "text/html": {"schema": {"type": "string"}}},
              "description": "The battle report"},
    },
)
async def battle_report(
    game_id: GameId,
    service: ServiceDep,
    token: TokenDep,
    cache: ReplaysDep,
    format: Annotated[Literal["markdown", "html"], Query()] = "markdown",  # noqa: A002
) -> Response:
    """The battle report: armies, terrain, each turn in words with a picture of the table at
    its end (SVG), the result and each player's dice luck beside the dice proof."""
    viewer, live, replay = await replay_for(service, cache, game_id, token)
    report = await _report(service, live, replay, viewer)
    if format == "html":
        return HTMLResponse(reports.to_html(report))
    return Response(reports.to_markdown(report), media_type="text/markdown; charset=utf-8")


class LuckRowOut(BaseModel):
    category: str
    label: str
    trials: int
    successes: int
    expected: float
    spread: float
    deviation: float
    events: int


class Luck(BaseModel):
    id: str
    seq: int
    players: dict[str, list[LuckRowOut]]
    charts: dict[str, str]
    proof: dict[str, Any]


@router.get("/{game_id}/luck", response_model=Luck, responses=error_responses(400, 401, 403, 404))
async def dice_luck(
    game_id: GameId, service: ServiceDep, token: TokenDep, cache: ReplaysDep
) -> Luck:
    """Each player's to-hit, to-wound, save and charge rolls against the odds each needed
    (successes, expected, one standard deviation), with the SVG chart and the dice proof."""
    viewer, live, replay = await replay_for(service, cache, game_id, token)
    rows = await asyncio.to_thread(reports.dice_luck, replay.events, replay.state, viewer)
    proof = archive.dice_proof(
        live.record.dice_commitment, live.record.dice_seed, replay.events, viewer
    )
    return Luck(
        id=game_id,
        seq=replay.seq,
        players={str(s): [LuckRowOut(**r.to_json()) for r in rs] for s, rs in rows.items()},
        charts={str(s): reports.luck_svg(s, rs, compact=True) for s, rs in rows.items()},
        proof=proof,
    )
