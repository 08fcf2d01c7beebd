"""The `shoot` order tells the client what the shooter may see and reach before a click (issue
19 item 7): each weapon's area in range and in the front arc, and per enemy unit the distance,
how much of it is seen and its cover. The judgement is `shooting.aim` (range between the Unit
Boundaries' closest points, FACTS.md "Distances"; front arc and line of sight, FACTS.md "Arcs",
"Line of Sight"), the one `shoot` makes."""

from __future__ import annotations

import shapely
from shapely.geometry import shape

from server.rules.orders import orders_for
from server.rules.units import units_of
from tests.rules.helpers import Game
from tests.rules.test_orders import ARCHERS, SPEARS, deploy


def test_the_shoot_order_carries_weapon_areas_and_each_targets_distance_sight_cover() -> None:
    game = Game("t9a")
    game.act(1, type="submit_army", units=[ARCHERS])
    game.act(2, type="submit_army", units=[SPEARS, SPEARS])
    archers = next(u.id for u in units_of(game.state).values() if u.owner == 1)
    ahead, behind = sorted(u.id for u in units_of(game.state).values() if u.owner == 2)
    deploy(game, {archers: (30, 8, 0), ahead: (30, 40, 180), behind: (60, 44, 180)})
    game.to_phase(1, "Shooting")
    # The second Spears stand behind the Archers: out of their front arc.
    game.put(behind, 30, 2, 0)
    game.put(ahead, 30, 30, 180)
    shoot = orders_for(game.state, 1)["units"][archers]["shoot"]
    assert shoot["available"], shoot
    weapon = shoot["weapons"][0]
    area = shape(weapon["area"])
    # In range straight ahead of the front edge; not behind the unit; not beyond the range.
    assert area.contains(shapely.Point(30, 8 + weapon["range"] - 0.5))
    assert not area.contains(shapely.Point(30, 8 + weapon["range"] + 0.5))
    assert not area.contains(shapely.Point(30, 1))
    by_unit = {t["unit"]: t for t in shoot["targets"]}
    seen = by_unit[ahead]
    assert seen["available"] and seen["distance"] is not None
    assert 0 < seen["seen"] <= 1 and seen["cover"] in ("none", "soft", "hard")
    # Front edge to front edge: 30 - 8 in.
    assert abs(seen["distance"] - 22) < 0.05, seen
    hidden = by_unit[behind]
    assert not hidden["available"] and hidden["seen"] is None
    assert "front arc" in hidden["reason"]

