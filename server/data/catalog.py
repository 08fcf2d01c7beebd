"""The catalogue: every datasheet and rules registry, read from the package's YAML files.

Layout: ``server/data/<system>/rules.yaml`` (the system's known special rules) and one
``server/data/<system>/<id>.yaml`` per datasheet. Loading reads package files only (no network,
no database) and validates everything; a bad file raises :class:`CatalogError` naming the file
and the field.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from server.data.schema import SYSTEM_IDS, Datasheet, RuleInfo, RuleRegistry
from server.data.systems import system_data

RULES_FILE = "rules.yaml"
ALIASES_FILE = "aliases.yaml"  # roster names -> datasheet ids (server/data/rosters.py)


class CatalogError(ValueError):
    """One or more data files are invalid. ``problems`` lists "file: field: message" lines."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("invalid datasheet data:\n  " + "\n  ".join(problems))


class UnknownSystem(KeyError):
    """No such game system."""

    def __init__(self, system: str) -> None:
        self.system = system
        super().__init__(system)

    def __str__(self) -> str:
        return f"unknown game system {self.system!r}; known: {', '.join(SYSTEM_IDS)}"


class UnknownDatasheet(KeyError):
    """No datasheet with this id in this system; ``known`` lists the ids that exist."""

    def __init__(self, system: str, datasheet_id: str, known: list[str]) -> None:
        self.system = system
        self.datasheet_id = datasheet_id
        self.known = known
        super().__init__(datasheet_id)

    def __str__(self) -> str:
        return (
            f"unknown datasheet {self.datasheet_id!r} in {self.system}; "
            f"known: {', '.join(self.known)}"
        )


class UnknownRule(KeyError):
    """No special rule of this name in the system's registry."""

    def __init__(self, system: str, name: str) -> None:
        self.system = system
        self.name = name
        super().__init__(name)

    def __str__(self) -> str:
        return f"unknown special rule {self.name!r} in {self.system}"


