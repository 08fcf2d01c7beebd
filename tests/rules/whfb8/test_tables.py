"""Warhammer Fantasy Battle 8th edition attack tables (../shared/rules/FACTS.md)."""

from __future__ import annotations

import pytest

from server.rules.systems import find_system
from server.rules.whfb8 import tables


@pytest.mark.parametrize(
    ("ws", "target_ws", "needed"), [(4, 3, 3), (3, 3, 4), (3, 6, 4), (3, 7, 5), (2, 5, 5)]
)
def test_close_combat_to_hit(ws: int, target_ws: int, needed: int) -> None:
    assert tables.to_hit(ws, target_ws) == needed


@pytest.mark.parametrize(
    ("s", "t", "needed"),
    [(5, 3, 2), (4, 3, 3), (3, 3, 4), (2, 3, 5), (2, 4, 6), (2, 5, 6), (2, 6, None), (1, 7, None)],
)
def test_to_wound(s: int, t: int, needed: int | None) -> None:
    assert tables.to_wound(s, t) == needed


@pytest.mark.parametrize(
    ("armour_save", "strength", "needed"),
    [(5, 3, 5), (5, 4, 6), (5, 5, None), (4, 4, 5), (1, 3, 2), (3, 10, None), (0, 3, None)],
)
def test_armour_save_worsened_by_strength(
    armour_save: int, strength: int, needed: int | None
) -> None:
    assert tables.save(armour_save, strength) == needed


def test_shooting_and_registration() -> None:
    assert tables.shooting_to_hit(3) == 4 and tables.shooting_to_hit(6) == 2
    system = find_system("whfb8")
    assert system.charge_phases == ("Movement",) and system.phases[0] == "Start"
