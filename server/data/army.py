"""Army list validation: is this list of units one the datasheets allow?

An entry is ``{"datasheet": id, "models": n, "files"?: f, "joined_characters"?: [id, ...],
"concealed"?: {id: count}, "standard"?: bool, "battle_standard"?: bool}`` (``standard``: a
Standard Bearer in the unit's command group, t9a and whfb8; ``battle_standard``: whfb8, the
army's one Battle Standard Bearer, the unit's character). ``joined_characters`` are characters
deployed as part of this entry (t9a/whfb8 characters joined to the unit, a 40k Leader attached
to its Bodyguard); they are not listed again as entries of their own. ``concealed`` holds hidden
models such as Night Goblin Fanatics (seed 003).

:func:`validate_army` returns every problem as an :class:`ArmyError` with a stable ``code``, the
entry index and a human message; an empty list means the army is valid.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from server.data.catalog import Catalog, UnknownDatasheet, load_catalog
from server.data.schema import Datasheet
from server.data.systems import system_data

# Stable error codes (the client and API may switch on these).
BAD_ENTRY = "bad_entry"
UNKNOWN_DATASHEET = "unknown_datasheet"
MODEL_COUNT = "model_count"
FILES_OUT_OF_RANGE = "files_out_of_range"
FILES_NOT_APPLICABLE = "files_not_applicable"
NOT_A_CHARACTER = "not_a_character"
HOST_IS_CHARACTER = "host_is_character"
LEADER_CANNOT_LEAD = "leader_cannot_lead"
TOO_MANY_LEADERS = "too_many_leaders"
SUPERNAL_JOIN = "supernal_join"
SKIRMISH_HEIGHT = "skirmish_height"
ENTOMBED_JOIN = "entombed_join"
SKIRMISH_TROOP_TYPE = "skirmish_troop_type"
CANNOT_CONCEAL = "cannot_conceal"
TOO_MANY_CONCEALED = "too_many_concealed"
NO_STANDARD = "no_standard"
NO_BATTLE_STANDARD = "no_battle_standard"
WRONG_FACTION = "wrong_faction"
UNKNOWN_GAME_SIZE = "unknown_game_size"
OVER_POINTS = "over_points"
ARMY_WIDE = frozenset({OVER_POINTS, UNKNOWN_GAME_SIZE})
"""Codes about the whole army, not one entry (a refusal names no entry for them)."""


class ArmyError(BaseModel):
    """One problem with an army list: ``entry`` is the index of the offending entry."""

    model_config = ConfigDict(frozen=True)

    code: str
    entry: int
    message: str
    rule: str | None = None
    """The army rule that refuses it, as players name it (issue 18 item 1)."""
    details: dict[str, Any] = Field(default_factory=dict)


class ArmyEntry(BaseModel):
    """One unit of an army list as a player submits it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    datasheet: str
    models: int
    files: int | None = None
    joined_characters: list[str] = Field(default_factory=list)
    concealed: dict[str, int] = Field(default_factory=dict)
    standard: bool = False  # a Standard Bearer in the unit's command group (t9a, whfb8)
    # whfb8: the army's Battle Standard Bearer is this unit's character (itself a character,
    # or its first joined character); one per army.
    battle_standard: bool = False

    @field_validator("joined_characters", mode="before")
    @classmethod
    def _ids(cls, value: Any) -> Any:
        """Accept ``["id", ...]`` or ``[{"datasheet": "id"}, ...]``."""
        if isinstance(value, list):
            return [
                v["datasheet"] if isinstance(v, Mapping) and "datasheet" in v else v for v in value
            ]
        return value


def validate_army(
    system: str,
    entries: Iterable[Mapping[str, Any] | ArmyEntry],
    catalog: Catalog | None = None,
    *,
    faction: str | None = None,
    game_size: str | None = None,
) -> list[ArmyError]:
    """Every problem with ``entries`` for ``system``; ``[]`` when the army is valid.

    The army is of one faction (``faction``, else its first catalogue unit's) unless the
    system allows allies; with ``game_size`` (one of the system's ``game_sizes``) its points
    must fit the size's limit. Raises :class:`~server.data.catalog.UnknownSystem` for a system
    that does not exist.
    """
    catalog = catalog or load_catalog()
    catalog.datasheets(system)  # raises UnknownSystem early
    entries = list(entries)
    errors: list[ArmyError] = []
    bearers = 0
    for index, raw in enumerate(entries):
        errors.extend(_check_entry(catalog, system, index, raw))
        flag = raw.battle_standard if isinstance(raw, ArmyEntry) else raw.get("battle_standard")
        if flag:
            bearers += 1
            if bearers == 2:
                errors.append(
                    ArmyError(
                        code=NO_BATTLE_STANDARD,
                        entry=index,
                        message="an army has one Battle Standard Bearer",
                    )
                )
    parsed = [_parsed(raw) for raw in entries]
    errors.extend(_check_faction(catalog, system, parsed, faction))
    errors.extend(_check_points(catalog, system, parsed, game_size))
    return errors


