"""The 9th Age attacks, step by step (issue 5 items 4-5): the rules of the Mageblight Gremlin
page, ../shared/seeds/000_ac64b535f31b5cdf.txt (Hard Target, Distracting, Poison Attacks,
Magical Attacks, Extra Support, Hand Weapon), the tables of ../shared/rules/FACTS.md, and exact
probabilities by enumerating every die face."""

from __future__ import annotations

from fractions import Fraction

import pytest

from server.data import load_catalog
from server.data.schema import T9AModelPart
from server.rules.rankandflank.attacks import Pool, allocate, clamp_needed
from server.rules.t9a import profiles
from server.rules.t9a.attacks import (
    MELEE,
    SHOOTING,
    Aegis,
    Guard,
    Modifier,
    Strike,
    resolve,
    to_hit_needed,
)
from tests.rules.t9a.scripted import ScriptedDice, enumerate_dice, probability

MAGICAL = frozenset({"Magical Attacks"})


def melee(
    os: int = 3, *, s: int = 3, ap: int = 0, poison: int = 0, n: int = 1, **kw: object
) -> Strike:
    return Strike("Attackers", n, s, ap, MELEE, offensive_skill=os, poison=poison, **kw)  # type: ignore[arg-type]


def shooting(aim: int = 4, *, s: int = 3, ap: int = 0, n: int = 1) -> Strike:
    return Strike("Archers", n, s, ap, SHOOTING, aim=aim)


def guard(ds: int = 3, *, res: int = 3, armour: int = 0, **kw: object) -> Guard:
    return Guard("Defenders", ds, res, armour, **kw)  # type: ignore[arg-type]


# --- to hit ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("strike", "target", "mods", "needed", "rules"),
    [
        # Melee: Offensive vs Defensive Skill (FACTS.md).
        (melee(3), guard(3), (), 4, []),
        # Distracting (seed 000): -1 to hit in melee ...
        (melee(3), guard(3, distracting=True), (), 5, ["Distracting"]),
        (melee(7), guard(3, distracting=True), (), 3, ["Distracting"]),
        # ... ignored when the final roll needed would be worse than 5+.
        (melee(3), guard(7, distracting=True), (), 5, ["Distracting"]),
        (melee(1), guard(9, distracting=True), (), 6, ["Distracting"]),
        # Other modifiers count first: 4+ made 5+ by -1 leaves Distracting nothing to do.
        (melee(3), guard(3, distracting=True), (Modifier("Test", -1),), 5, ["Test", "Distracting"]),
        # Distracting is for Melee Attacks only; Hard Target for Shooting Attacks only.
        (shooting(4), guard(3, distracting=True), (), 4, []),
        (melee(3), guard(3, hard_target=1), (), 4, []),
        # Hard Target (X) (seed 000): -X to hit for shooting.
        (shooting(4), guard(3, hard_target=1), (), 5, ["Hard Target"]),
        (shooting(4), guard(3, hard_target=2), (), 6, ["Hard Target"]),
        (
            shooting(4),
            guard(3, hard_target=1),
            (Modifier("Long Range", -1),),
            6,
            ["Long Range", "Hard Target"],
        ),
        # Parry (Hand Weapon with a Shield, decision): +1 Defensive Skill in melee.
        (melee(4), guard(3, parry=True), (), 4, ["Parry"]),
    ],
)
def test_to_hit_needed(
    strike: Strike, target: Guard, mods: tuple[Modifier, ...], needed: int, rules: list[str]
) -> None:
    got, notes = to_hit_needed(strike, target, mods)
    assert got == needed
    assert [n.rule for n in notes] == rules


def test_distracting_ignored_says_so() -> None:
    """Seed 000, Distracting: "Ignore Distracting if the final to hit chance would be worse
    than 5+" - the note tells the players why the -1 did not apply."""
    _, notes = to_hit_needed(melee(3), guard(7, distracting=True))
    assert notes[0].text == "Distracting ignored: 6+ would be worse than 5+"


def p_hit(strike: Strike, target: Guard, mods: tuple[Modifier, ...] = ()) -> Fraction:
    """P(one attack hits), enumerating the single to-hit die."""
    hits = 0
    for faces in enumerate_dice(1):
        out = resolve(strike, target, ScriptedDice([*faces, 6, 6, 6]), mods)
        hits += out.hits
    return probability(hits, 1)