class SystemInfo(BaseModel):
    """What ``GET /api/systems`` lists."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    datasheets: int
    rules: int


@dataclass(frozen=True)
class Catalog:
    """Datasheets and rules registries of every game system, validated."""

    sheets: Mapping[str, Mapping[str, Datasheet]]
    registries: Mapping[str, Mapping[str, RuleInfo]]
    games_own: bool = True
    """`get` also finds the units of your own the games in this process hold (the rules
    engine's view); False for one army's catalogue (:meth:`with_own`), which knows its own."""

    def systems(self) -> list[SystemInfo]:
        return [
            SystemInfo(
                id=system,
                name=system_data(system).name,
                datasheets=len(self.sheets.get(system, {})),
                rules=len(self.registries.get(system, {})),
            )
            for system in SYSTEM_IDS
            if system in self.registries
        ]

    def _system(self, system: str) -> Mapping[str, Datasheet]:
        if system not in self.registries:
            raise UnknownSystem(system)
        return self.sheets.get(system, {})

    def datasheets(self, system: str) -> list[Datasheet]:
        """The system's datasheets, ordered by id."""
        sheets = self._system(system)
        return [sheets[key] for key in sorted(sheets)]

    def get(self, system: str, datasheet_id: str) -> Datasheet:
        """The datasheet `datasheet_id`: the catalogue's, else a unit of your own some game
        in this process holds (:func:`register_own`)."""
        sheets = self._system(system)
        found = sheets.get(datasheet_id)
        if found is None and self.games_own:
            found = _OWN.get((system, datasheet_id))
        if found is None:
            raise UnknownDatasheet(system, datasheet_id, sorted(sheets))
        return found

    def factions(self, system: str) -> list[str]:
        """The factions (army books, codexes) of the system's datasheets, sorted."""
        return sorted({s.faction for s in self._system(system).values() if s.faction})

    def with_own(self, system: str, own: Iterable[Datasheet]) -> Catalog:
        """This catalogue plus one army's units of your own, and no other game's (for
        validating that army: it may name only the catalogue's units and its own)."""
        sheets = {**self.sheets, system: {**self._system(system), **{s.id: s for s in own}}}
        return Catalog(sheets=sheets, registries=self.registries, games_own=False)

    def rules(self, system: str) -> list[RuleInfo]:
        """The system's rules registry, in file order (``automated`` per rule)."""
        self._system(system)
        return list(self.registries[system].values())

    def rule(self, system: str, name: str) -> RuleInfo:
        self._system(system)
        try:
            return self.registries[system][name]
        except KeyError:
            raise UnknownRule(system, name) from None

    def not_automated(self, system: str, datasheet_id: str) -> list[str]:
        """Printed forms of the datasheet's rules the engine does not apply yet."""
        sheet = self.get(system, datasheet_id)
        registry = self.registries[system]
        printed = (rule.printed for rule in sheet.all_rules() if not registry[rule.name].automated)
        return list(dict.fromkeys(printed))

    def partly_automated(self, system: str, datasheet_id: str) -> dict[str, str]:
        """Printed forms of the datasheet's automated rules that carry notes (the engine
        applies only part of them), with those notes."""
        sheet = self.get(system, datasheet_id)
        registry = self.registries[system]
        return {
            rule.printed: str(registry[rule.name].notes)
            for rule in sheet.all_rules()
            if registry[rule.name].automated and registry[rule.name].notes
        }


# --------------------------------------------------------------------------- units of your own

_OWN: weakref.WeakValueDictionary[tuple[str, str], Datasheet] = weakref.WeakValueDictionary()
"""Units of your own that some game state holds, by (system, id). An id is a hash of the unit's
content (server/data/own.py), so one id is one unit in every game; the entry lives exactly as
long as a game state holds the sheet, so the rules engine's `catalog.get` finds a player's unit
like any datasheet, and nothing outlives the games that use it."""


def register_own(sheet: Datasheet) -> Datasheet:
    """Make `sheet` (a unit of your own) findable by :meth:`Catalog.get`; returns the object to
    keep (the one already registered under its id, if any, so every holder keeps it alive)."""
    if not sheet.own:
        raise ValueError(f"{sheet.id!r} is a catalogue datasheet, not a unit of your own")
    key = (sheet.system, sheet.id)
    found = _OWN.get(key)
    if found is not None:
        return found
    _OWN[key] = sheet
    return sheet


# --------------------------------------------------------------------------- loading


def _package_root() -> Traversable:
    return resources.files("server.data")


@functools.cache
def load_catalog() -> Catalog:
    """The catalogue shipped with the package (read once, then cached)."""
    return load_catalog_from(_package_root())


def load_catalog_from(root: Traversable | Path | str) -> Catalog:
    """Read and validate every ``<system>/*.yaml`` under ``root``.

    Raises :class:`CatalogError` listing every problem, each naming the file and field.
    """
    base: Traversable = Path(root) if isinstance(root, str) else root
    problems: list[str] = []
    sheets: dict[str, dict[str, Datasheet]] = {}
    registries: dict[str, dict[str, RuleInfo]] = {}
    origin: dict[tuple[str, str], str] = {}

    for system in SYSTEM_IDS:
        folder = base / system
        if not folder.is_dir():
            continue
        registry = _load_registry(folder / RULES_FILE, f"{system}/{RULES_FILE}", problems)
        if registry is None:
            continue
        registries[system] = registry
        sheets[system] = {}
        files = sorted(
            (entry for entry in folder.iterdir() if entry.name.endswith((".yaml", ".yml"))),
            key=lambda entry: entry.name,
        )
        for entry in files:
            if entry.name in (RULES_FILE, ALIASES_FILE):
                continue
            label = f"{system}/{entry.name}"
            sheet = _load_datasheet(entry, label, system, registry, problems)
            if sheet is None:
                continue
            if sheet.id in sheets[system]:
                problems.append(
                    f"{label}: id: {sheet.id!r} is already used by {origin[(system, sheet.id)]}"
                )
                continue
            sheets[system][sheet.id] = sheet
            origin[(system, sheet.id)] = label

    for system, by_id in sheets.items():
        _cross_check(system, by_id, origin, problems)
    if problems:
        raise CatalogError(problems)

    for by_id in sheets.values():
        for sheet_id, sheet in list(by_id.items()):
            leaders = sorted(s.id for s in by_id.values() if sheet_id in s.leads)
            if leaders:
                by_id[sheet_id] = sheet.model_copy(update={"led_by": leaders})
    return Catalog(sheets=sheets, registries=registries)


def _read_yaml(entry: Traversable, label: str, problems: list[str]) -> Any:
    try:
        return yaml.safe_load(entry.read_text(encoding="utf-8"))
    except FileNotFoundError:
        problems.append(f"{label}: file is missing")
    except yaml.YAMLError as exc:
        problems.append(f"{label}: not valid YAML: {exc}")
    return None


def _load_registry(
    entry: Traversable, label: str, problems: list[str]
) -> dict[str, RuleInfo] | None:
    raw = _read_yaml(entry, label, problems)
    if raw is None:
        if not any(p.startswith(label) for p in problems):
            problems.append(f"{label}: empty; expected a mapping with a `rules` list")
        return None
    try:
        return RuleRegistry.model_validate(raw).by_name()
    except ValidationError as exc:
        problems.extend(_describe(label, exc))
        return None


def _load_datasheet(
    entry: Traversable,
    label: str,
    system: str,
    registry: Mapping[str, RuleInfo],
    problems: list[str],
) -> Datasheet | None:
    raw = _read_yaml(entry, label, problems)
    if raw is None:
        if not any(p.startswith(label) for p in problems):
            problems.append(f"{label}: empty file")
        return None
    if not isinstance(raw, dict):
        kind = type(raw).__name__
        problems.append(f"{label}: expected a mapping of datasheet fields, got {kind}")
        return None
    raw.setdefault("system", system)
    if raw["system"] != system:
        problems.append(f"{label}: system: {raw['system']!r} but the file is under {system}/")
        return None
    try:
        sheet = Datasheet.model_validate(raw, context={"rules": registry})
    except ValidationError as exc:
        problems.extend(_describe(label, exc))
        return None
    if sheet.own:
        problems.append(f"{label}: own: catalogue datasheets are not units of your own")
    return sheet


def _describe(label: str, exc: ValidationError) -> list[str]:
    lines = []
    for error in exc.errors():
        loc = [str(part) for part in error["loc"]]
        # Drop the discriminator tag pydantic puts in the path of a tagged union.
        if len(loc) >= 2 and loc[0] == "profile" and loc[1] in SYSTEM_IDS:
            del loc[1]
        message = error["msg"].removeprefix("Value error, ")
        where = ".".join(loc) or "(file)"
        lines.append(f"{label}: {where}: {message}")
    return lines


def _cross_check(
    system: str,
    by_id: Mapping[str, Datasheet],
    origin: Mapping[tuple[str, str], str],
    problems: list[str],
) -> None:
    for sheet in by_id.values():
        label = origin[(system, sheet.id)]
        for index, led in enumerate(sheet.leads):
            target = by_id.get(led)
            if target is None:
                problems.append(f"{label}: leads.{index}: unknown datasheet {led!r}")
            elif target.character:
                problems.append(f"{label}: leads.{index}: {led!r} is a character, not a Bodyguard")
        for index, hidden in enumerate(sheet.conceals):
            if hidden.datasheet not in by_id:
                problems.append(
                    f"{label}: conceals.{index}.datasheet: unknown datasheet {hidden.datasheet!r}"
                )
