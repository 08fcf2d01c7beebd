"""The 9th Age to-hit, to-wound and armour tables (../shared/rules/FACTS.md, "The 9th Age")."""

from __future__ import annotations

import pytest

from server.rules.systems import find_system, roll_succeeds
from server.rules.t9a import tables


@pytest.mark.parametrize(
    ("offensive", "defensive", "needed"),
    [(7, 3, 2), (4, 3, 3), (6, 3, 3), (3, 3, 4), (3, 6, 4), (3, 7, 5), (1, 8, 5), (1, 9, 6)],
)
def test_to_hit_by_skill_difference(offensive: int, defensive: int, needed: int) -> None:
    assert tables.to_hit(offensive, defensive) == needed


@pytest.mark.parametrize(
    ("strength", "resilience", "needed"),
    [(5, 3, 2), (4, 3, 3), (3, 3, 4), (2, 3, 5), (1, 3, 6), (1, 6, 6)],
)
def test_to_wound_by_strength_minus_resilience(strength: int, resilience: int, needed: int) -> None:
    assert tables.to_wound(strength, resilience) == needed


@pytest.mark.parametrize(
    ("armour", "penetration", "needed"),
    [(0, 0, None), (1, 0, 6), (3, 0, 4), (3, 1, 5), (3, 3, None), (6, 0, 2), (7, 0, 2)],
)
def test_armour_save_is_seven_minus_armour_left(
    armour: int, penetration: int, needed: int | None
) -> None:
    assert tables.save(armour, penetration) == needed


def test_natural_one_fails_and_six_succeeds() -> None:
    assert not roll_succeeds(1, 2)
    assert roll_succeeds(6, 7)
    assert roll_succeeds(4, 4) and not roll_succeeds(3, 4)
    assert not roll_succeeds(6, None)


def test_system_registers_its_tables_and_turn() -> None:
    system = find_system("t9a")
    assert system.tables.to_hit(3, 3) == 4
    assert system.phases == ("Charge", "Movement", "Magic", "Shooting", "Melee")
    assert system.turns == 6 and system.charge_phases == ("Charge",)
