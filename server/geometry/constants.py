"""Named lengths and tolerances, in inches, used by every judgement in the package.

Each figure is named once here; rule docstrings refer to these names.
"""

from __future__ import annotations

from typing import Final

MM_PER_IN: Final = 25.4
"""Base sizes are published in millimetres; the table is measured in inches."""

CONTACT_TOLERANCE_IN: Final = 0.01
"""Two boundaries this close (or closer) are in base contact."""

UNIT_SPACING_IN: Final = 1.0
"""Unit Spacing: units end moves more than this far from other units and Impassable Terrain
(FACTS.md, T9A Unit Spacing and WFB 8th: 1 in)."""

ENGAGEMENT_RANGE_IN: Final = 1.0
"""40k Engagement Range, horizontally (a normal move may not end this close to an enemy)."""

COHERENCY_IN: Final = 2.0
"""40k Unit Coherency: each model within this distance (horizontally) of another model."""

COHERENCY_LARGE_UNIT: Final = 7
"""40k units of this many models or more need two neighbours within COHERENCY_IN."""

SKIRMISH_GAP_T9A_IN: Final = 12.5 / MM_PER_IN
"""T9A Skirmisher (seed 000): models are placed 12.5 mm apart."""

SKIRMISH_GAP_WHFB8_IN: Final = 0.5
"""WFB 8th Skirmishers (seed 002): models are placed 0.5 in apart."""

AMBUSH_RANGE_IN: Final = 6.0
"""T9A Ambush (seed 000): at least three of four corners within 6 in of the chosen point."""

AMBUSH_CORNERS_REQUIRED: Final = 3
"""T9A Ambush (seed 000): how many of the four corners must be within AMBUSH_RANGE_IN."""

ARC_LINE_ANGLE_DEG: Final = 135.0
"""T9A arcs: lines from the Unit Boundary corners at 135 degrees to the facings."""

EPSILON_IN: Final = 1e-9
"""Floating-point slack for comparisons that the rules state exactly (e.g. "within 6 in")."""


def mm_to_in(mm: float) -> float:
    """Convert a length in millimetres to inches (25.4 mm = 1 in)."""
    return mm / MM_PER_IN
