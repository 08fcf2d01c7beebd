"""Warhammer 40,000 10th edition: the attack sequence (issue 16; FACTS.md wh40k10; seed 004).

`resolve_attacks` resolves every attack one unit makes against one target unit: a list of
`AttackGroup`s (one weapon profile, the models using it, the situation), in order, then the
Devastating Wounds held back. For each group:

1. **Attacks**: A per model (a random A rolled for each model), + Rapid Fire X within half
   range, + 1 per 5 models in the target for [BLAST] (counted when the group shoots).
2. **Hit roll**: D6 >= BS/WS; modifiers (Heavy +1 after Remaining Stationary, Big Guns Never
   Tire -1, any others) summed and capped at +1/-1; an unmodified 6 is a Critical Hit and always
   hits, an unmodified 1 always fails. [TORRENT] hits automatically (no roll, no Critical Hits).
   Critical Hits: [LETHAL HITS] wound automatically; [SUSTAINED HITS X] score X more hits.
3. **Wound roll**: S against T (the table in `tables.to_wound`), modifiers capped at +1/-1; an
   unmodified 6 is a Critical Wound (always succeeds), so is an unmodified Y+ of [ANTI-X Y+]
   against a unit with keyword X; an unmodified 1 fails. [TWIN-LINKED] re-rolls failed wound
   rolls. An Attached unit is wounded on its Bodyguard models' Toughness until the attacking
   unit has resolved all its attacks (this call), whoever is left (seed 004).
4. **Allocation** one attack at a time (`damage.allocation_target`): a model that has lost wounds
   or had attacks allocated this phase first; in an Attached unit no Character while a
   Bodyguard model lives (seed 004); [PRECISION] sends it to the Character the attacker named.
5. **Saving throw**: D6 >= Sv - AP (AP is negative); Benefit of Cover +1 against ranged attacks
   (not for Sv 3+ or better against AP 0; not against [IGNORES COVER]); an invulnerable save
   ignores AP and cover and is used when better; an unmodified 1 fails; 7+ cannot be made.
6. **Damage** D (rolled per attack when random), Feel No Pain, excess lost (`damage`).

**Devastating Wounds** (FACTS.md's wording, the original 10th-edition core text): a Critical
Wound from such a weapon allows no saving throw of any kind, invulnerable included, and those
attacks are allocated after all the others; they do normal damage (excess lost), not mortal
wounds as later rules texts have it. Decision recorded in docs/wh40k10-attacks.md.

Re-rolls: [TWIN-LINKED] and `reroll_wounds` re-roll each failed wound roll once;
`reroll_hits` ("ones" or "failed", e.g. Oath of Moment) re-rolls hit rolls. A re-rolled die is
replaced before modifiers are read (`server.dice` records both dice).

Hazardous tests follow the attacking unit's attacks: `damage.hazardous_tests` on the attacker.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from server.rules.wh40k10 import tables
from server.rules.wh40k10.damage import (
    Board,
    Recorder,
    Resolution,
    Roller,
    allocation_target,
    check_demise_input,
    faces,
    finish,
    lose_wounds,
    plural,
    roll_amount,
)
from server.rules.wh40k10.profiles import (
    MELEE,
    MONSTER,
    RANGED,
    VEHICLE,
    DiceAmount,
    ProfileError,
    Shooter,
    TargetModel,
    TargetUnit,
    Weapon,
)

MODIFIER_CAP = 1
BLAST_MODELS = 5
CRITICAL = 6

RerollKind = Literal["ones", "failed"]


@dataclass(frozen=True)
class AttackGroup:
    """One weapon profile used by `models` models of the attacking unit at the target.

    `within_half_range` (Rapid Fire), `hit_modifier` / `wound_modifier` from other rules (the
    cap applies to the sum), `reroll_hits`, `reroll_wounds`, and `precision_model`: the
    Character model the attacker sends [PRECISION] attacks to (visible: the caller checks)."""

    weapon: Weapon
    models: int = 1
    within_half_range: bool = False
    hit_modifier: int = 0
    wound_modifier: int = 0
    reroll_hits: RerollKind | None = None
    reroll_wounds: RerollKind | None = None
    precision_model: str | None = None
    attacks: int | None = None
    """Fixed number of attacks instead of rolling A (for a single attack in tests and for
    rules that say "make N attacks")."""
    hit_on_six: bool = False
    """Fire Overwatch (stratagems.py): an unmodified 6 is required to hit, whatever the BS or
    modifiers."""

    def __post_init__(self) -> None:
        if self.models < 1:
            raise ProfileError(f"{self.weapon.name}: at least one model must use it")
        if self.attacks is not None and self.attacks < 0:
            raise ProfileError(f"{self.weapon.name}: attacks cannot be negative")


def cap(modifier: int) -> int:
    """Hit and wound roll modifiers are capped at +1/-1 (FACTS.md)."""
    return max(-MODIFIER_CAP, min(MODIFIER_CAP, modifier))


def hit_succeeds(face: int, skill: int, modifier: int) -> bool:
    """An unmodified 6 always hits (a Critical Hit), an unmodified 1 always fails."""
    if face == 1:
        return False
    return face == CRITICAL or face + cap(modifier) >= skill


def wound_succeeds(face: int, needed: int, modifier: int, critical_at: int = CRITICAL) -> bool:
    """An unmodified roll >= `critical_at` (6, or Y of Anti-X Y+) is a Critical Wound and always
    succeeds; an unmodified 1 always fails."""
    if face == 1:
        return False
    return face >= critical_at or face + cap(modifier) >= needed


def save_needed(
    model: TargetModel, weapon: Weapon, *, ranged: bool | None = None
) -> tuple[int | None, str]:
    """The D6 the model needs to save against `weapon`, or None, and how it was worked out.

    Armour: Sv - AP, -1 with the Benefit of Cover against ranged attacks unless Sv 3+ or better
    against AP 0 or the weapon [IGNORES COVER]. Invulnerable: as printed. The better is used."""
    is_ranged = weapon.kind == RANGED if ranged is None else ranged
    armour = model.save - weapon.ap
    words = f"Sv {model.save}+ AP {weapon.ap}: {armour}+"
    if is_ranged and model.cover and not weapon.ignores_cover:
        if model.save <= 3 and weapon.ap == 0:
            words += " (no Benefit of Cover: Sv 3+ or better against AP 0)"
        else:
            armour -= 1
            words += f", Benefit of Cover {armour}+"
    best = armour
    if model.invulnerable is not None and model.invulnerable < armour:
        best = model.invulnerable
        words += f"; invulnerable {model.invulnerable}+ used"
    elif model.invulnerable is not None:
        words += f"; invulnerable {model.invulnerable}+ not better"
    best = max(best, 2)
    if best > 6:
        return None, words + "; no save possible"
    return best, words


def hit_modifier(group: AttackGroup, shooter: Shooter, target: TargetUnit) -> tuple[int, list[str]]:
    """The summed hit modifiers of the group (before the cap) and their names."""
    weapon = group.weapon
    total = group.hit_modifier
    notes: list[str] = []
    if group.hit_modifier:
        notes.append(f"other rules {group.hit_modifier:+d}")
    if weapon.kind == RANGED:
        if weapon.heavy and shooter.remained_stationary:
            total += 1
            notes.append("Heavy +1")
        big_by = (
            shooter.engaged
            and not weapon.pistol
            and (shooter.has_keyword(MONSTER) or shooter.has_keyword(VEHICLE))
        )
        big_at = target.engaged and (target.has_keyword(MONSTER) or target.has_keyword(VEHICLE))
        if big_by or big_at:
            total -= 1
            notes.append("Big Guns Never Tire -1")
    return total, notes


def toughness_of(unit: TargetUnit) -> int:
    """The Toughness attacks use: the Bodyguard models' in an Attached unit (seed 004), else the
    models' (Decision: the highest, should a unit mix them)."""
    models = unit.alive or unit.models
    if unit.attached:
        guards = [m for m in models if not m.character]
        if guards:
            return max(m.toughness for m in guards)
    return max(m.toughness for m in models)


