"""Warhammer Fantasy Battle 8th edition: what a datasheet means in combat, read once for the
attack steps and the combat result (../shared/rules/FACTS.md "whfb8: the battle"; the Tomb
Swarm page, ../shared/seeds/002_20fe50c61f72ab35.txt).

* **Profile line**: the first line of a profile is the rank-and-file model's (the others are
  champions: Sergeant, Boss, Master of Arms); a character's sheet has one line.
* **Armour save**: the profile's `save` (it already counts the unit's armour and shield, as
  printed). **Animated Construct** (FACTS, the End Times text): the unit has an armour save of
  5+; **Decision**: a unit whose own save is better keeps its own (the two do not add).
* **Ward save**: the profile's `ward_save`; **Parry** (a hand weapon and shield, FACTS): a 6+
  ward save in close combat against attacks from the front, not for mounted models; ward
  saves never add, the best one is taken.
* **Close combat weapon** (**Decision**: a model carrying a special weapon fights with it,
  the best first): Great Weapon (+2 Strength, strikes last), Halberd (+1 Strength), Spear (on
  foot, not when charging: fights in an extra rank), else the Hand Weapon (with a Shield:
  Parry). Halberds and great weapons take both hands, so no Parry with them.
* **Undead** (the page): the unit has Animated Construct, Fear and Unstable.
* **Unstable** (the page): Unbreakable; **Unbreakable** never takes Break Tests and passes
  Panic; **Stubborn** tests on unmodified Leadership; **Immunity (Psychology)** passes Panic and
  Fear.
* **Poisoned Attacks**: two texts, kept apart (issue 14 item 3). The Tomb Swarm page's (its
  `rule_texts`): +1 to wound, shooting and close combat unless stated, not spells, special
  attacks or magic weapons. The 8th-edition rulebook's (any other unit with the rule): a 6 to
  hit wounds automatically (not when a 7+ is needed to hit).
* **Skirmishers** count zero ranks (Light Troops, the page); shots at a unit of two or more
  Skirmishers of individual Unit Strength 2 or less suffer -1 (Light Troops). **Decision**
  (Unit Strength is not in FACTS): 1 per model for Infantry, Swarm, War Beast and Unique, 2
  for Cavalry, 3 for Monstrous troop types and more for Monsters, Chariots and War Machines, so
  that the page's own Swarm skirmishers get the rule the page writes for them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from server.data import Datasheet
from server.data.schema import SpecialRule, WHFB8MissileWeapon, WHFB8Profile, WHFB8Stats

UNDEAD = "Undead"
UNSTABLE = "Unstable"
UNBREAKABLE = "Unbreakable"
STUBBORN = "Stubborn"
ANIMATED_CONSTRUCT = "Animated Construct"
FEAR = "Fear"
IMMUNITY = "Immunity"
PSYCHOLOGY = "Psychology"
POISONED_ATTACKS = "Poisoned Attacks"
SKIRMISHERS = "Skirmishers"
LIGHT_TROOPS = "Light Troops"
ARMOUR_PIERCING = "Armour Piercing"
MULTIPLE_SHOTS = "Multiple Shots"
ALWAYS_STRIKES_FIRST = "Always Strikes First"
ALWAYS_STRIKES_LAST = "Always Strikes Last"
MY_WILL_BE_DONE = "My Will Be Done"
SWORN_BODYGUARD = "Sworn Bodyguard"
HAND_WEAPON = "Hand Weapon"
SHIELD = "Shield"
SPEAR = "Spear"
HALBERD = "Halberd"
GREAT_WEAPON = "Great Weapon"
PARRY = "Parry"
WARD_SAVE = "Ward Save"
ANIMATED_CONSTRUCT_SAVE = 5
PARRY_SAVE = 6
MAX_RANK_BONUS = 3
RANK_MODELS = 5
"""A rank of 5 or more models counts (FACTS: "+1 per extra rank of 5+ models")."""
HORDE_WIDTH = 10
MONSTROUS = ("Monstrous Infantry", "Monstrous Beast", "Monstrous Cavalry")
MONSTROUS_SUPPORT = 3
UNIT_STRENGTH: dict[str, int] = {
    "Infantry": 1,
    "Swarm": 1,
    "War Beast": 1,
    "Unique": 1,
    "Cavalry": 2,
    "Monstrous Infantry": 3,
    "Monstrous Beast": 3,
    "Monstrous Cavalry": 3,
    "Chariot": 4,
    "War Machine": 3,
    "Monster": 5,
}
LIGHT_TROOPS_UNIT_STRENGTH = 2
PAGE_POISON = "+1 modifier to any To Wound rolls"
"""The Tomb Swarm page's Poisoned Attacks, as its `rule_texts` quote it (seed 002)."""


