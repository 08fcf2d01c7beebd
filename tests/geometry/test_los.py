"""Line of sight (issue 3 item 4): from the viewer's front facing, within its front arc, to the
target's Unit Boundary; terrain and units of at least the greater height block; skirmisher
gaps are part of the unit (seed 000 Skirmisher) and never block their own unit."""

from __future__ import annotations

import json

import numpy as np
import pytest
import shapely

from server.geometry import (
    Battlefield,
    Cover,
    Height,
    ModelPlacement,
    Placement,
    RankedFormation,
    RectBase,
    RoundBase,
    Table,
    Terrain,
    TerrainKind,
    footprint,
    line_of_sight,
    models_footprint,
)
from server.geometry.los import segments_cross

UNIT = RankedFormation(RectBase(25, 25), 20, 5)  # 4.92 x 3.94 in
LARGE = RankedFormation(RectBase(25, 25), 20, 5, height=Height.LARGE)


def table(*terrain: Terrain, **units: tuple[RankedFormation, Placement]) -> Table:
    return Table(
        Battlefield(72, 48), terrain, {k: footprint(f, p) for k, (f, p) in units.items()}
    )


VIEWER = (UNIT, Placement(36, 10, 0))  # front edge y = 10, x 33.54..38.46
TARGET = (UNIT, Placement(36, 30, 180))  # front edge y = 30, facing the viewer


def test_clear_line_of_sight() -> None:
    los = line_of_sight(table(a=VIEWER, b=TARGET), "a", "b")
    assert los.visible and los.fraction == 1.0 and los.cover is Cover.NONE
    assert los.blockers == ()
    assert los.lines
    for (x0, y0), (_, y1) in los.lines:
        assert y0 == pytest.approx(10) and y1 == pytest.approx(30)  # only the near side
        assert 33.5 < x0 < 38.5
    json.dumps(los.to_dict())


def test_line_of_sight_to_itself_is_clear() -> None:
    los = line_of_sight(table(a=VIEWER), "a", "a")
    assert los.visible and los.fraction == 1.0 and los.cover is Cover.NONE


def test_blocking_terrain_hides_the_target() -> None:
    wall = Terrain("wall", ((20, 19), (52, 19), (52, 20), (20, 20)), TerrainKind.BLOCKS_LOS)
    los = line_of_sight(table(wall, a=VIEWER, b=TARGET), "a", "b")
    assert not los.visible and los.fraction == 0.0
    assert los.blockers == ("wall",)


def test_terrain_hiding_part_of_the_target_gives_hard_cover() -> None:
    """A building hides the left 3/4 of the target's facing side (target x 33.54..38.46)."""
    house = Terrain("house", ((20, 25), (37.2, 25), (37.2, 27), (20, 27)), TerrainKind.BLOCKS_LOS)
    los = line_of_sight(table(house, a=VIEWER, b=TARGET), "a", "b")
    assert los.visible
    assert 0.0 < los.fraction < 0.5
    assert los.cover is Cover.HARD
    assert los.blockers == ("house",)


def test_cover_terrain_between_gives_soft_cover() -> None:
    hedge = Terrain(
        "hedge", ((20, 25), (52, 25), (52, 26), (20, 26)), TerrainKind.COVER, Height.STANDARD
    )
    los = line_of_sight(table(hedge, a=VIEWER, b=TARGET), "a", "b")
    assert los.visible and los.fraction == 1.0
    assert los.cover is Cover.SOFT
    assert los.cover_from == ("hedge",)


def test_target_standing_in_a_wood_has_soft_cover() -> None:
    wood = Terrain("wood", ((30, 29), (42, 29), (42, 40), (30, 40)), TerrainKind.COVER)
    los = line_of_sight(table(wood, a=VIEWER, b=TARGET), "a", "b")
    assert los.visible and los.cover is Cover.SOFT and "wood" in los.cover_from


def test_a_wood_behind_the_targets_facing_still_covers_it_when_it_stands_half_in() -> None:
    """Standing half or more inside cover terrain gives at least that cover (module text),
    wherever the wood lies: here it covers the target's back 2.4 of its 3.9 in, beyond every
    sight line to its front facing."""
    wood = Terrain("wood", ((30, 31.5), (42, 31.5), (42, 40), (30, 40)), TerrainKind.COVER)
    los = line_of_sight(table(wood, a=VIEWER, b=TARGET), "a", "b")
    assert los.visible and los.fraction == 1.0
    assert los.cover is Cover.SOFT and los.cover_from == ("wood",)
    less = Terrain("wood", ((30, 32.5), (42, 32.5), (42, 40), (30, 40)), TerrainKind.COVER)
    assert line_of_sight(table(less, a=VIEWER, b=TARGET), "a", "b").cover is Cover.NONE


