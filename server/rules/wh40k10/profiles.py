"""Warhammer 40,000 10th edition: the plain values the attack sequence works on (issue 16).

A `Weapon` is one weapon profile with its abilities read into fields; a `TargetModel` one model
as the attack sequence sees it (Toughness, Save, invulnerable save, Feel No Pain, wounds left,
Character, Benefit of Cover, Deadly Demise); a `TargetUnit` a unit of them (keywords, Attached,
the defender's allocation order). All frozen: the sequence returns new values, never edits.

Profile changes that come from army or datasheet rules are functions here, applied by the
caller when the rule is in force (the engine knows when; these know what):

* `waaagh_weapon` / `waaagh_model` (seed 004, Waaagh!): +1 Strength and +1 Attacks on melee
  weapons; a 5+ invulnerable save.
* `unstable_oracle` (FACTS.md, Wurrboy): Eyez of Mork +2 Attacks per 5 models in the led unit
  (rounded down), [HAZARDOUS] while that unit has 10 or more models.

Numbers are printed values: Sv 5 means 5+, AP is 0 or negative (-3), A and D are a whole
number or a dice expression ("D6", "D3+1", "2D6").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from server.data import Datasheet
from server.data.schema import Wh40kProfile, Wh40kWeapon

WeaponKind = Literal["ranged", "melee"]
RANGED: Literal["ranged"] = "ranged"
MELEE: Literal["melee"] = "melee"


def profile_of(sheet: Datasheet) -> Wh40kProfile:
    """The sheet's wh40k10 profile; `WrongSystem` (a ValueError) on another system's sheet."""
    return sheet.profile_as(Wh40kProfile)

# Weapon abilities (datasheets print them in capitals, in brackets).
ASSAULT = "ASSAULT"
PISTOL = "PISTOL"
HEAVY = "HEAVY"
RAPID_FIRE = "RAPID FIRE"
SUSTAINED_HITS = "SUSTAINED HITS"
LETHAL_HITS = "LETHAL HITS"
DEVASTATING_WOUNDS = "DEVASTATING WOUNDS"
TORRENT = "TORRENT"
BLAST = "BLAST"
ANTI = "ANTI"
TWIN_LINKED = "TWIN-LINKED"
PSYCHIC = "PSYCHIC"
HAZARDOUS = "HAZARDOUS"
PRECISION = "PRECISION"
IGNORES_COVER = "IGNORES COVER"

AUTOMATED_WEAPON_ABILITIES: frozenset[str] = frozenset(
    {
        ASSAULT,
        PISTOL,
        HEAVY,
        RAPID_FIRE,
        SUSTAINED_HITS,
        LETHAL_HITS,
        DEVASTATING_WOUNDS,
        TORRENT,
        BLAST,
        ANTI,
        TWIN_LINKED,
        PSYCHIC,
        HAZARDOUS,
        PRECISION,
        IGNORES_COVER,
    }
)
"""The weapon abilities this module reads (ANTI stands for every Anti-X Y+). PSYCHIC only
marks the attack as a Psychic Attack; ASSAULT and PISTOL are read by `shooting_restriction`."""

MONSTER = "MONSTER"
VEHICLE = "VEHICLE"

_DICE = re.compile(r"^(?P<count>[1-9]\d*)?D(?P<sides>3|6)(?:\+(?P<plus>\d+))?$")


class ProfileError(ValueError):
    """A profile the attack sequence cannot use; `code` is the protocol's error code."""

    code = "bad_request"


# --- dice values (A, D, Sustained Hits X, Deadly Demise X) --------------------------------------

DiceValue = int | str
"""A whole number, or a dice expression "D6", "D3+1", "2D6" (as printed on profiles)."""


