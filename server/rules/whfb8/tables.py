"""Warhammer Fantasy Battle 8th edition attack tables (../shared/rules/FACTS.md)."""

from __future__ import annotations


def to_hit(weapon_skill: int, target_weapon_skill: int) -> int:
    """Close combat: 3+ if your WS is higher than the target's, 5+ if the target's WS is more
    than double yours, else 4+."""
    if weapon_skill > target_weapon_skill:
        return 3
    if target_weapon_skill > 2 * weapon_skill:
        return 5
    return 4


def to_wound(strength: int, toughness: int) -> int | None:
    """S >= T+2: 2+; T+1: 3+; equal: 4+; T-1: 5+; T-2 or T-3: 6+; T-4 or worse: cannot wound."""
    diff = strength - toughness
    if diff >= 2:
        return 2
    if diff <= -4:
        return None
    return {1: 3, 0: 4, -1: 5}.get(diff, 6)


def save(armour_save: int, strength: int) -> int | None:
    """The armour save (a target number, e.g. 5 for 5+) worsened by the attack's Strength:
    S4 -1, S5 -2, ... S10 -7. A save that would need more than 6 is lost; 1 always fails."""
    if armour_save <= 0:
        return None
    needed = max(2, armour_save + max(0, strength - 3))
    return needed if needed <= 6 else None


def shooting_to_hit(ballistic_skill: int) -> int:
    """Shooting before modifiers: 7 - BS (BS 3 hits on 4+), never better than 2+."""
    return max(2, 7 - ballistic_skill)
