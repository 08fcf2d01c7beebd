"""Roster import and army export (issue 18 items 3 and 4). Pure: parses the bytes it is given.

Formats read by :func:`import_roster` (detected from the bytes, not from a file name):

- **BattleScribe** ``.ros`` (XML: ``roster > forces > force > selections > selection``, each
  selection with ``type`` ``unit``/``model``/``upgrade``, ``number`` and ``costs``) and
  ``.rosz`` (the same XML in a zip archive);
- **New Recruit** JSON export (``{"roster": {"forces": [{"selections": [...]}]}}``, the same tree
  as BattleScribe's with lists for children);
- **Warfield** army JSON, what :func:`export_army` writes:
  ``{"format": "warfield-army", "version": 1, "system": id, "units": [entries]}``, the
  ``units`` list of ``submit_army``.

Each top-level roster unit is mapped to one of our datasheets by name (case, punctuation and the
system's alias table ``server/data/<system>/aliases.yaml`` tolerated) and becomes an
:class:`~server.data.army.ArmyEntry`; the report lists what was mapped and what was skipped and
why. BattleScribe and New Recruit rosters do not record which character joins which unit, so a
roster's characters come in as entries of their own (join them in the army builder); our own
export keeps the joins. A roster unit the catalogue lacks becomes a unit of your own from the
profiles it prints (a character when its category says so; a 40k Leader leads the units its
Leader ability lists). A mapped unit whose upgrades change it (a weapon, armour, a mount)
becomes a unit of your own ``based_on`` its datasheet with the changes applied and listed
(``_upgraded``; each system's ``SystemData.apply_upgrades``); what cannot be applied is in the
report's ``not_applied`` with why (docs/rules-decisions.md "Army lists").

Malformed input raises :class:`RosterError` (API code ``bad_request``) and returns nothing: input
over :data:`MAX_INPUT_BYTES`; a zip that is not one, holds no ``.ros`` or too many members, or
whose roster would inflate past :data:`MAX_XML_BYTES` (checked while decompressing, never
trusting the zip's own sizes); XML that is not well formed or declares a DTD or entities (XML
bombs, external entities: defusedxml); JSON that is not, or nests deeper than
:data:`MAX_DEPTH`; more than :data:`MAX_SELECTIONS` selections.
"""

from __future__ import annotations

import functools
import io
import json
import re
import unicodedata
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any
from xml.etree.ElementTree import Element

import defusedxml.ElementTree as SafeET
import yaml
from defusedxml import DefusedXmlException
from pydantic import ValidationError

from server.data import json_input
from server.data.army import ArmyEntry, validate_army
from server.data.catalog import Catalog, load_catalog
from server.data.own import MAX_OWN_UNITS, OwnUnitError, own_datasheet
from server.data.schema import SYSTEM_IDS, Datasheet, SpecialRule
from server.data.systems import (
    KnownRule,
    RosterProfile,
    RosterProfileError,
    RosterUpgrade,
    RuleKind,
    UpgradeRead,
    system_data,
)

MAX_INPUT_BYTES = 256 * 1024  # the REST body limit: a roster file as uploaded (.ros, .rosz, JSON)
MAX_XML_BYTES = 4 * 1024 * 1024  # a .rosz's roster once decompressed
MAX_ZIP_MEMBERS = 16
MAX_DEPTH = 48  # nesting of selections (XML elements / JSON containers)
MAX_SELECTIONS = 5000

EXPORT_FORMAT = "warfield-army"
EXPORT_VERSION = 1
ALIASES_FILE = "aliases.yaml"



class RosterError(ValueError):
    """The file cannot be read as a roster; ``code`` is the API error code."""

    code = "bad_request"


