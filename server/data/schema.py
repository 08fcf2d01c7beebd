"""The datasheet schema: one shape for all three game systems, with system-specific profiles.

A datasheet file (``server/data/<system>/<id>.yaml``) describes one unit entry: its base, model
count range, profile, equipment and special rules. Special rules are structured
``{name, param}`` entries; a file may also write them in their printed form ("Hard Target (1)",
"Feel No Pain 6+", "Deadly Demise D3") and :meth:`SpecialRule.parse` turns that into the
structured form. :attr:`SpecialRule.printed` turns it back, for the client to show.

Each system's known rules live in ``server/data/<system>/rules.yaml`` (:class:`RuleInfo`). When a
datasheet is validated with that registry in the pydantic validation context (the catalogue does
this), every rule name must be known and every parameter must have the shape the registry says.

Numbers follow each game's printed convention: a save or skill written "5+" is stored as ``5``;
40k AP is stored as printed (``-3``); lengths on the table are inches, base sizes millimetres.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    computed_field,
    field_validator,
    model_validator,
)

MM_PER_INCH = 25.4

SystemId = Literal["t9a", "whfb8", "wh40k10"]
SYSTEM_IDS: tuple[str, ...] = ("t9a", "whfb8", "wh40k10")

Slug = Annotated[str, Field(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$", max_length=80)]
# A dice expression as printed on profiles: "D6", "D3", "2D6", "D6+1", "2D3+2".
DICE_PATTERN = re.compile(r"^(?P<count>[1-9]\d*)?D(?P<sides>3|6)(?:\+(?P<plus>\d+))?$")
DiceOrInt = Annotated[int | str, Field(union_mode="left_to_right")]

RuleForm = Literal["plain", "brackets", "plus", "suffix"]
"""How a rule's parameter is printed.

``plain``: no parameter ("Fearless"); ``brackets``: "Hard Target (1)"; ``plus``: "Feel No Pain 6+";
``suffix``: "Deadly Demise D3", "RAPID FIRE 1".
"""

ParamKind = Literal["none", "int", "dice", "text", "modifier"]
"""What a rule's parameter may be.

