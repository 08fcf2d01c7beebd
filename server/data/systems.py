"""Each game system's own choices about army lists, found by id.

The system's data package `server.data.<id>` (the folder that also holds its datasheets)
declares ``SYSTEM = SystemData(...)``, a subclass overriding what differs: which characters may
join which units, whether units are ranked (have files), take Standard Bearers, name a Battle
Standard Bearer, and are led by Leaders. The shared army validation (:mod:`server.data.army`)
asks it and never compares ids. The rules engine's registry is :mod:`server.rules.systems`;
this one serves the data layer, which the rules depend on, not the other way round.
"""

from __future__ import annotations

import functools
import importlib
from abc import ABC, abstractmethod
from dataclasses import dataclass

from server.data.schema import Datasheet

JoinProblem = tuple[str, str]
"""(stable code, human message) of one reason a character may not join a unit."""


@dataclass(frozen=True)
class SystemData(ABC):
    """What a game system's army lists allow, beyond its datasheets."""

    name: str
    """The system's name, as the catalogue lists it."""
    ranked: bool = True
    """Units stand in a ranked formation and may be given `files`."""
    standards: bool = True
    """Units may take a Standard Bearer in their command group."""
    battle_standards: bool = False
    """An army may name one Battle Standard Bearer: a character unit, or a unit with a joined
    character (whfb8)."""
    leaders: bool = False
    """Characters join a unit by leading it (a 40k Leader and its Bodyguard): one per unit."""
    faction_rule: str = "Army Book"
    """The army rule that keeps an army to one faction, as players name it (issue 18 item 1)."""
    allies: bool = False
    """Units of another faction may join the army (allied contingents). When False, every
    catalogue unit of an army shares one faction, refused naming :attr:`faction_rule`."""
    game_sizes: tuple[tuple[str, int], ...] = ()
    """The game sizes an army may be chosen for: (name, points limit), the usual one first."""
    points_rule: str = "Points Limit"
    """The army rule that caps an army's points at the game size, as players name it."""
    roster_words: tuple[str, ...] = ()
    """Words in a BattleScribe / New Recruit roster's game system name that say a roster is
    for this system (server/data/rosters.py), lower case."""

    @abstractmethod
    def join_problems(self, unit: Datasheet, character: Datasheet) -> list[JoinProblem]:
        """Why `character` may not join `unit`; [] when it may."""


@functools.cache
def system_data(system: str) -> SystemData:
    """The army-list rules of the system `system` (its package `server.data.<system>`)."""
    module = importlib.import_module(f"{__package__}.{system}")
    found: SystemData = module.SYSTEM
    return found


__all__ = ["JoinProblem", "SystemData", "system_data"]