@dataclass
class ImportResult:
    """What an import found: the army entries and the mapping report."""

    format: str
    army: list[ArmyEntry] = field(default_factory=list)
    mapped: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    roster_points: int | None = None
    # Units of your own an army file brought (issue 18 item 2): the definitions by ref, and
    # their checked datasheets.
    own_units: list[dict[str, Any]] = field(default_factory=list)
    own_sheets: dict[str, Datasheet] = field(default_factory=dict)
    # Roster units the catalogue lacks, made units of your own from what the roster prints.
    created: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self, system: str, catalog: Catalog | None = None) -> dict[str, Any]:
        army = [entry.model_dump(mode="json", exclude_defaults=True) for entry in self.army]
        for raw, entry in zip(army, self.army, strict=True):
            raw["datasheet"], raw["models"] = entry.datasheet, entry.models
        base = catalog or load_catalog()
        ids = {ref: sheet.id for ref, sheet in self.own_sheets.items()}
        named = [
            entry.model_copy(update={
                "datasheet": ids.get(entry.datasheet, entry.datasheet),
                "joined_characters": [ids.get(c, c) for c in entry.joined_characters],
            })
            for entry in self.army
        ]
        problems = validate_army(system, named, base.with_own(system, self.own_sheets.values()))
        own = {}
        if self.own_units:
            own = {
                "own_units": self.own_units,
                "own_datasheets": {
                    ref: sheet.model_dump(mode="json") for ref, sheet in self.own_sheets.items()
                },
            }
        return {
            "format": self.format,
            "army": army,
            **own,
            "report": {
                "mapped": self.mapped,
                "created": self.created,
                "skipped": self.skipped,
                "roster_points": self.roster_points,
                # What submit_army would refuse, so the player sees it before submitting.
                "problems": [p.model_dump(mode="json") for p in problems],
            },
        }


# --------------------------------------------------------------------------- names


def normalize_name(name: str) -> str:
    """Case, accents, punctuation and spacing folded: ``"Knights  of Ryma!"`` ->
    ``"knights of ryma"``; ``&`` reads as ``and``."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    text = text.replace("&", " and ")
    text = re.sub(r"[^a-z0-9]+", " ", text)
    return " ".join(text.split())


def _singular(key: str) -> str:
    words = key.split()
    if words and len(words[-1]) > 3 and words[-1].endswith("s") and not words[-1].endswith("ss"):
        words[-1] = words[-1][:-1]
    return " ".join(words)


@functools.cache
def aliases(system: str) -> dict[str, str]:
    """The system's alias table (normalized roster name -> datasheet id), from
    ``server/data/<system>/aliases.yaml``; ``{}`` when the system has none."""
    path = resources.files("server.data") / system / ALIASES_FILE
    if not path.is_file():
        return {}
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(raw, Mapping):
        raise ValueError(f"{system}/{ALIASES_FILE}: expected a mapping of name: datasheet id")
    return {normalize_name(str(name)): str(target) for name, target in raw.items()}


def name_index(system: str, catalog: Catalog) -> dict[str, str]:
    """Every name a roster may use for one of the system's datasheets (normalized) -> its id:
    the datasheet's name, its id, their singular forms and the alias table."""
    index: dict[str, str] = {}
    for sheet in catalog.datasheets(system):
        for key in (normalize_name(sheet.name), normalize_name(sheet.id.replace("-", " "))):
            index.setdefault(key, sheet.id)
            index.setdefault(_singular(key), sheet.id)
    known = {sheet.id for sheet in catalog.datasheets(system)}
    for key, target in aliases(system).items():
        if target in known:
            index[key] = target
            index.setdefault(_singular(key), target)
    return index


def match_datasheet(system: str, name: str, catalog: Catalog | None = None) -> str | None:
    """Our datasheet id for a roster entry's name, or ``None``."""
    index = name_index(system, catalog or load_catalog())
    key = normalize_name(name)
    return index.get(key) or index.get(_singular(key))


# --------------------------------------------------------------------------- export


def export_army(
    system: str,
    units: Iterable[Mapping[str, Any] | ArmyEntry],
    own_units: Iterable[Mapping[str, Any]] = (),
) -> bytes:
    """Our army file: the ``submit_army`` units list with a format name and version, and the
    units of your own it names (``own_units``, as ``submit_army`` takes them)."""
    entries = [u if isinstance(u, ArmyEntry) else ArmyEntry.model_validate(u) for u in units]
    body: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "system": system,
        "units": [_entry_json(e) for e in entries],
    }
    own = [dict(u) for u in own_units]
    if own:
        body["own_units"] = own
    return json.dumps(body, indent=2, sort_keys=False).encode("utf-8")


def _entry_json(entry: ArmyEntry) -> dict[str, Any]:
    out = entry.model_dump(mode="json", exclude_defaults=True)
    out["datasheet"], out["models"] = entry.datasheet, entry.models
    return out


# --------------------------------------------------------------------------- import


