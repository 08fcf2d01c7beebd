"""The 9th Age's army-list rules (the datasheets are this folder's YAML files)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from server.data.army import SKIRMISH_HEIGHT, SUPERNAL_JOIN
from server.data.schema import Datasheet
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


@dataclass(frozen=True)
class NinthAgeData(SystemData):
    def join_problems(self, unit: Datasheet, character: Datasheet) -> list[JoinProblem]:
        """Supernal both ways and Skirmisher height (seed 000: Supernal, Skirmisher)."""
        found = []
        unit_supernal = unit.has_rule("Supernal")
        char_supernal = character.has_rule("Supernal")
        if char_supernal and not unit_supernal:
            found.append(
                (
                    SUPERNAL_JOIN,
                    f"{character.name} has Supernal and can only join units containing "
                    f"Supernal; {unit.name} has none",
                )
            )
        if unit_supernal and not char_supernal:
            found.append(
                (
                    SUPERNAL_JOIN,
                    f"{unit.name} contains Supernal and can only be joined by Supernal "
                    f"characters; {character.name} is not",
                )
            )
        if unit.has_rule("Skirmisher") and character.height_class != unit.height_class:
            found.append(
                (
                    SKIRMISH_HEIGHT,
                    f"{unit.name} is in Skirmish Formation and can only be joined by models of "
                    f"its Height ({unit.height_class}); {character.name} is "
                    f"{character.height_class}",
                )
            )
        return found

    def profile_from_roster(
        self, profiles: list[RosterProfile], known: KnownRule
    ) -> RosterRead:
        """The 2nd-edition characteristics as the army books print them, in whichever
        profiles a roster holds them: Global (Adv, Mar, Dis), Defensive (HP, Def, Res, Arm,
        Aeg) and Offensive (Att, Off, Str, AP, Agi), one model part per Offensive line.
        Height and Type from characteristics of those names, else assumed and said so.
        Shooting weapons are not read (kept out, said so)."""
        glob: dict[str, int | None] = {}
        defensive: dict[str, int | None] = {}
        offensive: list[dict[str, Any]] = []
        height, kind = None, None
        read = RosterRead({})
        for p in profiles:
            if not glob and p.get("Adv") is not None:
                glob = {"advance_rate": roster_int(p.get("Adv")),
                        "march_rate": roster_int(p.get("Mar")),
                        "discipline": roster_int(p.get("Dis"))}
            if not defensive and p.get("HP") is not None:
                defensive = {"health_points": roster_int(p.get("HP")),
                             "defensive_skill": roster_int(p.get("Def")),
                             "resilience": roster_int(p.get("Res")),
                             "armour": roster_int(p.get("Arm")) or 0}
                aegis = roster_int(p.get("Aeg", "Aegis"))
                if aegis is not None:
                    defensive["aegis"] = aegis
            if p.get("Att") is not None and p.get("Off") is not None:
                offensive.append({"name": p.name, "attacks": roster_dice(p.get("Att")),
                                  "offensive_skill": roster_int(p.get("Off")),
                                  "strength": roster_int(p.get("Str")),
                                  "armour_penetration": roster_int(p.get("AP")) or 0,
                                  "agility": roster_int(p.get("Agi"))})
            height = height or p.get("Height")
            kind = kind or p.get("Type")
            if p.get("Range") is not None:
                read.assumed.append(f"{p.name}: shooting weapons are not read from rosters; add it "
                             "in the builder")
        lacking = [name for name, part in (("Global (Adv, Mar, Dis)", glob),
                                           ("Defensive (HP, Def, Res, Arm)", defensive),
                                           ("Offensive (Att, Off, Str, AP, Agi)", offensive))
                   if not part]
        if lacking:
            raise RosterProfileError("the roster prints no " + ", ".join(lacking))
        heights = {"Standard", "Large", "Gigantic"}
        kinds = {"Infantry", "Beast", "Cavalry", "Construct", "Swarm"}
        height_read, kind_read = (height or "").title(), (kind or "").title()
        if height_read not in heights:
            height_read = "Standard"
            read.assumed.append("height assumed Standard (the roster names none)")
        if kind_read not in kinds:
            kind_read = "Infantry"
            read.assumed.append("type assumed Infantry (the roster names none)")
        read.profile = {"height": height_read, "type": kind_read,
                        "global_characteristics": glob, "defensive": defensive,
                        "offensive": offensive}
        return read


SYSTEM = NinthAgeData(
    name="The 9th Age",
    # An army is drawn from one Army Book; T9A's usual game is 4,500 points
    # (docs/rules-decisions.md "Army lists").
    faction_rule="Army Book",
    game_sizes=(("Standard", 4500),),
    points_rule="Army Points",
    roster_words=("9th age", "ninth age", "t9a"),
)
