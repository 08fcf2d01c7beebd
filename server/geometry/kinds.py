"""Enumerations shared across the geometry package: heights, terrain kinds, cover, arcs, rules."""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Height(IntEnum):
    """Height classes. A unit or terrain feature blocks line of sight between two units when its
    height is at least the greater of theirs (T9A: bigger models see and are seen over smaller)."""

    FLAT = 0
    STANDARD = 1
    LARGE = 2
    GIGANTIC = 3
    INFINITE = 9
    """Terrain that blocks everything (buildings, cliffs)."""


class TerrainKind(StrEnum):
    """What a terrain feature does to units, as the table knows it."""

    IMPASSABLE = "impassable"
    BLOCKS_LOS = "blocks_los"
    COVER = "cover"
    DANGEROUS = "dangerous"
    OPEN = "open"


class Cover(IntEnum):
    """Cover a target has against a viewer; ordered so that max() picks the better cover."""

    NONE = 0
    SOFT = 1
    HARD = 2

    @property
    def label(self) -> str:
        return self.name.lower()


class Arc(StrEnum):
    """The four arcs of a rank-and-flank unit (T9A: Front, Flank, Rear)."""

    FRONT = "front"
    LEFT = "left"
    RIGHT = "right"
    REAR = "rear"


class Alignment(StrEnum):
    """How an incomplete last rank sits behind the rank in front of it."""

    CENTRE = "centre"
    LEFT = "left"
    RIGHT = "right"


class Rule(StrEnum):
    """Names of the rules a geometric check can fail; stable strings sent to the client."""

    BATTLEFIELD_EDGE = "Battlefield Edge"
    IMPASSABLE_TERRAIN = "Impassable Terrain"
    MOVING_THROUGH_UNITS = "Moving Through Units"
    UNIT_SPACING = "Unit Spacing"
    UNIT_OVERLAP = "Unit Overlap"
    ENGAGEMENT_RANGE = "Engagement Range"
    MOVE_DISTANCE = "Move Distance"
    MODEL_OVERLAP = "Model Overlap"
    UNIT_COHERENCY = "Unit Coherency"
    AMBUSH_EDGE_POINT = "Ambush: chosen point on a Battlefield Edge"
    AMBUSH_CORNERS = "Ambush: 3 of 4 corners within 6 in"
    AMBUSH_NOTHING_BETWEEN = "Ambush: nothing between the Unit Boundary and the chosen point"
