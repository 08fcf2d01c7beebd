"""REST: the game systems and their datasheets (units as data)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from server.api.errors import error_responses
from server.rules.automation import rule_marks
from server.rules.core import BAD_REQUEST, NOT_FOUND, RuleError
from server.rules.systems import SYSTEMS, find_system

router = APIRouter(prefix="/api/systems", tags=["systems"])


@router.get("")
async def list_systems() -> dict[str, Any]:
    """Every game system with its default battlefield and length in turns."""
    return {
        "systems": [
            {
                "id": s.id,
                "name": s.name,
                "battlefield": s.battlefield.to_json(),
                "turns": s.turns,
                "turn_name": s.turn_name,
            }
            for s in SYSTEMS.values()
        ]
    }


def _marks(mark: dict[str, Any]) -> dict[str, Any]:
    return {"automated": mark["automated"], "automation": mark["automation"],
            "notes": mark["notes"]}


@router.get("/{system_id}/datasheets", responses=error_responses(404))
async def list_datasheets(system_id: str) -> dict[str, Any]:
    """The system's datasheets and its special rules (each marked automated or not)."""
    try:
        find_system(system_id)
    except KeyError:
        raise RuleError(NOT_FOUND, f"no game system {system_id!r}", known=sorted(SYSTEMS)) from None
    from server.data import load_catalog

    catalog = load_catalog()
    marks = rule_marks(system_id)
    return {
        "system": system_id,
        "datasheets": [d.model_dump(mode="json") for d in catalog.datasheets(system_id)],
        # automated / partly / not as the code's handlers declare (server/rules/automation.py).
        "rules": [
            {**r.model_dump(mode="json"), **_marks(marks[r.name])}
            for r in catalog.rules(system_id)
        ],
    }


@router.post(
    "/{system_id}/rosters/import",
    responses=error_responses(400, 404, 413),
    openapi_extra={
        "requestBody": {
            "description": "the roster file's bytes as the body (at most the REST body "
            "limit, 256 KiB by default): BattleScribe .ros or .rosz, New Recruit JSON, or a "
            "Warfield army file",
            "required": True,
            "content": {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
                "application/xml": {"schema": {"type": "string"}},
                "application/json": {"schema": {"type": "object"}},
            },
        }
    },
)
async def import_roster(system_id: str, request: Request) -> dict[str, Any]:
    """Read a roster into army entries and a mapping report; submits nothing (the client
    sends `submit_army` with the entries it keeps)."""
    from server.data import load_catalog
    from server.data.rosters import RosterError
    from server.data.rosters import import_roster as read_roster

    try:
        find_system(system_id)
    except KeyError:
        raise RuleError(NOT_FOUND, f"no game system {system_id!r}", known=sorted(SYSTEMS)) from None
    body = await request.body()
    try:
        result = read_roster(system_id, body, load_catalog())
    except RosterError as exc:
        raise RuleError(BAD_REQUEST, f"roster import: {exc}") from None
    return result.to_json(system_id)