@pytest.mark.parametrize(
    ("os", "ds", "distracting", "expected"),
    [
        (3, 3, False, Fraction(1, 2)),  # 4+
        (3, 3, True, Fraction(1, 3)),  # Distracting: 5+
        (3, 4, True, Fraction(1, 3)),  # OS3 vs DS4: 4+, Distracting 5+
        (3, 7, True, Fraction(1, 3)),  # 5+ already: Distracting ignored
        (1, 9, True, Fraction(1, 6)),  # 6+: ignored
        (7, 3, True, Fraction(2, 3)),  # 2+ -> 3+
    ],
)
def test_probability_to_hit_with_distracting(
    os: int, ds: int, distracting: bool, expected: Fraction
) -> None:
    """Seed 000, Distracting, exact: P(hit) for OS3 vs DS3 is 1/2, with Distracting 1/3."""
    assert p_hit(melee(os), guard(ds, distracting=distracting)) == expected


def test_natural_one_fails_and_six_succeeds() -> None:
    """FACTS.md, Dice: a 1 always fails to hit (even needing 2+), a 6 always hits (even when
    modifiers ask for 7+): Hard Target (2) on Aim 5+ still hits on a 6."""
    assert p_hit(melee(10), guard(0)) == Fraction(5, 6)
    assert to_hit_needed(shooting(5), guard(3, hard_target=2))[0] == 7
    assert clamp_needed(7) == 6
    assert p_hit(shooting(5), guard(3, hard_target=2)) == Fraction(1, 6)


# --- Poison Attacks -------------------------------------------------------------------------------


def wound_odds(strike: Strike, target: Guard) -> tuple[Fraction, Fraction]:
    """(P(auto-wound), P(wound)) of one attack, enumerating the to-hit and to-wound dice."""
    auto = wounds = 0
    for faces in enumerate_dice(2):
        out = resolve(strike, target, ScriptedDice([*faces, 1, 1]))
        auto += out.auto_wounds
        wounds += out.wounds
    return probability(auto, 2), probability(wounds, 2)


@pytest.mark.parametrize(
    ("poison", "os", "ds", "auto", "wound"),
    [
        # Gremlins (OS3, S2) at Citizen Spears (DS4, Res3): to hit 4+, to wound 5+.
        (0, 3, 4, Fraction(0), Fraction(1, 2) * Fraction(1, 3)),
        # One instance: a 6 to hit wounds; 4 or 5 then roll 5+: 1/6 + 2/6 * 2/6 = 5/18.
        (1, 3, 4, Fraction(1, 6), Fraction(5, 18)),
        # Two instances: a successful 5 or 6: 2/6 + 1/6 * 2/6 = 7/18.
        (2, 3, 4, Fraction(1, 3), Fraction(7, 18)),
        # Two instances but needing 6+ to hit: a 5 is no hit, so only the 6 wounds.
        (2, 1, 9, Fraction(1, 6), Fraction(1, 6)),
    ],
)
def test_poison_attacks_auto_wound_share(
    poison: int, os: int, ds: int, auto: Fraction, wound: Fraction
) -> None:
    """Seed 000, Poison Attacks, exact by enumeration of both dice."""
    assert wound_odds(melee(os, s=2, poison=poison), guard(ds)) == (auto, wound)


def test_poison_attacks_event_text_and_armour_still_rolls() -> None:
    """Seed 000, Poison Attacks: 15 Gremlin attacks, three 6s: "3 automatic wounds"; the
    automatic wounds still take the armour save (they skip only the to-wound roll)."""
    faces = [6, 6, 6, 5, 4, 4, 3, 3, 2, 2, 1, 1, 1, 2, 3]  # to hit 4+: 6 hits, 3 poisoned
    faces += [5, 1, 2]  # to wound 5+ for the other 3 hits: 1 wound
    faces += [5, 6, 5, 1]  # armour 5+ (Armour 2): 3 saved
    dice = ScriptedDice(faces)
    out = resolve(melee(3, s=2, poison=1, n=15), guard(4, armour=2), dice)
    assert (out.hits, out.auto_wounds, out.wounds, out.unsaved) == (6, 3, 4, 1)
    assert dice.used == len(faces)
    steps = {s.step: s for s in out.steps}
    assert [n.text for n in steps["to_wound"].rules] == ["Poison Attacks: 3 automatic wounds"]
    assert steps["to_wound"].dice == 3 and steps["armour"].dice == 4
    assert [d["face"] for d in steps["to_hit"].to_json()["roll"]["dice"]] == faces[:15]


