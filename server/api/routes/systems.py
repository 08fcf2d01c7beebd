"""REST: the game systems and their datasheets (units as data)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from server.api.errors import error_responses
from server.rules.automation import rule_marks
from server.rules.core import NOT_FOUND, RuleError
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
