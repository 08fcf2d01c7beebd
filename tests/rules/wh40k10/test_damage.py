"""Losing wounds on the Wurrboy page (seed 004, ../shared/seeds/004_dd61c1ce318a3420.txt):
Feel No Pain, mortal wounds carrying over, Deadly Demise, Hazardous tests, and the profile
rules Waaagh! and Unstable Oracle (FACTS.md, Wurrboy). Every die is scripted."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.data import load_catalog
from server.data.schema import Wh40kProfile
from server.rules.wh40k10.damage import (
    damage_model,
    deadly_demise_roll,
    hazardous_tests,
    mortal_wounds,
)
from server.rules.wh40k10.profiles import (
    AUTOMATED_WEAPON_ABILITIES,
    MELEE,
    ProfileError,
    Shooter,
    TargetModel,
    TargetUnit,
    Weapon,
    add_to_dice,
    shooting_restriction,
    unstable_oracle,
    waaagh_model,
    waaagh_unit,
    waaagh_weapon,
)
from server.rules.wh40k10.wurrboy import roar_of_mork
from tests.rules.wh40k10.dice import ScriptedDice
from tests.rules.wh40k10.units import (
    ALONE,
    INFANTRY,
    attached,
    bolt_pistol,
    bolt_rifle,
    boy,
    boyz,
    choppa,
    eyez_of_mork,
    gun,
    intercessor,
    nob,
    wurrboy,
)


def scripted(faces: list[int]) -> ScriptedDice:
    return ScriptedDice(faces)


# --- Feel No Pain ---------------------------------------------------------------------------------


def test_feel_no_pain_rolls_once_per_wound_that_would_be_lost() -> None:
    """Seed 004 Feel No Pain: one D6 per wound the model would lose; 6+ ignores it. The
    Wurrboy (W 4, FNP 6+) takes 3 damage: 6, 2, 6 -> one wound lost, 3 left."""
    unit = TargetUnit("w", "Wurrboy", (wurrboy(),), INFANTRY)
    dice = scripted([6, 2, 6])
    result = damage_model(unit, "wurrboy", 3, dice, within_6in=ALONE)
    assert dice.used == 3 and dice.expressions == ["3D6"]
    assert result.unit.model("wurrboy").left == 3
    fnp = next(s for s in result.steps if s.step == "feel_no_pain")
    assert fnp.data == {"wounds": 3, "ignored": 2} and fnp.needed == 6


def test_feel_no_pain_stops_rolling_when_the_model_is_gone() -> None:
    """No roll for damage beyond the model's last wound (excess is lost, FACTS.md): the
    Wurrboy with 2 wounds left takes 4 damage: 2 dice for the 2 wounds it can lose (1, 6):
    1 lost, 1 ignored; of the 2 damage left it can lose 1: one die (3): lost, it dies and the
    last point is excess, never rolled for. Deadly Demise then rolls a 4."""
    unit = TargetUnit("w", "Wurrboy", (wurrboy(wounds_left=2),), INFANTRY)
    dice = scripted([1, 6, 3, 4])
    result = damage_model(unit, "wurrboy", 4, dice, within_6in={"wurrboy": ()})
    assert dice.expressions == ["2D6", "D6", "D6"]  # 2 for 2 wounds left; 1 then 1; Demise
    assert result.destroyed == ("wurrboy",)
    damage = next(s for s in result.steps if s.step == "damage")
    assert damage.data == {"lost": 2, "left": 0, "excess": 1}


def test_feel_no_pain_against_mortal_wounds() -> None:
    """Seed 004: Feel No Pain includes wounds lost to mortal wounds. 2 mortal wounds on the
    Wurrboy: 6, 1 -> one lost."""
    unit = TargetUnit("w", "Wurrboy", (wurrboy(),), INFANTRY)
    result = mortal_wounds(unit, 2, scripted([6, 1]), within_6in=ALONE)
    assert result.unit.model("wurrboy").left == 3 and result.wounds_lost == 1


# --- mortal wounds -------------------------------------------------------------------------------


def test_mortal_wounds_carry_over_to_the_next_model() -> None:
    """FACTS.md: excess damage is lost, except mortal wounds which carry over. 3 mortal wounds
    on a Nob (W 2) and Boyz (W 1): the Nob dies, then Boy 2."""
    result = mortal_wounds(boyz(3, nob_first=True), 3, scripted([]))
    assert result.destroyed == ("nob", "b2")
    assert result.wounds_lost == 3


def test_mortal_wounds_on_an_attached_unit_go_to_the_bodyguard_first() -> None:
    """Decision (docs/wh40k10-attacks.md): mortal wounds on an Attached unit follow the
    Bodyguard-first allocation (seed 004); the Wurrboy takes them once the Boyz are gone.
    4 mortal wounds on 2 Boyz and the Wurrboy: both Boyz die, then 2 on the Wurrboy, FNP 6+:
    5, 6 -> one lost."""
    result = mortal_wounds(attached(2), 4, scripted([5, 6]), within_6in={"wurrboy": ()})
    assert result.destroyed == ("b1", "b2")
    assert result.unit.model("wurrboy").left == 3
    assert result.separated == "bodyguard_destroyed"


def test_mortal_wounds_on_an_empty_unit_are_lost() -> None:
    unit = TargetUnit("b", "Boyz", (boy(1, wounds_left=0),), INFANTRY)
    result = mortal_wounds(unit, 2, scripted([]))
    assert result.wounds_lost == 0 and "no model left" in result.steps[-1].text


# --- Deadly Demise --------------------------------------------------------------------------------


def test_deadly_demise_rolls_x_separately_for_each_unit_within_6_in() -> None:
    """Seed 004 Deadly Demise D3: a 6 on the D6 -> each unit within 6 in suffers D3 mortal
    wounds, rolled per unit: raw 5 -> 3 on the Boyz, raw 2 -> 1 on the Intercessors."""
    hits, steps, rolls = deadly_demise_roll(
        wurrboy(), ("boyz", "intercessors"), scripted([6, 5, 2])
    )
    assert [(h.unit, h.mortal_wounds) for h in hits] == [("boyz", 3), ("intercessors", 1)]
    assert [r.expression for r in rolls] == ["D6", "D3", "D3"]
    assert steps[0].data == {"triggered": True}


def test_deadly_demise_on_anything_but_a_6_does_nothing() -> None:
    hits, steps, rolls = deadly_demise_roll(wurrboy(), ("boyz",), scripted([5]))
    assert hits == () and len(rolls) == 1 and "nothing happens" in steps[0].text


def test_deadly_demise_when_destroyed_by_an_attack() -> None:
    """The Wurrboy destroyed by mortal wounds rolls Deadly Demise before it is removed; the
    mortal wounds it inflicts come back for the caller to apply to each unit: 4 mortal wounds,
    FNP 1, 1, 1, 1; Deadly Demise 6; D3 raw 3 -> 2 on the Intercessors."""
    unit = TargetUnit("w", "Wurrboy", (wurrboy(),), INFANTRY)
    result = mortal_wounds(
        unit, 4, scripted([1, 1, 1, 1, 6, 3]), within_6in={"wurrboy": ("intercessors",)}
    )
    assert result.destroyed == ("wurrboy",)
    assert [(d.source_model, d.unit, d.mortal_wounds) for d in result.demise] == [
        ("wurrboy", "intercessors", 2)
    ]
    assert result.to_payload()["demise"] == [
        {"model": "wurrboy", "unit": "intercessors", "mortal_wounds": 2}
    ]


# --- Hazardous -----------------------------------------------------------------------------------


def test_hazardous_one_test_per_weapon_each_1_fails() -> None:
    """Seed 004 Hazardous: one D6 per Hazardous weapon used, a 1 fails; the Wurrboy, the only
    model with one (Eyez of Mork, Unstable Oracle), is selected though a Character, and takes
    3 mortal wounds allocated to it: FNP 6, 2, 3 -> 2 lost."""
    unit = attached(10, leader=wurrboy(hazardous=True))
    dice = scripted([1, 6, 2, 3])
    result = hazardous_tests(unit, 1, dice, within_6in=ALONE)
    assert result.unit.model("wurrboy").left == 2
    assert all(m.left == 1 for m in result.unit.models if m.id != "wurrboy")
    assert result.data == {"tests": 1, "failed": 1, "mortal_wounds": 3}


def test_hazardous_passed_tests_do_nothing() -> None:
    unit = attached(10, leader=wurrboy(hazardous=True))
    result = hazardous_tests(unit, 3, scripted([2, 6, 4]), within_6in=ALONE)
    assert result.data["failed"] == 0 and result.wounds_lost == 0


@pytest.mark.parametrize(
    ("models", "chosen"),
    [
        # a wounded model with a Hazardous weapon first (Characters included) ...
        ((intercessor(1, hazardous=True), wurrboy(hazardous=True, wounds_left=3)), "wurrboy"),
        ((intercessor(1, hazardous=True), intercessor(2, hazardous=True, wounds_left=1)), "i2"),
        # ... then a non-Character with one ...
        ((wurrboy(hazardous=True), intercessor(1), intercessor(2, hazardous=True)), "i2"),
        # ... then a Character with one
        ((intercessor(1), wurrboy(hazardous=True)), "wurrboy"),
    ],
)
def test_hazardous_model_selection_priority(models: tuple[TargetModel, ...], chosen: str) -> None:
    """Seed 004: a model that has lost wounds and has a Hazardous weapon; else a non-Character
    with one; else a Character with one. Unwounded models without FNP take 3: no FNP dice."""
    models = tuple(replace(m, feel_no_pain=None, deadly_demise=None) for m in models)
    unit = TargetUnit("u", "Unit", models, INFANTRY)
    result = hazardous_tests(unit, 1, scripted([1]))
    selected = [s.model for s in result.steps if s.step == "hazardous" and s.model]
    assert selected == [chosen]


def test_hazardous_excess_mortal_wounds_are_lost_with_the_selected_model() -> None:
    """Seed 004: the 3 mortal wounds must be allocated to the selected model: an Intercessor
    (W 2) dies and the third is lost, not carried to its neighbour."""
    unit = TargetUnit("u", "Unit", (intercessor(1, hazardous=True), intercessor(2)), INFANTRY)
    result = hazardous_tests(unit, 1, scripted([1]))
    assert result.destroyed == ("i1",) and result.unit.model("i2").left == 2
    assert next(s for s in result.steps if s.step == "damage").data["excess"] == 1


def test_hazardous_failures_resolved_one_at_a_time() -> None:
    """Two failures: the first leaves Intercessor 1 (W 2, no FNP)... dead; the second selects
    the next model with a Hazardous weapon."""
    unit = TargetUnit(
        "u", "Unit", (intercessor(1, hazardous=True), intercessor(2, hazardous=True)), INFANTRY
    )
    result = hazardous_tests(unit, 2, scripted([1, 1]))
    assert result.destroyed == ("i1", "i2")
    assert result.data == {"tests": 2, "failed": 2, "mortal_wounds": 6}


def test_bad_counts_are_refused() -> None:
    with pytest.raises(ProfileError):
        hazardous_tests(boyz(), -1, scripted([]))
    with pytest.raises(ProfileError):
        mortal_wounds(boyz(), -2, scripted([]))
    with pytest.raises(ProfileError, match="already destroyed"):
        damage_model(
            TargetUnit("b", "Boyz", (boy(1, wounds_left=0),), INFANTRY), "b1", 1, scripted([])
        )


# --- profile rules ------------------------------------------------------------------------------


def test_waaagh_adds_strength_and_attacks_to_melee_weapons_only() -> None:
    """Seed 004 Waaagh!: +1 S and +1 A on melee weapons, a 5+ invulnerable save."""
    assert (waaagh_weapon(choppa()).strength, waaagh_weapon(choppa()).attacks) == (5, 4)
    assert waaagh_weapon(eyez_of_mork()) == eyez_of_mork()
    club = Weapon.build("Club", MELEE, attacks="D6", skill=3, strength=5, ap=0, damage=1)
    assert waaagh_weapon(club).attacks == "D6+1"
    assert waaagh_model(boy(1)).invulnerable == 5
    assert waaagh_model(boy(1, invulnerable=4)).invulnerable == 4
    assert all(m.invulnerable == 5 for m in waaagh_unit(boyz()).models)


@pytest.mark.parametrize(
    ("models", "attacks", "hazardous"),
    [
        (0, "D6", False),
        (4, "D6", False),
        (5, "D6+2", False),
        (9, "D6+2", False),
        (10, "D6+4", True),
        (19, "D6+6", True),
        (20, "D6+8", True),
    ],
)
def test_unstable_oracle(models: int, attacks: str, hazardous: bool) -> None:
    """FACTS.md Unstable Oracle: Eyez of Mork +2 Attacks per 5 models in the led unit (rounded
    down), [HAZARDOUS] while it has 10 or more."""
    eyez = unstable_oracle(eyez_of_mork(), models)
    assert (eyez.attacks, eyez.hazardous) == (attacks, hazardous)


def test_weapons_read_from_the_datasheets() -> None:
    """The catalogue's weapons (server/data/wh40k10) become attack profiles: the Wurrboy's Eyez
    of Mork as FACTS.md gives it, the Sergeant's supercharged plasma pistol [HAZARDOUS]."""
    catalog = load_catalog()
    sheet = catalog.get("wh40k10", "wurrboy")
    assert isinstance(sheet.profile, Wh40kProfile)
    eyez = Weapon.from_datasheet(sheet.profile.weapons[0])
    assert (eyez.attacks, eyez.skill, eyez.strength, eyez.ap, eyez.damage) == ("D6", 5, 8, -3, 2)
    assert eyez.psychic and eyez.range_in == 18
    squad = catalog.get("wh40k10", "intercessor-squad")
    assert isinstance(squad.profile, Wh40kProfile)
    plasma = next(w for w in squad.profile.weapons if "supercharge" in w.name)
    weapon = Weapon.from_datasheet(plasma)
    assert weapon.hazardous and weapon.pistol and weapon.strength == 8