``none``: no parameter; ``int``: a whole number >= 0; ``dice``: a whole number or a dice
expression ("D3", "2D6", "D6+1"); ``text``: a non-empty string, optionally one of ``choices``;
``modifier``: a whole number (replaces a value) or "+N" (raises it), as T9A's Extra Support.
"""


def _check_dice(value: int | str) -> int | str:
    if isinstance(value, bool):
        raise ValueError("expected a whole number or a dice expression, got a boolean")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"expected a number >= 0, got {value}")
        return value
    if not DICE_PATTERN.match(value):
        raise ValueError(f"expected a number or a dice expression (D3, 2D6, D6+1), got {value!r}")
    return value


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --------------------------------------------------------------------------- special rules


class RuleInfo(_Model):
    """One entry of a system's rules registry (``<system>/rules.yaml``).

    ``summary`` is in our own words (never the rule text); ``automated`` says whether the engine
    applies the rule, so the client can mark the others "not automated". A rule the engine
    applies only in part is ``automated: true`` with ``notes`` saying which part is automated
    and which is not (the unit view sends them as ``partly_automated``).
    """

    name: str = Field(min_length=1)
    summary: str = Field(min_length=1)
    automated: bool = False
    notes: str | None = None
    kind: Literal["rule", "attack_attribute", "equipment", "weapon_ability"] = "rule"
    param: ParamKind = "none"
    form: RuleForm | None = None
    choices: list[str] | None = None
    source: str | None = None

    @model_validator(mode="after")
    def _form_fits_param(self) -> RuleInfo:
        form = self.printed_form
        if (self.param == "none") != (form == "plain"):
            raise ValueError(f"rule {self.name!r}: form {form!r} does not fit param {self.param!r}")
        if self.choices is not None and self.param != "text":
            raise ValueError(f"rule {self.name!r}: choices need param 'text'")
        return self

    @property
    def printed_form(self) -> RuleForm:
        """The form, defaulting to brackets for rules with a parameter and plain otherwise."""
        if self.form is not None:
            return self.form
        return "plain" if self.param == "none" else "brackets"

    def check_param(self, param: int | str | None) -> None:
        """Raise ValueError unless ``param`` has the shape this rule takes."""
        kind = self.param
        if kind == "none":
            if param is not None:
                raise ValueError(f"{self.name!r} takes no parameter, got {param!r}")
            return
        if param is None:
            raise ValueError(f"{self.name!r} needs a parameter ({kind})")
        if kind == "int":
            if isinstance(param, bool) or not isinstance(param, int) or param < 0:
                raise ValueError(f"{self.name!r} needs a whole number >= 0, got {param!r}")
        elif kind == "dice":
            _check_dice(param)
        elif kind == "modifier":
            ok = (isinstance(param, int) and not isinstance(param, bool) and param >= 0) or (
                isinstance(param, str) and re.fullmatch(r"\+\d+", param) is not None
            )
            if not ok:
                raise ValueError(f"{self.name!r} needs a number or '+N', got {param!r}")
        elif kind == "text":
            if not isinstance(param, str) or not param.strip():
                raise ValueError(f"{self.name!r} needs a text parameter, got {param!r}")
            if self.choices is not None and param not in self.choices:
                raise ValueError(f"{self.name!r} parameter {param!r} is not one of {self.choices}")


class RuleRegistry(_Model):
    """A system's known special rules (the contents of ``<system>/rules.yaml``)."""

    rules: list[RuleInfo]

    @field_validator("rules")
    @classmethod
    def _unique_names(cls, rules: list[RuleInfo]) -> list[RuleInfo]:
        seen: set[str] = set()
        for rule in rules:
            if rule.name in seen:
                raise ValueError(f"rule {rule.name!r} is listed twice")
            seen.add(rule.name)
        return rules

    def by_name(self) -> dict[str, RuleInfo]:
        return {rule.name: rule for rule in self.rules}


_BRACKETS = re.compile(r"^(?P<name>[^()]+?)\s*\((?P<param>[^()]+)\)$")
_PLUS = re.compile(r"^(?P<name>.+?)\s+(?P<param>\d+)\+$")
_SUFFIX = re.compile(r"^(?P<name>.+?)\s+(?P<param>\d+|\d*D[36](?:\+\d+)?)$")


def _coerce_param(text: str) -> int | str:
    text = text.strip()
    return int(text) if text.isdigit() else text


def parse_rule(printed: str) -> tuple[str, int | str | None, RuleForm]:
    """Split a printed rule into ``(name, param, form)``.

    "Hard Target (1)" -> ("Hard Target", 1, "brackets");
    "Ambush (Battlefield Edge)" -> ("Ambush", "Battlefield Edge", "brackets");
    "Feel No Pain 6+" -> ("Feel No Pain", 6, "plus");
    "Deadly Demise D3" -> ("Deadly Demise", "D3", "suffix");
    "Poison Attacks" -> ("Poison Attacks", None, "plain").
    """
    text = " ".join(printed.split())
    if not text:
        raise ValueError("empty special rule")
    if "(" in text or ")" in text:
        match = _BRACKETS.match(text)
        if match is None:
            raise ValueError(f"cannot read special rule {printed!r}: unbalanced brackets")
        return match["name"], _coerce_param(match["param"]), "brackets"
    if match := _PLUS.match(text):
        return match["name"], int(match["param"]), "plus"
    if match := _SUFFIX.match(text):
        return match["name"], _coerce_param(match["param"]), "suffix"
    return text, None, "plain"


def format_rule(name: str, param: int | str | None, form: RuleForm) -> str:
    """The printed form of a rule: the inverse of :func:`parse_rule`."""
    if param is None or form == "plain":
        return name
    if form == "plus":
        return f"{name} {param}+"
    if form == "suffix":
        return f"{name} {param}"
    return f"{name} ({param})"