@dataclass(frozen=True)
class DiceAmount:
    """`count`D`sides` + `plus`; a fixed number has count 0."""

    count: int
    sides: int
    plus: int

    @classmethod
    def parse(cls, value: DiceValue) -> DiceAmount:
        if isinstance(value, bool):
            raise ProfileError(f"expected a number or a dice expression, got {value!r}")
        if isinstance(value, int):
            if value < 0:
                raise ProfileError(f"expected a number >= 0, got {value}")
            return cls(0, 6, value)
        match = _DICE.match(str(value).strip().upper())
        if match is None:
            raise ProfileError(
                f"expected a number or a dice expression (D3, 2D6, D6+1), got {value!r}"
            )
        return cls(int(match["count"] or 1), int(match["sides"]), int(match["plus"] or 0))

    @property
    def fixed(self) -> bool:
        return self.count == 0

    def printed(self) -> DiceValue:
        if self.fixed:
            return self.plus
        text = f"{self.count if self.count != 1 else ''}D{self.sides}"
        return text + (f"+{self.plus}" if self.plus else "")

    def plus_n(self, n: int) -> DiceAmount:
        return replace(self, plus=self.plus + n)

    def times(self, n: int) -> DiceAmount:
        """The sum of `n` independent amounts (n models each rolling their own)."""
        return DiceAmount(self.count * n, self.sides, self.plus * n)

    def expression(self) -> str:
        """The dice expression for `server.dice` ("3D6+3"); only for amounts with dice."""
        text = f"{self.count}D{self.sides}"
        return text + (f"+{self.plus}" if self.plus else "")


def add_to_dice(value: DiceValue, n: int) -> DiceValue:
    """`value` + n as printed: 3 + 1 = 4, "D6" + 1 = "D6+1", "D6+1" + 2 = "D6+3"."""
    return DiceAmount.parse(value).plus_n(n).printed()


# --- weapons ----------------------------------------------------------------------------------

_ANTI = re.compile(r"^ANTI-(?P<keyword>.+)$")