@pytest.mark.parametrize(
    ("viewer", "between", "target", "visible"),
    [
        (UNIT, UNIT, UNIT, False),  # equal height blocks
        (UNIT, LARGE, UNIT, False),  # taller blocks
        (LARGE, UNIT, LARGE, True),  # large see large over standard
        (LARGE, UNIT, UNIT, True),  # a large viewer sees over standard units
        (UNIT, UNIT, LARGE, True),  # a large target is seen over standard units
    ],
)
def test_intervening_units_by_height(
    viewer: RankedFormation, between: RankedFormation, target: RankedFormation, visible: bool
) -> None:
    t = table(
        a=(viewer, Placement(36, 10, 0)),
        c=(between, Placement(36, 20, 0)),  # squarely between, same width
        b=(target, Placement(36, 30, 180)),
    )
    los = line_of_sight(t, "a", "b")
    assert los.visible is visible
    if not visible:
        assert los.blockers == ("c",)


def test_target_behind_the_viewer_is_not_seen() -> None:
    t = table(a=(UNIT, Placement(36, 20, 0)), b=(UNIT, Placement(36, 5, 0)))
    los = line_of_sight(t, "a", "b")
    assert not los.visible and los.fraction == 0.0


def test_target_half_out_of_the_front_arc() -> None:
    """The viewer's front arc ends on the 135 degree line through its front-left corner
    (33.54, 10); a target straddling that line is partly seen."""
    t = table(a=VIEWER, b=(UNIT, Placement(23.54, 20, 270)))  # facing +x, front edge x 23.54
    los = line_of_sight(t, "a", "b")
    assert los.visible and 0.0 < los.fraction < 1.0


def test_skirmishers_gaps_are_part_of_the_target_and_of_a_screen() -> None:
    """Seed 000: the gaps of a skirmish formation are part of the unit for line of sight, so
    a skirmish screen of equal height blocks as a solid unit would."""
    screen = RankedFormation.skirmish(RectBase(20, 20), 6, 6)  # 5.4 in wide with gaps
    t = table(a=VIEWER, c=(screen, Placement(36, 20, 0)), b=TARGET)
    assert not line_of_sight(t, "a", "b").visible
    skirm_target = RankedFormation.skirmish(RectBase(25, 25), 5, 5)
    t = table(a=(skirm_target, Placement(36, 10, 0)), b=(skirm_target, Placement(36, 30, 180)))
    los = line_of_sight(t, "a", "b")
    assert los.visible and los.fraction == 1.0


def test_segment_test_agrees_with_shapely() -> None:
    rng = np.random.default_rng(3)
    p0, p1 = rng.uniform(0, 10, (40, 2)), rng.uniform(0, 10, (40, 2))
    q0, q1 = rng.uniform(0, 10, (30, 2)), rng.uniform(0, 10, (30, 2))
    ours = segments_cross(p0, p1, q0, q1)
    a = shapely.linestrings(np.stack([p0, p1], axis=1))
    b = shapely.linestrings(np.stack([q0, q1], axis=1))
    theirs = shapely.intersects(a[:, None], b[None, :])
    assert (ours == theirs).all()


def guard(x: float) -> list[ModelPlacement]:
    """Ten models on 60 mm bases in two staggered rows, 0.04 in apart (a multi-polygon)."""
    big = RoundBase(60)  # 2.36 in
    front = [ModelPlacement(x + 2.4 * k, 20.0, big) for k in range(5)]
    return front + [ModelPlacement(x + 1.2 + 2.4 * k, 22.5, big) for k in range(5)]


def test_individually_placed_models_block_like_any_unit() -> None:
    """A 40k unit's boundary is its bases (a multi-polygon): standing across every line
    between the two units, it hides the target like a ranked unit would."""
    fp = models_footprint(guard(31.0))
    assert isinstance(fp.boundary, shapely.MultiPolygon)
    t = table(viewer=VIEWER, target=TARGET).with_unit("guard", fp)
    los = line_of_sight(t, "viewer", "target")
    assert not los.visible and los.blockers == ("guard",)
    # Moved aside, it no longer blocks.
    t = table(viewer=VIEWER, target=TARGET).with_unit("guard", models_footprint(guard(45.0)))
    assert line_of_sight(t, "viewer", "target").fraction == 1.0


def test_a_hill_hides_by_its_height() -> None:
    """Issue 19 item 4: a hill (blocks line of sight, height Large, as the Village preset's) hides
    standard and large units behind it; a Gigantic viewer sees over it (the height rule above:
    terrain blocks when its height is at least the greater of the viewer's and the target's)."""
    hill = Terrain("hill", ((20, 19), (52, 19), (52, 22), (20, 22)), TerrainKind.BLOCKS_LOS,
                   Height.LARGE)
    assert not line_of_sight(table(hill, a=VIEWER, b=TARGET), "a", "b").visible
    assert not line_of_sight(table(hill, a=(LARGE, VIEWER[1]), b=TARGET), "a", "b").visible
    giant = RankedFormation(RectBase(25, 25), 20, 5, height=Height.GIGANTIC)
    assert line_of_sight(table(hill, a=(giant, VIEWER[1]), b=TARGET), "a", "b").visible