class SpecialRule(_Model):
    """A special rule on a datasheet: ``{name: "Hard Target", param: 1}``.

    Validated from either the structured mapping or the printed string. With a registry in the
    validation context (``{"rules": {name: RuleInfo}}``) the name must be known, the parameter
    well-formed, and the printed form is the registry's.
    """

    name: str = Field(min_length=1)
    param: int | str | None = None
    form: RuleForm | None = Field(default=None, exclude=True, repr=False)

    @model_validator(mode="before")
    @classmethod
    def _from_printed(cls, data: Any, info: ValidationInfo) -> Any:
        if isinstance(data, str):
            name, param, form = parse_rule(data)
            data = {"name": name, "param": param, "form": form}
        elif isinstance(data, Mapping):
            data = dict(data)
            data.pop("printed", None)  # derived; present when re-reading a model_dump
        else:
            return data
        registry = _registry_from(info)
        if registry is None:
            return data
        name = data.get("name")
        rule = registry.get(name) if isinstance(name, str) else None
        if rule is None:
            known = ", ".join(sorted(registry))
            raise ValueError(f"unknown special rule {name!r}; this system knows: {known}")
        param = data.get("param")
        rule.check_param(param)
        written = data.get("form")
        expected = rule.printed_form
        if written is not None and written != expected:
            raise ValueError(
                f"{format_rule(rule.name, param, written)!r} is printed "
                f"{format_rule(rule.name, param, expected)!r} in this system"
            )
        data["form"] = expected
        return data

    @classmethod
    def parse(cls, printed: str) -> SpecialRule:
        """The structured rule from its printed form ("Feel No Pain 6+")."""
        return cls.model_validate(printed)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def printed(self) -> str:
        """The rule as players read it: "Hard Target (1)", "Feel No Pain 6+"."""
        form = self.form or ("plain" if self.param is None else "brackets")
        return format_rule(self.name, self.param, form)

    def __str__(self) -> str:
        return self.printed


def _registry_from(info: ValidationInfo) -> Mapping[str, RuleInfo] | None:
    context = info.context
    if isinstance(context, Mapping):
        rules = context.get("rules")
        if isinstance(rules, Mapping):
            return rules
    return None


Rules = list[SpecialRule]


# --------------------------------------------------------------------------- bases and counts


class Base(_Model):
    """A model's base. Rectangular and oval bases have width (frontage) and depth; round ones a
    diameter."""

    shape: Literal["rectangular", "round", "oval"]
    width_mm: float | None = Field(default=None, gt=0)
    depth_mm: float | None = Field(default=None, gt=0)
    diameter_mm: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _dimensions_fit_shape(self) -> Base:
        if self.shape == "round":
            if self.diameter_mm is None:
                raise ValueError("a round base needs diameter_mm")
            if self.width_mm is not None or self.depth_mm is not None:
                raise ValueError("a round base has diameter_mm, not width_mm/depth_mm")
        else:
            if self.width_mm is None or self.depth_mm is None:
                raise ValueError(f"a {self.shape} base needs width_mm and depth_mm")
            if self.diameter_mm is not None:
                raise ValueError(f"a {self.shape} base has width_mm/depth_mm, not diameter_mm")
        return self

    @property
    def size_mm(self) -> tuple[float, float]:
        """(width, depth) in millimetres; a round base is its diameter both ways."""
        if self.diameter_mm is not None:
            return (self.diameter_mm, self.diameter_mm)
        assert self.width_mm is not None and self.depth_mm is not None
        return (self.width_mm, self.depth_mm)

    @property
    def size_in(self) -> tuple[float, float]:
        """(width, depth) in inches (25.4 mm = 1 in)."""
        width, depth = self.size_mm
        return (width / MM_PER_INCH, depth / MM_PER_INCH)