def import_roster(system: str, data: bytes, catalog: Catalog | None = None) -> ImportResult:
    """Read ``data`` (any supported format) as an army for ``system``.

    Raises :class:`RosterError` for input that is not a readable roster, is too large, or is
    for another game system; raises :class:`~server.data.catalog.UnknownSystem` for a system
    that does not exist.
    """
    catalog = catalog or load_catalog()
    catalog.datasheets(system)  # UnknownSystem early
    if len(data) > MAX_INPUT_BYTES:
        raise RosterError(
            f"the file is {len(data):,} bytes; a roster may be at most {MAX_INPUT_BYTES:,} bytes"
        )
    if not data.strip():
        raise RosterError("the file is empty")
    if data.startswith(b"PK"):
        return _from_tree(system, _xml_tree(_unzip(data)), "battlescribe-rosz", catalog)
    text = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"<"):
        return _from_tree(system, _xml_tree(data), "battlescribe-ros", catalog)
    if text.startswith((b"{", b"[")):
        body = _json(data)
        if isinstance(body, Mapping) and body.get("format") == EXPORT_FORMAT:
            return _from_export(system, body, catalog)
        if isinstance(body, Mapping) and isinstance(body.get("roster"), Mapping):
            return _from_tree(system, _json_tree(body["roster"]), "newrecruit-json", catalog)
        if isinstance(body, Mapping) and isinstance(body.get("forces"), list):
            return _from_tree(system, _json_tree(body), "newrecruit-json", catalog)
        raise RosterError(
            "this JSON is neither a Warfield army file (\"format\": \"warfield-army\") nor a "
            "New Recruit roster (a \"roster\" with \"forces\")"
        )
    raise RosterError(
        "not a roster: expected BattleScribe XML (.ros), a zipped roster (.rosz) or JSON "
        "(New Recruit, Warfield)"
    )


def _unzip(data: bytes) -> bytes:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        raise RosterError(f"not a readable .rosz (zip) file: {exc}") from None
    if len(members) > MAX_ZIP_MEMBERS:
        raise RosterError(f"the zip holds {len(members)} files; a .rosz holds one roster")
    rosters = [m for m in members if m.filename.lower().endswith(".ros") and not m.is_dir()]
    if not rosters:
        raise RosterError("the zip holds no .ros roster")
    member = rosters[0]
    if member.file_size > MAX_XML_BYTES:
        raise RosterError(
            f"the roster inside the zip is {member.file_size:,} bytes; at most "
            f"{MAX_XML_BYTES:,} are read"
        )
    out = bytearray()
    try:
        with archive.open(member) as stream:  # the declared size is not trusted: count as we go
            while chunk := stream.read(64 * 1024):
                out += chunk
                if len(out) > MAX_XML_BYTES:
                    raise RosterError(
                        f"the roster inside the zip inflates past {MAX_XML_BYTES:,} bytes"
                    )
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
        raise RosterError(f"the .rosz is damaged: {exc}") from None
    return bytes(out)


def _json(data: bytes) -> Any:
    try:
        return json_input.loads(data)
    except json_input.JsonInputError as exc:
        raise RosterError(exc.message) from None


# A roster tree, whatever it was read from: one node per selection.
@dataclass
class _Node:
    name: str
    type: str
    number: int
    points: float
    children: list[_Node]
    profiles: list[RosterProfile] = field(default_factory=list)
    rules: list[tuple[str, str]] = field(default_factory=list)  # (name, text)
    categories: list[str] = field(default_factory=list)


@dataclass
class _Tree:
    game_system: str
    forces: list[tuple[str, list[_Node]]]  # (catalogue name, top-level selections)
    points: float | None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _kids(element: Element, name: str) -> list[Element]:
    return [child for child in element if _local(child.tag) == name]