def test_weapon_abilities_parsed_from_print() -> None:
    weapon = gun("RAPID FIRE 2", "SUSTAINED HITS D3", "ANTI-VEHICLE 3+", "TWIN-LINKED", "LANCE")
    assert weapon.rapid_fire == 2 and weapon.sustained_hits == "D3"
    assert weapon.anti == (("VEHICLE", 3),) and weapon.twin_linked
    assert weapon.other_abilities == ("LANCE",)
    assert "ANTI-VEHICLE 3+" in weapon.abilities
    assert {"TORRENT", "HAZARDOUS", "PRECISION"} <= AUTOMATED_WEAPON_ABILITIES
    with pytest.raises(ProfileError):
        gun("RAPID FIRE")
    with pytest.raises(ProfileError):
        gun(bs=None)  # only Torrent weapons have no BS
    with pytest.raises(ProfileError):
        gun(ap=2)
    assert add_to_dice(3, 1) == 4 and add_to_dice("2D3+1", 2) == "2D3+3"


@pytest.mark.parametrize(
    ("weapon", "shooter", "kw", "refused"),
    [
        (bolt_rifle(), Shooter(advanced=True), {}, False),  # Assault
        (bolt_pistol(), Shooter(advanced=True), {}, True),
        (bolt_rifle(), Shooter(fell_back=True), {}, True),
        (bolt_rifle(), Shooter(engaged=True), {"target_engaged_with_shooter": True}, True),
        (bolt_pistol(), Shooter(engaged=True), {"target_engaged_with_shooter": True}, False),
        (bolt_pistol(), Shooter(engaged=True), {}, True),
        (bolt_rifle(), Shooter(engaged=True, keywords=frozenset({"Vehicle"})), {}, False),
        (gun("BLAST"), Shooter(), {"target_engaged_with_friends": True}, True),
        (gun("BLAST"), Shooter(), {}, False),
        (choppa(), Shooter(), {}, True),
    ],
)
def test_shooting_restrictions(
    weapon: Weapon, shooter: Shooter, kw: dict[str, bool], refused: bool
) -> None:
    """FACTS.md: Advance -> Assault only; Fall Back -> no shooting; in Engagement Range ->
    Pistols at that enemy, unless Monster or Vehicle; Blast never into friends' combat."""
    assert (shooting_restriction(weapon, shooter, **kw) is not None) is refused


