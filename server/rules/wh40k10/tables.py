"""Warhammer 40,000 10th edition attack tables (../shared/rules/FACTS.md)."""

from __future__ import annotations


def to_hit(skill: int, _defender: int = 0) -> int:
    """Hit on a roll >= the weapon's BS or WS (a target number, e.g. 3 for 3+)."""
    return max(2, skill)


def to_wound(strength: int, toughness: int) -> int:
    """S >= 2T: 2+; S > T: 3+; S = T: 4+; S < T: 5+; S <= T/2: 6+."""
    if strength >= 2 * toughness:
        return 2
    if strength > toughness:
        return 3
    if strength == toughness:
        return 4
    if 2 * strength <= toughness:
        return 6
    return 5


def save(save_characteristic: int, armour_penetration: int, invulnerable: int | None = None) -> (
    int | None
):
    """Roll >= Sv - AP (AP is 0 or negative: -3 worsens a 3+ to 6+); an invulnerable save
    ignores AP and is used when better. None: no save possible."""
    armour = save_characteristic - armour_penetration
    best = min(armour, invulnerable) if invulnerable else armour
    best = max(2, best)
    return best if best <= 6 else None
