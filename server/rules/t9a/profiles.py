"""The 9th Age: what a datasheet means in combat, read once for attacks and combat scores.

Armour from equipment, the melee weapon a model part uses (Hand Weapon by default, seed 000),
Parry, Aegis, Hard Target, Distracting, Poison Attacks, Magical Attacks, Extra Support, Fight in
Extra Rank, Proper Ranks (Light Troops, seed 000), Discipline, Supernal and Fearless.

Decisions (the seed page names these rules without their numbers; FACTS.md has none):

* Armour: the profile's Armour plus Light Armour 1, Heavy Armour 2, Plate Armour 3, Shield 1.
* Melee weapon: a model part may choose a Hand Weapon only when it has no other option (seed
  000), so a Spear is used on foot (Infantry: +1 Armour Penetration, Fight in Extra Rank) and a
  Lance when the Cavalry model charged (+2 Strength, +2 Armour Penetration); otherwise the Hand
  Weapon every model part has and cannot lose. A Hand Weapon with a Shield gives Parry.
* Supporting Attacks: at most 1 attack per supporting model part (the Restricted Attack limit),
  replaced by Extra Support (X) or raised by Extra Support (+X) (seed 000).
* Proper Rank: a rank of at least 5 models (3 for Large, 1 for Gigantic Height); a unit
  containing Light Troops has zero (attachable models with Light Troops joined to a unit are
  ignored for this, unless the unit is only attachable models, seed 000).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from server.data import Datasheet, load_catalog
from server.data.schema import T9AModelPart, T9AProfile
from server.rules.systems import containing_rule, entirely_with
from server.rules.t9a.attacks import (
    AEGIS,
    DISTRACTING,
    HARD_TARGET,
    MAGICAL_ATTACKS,
    MELEE,
    POISON_ATTACKS,
    Aegis,
    Guard,
    Strike,
)

HAND_WEAPON = "Hand Weapon"
SPEAR = "Spear"
LANCE = "Lance"
SHIELD = "Shield"
EXTRA_SUPPORT = "Extra Support"
FIGHT_IN_EXTRA_RANK = "Fight in Extra Rank"
LIGHT_TROOPS = "Light Troops"
SUPERNAL = "Supernal"
FEARLESS = "Fearless"
ARMOUR_EQUIPMENT: dict[str, int] = {
    "Light Armour": 1,
    "Heavy Armour": 2,
    "Plate Armour": 3,
    SHIELD: 1,
}
PROPER_RANK_MODELS: dict[str, int] = {"Standard": 5, "Large": 3, "Gigantic": 1}
SUPPORT_LIMIT = 1
"""Most attacks a supporting model part makes without Extra Support."""
MAX_RANK_BONUS = 3


def sheet(system: str, datasheet: str) -> Datasheet:
    return load_catalog().get(system, datasheet)


def profile_of(ds: Datasheet) -> T9AProfile:
    """The sheet's t9a profile; `WrongSystem` (a ValueError) on another system's sheet."""
    return ds.profile_as(T9AProfile)


def equipment_names(ds: Datasheet) -> frozenset[str]:
    return frozenset(e.name for e in ds.equipment)


def armour_of(ds: Datasheet) -> int:
    """Armour: the profile's value plus armour equipment (see the module's decisions)."""
    bonus = sum(ARMOUR_EQUIPMENT.get(name, 0) for name in equipment_names(ds))
    return min(6, profile_of(ds).defensive.armour + bonus)


def aegis_of(ds: Datasheet) -> tuple[Aegis, ...]:
    """The profile's Aegis and every `Aegis (X+, against ...)` rule on the sheet."""
    found: list[Aegis] = []
    value = profile_of(ds).defensive.aegis
    if value is not None:
        found.append(Aegis(value))
    for rule in ds.special_rules:
        if rule.name == AEGIS and rule.param is not None:
            found.append(Aegis.parse(rule.param))
    return tuple(found)


@dataclass(frozen=True)
class Weapon:
    """The melee weapon a model part fights with and what it changes."""

    name: str
    strength: int = 0
    armour_penetration: int = 0
    extra_rank: bool = False

    def describe(self) -> str:
        changes = []
        if self.strength:
            changes.append(f"+{self.strength} Strength")
        if self.armour_penetration:
            changes.append(f"+{self.armour_penetration} Armour Penetration")
        if self.extra_rank:
            changes.append("Fight in Extra Rank")
        return f"{self.name}: " + (", ".join(changes) if changes else "no modifiers")