def test_poison_attacks_multiplied_hit_wounds_automatically_once() -> None:
    """Seed 000, Poison Attacks: a hit turned into several hits wounds automatically only once;
    the others roll to wound."""
    dice = ScriptedDice([6, 1, 1])  # to hit 6 -> 3 hits, 1 automatic; wound dice 1, 1
    out = resolve(melee(3, s=3, poison=1, hits_per_hit=3), guard(3), dice)
    assert (out.hits, out.auto_wounds, out.wounds) == (3, 1, 1)
    assert out.steps[1].dice == 2
    assert any("only one hit" in n.text for n in out.steps[0].rules)


# --- saves ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("armour", "ap", "save_faces", "saved"),
    [
        (2, 0, [5, 4, 1], 1),  # 5+: the 5 saves
        (2, 1, [5, 6, 1], 1),  # Spear AP1 against Armour 2: 6+
        (2, 2, [], 0),  # no save at all: no dice
        (6, 0, [1, 2, 2], 2),  # 2+ at best: a natural 1 always fails
    ],
)
def test_armour_save_is_armour_minus_armour_penetration(
    armour: int, ap: int, save_faces: list[int], saved: int
) -> None:
    """FACTS.md: armour save = 7 - (Armour - Armour Penetration); 0 or less: no save."""
    n = 3
    dice = ScriptedDice([6] * n + [6] * n + save_faces)
    out = resolve(melee(3, ap=ap, n=n), guard(3, armour=armour), dice)
    assert out.wounds == n and out.unsaved == n - saved
    assert dice.used == 2 * n + len(save_faces)


@pytest.mark.parametrize(
    ("aegis", "attributes", "used"),
    [
        ((Aegis(5),), frozenset(), 5),
        ((Aegis(4, "Magical Attacks"),), frozenset(), None),
        ((Aegis(4, "Magical Attacks"),), MAGICAL, 4),
        ((Aegis(5), Aegis(4, "Magical Attacks")), MAGICAL, 4),  # only the best one
        ((Aegis(5), Aegis(4, "Magical Attacks")), frozenset(), 5),
    ],
)
def test_aegis_and_against_magical_attacks(
    aegis: tuple[Aegis, ...], attributes: frozenset[str], used: int | None
) -> None:
    """Seed 000, Magical Attacks: no effect of its own, read by Aegis (X, against Magical
    Attacks); a plain Aegis applies to every attack."""
    dice = ScriptedDice([6, 6, 4, 4])  # hit, wound, (no armour), special save on a 4
    out = resolve(melee(3, n=1, attributes=attributes), guard(3, aegis=aegis), dice)
    step = out.steps[-1]
    assert step.step == "aegis" and step.needed == used
    assert out.unsaved == (0 if used == 4 else 1)


def test_aegis_parameter_is_read() -> None:
    assert Aegis.parse("4+, against Magical Attacks") == Aegis(4, "Magical Attacks")
    assert Aegis.parse("5+") == Aegis(5) and Aegis.parse(6) == Aegis(6)
    assert Aegis(4, "Magical Attacks").label == "Aegis (4+, against Magical Attacks)"


