"""The markers the shared rules set on units and read back (`Unit.markers`).

A module of its own, importing nothing, so that a system package can name them without
importing the modules that set them.
"""

from __future__ import annotations

FLEEING = "fleeing"
SHAKEN = "shaken"
FEIGNED_FLIGHT = "feigned_flight"
FLED_OFF = "fled_off_table"
TIGHTENED = "tightened"
"""A skirmishing unit drawn into a normal formation, its models in base contact (whfb8
Skirmishers charging or contacted, seed 002): its footprint has no skirmish gaps."""