@dataclass(frozen=True)
class Weapon:
    """One weapon profile. `skill` is BS (ranged) or WS (melee), 5 meaning 5+; None only for
    [TORRENT] weapons, which never roll to hit. `anti` holds (keyword, Y) pairs of Anti-X Y+."""

    name: str
    kind: WeaponKind
    attacks: DiceValue
    skill: int | None
    strength: int
    ap: int
    damage: DiceValue
    range_in: float | None = None
    assault: bool = False
    pistol: bool = False
    heavy: bool = False
    rapid_fire: int = 0
    sustained_hits: DiceValue = 0
    lethal_hits: bool = False
    devastating_wounds: bool = False
    torrent: bool = False
    blast: bool = False
    anti: tuple[tuple[str, int], ...] = ()
    twin_linked: bool = False
    psychic: bool = False
    hazardous: bool = False
    precision: bool = False
    ignores_cover: bool = False
    other_abilities: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        DiceAmount.parse(self.attacks)
        DiceAmount.parse(self.damage)
        DiceAmount.parse(self.sustained_hits)
        if self.kind not in (RANGED, MELEE):
            raise ProfileError(f"weapon {self.name!r}: kind must be ranged or melee")
        if self.skill is None and not self.torrent:
            raise ProfileError(f"weapon {self.name!r} needs BS/WS unless it has [TORRENT]")
        if self.skill is not None and not 2 <= self.skill <= 6:
            raise ProfileError(f"weapon {self.name!r}: BS/WS must be 2..6, got {self.skill}")
        if self.ap > 0:
            raise ProfileError(f"weapon {self.name!r}: AP is 0 or negative, got {self.ap}")
        if self.strength < 1:
            raise ProfileError(f"weapon {self.name!r}: Strength must be >= 1")
        if self.kind == RANGED and self.range_in is None:
            raise ProfileError(f"ranged weapon {self.name!r} needs a range")

    @property
    def abilities(self) -> tuple[str, ...]:
        """The abilities as printed ("RAPID FIRE 1", "ANTI-INFANTRY 4+")."""
        out: list[str] = []
        flags = (
            (self.assault, ASSAULT),
            (self.pistol, PISTOL),
            (self.heavy, HEAVY),
            (self.lethal_hits, LETHAL_HITS),
            (self.devastating_wounds, DEVASTATING_WOUNDS),
            (self.torrent, TORRENT),
            (self.blast, BLAST),
            (self.twin_linked, TWIN_LINKED),
            (self.psychic, PSYCHIC),
            (self.hazardous, HAZARDOUS),
            (self.precision, PRECISION),
            (self.ignores_cover, IGNORES_COVER),
        )
        out.extend(name for on, name in flags if on)
        if self.rapid_fire:
            out.append(f"{RAPID_FIRE} {self.rapid_fire}")
        if self.sustained_hits:
            out.append(f"{SUSTAINED_HITS} {self.sustained_hits}")
        out.extend(f"ANTI-{keyword} {value}+" for keyword, value in self.anti)
        out.extend(self.other_abilities)
        return tuple(out)

    @classmethod
    def build(
        cls,
        name: str,
        kind: WeaponKind,
        *,
        attacks: DiceValue,
        skill: int | None,
        strength: int,
        ap: int,
        damage: DiceValue,
        range_in: float | None = None,
        abilities: Iterable[str | tuple[str, Any]] = (),
    ) -> Weapon:
        """A weapon from its printed abilities: "RAPID FIRE 1", "ANTI-INFANTRY 4+", "BLAST",
        or (name, param) pairs as datasheets store them (("SUSTAINED HITS", 1))."""
        fields: dict[str, Any] = {}
        anti: list[tuple[str, int]] = []
        other: list[str] = []
        for ability in abilities:
            ability_name, param = _split_ability(ability)
            upper = ability_name.upper()
            anti_match = _ANTI.match(upper)
            if anti_match is not None:
                if not isinstance(param, int) or not 2 <= param <= 6:
                    raise ProfileError(f"{ability!r}: Anti-X needs a value 2+..6+")
                anti.append((anti_match["keyword"].strip(), param))
                continue
            flag = _FLAGS.get(upper)
            if flag is not None:
                if param is not None:
                    raise ProfileError(f"{ability!r} takes no value")
                fields[flag] = True
            elif upper == RAPID_FIRE:
                if not isinstance(param, int) or param < 1:
                    raise ProfileError(f"{ability!r}: Rapid Fire needs a number >= 1")
                fields["rapid_fire"] = param
            elif upper == SUSTAINED_HITS:
                if param is None:
                    raise ProfileError(f"{ability!r}: Sustained Hits needs a value")
                DiceAmount.parse(param)
                fields["sustained_hits"] = param
            else:
                other.append(ability_name if param is None else f"{ability_name} {param}")
        return cls(
            name,
            kind,
            attacks,
            skill,
            strength,
            ap,
            damage,
            range_in,
            anti=tuple(anti),
            other_abilities=tuple(other),
            **fields,
        )

    @classmethod
    def from_datasheet(cls, weapon: Wh40kWeapon) -> Weapon:
        """From a datasheet's weapon (keywords are SpecialRule name/param)."""
        skill = weapon.BS if weapon.type == RANGED else weapon.WS
        return cls.build(
            weapon.name,
            weapon.type,
            attacks=weapon.A,
            skill=skill,
            strength=weapon.S,
            ap=weapon.AP,
            damage=weapon.D,
            range_in=weapon.range_in,
            abilities=[(k.name, k.param) for k in weapon.keywords],
        )


_FLAGS = {
    ASSAULT: "assault",
    PISTOL: "pistol",
    HEAVY: "heavy",
    LETHAL_HITS: "lethal_hits",
    DEVASTATING_WOUNDS: "devastating_wounds",
    TORRENT: "torrent",
    BLAST: "blast",
    TWIN_LINKED: "twin_linked",
    PSYCHIC: "psychic",
    HAZARDOUS: "hazardous",
    PRECISION: "precision",
    IGNORES_COVER: "ignores_cover",
}

_PRINTED = re.compile(r"^(?P<name>.+?)\s+(?P<param>\d+\+?|\d*D[36](?:\+\d+)?)$", re.IGNORECASE)


def _split_ability(ability: str | tuple[str, Any]) -> tuple[str, int | str | None]:
    if isinstance(ability, tuple):
        name, param = ability
        return str(name).strip(), param
    text = " ".join(ability.split())
    match = _PRINTED.match(text)
    if match is None:
        return text, None
    raw = match["param"].rstrip("+")
    return match["name"], int(raw) if raw.isdigit() else raw.upper()


