"""The 9th Age: resolving a batch of attacks step by step (issue 5, items 4 and 5; seed 000).

A batch is one `Strike` (attacks sharing a profile: a model part's close combat attacks or one
shooting weapon's shots) against one Health Pool's `Guard` profile. It goes

    to hit -> to wound -> armour save -> special save (Aegis) -> Health Point losses,

each step one `Step` with its roll (every die) and the rules it applied, in words the client can
show. Health Point losses are then allocated by `allocate` (rank-and-file first, tracking the one
wounded multi-HP model, then attachable models).

The rules of the Mageblight Gremlin page (../shared/seeds/000_ac64b535f31b5cdf.txt) applied here:

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

Dice (FACTS.md "Dice"): a natural 1 always fails and a natural 6 always succeeds, to hit and to
wound, so a roll needed past 6+ still succeeds on a 6 and one better than 2+ still fails on a 1.
An armour save can never be better than 2+ (a natural 1 always fails it). Only the best
applicable special save is taken.

Pure: values in, values out; dice come from a `Roller` (the game's `DiceStream`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

from server.dice import Roll
from server.rules.systems import roll_succeeds
from server.rules.t9a import tables

MELEE: Literal["melee"] = "melee"
SHOOTING: Literal["shooting"] = "shooting"
AttackKind = Literal["melee", "shooting"]

HARD_TARGET = "Hard Target"
DISTRACTING = "Distracting"
POISON_ATTACKS = "Poison Attacks"
MAGICAL_ATTACKS = "Magical Attacks"
PARRY = "Parry"
AEGIS = "Aegis"
DISTRACTING_WORST = 5
"""Distracting is ignored when the to-hit roll needed would be worse than this (5+)."""


class Roller(Protocol):
    """Where dice come from: the game's `DiceStream` (or a scripted stub in tests)."""

    def roll(self, expression: str) -> Roll: ...


@dataclass(frozen=True)
class RuleNote:
    """A rule applied, in words: {"rule": "Poison Attacks", "text": "Poison Attacks: 2 ..."}."""

    rule: str
    text: str

    def to_json(self) -> dict[str, str]:
        return {"rule": self.rule, "text": self.text}


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


@dataclass(frozen=True)
class Modifier:
    """A to-hit modifier from a rule: `value` -1 makes the roll needed one worse."""

    rule: str
    value: int
    text: str = ""


@dataclass(frozen=True)
class Step:
    """One step of a batch: what was needed, the roll, how many succeeded, in words."""

    step: str  # "to_hit" | "to_wound" | "armour" | "aegis"
    needed: int | None
    dice: int
    successes: int
    text: str
    rules: tuple[RuleNote, ...] = ()
    roll: Roll | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "needed": self.needed,
            "dice": self.dice,
            "successes": self.successes,
            "text": self.text,
            "rules": [r.to_json() for r in self.rules],
            "roll": None if self.roll is None else self.roll.to_payload(),
        }


@dataclass(frozen=True)
class Outcome:
    """A resolved batch: its steps and the Health Point losses it causes (`unsaved`)."""

    strike: Strike
    guard: Guard
    steps: tuple[Step, ...]
    hits: int
    auto_wounds: int
    wounds: int
    unsaved: int


def clamp_needed(needed: int) -> int:
    """The face a D6 needs when a natural 1 fails and a natural 6 succeeds: 2..6."""
    return min(max(needed, 2), 6)


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


