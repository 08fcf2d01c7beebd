"""The 9th Age's army-list rules (the datasheets are this folder's YAML files)."""

from __future__ import annotations

from dataclasses import dataclass

from server.data.army import SKIRMISH_HEIGHT, SUPERNAL_JOIN
from server.data.schema import Datasheet
from server.data.systems import JoinProblem, SystemData


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


SYSTEM = NinthAgeData(
    name="The 9th Age",
    # An army is drawn from one Army Book; T9A's usual game is 4,500 points
    # (docs/rules-decisions.md "Army lists").
    faction_rule="Army Book",
    game_sizes=(("Standard", 4500),),
    points_rule="Army Points",
    roster_words=("9th age", "ninth age", "t9a"),
)
