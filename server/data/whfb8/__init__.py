"""Warhammer Fantasy Battle 8th edition's army-list rules (the datasheets are this folder's
YAML files)."""

from __future__ import annotations

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
    SystemData,
    roster_dice,
    roster_int,
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
