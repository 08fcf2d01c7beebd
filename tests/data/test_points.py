"""Every datasheet has a points value and says where it comes from (issue 17 item 6: Victory
Points are counted from it; the army-lists issue needs it too)."""

from __future__ import annotations

import pytest

from server.data import load_catalog
from server.data.schema import Points

SYSTEMS = ("t9a", "whfb8", "wh40k10")


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_datasheet_has_a_sourced_points_value(system: str) -> None:
    for sheet in load_catalog().datasheets(system):
        assert sheet.points is not None, f"{system}/{sheet.id} has no points"
        assert sheet.points.cost(sheet.models.default) > 0
        assert sheet.sources.get("points"), f"{system}/{sheet.id}: points not sourced"


def test_ranked_costs_add_a_per_model_price_and_40k_costs_go_by_size() -> None:
    """BSData: Citizen Spears 25 + 11 per model (20: 245); Intercessors 80 for 5, 160 for 6+."""
    catalog = load_catalog()
    spears = catalog.get("t9a", "citizen-spears").points
    assert spears is not None and spears.cost(20) == 245
    squad = catalog.get("wh40k10", "intercessor-squad").points
    assert squad is not None and (squad.cost(5), squad.cost(6), squad.cost(10)) == (80, 160, 160)
    assert Points(tiers={10: 80, 11: 170}).cost(20) == 170
