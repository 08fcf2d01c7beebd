"""Movement legality (issue 3 item 5; FACTS.md Unit Spacing: more than 1 in from other units and
Impassable Terrain except a unit being charged)."""

from __future__ import annotations

import json
import math

import pytest

from server.geometry import (
    Battlefield,
    ModelPlacement,
    Placement,
    RankedFormation,
    RectBase,
    RoundBase,
    Rule,
    Table,
    Terrain,
    TerrainKind,
    footprint,
    models_footprint,
    move_models,
    move_straight,
    pivot,
    place,
    reform,
    wheel,
)

MM = 1 / 25.4
UNIT = RankedFormation(RectBase(25, 25), 20, 5)  # 125 x 100 mm
W, D = 125 * MM, 100 * MM


def table(*terrain: Terrain, **units: Placement) -> Table:
    return Table(
        Battlefield(72, 48),
        terrain,
        {uid: footprint(UNIT, p) for uid, p in units.items()},
    )


ROCK = Terrain("rock", ((44, 6), (46, 6), (46, 12), (44, 12)), TerrainKind.IMPASSABLE)
# A: front edge centred on (36, 10) facing +y, spans x 33.54..38.46, y 6.06..10.
# B: front edge centred on (36, 20) facing -y, spans y 20..23.94 (front towards A).
BASE = table(ROCK, a=Placement(36, 10, 0), b=Placement(36, 20, 180))

STRAIGHT = [
    # forward, sideways, charging, legal, rule, obstacle
    (8.0, 0.0, (), True, None, None),  # ends 2 in from B
    (8.99, 0.0, (), True, None, None),  # 1.01 in
    (9.0, 0.0, (), False, Rule.UNIT_SPACING, "b"),  # exactly 1 in is "within 1 in"
    (9.5, 0.0, (), False, Rule.UNIT_SPACING, "b"),
    (10.0, 0.0, ("b",), True, None, None),  # charge: base contact is allowed
    (10.5, 0.0, ("b",), False, Rule.UNIT_OVERLAP, "b"),
    (12.0, 0.0, (), False, Rule.MOVING_THROUGH_UNITS, "b"),
    (-6.0, 0.0, (), True, None, None),  # rear edge ends at y 0.06
    (-7.0, 0.0, (), False, Rule.BATTLEFIELD_EDGE, None),
    (0.0, 3.0, (), True, None, None),  # right flank at x 41.46, 2.54 from the rock
    (0.0, 4.6, (), False, Rule.UNIT_SPACING, "rock"),  # 0.94 in from the rock
    (0.0, 6.0, (), False, Rule.IMPASSABLE_TERRAIN, "rock"),
    (0.0, -33.0, (), True, None, None),  # left flank at x 0.54
    (0.0, -34.0, (), False, Rule.BATTLEFIELD_EDGE, None),
]


@pytest.mark.parametrize(("fwd", "side", "charging", "legal", "rule", "obstacle"), STRAIGHT)
def test_straight_moves(
    fwd: float,
    side: float,
    charging: tuple[str, ...],
    legal: bool,
    rule: Rule | None,
    obstacle: str | None,
) -> None:
    r = move_straight(BASE, "a", fwd, side, charging=charging)
    assert (r.legal, r.rule, r.obstacle) == (legal, rule, obstacle)
    assert r.distance == pytest.approx(math.hypot(fwd, side))
    assert r.swept.area == pytest.approx(W * D + W * abs(fwd) + D * abs(side))
    json.dumps(r.to_dict())


def test_moving_through_impassable_terrain_is_illegal_even_if_the_end_is_clear() -> None:
    wall = Terrain("wall", ((35, 14), (37, 14), (37, 15), (35, 15)), TerrainKind.IMPASSABLE)
    t = table(wall, a=Placement(36, 10, 0))
    r = move_straight(t, "a", 12)  # ends with its rear at y 18.06, 3 in past the wall
    assert (r.legal, r.rule, r.obstacle) == (False, Rule.IMPASSABLE_TERRAIN, "wall")


def test_open_and_dangerous_terrain_do_not_stop_a_move() -> None:
    marsh = Terrain("marsh", ((30, 12), (40, 12), (40, 16), (30, 16)), TerrainKind.DANGEROUS)
    r = move_straight(table(marsh, a=Placement(36, 10, 0)), "a", 8)
    assert r.legal


def test_move_distance_allowance() -> None:
    r = move_straight(BASE, "a", 5, max_distance=4)
    assert (r.legal, r.rule) == (False, Rule.MOVE_DISTANCE)
    assert move_straight(BASE, "a", 4, max_distance=4).legal