def melee_weapon(ds: Datasheet, charged: bool) -> Weapon:
    """The weapon chosen in Combat Choices (module decisions); Hand Weapon when nothing else."""
    kit = equipment_names(ds)
    kind = profile_of(ds).type
    if SPEAR in kit and kind == "Infantry":
        return Weapon(SPEAR, armour_penetration=1, extra_rank=True)
    if LANCE in kit and charged and kind == "Cavalry":
        return Weapon(LANCE, strength=2, armour_penetration=2)
    return Weapon(HAND_WEAPON)


def has_parry(ds: Datasheet, charged: bool) -> bool:
    """Hand Weapon (seed 000): a model with a Shield using a Hand Weapon gains Parry."""
    return SHIELD in equipment_names(ds) and melee_weapon(ds, charged).name == HAND_WEAPON


def hard_target(ds: Datasheet) -> int:
    rule = ds.rule(HARD_TARGET)
    return int(rule.param) if rule is not None and isinstance(rule.param, int) else 0


def guard_of(ds: Datasheet, *, parry: bool = False) -> Guard:
    """The defensive profile attacks against this datasheet's models use."""
    d = profile_of(ds).defensive
    return Guard(
        ds.name,
        d.defensive_skill,
        d.resilience,
        armour_of(ds),
        aegis_of(ds),
        hard_target(ds),
        ds.has_rule(DISTRACTING),
        parry,
    )


def support_limit(part: T9AModelPart) -> int:
    """Extra Support (seed 000): (X) replaces the supporting-attack limit, (+X) raises it."""
    limit = SUPPORT_LIMIT
    for rule in part.special_rules:
        if rule.name != EXTRA_SUPPORT or rule.param is None:
            continue
        if isinstance(rule.param, int):
            limit = rule.param
        elif re.fullmatch(r"\+\d+", rule.param):
            limit += int(rule.param[1:])
    return limit


def part_rules(part: T9AModelPart) -> list[str]:
    return [r.name for r in part.special_rules]


def supporting_ranks(part: T9AModelPart, weapon: Weapon) -> int:
    """How many ranks behind the first support: 1, or 2 with Fight in Extra Rank."""
    extra = FIGHT_IN_EXTRA_RANK in part_rules(part) or weapon.extra_rank
    return 2 if extra else 1


def strike_of(part: T9AModelPart, weapon: Weapon, attacks: int, owner: str) -> Strike:
    """A melee batch of `attacks` by this model part with `weapon`."""
    names = part_rules(part)
    return Strike(
        f"{owner} ({part.name})" if part.name != owner else owner,
        attacks,
        part.strength + weapon.strength,
        part.armour_penetration + weapon.armour_penetration,
        MELEE,
        offensive_skill=part.offensive_skill,
        agility=part.agility,
        attributes=frozenset(names),
        poison=names.count(POISON_ATTACKS),
    )


def is_magical(strike: Strike) -> bool:
    return MAGICAL_ATTACKS in strike.attributes


# --- units as a whole ---------------------------------------------------------------------------


def contains_light_troops(rank_and_file: Datasheet | None, characters: Iterable[Datasheet]) -> bool:
    """Light Troops (seed 000) for Proper Ranks: the rank-and-file's rule; joined attachable
    models count only when the unit consists of attachable models alone."""
    if rank_and_file is not None:
        return rank_and_file.has_rule(LIGHT_TROOPS)
    return any(c.has_rule(LIGHT_TROOPS) for c in characters)


def proper_rank_width(height: str) -> int:
    """The files a rank fills to be a Proper Rank (module decisions); the count itself is the
    shared `RankAndFlankRules.proper_ranks`."""
    return PROPER_RANK_MODELS.get(height, 5)


def rank_bonus(ranks: int) -> int:
    """+1 for each Proper Rank after the first, at most +3."""
    return min(MAX_RANK_BONUS, max(0, ranks - 1))


def discipline(sheets: Iterable[Datasheet]) -> int:
    """A unit tests on the highest Discipline among its models."""
    return max(profile_of(s).global_characteristics.discipline for s in sheets)


def entirely(rule: str, sheets: Iterable[Datasheet]) -> bool:
    """The one "entirely" judgement (server.rules.systems.entirely_with)."""
    return entirely_with(list(sheets), rule)


def containing(rule: str, sheets: Iterable[Datasheet]) -> bool:
    """The one "containing" judgement (server.rules.systems.containing_rule)."""
    return containing_rule(list(sheets), rule)