# --- models and units ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TargetModel:
    """One model as attacks see it. `wounds_left` None means unhurt (= `wounds`).

    `allocated` marks a model that already had an attack allocated to it this phase (it must
    take the next one, like a model that has lost wounds). `cover`: it has the Benefit of
    Cover against the ranged attacks being resolved. `deadly_demise`: X of Deadly Demise X.
    `hazardous`: it is equipped with one or more Hazardous weapons (for Hazardous tests).
    """

    id: str
    name: str
    toughness: int
    save: int
    wounds: int
    wounds_left: int | None = None
    invulnerable: int | None = None
    feel_no_pain: int | None = None
    character: bool = False
    cover: bool = False
    deadly_demise: DiceValue | None = None
    allocated: bool = False
    hazardous: bool = False

    def __post_init__(self) -> None:
        if self.wounds < 1:
            raise ProfileError(f"model {self.id!r}: W must be >= 1")
        if self.wounds_left is not None and not 0 <= self.wounds_left <= self.wounds:
            raise ProfileError(f"model {self.id!r}: wounds left must be 0..{self.wounds}")
        for what, value in (("invulnerable save", self.invulnerable), ("FNP", self.feel_no_pain)):
            if value is not None and not 2 <= value <= 6:
                raise ProfileError(f"model {self.id!r}: {what} must be 2+..6+, got {value}")
        if self.deadly_demise is not None:
            DiceAmount.parse(self.deadly_demise)

    @classmethod
    def from_datasheet(
        cls,
        model_id: str,
        sheet: Datasheet,
        line: int = 0,
        *,
        wounds_left: int | None = None,
        hazardous: bool = False,
    ) -> TargetModel:
        """Model line `line` of a wh40k10 datasheet: T, Sv, W, the profile's invulnerable
        save, Character, and Feel No Pain X+ / Deadly Demise X from its special rules (the
        best FNP if several)."""
        profile = profile_of(sheet)
        stats = profile.models[line]
        fnp: int | None = None
        demise: DiceValue | None = None
        for rule in sheet.special_rules:
            if rule.name == "Feel No Pain" and isinstance(rule.param, int):
                fnp = rule.param if fnp is None else min(fnp, rule.param)
            elif rule.name == "Deadly Demise" and rule.param is not None:
                demise = rule.param
        return cls(
            model_id,
            stats.name,
            toughness=stats.T,
            save=stats.Sv,
            wounds=stats.W,
            wounds_left=wounds_left,
            invulnerable=profile.invulnerable_save,
            feel_no_pain=fnp,
            character=bool(sheet.character),
            deadly_demise=demise,
            hazardous=hazardous,
        )

    @property
    def left(self) -> int:
        return self.wounds if self.wounds_left is None else self.wounds_left

    @property
    def alive(self) -> bool:
        return self.left > 0

    @property
    def wounded(self) -> bool:
        return 0 < self.left < self.wounds


@dataclass(frozen=True)
class TargetUnit:
    """A unit: its models (destroyed ones stay listed with 0 wounds left), keywords, whether it
    is an Attached unit (its Character models are the Leaders, the others the Bodyguard), and
    the defender's allocation order (model ids, most willing first) for free choices.

    `engaged`: within Engagement Range of an enemy unit (Big Guns Never Tire)."""

    id: str
    name: str
    models: tuple[TargetModel, ...]
    keywords: frozenset[str] = frozenset()
    attached: bool = False
    engaged: bool = False
    allocation_order: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        ids = [m.id for m in self.models]
        if len(set(ids)) != len(ids):
            raise ProfileError(f"unit {self.id!r} lists a model id twice")
        unknown = set(self.allocation_order) - set(ids)
        if unknown:
            raise ProfileError(f"unit {self.id!r}: allocation order names {sorted(unknown)}")

    @property
    def alive(self) -> tuple[TargetModel, ...]:
        return tuple(m for m in self.models if m.alive)

    def model(self, model_id: str) -> TargetModel:
        for m in self.models:
            if m.id == model_id:
                return m
        raise ProfileError(f"unit {self.id!r} has no model {model_id!r}")

    def has_keyword(self, keyword: str) -> bool:
        wanted = keyword.upper()
        return any(k.upper() == wanted for k in self.keywords)

    def with_models(self, models: Mapping[str, TargetModel]) -> TargetUnit:
        return replace(self, models=tuple(models.get(m.id, m) for m in self.models))