class Points(_Model):
    """What the unit costs in an army list (issue 17 item 6: Victory Points are counted from
    it). A ranked unit costs ``unit + per_model x models``; a 40k unit costs its ``tiers``
    entry for the largest size it reaches (``{5: 80, 6: 160}``: 5 models 80, 6 or more 160).
    Each datasheet names where its figures come from in ``sources["points"]``."""

    unit: int = Field(default=0, ge=0)
    per_model: int = Field(default=0, ge=0)
    tiers: dict[int, int] = Field(default_factory=dict)

    def cost(self, models: int) -> int:
        if self.tiers:
            reached = [n for n in self.tiers if n <= models]
            return self.tiers[max(reached)] if reached else self.tiers[min(self.tiers)]
        return self.unit + self.per_model * models


class ModelCount(_Model):
    """How many models the unit may field: ``min <= default <= max``."""

    min: int = Field(ge=1)
    max: int = Field(ge=1)
    default: int = Field(ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> ModelCount:
        if not self.min <= self.default <= self.max:
            raise ValueError(
                f"model count needs min <= default <= max, got min={self.min} "
                f"default={self.default} max={self.max}"
            )
        return self


# --------------------------------------------------------------------------- profiles: t9a


class T9AGlobal(_Model):
    """Global Characteristics (distances in inches)."""

    advance_rate: int = Field(ge=0)
    march_rate: int = Field(ge=0)
    discipline: int = Field(ge=0, le=10)


class T9ADefensive(_Model):
    """Defensive Characteristics; ``aegis`` 5 means Aegis (5+), None means none."""

    health_points: int = Field(ge=1)
    defensive_skill: int = Field(ge=0, le=10)
    resilience: int = Field(ge=0, le=10)
    armour: int = Field(ge=0, le=6)
    aegis: int | None = Field(default=None, ge=2, le=6)


class T9AModelPart(_Model):
    """Offensive Characteristics of one model part (rider, mount, the whole model)."""

    name: str
    attacks: DiceOrInt
    offensive_skill: int = Field(ge=0, le=10)
    strength: int = Field(ge=0, le=10)
    armour_penetration: int = Field(ge=0, le=10)
    agility: int = Field(ge=0, le=10)
    special_rules: Rules = Field(default_factory=list)

    @field_validator("attacks")
    @classmethod
    def _dice(cls, value: int | str) -> int | str:
        return _check_dice(value)


class T9AShootingWeapon(_Model):
    """A shooting weapon: range in inches, shots, aim ("4+" -> 4), strength, AP."""

    name: str
    range_in: int = Field(gt=0)
    shots: DiceOrInt = 1
    aim: int = Field(ge=2, le=6)
    strength: int = Field(ge=0, le=10)
    armour_penetration: int = Field(ge=0, le=10)
    special_rules: Rules = Field(default_factory=list)

    @field_validator("shots")
    @classmethod
    def _dice(cls, value: int | str) -> int | str:
        return _check_dice(value)


class T9AProfile(_Model):
    model_by_model: ClassVar[bool] = False
    system: Literal["t9a"] = "t9a"
    height: Literal["Standard", "Large", "Gigantic"]
    type: Literal["Infantry", "Beast", "Cavalry", "Construct", "Swarm"]
    global_characteristics: T9AGlobal
    defensive: T9ADefensive
    offensive: list[T9AModelPart] = Field(min_length=1)
    shooting: list[T9AShootingWeapon] = Field(default_factory=list)

    def height_class(self, keywords: list[str]) -> str:
        return self.height

    def rules(self) -> list[SpecialRule]:
        """The rules of the model parts and shooting weapons."""
        return [
            *(r for part in self.offensive for r in part.special_rules),
            *(r for weapon in self.shooting for r in weapon.special_rules),
        ]


# --------------------------------------------------------------------------- profiles: whfb8


WHFB8TroopType = Literal[
    "Infantry",
    "Swarm",
    "Cavalry",
    "Monstrous Infantry",
    "Monstrous Beast",
    "Monstrous Cavalry",
    "War Beast",
    "Monster",
    "Chariot",
    "War Machine",
    "Unique",
]


class WHFB8Stats(_Model):
    """One line of a WFB profile. ``None`` is a printed "-"; M may be a dice roll ("2D6")
    for Random Movement."""

    name: str
    M: DiceOrInt | None
    WS: int | None = Field(ge=0, le=10)
    BS: int | None = Field(ge=0, le=10)
    S: int | None = Field(ge=0, le=10)
    T: int = Field(ge=1, le=10)
    W: int = Field(ge=1, le=10)
    I: int | None = Field(ge=0, le=10)  # noqa: E741 - the characteristic is called I
    A: DiceOrInt | None
    Ld: int | None = Field(ge=0, le=10)

    @field_validator("M", "A")
    @classmethod
    def _dice(cls, value: int | str | None) -> int | str | None:
        return None if value is None else _check_dice(value)


class WHFB8MissileWeapon(_Model):
    """A WFB missile weapon: range in inches, Strength, shots per model (Multiple Shots (X)
    fires X, at -1 to hit), and its rules ("Armour Piercing (1)", "Multiple Shots (3)")."""

    name: str
    range_in: int = Field(gt=0)
    strength: int = Field(ge=0, le=10)
    shots: DiceOrInt = 1
    special_rules: Rules = Field(default_factory=list)

    @field_validator("shots")
    @classmethod
    def _dice(cls, value: int | str) -> int | str:
        return _check_dice(value)


class WHFB8Profile(_Model):
    model_by_model: ClassVar[bool] = False
    system: Literal["whfb8"] = "whfb8"
    troop_type: WHFB8TroopType
    models: list[WHFB8Stats] = Field(min_length=1)
    save: int | None = Field(default=None, ge=1, le=6)
    ward_save: int | None = Field(default=None, ge=2, le=6)
    shooting: list[WHFB8MissileWeapon] = Field(default_factory=list)

    def height_class(self, keywords: list[str]) -> str:
        return self.troop_type

    def rules(self) -> list[SpecialRule]:
        """The rules of the missile weapons."""
        return [r for missile in self.shooting for r in missile.special_rules]


# --------------------------------------------------------------------------- profiles: wh40k10


class Wh40kStats(_Model):
    """One model line of a 40k datasheet; Sv 5 means 5+, Ld 7 means 7+."""

    name: str
    M: int = Field(ge=0)
    T: int = Field(ge=1)
    Sv: int = Field(ge=2, le=7)
    W: int = Field(ge=1)
    Ld: int = Field(ge=2, le=12)
    OC: int = Field(ge=0)


class Wh40kWeapon(_Model):
    """A ranged weapon (``range_in`` and ``BS``) or a melee weapon (``WS``, no range).

    ``keywords`` are the bracketed weapon abilities ("HAZARDOUS", "PSYCHIC", "RAPID FIRE 1").
    ``carried_by`` names the model line that carries it, when not every model does.
    """

    name: str
    type: Literal["ranged", "melee"]
    range_in: int | None = Field(default=None, gt=0)
    A: DiceOrInt
    BS: int | None = Field(default=None, ge=2, le=6)
    WS: int | None = Field(default=None, ge=2, le=6)
    S: int = Field(ge=1)
    AP: int = Field(le=0)
    D: DiceOrInt
    keywords: Rules = Field(default_factory=list)
    carried_by: str | None = None

    @field_validator("A", "D")
    @classmethod
    def _dice(cls, value: int | str) -> int | str:
        return _check_dice(value)

    @model_validator(mode="after")
    def _skill_fits_type(self) -> Wh40kWeapon:
        if self.type == "ranged":
            if self.range_in is None or self.BS is None or self.WS is not None:
                raise ValueError(f"ranged weapon {self.name!r} needs range_in and BS, not WS")
        elif self.range_in is not None or self.WS is None or self.BS is not None:
            raise ValueError(f"melee weapon {self.name!r} needs WS and no range_in or BS")
        return self


class Wh40kProfile(_Model):
    # Units placed model by model, with no ranked formation; characters join by leading.
    model_by_model: ClassVar[bool] = True
    system: Literal["wh40k10"] = "wh40k10"
    models: list[Wh40kStats] = Field(min_length=1)
    invulnerable_save: int | None = Field(default=None, ge=2, le=6)
    weapons: list[Wh40kWeapon] = Field(default_factory=list)

    def height_class(self, keywords: list[str]) -> str:
        """The first body keyword (Infantry, Vehicle...) of the datasheet."""
        for keyword in ("Infantry", "Mounted", "Beast", "Swarm", "Monster", "Vehicle"):
            if keyword in keywords:
                return keyword
        return "Infantry"

    def rules(self) -> list[SpecialRule]:
        """The weapons' abilities."""
        return [r for weapon in self.weapons for r in weapon.keywords]


Profile = Annotated[T9AProfile | WHFB8Profile | Wh40kProfile, Field(discriminator="system")]
AnyProfile = TypeVar("AnyProfile", T9AProfile, WHFB8Profile, Wh40kProfile)


class WrongSystem(ValueError):
    """A system's rules asked for their own profile on a datasheet of another system."""


# --------------------------------------------------------------------------- datasheet


class Concealed(_Model):
    """Models of another datasheet that this unit may hide (Night Goblin Fanatics, seed 003)."""

    datasheet: Slug
    max: int = Field(ge=1)


class TextRule(_Model):
    """A special rule the system's rule list lacks, kept as the player wrote it on a unit of
    their own: shown on the card, marked "not automated", never applied by the engine."""

    name: str = Field(min_length=1, max_length=80)
    text: str = Field(default="", max_length=1000)


class ProfileChange(_Model):
    """One change a roster's upgrade made to a catalogue datasheet (issue 18 item 3): what
    changed (``"Strength (Citizen Spear)"``, ``"weapon added"``), its value before and after as
    printed, and the selection it comes from ("Great Weapon"). Shown on the unit's card."""

    what: str = Field(min_length=1, max_length=120)
    was: str = Field(default="", max_length=200)
    now: str = Field(max_length=200)
    source: str = Field(min_length=1, max_length=120)


# Computed fields of Datasheet: served to the client, ignored when a dump is read back.
_DERIVED = frozenset({"height_class", "can_join", "bodyguard"})


class Datasheet(_Model):
    """One unit entry of a game system. ``model_dump(mode="json")`` is what the API serves."""

    id: Slug
    name: str = Field(min_length=1)
    system: SystemId
    faction: str | None = None
    base: Base
    models: ModelCount
    default_files: int | None = Field(
        default=None, ge=1, description="files of the default formation (ranked systems)"
    )
    profile: Profile
    equipment: list[SpecialRule] = Field(default_factory=list)
    special_rules: Rules = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    character: bool = False
    attachable: bool | None = Field(
        default=None, description="may join a unit; defaults to `character` in t9a and whfb8"
    )
    leads: list[Slug] = Field(default_factory=list, description="40k Leader: Bodyguard ids")
    led_by: list[Slug] = Field(
        default_factory=list, description="40k: Leaders that may lead this unit (filled on load)"
    )
    conceals: list[Concealed] = Field(default_factory=list)
    rule_texts: dict[str, str] = Field(
        default_factory=dict,
        description="the unit's own wording of a rule, by rule name, where its page words the "
        "rule differently from the system's rulebook (whfb8 Poisoned Attacks); the rules engine "
        "applies the wording given here",
    )
    points: Points | None = Field(
        default=None, description="the unit's cost; its source in sources['points']"
    )
    sources: dict[str, str] = Field(
        default_factory=dict,
        description='where numbers come from, by field: "FACTS.md", "seed 000", "decision"',
    )
    notes: str | None = None
    own: bool = Field(
        default=False, description="a unit of your own: defined by a player for one army"
    )
    other_rules: list[TextRule] = Field(
        default_factory=list,
        description="units of your own: rules outside the system's list, kept as text and "
        "not automated",
    )
    based_on: Slug | None = Field(
        default=None,
        description="units of your own: the catalogue datasheet this one is, with the changes "
        "a roster's upgrades made (issue 18 item 3); it keeps that datasheet's faction, joins "
        "and hidden models",
    )
    changes: list[ProfileChange] = Field(
        default_factory=list, max_length=60,
        description="what the roster's upgrades changed from `based_on`, each with its source",
    )

    @model_validator(mode="before")
    @classmethod
    def _profile_knows_system(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        data = {key: value for key, value in data.items() if key not in _DERIVED}
        if isinstance(data.get("profile"), Mapping):
            data["profile"] = {"system": data.get("system"), **data["profile"]}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> Datasheet:
        if self.profile.system != self.system:
            raise ValueError(f"profile is for {self.profile.system}, datasheet for {self.system}")
        if self.default_files is not None and self.default_files > self.models.default:
            raise ValueError(
                f"default_files {self.default_files} exceeds the default model count "
                f"{self.models.default}"
            )
        if self.profile.model_by_model:
            if self.default_files is not None:
                raise ValueError(
                    f"{self.system} units have no ranked formation: drop default_files"
                )
            if self.attachable:
                raise ValueError(f"{self.system} attaches through `leads`, not `attachable`")
        elif self.leads:
            raise ValueError("`leads` is for wh40k10 Leaders; use `attachable` here")
        if self.changes and not self.based_on:
            raise ValueError("`changes` are changes from a datasheet: name it in `based_on`")
        if self.leads and not self.character:
            raise ValueError("a Leader must be a character")
        if self.id in self.leads:
            raise ValueError("a datasheet cannot lead itself")
        named = {rule.name for rule in self.all_rules()}
        unknown = sorted(set(self.rule_texts) - named)
        if unknown:
            raise ValueError(f"rule_texts names rules the unit does not have: {unknown}")
        return self

    # -- derived views, shared by the client and the rules engine

    @computed_field  # type: ignore[prop-decorator]
    @property
    def height_class(self) -> str:
        """t9a Height, whfb8 troop type, 40k its first body keyword (Infantry, Vehicle...)."""
        return self.profile.height_class(self.keywords)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def can_join(self) -> bool:
        """May this datasheet join another unit (t9a/whfb8 attachable, 40k Leader)?"""
        if self.profile.model_by_model:
            return bool(self.leads)
        return self.character if self.attachable is None else self.attachable

    @computed_field  # type: ignore[prop-decorator]
    @property
    def bodyguard(self) -> bool:
        """40k: some Leader may lead this unit."""
        return bool(self.led_by)

    def has_rule(self, name: str) -> bool:
        """Whether the unit-level special rules include ``name``."""
        return any(rule.name == name for rule in self.special_rules)

    def rule(self, name: str) -> SpecialRule | None:
        return next((rule for rule in self.special_rules if rule.name == name), None)

    def rule_printed(self, name: str) -> str:
        """The unit rule ``name`` as printed with its parameter ("Ambush", "Deep Strike"), or
        the bare name when the sheet lacks it."""
        rule = self.rule(name)
        return name if rule is None else rule.printed

    def profile_as(self, kind: type[AnyProfile]) -> AnyProfile:
        """The profile, typed as one system's: each system's rules read their own profile
        through this (``server/rules/<system>/profiles.py: profile_of``); a sheet of another
        system raises :class:`WrongSystem`."""
        profile = self.profile
        if not isinstance(profile, kind):
            raise WrongSystem(
                f"{self.id} is a {self.system} datasheet, not a "
                f"{kind.model_fields['system'].default} one"
            )
        return profile

    def all_rules(self) -> list[SpecialRule]:
        """Every rule on the sheet: unit rules, equipment, model-part and weapon rules."""
        return [*self.special_rules, *self.equipment, *self.profile.rules()]