# --- Health Point losses --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pool", "losses", "evenly", "after", "removed", "char_losses", "dead", "wasted"),
    [
        # Gremlins, HP 4: 3 models with 1 lost; 5 more: the wounded one dies (3), 2 on the next.
        (Pool(3, 4, 1), 5, False, Pool(2, 4, 2), 1, (), (), 0),
        (Pool(3, 4, 0), 12, False, Pool(0, 4, 0), 3, (), (), 0),
        (Pool(1, 4, 0), 6, False, Pool(0, 4, 0), 1, (), (), 2),
        # Rank-and-file first, then attachable models one after another ...
        (
            Pool(1, 1, 0, ((3, 0), (3, 0))),
            5,
            False,
            Pool(0, 1, 0, ((3, 3), (3, 1))),
            1,
            (3, 1),
            (0,),
            0,
        ),
        # ... or as evenly as possible (Supernal).
        (
            Pool(1, 1, 0, ((3, 0), (3, 0))),
            5,
            True,
            Pool(0, 1, 0, ((3, 2), (3, 2))),
            1,
            (2, 2),
            (),
            0,
        ),
        (
            Pool(0, 4, 0, ((3, 2), (3, 0))),
            3,
            True,
            Pool(0, 4, 0, ((3, 3), (3, 2))),
            0,
            (1, 2),
            (0,),
            0,
        ),
    ],
)
def test_health_point_losses_rank_and_file_first(
    pool: Pool,
    losses: int,
    evenly: bool,
    after: Pool,
    removed: int,
    char_losses: tuple[int, ...],
    dead: tuple[int, ...],
    wasted: int,
) -> None:
    """Issue 5 item 4 / seed 000 Supernal: losses go to rank-and-file first (the wounded
    multi-HP model first), then attachable models."""
    new, alloc = allocate(pool, losses, evenly=evenly)
    assert new == after
    assert alloc.models_removed == removed
    assert alloc.character_losses == (char_losses or tuple(0 for _ in pool.characters))
    assert alloc.characters_removed == dead and alloc.wasted == wasted
    assert alloc.applied == losses - wasted


# --- datasheets -----------------------------------------------------------------------------------


def ds(name: str) -> object:
    return load_catalog().get("t9a", name)


def part(*rules: str) -> T9AModelPart:
    return T9AModelPart(
        name="P",
        attacks=5,
        offensive_skill=3,
        strength=2,
        armour_penetration=0,
        agility=2,
        special_rules=list(rules),  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("rules", "limit"),
    [
        ((), 1),
        (("Extra Support (2)",), 2),
        (("Extra Support (+1)",), 2),
        (("Extra Support (3)",), 3),
    ],
)
def test_extra_support_replaces_or_raises_the_limit(rules: tuple[str, ...], limit: int) -> None:
    """Seed 000, Extra Support: (X) replaces the supporting-attack limit, (+X) raises it."""
    assert profiles.support_limit(part(*rules)) == limit


def test_gremlin_datasheet_reads_as_the_page_says() -> None:
    """Seed 000 / FACTS.md Gremlin: DS3 Res3 Armour 0 Aegis 5+, Hard Target (1), Distracting;
    its attacks: Poison Attacks, Magical Attacks, Extra Support (2), Hand Weapon."""
    gremlin = load_catalog().get("t9a", "mageblight-gremlin")
    g = profiles.guard_of(gremlin)
    assert (g.defensive_skill, g.resilience, g.armour, g.aegis) == (3, 3, 0, (Aegis(5),))
    assert g.hard_target == 1 and g.distracting
    p = profiles.profile_of(gremlin).offensive[0]
    weapon = profiles.melee_weapon(gremlin, charged=True)
    s = profiles.strike_of(p, weapon, 5, "Gremlins")
    assert weapon.name == "Hand Weapon" and s.poison == 1 and profiles.is_magical(s)
    assert profiles.support_limit(p) == 2


@pytest.mark.parametrize(
    ("datasheet", "charged", "weapon", "parry", "armour"),
    [
        ("mageblight-gremlin", False, "Hand Weapon", False, 0),  # no Shield
        ("citizen-spears", False, "Spear", False, 2),  # a Spear is another option: no Parry
        ("highborn-commander", False, "Hand Weapon", True, 3),  # Hand Weapon + Shield: Parry
        ("knights-of-ryma", True, "Lance", False, 4),
        ("knights-of-ryma", False, "Hand Weapon", True, 4),
    ],
)
def test_hand_weapon_default_and_parry(
    datasheet: str, charged: bool, weapon: str, parry: bool, armour: int
) -> None:
    """Seed 000, Hand Weapon: chosen only with no other option; with a Shield it gives Parry.
    Armour adds Light Armour 1, Heavy Armour 2, Shield 1 (decision)."""
    sheet = load_catalog().get("t9a", datasheet)
    assert profiles.melee_weapon(sheet, charged).name == weapon
    assert profiles.has_parry(sheet, charged) is parry
    assert profiles.armour_of(sheet) == armour
