"""The 9th Age: its attack profiles and the named rules of each attack step (issue 5, items 4
and 5; seed 000).

The steps themselves (to hit -> to wound -> armour save -> special save -> losses, each a `Step`
with every die) are the shared rank-and-flank ones, server/rules/rankandflank/attacks.py; this
module is what The 9th Age puts in them: its `Strike` (Offensive Skill or Aim, Strength, Armour
Penetration, Agility) and `Guard` (Defensive Skill, Resilience, Armour, Aegis) profiles, its
tables (server/rules/t9a/tables.py) and these rules of the Mageblight Gremlin page
(../shared/seeds/000_ac64b535f31b5cdf.txt), as `T9AAttackSteps`:

* **Hard Target (X)**: Shooting Attacks against it suffer -X to hit.
* **Distracting**: Melee Attacks against it suffer -1 to hit; ignored when the final roll needed
  would be worse than 5+ (other modifiers counted first).
* **Poison Attacks**: a to-hit roll of 6 wounds automatically (two or more instances: a
  successful 5 or 6); of a hit turned into several hits only one wounds automatically (the
  hits are identical here, so the choice the attacker makes cannot matter).
* **Magical Attacks**: no effect of its own; an `Aegis` "against Magical Attacks" reads it.
* **Hand Weapon**: Parry (a Hand Weapon with a Shield). **Decision** (the page names Parry but
  not its effect): the model's Defensive Skill counts +1 against Melee Attacks from its Front
  Facing, the long-standing shape of the rule; the caller decides when it applies.
* **Aegis (X+)**, and Aegis (X+, against <attribute>): the special save; only the best
  applicable one is taken.

Dice (FACTS.md "Dice"): a natural 1 always fails and a natural 6 always succeeds, to hit and to
wound, so a roll needed past 6+ still succeeds on a 6 and one better than 2+ still fails on a 1.
An armour save can never be better than 2+ (a natural 1 always fails it).

Pure: values in, values out; dice come from a `Roller` (the game's `DiceStream`).
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
    Outcome,
    Roller,
    RuleNote,
    SpecialSave,
)
from server.rules.rankandflank.attacks import resolve as resolve_steps
from server.rules.t9a import tables

__all__ = [
    "MELEE",
    "SHOOTING",
    "Aegis",
    "Guard",
    "Modifier",
    "Strike",
    "T9AAttackSteps",
    "resolve",
    "to_hit_needed",
]

HARD_TARGET = "Hard Target"
DISTRACTING = "Distracting"
POISON_ATTACKS = "Poison Attacks"
MAGICAL_ATTACKS = "Magical Attacks"
PARRY = "Parry"
AEGIS = "Aegis"
DISTRACTING_WORST = 5
"""Distracting is ignored when the to-hit roll needed would be worse than this (5+)."""


@dataclass(frozen=True)
class Aegis:
    """A special save: Aegis (X+), or Aegis (X+, against <attack attribute>)."""

    value: int
    against: str | None = None

    def applies(self, attributes: Iterable[str]) -> bool:
        return self.against is None or self.against in set(attributes)

    @property
    def label(self) -> str:
        return f"Aegis ({self.value}+" + (f", against {self.against})" if self.against else ")")

    @classmethod
    def parse(cls, param: int | str) -> Aegis:
        """`5`, `"5+"` or `"4+, against Magical Attacks"` (the parameter of an Aegis rule)."""
        if isinstance(param, int):
            return cls(param)
        head, _, tail = param.partition(",")
        value = int(head.strip().rstrip("+"))
        tail = tail.strip()
        against = tail[len("against ") :].strip() if tail.lower().startswith("against ") else None
        if tail and against is None:
            raise ValueError(f"cannot read Aegis parameter {param!r}")
        return cls(value, against)


@dataclass(frozen=True)
class Strike:
    """Attacks with one profile: `attacks` close combat attacks, or shots of one weapon.

    `attributes` are the attack's Attack Attributes by name ("Magical Attacks", ...);
    `poison` counts instances of Poison Attacks; `hits_per_hit` > 1 for a hit turned into
    several hits (Fury, Area Attack). Melee uses `offensive_skill`, shooting `aim` (4 = 4+).
    """

    name: str
    attacks: int
    strength: int
    armour_penetration: int
    kind: AttackKind = MELEE
    offensive_skill: int = 0
    aim: int | None = None
    agility: int = 0
    attributes: frozenset[str] = frozenset()
    poison: int = 0
    hits_per_hit: int = 1


@dataclass(frozen=True)
class Guard:
    """The defensive profile of the Health Pool the attacks are allocated to."""

    name: str
    defensive_skill: int
    resilience: int
    armour: int
    aegis: tuple[Aegis, ...] = ()
    hard_target: int = 0
    distracting: bool = False
    parry: bool = False


def to_hit_needed(
    strike: Strike, guard: Guard, modifiers: Iterable[Modifier] = ()
) -> tuple[int, tuple[RuleNote, ...]]:
    """The to-hit roll needed (before the natural 1 / 6 rule) and the rules that shaped it.

    Melee: Offensive vs Defensive Skill (Parry: +1 Defensive Skill), then `modifiers`, then
    Distracting last, since it looks at the final roll needed. Shooting: the weapon's Aim,
    then `modifiers` (long range, cover) and Hard Target (X).
    """
    notes: list[RuleNote] = []
    if strike.kind == MELEE:
        skill = guard.defensive_skill
        if guard.parry:
            skill += 1
            notes.append(RuleNote(PARRY, f"Parry: {guard.name} count Defensive Skill {skill}"))
        needed = tables.to_hit(strike.offensive_skill, skill)
    else:
        if strike.aim is None:
            raise ValueError(f"shooting strike {strike.name!r} has no Aim")
        needed = tables.shooting_to_hit(strike.aim)
    for mod in modifiers:
        needed -= mod.value
        notes.append(RuleNote(mod.rule, mod.text or f"{mod.rule}: {mod.value:+d} to hit"))
    if strike.kind == SHOOTING and guard.hard_target:
        needed += guard.hard_target
        notes.append(
            RuleNote(HARD_TARGET, f"Hard Target ({guard.hard_target}): -{guard.hard_target} to hit")
        )
    if strike.kind == MELEE and guard.distracting:
        if needed + 1 <= DISTRACTING_WORST:
            needed += 1
            notes.append(RuleNote(DISTRACTING, f"Distracting: -1 to hit (now {needed}+)"))
        else:
            notes.append(
                RuleNote(
                    DISTRACTING,
                    f"Distracting ignored: {min(needed + 1, 7)}+ would be worse than 5+",
                )
            )
    return needed, tuple(notes)


def poison_faces(poison: int) -> frozenset[int]:
    """To-hit faces that wound automatically: 6, or 5 and 6 with two or more instances."""
    if poison <= 0:
        return frozenset()
    return frozenset({6}) if poison == 1 else frozenset({5, 6})


def best_aegis(guard: Guard, attributes: Iterable[str]) -> Aegis | None:
    """The best special save of `guard` that applies to attacks with `attributes`."""
    usable = [a for a in guard.aegis if a.applies(attributes)]
    return min(usable, key=lambda a: a.value) if usable else None



class T9AAttackSteps(AttackSteps):
    """The 9th Age's numbers and named rules for each step of a batch (module text)."""

    def to_hit(
        self, strike: Strike, guard: Guard, modifiers: Iterable[Modifier]
    ) -> tuple[int, tuple[RuleNote, ...]]:
        return to_hit_needed(strike, guard, modifiers)

    def auto_wounds(self, strike: Strike) -> AutoWounds | None:
        """Poison Attacks: a 6 to hit wounds automatically (5 or 6 with two instances)."""
        faces = poison_faces(strike.poison)
        if not faces:
            return None
        return AutoWounds(POISON_ATTACKS, faces, "6" if strike.poison == 1 else "5 or 6")

    def to_wound(self, strike: Strike, guard: Guard) -> tuple[int | None, str]:
        needed = tables.to_wound(strike.strength, guard.resilience)
        return needed, f"Strength {strike.strength} vs Resilience {guard.resilience}"

    def armour_save(self, strike: Strike, guard: Guard) -> tuple[int | None, str]:
        save = tables.save(guard.armour, strike.armour_penetration)
        if save is None:
            return None, f"Armour {guard.armour}, Armour Penetration {strike.armour_penetration}"
        return save, f"Armour {guard.armour} - Armour Penetration {strike.armour_penetration}"

    def special_save(self, strike: Strike, guard: Guard) -> SpecialSave | None:
        """The best Aegis that applies (Aegis against Magical Attacks reads the attack's
        attributes), or, when none applies, the ones that do not."""
        aegis = best_aegis(guard, strike.attributes)
        if aegis is not None:
            notes: tuple[RuleNote, ...] = ()
            if aegis.against:
                notes = (RuleNote(aegis.against, f"{aegis.against}: {aegis.label} applies"),)
            return SpecialSave("aegis", AEGIS, aegis.label, aegis.value, notes)
        ignored = [a for a in guard.aegis if not a.applies(strike.attributes)]
        if ignored:
            return SpecialSave(
                "aegis",
                AEGIS,
                ignored[0].label,
                None,
                tuple(RuleNote(AEGIS, f"{a.label} does not apply") for a in ignored),
            )
        return None


STEPS = T9AAttackSteps()


def resolve(
    strike: Strike, guard: Guard, roller: Roller, modifiers: Iterable[Modifier] = ()
) -> Outcome:
    """Roll `strike` against `guard` with The 9th Age's steps (the shared
    `rankandflank.attacks.resolve`; module text)."""
    return resolve_steps(STEPS, strike, guard, roller, modifiers)