def profile_of(ds: Datasheet) -> WHFB8Profile:
    """The sheet's whfb8 profile; `WrongSystem` (a ValueError) on another system's sheet."""
    return ds.profile_as(WHFB8Profile)


def stats(ds: Datasheet) -> WHFB8Stats:
    """The rank-and-file line (the first); champions' lines are not used (module text)."""
    return profile_of(ds).models[0]


def equipment_names(ds: Datasheet) -> frozenset[str]:
    return frozenset(e.name for e in ds.equipment)


def has(ds: Datasheet, rule: str) -> bool:
    """The sheet has the rule, or gets it from Undead (the page)."""
    if ds.has_rule(rule):
        return True
    return ds.has_rule(UNDEAD) and rule in (ANIMATED_CONSTRUCT, FEAR, UNSTABLE)


def immune_to_psychology(ds: Datasheet) -> bool:
    rule = ds.rule(IMMUNITY)
    return rule is not None and rule.param == PSYCHOLOGY


PSYCHOLOGY_COVERS = ("panic", "fear", "terror", "psychology")
"""Seed 003: "Models that are Immune to all three above effects [Panic, Fear, Terror] have
Immunity (Psychology)", which also passes every Psychology test."""


def immunities(ds: Datasheet) -> frozenset[str]:
    """The rules named in the sheet's Immunity (X) brackets, lower case (seed 003: "Models
    with Immunity ignore the effects of the rule(s) in the brackets"); Psychology names all
    of Panic, Fear and Terror."""
    rule = ds.rule(IMMUNITY)
    if rule is None or rule.param is None:
        return frozenset()
    names = {
        part.strip().lower()
        for chunk in str(rule.param).split(",")
        for part in chunk.split(" and ")
        if part.strip()
    }
    if "psychology" in names:
        names |= set(PSYCHOLOGY_COVERS)
    return frozenset(names)


def immune_to(ds: Datasheet, effect: str) -> bool:
    """Immunity (X) covers `effect` (case-insensitive)."""
    return effect.lower() in immunities(ds)


def unbreakable_rule(ds: Datasheet) -> str | None:
    """Unstable (which makes the unit Unbreakable, the page) or Unbreakable itself."""
    if has(ds, UNSTABLE):
        return UNSTABLE
    return UNBREAKABLE if ds.has_rule(UNBREAKABLE) else None


def causes_fear(ds: Datasheet) -> bool:
    return has(ds, FEAR) or ds.has_rule("Terror")


def armour_save(ds: Datasheet) -> tuple[int | None, str | None]:
    """The armour save before Strength, and the rule that gave it (Animated Construct)."""
    own = profile_of(ds).save
    if has(ds, ANIMATED_CONSTRUCT) and (own is None or own > ANIMATED_CONSTRUCT_SAVE):
        return ANIMATED_CONSTRUCT_SAVE, ANIMATED_CONSTRUCT
    return own, None


def armour_piercing(rules: Iterable[SpecialRule]) -> int:
    """Armour Piercing (X): X more off the armour save (FACTS: "-1 more each")."""
    return sum(
        (r.param if isinstance(r.param, int) else 1) for r in rules if r.name == ARMOUR_PIERCING
    )


