"""Warhammer Fantasy Battle 8th edition: its attack profiles and the numbers and named rules of
each attack step (../shared/rules/FACTS.md "whfb8: the battle"; the Tomb Swarm page,
../shared/seeds/002_20fe50c61f72ab35.txt).

The steps are the shared rank-and-flank ones (server/rules/rankandflank/attacks.py); this is
what whfb8 puts in them, as `WHFB8AttackSteps`:

1. **To hit**: close combat on the WS table (server/rules/whfb8/tables.py; **Fear**: a unit
   that failed its Fear test has WS 1 this round, attacking and attacked); shooting 7 - BS with
   the modifiers the caller passes (long range, moved, cover, Multiple Shots, Light Troops). A
   needed 7, 8 or 9 is a 6 followed by 4+, 5+ or 6+ (`hit_follow_up`); 10 or more cannot hit.
2. **To wound**: S against T; the page's **Poisoned Attacks** add +1 (a 6+ becomes 5+; a hit
   that cannot wound still cannot). The rulebook's **Poisoned Attacks** instead wound
   automatically on a 6 to hit (`auto_wounds`; not when a 7+ was needed: the shared steps skip
   automatic wounds then).
3. **Armour save**: the save (Animated Construct: 5+) worsened by Strength (S4 -1, S5 -2 ...)
   and Armour Piercing (-1 more each); worse than 6+ is no save; a natural 1 always fails.
4. **Ward save** (never modified): the profile's ward save, or **Parry** (6+, close combat from
   the front, a hand weapon and shield); the best one, never both.

Poisoned Attacks of both texts apply to the model's own shooting and close combat attacks
(the page: "not spells, special attacks or magic weapons"; those are not attack batches of the
shared pipeline, so nothing here can reach them).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from server.rules.rankandflank.attacks import (
    MELEE,
    SHOOTING,
    AttackKind,
    AttackSteps,
    AutoWounds,
    Modifier,
    RuleNote,
    SpecialSave,
)
from server.rules.whfb8 import profiles, tables

FEAR_WS = 1
SEVEN_PLUS = "To Hit 7+"
"""The rulebook's words for a roll needed past 6 (a 6, then 4+ / 5+ / 6+)."""


@dataclass(frozen=True)
class Strike:
    """Attacks with one profile: close combat attacks (WS) or shots of one weapon (BS).

    `poisoned`: "page" (+1 to wound), "rulebook" (a 6 to hit wounds) or None; `feared`: the
    attackers failed a Fear test this round (WS 1)."""

    name: str
    attacks: int
    strength: int
    kind: AttackKind = MELEE
    weapon_skill: int = 0
    ballistic_skill: int = 0
    armour_piercing: int = 0
    poisoned: str | None = None
    feared: bool = False
    hits_per_hit: int = 1


@dataclass(frozen=True)
class Guard:
    """The defensive profile of the models the attacks go to."""

    name: str
    weapon_skill: int
    toughness: int
    save: int | None
    save_rule: str | None = None
    ward: int | None = None
    parry: bool = False
    feared: bool = False


def to_hit_needed(
    strike: Strike, guard: Guard, modifiers: Iterable[Modifier] = ()
) -> tuple[int, tuple[RuleNote, ...]]:
    """The to-hit roll needed before the 7+ rule, and the rules that shaped it."""
    notes: list[RuleNote] = []
    if strike.kind == MELEE:
        ws, target_ws = strike.weapon_skill, guard.weapon_skill
        if strike.feared:
            ws = FEAR_WS
            notes.append(
                RuleNote(profiles.FEAR, f"Fear: {strike.name} failed the Fear test: WS {ws}")
            )
        if guard.feared:
            target_ws = FEAR_WS
            notes.append(
                RuleNote(
                    profiles.FEAR, f"Fear: {guard.name} failed the Fear test: WS {target_ws}"
                )
            )
        needed = tables.to_hit(ws, target_ws)
    else:
        needed = 7 - strike.ballistic_skill
    for mod in modifiers:
        needed -= mod.value
        notes.append(RuleNote(mod.rule, mod.text or f"{mod.rule}: {mod.value:+d} to hit"))
    follow = follow_up(needed)
    if follow is not None:
        notes.append(RuleNote(SEVEN_PLUS, f"{SEVEN_PLUS}: {needed}+ is a 6, then {follow}+"))
    elif needed >= 10:
        notes.append(RuleNote(SEVEN_PLUS, f"{SEVEN_PLUS}: {needed}+ cannot hit"))
    return needed, tuple(notes)


def hit_target(needed: int) -> int | None:
    """The first D6's target: 2..6 (a natural 1 fails, a 6 succeeds); a needed 7-9 first
    needs a 6; 10 or more cannot hit (FACTS)."""
    if needed >= 10:
        return None
    return min(max(needed, 2), 6)


