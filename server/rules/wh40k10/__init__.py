"""Warhammer 40,000 10th edition: 5 battle rounds; Command, Movement, Shooting, Charge, Fight."""

from __future__ import annotations

from server.rules.core import Battlefield
from server.rules.systems import GameSystem, register_system
from server.rules.wh40k10 import tables
from server.rules.wh40k10.variant import VARIANT

SYSTEM = register_system(
    GameSystem(
        id="wh40k10",
        name="Warhammer 40,000 (10th edition)",
        battlefield=Battlefield(60.0, 44.0),
        turns=5,
        turn_name="Battle Round",
        phases=("Command", "Movement", "Shooting", "Charge", "Fight"),
        charge_phases=("Charge",),
        movement_phase="Movement",
        tables=tables,
        variant=VARIANT,
    )
)
