"""Warhammer 40,000 10th edition's army-list rules (the datasheets are this folder's YAML
files): units are placed model by model (no files), have no command groups (no Standard
Bearers), and a Leader attaches to one of the Bodyguard units its datasheet lists (seed 004)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from server.data.army import LEADER_CANNOT_LEAD
from server.data.schema import Datasheet
from server.data.systems import (
    JoinProblem,
    KnownRule,
    RosterProfile,
    RosterProfileError,
    RosterRead,
    RosterUpgrade,
    RuleKind,
    SystemData,
    UpgradeRead,
    roster_dice,
    roster_int,
)

KEYWORD_AS_TEXT = "a weapon keyword from the roster, not on this system's rule list"
WEAPON_TYPES = frozenset({"ranged weapons", "melee weapons"})
"""BSData/wh40k-10e's weapon profile types."""


def roster_weapon(
    p: RosterProfile, known: KnownRule
) -> tuple[dict[str, Any] | None, list[tuple[str, str]]]:
    """A weapon from a "Ranged Weapons" / "Melee Weapons" profile (Range, A, BS or WS, S, AP,
    D, Keywords), and its keywords the rule list lacks (kept as text); None when a
    characteristic is unreadable."""
    ranged = p.type_name.strip().lower().startswith("ranged")
    skill = roster_int(p.get("BS" if ranged else "WS"))
    weapon: dict[str, Any] = {
        "name": p.name, "type": "ranged" if ranged else "melee",
        "A": roster_dice(p.get("A")), "S": roster_int(p.get("S")),
        "AP": roster_int(p.get("AP")) or 0, "D": roster_dice(p.get("D")),
    }
    if ranged:
        weapon.update(range_in=roster_int(p.get("Range")), BS=skill)
    else:
        weapon["WS"] = skill
    if any(weapon[k] is None for k in weapon):
        return None, []
    keywords: list[str] = []
    unknown: list[str] = []
    for word in (p.get("Keywords") or "").split(","):
        if word.strip():
            printed = known(word.strip())
            (keywords if printed else unknown).append(printed or word.strip())
    weapon["keywords"] = keywords
    return weapon, [(f"{p.name}: {word}", KEYWORD_AS_TEXT) for word in unknown]


def _sheet_name(datasheet_id: str) -> str:
    """A datasheet as players name it ("Beast Snagga Boyz"), its id only if the catalogue has
    no such sheet."""
    from server.data.catalog import UnknownDatasheet, load_catalog  # the catalogue reads us

    try:
        return load_catalog().get("wh40k10", datasheet_id).name
    except UnknownDatasheet:
        return datasheet_id