def test_nob_helper_matches_facts() -> None:
    """FACTS.md: Beast Snagga Boyz W 1, the Nob W 2."""
    assert (boy(1).wounds, nob().wounds) == (1, 2)


# --- the Wurrboy's datasheet ----------------------------------------------------------------


def test_wurrboy_model_read_from_its_datasheet() -> None:
    """FACTS.md Wurrboy: T 5, Sv 5+, W 4, Feel No Pain 6+, Deadly Demise D3, a Character."""
    sheet = load_catalog().get("wh40k10", "wurrboy")
    model = TargetModel.from_datasheet("w1", sheet)
    assert (model.toughness, model.save, model.wounds) == (5, 5, 4)
    assert (model.feel_no_pain, model.deadly_demise, model.character) == (6, "D3", True)
    assert model.invulnerable is None


@pytest.mark.parametrize("face", [2, 3, 4, 5, 6])
def test_roar_of_mork_succeeds_on_2_plus(face: int) -> None:
    """FACTS.md Roar of Mork: a D6; 2+: the enemy unit subtracts 2 from Battle-shock and
    Leadership tests; nothing happens to the Wurrboy's unit."""
    dice = scripted([face])
    result = roar_of_mork(attached(10), dice, within_6in=ALONE)
    assert result.data == {"succeeded": True, "mortal_wounds": 0} and dice.used == 1
    assert result.wounds_lost == 0


def test_roar_of_mork_on_a_1_costs_d3_mortal_wounds() -> None:
    """FACTS.md Roar of Mork: on a 1 the Wurrboy's unit suffers D3 mortal wounds: raw 6 -> 3;
    the Bodyguard takes them first (decision): three Boyz die."""
    result = roar_of_mork(attached(10), scripted([1, 6]), within_6in=ALONE)
    assert result.data == {"succeeded": False, "mortal_wounds": 3}
    assert result.destroyed == ("b1", "b2", "b3")
    assert [r.expression for r in result.rolls] == ["D6", "D3"]
