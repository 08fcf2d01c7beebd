"""Warhammer 40,000 10th edition attack tables (../shared/rules/FACTS.md)."""

from __future__ import annotations

import pytest

from server.rules.systems import find_system
from server.rules.wh40k10 import tables


@pytest.mark.parametrize(
    ("s", "t", "needed"), [(10, 5, 2), (6, 5, 3), (5, 5, 4), (4, 5, 5), (3, 5, 5), (2, 5, 6)]
)
def test_wound_roll_by_strength_against_toughness(s: int, t: int, needed: int) -> None:
    assert tables.to_wound(s, t) == needed


@pytest.mark.parametrize(
    ("sv", "ap", "invuln", "needed"),
    [(3, 0, None, 3), (3, -3, None, 6), (5, -3, None, None), (5, -3, 5, 5), (2, -1, 4, 3)],
)
def test_save_with_armour_penetration_and_invulnerable(
    sv: int, ap: int, invuln: int | None, needed: int | None
) -> None:
    assert tables.save(sv, ap, invuln) == needed


def test_hit_and_registration() -> None:
    assert tables.to_hit(3) == 3
    system = find_system("wh40k10")
    assert system.turns == 5 and system.battlefield.width == 60.0
