"""Asking without acting, over REST and the websocket: preview, measure, line of sight.

They change nothing and are open to spectators too.
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationError

from server.api.deps import ServiceDep, TokenDep
from server.api.errors import error_responses
from server.api.routes.games import GameId
from server.api.ws import Connection, register_question
from server.rules.core import BAD_REQUEST, RuleError
from server.rules.units import Coord, Facing

router = APIRouter(prefix="/api/games", tags=["questions"])

Ref = Annotated[str, Field(min_length=1, max_length=64)]
"""A unit or token id."""


class PointIn(BaseModel):
    """A point on the table, in inches: finite, and at most the margin (12 in) off the largest
    table (each game refuses one more than 12 in off its own table with `bad_request`)."""

    model_config = ConfigDict(extra="forbid")
    x: Coord
    y: Coord


class PlacementIn(PointIn):
    """A unit's front-edge centre and its facing (degrees, normalised to 0..360)."""

    facing: Facing = 0.0


def _ref_or_point(value: Any) -> str:
    return "id" if isinstance(value, str) else "point"


RefOrPoint = Annotated[
    Annotated[Ref, Tag("id")] | Annotated[PointIn, Tag("point")], Discriminator(_ref_or_point)
]


class PreviewIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: dict[str, Any]


class MeasureIn(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    from_: RefOrPoint = Field(alias="from")
    to: RefOrPoint


class LineOfSightIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    viewer: Ref
    target: Ref


class AmbushOptionsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    unit: Ref
    point: PointIn
    placement: PlacementIn | None = None


M = TypeVar("M", bound=BaseModel)


def _ws_body(model: type[M], data: dict[str, Any], *fields: str) -> M:
    """A websocket question's fields validated by the same model as the REST body, so both
    refuse the same inputs with `bad_request`."""
    try:
        return model.model_validate({f: data[f] for f in fields if f in data})
    except ValidationError as exc:
        errors = [
            {"field": ".".join(str(p) for p in e["loc"]), "message": e["msg"]}
            for e in exc.errors()
        ]
        raise RuleError(
            BAD_REQUEST,
            f"{errors[0]['field'] or 'message'}: {errors[0]['message']}",
            field=errors[0]["field"],
            errors=errors,
        ) from None


def _point(p: PointIn | str) -> dict[str, float] | str:
    return p if isinstance(p, str) else p.model_dump()


@router.post("/{game_id}/preview", responses=error_responses(400, 401, 404))
async def preview(game_id: GameId, body: PreviewIn, service: ServiceDep,
                  token: TokenDep) -> dict[str, Any]:
    """Would this action be legal now (as this seat)? Rule, obstacle, distance, swept area."""
    viewer = await service.authenticate(game_id, token)
    return await service.preview(game_id, viewer, body.action)


@router.post("/{game_id}/measure", responses=error_responses(400, 404))
async def measure(game_id: GameId, body: MeasureIn, service: ServiceDep) -> dict[str, Any]:
    """Closest-point distance between units, tokens or points, in inches."""
    return await service.measure(game_id, _point(body.from_), _point(body.to))


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


@register_question("preview")
async def _ws_preview(conn: Connection, data: dict[str, Any]) -> dict[str, Any]:
    result = await conn.service.preview(conn.game_id, conn.viewer, data.get("action"))
    return {"type": "preview_result", **result}


@register_question("measure")
async def _ws_measure(conn: Connection, data: dict[str, Any]) -> dict[str, Any]:
    body = _ws_body(MeasureIn, data, "from", "to")
    result = await conn.service.measure(conn.game_id, _point(body.from_), _point(body.to))
    return {"type": "measure_result", **result}


@register_question("line_of_sight")
async def _ws_line_of_sight(conn: Connection, data: dict[str, Any]) -> dict[str, Any]:
    body = _ws_body(LineOfSightIn, data, "viewer", "target")
    result = await conn.service.line_of_sight(conn.game_id, body.viewer, body.target)
    return {"type": "line_of_sight_result", **result}


@register_question("ambush_options")
async def _ws_ambush_options(conn: Connection, data: dict[str, Any]) -> dict[str, Any]:
    body = _ws_body(AmbushOptionsIn, data, "unit", "point", "placement")
    result = await conn.service.ambush_options(
        conn.game_id,
        body.unit,
        body.point.model_dump(),
        None if body.placement is None else body.placement.model_dump(),
    )
    return {"type": "ambush_options_result", **result}
