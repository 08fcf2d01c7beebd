"""The game systems Warfield knows, found by id (like python-chess's `find_variant`).

Each system lives in its own package (`server.rules.t9a`, `whfb8`, `wh40k10`) and registers one
`GameSystem` here: its battlefield, turn structure, phases and the dice tables of its attacks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from server.rules.core import Battlefield

if TYPE_CHECKING:
    from server.rules.rankandflank.system import RankAndFlankRules


class AttackTables(Protocol):
    """The three rolls of an attack, as target numbers on a D6 (None: cannot succeed / no save).

    Arguments are the attacker's and the target's characteristics in the system's own terms
    (t9a: Offensive vs Defensive Skill, Strength vs Resilience, Armour and Armour Penetration;
    whfb8: WS vs WS, S vs T, armour save and Strength; wh40k10: BS/WS, S vs T, Sv and AP).
    """

    def to_hit(self, attacker: int, defender: int) -> int: ...

    def to_wound(self, strength: int, toughness: int) -> int | None: ...

    def save(self, armour: int, penetration: int) -> int | None: ...


@dataclass(frozen=True)
class GameSystem:
    """What every game system declares about itself."""

    id: str
    name: str
    battlefield: Battlefield
    turns: int
    turn_name: str
    phases: tuple[str, ...]
    charge_phases: tuple[str, ...]
    movement_phase: str
    tables: AttackTables
    rank_and_flank: RankAndFlankRules | None = None
    """The tables and named rules of the shared rank-and-flank battle (shooting, melee, combat
    score, Break and Panic Tests: server/rules/rankandflank/); None: the system fights otherwise."""


SYSTEMS: dict[str, GameSystem] = {}


def register_system(system: GameSystem) -> GameSystem:
    if system.id in SYSTEMS:
        raise ValueError(f"game system {system.id!r} registered twice")
    if not set(system.charge_phases) <= set(system.phases):
        raise ValueError(f"{system.id}: charge phases must be phases of the turn")
    SYSTEMS[system.id] = system
    return system


def find_system(system_id: str) -> GameSystem:
    """The system called `system_id`, or KeyError naming the known ones."""
    try:
        return SYSTEMS[system_id]
    except KeyError:
        raise KeyError(f"unknown game system {system_id!r}; known: {sorted(SYSTEMS)}") from None


def roll_succeeds(face: int, target: int | None) -> bool:
    """A D6 against a target number where a natural 1 always fails and a natural 6 always
    succeeds (to-hit and to-wound in all three systems, FACTS.md "Dice"); None never succeeds."""
    if target is None or face == 1:
        return False
    return face == 6 or face >= target
