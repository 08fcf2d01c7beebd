"""The game systems Warfield knows, found by id (like python-chess's `find_variant`)."""

from __future__ import annotations

from dataclasses import dataclass

from server.rules.core import Battlefield


@dataclass(frozen=True)
class GameSystem:
    """What every game system declares about itself."""

    id: str
    name: str
    battlefield: Battlefield
    turns: int
    turn_name: str


SYSTEMS: dict[str, GameSystem] = {}


def register_system(system: GameSystem) -> GameSystem:
    if system.id in SYSTEMS:
        raise ValueError(f"game system {system.id!r} registered twice")
    SYSTEMS[system.id] = system
    return system


def find_system(system_id: str) -> GameSystem:
    """The system called `system_id`, or KeyError naming the known ones."""
    try:
        return SYSTEMS[system_id]
    except KeyError:
        raise KeyError(f"unknown game system {system_id!r}; known: {sorted(SYSTEMS)}") from None


register_system(GameSystem("t9a", "The 9th Age", Battlefield(72.0, 48.0), 6, "Game Turn"))
register_system(
    GameSystem(
        "whfb8", "Warhammer Fantasy Battle (8th edition)", Battlefield(72.0, 48.0), 6, "Turn"
    )
)
register_system(
    GameSystem(
        "wh40k10", "Warhammer 40,000 (10th edition)", Battlefield(60.0, 44.0), 5, "Battle Round"
    )
)
