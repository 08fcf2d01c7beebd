"""Rank-and-flank: resolving a batch of attacks step by step, and allocating the losses.

A batch is one strike (attacks sharing a profile: a model part's close combat attacks or one
shooting weapon's shots) against one Health Pool's guard (the defensive profile the attacks are
allocated to). The shape is the same in The 9th Age and Warhammer Fantasy Battle 8th edition:

1. **To hit**: one D6 per attack against the number the system's `AttackSteps.to_hit` gives
   (t9a: Offensive vs Defensive Skill or Aim; whfb8: WS vs WS or 7 - BS), with the modifiers
   the caller passes and the system's own named modifiers already counted. The face needed is
   clamped by `AttackSteps.hit_target` (default: a natural 1 always fails, a natural 6 always
   succeeds, FACTS.md "Dice"; None: the attacks cannot hit, no dice are rolled). A system whose
   rolls needed past 6 take a second roll (whfb8: a 7+ is a 6, then 4+) names that roll's
   target in `AttackSteps.hit_follow_up`: the 6s roll again, each success a hit, as a second
   "to_hit" step (no automatic wounds then: the first roll's 6 is not yet a hit). Faces the
   system names in `auto_wounds` (Poison Attacks) wound automatically and skip step 2; a hit
   turned into several hits (`hits_per_hit`) wounds automatically only once. The system's
   `wound_notes` and `save_notes` name the rules that changed steps 2 and 3.
2. **To wound**: one D6 per remaining hit against `AttackSteps.to_wound` (None: cannot wound).
3. **Armour save**: one D6 per wound against `AttackSteps.armour_save` (None: no save; a
   natural 1 always fails).
4. **Special save** (t9a Aegis, whfb8 ward save): `AttackSteps.special_save` names the best one
   that applies, or the ones that do not apply; one D6 per wound left.
5. **Losses**: what is left is the batch's `unsaved`; `allocate` puts losses on the unit:
   rank-and-file first (the one wounded multi-wound model first), then attachable models (one
   after another, or as evenly as possible for Supernal or Unstable).

Every step is one `Step` with its roll (every die) and the rules it applied, in words the client
shows as they are. The step texts are shared; the words that differ between systems come from
the system (`to_wound` returns "Strength 3 vs Resilience 3", `armour_save` "Armour 2 - Armour
Penetration 0").

Pure: values in, values out; dice come from a `Roller` (the game's `DiceStream`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from server.data.schema import DICE_PATTERN
from server.dice import Roll, Roller
from server.rules.systems import roll_succeeds

MELEE: Literal["melee"] = "melee"
SHOOTING: Literal["shooting"] = "shooting"
AttackKind = Literal["melee", "shooting"]


class StrikeLike(Protocol):
    """What the shared steps read of a system's strike (t9a: `server.rules.t9a.attacks.Strike`)."""

    @property
    def name(self) -> str: ...

    @property
    def attacks(self) -> int: ...

    @property
    def kind(self) -> AttackKind: ...

    @property
    def hits_per_hit(self) -> int: ...


class GuardLike(Protocol):
    """What the shared steps read of a system's guard: the name the texts use."""

    @property
    def name(self) -> str: ...


@dataclass(frozen=True)
class RuleNote:
    """A rule applied, in words: {"rule": "Poison Attacks", "text": "Poison Attacks: 2 ..."}."""

    rule: str
    text: str

    def to_json(self) -> dict[str, str]:
        return {"rule": self.rule, "text": self.text}


@dataclass(frozen=True)
class Modifier:
    """A to-hit modifier from a rule: `value` -1 makes the roll needed one worse."""

    rule: str
    value: int
    text: str = ""


@dataclass(frozen=True)
class AutoWounds:
    """To-hit faces that wound automatically, by the rule that says so (t9a Poison Attacks:
    6, or 5 and 6 with two instances; `faces_text` "6" or "5 or 6")."""

    rule: str
    faces: frozenset[int]
    faces_text: str


