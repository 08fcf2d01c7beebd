"""Property tests (hypothesis): models never overlap, legal moves keep Unit Spacing, distance
is symmetric, a unit always sees itself, every point around a unit is in some arc."""

from __future__ import annotations

import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.geometry import (
    UNIT_SPACING_IN,
    Alignment,
    Battlefield,
    Character,
    Placement,
    RankedFormation,
    RectBase,
    Table,
    arcs_of_point,
    distance,
    footprint,
    line_of_sight,
    move_straight,
    overlapping_models,
    wheel,
)

base_sizes = st.sampled_from([20.0, 25.0, 30.0, 40.0, 50.0])


@st.composite
def formations(draw: st.DrawFn) -> RankedFormation:
    w = draw(base_sizes)
    d = draw(st.sampled_from([w, 50.0, 60.0]))
    files = draw(st.integers(1, 10))
    models = draw(st.integers(1, 40))
    gap = draw(st.sampled_from([0.0, 12.5 / 25.4, 0.5]))
    chars: tuple[Character, ...] = ()
    if draw(st.booleans()):
        cw = draw(base_sizes)
        chars = (Character(RectBase(cw, draw(base_sizes))),)
        files = max(files, 3)
    return RankedFormation(
        RectBase(w, d),
        models,
        files,
        last_rank=draw(st.sampled_from(list(Alignment))),
        gap_in=gap,
        characters=chars,
    )


placements = st.builds(
    Placement,
    st.floats(10, 62, allow_nan=False),
    st.floats(10, 38, allow_nan=False),
    st.floats(0, 360, allow_nan=False, exclude_max=True),
)


@given(formations(), placements)
@settings(max_examples=150, deadline=None)
def test_models_never_overlap(formation: RankedFormation, placement: Placement) -> None:
    try:
        fp = footprint(formation, placement)
    except ValueError:
        return  # a character too wide for the files asked for is refused, not drawn
    assert not overlapping_models(fp)
    assert fp.boundary.is_valid
    grown = fp.boundary.buffer(1e-9)
    assert all(grown.covers(p) for p in fp.model_polygons)


@given(formations(), placements, formations(), placements)
@settings(max_examples=100, deadline=None)
def test_distance_is_symmetric(
    fa: RankedFormation, pa: Placement, fb: RankedFormation, pb: Placement
) -> None:
    try:
        a, b = footprint(fa, pa), footprint(fb, pb)
    except ValueError:
        return
    ab, ba = distance(a, b), distance(b, a)
    assert ab.distance == ba.distance
    assert ab.from_point == ba.to_point and ab.to_point == ba.from_point
    assert ab.distance >= 0


@given(formations(), placements)
@settings(max_examples=30, deadline=None)
def test_line_of_sight_to_self_is_clear(formation: RankedFormation, placement: Placement) -> None:
    try:
        fp = footprint(formation, placement)
    except ValueError:
        return
    los = line_of_sight(Table(units={"u": fp}), "u", "u")
    assert los.visible and los.fraction == 1.0 and los.blockers == ()


OTHERS = [
    (RankedFormation(RectBase(25, 25), 20, 5), Placement(36, 24, 180)),
    (RankedFormation(RectBase(20, 20), 10, 5), Placement(20, 30, 45)),
    (RankedFormation(RectBase(40, 40), 3, 3), Placement(50, 14, 270)),
]


@given(
    st.floats(25, 45),
    st.floats(8, 20),
    st.floats(0, 360, exclude_max=True),
    st.floats(-12, 12),
    st.floats(-6, 6),
    st.floats(-120, 120),
)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_legal_move_never_ends_within_an_inch_of_another_unit(
    x: float, y: float, facing: float, fwd: float, side: float, turn: float
) -> None:
    """Unit Spacing (FACTS.md): a legal move ends more than 1 in from every other unit."""
    mover = footprint(RankedFormation(RectBase(25, 25), 10, 5), Placement(x, y, facing))
    units = {f"o{i}": footprint(f, p) for i, (f, p) in enumerate(OTHERS)}
    table = Table(Battlefield(72, 48), (), {**units, "m": mover})
    for result in (move_straight(table, "m", fwd, side), wheel(table, "m", turn)):
        if result.legal:
            for other in units.values():
                assert distance(result.footprint, other).distance > UNIT_SPACING_IN
                assert not shapely.intersects(result.swept, other.boundary)
            assert table.battlefield.polygon.buffer(1e-9).covers(result.swept)


@given(placements, st.floats(-30, 30), st.floats(-30, 30))
@settings(max_examples=100, deadline=None)
def test_every_point_outside_a_unit_is_in_some_arc(p: Placement, dx: float, dy: float) -> None:
    fp = footprint(RankedFormation(RectBase(25, 25), 12, 4), p)
    point = (p.x + dx, p.y + dy)
    if not fp.boundary.contains(shapely.Point(point)):
        assert arcs_of_point(fp, point)
