"""Warfield's geometry core: every judgement about space, in inches, pure and fast.

Formations become footprints (models, Unit Boundary, corners, arcs); footprints are measured
(distance, base contact, arcs), seen (line of sight with cover and blockers), moved (straight,
wheel, pivot, reform, placement, 40k model moves, each with its swept area and the rule it
breaks) and brought in from Ambush (seed 000). Built on shapely 2 and numpy; no I/O.

Conventions: the battlefield is (0, 0)-(width, depth), x right, y away from player 1; facing
in degrees, 0 = +y, counter-clockwise positive; a ranked unit is placed by the centre of its
front edge and its facing, ranks extending behind; 40k models by their centres. Base sizes in
mm (25.4 mm = 1 in).
"""

from __future__ import annotations

from .ambush import (
    AmbushCheck,
    ambush_zone,
    check_ambush,
    edge_facing,
    find_ambush_placement,
)
from .arcs import (
    arc_of_unit,
    arc_polygons,
    arc_tests,
    arcs_fought,
    arcs_of_point,
    front_arc_reach,
    in_front_arc,
)
from .bases import Base, OvalBase, RectBase, RoundBase, base_outline
from .constants import (
    AMBUSH_CORNERS_REQUIRED,
    AMBUSH_RANGE_IN,
    ARC_LINE_ANGLE_DEG,
    COHERENCY_IN,
    COHERENCY_LARGE_UNIT,
    CONTACT_TOLERANCE_IN,
    ENGAGEMENT_RANGE_IN,
    MM_PER_IN,
    SKIRMISH_GAP_T9A_IN,
    SKIRMISH_GAP_WHFB8_IN,
    UNIT_SPACING_IN,
    mm_to_in,
)
from .footprint import (
    Corners,
    Footprint,
    ModelFootprint,
    coherency,
    footprint,
    model_gaps,
    models_footprint,
    overlapping_models,
    placement_for_centre,
)
from .formation import (
    Character,
    Layout,
    ModelPlacement,
    RankedFormation,
    layout,
)
from .frame import Placement, Point, facing_difference, normalize_facing
from .geojson import feature, footprint_to_geojson, to_geojson
from .kinds import Alignment, Arc, Cover, Height, Rule, TerrainKind
from .los import LineOfSight, line_of_sight
from .measure import Measurement, distance, distance_to_point, in_base_contact, within
from .movement import (
    MoveResult,
    check_area,
    move_models,
    move_straight,
    pivot,
    place,
    reform,
    wheel,
    wheel_placement,
)
from .table import Battlefield, ObstacleIndex, Table, Terrain

__all__ = [
    "AMBUSH_CORNERS_REQUIRED",
    "AMBUSH_RANGE_IN",
    "ARC_LINE_ANGLE_DEG",
    "COHERENCY_IN",
    "COHERENCY_LARGE_UNIT",
    "CONTACT_TOLERANCE_IN",
    "ENGAGEMENT_RANGE_IN",
    "MM_PER_IN",
    "SKIRMISH_GAP_T9A_IN",
    "SKIRMISH_GAP_WHFB8_IN",
    "UNIT_SPACING_IN",
    "Alignment",
    "AmbushCheck",
    "Arc",
    "Base",
    "Battlefield",
    "Character",
    "Corners",
    "Cover",
    "Footprint",
    "Height",
    "Layout",
    "LineOfSight",
    "Measurement",
    "ModelFootprint",
    "ModelPlacement",
    "MoveResult",
    "ObstacleIndex",
    "OvalBase",
    "Placement",
    "Point",
    "RankedFormation",
    "RectBase",
    "RoundBase",
    "Rule",
    "Table",
    "Terrain",
    "TerrainKind",
    "ambush_zone",
    "arc_of_unit",
    "arc_polygons",
    "arc_tests",
    "arcs_fought",
    "arcs_of_point",
    "front_arc_reach",
    "base_outline",
    "check_ambush",
    "check_area",
    "coherency",
    "distance",
    "distance_to_point",
    "edge_facing",
    "facing_difference",
    "feature",
    "find_ambush_placement",
    "footprint",
    "footprint_to_geojson",
    "in_base_contact",
    "in_front_arc",
    "layout",
    "line_of_sight",
    "mm_to_in",
    "model_gaps",
    "models_footprint",
    "move_models",
    "move_straight",
    "normalize_facing",
    "overlapping_models",
    "pivot",
    "place",
    "placement_for_centre",
    "reform",
    "to_geojson",
    "wheel",
    "wheel_placement",
    "within",
]