@dataclass(frozen=True)
class SpecialSave:
    """The special save step (t9a Aegis, whfb8 ward save). `value` None: saves exist but none
    applies to these attacks (the step says so, with `notes`). `step` is the step's name in
    the event ("aegis"); `rule` names the save in the note of an applied save."""

    step: str
    rule: str
    label: str
    value: int | None
    notes: tuple[RuleNote, ...] = ()


@dataclass(frozen=True)
class Step:
    """One step of a batch: what was needed, the roll, how many succeeded, in words."""

    step: str  # "to_hit" | "to_wound" | "armour" | the special save's step ("aegis")
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
    """A resolved batch: its steps and the losses it causes (`unsaved`)."""

    strike: Any
    guard: Any
    steps: tuple[Step, ...]
    hits: int
    auto_wounds: int
    wounds: int
    unsaved: int


class AttackSteps(ABC):
    """The numbers and named rules of each step of a batch; a system overrides these (the
    rank-and-flank `RankAndFlankRules` includes them)."""

    @abstractmethod
    def to_hit(
        self, strike: Any, guard: Any, modifiers: Iterable[Modifier]
    ) -> tuple[int, tuple[RuleNote, ...]]:
        """The to-hit roll needed before the natural 1 / 6 rule, and the rules that shaped it
        (`modifiers` and the system's own, in the order they apply)."""

    def hit_target(self, needed: int) -> int | None:
        """The face one D6 needs for `needed`: a natural 1 always fails and a natural 6 always
        succeeds (FACTS.md "Dice"), so 2..6; None: the attacks cannot hit at all."""
        return clamp_needed(needed)

    def hit_follow_up(self, needed: int) -> int | None:
        """For a roll `needed` past 6 that the system resolves in two rolls (whfb8: 7+ is a 6
        then 4+, 8+ a 6 then 5+, 9+ a 6 then 6+), the second roll's target; None (the
        default): one roll decides."""
        return None

    def auto_wounds(self, strike: Any) -> AutoWounds | None:
        """To-hit faces that wound automatically (t9a Poison Attacks); none by default."""
        return None

    @abstractmethod
    def to_wound(self, strike: Any, guard: Any) -> tuple[int | None, str]:
        """The to-wound roll needed (None: cannot wound) and its terms in words ("Strength 3
        vs Resilience 3")."""

    @abstractmethod
    def armour_save(self, strike: Any, guard: Any) -> tuple[int | None, str]:
        """The armour save needed (None: no save) and its terms in words."""

    def wound_notes(self, strike: Any, guard: Any) -> tuple[RuleNote, ...]:
        """Named rules that changed the to-wound roll (whfb8 Poisoned Attacks +1); none by
        default."""
        return ()

    def save_notes(self, strike: Any, guard: Any) -> tuple[RuleNote, ...]:
        """Named rules that gave or changed the armour save (whfb8 Animated Construct, Armour
        Piercing); none by default."""
        return ()

    def special_save(self, strike: Any, guard: Any) -> SpecialSave | None:
        """The best special save that applies (or the ones that do not); none by default."""
        return None


def clamp_needed(needed: int) -> int:
    """The face a D6 needs when a natural 1 fails and a natural 6 succeeds: 2..6."""
    return min(max(needed, 2), 6)


