"""Formations to footprints: sizes, corners, ranks and files, characters, skirmish gaps."""

from __future__ import annotations

import json
import math

import pytest
import shapely

from server.geometry import (
    SKIRMISH_GAP_T9A_IN,
    SKIRMISH_GAP_WHFB8_IN,
    Alignment,
    Character,
    ModelPlacement,
    Placement,
    RankedFormation,
    RectBase,
    RoundBase,
    coherency,
    footprint,
    models_footprint,
    overlapping_models,
    placement_for_centre,
)

MM = 1 / 25.4
W125 = 125 * MM  # 5 files of 25 mm
D100 = 100 * MM  # 4 ranks of 25 mm


def approx_pt(p: tuple[float, float]) -> object:
    return pytest.approx(p, abs=1e-9)


def test_five_wide_twenty_models_on_25mm_is_125_by_100_mm() -> None:
    fp = footprint(RankedFormation(RectBase(25, 25), 20, 5), Placement(10, 10, 0))
    assert fp.width == pytest.approx(W125)
    assert fp.depth == pytest.approx(D100)
    assert fp.boundary.area == pytest.approx(W125 * D100)
    assert len(fp.models) == 20
    assert {(m.rank, m.file) for m in fp.models} == {(r, f) for r in range(4) for f in range(5)}


# (facing, front_left, front_right, rear_left, rear_right) for a 125 x 100 mm unit whose front
# edge is centred on (10, 10); worked by hand from the conventions (facing 90 looks along -x).
H, D = W125 / 2, D100
CORNERS = [
    (0, (10 - H, 10), (10 + H, 10), (10 - H, 10 - D), (10 + H, 10 - D)),
    (90, (10, 10 - H), (10, 10 + H), (10 + D, 10 - H), (10 + D, 10 + H)),
    (180, (10 + H, 10), (10 - H, 10), (10 + H, 10 + D), (10 - H, 10 + D)),
    (270, (10, 10 + H), (10, 10 - H), (10 - D, 10 + H), (10 - D, 10 - H)),
]


@pytest.mark.parametrize(("facing", "fl", "fr", "rl", "rr"), CORNERS)
def test_corners_after_turning(
    facing: float,
    fl: tuple[float, float],
    fr: tuple[float, float],
    rl: tuple[float, float],
    rr: tuple[float, float],
) -> None:
    fp = footprint(RankedFormation(RectBase(25, 25), 20, 5), Placement(10, 10, facing))
    assert fp.corners is not None
    assert fp.corners.front_left == approx_pt(fl)
    assert fp.corners.front_right == approx_pt(fr)
    assert fp.corners.rear_left == approx_pt(rl)
    assert fp.corners.rear_right == approx_pt(rr)
    assert fp.front_centre == approx_pt((10, 10))


def test_centre_is_middle_of_the_rectangle() -> None:
    fp = footprint(RankedFormation(RectBase(25, 25), 20, 5), Placement(10, 10, 90))
    assert fp.centre == approx_pt((10 + D100 / 2, 10))
    again = placement_for_centre(fp.formation, fp.centre, 90)  # type: ignore[arg-type]
    assert (again.x, again.y) == approx_pt((10, 10))


@pytest.mark.parametrize(
    ("alignment", "files"),
    [(Alignment.CENTRE, {1, 2}), (Alignment.LEFT, {0, 1}), (Alignment.RIGHT, {3, 4})],
)
def test_incomplete_last_rank_alignment(alignment: Alignment, files: set[int]) -> None:
    """22 models 5 wide: four full ranks and 2 models in the fifth, placed as chosen
    (centred as near as files allow)."""
    fp = footprint(RankedFormation(RectBase(20, 20), 22, 5, last_rank=alignment), Placement(0, 0))
    last = {m.file for m in fp.models if m.rank == 4}
    assert last == files
    # The Unit Boundary follows the step: 4 full ranks plus the 2-model rank.
    w, d = 20 * MM, 20 * MM
    assert fp.boundary.area == pytest.approx(5 * w * 4 * d + 2 * w * d)
    assert fp.depth == pytest.approx(5 * d)


def test_fewer_models_than_files_make_a_single_short_rank() -> None:
    fp = footprint(RankedFormation(RectBase(20, 20), 3, 5), Placement(0, 0))
    assert fp.width == pytest.approx(60 * MM)
    assert {m.rank for m in fp.models} == {0}


def test_matching_character_takes_a_front_rank_slot() -> None:
    f = RankedFormation(RectBase(20, 20), 9, 5, characters=(Character(RectBase(20, 20), file=0),))
    fp = footprint(f, Placement(0, 0))
    chars = [m for m in fp.models if m.character is not None]
    assert [(m.rank, m.file) for m in chars] == [(0, 0)]
    assert fp.boundary.area == pytest.approx(10 * (20 * MM) ** 2)
    assert not overlapping_models(fp)


