"""The 9th Age attack tables (../shared/rules/FACTS.md, "The 9th Age")."""

from __future__ import annotations


def to_hit(offensive_skill: int, defensive_skill: int) -> int:
    """Melee to-hit: Offensive Skill minus Defensive Skill.
    >= 4: 2+; 1..3: 3+; 0..-3: 4+; -4..-7: 5+; <= -8: 6+."""
    diff = offensive_skill - defensive_skill
    if diff >= 4:
        return 2
    if diff >= 1:
        return 3
    if diff >= -3:
        return 4
    if diff >= -7:
        return 5
    return 6


def to_wound(strength: int, resilience: int) -> int:
    """Strength minus Resilience: >= 2: 2+; 1: 3+; 0: 4+; -1: 5+; <= -2: 6+."""
    diff = strength - resilience
    return {1: 3, 0: 4, -1: 5}.get(diff, 2 if diff >= 2 else 6)


def save(armour: int, penetration: int) -> int | None:
    """Armour save: roll >= 7 - (Armour - Armour Penetration); 0 or less armour: no save.
    A natural 1 always fails, so the best save is 2+."""
    left = armour - penetration
    if left <= 0:
        return None
    return max(2, 7 - left)


def shooting_to_hit(aim: int) -> int:
    """Shooting to-hit before modifiers: the model's Aim (a target number, e.g. 4+)."""
    return aim
