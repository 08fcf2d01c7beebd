"""Exact probabilities of the Wurrboy page's rules (issue 16, Show), by enumerating every
sequence of D6 faces the sequence can read (each 6**-n likely), never by sampling: the real
functions run on scripted dice (tests/rules/wh40k10/dice.py), as tests/test_dice.py does for
server/dice.py. Seed 004: ../shared/seeds/004_dd61c1ce318a3420.txt; FACTS.md wh40k10."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import comb

import pytest

from server.rules.wh40k10.attacks import AttackGroup, resolve_attacks
from server.rules.wh40k10.damage import damage_model, deadly_demise_roll, hazardous_tests
from server.rules.wh40k10.profiles import TargetModel, TargetUnit, waaagh_unit
from tests.rules.wh40k10.dice import ScriptedDice, expectation, probability
from tests.rules.wh40k10.units import INFANTRY, boyz, eyez_of_mork, intercessor, wurrboy


def test_feel_no_pain_5_plus_negates_all_3_damage_one_time_in_27() -> None:
    """Seed 004 Feel No Pain 5+: one D6 per wound that would be lost, each ignored on 5+ (2 in
    6 = 1/3). Against 3 damage on a model with wounds to spare, all three are ignored with
    (1/3)**3 = 1/27; k are lost with C(3,k) (2/3)**k (1/3)**(3-k)."""
    model = TargetModel("m", "Tough", toughness=5, save=5, wounds=6, feel_no_pain=5)
    unit = TargetUnit("u", "Unit", (model,), INFANTRY)

    def lost(dice: ScriptedDice) -> int:
        return damage_model(unit, "m", 3, dice).wounds_lost

    assert probability(3, lambda dice: lost(dice) == 0) == Fraction(1, 27)
    for k in range(4):
        expected = comb(3, k) * Fraction(2, 3) ** k * Fraction(1, 3) ** (3 - k)

        def exactly(dice: ScriptedDice, k: int = k) -> bool:
            return lost(dice) == k

        assert probability(3, exactly) == expected


@pytest.mark.parametrize("weapons", [1, 2, 3])
def test_hazardous_expected_mortal_wounds_half_per_weapon(weapons: int) -> None:
    """Seed 004 Hazardous: one test per Hazardous weapon, failed on a 1 (1/6), each failure 3
    mortal wounds: E = 3/6 = 1/2 per weapon, k/2 for k weapons (linearity; here every one of
    the 6**k outcomes is counted). Models with a Hazardous weapon and no FNP, so the tests are
    the only dice."""
    models = tuple(intercessor(i, hazardous=True) for i in range(1, 5))
    unit = TargetUnit("u", "Intercessors", models, INFANTRY)

    def inflicted(dice: ScriptedDice) -> int:
        result = hazardous_tests(unit, weapons, dice)
        assert dice.used == weapons
        return int(result.data["mortal_wounds"])

    assert expectation(weapons, inflicted) == Fraction(weapons, 2)


@pytest.mark.parametrize("units", [1, 2])
def test_deadly_demise_d3_expects_a_third_of_a_mortal_wound_per_unit(units: int) -> None:
    """Seed 004 Deadly Demise D3: a 6 (1/6), then D3 (mean 2) for each unit within 6 in, rolled
    separately: E = 1/6 x 2 = 1/3 mortal wounds for each unit."""
    within = tuple(f"unit{i}" for i in range(units))
    for unit in within:

        def on(dice: ScriptedDice, unit: str = unit) -> int:
            hits, _, _ = deadly_demise_roll(wurrboy(), within, dice)
            return sum(h.mortal_wounds for h in hits if h.unit == unit)

        assert expectation(1 + units, on) == Fraction(1, 3)


def test_eyez_of_mork_attack_into_waaagh_invulnerable_save() -> None:
    """One attack at BS 5+, S 8 vs T 5, AP -3 against Sv 5+ with the Waaagh!'s 5+ invulnerable
    save (seed 004; Eyez of Mork, FACTS.md) inflicts damage when

    * it hits: D6 >= 5, P = 2/6 = 1/3;
    * it wounds: S 8 > T 5 (and 8 < 2 x 5) -> 3+, P = 4/6 = 2/3;
    * the save fails: armour 5 - (-3) = 8+ cannot be made, the invulnerable 5+ ignores AP and
      is used: it fails on 1-4, P = 4/6 = 2/3;

    P = 1/3 x 2/3 x 2/3 = 4/27. Without the Waaagh! there is no save: 1/3 x 2/3 = 2/9."""
    with_waaagh = waaagh_unit(boyz(1))
    group = AttackGroup(eyez_of_mork(), attacks=1)

    def damaged(target: TargetUnit) -> Callable[[ScriptedDice], bool]:
        return lambda dice: resolve_attacks([group], target, dice).wounds_lost > 0

    assert probability(3, damaged(with_waaagh)) == Fraction(4, 27)
    assert probability(3, damaged(boyz(1))) == Fraction(2, 9)


def test_eyez_of_mork_into_a_wurrboy_with_feel_no_pain() -> None:
    """The same attack (D 2) at a Wurrboy under the Waaagh! (W 4, FNP 6+): each of the 2
    damage is ignored on a 6, so E[wounds lost] = 4/27 x 2 x 5/6 = 20/81."""
    target = waaagh_unit(TargetUnit("w", "Wurrboy", (wurrboy(),), INFANTRY))
    group = AttackGroup(eyez_of_mork(), attacks=1)

    def lost(dice: ScriptedDice) -> int:
        return resolve_attacks([group], target, dice, within_6in={"wurrboy": ()}).wounds_lost

    assert expectation(5, lost) == Fraction(20, 81)