def follow_up(needed: int) -> int | None:
    """7+: a 6 then 4+; 8+: then 5+; 9+: then 6+ (FACTS); None otherwise."""
    return needed - 3 if 7 <= needed <= 9 else None


def to_wound_needed(strike: Strike, guard: Guard) -> int | None:
    """S vs T (tables), the page's Poisoned Attacks +1 (never better than 2+)."""
    needed = tables.to_wound(strike.strength, guard.toughness)
    if needed is not None and strike.poisoned == "page":
        needed = max(2, needed - 1)
    return needed


def save_needed(strike: Strike, guard: Guard) -> int | None:
    """The armour save worsened by Strength and Armour Piercing (FACTS); None: no save."""
    if guard.save is None or guard.save <= 0:
        return None
    needed = guard.save + max(0, strike.strength - 3) + strike.armour_piercing
    return max(2, needed) if needed <= 6 else None


def best_ward(guard: Guard) -> tuple[int, str] | None:
    """The best ward save: the profile's, or Parry's 6+; never both (module text)."""
    options: list[tuple[int, str]] = []
    if guard.ward is not None:
        options.append((guard.ward, profiles.WARD_SAVE))
    if guard.parry:
        options.append((profiles.PARRY_SAVE, profiles.PARRY))
    return min(options) if options else None


class WHFB8AttackSteps(AttackSteps):
    """Warhammer Fantasy Battle 8th edition's numbers and named rules for each step."""

    def to_hit(
        self, strike: Strike, guard: Guard, modifiers: Iterable[Modifier]
    ) -> tuple[int, tuple[RuleNote, ...]]:
        return to_hit_needed(strike, guard, modifiers)

    def hit_target(self, needed: int) -> int | None:
        return hit_target(needed)

    def hit_follow_up(self, needed: int) -> int | None:
        return follow_up(needed)

    def auto_wounds(self, strike: Strike) -> AutoWounds | None:
        """The rulebook's Poisoned Attacks: a 6 to hit wounds automatically."""
        if strike.poisoned != "rulebook":
            return None
        return AutoWounds(profiles.POISONED_ATTACKS, frozenset({6}), "6")

    def to_wound(self, strike: Strike, guard: Guard) -> tuple[int | None, str]:
        terms = f"Strength {strike.strength} vs Toughness {guard.toughness}"
        if strike.poisoned == "page":
            terms += ", Poisoned Attacks +1"
        return to_wound_needed(strike, guard), terms

    def wound_notes(self, strike: Strike, guard: Guard) -> tuple[RuleNote, ...]:
        if strike.poisoned != "page":
            return ()
        plain = tables.to_wound(strike.strength, guard.toughness)
        if plain is None:
            text = "Poisoned Attacks: +1 to wound, but the hits cannot wound"
        else:
            text = f"Poisoned Attacks: +1 to wound ({plain}+ becomes {max(2, plain - 1)}+)"
        return (RuleNote(profiles.POISONED_ATTACKS, text),)

    def armour_save(self, strike: Strike, guard: Guard) -> tuple[int | None, str]:
        if guard.save is None:
            return None, "no armour"
        parts = [f"save {guard.save}+"]
        if strike.strength > 3:
            parts.append(f"Strength {strike.strength} -{strike.strength - 3}")
        if strike.armour_piercing:
            parts.append(f"Armour Piercing -{strike.armour_piercing}")
        return save_needed(strike, guard), ", ".join(parts)

    def save_notes(self, strike: Strike, guard: Guard) -> tuple[RuleNote, ...]:
        notes: list[RuleNote] = []
        if guard.save_rule is not None:
            notes.append(
                RuleNote(
                    guard.save_rule,
                    f"{guard.save_rule}: {guard.name} have an armour save of {guard.save}+",
                )
            )
        if strike.armour_piercing:
            notes.append(
                RuleNote(
                    profiles.ARMOUR_PIERCING,
                    f"Armour Piercing ({strike.armour_piercing}): "
                    f"-{strike.armour_piercing} to the armour save",
                )
            )
        return tuple(notes)

    def special_save(self, strike: Strike, guard: Guard) -> SpecialSave | None:
        """The ward save, or Parry (6+) against close combat attacks from the front."""
        ward = best_ward(guard)
        if ward is None:
            return None
        value, rule = ward
        return SpecialSave("ward_save", rule, f"{rule} ({value}+)", value)


STEPS = WHFB8AttackSteps()

__all__ = [
    "MELEE",
    "SHOOTING",
    "STEPS",
    "Guard",
    "Strike",
    "WHFB8AttackSteps",
    "follow_up",
    "hit_target",
    "save_needed",
    "to_hit_needed",
    "to_wound_needed",
]