@dataclass(frozen=True)
class Warhammer40kData(SystemData):
    def join_problems(self, unit: Datasheet, character: Datasheet) -> list[JoinProblem]:
        """A Leader attaches only to a Bodyguard unit its datasheet lists (seed 004); a unit
        of your own based on a listed datasheet (a roster's upgrades) is that unit."""
        if unit.id in character.leads or unit.based_on in character.leads:
            return []
        return [
            (
                LEADER_CANNOT_LEAD,
                f"{character.name} can lead {', '.join(_sheet_name(d) for d in character.leads)};"
                f" not {unit.name}",
            )
        ]

    def profile_from_roster(
        self, profiles: list[RosterProfile], known: KnownRule
    ) -> RosterRead:
        """BSData's 10th-edition profiles: "Unit" (M, T, SV, W, LD, OC), "Ranged Weapons"
        (Range, A, BS, S, AP, D, Keywords), "Melee Weapons" (the same with WS). Weapon
        keywords the rule list lacks are left out and said so."""
        models: list[dict[str, Any]] = []
        weapons: dict[str, dict[str, Any]] = {}
        read = RosterRead({})
        for p in profiles:
            kind = p.type_name.strip().lower()
            if kind in {"unit", "model"}:
                stats = {key: roster_int(p.get(key)) for key in ("M", "T", "SV", "W", "LD", "OC")}
                if any(value is None for value in stats.values()):
                    continue
                models.append({"name": p.name, "M": stats["M"], "T": stats["T"],
                               "Sv": stats["SV"], "W": stats["W"], "Ld": stats["LD"],
                               "OC": stats["OC"]})
            elif kind in WEAPON_TYPES and p.name not in weapons:
                weapon, text = roster_weapon(p, known)
                if weapon is None:
                    read.assumed.append(f"{p.name} left out: its profile is incomplete")
                    continue
                read.text_rules += text
                weapons[p.name] = weapon
        if not models:
            raise RosterProfileError(
                "the roster prints no Unit profile with M, T, SV, W, LD and OC")
        read.profile = {"models": models, "weapons": list(weapons.values())}
        return read

    def apply_upgrades(
        self,
        profile: dict[str, Any],
        equipment: list[str],
        upgrades: list[RosterUpgrade],
        known: KnownRule,
        kind: RuleKind,
    ) -> UpgradeRead:
        """BSData/wh40k-10e's wargear: a "Ranged Weapons" / "Melee Weapons" profile the
        datasheet lacks is added, carried by the model selection it sits under when that is
        one of the datasheet's model lines; a "Unit" profile (M, T, SV, W, LD, OC) on an
        upgrade sets the model line of its name. Enhancements and other "Abilities" print
        words only: kept as text, not automated."""
        read = UpgradeRead(copy.deepcopy(profile), list(equipment))
        p = read.profile
        lines = {m["name"].lower(): m for m in p["models"]}
        for up in upgrades:
            before = len(read.changes)
            for prof in up.profiles:
                kind_name = prof.type_name.strip().lower()
                if kind_name in WEAPON_TYPES:
                    if any(w["name"].lower() == prof.name.lower() for w in p["weapons"]):
                        continue  # on the datasheet already
                    weapon, text = roster_weapon(prof, known)
                    if weapon is None:
                        read.skip(up.name, f"{prof.name}: its profile is incomplete")
                        continue
                    if up.carrier.lower() in lines and len(lines) > 1:
                        weapon["carried_by"] = lines[up.carrier.lower()]["name"]
                    elif up.only_some() and up.carrier.lower() not in lines:
                        read.skip(up.name, up.only_some())
                        continue
                    p["weapons"].append(weapon)
                    read.text_rules += text
                    read.change(f"{weapon['type']} weapon", None, _weapon_words(weapon),
                                up.name)
                elif kind_name in {"unit", "model"}:
                    line = lines.get(prof.name.lower())
                    if line is None:
                        read.skip(up.name, f"{prof.name}: not a model line of the datasheet")
                        continue
                    for printed, key in (("M", "M"), ("T", "T"), ("SV", "Sv"), ("W", "W"),
                                         ("LD", "Ld"), ("OC", "OC")):
                        value = roster_int(prof.get(printed))
                        if value is not None and value != line[key]:
                            read.change(f"{key} ({line['name']})", line[key], value, up.name)
                            line[key] = value
                elif kind_name == "abilities":
                    description = prof.get("Description") or ""
                    read.text_rules.append((f"{up.name}: {prof.name}"[:80], description[:1000]))
            for name, _text in up.rules:
                read.rules_from(up.name, name, known)
            if len(read.changes) == before and up.profiles:
                if all(prof.type_name.strip().lower() in WEAPON_TYPES for prof in up.profiles):
                    read.on_datasheet.append(up.name)
                else:
                    read.skip(up.name, "prints words only (kept as text, not automated)")
            elif len(read.changes) == before:
                read.skip(up.name, "prints no characteristic this table applies")
        return read

    def roster_base(self) -> tuple[dict[str, Any], str]:
        return ({"shape": "round", "diameter_mm": 32},
                "base assumed 32 mm round (the roster gives none)")


def _weapon_words(weapon: dict[str, Any]) -> str:
    reach = f'{weapon["range_in"]}" BS {weapon["BS"]}+' if weapon["type"] == "ranged" else \
        f'Melee WS {weapon["WS"]}+'
    return (f'{weapon["name"]} {reach} A {weapon["A"]} S {weapon["S"]} AP {weapon["AP"]} '
            f'D {weapon["D"]}')


SYSTEM = Warhammer40kData(
    name="Warhammer 40,000 (10th edition)",
    ranked=False,
    standards=False,
    leaders=True,
    # Muster Your Army: every unit shares the army's Faction keyword; the Battle Size sets the
    # points (Incursion 1,000, Strike Force 2,000, Onslaught 3,000).
    faction_rule="Faction keyword",
    game_sizes=(("Strike Force", 2000), ("Incursion", 1000), ("Onslaught", 3000)),
    points_rule="Battle Size",
    roster_words=("40,000", "40000", "40k"),
)
