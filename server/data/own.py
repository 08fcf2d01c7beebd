"""Units of your own (issue 18 item 2): a unit the catalogue lacks, defined by a player.

A player writes the unit as a datasheet without an id, system or sources::

    {"ref": "my-archers", "name": "Sea Guard", "base": {...}, "models": {...},
     "profile": {...the system's characteristics per model and weapon...},
     "special_rules": ["Fearless"],            # from the system's rule list
     "other_rules": [{"name": "Sea Guard Drill", "text": "..."}],   # kept as text
     "points": {"unit": 60, "per_model": 14}}

:func:`own_datasheet` validates it exactly like a catalogue datasheet (pydantic, the system's
rule registry in the context) and raises :class:`OwnUnitError` listing every problem as
``<field path>: <message>``. Special rules from the system's list work as they do on any
datasheet (the automated ones are applied); ``other_rules`` are shown as "not automated" and
never applied. A 40k character of your own names the catalogue units it may lead in ``leads``
(ids of the system's datasheets), and joins them like a catalogue Leader; a t9a / whfb8 one
with ``character: true`` joins units like a catalogue character (server/data/army.py).

A catalogue unit with changes a roster's upgrades made (issue 18 item 3) is a unit of your own
``based_on`` that datasheet: its ``profile`` is the changed one and ``changes`` say what changed
and from which selection. It keeps the catalogue datasheet's faction (so the one-army-book rule
still holds), the units it may lead or be led by and the models it may conceal; a player cannot
write those for it. The datasheet's id is ``own-`` and a hash of its content, so the same unit has
the same id in every game; ``ref`` is how the army's entries name it. A unit of your own is
public like the rest of an army list.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from server.data.catalog import Catalog, _describe
from server.data.schema import Datasheet

OWN_PREFIX = "own-"
MAX_OWN_UNITS = 12
"""Units of your own one army may bring."""
MAX_OWN_UNIT_BYTES = 16 * 1024
"""One unit's definition, as JSON."""
FIELDS = frozenset(
    {
        "ref", "name", "base", "models", "default_files", "profile", "equipment",
        "special_rules", "other_rules", "keywords", "character", "attachable", "points", "notes",
        "leads", "based_on", "changes",
    }
)
"""What a player may write; the rest of a datasheet (id, system, sources, led_by, conceals) is
the catalogue's."""


class OwnUnitError(ValueError):
    """A unit of your own that does not validate; ``problems`` are "field: message" lines."""

    def __init__(self, name: str, problems: list[str]) -> None:
        self.name = name
        self.problems = problems
        super().__init__(f"unit of your own {name!r}: " + "; ".join(problems))


def own_datasheet(system: str, raw: Any, catalog: Catalog) -> Datasheet:
    """The datasheet of a unit of your own, validated like the catalogue's."""
    if not isinstance(raw, Mapping):
        raise OwnUnitError("?", [f"(unit): expected a mapping of fields, got {type(raw).__name__}"])
    label = str(raw.get("name") or raw.get("ref") or "?")[:80]
    problems = [f"{key}: not a field of a unit of your own" for key in raw if key not in FIELDS]
    size = len(json.dumps(raw, default=str))
    if size > MAX_OWN_UNIT_BYTES:
        problems.append(f"(unit): {size} bytes; a unit of your own is at most "
                        f"{MAX_OWN_UNIT_BYTES} bytes")
    if problems:
        raise OwnUnitError(label, problems)
    data = {key: value for key, value in raw.items() if key != "ref"}
    data.update(id=f"{OWN_PREFIX}pending", system=system, own=True, faction=None)
    known = {sheet.id: sheet for sheet in catalog.datasheets(system) if not sheet.own}
    based_on = raw.get("based_on")
    if based_on is not None:
        base = known.get(based_on) if isinstance(based_on, str) else None
        if base is None:
            raise OwnUnitError(label, [f"based_on: {based_on!r} is not a datasheet of {system}"])
        if "leads" in raw:
            raise OwnUnitError(label, ["leads: a unit based on a datasheet leads what it leads"])
        data.update(faction=base.faction, leads=list(base.leads), led_by=list(base.led_by),
                    conceals=[c.model_dump() for c in base.conceals])
    leads = raw.get("leads") or []
    if isinstance(leads, list):
        unknown = [f"leads.{i}: {lead!r} is not a datasheet of {system}"
                   for i, lead in enumerate(leads) if lead not in known]
        if unknown:
            raise OwnUnitError(label, unknown)
    try:
        sheet = Datasheet.model_validate(data, context={"rules": catalog.registries[system]})
    except ValidationError as exc:
        lines = _describe("", exc)
        raise OwnUnitError(label, [line.removeprefix(": ") for line in lines]) from None
    return sheet.model_copy(update={"id": own_id(sheet)})


def own_id(sheet: Datasheet) -> str:
    """``own-`` and a hash of what the unit is (everything but its id)."""
    body = sheet.model_dump(mode="json", exclude={"id"})
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
    return f"{OWN_PREFIX}{digest[:20]}"


def read_own_sheet(system: str, dumped: Mapping[str, Any], catalog: Catalog) -> Datasheet:
    """A unit of your own as the game's log holds it (``model_dump(mode="json")``), validated
    again and checked against its id."""
    sheet = Datasheet.model_validate(dumped, context={"rules": catalog.registries[system]})
    if not sheet.own or sheet.id != own_id(sheet):
        raise ValueError(f"{sheet.id!r} is not a unit of your own as this server writes it")
    return sheet


__all__ = [
    "MAX_OWN_UNITS",
    "OWN_PREFIX",
    "OwnUnitError",
    "own_datasheet",
    "own_id",
    "read_own_sheet",
]