def _xml_tree(data: bytes) -> _Tree:
    try:
        root = SafeET.fromstring(data, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as exc:
        raise RosterError(
            f"the XML declares a DTD or entities ({type(exc).__name__}); rosters never do, "
            "and such files can expand without bound"
        ) from None
    except SafeET.ParseError as exc:
        raise RosterError(f"not well-formed XML: {exc}") from None
    if _local(root.tag) != "roster":
        raise RosterError(f"not a BattleScribe roster: the XML root is <{_local(root.tag)}>")
    counter = [0]
    forces = []
    for forces_el in _kids(root, "forces"):
        for force in _kids(forces_el, "force"):
            forces.append((force.get("catalogueName", ""), _xml_selections(force, 0, counter)))
    return _Tree(root.get("gameSystemName", ""), forces, _xml_points(root))


def _xml_points(element: Element) -> float | None:
    for costs in _kids(element, "costs"):
        for cost in _kids(costs, "cost"):
            if _is_points(cost.get("name", "")):
                return _number(cost.get("value"))
    return None


def _xml_selections(parent: Element, depth: int, counter: list[int]) -> list[_Node]:
    if depth > MAX_DEPTH:
        raise RosterError(f"selections nest more than {MAX_DEPTH} deep")
    nodes = []
    for group in _kids(parent, "selections"):
        for sel in _kids(group, "selection"):
            counter[0] += 1
            if counter[0] > MAX_SELECTIONS:
                raise RosterError(f"more than {MAX_SELECTIONS} selections in one roster")
            nodes.append(
                _Node(
                    name=sel.get("name", ""),
                    type=sel.get("type", ""),
                    number=max(0, int(_number(sel.get("number", "1")) or 0)),
                    points=_xml_points(sel) or 0.0,
                    children=_xml_selections(sel, depth + 1, counter),
                    profiles=[
                        RosterProfile(
                            prof.get("typeName", ""), prof.get("name", ""),
                            {c.get("name", ""): (c.text or "")
                             for chars in _kids(prof, "characteristics")
                             for c in _kids(chars, "characteristic")},
                            sel.get("name", ""),
                        )
                        for group in _kids(sel, "profiles") for prof in _kids(group, "profile")
                    ],
                    rules=[
                        (rule.get("name", ""),
                         " ".join((d.text or "") for d in _kids(rule, "description")).strip())
                        for group in _kids(sel, "rules") for rule in _kids(group, "rule")
                    ],
                    categories=[cat.get("name", "") for group in _kids(sel, "categories")
                                for cat in _kids(group, "category")],
                )
            )
    return nodes


def _json_tree(roster: Mapping[str, Any]) -> _Tree:
    counter = [0]
    forces_raw = roster.get("forces")
    if not isinstance(forces_raw, list):
        raise RosterError('the New Recruit roster has no "forces" list')
    forces = []
    for force in forces_raw:
        if isinstance(force, Mapping):
            forces.append(
                (str(force.get("catalogueName", "")), _json_selections(force, 0, counter))
            )
    return _Tree(str(roster.get("gameSystemName", "")), forces, _json_points(roster))


def _json_points(obj: Mapping[str, Any]) -> float | None:
    costs = obj.get("costs")
    if isinstance(costs, list):
        for cost in costs:
            if isinstance(cost, Mapping) and _is_points(str(cost.get("name", ""))):
                return _number(cost.get("value"))
    return None


def _json_selections(parent: Mapping[str, Any], depth: int, counter: list[int]) -> list[_Node]:
    if depth > MAX_DEPTH:
        raise RosterError(f"selections nest more than {MAX_DEPTH} deep")
    raw = parent.get("selections")
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise RosterError('"selections" must be a list')
    nodes = []
    for sel in raw:
        if not isinstance(sel, Mapping):
            raise RosterError("each selection must be an object")
        counter[0] += 1
        if counter[0] > MAX_SELECTIONS:
            raise RosterError(f"more than {MAX_SELECTIONS} selections in one roster")
        nodes.append(
            _Node(
                name=str(sel.get("name", "")),
                type=str(sel.get("type", "")),
                number=max(0, int(_number(sel.get("number", 1)) or 0)),
                points=_json_points(sel) or 0.0,
                children=_json_selections(sel, depth + 1, counter),
                profiles=_json_profiles(sel.get("profiles"), str(sel.get("name", ""))),
                rules=_json_rules(sel.get("rules")),
                categories=[str(c.get("name", "")) for c in sel.get("categories") or []
                            if isinstance(c, Mapping)] if isinstance(sel.get("categories"),
                                                                    list) else [],
            )
        )
    return nodes


def _json_profiles(raw: Any, source: str = "") -> list[RosterProfile]:
    """New Recruit's profiles: ``[{"name", "typeName", "characteristics": [{"name",
    "$text"}]}]`` (BattleScribe's JSON shape)."""
    found = []
    for prof in raw if isinstance(raw, list) else []:
        if not isinstance(prof, Mapping):
            continue
        chars = prof.get("characteristics")
        found.append(RosterProfile(
            str(prof.get("typeName", "")), str(prof.get("name", "")),
            {str(c.get("name", "")): str(c.get("$text", c.get("value", "")))
             for c in (chars if isinstance(chars, list) else []) if isinstance(c, Mapping)},
            source,
        ))
    return found


def _json_rules(raw: Any) -> list[tuple[str, str]]:
    return [(str(rule.get("name", "")), str(rule.get("description", "")).strip())
            for rule in (raw if isinstance(raw, list) else []) if isinstance(rule, Mapping)]


def _is_points(name: str) -> bool:
    return name.strip().lower() in {"pts", "points", "pts.", "point"}


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number == number and abs(number) < 1e9 else None  # NaN, absurd


def _walk(node: _Node) -> Iterator[_Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _check_system(system: str, tree: _Tree) -> None:
    declared = tree.game_system.lower()
    if not declared:
        return
    for other in SYSTEM_IDS:
        if any(w in declared for w in system_data(other).roster_words):
            if other != system:
                raise RosterError(
                    f"this roster is for {tree.game_system!r}, not {system}; import it into a "
                    f"{other} game"
                )
            return


def _from_tree(system: str, tree: _Tree, fmt: str, catalog: Catalog) -> ImportResult:
    _check_system(system, tree)
    result = ImportResult(format=fmt)
    if tree.points is not None:
        result.roster_points = round(tree.points)
    index = name_index(system, catalog)
    for faction, top in tree.forces:
        for node in _units(top):
            _map_unit(system, node, faction, index, catalog, result)
    return result


def _units(top: list[_Node]) -> Iterator[_Node]:
    """The roster's units: top-level ``unit``/``model`` selections. A top-level upgrade (a
    detachment, battle size or army rule choice) is not a unit, unless it has model children."""
    for node in top:
        if node.type in {"unit", "model"} or any(c.type == "model" for c in node.children):
            yield node


def _map_unit(
    system: str,
    node: _Node,
    faction: str,
    index: Mapping[str, str],
    catalog: Catalog,
    result: ImportResult,
) -> None:
    key = normalize_name(node.name)
    sheet_id = index.get(key) or index.get(_singular(key))
    sheet = catalog.get(system, sheet_id) if sheet_id else None
    # Hidden models the unit conceals (Night Goblin Fanatics, seed 003) come as its children.
    hidden_ids = {hidden.datasheet for hidden in sheet.conceals} if sheet else set()
    concealed: dict[str, int] = {}
    for child in _walk(node):
        if child is node:
            continue
        child_key = normalize_name(child.name)
        child_id = index.get(child_key) or index.get(_singular(child_key))
        if child_id in hidden_ids:
            concealed[child_id] = concealed.get(child_id, 0) + max(child.number, 1)
            child.type = "concealed"  # not counted among the unit's models
    models = _model_count(node)
    points = round(sum(n.points for n in _walk(node)))
    seen: dict[str, Any] = {"name": node.name, "models": models, "points": points}
    if faction:
        seen["faction"] = faction
    if sheet is None:
        _own_from_roster(system, node, seen, catalog, result)
        return
    if models < 1:
        result.skipped.append({**seen, "reason": "the roster gives it no models"})
        return
    names = [normalize_name(n.name) for n in _walk(node)]
    standard = any("standard bearer" in n and "battle standard" not in n for n in names)
    bsb = any("battle standard" in n for n in names)
    mapped = {**seen, "datasheet": sheet.id, "datasheet_name": sheet.name}
    ref = _upgraded(system, node, sheet, catalog, result, mapped)
    entry = ArmyEntry(
        datasheet=ref or sheet.id,
        models=models,
        standard=standard and not sheet.character and system_data(system).standards,
        battle_standard=bsb and system_data(system).battle_standards,
        concealed=concealed,
    )
    result.army.append(entry)
    if concealed:
        mapped["concealed"] = concealed
    if sheet.points is not None:
        mapped["catalog_points"] = sheet.points.cost(models)
    result.mapped.append(mapped)


def _rule_askers(system: str, catalog: Catalog) -> tuple[KnownRule, RuleKind]:
    """The system's printed form of a rule a roster names (None when its list lacks it), and
    the kind of a rule on its list."""
    registry = catalog.registries[system]

    def known(printed: str) -> str | None:
        for text in (printed, printed.upper(), printed.title()):
            try:
                return SpecialRule.model_validate(text, context={"rules": registry}).printed
            except (ValidationError, ValueError):
                continue
        return None

    def kind(printed: str) -> str | None:
        found = known(printed)
        if found is None:
            return None
        name = SpecialRule.model_validate(found, context={"rules": registry}).name
        return registry[name].kind

    return known, kind


FLAG_WORDS = ("standard bearer", "battle standard")
"""Upgrades the army entry carries as flags (``standard``, ``battle_standard``)."""


def _roster_upgrades(
    node: _Node, kit: set[str], models: int
) -> tuple[list[RosterUpgrade], list[str], list[dict[str, str]]]:
    """A unit's upgrade selections, each with the model selection it sits under: those
    printing a profile or a rule, the datasheet's own kit (by name), and the others (a
    Musician, a Champion: nothing to apply), with why."""
    upgrades: list[RosterUpgrade] = []
    on_sheet: list[str] = []
    bare: list[dict[str, str]] = []
    stack: list[tuple[_Node, _Node]] = [(child, node) for child in node.children]
    while stack:
        current, carrier = stack.pop(0)
        if current.type == "concealed":
            continue
        inner = current if current.type == "model" else carrier
        stack.extend((child, inner) for child in current.children)
        if current.type != "upgrade":
            continue
        key = normalize_name(current.name)
        if any(word in key for word in FLAG_WORDS):
            continue
        if key in kit or _singular(key) in kit:
            on_sheet.append(current.name)
        elif carrier.type == "model" and 0 < current.number < carrier.number and (
                current.profiles or current.rules):
            # BattleScribe counts a model selection's upgrades in total: 1 of 4 Intercessors
            # carries it. A profile change applies to a whole model line, so it is not made.
            bare.append({"name": current.name[:120], "reason": f"carried by {current.number} "
                         f"of {carrier.number} {carrier.name}; a change applies to every model "
                         "of a model line"})
        elif current.profiles or current.rules:
            upgrades.append(RosterUpgrade(
                current.name, tuple(current.profiles), tuple(current.rules),
                carrier.name if carrier is not node else "",
                whole_unit=carrier is node or carrier.number >= models))
        elif not current.children:
            bare.append({"name": current.name[:120],
                         "reason": "prints no profile or rule to apply"})
    return upgrades, on_sheet, bare


def _kit(sheet: Datasheet) -> set[str]:
    """Names of what the datasheet carries already: its equipment and its weapons."""
    names = {normalize_name(rule.name) for rule in sheet.equipment}
    for attribute in ("shooting", "weapons"):
        for weapon in getattr(sheet.profile, attribute, ()):
            names.add(normalize_name(weapon.name))
    return names


def _upgraded(
    system: str, node: _Node, sheet: Datasheet, catalog: Catalog, result: ImportResult,
    mapped: dict[str, Any],
) -> str | None:
    """Issue 18 item 3: a mapped unit whose roster upgrades change its characteristics (a
    weapon, armour, a mount...) becomes a unit of your own ``based_on`` the datasheet, with
    the changed profile and every change named with its source; the ref its entry names, or
    None when nothing changes. What cannot be applied goes in the report with why."""
    upgrades, on_sheet, bare = _roster_upgrades(node, _kit(sheet), _model_count(node))
    if on_sheet:
        mapped["on_datasheet"] = on_sheet
    not_applied = list(bare)
    if upgrades:
        known, kind = _rule_askers(system, catalog)
        dumped = sheet.model_dump(mode="json")
        profile = {k: v for k, v in dumped["profile"].items() if k != "system"}
        read = system_data(system).apply_upgrades(
            profile, [rule.printed for rule in sheet.equipment], upgrades, known, kind)
        not_applied += read.not_applied
        if read.changes:
            ref = _variant(system, node, sheet, read, dumped, catalog, result, mapped,
                           not_applied)
            if ref:
                return ref
    if not_applied:
        mapped["not_applied"] = not_applied
    return None


def _variant(
    system: str, node: _Node, sheet: Datasheet, read: UpgradeRead, dumped: dict[str, Any],
    catalog: Catalog, result: ImportResult, mapped: dict[str, Any],
    not_applied: list[dict[str, str]],
) -> str | None:
    if len(result.own_sheets) >= MAX_OWN_UNITS:
        not_applied += [{"name": c["source"], "reason": f"an army brings at most "
                         f"{MAX_OWN_UNITS} units of your own"} for c in read.changes]
        return None
    points = dict(dumped.get("points") or {})
    extra = round(sum(n.points for n in _walk(node) if n.type == "upgrade"))
    if points and extra and not points.get("tiers"):
        points["unit"] = points.get("unit", 0) + extra
        read.change("points", dumped["points"].get("unit", 0), points["unit"],
                    "the roster's upgrades")
    rules = [r["printed"] for r in dumped["special_rules"]]
    rules += [r for r in read.special_rules if r not in rules]
    text = dict(read.text_rules)
    slug = re.sub(r"[^a-z0-9]+", "-", normalize_name(node.name)).strip("-")[:40] or "unit"
    ref = f"roster-{slug}-{len(result.own_sheets) + 1}"
    raw: dict[str, Any] = {
        "ref": ref, "name": sheet.name, "base": dumped["base"], "models": dumped["models"],
        "profile": read.profile, "equipment": read.equipment, "special_rules": rules,
        "other_rules": [{"name": n[:80], "text": t[:1000]} for n, t in text.items()][:40],
        "keywords": dumped["keywords"], "character": sheet.character,
        "based_on": sheet.id, "changes": read.changes[:60],
        "notes": f"{sheet.name} with the roster's upgrades",
    }
    if dumped.get("default_files") is not None:
        raw["default_files"] = dumped["default_files"]
    if sheet.attachable is not None:
        raw["attachable"] = sheet.attachable
    if points:
        raw["points"] = points
    try:
        variant = own_datasheet(system, raw, catalog)
    except OwnUnitError as exc:
        not_applied += [{"name": c["source"], "reason": "the changed profile does not validate: "
                         + "; ".join(exc.problems)} for c in read.changes]
        return None
    result.own_units.append(raw)
    result.own_sheets[ref] = variant
    mapped.update(ref=ref, changes=read.changes, rules_as_text=list(text))
    if not_applied:
        mapped["not_applied"] = not_applied
    return ref


def _own_from_roster(
    system: str, node: _Node, seen: dict[str, Any], catalog: Catalog, result: ImportResult
) -> None:
    """A roster unit the catalogue lacks becomes a unit of your own (issue 18 items 2 and 3)
    from what the roster prints: its profiles, its rules (those the system's list knows
    work; the others are kept as text, not automated), its models and its points; what the
    roster does not say (the base...) is assumed and said so in the report. Skipped, with
    why, when its profiles do not make the system's profile."""
    if seen["models"] < 1:
        result.skipped.append({**seen, "reason": "not in the catalog, and the roster gives it "
                                                 "no models"})
        return
    if len(result.own_sheets) >= MAX_OWN_UNITS:
        result.skipped.append({**seen, "reason": f"not in the catalog, and an army brings at "
                                                 f"most {MAX_OWN_UNITS} units of your own"})
        return
    data = system_data(system)
    known, _kind = _rule_askers(system, catalog)
    nodes = list(_walk(node))
    profiles = [p for n in nodes for p in n.profiles]
    try:
        read = data.profile_from_roster(profiles, known)
    except RosterProfileError as exc:
        result.skipped.append({**seen, "reason": f"not in the catalog, and {exc}"})
        return
    special: list[str] = []
    other: list[dict[str, str]] = []
    printed_rules = [(n, t) for x in nodes for n, t in x.rules if n] + read.text_rules
    for name, text in dict(printed_rules).items():
        printed = known(name)
        if printed and printed not in special:
            special.append(printed)
        elif not printed and len(other) < 40:
            other.append({"name": name[:80], "text": text[:1000]})
    base, base_note = (read.base, "") if read.base else data.roster_base()
    models = seen["models"]
    slug = re.sub(r"[^a-z0-9]+", "-", normalize_name(node.name)).strip("-")[:40] or "unit"
    ref = f"roster-{slug}-{len(result.own_sheets) + 1}"
    raw: dict[str, Any] = {
        "ref": ref, "name": node.name[:80] or "Unnamed unit", "base": base,
        "models": {"min": models, "max": models, "default": models},
        "profile": read.profile, "special_rules": special, "other_rules": other,
        "points": {"unit": seen["points"]},
        "notes": "From a roster: " + ("; ".join(n for n in (base_note, *read.assumed) if n)
                                      or "as printed"),
    }
    if _is_character(node):
        raw["character"] = True
        if data.leaders:
            leads = _leads(system, nodes, catalog)
            if leads:
                raw["leads"] = leads
            else:
                read.assumed.append("a character that leads no unit: the roster's Leader "
                                    "ability names none of the catalogue's units")
            raw["notes"] = "From a roster: " + "; ".join(
                n for n in (base_note, *read.assumed) if n)
    try:
        sheet = own_datasheet(system, raw, catalog)
    except OwnUnitError as exc:
        why = "; ".join(exc.problems)
        result.skipped.append({**seen, "reason": "not in the catalog, and its roster profile "
                                                 f"does not make a unit: {why}"})
        return
    result.own_units.append(raw)
    result.own_sheets[ref] = sheet
    result.army.append(ArmyEntry(datasheet=ref, models=models))
    created = {**seen, "ref": ref, "assumed": [n for n in (base_note, *read.assumed) if n],
               "rules_as_text": [r["name"] for r in other]}
    if raw.get("character"):
        created.update(character=True, leads=raw.get("leads", []))
    result.created.append(created)


CHARACTER_CATEGORIES = frozenset({"character", "characters", "lord", "lords", "hero", "heroes"})
"""Roster categories that make a selection a character: BSData/wh40k-10e "Character",
BSData/whfb "Lords" / "Heroes", BSData/The-9th-Age "Characters"."""
LEADER_TEXT = re.compile(r"attached to the following units?:?(?P<units>.*)", re.I | re.S)


def _is_character(node: _Node) -> bool:
    return any(normalize_name(c) in CHARACTER_CATEGORIES for c in node.categories)


def _leads(system: str, nodes: list[_Node], catalog: Catalog) -> list[str]:
    """The catalogue units a 40k Leader may lead, from the "Leader" ability BSData prints
    ("This model can be attached to the following units: ■ Boyz ■ Beast Snagga Boyz")."""
    index = name_index(system, catalog)
    found: list[str] = []
    for n in nodes:
        texts = [text for name, text in n.rules if normalize_name(name) == "leader"]
        texts += [p.get("Description") or "" for p in n.profiles
                  if normalize_name(p.name) == "leader"]
        for text in texts:
            match = LEADER_TEXT.search(text)
            if not match:
                continue
            for name in re.split(r"[\u25a0\n\r\u2022*]+|,", match["units"]):
                key = normalize_name(name)
                target = index.get(key) or index.get(_singular(key))
                if target and target not in found:
                    found.append(target)
    return found


def _model_count(node: _Node) -> int:
    """Models in a unit: the ``number`` of its ``model`` selections (at any depth, not
    counting inside another model), else the selection's own ``number`` when it is a model,
    else 1 for a unit that lists no models (a single-model unit)."""
    if node.type == "model" and not any(c.type == "model" for c in node.children):
        return max(node.number, 1)

    def count(children: list[_Node], times: int) -> int:
        total = 0
        for child in children:
            if child.type == "model":
                total += child.number * times
            elif child.children:
                total += count(child.children, times * max(child.number, 1))
        return total

    models = count(node.children, 1)
    return models or 1


def _from_export(system: str, body: Mapping[str, Any], catalog: Catalog) -> ImportResult:
    version = body.get("version")
    if version != EXPORT_VERSION:
        raise RosterError(
            f"Warfield army file version {version!r} is not one this server reads "
            f"({EXPORT_VERSION})"
        )
    declared = body.get("system")
    if declared != system:
        if declared in SYSTEM_IDS:
            raise RosterError(
                f"this army is for {declared}, not {system}; import it into a {declared} game"
            )
        raise RosterError(f"the army file's system {declared!r} is not one we know")
    units = body.get("units")
    if not isinstance(units, list):
        raise RosterError('the army file has no "units" list')
    if len(units) > MAX_SELECTIONS:
        raise RosterError(f"more than {MAX_SELECTIONS} units")
    result = ImportResult(format=EXPORT_FORMAT)
    known = {sheet.id for sheet in catalog.datasheets(system)}
    own_units = body.get("own_units", [])
    if not isinstance(own_units, list) or len(own_units) > MAX_OWN_UNITS:
        raise RosterError(f'"own_units" is a list of at most {MAX_OWN_UNITS} units of your own')
    for position, raw_unit in enumerate(own_units):
        try:
            sheet = own_datasheet(system, raw_unit, catalog)
        except OwnUnitError as exc:
            raise RosterError(f"own_units.{position}: " + "; ".join(exc.problems)) from None
        ref = raw_unit.get("ref")
        if not isinstance(ref, str) or not ref or ref in known:
            raise RosterError(f"own_units.{position}.ref: a unit of your own needs a ref of "
                              "its own (the id its entries name)")
        known.add(ref)
        result.own_units.append(dict(raw_unit))
        result.own_sheets[ref] = sheet
    for position, raw in enumerate(units):
        try:
            entry = ArmyEntry.model_validate(raw)
        except ValidationError as exc:
            problem = exc.errors()[0]
            where = ".".join(str(p) for p in problem["loc"]) or "entry"
            raise RosterError(f"unit {position}: {where}: {problem['msg']}") from None
        name = entry.datasheet
        missing = [d for d in (entry.datasheet, *entry.joined_characters) if d not in known]
        if missing:
            result.skipped.append(
                {"name": name, "models": entry.models, "reason": "not in the catalog",
                 "datasheets": missing}
            )
            continue
        sheet = result.own_sheets.get(entry.datasheet) or catalog.get(system, entry.datasheet)
        result.army.append(entry)
        mapped: dict[str, Any] = {
            "name": sheet.name, "models": entry.models, "datasheet": sheet.id,
            "datasheet_name": sheet.name,
        }
        if sheet.points is not None:
            mapped["catalog_points"] = sheet.points.cost(entry.models)
        result.mapped.append(mapped)
    return result