def _count(roll: Roll, needed: int | None) -> int:
    faces = roll.kept_faces
    return sum(1 for face in faces if isinstance(face, int) and roll_succeeds(face, needed))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def resolve(
    strike: Strike,
    guard: Guard,
    roller: Roller,
    modifiers: Iterable[Modifier] = (),
) -> Outcome:
    """Roll `strike` against `guard`: to hit, to wound, armour, Aegis. See the module text."""
    steps: list[Step] = []
    who = f"{strike.name} at {guard.name}"
    if strike.attacks <= 0:
        return Outcome(strike, guard, (), 0, 0, 0, 0)

    # -- to hit
    raw_needed, notes = to_hit_needed(strike, guard, modifiers)
    needed = clamp_needed(raw_needed)
    roll = roller.roll(f"{strike.attacks}D6")
    auto_faces = poison_faces(strike.poison)
    hits = auto = 0
    for face in roll.kept_faces:
        if isinstance(face, int) and roll_succeeds(face, needed):
            hits += strike.hits_per_hit
            if face in auto_faces:
                auto += 1
    hit_notes = list(notes)
    if auto:
        faces = "6" if strike.poison == 1 else "5 or 6"
        hit_notes.append(
            RuleNote(
                POISON_ATTACKS,
                f"Poison Attacks: {_plural(auto, 'hit')} rolled {faces} and wound automatically",
            )
        )
        if strike.hits_per_hit > 1:
            hit_notes.append(
                RuleNote(
                    POISON_ATTACKS,
                    f"Poison Attacks: only one hit of each multiplied hit wounds automatically "
                    f"({_plural(auto * (strike.hits_per_hit - 1), 'hit')} roll to wound)",
                )
            )
    shown = f"{needed}+" + (f" ({raw_needed}+ modified)" if raw_needed != needed else "")
    steps.append(
        Step(
            "to_hit",
            needed,
            strike.attacks,
            hits,
            f"{who}: {_plural(strike.attacks, 'attack')} needing {shown} to hit: "
            f"{_plural(hits, 'hit')}",
            tuple(hit_notes),
            roll,
        )
    )

    # -- to wound (hits that did not wound automatically)
    wound_needed = tables.to_wound(strike.strength, guard.resilience)
    rolled = hits - auto
    wound_notes: tuple[RuleNote, ...] = ()
    if auto:
        wound_notes = (
            RuleNote(POISON_ATTACKS, f"Poison Attacks: {_plural(auto, 'automatic wound')}"),
        )
    wounds = auto
    wound_roll: Roll | None = None
    if rolled > 0:
        wound_roll = roller.roll(f"{rolled}D6")
        wounds += _count(wound_roll, wound_needed)
    if hits:
        steps.append(
            Step(
                "to_wound",
                wound_needed,
                rolled,
                wounds,
                f"{who}: {_plural(rolled, 'hit')} needing {wound_needed}+ to wound "
                f"(Strength {strike.strength} vs Resilience {guard.resilience}): "
                + (
                    f"{_plural(wounds - auto, 'wound')} + {auto} automatic (Poison Attacks) = "
                    if auto
                    else ""
                )
                + _plural(wounds, "wound"),
                wound_notes,
                wound_roll,
            )
        )

    # -- armour save
    unsaved = wounds
    if wounds:
        save = tables.save(guard.armour, strike.armour_penetration)
        if save is None:
            steps.append(
                Step(
                    "armour",
                    None,
                    0,
                    0,
                    f"{guard.name}: no armour save (Armour {guard.armour}, "
                    f"Armour Penetration {strike.armour_penetration})",
                )
            )
        else:
            save_roll = roller.roll(f"{wounds}D6")
            saved = _count(save_roll, save)
            unsaved -= saved
            steps.append(
                Step(
                    "armour",
                    save,
                    wounds,
                    saved,
                    f"{guard.name}: armour save {save}+ (Armour {guard.armour} - Armour "
                    f"Penetration {strike.armour_penetration}): {saved} saved",
                    (),
                    save_roll,
                )
            )

    # -- special save
    if unsaved:
        aegis = best_aegis(guard, strike.attributes)
        ignored = [a for a in guard.aegis if not a.applies(strike.attributes)]
        if aegis is not None:
            aegis_roll = roller.roll(f"{unsaved}D6")
            saved = _count(aegis_roll, aegis.value)
            rules: list[RuleNote] = [RuleNote(AEGIS, f"{aegis.label}: {saved} saved")]
            if aegis.against:
                rules.append(RuleNote(aegis.against, f"{aegis.against}: {aegis.label} applies"))
            unsaved -= saved
            steps.append(
                Step(
                    "aegis",
                    aegis.value,
                    unsaved + saved,
                    saved,
                    f"{guard.name}: {aegis.label} against {_plural(unsaved + saved, 'wound')}: "
                    f"{saved} saved",
                    tuple(rules),
                    aegis_roll,
                )
            )
        elif ignored:
            steps.append(
                Step(
                    "aegis",
                    None,
                    0,
                    0,
                    f"{guard.name}: {ignored[0].label} does not apply",
                    tuple(RuleNote(AEGIS, f"{a.label} does not apply") for a in ignored),
                )
            )
    return Outcome(strike, guard, tuple(steps), hits, auto, wounds, unsaved)


# --- Health Point losses -----------------------------------------------------------------------


@dataclass(frozen=True)
class Pool:
    """The Health Points of a unit: `models` rank-and-file of `health_points` each, `damage` lost
    by the one wounded rank-and-file model, and each attachable model's (health_points, damage)."""

    models: int
    health_points: int
    damage: int = 0
    characters: tuple[tuple[int, int], ...] = ()

    @property
    def total(self) -> int:
        """Health Points left in the unit."""
        rf = self.models * self.health_points - self.damage if self.models else 0
        return rf + sum(hp - dmg for hp, dmg in self.characters)


@dataclass(frozen=True)
class Allocation:
    """What `allocate` did: losses applied, rank-and-file removed, losses per attachable model
    (by index in `Pool.characters`) and which attachable models were removed."""

    applied: int
    models_removed: int
    character_losses: tuple[int, ...] = ()
    characters_removed: tuple[int, ...] = ()
    wasted: int = 0


def allocate(pool: Pool, losses: int, *, evenly: bool = False) -> tuple[Pool, Allocation]:
    """Allocate `losses` Health Point losses: rank-and-file first (the wounded model first, a
    model removed when its last Health Point goes), then attachable models: one after another
    (`evenly` False), or as evenly as possible (Supernal, seed 000): each loss to the living
    attachable model that has taken the fewest of these losses, the first listed on a tie.

    Losses beyond the unit's last Health Point are `wasted`; the returned pool keeps removed
    attachable models with full damage (the caller drops them, see `characters_removed`).
    """
    models, damage, left = pool.models, pool.damage, losses
    removed = 0
    hp = pool.health_points
    while left > 0 and models > 0:
        take = min(left, hp - damage)
        damage += take
        left -= take
        if damage >= hp:
            models -= 1
            removed += 1
            damage = 0
    chars = [list(c) for c in pool.characters]
    taken = [0] * len(chars)
    while left > 0:
        alive = [i for i, (chp, cdmg) in enumerate(chars) if cdmg < chp]
        if not alive:
            break
        i = min(alive, key=lambda k: (taken[k], k)) if evenly else alive[0]
        chars[i][1] += 1
        taken[i] += 1
        left -= 1
    dead = tuple(
        i for i, (chp, cdmg) in enumerate(chars) if cdmg >= chp and pool.characters[i][1] < chp
    )
    new = replace(
        pool,
        models=models,
        damage=damage,
        characters=tuple((chp, cdmg) for chp, cdmg in chars),
    )
    return new, Allocation(losses - left, removed, tuple(taken), dead, left)
