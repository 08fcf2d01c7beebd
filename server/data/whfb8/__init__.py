"""Warhammer Fantasy Battle 8th edition's army-list rules (the datasheets are this folder's
YAML files)."""

from __future__ import annotations

from dataclasses import dataclass

from server.data.army import ENTOMBED_JOIN, SKIRMISH_TROOP_TYPE
from server.data.schema import Datasheet
from server.data.systems import JoinProblem, SystemData


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