def _count(roll: Roll, needed: int | None) -> int:
    faces = roll.kept_faces
    return sum(1 for face in faces if isinstance(face, int) and roll_succeeds(face, needed))


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def resolve(
    steps: AttackSteps,
    strike: StrikeLike,
    guard: GuardLike,
    roller: Roller,
    modifiers: Iterable[Modifier] = (),
    *,
    hits: int | None = None,
) -> Outcome:
    """Roll `strike` against `guard` with the system's `steps`: to hit, to wound, armour,
    special save (module text). `hits`: the batch is already hits (a rule's hits, such as a
    whfb8 Fanatic's D6 S5 hits, seed 003): step 1 is skipped and the `strike.attacks` hits
    go straight to wound."""
    done: list[Step] = []
    who = f"{strike.name} at {guard.name}"
    if hits is not None:
        return _from_wounds(steps, strike, guard, roller, done, who, hits, 0, None)
    if strike.attacks <= 0:
        return Outcome(strike, guard, (), 0, 0, 0, 0)

    # -- 1. to hit
    raw_needed, notes = steps.to_hit(strike, guard, modifiers)
    needed = steps.hit_target(raw_needed)
    if needed is None:
        done.append(
            Step(
                "to_hit",
                None,
                0,
                0,
                f"{who}: {plural(strike.attacks, 'attack')} needing {raw_needed}+ to hit: "
                "cannot hit",
                tuple(notes),
            )
        )
        return Outcome(strike, guard, tuple(done), 0, 0, 0, 0)
    follow_up = steps.hit_follow_up(raw_needed)
    roll = roller.roll(f"{strike.attacks}D6")
    auto_rule = steps.auto_wounds(strike) if follow_up is None else None
    auto_faces = auto_rule.faces if auto_rule is not None else frozenset()
    hits = auto = 0
    for face in roll.kept_faces:
        if isinstance(face, int) and roll_succeeds(face, needed):
            hits += strike.hits_per_hit
            if face in auto_faces:
                auto += 1
    if follow_up is not None:
        sixes = hits // strike.hits_per_hit
        done.append(
            Step(
                "to_hit",
                needed,
                strike.attacks,
                sixes,
                f"{who}: {plural(strike.attacks, 'attack')} needing {raw_needed}+ to hit "
                f"(a 6, then {follow_up}+): {sixes} rolled a 6",
                tuple(notes),
                roll,
            )
        )
        hits = 0
        second: Roll | None = None
        if sixes:
            second = roller.roll(f"{sixes}D6")
            hits = _count(second, follow_up) * strike.hits_per_hit
        done.append(
            Step(
                "to_hit",
                follow_up,
                sixes,
                hits,
                f"{who}: {sixes} {'six' if sixes == 1 else 'sixes'} rolling again needing "
                f"{follow_up}+: "
                f"{plural(hits, 'hit')}",
                (),
                second,
            )
        )
    hit_notes = list(notes)
    if auto and auto_rule is not None:
        rule = auto_rule.rule
        hit_notes.append(
            RuleNote(
                rule,
                f"{rule}: {plural(auto, 'hit')} rolled {auto_rule.faces_text} and wound "
                "automatically",
            )
        )
        if strike.hits_per_hit > 1:
            hit_notes.append(
                RuleNote(
                    rule,
                    f"{rule}: only one hit of each multiplied hit wounds automatically "
                    f"({plural(auto * (strike.hits_per_hit - 1), 'hit')} roll to wound)",
                )
            )
    if follow_up is None:
        shown = f"{needed}+" + (f" ({raw_needed}+ modified)" if raw_needed != needed else "")
        done.append(
            Step(
                "to_hit",
                needed,
                strike.attacks,
                hits,
                f"{who}: {plural(strike.attacks, 'attack')} needing {shown} to hit: "
                f"{plural(hits, 'hit')}",
                tuple(hit_notes),
                roll,
            )
        )

    return _from_wounds(steps, strike, guard, roller, done, who, hits, auto, auto_rule)