def _parsed(raw: Mapping[str, Any] | ArmyEntry) -> ArmyEntry | None:
    if isinstance(raw, ArmyEntry):
        return raw
    try:
        return ArmyEntry.model_validate(raw)
    except ValidationError:
        return None  # reported by _check_entry


def _sheet(catalog: Catalog, system: str, datasheet: str) -> Datasheet | None:
    try:
        return catalog.get(system, datasheet)
    except UnknownDatasheet:
        return None  # reported by _check_entry


def entry_sheets(catalog: Catalog, system: str, entry: ArmyEntry) -> list[tuple[Datasheet, int]]:
    """The entry's datasheets with their model counts: the unit, its joined characters (one
    model each) and the hidden models it may conceal (unknown ids left out)."""
    found: list[tuple[Datasheet, int]] = []
    unit = _sheet(catalog, system, entry.datasheet)
    may_hide = {hidden.datasheet for hidden in unit.conceals} if unit else set()
    for datasheet, models in (
        (entry.datasheet, entry.models),
        *((c, 1) for c in entry.joined_characters),
        *((h, n) for h, n in entry.concealed.items() if h in may_hide),
    ):
        sheet = _sheet(catalog, system, datasheet)
        if sheet is not None and models > 0:
            found.append((sheet, models))
    return found


def army_points(
    system: str, entries: Iterable[Mapping[str, Any] | ArmyEntry], catalog: Catalog | None = None
) -> int:
    """What the army costs: every entry's unit, joined characters and hidden models (a
    datasheet without points costs 0)."""
    catalog = catalog or load_catalog()
    total = 0
    for entry in (_parsed(raw) for raw in entries):
        if entry is None:
            continue
        for sheet, models in entry_sheets(catalog, system, entry):
            total += sheet.points.cost(models) if sheet.points else 0
    return total


def _check_faction(
    catalog: Catalog, system: str, entries: list[ArmyEntry | None], faction: str | None
) -> list[ArmyError]:
    """One faction per army (its army book / codex), unless the system allows allies. Units
    of your own belong to the army they are brought with; one based on a catalogue datasheet
    (a roster's upgrades, server/data/own.py) is of that datasheet's faction."""
    rules = system_data(system)
    if rules.allies:
        return []
    errors = []
    for index, entry in enumerate(entries):
        if entry is None:
            continue
        for sheet, _ in entry_sheets(catalog, system, entry):
            if (sheet.own and not sheet.based_on) or not sheet.faction:
                continue
            if faction is None:
                faction = sheet.faction
            elif sheet.faction != faction:
                errors.append(
                    ArmyError(
                        code=WRONG_FACTION,
                        entry=index,
                        rule=rules.faction_rule,
                        message=f"{sheet.name} is from {sheet.faction}, and this army is "
                        f"{faction} ({rules.faction_rule}: an army is drawn from one)",
                        details={"datasheet": sheet.id, "faction": sheet.faction,
                                 "army_faction": faction},
                    )
                )
    return errors


def _check_points(
    catalog: Catalog, system: str, entries: list[ArmyEntry | None], game_size: str | None
) -> list[ArmyError]:
    if game_size is None:
        return []
    rules = system_data(system)
    limits = dict(rules.game_sizes)
    if game_size not in limits:
        known = ", ".join(f"{name} ({points:,} points)" for name, points in rules.game_sizes)
        return [
            ArmyError(
                code=UNKNOWN_GAME_SIZE,
                entry=0,
                rule=rules.points_rule,
                message=f"{rules.name} has no game size {game_size!r}; it knows {known}",
                details={"game_size": game_size},
            )
        ]
    total = army_points(system, [e for e in entries if e is not None], catalog)
    limit = limits[game_size]
    if total <= limit:
        return []
    return [
        ArmyError(
            code=OVER_POINTS,
            entry=max(len(entries) - 1, 0),
            rule=rules.points_rule,
            message=f"the army costs {total:,} points, over the {limit:,} of {game_size} "
            f"({rules.points_rule})",
            details={"points": total, "limit": limit, "game_size": game_size},
        )
    ]


