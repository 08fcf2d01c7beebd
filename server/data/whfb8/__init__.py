"""Warhammer Fantasy Battle 8th edition's army-list rules (the datasheets are this folder's
YAML files)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, get_args

from server.data.army import ENTOMBED_JOIN, SKIRMISH_TROOP_TYPE
from server.data.schema import Datasheet, WHFB8TroopType
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
    roster_modifier,
)

TROOP_TYPE_ABBREVIATIONS = {
    "in": "Infantry", "sw": "Swarm", "ca": "Cavalry", "mi": "Monstrous Infantry",
    "mb": "Monstrous Beast", "mc": "Monstrous Cavalry", "wb": "War Beast", "mo": "Monster",
    "ch": "Chariot", "wm": "War Machine", "un": "Unique",
}
"""Troop types as the 8th-edition army books' profiles abbreviate them ("In", "MI")."""


@dataclass(frozen=True)
class WarhammerData(SystemData):
    def join_problems(self, unit: Datasheet, character: Datasheet) -> list[JoinProblem]:
        """Entombed units take only Entombed characters; Skirmishers only their troop type
        (seed 002: Entombed Beneath the Sands, Characters)."""
        found = []
        entombed = "Entombed Beneath the Sands"
        if unit.has_rule(entombed) and not character.has_rule(entombed):
            found.append(
                (
                    ENTOMBED_JOIN,
                    f"{unit.name} is {entombed}; only characters with that rule may be deployed "
                    "in it",
                )
            )
        if unit.has_rule("Skirmishers") and character.height_class != unit.height_class:
            found.append(
                (
                    SKIRMISH_TROOP_TYPE,
                    f"characters may only join Skirmishers of their own troop type: {unit.name} "
                    f"are {unit.height_class}, {character.name} is {character.height_class}",
                )
            )
        return found

    def profile_from_roster(
        self, profiles: list[RosterProfile], known: KnownRule
    ) -> RosterRead:
        """BSData's 8th-edition profiles (BSData/whfb, "Warhammer Fantasy 8th ed.gst"):
        "Model" (M, WS, BS, S, T, W, I, A, LD, ArmourSave, WardSave, Type) and "Weapon"
        (Range, Strength, Special Rules); a weapon with a Range is a missile weapon."""
        models: list[dict[str, Any]] = []
        shooting: dict[str, dict[str, Any]] = {}
        read = RosterRead({})
        troop_type, save, ward = None, None, None
        for p in profiles:
            kind = p.type_name.strip().lower()
            if kind == "model":
                line = {key: roster_int(p.get(key)) for key in ("WS", "BS", "S", "T", "W", "I")}
                if line["T"] is None or line["W"] is None:
                    continue
                models.append({"name": p.name, "M": roster_dice(p.get("M")), **line,
                               "A": roster_dice(p.get("A")), "Ld": roster_int(p.get("LD", "Ld"))})
                printed = (p.get("Type") or "").strip()
                printed = TROOP_TYPE_ABBREVIATIONS.get(printed.lower(), printed)
                troop_type = troop_type or next(
                    (t for t in get_args(WHFB8TroopType) if t.lower() == printed.lower()), None)
                save = save or roster_int(p.get("ArmourSave", "Save"))
                ward = ward or roster_int(p.get("WardSave"))
            elif kind == "weapon" and p.name not in shooting:
                reach, strength = roster_int(p.get("Range")), roster_int(p.get("Strength"))
                if reach is None or reach <= 0 or strength is None:
                    continue  # a close combat weapon: not a missile weapon
                rules: list[str] = []
                unknown: list[str] = []
                for word in (p.get("Special Rules") or "").split(","):
                    if word.strip():
                        found = known(word.strip())
                        (rules if found else unknown).append(found or word.strip())
                read.text_rules += [(f"{p.name}: {word}", "a weapon rule from the roster, not "
                                     "on this system's rule list") for word in unknown]
                shooting[p.name] = {"name": p.name, "range_in": reach, "strength": strength,
                                    "special_rules": rules}
        if not models:
            raise RosterProfileError("the roster prints no Model profile with T and W")
        if troop_type is None:
            troop_type = "Infantry"
            read.assumed.append("troop type assumed Infantry (the roster names none)")
        profile: dict[str, Any] = {"troop_type": troop_type, "models": models,
                                   "shooting": list(shooting.values())}
        if save is not None and 1 <= save <= 6:
            profile["save"] = save
        if ward is not None and 2 <= ward <= 6:
            profile["ward_save"] = ward
        read.profile = profile
        return read

    def apply_upgrades(
        self,
        profile: dict[str, Any],
        equipment: list[str],
        upgrades: list[RosterUpgrade],
        known: KnownRule,
        kind: RuleKind,
    ) -> UpgradeRead:
        """BSData/whfb's 8th-edition upgrades: equipment on the rule list joins the unit's
        equipment (the engine applies Halberd, Great Weapon, Spear: server/rules/whfb8/
        profiles.py, so their Strength is not added again); an "Armour" profile's "Saving
        Throw modifier" ("-1") improves the save, which the profile counts (a model with none
        goes to 6+ with -1); a "Weapon" with a Range adds a missile weapon, a close combat
        one's Strength ("'+1", "5") changes the wielder's S; a "Model" profile adds a model
        line (a mount) and its troop type."""
        read = UpgradeRead(copy.deepcopy(profile), list(equipment))
        p = read.profile
        for up in upgrades:
            before = len(read.changes)
            carrier = up.carrier.lower()
            found = next((m for m in p["models"] if carrier and carrier in m["name"].lower()),
                         None)
            if up.only_some():  # a profile holds no weapon per model: all or nothing
                read.skip(up.name, up.only_some())
                continue
            line = found or p["models"][0]
            equip = kind(up.name) == "equipment"
            if equip:
                printed = known(up.name) or up.name
                if printed not in read.equipment:
                    read.equipment.append(printed)
                    read.change("equipment", None, printed, up.name)
            for prof in up.profiles:
                kind_name = prof.type_name.strip().lower()
                if prof.get("Saving Throw modifier") is not None:
                    mod = roster_modifier(prof.get("Saving Throw modifier"))
                    if mod is None:
                        read.skip(up.name, "its Saving Throw modifier is not a number")
                        continue
                    was = p.get("save")
                    now = max(1, min(6, (was or 7) + mod[1])) if mod[0] else mod[1]
                    if now != was:
                        p["save"] = now
                        read.change("armour save", f"{was}+" if was else "none", f"{now}+",
                                    up.name)
                elif kind_name == "weapon":
                    reach = roster_int(prof.get("Range"))
                    if reach is not None and reach > 0:
                        self._missile(read, prof, up, known)
                    elif not equip:
                        mod = roster_modifier(prof.get("Strength"))
                        if mod is not None and line.get("S") is not None:
                            now = max(0, min(10, line["S"] + mod[1] if mod[0] else mod[1]))
                            if now != line["S"]:
                                read.change(f"S ({line['name']})", line["S"], now, up.name)
                                line["S"] = now
                        read.rules_from(up.name, prof.get("Special Rules"), known)
                elif kind_name == "model" and prof.get("T") is not None:
                    self._mount(read, prof, up)
            for name, _text in up.rules:
                read.rules_from(up.name, name, known)
            if len(read.changes) == before:
                read.skip(up.name, "prints no characteristic this table applies")
        return read

    def _missile(
        self, read: UpgradeRead, prof: RosterProfile, up: RosterUpgrade, known: KnownRule
    ) -> None:
        shooting = read.profile["shooting"]
        strength = roster_int(prof.get("Strength"))
        if strength is None or any(w["name"] == prof.name for w in shooting):
            return
        rules: list[str] = []
        for word in (prof.get("Special Rules") or "").split(","):
            if word.strip():
                printed = known(word.strip())
                if printed:
                    rules.append(printed)
                else:
                    read.text_rules.append((f"{prof.name}: {word.strip()}"[:80], word.strip()))
        weapon = {"name": prof.name[:80], "range_in": roster_int(prof.get("Range")),
                  "strength": strength, "special_rules": rules}
        shooting.append(weapon)
        read.change("missile weapon", None, f"{prof.name} {weapon['range_in']}\" S {strength}",
                    up.name)

    def _mount(self, read: UpgradeRead, prof: RosterProfile, up: RosterUpgrade) -> None:
        p = read.profile
        line = {key: roster_int(prof.get(key)) for key in ("WS", "BS", "S", "T", "W", "I")}
        mount = {"name": prof.name[:80], "M": roster_dice(prof.get("M")), **line,
                 "A": roster_dice(prof.get("A")), "Ld": roster_int(prof.get("LD", "Ld"))}
        if any(m["name"] == mount["name"] for m in p["models"]):
            return
        p["models"].append(mount)
        read.change("model", None, f"{mount['name']} M {mount['M']} WS {mount['WS']} "
                    f"S {mount['S']} T {mount['T']} A {mount['A']}", up.name)
        printed = (prof.get("Type") or "").strip()
        printed = TROOP_TYPE_ABBREVIATIONS.get(printed.lower(), printed)
        troop = next((t for t in get_args(WHFB8TroopType) if t.lower() == printed.lower()), None)
        if troop and troop != p["troop_type"]:
            read.change("troop type", p["troop_type"], troop, up.name)
            p["troop_type"] = troop


SYSTEM = WarhammerData(
    name="Warhammer Fantasy Battle (8th edition)",
    battle_standards=True,
    # One army book per army; 2,400 points is the usual game (docs/rules-decisions.md
    # "Army lists"). Allied contingents (an expansion's optional rule) are not offered.
    faction_rule="Army Book",
    game_sizes=(("Standard", 2400),),
    points_rule="Points Limit",
    roster_words=("fantasy battle", "warhammer fantasy", "whfb"),
)