def _from_wounds(
    steps: AttackSteps,
    strike: StrikeLike,
    guard: GuardLike,
    roller: Roller,
    done: list[Step],
    who: str,
    hits: int,
    auto: int,
    auto_rule: AutoWounds | None,
) -> Outcome:
    """Steps 2 to 4 of a batch, from its hits."""
    # -- 2. to wound (hits that did not wound automatically)
    wound_needed, terms = steps.to_wound(strike, guard)
    rolled = hits - auto
    wound_notes: tuple[RuleNote, ...] = ()
    auto_name = auto_rule.rule if auto_rule is not None else ""
    if auto:
        wound_notes = (RuleNote(auto_name, f"{auto_name}: {plural(auto, 'automatic wound')}"),)
    if rolled > 0:
        wound_notes += steps.wound_notes(strike, guard)
    wounds = auto
    wound_roll: Roll | None = None
    if rolled > 0:
        wound_roll = roller.roll(f"{rolled}D6")
        wounds += _count(wound_roll, wound_needed)
    if hits:
        shown = "cannot wound" if wound_needed is None else f"needing {wound_needed}+ to wound"
        done.append(
            Step(
                "to_wound",
                wound_needed,
                rolled,
                wounds,
                f"{who}: {plural(rolled, 'hit')} {shown} ({terms}): "
                + (
                    f"{plural(wounds - auto, 'wound')} + {auto} automatic ({auto_name}) = "
                    if auto
                    else ""
                )
                + plural(wounds, "wound"),
                wound_notes,
                wound_roll,
            )
        )

    # -- 3. armour save
    unsaved = wounds
    if wounds:
        save, terms = steps.armour_save(strike, guard)
        save_notes = steps.save_notes(strike, guard)
        if save is None:
            done.append(
                Step("armour", None, 0, 0, f"{guard.name}: no armour save ({terms})", save_notes)
            )
        else:
            save_roll = roller.roll(f"{wounds}D6")
            saved = _count(save_roll, save)
            unsaved -= saved
            done.append(
                Step(
                    "armour",
                    save,
                    wounds,
                    saved,
                    f"{guard.name}: armour save {save}+ ({terms}): {saved} saved",
                    save_notes,
                    save_roll,
                )
            )

    # -- 4. special save
    if unsaved:
        special = steps.special_save(strike, guard)
        if special is not None and special.value is not None:
            special_roll = roller.roll(f"{unsaved}D6")
            saved = _count(special_roll, special.value)
            rules = (RuleNote(special.rule, f"{special.label}: {saved} saved"), *special.notes)
            done.append(
                Step(
                    special.step,
                    special.value,
                    unsaved,
                    saved,
                    f"{guard.name}: {special.label} against {plural(unsaved, 'wound')}: "
                    f"{saved} saved",
                    rules,
                    special_roll,
                )
            )
            unsaved -= saved
        elif special is not None:
            done.append(
                Step(
                    special.step,
                    None,
                    0,
                    0,
                    f"{guard.name}: {special.label} does not apply",
                    special.notes,
                )
            )
    return Outcome(strike, guard, tuple(done), hits, auto, wounds, unsaved)


def times_models(value: int | str, models: int) -> str | int:
    """Attacks or shots of `models` models with `value` each: an int, or one dice expression
    rolling every model's dice at once ("D3" for 4 models: "4D3")."""
    if isinstance(value, int):
        return value * models
    match = DICE_PATTERN.match(value)
    if match is None:
        raise ValueError(f"cannot read attacks {value!r}")
    count = int(match["count"] or 1) * models
    plus = int(match["plus"] or 0) * models
    return f"{count}D{match['sides']}" + (f"+{plus}" if plus else "")


# --- 5. losses ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pool:
    """The wounds of a unit (t9a Health Points, whfb8 Wounds): `models` rank-and-file of
    `health_points` each, `damage` lost by the one wounded rank-and-file model, and each
    attachable model's (health_points, damage)."""

    models: int
    health_points: int
    damage: int = 0
    characters: tuple[tuple[int, int], ...] = field(default=())

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
    """Allocate `losses`: rank-and-file first (the wounded model first, a model removed when
    its last Health Point goes), then attachable models: one after another (`evenly` False), or
    as evenly as possible (t9a Supernal, seed 000; whfb8 Unstable): each loss to the living
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