def _reroll_suffix(fail_faces: set[int], kind: RerollKind | None) -> str:
    if kind is None:
        return ""
    chosen = sorted(fail_faces) if kind == "failed" else [1]
    return " reroll " + ",".join(str(f) for f in chosen) if chosen else ""


def critical_wound_at(weapon: Weapon, target: TargetUnit) -> tuple[int, str | None]:
    best, why = CRITICAL, None
    for keyword, value in weapon.anti:
        if target.has_keyword(keyword) and value < best:
            best, why = value, f"ANTI-{keyword} {value}+"
    return best, why


@dataclass(frozen=True)
class _Wound:
    weapon: Weapon
    group: int
    devastating: bool
    precision_model: str | None


def number_of_attacks(rec: Recorder, group: AttackGroup, target: TargetUnit) -> int:
    weapon = group.weapon
    if group.attacks is not None:
        base = group.attacks
        rec.add("attacks", f"{weapon.name}: {plural(base, 'attack')}", data={"attacks": base})
        return base
    amount = DiceAmount.parse(weapon.attacks).times(group.models)
    base = amount.plus if amount.fixed else roll_amount(rec, amount.printed(), f"{weapon.name} A")
    total = base
    words = [f"A {weapon.attacks} x {group.models} = {base}"]
    if weapon.rapid_fire and group.within_half_range:
        total += weapon.rapid_fire * group.models
        words.append(f"Rapid Fire {weapon.rapid_fire} +{weapon.rapid_fire * group.models}")
    if weapon.blast:
        bonus = (len(target.alive) // BLAST_MODELS) * group.models
        if bonus:
            total += bonus
            words.append(f"Blast +{bonus} ({len(target.alive)} models)")
    rec.add(
        "attacks",
        f"{weapon.name}: {plural(total, 'attack')} ({'; '.join(words)})",
        data={"attacks": total},
    )
    return total


def hit_and_wound(
    rec: Recorder,
    index: int,
    group: AttackGroup,
    target: TargetUnit,
    toughness: int,
    shooter: Shooter,
) -> list[_Wound]:
    """Steps 1-3 for one group: the wounds it scores, in the order they are allocated."""
    weapon = group.weapon
    attacks = number_of_attacks(rec, group, target)
    if attacks == 0:
        return []
    # -- hit roll
    lethal = 0
    if weapon.torrent:
        hits = attacks
        rec.add(
            "hit",
            f"{weapon.name}: Torrent: {plural(hits, 'hit')} automatically",
            data={"hits": hits, "critical": 0},
        )
    else:
        assert weapon.skill is not None
        modifier, notes = hit_modifier(group, shooter, target)
        capped = cap(modifier)
        skill = weapon.skill

        def hit(face: int) -> bool:
            return face == CRITICAL if group.hit_on_six else hit_succeeds(face, skill, modifier)

        fails = {f for f in range(1, 7) if not hit(f)}
        roll, at = rec.roll(f"{attacks}D6" + _reroll_suffix(fails, group.reroll_hits))
        rolled = faces(roll)
        hits = sum(1 for f in rolled if hit(f))
        crits = sum(1 for f in rolled if f == CRITICAL)
        extra = 0
        words = [f"{plural(hits, 'hit')}", f"{crits} critical"]
        if crits and weapon.lethal_hits:
            lethal = crits
            words.append(f"Lethal Hits: {plural(lethal, 'automatic wound')}")
        if crits and weapon.sustained_hits:
            extra = roll_amount(
                rec,
                DiceAmount.parse(weapon.sustained_hits).times(crits).printed(),
                f"{weapon.name} Sustained Hits {weapon.sustained_hits} x {crits}",
            )
            hits += extra
            words.append(f"Sustained Hits {weapon.sustained_hits}: +{plural(extra, 'hit')}")
        mods = f" ({', '.join(notes)}; {capped:+d} applied)" if notes else ""
        if group.hit_on_six:
            mods = " (Fire Overwatch: unmodified 6s only)"
        rec.add(
            "hit",
            f"{weapon.name}: {plural(attacks, 'attack')} hitting on "
            f"{CRITICAL if group.hit_on_six else weapon.skill}+{mods}: " + ", ".join(words),
            roll=at,
            needed=CRITICAL if group.hit_on_six else max(2, weapon.skill - capped),
            data={"hits": hits, "critical": crits, "lethal": lethal, "sustained": extra},
        )
    # -- wound roll
    wounds: list[_Wound] = []
    to_roll = hits - lethal
    precision = group.precision_model if weapon.precision else None
    if lethal:
        wounds.extend(_Wound(weapon, index, False, precision) for _ in range(lethal))
    if to_roll > 0:
        needed = tables.to_wound(weapon.strength, toughness)
        modifier = group.wound_modifier
        critical_at, anti = critical_wound_at(weapon, target)
        fails = {f for f in range(1, 7) if not wound_succeeds(f, needed, modifier, critical_at)}
        reroll: RerollKind | None = "failed" if weapon.twin_linked else group.reroll_wounds
        roll, at = rec.roll(f"{to_roll}D6" + _reroll_suffix(fails, reroll))
        rolled = faces(roll)
        normal = crits = 0
        for f in rolled:
            if not wound_succeeds(f, needed, modifier, critical_at):
                continue
            critical = f >= critical_at
            crits += critical
            devastating = critical and weapon.devastating_wounds
            if not devastating:
                normal += 1
            wounds.append(_Wound(weapon, index, devastating, precision))
        notes = [f"S {weapon.strength} vs T {toughness}"]
        if modifier:
            notes.append(f"{cap(modifier):+d}")
        if anti:
            notes.append(f"{anti}: Critical Wound on {critical_at}+")
        if weapon.twin_linked:
            notes.append("Twin-linked re-roll")
        devastating_n = sum(1 for w in wounds if w.devastating)
        rec.add(
            "wound",
            f"{weapon.name}: {plural(to_roll, 'hit')} wounding on {needed}+ ({'; '.join(notes)}): "
            f"{plural(normal + devastating_n, 'wound')}, {crits} critical"
            + (
                f", {devastating_n} Devastating Wounds (no save, allocated last)"
                if devastating_n
                else ""
            )
            + (f" + {lethal} from Lethal Hits" if lethal else ""),
            roll=at,
            needed=max(2, needed - cap(modifier)),
            data={
                "wounds": normal + devastating_n + lethal,
                "critical": crits,
                "devastating": devastating_n,
                "lethal": lethal,
            },
        )
    elif lethal:
        rec.add(
            "wound",
            f"{weapon.name}: {plural(lethal, 'wound')} from Lethal Hits",
            data={"wounds": lethal, "critical": 0, "devastating": 0, "lethal": lethal},
        )
    return wounds


def resolve_wound(
    rec: Recorder,
    board: Board,
    wound: _Wound,
    within_6in: Mapping[str, Sequence[str]] | None,
) -> int:
    """Steps 4-6 for one successful wound: allocation, save, damage. Returns wounds lost."""
    weapon = wound.weapon
    model = allocation_target(board, wound.precision_model)
    if model is None:
        rec.add("allocate", f"{weapon.name}: no model left to allocate the attack to")
        return 0
    board.set(replace(model, allocated=True))
    how = "Precision" if wound.precision_model == model.id and model.character else "allocated"
    rec.add("allocate", f"{weapon.name}: {how} to {model.name}", model=model.id)
    if wound.devastating:
        rec.add(
            "save",
            f"{model.name}: Devastating Wounds: no saving throw",
            model=model.id,
            data={"saved": False},
        )
    else:
        needed, words = save_needed(model, weapon)
        if needed is None:
            rec.add("save", f"{model.name}: {words}", model=model.id, data={"saved": False})
        else:
            roll, at = rec.roll("D6")
            face = faces(roll)[0]
            saved = face != 1 and face >= needed
            rec.add(
                "save",
                f"{model.name}: save {needed}+ ({words}): rolled {face}, "
                + ("saved" if saved else "failed"),
                roll=at,
                model=model.id,
                needed=needed,
                data={"saved": saved},
            )
            if saved:
                return 0
    amount = roll_amount(rec, weapon.damage, f"{weapon.name} D")
    return lose_wounds(
        rec,
        board,
        model.id,
        amount,
        cause=f"{weapon.name}, D {weapon.damage}",
        within_6in=within_6in,
    )


def resolve_attacks(
    groups: Sequence[AttackGroup],
    target: TargetUnit,
    roller: Roller,
    *,
    shooter: Shooter | None = None,
    within_6in: Mapping[str, Sequence[str]] | None = None,
) -> Resolution:
    """Every attack of one attacking unit against `target`, in the order of `groups`, then the
    held-back Devastating Wounds. See the module text. `shooter` describes the attacking unit
    (Heavy, Big Guns Never Tire); `within_6in` maps each living model with Deadly Demise to the
    ids of the units within 6 in of it (required). Bad input is refused before any roll."""
    if not groups:
        raise ProfileError("no attacks to resolve")
    kinds = {g.weapon.kind for g in groups}
    if len(kinds) > 1:
        raise ProfileError("a unit's ranged and melee attacks are resolved separately")
    for group in groups:
        if group.precision_model is None:
            continue
        if not group.weapon.precision:
            raise ProfileError(f"{group.weapon.name} has no [PRECISION]: it cannot pick a model")
        if not target.model(group.precision_model).character:
            raise ProfileError(f"Precision: {group.precision_model!r} is not a Character model")
    check_demise_input(target, within_6in)
    shooter = shooter or Shooter()
    rec = Recorder(roller)
    board = Board(target)
    toughness = toughness_of(target)
    if target.attached:
        rec.add(
            "toughness",
            f"{target.name}: Attached unit, wounded on the Bodyguard's T {toughness}",
            data={"toughness": toughness},
        )
    lost = 0
    held: list[_Wound] = []
    for index, group in enumerate(groups):
        if not board.living():
            rec.add("attacks", f"{group.weapon.name}: {target.name} has no model left")
            continue
        current = board.result()
        for wound in hit_and_wound(rec, index, group, current, toughness, shooter):
            if wound.devastating:
                held.append(wound)
            else:
                lost += resolve_wound(rec, board, wound, within_6in)
    for wound in held:
        lost += resolve_wound(rec, board, wound, within_6in)
    kind = next(iter(kinds))
    return finish(rec, board, lost, kind="melee" if kind == MELEE else "ranged")
