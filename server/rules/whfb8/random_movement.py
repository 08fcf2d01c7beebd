"""Random Movement (whfb8; FACTS.md "whfb8": "pivot, roll, move straight ahead; contact with an
enemy is a charge with no charge reactions; coming within 1 in of a friendly unit or
impassable terrain stops the move"; the rule's text on the Fanatic page, seed 003).

1. **No M value, a roll** (`movement_dice`): the datasheet's M is a dice expression ("2D6");
   several model kinds with Random Movement roll once and use the slowest (the lowest
   average); Swiftstride is not used.
2. **No march, no charge declared** (`charge_refusal`, `march_refusal`).
3. **Fanatics cannot be charged** (`charge_target_refusal`, seed 003).
4. **The move** (`random_move_events`, the `random_move` action for units that are not
   Fanatics): pivot about the centre, roll once, move straight. The line is followed in
   order: the move stops 1 in short of the first friendly unit or impassable terrain it meets
   (the page: it "stops immediately"), so an enemy beyond is never reached; an enemy reached
   in the front arc before that point is charged (no reaction); otherwise it also stops at any
   other unit or the table edge.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import shapely

from server.data import Datasheet, load_catalog
from server.dice import parse_expression
from server.rules.core import Event, GameState
from server.rules.naming import display_name, say_inches
from server.rules.units import table_of, terrain_of, units_of
from server.rules.whfb8.profiles import stats

RULE = "Random Movement"


def has_random_movement(sheet: Datasheet) -> bool:
    return sheet.has_rule(RULE)


def _average(expression: str) -> float:
    spec = parse_expression(expression)
    return spec.count * (spec.sides + 1) / 2 + spec.constant


def movement_dice(sheets: Sequence[Datasheet]) -> str | None:
    """The one roll of a unit with Random Movement: the slowest of its models' (FACTS.md;
    the rule: "use the slowest for the entire unit"); None without Random Movement."""
    rolls = []
    for sheet in sheets:
        rule = sheet.rule(RULE)
        if rule is not None:
            rolls.append(str(rule.param or stats(sheet).M).strip())
    if not rolls:
        return None
    return min(rolls, key=_average)


def _sheets(state: GameState, unit_id: str) -> list[Datasheet]:
    unit = units_of(state)[unit_id]
    catalog = load_catalog()
    return [catalog.get(state.system, unit.datasheet)] + [
        catalog.get(state.system, c.datasheet) for c in unit.characters
    ]


def random_movement_charge_refusal(state: GameState, unit_id: str) -> tuple[str, str] | None:
    """Models with Random Movement cannot declare charges (seed 003)."""
    if any(has_random_movement(s) for s in _sheets(state, unit_id)):
        name = display_name(state, unit_id)
        return RULE, f"{name} has Random Movement: it cannot declare charges"
    return None


def random_movement_march_refusal(
    name: str, sheets: Sequence[Datasheet]
) -> tuple[str, str] | None:
    """Models with Random Movement cannot march (seed 003)."""
    if any(has_random_movement(s) for s in sheets):
        return RULE, f"{name} has Random Movement: it cannot march"
    return None


def charge_target_refusal(state: GameState, target_id: str) -> tuple[str, str] | None:
    """Fanatics cannot be charged (seed 003)."""
    target = units_of(state)[target_id]
    if load_catalog().get(state.system, target.datasheet).has_rule("Fanatic Impacts"):
        return "Fanatic Impacts", (
            f"{display_name(state, target_id)} cannot be charged (a Night Goblin Fanatic)"
        )
    return None


# --- the move of a unit with Random Movement (not a Fanatic) --------------------------------

DANGEROUS_NOTE = "Dangerous Terrain: not automated"
"""Seed 003: "A Random Move counts as a "normal" move for triggering a Dangerous Terrain test,
unless the model is making a charge, pursuit or flee move". Warfield has no Dangerous Terrain
test at all yet, so a random move that crosses dangerous terrain says so to the players."""


def dangerous_terrain(state: GameState, swept: Any, kind: str) -> dict[str, Any]:
    """`not_automated` and the words to add when `swept` crosses dangerous terrain: which
    pieces, and which test the rules ask for (`kind`: "normal move" or "charge")."""
    from server.geometry.kinds import TerrainKind
    from server.rules.naming import display_names

    crossed = [t.id for t in terrain_of(state)
               if t.kind == TerrainKind.DANGEROUS and shapely.Polygon(t.points).intersects(swept)]
    if not crossed:
        return {}
    return {
        "dangerous_terrain": crossed,
        "not_automated": f"{DANGEROUS_NOTE}: the move crossed {display_names(state, crossed)}; "
        f"take its Dangerous Terrain test for a {kind} by hand",
    }

STOP_IN = 1.0
"""FACTS.md: within 1 in of a friendly unit or impassable terrain the random move stops."""
SAMPLE_IN = 0.1
BISECT_STEPS = 40


def _first_stop(blocked: Callable[[float], bool], rolled: float) -> float:
    """The fraction of the rolled line moved before `blocked` first holds: 1.0 when it never
    does, 0.0 when it holds at the start; sampled every `SAMPLE_IN`, then bisected."""
    if blocked(0.0):
        return 0.0
    if not blocked(1.0) and rolled <= 0:
        return 1.0
    steps = max(1, math.ceil(rolled / SAMPLE_IN))
    lo, hi = 0.0, None
    for i in range(1, steps + 1):
        if blocked(i / steps):
            hi = i / steps
            break
        lo = i / steps
    if hi is None:
        return 1.0
    for _ in range(BISECT_STEPS):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if blocked(mid) else (mid, hi)
    return lo


def random_move_events(
    state: GameState, seat: int, unit_id: str, facing: float, dice: Any
) -> list[Event]:
    """FACTS.md / seed 003: pivot about its centre to face `facing`, roll, move straight ahead.
    The straight line is measured first: an enemy it would reach with its front counts as
    charged (the rolled distance is the range; no charge reaction) if the line reaches it before
    coming within 1 in of a friendly unit or impassable terrain; otherwise it stops at the
    first point within 1 in of a friendly unit or impassable terrain, before any other unit,
    or at the table edge (**Decision**)."""
    from server import geometry as geo
    from server.geometry.footprint import footprint, placement_for_centre
    from server.geometry.movement import sweep_straight
    from server.rules.charge import contact_placement

    unit = units_of(state)[unit_id]
    table = table_of(state)
    fp = table.units[unit_id]
    assert fp.formation is not None
    centre = fp.boundary.centroid
    start = footprint(fp.formation, placement_for_centre(fp.formation, (centre.x, centre.y),
                                                         facing % 360.0))
    assert start.placement is not None
    expression = movement_dice(_sheets(state, unit_id)) or "2D6"
    roll = dice.roll(expression)
    rolled = float(roll.total or 0)
    p0, formation = start.placement, fp.formation

    def path(t: float) -> Any:
        return footprint(formation, p0.moved(rolled * t))

    units = units_of(state)
    others = [uid for uid in table.units if uid != unit_id]
    blockers = [
        table.units[uid].boundary for uid in others
        if units[uid].owner == unit.owner
    ] + [shapely.Polygon(t.points) for t in terrain_of(state) if t.impassable]
    strangers = [table.units[uid].boundary for uid in others if units[uid].owner != unit.owner]
    w, h = state.battlefield.width, state.battlefield.depth

    at_start = [geo.distance(path(0.0).boundary, b).distance for b in blockers]

    def walled(t: float) -> bool:
        """Over the table edge, or brought within 1 in of a friend or impassable terrain: one
        already that close when the move began stops it only once the move gets closer still
        (**Decision**: the page stops a move that "brings" the unit within 1 in)."""
        here = path(t).boundary
        minx, miny, maxx, maxy = here.bounds
        if minx < 0 or miny < 0 or maxx > w or maxy > h:
            return True
        for b, d0 in zip(blockers, at_start, strict=True):
            d = geo.distance(here, b).distance
            if d <= STOP_IN and (d0 > STOP_IN or d < d0 - 1e-6):
                return True
        return False

    def blocked(t: float) -> bool:
        return walled(t) or any(geo.in_base_contact(path(t).boundary, b) for b in strangers)

    # The page stops the move "immediately" within 1 in of a friend or impassable terrain: what
    # lies beyond that point is never reached, so the enemy contact is looked for only along
    # the part of the line before it (a charge cannot pass through friends or a rock).
    wall = _first_stop(walled, rolled)
    full = sweep_straight(start, path(wall))
    enemies = [
        uid for uid in others
        if units[uid].owner != unit.owner and geo.in_base_contact(table.units[uid].boundary, full)
    ]
    base: dict[str, Any] = {"unit": unit_id, "roll": roll.to_payload(), "facing": facing % 360.0,
                            "rule": RULE}
    if enemies:
        first = min(enemies, key=lambda uid: geo.distance(start, table.units[uid]).distance)
        aim = table.units[first]
        placement, arc = contact_placement(start, aim)
        gap = geo.distance(start, aim).distance
        nearest = geo.distance(start, aim).to_point
        front = bool(geo.in_front_arc(start, np.array([nearest]))[0])
        if front and gap <= rolled * wall + 1e-9:
            moved = dataclasses.replace(
                unit, placement=(round(placement.x, 4), round(placement.y, 4),
                                 round(placement.facing, 4)))
            end = footprint(formation, placement)
            charged = sweep_straight(start, end)
            danger = dangerous_terrain(state, charged, "charge")
            return [Event("charge_succeeded", {
                **base, "target": first, "distance": round(gap, 3), "bonus": 0, "range": rolled,
                "arc": str(arc), "swept": geo.to_geojson(charged),
                "unit_after": moved.to_json(), **danger,
                "text": f"{display_name(state, unit_id)} (Random Movement) roll {rolled:g} in and "
                f"reach {display_name(state, first)}: it counts as charging, no charge reaction"
                + (f" ({danger['not_automated']})" if danger else ""),
            }, actor=seat)]
    stop = _first_stop(blocked, rolled)
    # Fanatics (seed 003): a random move that brings the unit and a concealing unit within 8 in
    # stops there too; the Fanatics are released and the random move ends (**Decision**).
    from server.rules.whfb8.fanatics import move_stop

    released = move_stop(state, unit_id, lambda t: path(t * stop)) if stop > 0 else None
    after: list[Event] = []
    if released is not None:
        stop, after = stop * released[0], released[1]
    end = path(stop)
    assert end.placement is not None
    moved = dataclasses.replace(unit, placement=(
        round(end.placement.x, 4), round(end.placement.y, 4), round(end.placement.facing, 4)))
    swept = sweep_straight(start, end)
    danger = dangerous_terrain(state, swept, "normal move")
    return [Event("unit_moved", {
        **base, "unit": moved.to_json(), "manoeuvre": "random", "mode": "random",
        "distance": round(rolled * stop, 4), "used": round(rolled * stop, 4),
        "swept": geo.to_geojson(swept),
        "stopped": stop < 1.0, **danger,
        "text": f"{display_name(state, unit_id)} (Random Movement) roll {rolled:g} in"
        + (f" and stop after {say_inches(rolled * stop)} (1 in from a friend, impassable terrain "
           "or another unit, the table edge, or to release Fanatics)" if stop < 1.0 else "")
        + (f" ({danger['not_automated']})" if danger else ""),
    }, actor=seat), *after]
