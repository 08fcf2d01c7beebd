"""The 9th Age: 6 Game Turns of two Player Turns; Charge, Movement, Magic, Shooting, Melee."""

from __future__ import annotations

from server.rules.core import Battlefield
from server.rules.systems import GameSystem, register_system
from server.rules.t9a import tables
from server.rules.t9a.combat import T9A
from server.rules.t9a.variant import VARIANT

SYSTEM = register_system(
    GameSystem(
        id="t9a",
        name="The 9th Age",
        battlefield=Battlefield(72.0, 48.0),
        turns=6,
        turn_name="Game Turn",
        phases=("Charge", "Movement", "Magic", "Shooting", "Melee"),
        charge_phases=("Charge",),
        movement_phase="Movement",
        tables=tables,
        magic_phase="Magic",
        rank_and_flank=T9A,
        variant=VARIANT,
    )
)
