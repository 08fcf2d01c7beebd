"""Warhammer Fantasy Battle 8th edition: 6 turns; Start, Movement (charges, compulsory moves,
remaining moves), Magic, Shooting, Close Combat. Shooting and close combat are the shared
rank-and-flank battle with whfb8's rules (server/rules/whfb8/combat.py)."""

from __future__ import annotations

from server.rules.core import Battlefield, register_hidden_kind
from server.rules.systems import GameSystem, register_system
from server.rules.whfb8 import tables
from server.rules.whfb8.combat import WHFB8
from server.rules.whfb8.variant import VARIANT

SYSTEM = register_system(
    GameSystem(
        id="whfb8",
        name="Warhammer Fantasy Battle (8th edition)",
        battlefield=Battlefield(72.0, 48.0),
        turns=6,
        turn_name="Turn",
        phases=("Start", "Movement", "Magic", "Shooting", "Close Combat"),
        charge_phases=("Movement",),
        movement_phase="Movement",
        tables=tables,
        magic_phase="Magic",
        rank_and_flank=WHFB8,
        variant=VARIANT,
    )
)

# Every whfb8 army writes its Fanatics note (seed 003), with or without Fanatics: that the note
# exists is no secret, so the opponent and spectators are told what the hidden event is.
register_hidden_kind("fanatics_concealed", "concealed Fanatics",
                     "a hidden note every army writes, Fanatics or none")

# Registers Ambushers and Entombed Beneath the Sands, Skirmishers' model-by-model moves and
# Vanguard.
from server.rules.whfb8 import entombed, skirmish, vanguard  # noqa: E402, F401
