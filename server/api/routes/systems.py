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
    from server.data.army import join_problems
    from server.data.systems import system_data

    catalog = load_catalog()
    sheets = list(catalog.datasheets(system_id))
    data = system_data(system_id)
    # Which characters may join which unit, as the army rules say (the client's army builder
    # offers exactly these; `submit_army` checks the finer rules again).
    joinable = {
        host.id: [
            c.id
            for c in sheets
            if c.can_join and c.id != host.id and not join_problems(system_id, host, c)
        ]
        for host in sheets
        if not host.character
    }
    marks = rule_marks(system_id)
    return {
        "system": system_id,
        "datasheets": [d.model_dump(mode="json") for d in sheets],
        # automated / partly / not as the code's handlers declare (server/rules/automation.py).
        "rules": [
            {**r.model_dump(mode="json"), **_marks(marks[r.name])}
            for r in catalog.rules(system_id)
        ],
        "army": {
            "ranked": data.ranked,
            "standards": data.standards,
            "leaders": data.leaders,
            # Issue 18: one faction per army unless allies are allowed, the game sizes and the
            # names of the rules that refuse an army (the builder shows them; submit_army
            # checks them).
            "factions": catalog.factions(system_id),
            "faction_rule": data.faction_rule,
            "allies": data.allies,
            "game_sizes": [{"name": n, "points": p} for n, p in data.game_sizes],
            "points_rule": data.points_rule,
            "wound_name": data.wound_name,
        },
        "joinable": joinable,
    }


@router.post("/{system_id}/own-units/check", responses=error_responses(400, 404))
async def check_own_unit(system_id: str, request: Request) -> dict[str, Any]:
    """Validate a unit of your own (server/data/own.py) as `submit_army` will: its datasheet
    (with its id), or `bad_request` listing every problem by field path. Stores nothing."""
    from server.data import load_catalog
    from server.data.json_input import JsonInputError, loads
    from server.data.own import OwnUnitError, own_datasheet

    try:
        find_system(system_id)
    except KeyError:
        raise RuleError(NOT_FOUND, f"no game system {system_id!r}", known=sorted(SYSTEMS)) from None
    try:
        # (the body is read whatever its content type: the depth limit is checked here too)
        raw = loads(await request.body())
    except JsonInputError as exc:
        raise RuleError(BAD_REQUEST, f"a unit of your own is a JSON object: {exc.message}",
                        **exc.details()) from None
    try:
        sheet = own_datasheet(system_id, raw, load_catalog())
    except OwnUnitError as exc:
        raise RuleError(
            BAD_REQUEST, str(exc), problems=exc.problems
        ) from None
    return {"datasheet": sheet.model_dump(mode="json")}


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
