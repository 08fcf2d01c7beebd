"""Warhammer 40,000 10th edition's army-list rules (the datasheets are this folder's YAML
files): units are placed model by model (no files), have no command groups (no Standard
Bearers), and a Leader attaches to one of the Bodyguard units its datasheet lists (seed 004)."""

from __future__ import annotations

from dataclasses import dataclass

from server.data.army import LEADER_CANNOT_LEAD
from server.data.schema import Datasheet
from server.data.systems import JoinProblem, SystemData


@dataclass(frozen=True)
class Warhammer40kData(SystemData):
    def join_problems(self, unit: Datasheet, character: Datasheet) -> list[JoinProblem]:
        """A Leader attaches only to a Bodyguard unit its datasheet lists (seed 004)."""
        if unit.id in character.leads:
            return []
        return [
            (
                LEADER_CANNOT_LEAD,
                f"{character.name} can lead {', '.join(character.leads)}; not {unit.name}",
            )
        ]


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