def test_mismatched_character_takes_a_block_of_the_grid() -> None:
    """A 50 x 50 mm character in a unit of 25 mm bases takes 2 files x 2 ranks of the front,
    centred as near as it fits (files 1-2 of 5); the rank-and-file fill the rest."""
    f = RankedFormation(RectBase(25, 25), 16, 5, characters=(Character(RectBase(50, 50)),))
    fp = footprint(f, Placement(0, 0))
    char = next(m for m in fp.models if m.character == 0)
    assert (char.rank, char.file) == (0, 1)
    minx, miny, maxx, maxy = char.polygon.bounds
    assert (minx, maxy) == approx_pt((-W125 / 2 + 25 * MM, 0.0))
    assert (maxx - minx, maxy - miny) == approx_pt((50 * MM, 50 * MM))
    # 5x4 grid: 4 slots for the character, 16 rank-and-file.
    assert fp.boundary.area == pytest.approx(W125 * D100)
    assert not overlapping_models(fp)


def test_skirmish_boundary_includes_the_gaps() -> None:
    """Seed 000 Skirmisher: models 12.5 mm apart, the gaps part of the Unit Boundary."""
    f = RankedFormation.skirmish(RectBase(40, 40), 4, 2)
    fp = footprint(f, Placement(0, 0))
    side = (40 + 12.5 + 40) * MM
    assert f.gap_in == SKIRMISH_GAP_T9A_IN
    assert fp.width == pytest.approx(side)
    assert fp.depth == pytest.approx(side)
    assert fp.boundary.area == pytest.approx(side * side)
    bases = sum(p.area for p in fp.model_polygons)
    assert bases == pytest.approx(4 * (40 * MM) ** 2)
    assert fp.skirmish


def test_whfb8_skirmish_gap_is_half_an_inch() -> None:
    """Seed 002 Skirmishers: 0.5 in between models."""
    f = RankedFormation.skirmish(RectBase(40, 40), 3, 3, gap_in=SKIRMISH_GAP_WHFB8_IN)
    fp = footprint(f, Placement(0, 0))
    assert fp.width == pytest.approx(3 * 40 * MM + 2 * 0.5)
    gaps = [
        shapely.distance(fp.model_polygons[i], fp.model_polygons[i + 1]) for i in range(2)
    ]
    assert gaps == pytest.approx([0.5, 0.5])


def test_skirmish_incomplete_rank_outline_is_a_valid_staircase() -> None:
    f = RankedFormation.skirmish(RectBase(25, 25), 7, 3)
    fp = footprint(f, Placement(5, 5, 30))
    assert fp.boundary.is_valid
    assert all(p.difference(fp.boundary).area < 1e-12 for p in fp.model_polygons)


def test_geojson_is_json() -> None:
    fp = footprint(RankedFormation(RectBase(25, 25), 20, 5), Placement(10, 10, 0))
    gj = fp.to_geojson()
    text = json.dumps(gj)
    assert gj["type"] == "FeatureCollection"
    assert len(gj["features"]) == 21
    assert gj["features"][0]["geometry"]["type"] == "Polygon"
    assert gj["features"][1]["properties"] == {
        "role": "model", "index": 0, "rank": 0, "file": 0, "character": None,
    }
    assert "NaN" not in text


def test_40k_models_footprint_and_round_bases() -> None:
    ms = [ModelPlacement(10 + 2 * i, 10, RoundBase(32)) for i in range(3)]
    fp = models_footprint(ms)
    assert not fp.ranked and fp.corners is None
    assert len(fp.models) == 3
    r = 16 * MM
    # Inscribed 32-gon: area slightly below pi r^2.
    assert fp.model_polygons[0].area == pytest.approx(math.pi * r * r, rel=0.01)
    assert fp.centre == approx_pt((12, 10))


COHERENCY = [
    # (x positions of 32 mm models in a row, breaking models) - gaps are centre spacing - 32 mm
    ([0, 3], ()),  # gap 3 - 1.26 = 1.74 in
    ([0, 3.3], (0, 1)),  # gap 2.04 in
    ([0, 3, 6, 20], (3,)),
    ([0, 3, 6, 9, 12, 15, 18], (0, 6)),  # 7 models: the ends have only one neighbour
    ([0, 1.5, 3, 4.5, 6, 7.5, 9], ()),
    ([5], ()),
]


@pytest.mark.parametrize(("xs", "broken"), COHERENCY)
def test_40k_coherency(xs: list[float], broken: tuple[int, ...]) -> None:
    """40k Unit Coherency: within 2 in of one other model, of two for units of 7+."""
    assert coherency([ModelPlacement(x, 0, RoundBase(32)) for x in xs]) == broken