def test_wheel_90_degrees_of_five_20mm_files() -> None:
    """The outer corner of a 5-wide unit of 20 mm bases travels pi/2 x 100 mm in a 90 degree
    wheel; the inner front corner stays put."""
    f = RankedFormation(RectBase(20, 20), 20, 5)  # 100 x 80 mm
    w, d = 100 * MM, 80 * MM
    t = Table(Battlefield(72, 48), (), {"a": footprint(f, Placement(30, 20, 0))})
    r = wheel(t, "a", 90)
    assert r.legal
    assert r.distance == pytest.approx(math.pi / 2 * w)
    assert r.distance == pytest.approx(math.pi / 2 * 100 / 25.4)
    c = r.footprint.corners
    assert c is not None
    assert c.front_left == pytest.approx((30 - w / 2, 20))  # the pivot
    assert c.front_right == pytest.approx((30 - w / 2, 20 + w))
    assert c.rear_left == pytest.approx((30 - w / 2 + d, 20))
    assert r.placement is not None and r.placement.facing == pytest.approx(90)
    # Swept: both positions plus a quarter disc of the far corner's radius: wd + pi(w²+d²)/4.
    assert r.swept.area == pytest.approx(w * d + math.pi * (w * w + d * d) / 4, rel=1e-3)
    right = wheel(t, "a", -90)
    assert right.distance == pytest.approx(r.distance)
    assert right.footprint.corners is not None
    assert right.footprint.corners.front_right == pytest.approx((30 + w / 2, 20))


def test_wheel_blocked_by_terrain_in_the_arc() -> None:
    """A wheel to the right sweeps across the ground the front-left corner passes."""
    post = Terrain("post", ((37, 13), (38, 13), (38, 14), (37, 14)), TerrainKind.IMPASSABLE)
    t = table(post, a=Placement(36, 10, 0))
    r = wheel(t, "a", -90)
    assert (r.legal, r.rule, r.obstacle) == (False, Rule.IMPASSABLE_TERRAIN, "post")
    # At -50 degrees the front edge stops 0.81 in short of the post: swept clear, spacing not.
    assert (wheel(t, "a", -50).rule, wheel(t, "a", -50).obstacle) == (Rule.UNIT_SPACING, "post")
    assert wheel(t, "a", -30).legal


def test_pivot_about_the_centre() -> None:
    t = table(a=Placement(36, 30, 0))
    start = t.units["a"]
    r = pivot(t, "a", 90)
    assert r.legal
    assert r.footprint.centre == pytest.approx(start.centre)
    assert r.distance == pytest.approx(math.hypot(W / 2, D / 2) * math.pi / 2)
    assert r.swept.area >= start.boundary.area


def test_reform_keeps_the_centre() -> None:
    t = table(a=Placement(36, 30, 0))
    r = reform(t, "a", 10, 90)
    assert r.legal
    assert r.footprint.centre == pytest.approx(t.units["a"].centre)
    assert r.footprint.width == pytest.approx(10 * 25 * MM)
    assert r.footprint.depth == pytest.approx(2 * 25 * MM)
    assert r.distance > 0


def test_free_placement() -> None:
    fp = footprint(UNIT, Placement(36, 21, 0))  # overlaps B
    r = place(BASE, "c", fp)
    assert (r.legal, r.rule, r.obstacle) == (False, Rule.MOVING_THROUGH_UNITS, "b")
    assert place(BASE, "c", footprint(UNIT, Placement(20, 30, 0))).legal


def line(x0: float, y: float, n: int = 3, step: float = 2.5) -> list[ModelPlacement]:
    return [ModelPlacement(x0 + step * i, y, RoundBase(32)) for i in range(n)]


def test_40k_model_moves_distances_and_coherency() -> None:
    enemy = models_footprint(line(30, 30))
    start = line(30, 10)
    t = Table(Battlefield(60, 44), (), {"boyz": models_footprint(start), "enemy": enemy})
    end = line(30, 15)
    r = move_models(t, "boyz", start, end, max_distance=6)
    assert r.legal and r.model_distances == pytest.approx((5, 5, 5))
    far = end[:2] + [ModelPlacement(40, 15, RoundBase(32))]
    r = move_models(t, "boyz", start, far, max_distance=12)
    assert (r.legal, r.rule, r.incoherent) == (False, Rule.UNIT_COHERENCY, (2,))
    assert move_models(t, "boyz", start, end, max_distance=4).rule is Rule.MOVE_DISTANCE
    # 32 mm bases: centres 1.86 in apart leave a 0.6 in gap: inside Engagement Range.
    close = line(30, 30 - 1.86)
    r = move_models(t, "boyz", start, close, ignore=())
    assert (r.legal, r.rule) == (False, Rule.ENGAGEMENT_RANGE)
    assert r.obstacle == "enemy"
    touching = line(30, 30 - 32 * MM)
    assert move_models(t, "boyz", start, touching, charging={"enemy"}).legal


def test_40k_models_pass_friendly_models_but_never_end_on_them() -> None:
    """Warhammer 40,000 10th-edition core rules, Moving: a model may move through friendly
    models, but no model can end a move on top of another model."""
    start = line(30, 10)
    friends = models_footprint(line(30, 14))
    t = Table(Battlefield(60, 44), (), {"boyz": models_footprint(start), "grots": friends})
    through = line(30, 18)
    assert move_models(t, "boyz", start, through, ignore={"grots"}, max_distance=9).legal
    on_top = line(30, 14.3)
    r = move_models(t, "boyz", start, on_top, ignore={"grots"}, max_distance=9)
    assert (r.legal, r.rule, r.obstacle) == (False, Rule.MODEL_OVERLAP, "grots")
    beside = line(30 + 8, 14)
    assert move_models(t, "boyz", start, beside, ignore={"grots"}, max_distance=9).legal