# --- rules that change profiles -----------------------------------------------------------------

WAAAGH_INVULNERABLE = 5


def waaagh_weapon(weapon: Weapon) -> Weapon:
    """Waaagh! (seed 004): +1 Strength and +1 Attacks on melee weapons; ranged ones unchanged."""
    if weapon.kind != MELEE:
        return weapon
    return replace(weapon, strength=weapon.strength + 1, attacks=add_to_dice(weapon.attacks, 1))


def waaagh_model(model: TargetModel) -> TargetModel:
    """Waaagh! (seed 004): a 5+ invulnerable save (a better one the model has is kept)."""
    best = WAAAGH_INVULNERABLE
    if model.invulnerable is not None:
        best = min(best, model.invulnerable)
    return replace(model, invulnerable=best)


def waaagh_unit(unit: TargetUnit) -> TargetUnit:
    """`waaagh_model` on every model of the unit."""
    return replace(unit, models=tuple(waaagh_model(m) for m in unit.models))


UNSTABLE_ORACLE_MODELS = 5
UNSTABLE_ORACLE_ATTACKS = 2
UNSTABLE_ORACLE_HAZARDOUS_AT = 10


def unstable_oracle(weapon: Weapon, models_in_led_unit: int) -> Weapon:
    """Unstable Oracle (FACTS.md, Wurrboy): while the Wurrboy leads a unit, Eyez of Mork gains
    +2 Attacks per 5 models in that unit (rounded down) and [HAZARDOUS] while it has 10 or more.

    `models_in_led_unit` is the caller's count of that unit's models (Decision: the Bodyguard
    models alive, the Wurrboy not counted; docs/wh40k10-attacks.md). 0: it leads no unit."""
    if models_in_led_unit < 0:
        raise ProfileError("a unit cannot have fewer than 0 models")
    bonus = UNSTABLE_ORACLE_ATTACKS * (models_in_led_unit // UNSTABLE_ORACLE_MODELS)
    hazardous = weapon.hazardous or models_in_led_unit >= UNSTABLE_ORACLE_HAZARDOUS_AT
    return replace(weapon, attacks=add_to_dice(weapon.attacks, bonus), hazardous=hazardous)


# --- who may shoot what -------------------------------------------------------------------------


@dataclass(frozen=True)
class Shooter:
    """What the shooting unit did this turn and what it is."""

    advanced: bool = False
    fell_back: bool = False
    engaged: bool = False
    remained_stationary: bool = False
    keywords: frozenset[str] = field(default_factory=frozenset)

    def has_keyword(self, keyword: str) -> bool:
        return keyword.upper() in {k.upper() for k in self.keywords}


def shooting_restriction(
    weapon: Weapon,
    shooter: Shooter,
    *,
    target_engaged_with_friends: bool = False,
    target_engaged_with_shooter: bool = False,
) -> str | None:
    """Why `weapon` may not shoot this target (FACTS.md, wh40k10 core loop), or None.

    Fell Back: no shooting. Advanced: [ASSAULT] weapons only. Engaged shooter: [PISTOL] weapons
    at a unit it is engaged with, unless it is a MONSTER or VEHICLE (Big Guns Never Tire).
    [BLAST]: never at a unit within Engagement Range of the shooter's army."""
    if weapon.kind != RANGED:
        return f"{weapon.name} is a melee weapon"
    if shooter.fell_back:
        return "a unit that Fell Back cannot shoot this turn"
    if shooter.advanced and not weapon.assault:
        return f"{weapon.name} is not an Assault weapon and the unit Advanced"
    big = shooter.has_keyword(MONSTER) or shooter.has_keyword(VEHICLE)
    if shooter.engaged and not big:
        if not weapon.pistol:
            return f"{weapon.name} is not a Pistol and the unit is in Engagement Range"
        if not target_engaged_with_shooter:
            return (
                "a Pistol fired in Engagement Range must target a unit the shooter is engaged with"
            )
    if weapon.blast and target_engaged_with_friends:
        return f"{weapon.name} is a Blast weapon: not at a unit within Engagement Range of friends"
    return None