def poisoned(ds: Datasheet) -> str | None:
    """Which Poisoned Attacks the sheet has: "page" (+1 to wound: the unit's own text quotes
    the page's), "rulebook" (a 6 to hit wounds automatically), None (module text)."""
    if not ds.has_rule(POISONED_ATTACKS):
        return None
    text = ds.rule_texts.get(POISONED_ATTACKS, "")
    return "page" if PAGE_POISON.lower() in " ".join(text.split()).lower() else "rulebook"


@dataclass(frozen=True)
class Weapon:
    """The close combat weapon a model fights with this round and what it changes."""

    name: str
    strength: int = 0
    extra_rank: bool = False
    strikes_last: bool = False
    parry: bool = False

    def describe(self) -> str:
        changes = []
        if self.strength:
            changes.append(f"+{self.strength} Strength")
        if self.extra_rank:
            changes.append("fights in an extra rank")
        if self.strikes_last:
            changes.append("strikes last")
        if self.parry:
            changes.append("with a Shield: Parry")
        return f"{self.name}: " + (", ".join(changes) if changes else "no modifiers")


def melee_weapon(ds: Datasheet, charged: bool) -> Weapon:
    """The weapon a model fights with (module text)."""
    kit = equipment_names(ds)
    on_foot = profile_of(ds).troop_type in ("Infantry", "Monstrous Infantry")
    if GREAT_WEAPON in kit:
        return Weapon(GREAT_WEAPON, strength=2, strikes_last=True)
    if HALBERD in kit:
        return Weapon(HALBERD, strength=1)
    if SPEAR in kit and on_foot:
        return Weapon(SPEAR, extra_rank=not charged)
    return Weapon(HAND_WEAPON, parry=SHIELD in kit)


def parries(ds: Datasheet, charged: bool) -> bool:
    """Parry (FACTS): hand weapon and shield, not mounted."""
    mounted = profile_of(ds).troop_type in ("Cavalry", "Monstrous Cavalry", "Chariot")
    return not mounted and melee_weapon(ds, charged).parry


@dataclass(frozen=True)
class Part:
    """A profile line that fights, with what the sheet gives it (module text)."""

    name: str
    attacks: int | str
    weapon_skill: int
    strength: int
    initiative: int
    troop_type: str
    strikes_first: bool
    strikes_last: bool
    poisoned: str | None
    armour_piercing: int


def melee_parts(ds: Datasheet) -> list[Part]:
    line = stats(ds)
    if line.A is None or line.WS is None or line.S is None:
        return []
    great = melee_weapon(ds, False).strikes_last
    return [
        Part(
            ds.name,
            line.A,
            line.WS,
            line.S,
            line.I or 0,
            profile_of(ds).troop_type,
            ds.has_rule(ALWAYS_STRIKES_FIRST),
            ds.has_rule(ALWAYS_STRIKES_LAST) or great,
            poisoned(ds),
            armour_piercing(ds.special_rules),
        )
    ]


def missile_weapons(ds: Datasheet) -> Sequence[WHFB8MissileWeapon]:
    return profile_of(ds).shooting


def multiple_shots(weapon: WHFB8MissileWeapon) -> int:
    """Multiple Shots (X): X, else 0."""
    for rule in weapon.special_rules:
        if rule.name == MULTIPLE_SHOTS and isinstance(rule.param, int):
            return rule.param
    return 0


def leadership(sheets: Iterable[Datasheet]) -> int:
    """A unit tests on the highest Leadership among its models."""
    return max((stats(s).Ld or 0) for s in sheets)


def unit_strength(ds: Datasheet) -> int:
    return UNIT_STRENGTH.get(profile_of(ds).troop_type, 1)


def skirmishers(sheets: Iterable[Datasheet]) -> bool:
    found = list(sheets)
    return bool(found) and all(s.has_rule(SKIRMISHERS) for s in found)


def rank_bonus(ranks: int) -> int:
    """+1 per extra rank after the first, at most +3 (FACTS)."""
    return min(MAX_RANK_BONUS, max(0, ranks - 1))