def _check_entry(
    catalog: Catalog, system: str, index: int, raw: Mapping[str, Any] | ArmyEntry
) -> list[ArmyError]:
    def error(code: str, message: str, **details: Any) -> ArmyError:
        return ArmyError(code=code, entry=index, message=message, details=details)

    try:
        entry = raw if isinstance(raw, ArmyEntry) else ArmyEntry.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'entry'}: {e['msg']}" for e in exc.errors()
        )
        # A person counts entries from 1; `entry` keeps the list index for machines.
        return [error(BAD_ENTRY, f"entry {index + 1} is malformed: {problems}")]

    try:
        unit = catalog.get(system, entry.datasheet)
    except UnknownDatasheet as exc:
        return [error(UNKNOWN_DATASHEET, str(exc), datasheet=entry.datasheet, known=exc.known)]

    errors: list[ArmyError] = []
    rules = system_data(system)
    count = unit.models
    if not count.min <= entry.models <= count.max:
        errors.append(
            error(
                MODEL_COUNT,
                f"{unit.name} fields {count.min} to {count.max} models, not {entry.models}",
                min=count.min,
                max=count.max,
                models=entry.models,
            )
        )
    if entry.files is not None:
        if not rules.ranked:
            errors.append(
                error(
                    FILES_NOT_APPLICABLE,
                    f"{unit.name}: {system} units are placed model by model and have no files",
                )
            )
        elif not 1 <= entry.files <= max(entry.models, 1):
            errors.append(
                error(
                    FILES_OUT_OF_RANGE,
                    f"{unit.name}: {entry.files} files is not between 1 and {entry.models} "
                    f"(the number of models)",
                    files=entry.files,
                    models=entry.models,
                )
            )

    if entry.standard and (not rules.standards or unit.character):
        errors.append(
            error(
                NO_STANDARD,
                f"{unit.name} cannot take a Standard Bearer"
                + (f" ({system} has no command groups)" if not rules.standards else ""),
                datasheet=unit.id,
            )
        )

    if entry.battle_standard and (
        not rules.battle_standards or not (unit.character or entry.joined_characters)
    ):
        errors.append(
            error(
                NO_BATTLE_STANDARD,
                f"{unit.name} cannot carry the Battle Standard: "
                + (
                    f"{system} armies have no Battle Standard Bearer here"
                    if not rules.battle_standards
                    else "a character carries it (join one to the unit)"
                ),
                datasheet=unit.id,
            )
        )

    characters: list[Datasheet] = []
    for position, char_id in enumerate(entry.joined_characters):
        try:
            character = catalog.get(system, char_id)
        except UnknownDatasheet as exc:
            errors.append(
                error(
                    UNKNOWN_DATASHEET, str(exc), datasheet=char_id, joined=position, known=exc.known
                )
            )
            continue
        if not character.can_join:
            errors.append(
                error(
                    NOT_A_CHARACTER,
                    f"{character.name} cannot join another unit"
                    + (" (it is not a Leader)" if rules.leaders else ""),
                    datasheet=char_id,
                    joined=position,
                )
            )
            continue
        characters.append(character)

    if characters and unit.character:
        errors.append(
            error(
                HOST_IS_CHARACTER,
                f"{unit.name} is a character; characters join units, not other characters",
                datasheet=unit.id,
            )
        )
        return errors

    for character in characters:
        for code, message in join_problems(system, unit, character):
            errors.append(error(code, message, datasheet=character.id, unit=unit.id))
    if rules.leaders and len(characters) > 1:
        errors.append(
            error(
                TOO_MANY_LEADERS,
                f"{unit.name} can be led by one Leader, not {len(characters)}",
                leaders=[c.id for c in characters],
            )
        )

    errors.extend(_check_concealed(catalog, system, unit, entry, error))
    return errors


def join_problems(
    system: str, unit: Datasheet, character: Datasheet
) -> list[tuple[str, str]]:
    """Why `character` may not join `unit` in `system` (code, message); [] when it may
    (the system's own rules: `server.data.<system>`)."""
    return system_data(system).join_problems(unit, character)


def _check_concealed(
    catalog: Catalog, system: str, unit: Datasheet, entry: ArmyEntry, error: Any
) -> list[ArmyError]:
    errors = []
    allowed = {hidden.datasheet: hidden.max for hidden in unit.conceals}
    for hidden_id, number in entry.concealed.items():
        if hidden_id not in allowed:
            errors.append(
                error(
                    CANNOT_CONCEAL,
                    f"{unit.name} cannot conceal {hidden_id!r}"
                    + (f"; it can conceal {', '.join(allowed)}" if allowed else ""),
                    datasheet=hidden_id,
                )
            )
        elif not 0 <= number <= allowed[hidden_id]:
            name = catalog.get(system, hidden_id).name
            errors.append(
                error(
                    TOO_MANY_CONCEALED,
                    f"{unit.name} can conceal 0 to {allowed[hidden_id]} {name}, not {number}",
                    datasheet=hidden_id,
                    max=allowed[hidden_id],
                    count=number,
                )
            )
    return errors
