"""whfb8 attack steps at their edges (issue 14 items 1 and 3): shooting to hit 7 - BS with the
7+/8+/9+ rule, the modifiers, armour saves worsened by Strength and Armour Piercing, ward
saves and Parry, and the two Poisoned Attacks kept apart (../shared/rules/FACTS.md "whfb8: the
battle"; the Tomb Swarm page, ../shared/seeds/002_20fe50c61f72ab35.txt)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from itertools import product

import pytest

from server.data import load_catalog
from server.geometry.kinds import Cover
from server.rules.rankandflank.attacks import MELEE, SHOOTING, Modifier, resolve
from server.rules.whfb8 import profiles
from server.rules.whfb8.attacks import (
    Guard,
    Strike,
    follow_up,
    hit_target,
    save_needed,
    to_hit_needed,
    to_wound_needed,
)
from server.rules.whfb8.combat import WHFB8, Missile, light_troops, shooting_modifiers
from tests.rules.t9a.scripted import ScriptedDice
from tests.rules.whfb8.positions import HANDGUNNERS, SWARM, position, run, unit

T3 = Guard("Halberdiers", 3, 3, 6)


def shots(bs: int, strength: int = 3, **kw: object) -> Strike:
    return Strike("Handgunners", 10, strength, SHOOTING, ballistic_skill=bs, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("bs", "mods", "needed", "first", "then"),
    [
        (3, 0, 4, 4, None),  # FACTS: BS 3 hits on 4+
        (5, 0, 2, 2, None),
        (6, 0, 1, 2, None),  # BS 6: 1+, a natural 1 still fails
        (3, -2, 6, 6, None),
        (3, -3, 7, 6, 4),  # 7+: a 6, then 4+
        (3, -4, 8, 6, 5),  # 8+: a 6, then 5+
        (3, -5, 9, 6, 6),  # 9+: a 6, then 6+
        (3, -6, 10, None, None),  # 10+: cannot hit
    ],
)
def test_shooting_to_hit_and_the_seven_plus_rule(
    bs: int, mods: int, needed: int, first: int | None, then: int | None
) -> None:
    """FACTS: to hit 7 - BS; a needed 7, 8 or 9 is a 6 followed by 4+, 5+ or 6+; 10 or more
    cannot hit."""
    modifiers = [Modifier("X", mods)] if mods else []
    got, notes = to_hit_needed(shots(bs), T3, modifiers)
    assert got == needed and hit_target(got) == first and follow_up(got) == then
    if then is not None:
        assert notes[-1].rule == "To Hit 7+"


def test_seven_plus_rolls_the_sixes_again_and_probability_is_one_in_twelve() -> None:
    """FACTS: 7+ is a 6 then 4+: two to_hit steps, the second rolling the 6s again; exactly
    1/6 x 1/2 = 1/12 per shot, by enumerating both dice of one shot."""
    strike = dataclasses.replace(shots(3), attacks=3)
    dice = ScriptedDice([6, 6, 3] + [4, 3] + [6] + [1])
    out = resolve(WHFB8, strike, T3, dice, [Modifier("X", -3)])
    steps = [s for s in out.steps if s.step == "to_hit"]
    assert [(s.needed, s.dice, s.successes) for s in steps] == [(6, 3, 2), (4, 2, 1)]
    assert "needing 7+ to hit (a 6, then 4+)" in steps[0].text
    hits = 0
    for a, b in product(range(1, 7), repeat=2):
        one = dataclasses.replace(shots(3), attacks=1)
        faces = [a, b] if a == 6 else [a]
        got = resolve(WHFB8, one, Guard("T9", 3, 9, None), ScriptedDice(faces + [1] * 3),
                      [Modifier("X", -3)])
        hits += got.hits * (1 if a == 6 else 6)  # a miss on the first die spans six outcomes
    assert Fraction(hits, 36) == Fraction(1, 12)


def test_ten_plus_cannot_hit_and_rolls_nothing() -> None:
    """FACTS: a needed 10 or more cannot hit: no dice are rolled."""
    out = resolve(WHFB8, shots(3), T3, ScriptedDice([]), [Modifier("X", -6)])
    assert out.hits == 0 and out.steps[0].needed is None and "cannot hit" in out.steps[0].text


@pytest.mark.parametrize(
    ("save", "strength", "ap", "needed"),
    [
        (6, 3, 0, 6),
        (6, 4, 0, None),  # S4 -1: light armour is lost
        (5, 4, 0, 6),  # Animated Construct 5+ against a halberd
        (5, 4, 1, None),  # handgun: S4 and Armour Piercing
        (4, 4, 1, 6),
        (1, 3, 0, 2),  # a natural 1 always fails: never better than 2+
        (1, 3, 1, 2),
        (1, 4, 1, 3),
        (2, 10, 0, None),  # S10 -7
        (None, 3, 0, None),
    ],
)
def test_armour_saves_worsened_by_strength_and_armour_piercing(
    save: int | None, strength: int, ap: int, needed: int | None
) -> None:
    """FACTS: the save worsened by S4 -1, S5 -2 ... S10 -7 and Armour Piercing -1 more each."""
    strike = Strike("x", 1, strength, MELEE, weapon_skill=3, armour_piercing=ap)
    assert save_needed(strike, Guard("t", 3, 3, save)) == needed


@pytest.mark.parametrize(
    ("strength", "toughness", "poisoned", "needed"),
    [
        (2, 3, None, 5),
        (2, 3, "page", 4),  # seed 002: +1 to wound
        (2, 3, "rulebook", 5),  # the rulebook's: no change to the wound roll
        (4, 2, "page", 2),  # never better than 2+
        (2, 4, "page", 5),  # 6+ becomes 5+
        (2, 6, "page", None),  # T-4: cannot wound, poisoned or not
    ],
)
def test_to_wound_and_the_pages_poisoned_attacks(
    strength: int, toughness: int, poisoned: str | None, needed: int | None
) -> None:
    """FACTS S vs T table; seed 002 Poisoned Attacks: +1 to any To Wound roll."""
    strike = Strike("x", 1, strength, MELEE, weapon_skill=3, poisoned=poisoned)
    assert to_wound_needed(strike, Guard("t", 3, toughness, None)) == needed


def test_the_two_poisoned_attacks_are_kept_apart_by_the_units_text() -> None:
    """Seed 002's Poisoned Attacks (the Tomb Swarm's `rule_texts` quote the page): +1 to
    wound, no automatic wounds. The 8th-edition rulebook's (a sheet with the rule and no such
    text): a 6 to hit wounds automatically, no to-wound roll for it."""
    cat = load_catalog()
    swarm = cat.get("whfb8", "tomb-swarm")
    assert profiles.poisoned(swarm) == "page"
    rulebook = swarm.model_copy(update={"rule_texts": {}})
    assert profiles.poisoned(rulebook) == "rulebook"
    assert profiles.poisoned(cat.get("whfb8", "empire-halberdiers")) is None

    page = Strike("Swarm", 3, 2, MELEE, weapon_skill=3, poisoned="page")
    out = resolve(WHFB8, page, T3, ScriptedDice([6, 6, 1] + [4, 3] + [6]))
    assert (out.auto_wounds, out.wounds) == (0, 1)
    wound = out.steps[1]
    assert wound.needed == 4 and wound.rules[0].rule == "Poisoned Attacks"

    book = dataclasses.replace(page, poisoned="rulebook")
    out = resolve(WHFB8, book, T3, ScriptedDice([6, 6, 4] + [5] + [6, 6, 1]))
    assert (out.hits, out.auto_wounds, out.wounds) == (3, 2, 3)
    assert out.steps[0].rules[0].text == "Poisoned Attacks: 2 hits rolled 6 and wound automatically"
    assert out.steps[1].needed == 5  # S2 vs T3: the one rolled hit needs 5+ (no +1)


def test_rulebook_poison_does_not_wound_automatically_on_seven_plus() -> None:
    """The rulebook's Poisoned Attacks need a 6 *to hit*; at 7+ a 6 is not yet a hit, so the
    hits roll to wound (a decision, docs/rules-decisions.md)."""
    book = Strike("Archers", 2, 3, SHOOTING, ballistic_skill=3, poisoned="rulebook")
    dice = ScriptedDice([6, 6] + [4, 4] + [4, 1] + [1])
    out = resolve(WHFB8, book, T3, dice, [Modifier("X", -3)])
    assert (out.hits, out.auto_wounds, out.wounds) == (2, 0, 1)


def test_ward_save_and_parry_never_both() -> None:
    """FACTS: Parry is a 6+ ward save against close combat attacks from the front; the best
    ward save is taken, never two."""
    hit = Strike("x", 1, 3, MELEE, weapon_skill=3)
    assert WHFB8.special_save(hit, Guard("g", 3, 3, None, parry=True)).value == 6  # type: ignore[union-attr]
    assert WHFB8.special_save(hit, Guard("g", 3, 3, None, ward=5, parry=True)).rule == "Ward Save"  # type: ignore[union-attr]
    assert WHFB8.special_save(hit, Guard("g", 3, 3, None)) is None
    goblins = load_catalog().get("whfb8", "night-goblins")
    assert WHFB8.guard(goblins, parry=True, charged=False).parry
    halberdiers = load_catalog().get("whfb8", "empire-halberdiers")
    assert not WHFB8.guard(halberdiers, parry=True, charged=False).parry  # two hands


HANDGUN = Missile("Handgun", 24.0, 1, 4, 3, 1, 0, None)
REPEATER = Missile("Repeater", 24.0, 3, 4, 3, 0, 3, None)


@pytest.mark.parametrize(
    ("moved", "distance", "weapon", "cover", "stand", "rules"),
    [
        (False, 12.0, HANDGUN, Cover.NONE, False, []),
        (False, 12.1, HANDGUN, Cover.NONE, False, ["Long Range"]),
        (True, 6.0, HANDGUN, Cover.SOFT, False, ["Moving and Shooting", "Soft Cover"]),
        (False, 6.0, HANDGUN, Cover.HARD, True, ["Stand and Shoot", "Hard Cover"]),
        (False, 6.0, REPEATER, Cover.NONE, False, ["Multiple Shots"]),
    ],
)
def test_shooting_modifiers(
    moved: bool, distance: float, weapon: Missile, cover: Cover, stand: bool, rules: list[str]
) -> None:
    """FACTS: long range (beyond half) -1, moved -1, Stand and Shoot -1, soft cover -1, hard
    cover -2, Multiple Shots -1 when firing more than one shot."""
    got = shooting_modifiers(
        moved=moved, distance=distance, weapon=weapon, cover=cover, stand_and_shoot=stand
    )
    assert [m.rule for m in got] == rules
    assert sum(m.value for m in got) == -len(rules) - (1 if cover == Cover.HARD else 0)


def test_light_troops_needs_two_or_more_skirmishers() -> None:
    """Seed 002 Light Troops: -1 for shots at two or more Skirmisher models (Unit Strength 2 or
    less; one -1, FACTS: never a second for a skirmisher target)."""
    cat = load_catalog()
    swarm = cat.get("whfb8", "tomb-swarm")
    assert [m.rule for m in light_troops([swarm], 2)] == ["Light Troops"]
    assert light_troops([swarm], 1) == []
    assert light_troops([cat.get("whfb8", "empire-halberdiers")], 20) == []


def test_handgunners_shoot_a_tomb_swarm_at_long_range() -> None:
    """FACTS shooting, worked by hand: 10 Handgunners (5 x 2, the front rank of 5 shoots) at a
    Tomb Swarm 15 in away: BS 3 4+, Long Range (beyond 12 in) -1, Light Troops -1 (seed 002):
    6+: two 6s hit; S4 vs T2, 2+: 2 wounds; Animated Construct 5+, S4 -1 and Armour
    Piercing -1: no save; the Swarm loses 2 Wounds."""
    state = position(
        [HANDGUNNERS],
        [SWARM],
        {"u1": (36.0, 10.0, 0.0), "u2": (36.0, 25.0, 180.0)},
        phase="Shooting",
    )
    state, events = run(state, 1, [6, 6, 5, 2, 1] + [3, 2], type="shoot", unit="u1", target="u2")
    assert [e.type for e in events] == [
        "shots_fired", "attack_step", "attack_step", "attack_step", "hp_lost"
    ]
    fired = events[0].payload
    assert fired["shots"] == 5 and fired["weapon"] == "Handgun"
    assert [m["rule"] for m in fired["modifiers"]] == ["Long Range", "Light Troops"]
    assert (events[1].payload["needed"], events[1].payload["successes"]) == (6, 2)
    armour = events[3].payload
    assert armour["needed"] is None and [r["rule"] for r in armour["rules"]] == [
        "Animated Construct", "Armour Piercing"
    ]
    assert unit(state, "u2").damage == 2


@pytest.mark.parametrize(
    ("panic", "flees"),
    [([3, 3], False), ([5, 5, 3, 3], True)],  # 6 against Ld 7 passes; 10 fails: flees 6 in
)
def test_a_quarter_lost_in_the_shooting_phase_panics_the_unit(
    panic: list[int], flees: bool
) -> None:
    """FACTS Panic: a unit that loses 25 % of the models it had at the start of a phase, from
    any cause, tests Leadership or flees. 10 Halberdiers: the first Handgunners kill 2 (20 %:
    no test), the second kill 1 more (3 of 10: a Panic Test). Handgun S4 vs T3: 3+; the light
    armour is lost to S4 and Armour Piercing."""
    state = position(
        [HANDGUNNERS, HANDGUNNERS],
        [{"datasheet": "empire-halberdiers", "models": 10, "files": 5}],
        {"u1": (30.0, 10.0, 0.0), "u2": (42.0, 10.0, 0.0), "u3": (36.0, 20.0, 180.0)},
        phase="Shooting",
    )
    state, events = run(state, 1, [4, 4, 1, 1, 1] + [3, 3], type="shoot", unit="u1", target="u3")
    assert [e.type for e in events][-1] == "hp_lost" and unit(state, "u3").models == 8
    state, events = run(state, 1, [4, 1, 1, 1, 1] + [3] + panic, type="shoot", unit="u2",
                        target="u3")
    types = [e.type for e in events]
    heavy = types.index("heavy_casualties")
    assert events[heavy].payload["text"] == (
        "Empire Halberdiers lost 3 of 10 models this phase (30 %): a Panic Test"
    )
    test = events[heavy + 1].payload
    assert events[heavy + 1].type == "panic_test" and test["passed"] is not flees
    assert ("fleeing" in unit(state, "u3").markers) is flees
    if not flees:
        assert state.moves.phase["u3"]["panic_passed"] is True


def test_stand_and_shoot_at_a_charging_swarm() -> None:
    """FACTS: Stand and Shoot -1. Handgunners (player 2) charged by a Tomb Swarm 10 in away:
    4+, Stand and Shoot -1, Light Troops -1 (seed 002): 6+; the shots are the charged
    player's (`actor` 2). `stand_and_shoot` is the shared volley the Charge Reaction calls."""
    from server.rules.rankandflank.shooting import stand_and_shoot
    from tests.rules.t9a.test_combat import fold

    state = position(
        [SWARM],
        [HANDGUNNERS],
        {"u1": (36.0, 10.0, 0.0), "u2": (36.0, 20.0, 180.0)},
        phase="Movement",
    )
    dice = ScriptedDice([6, 5, 4, 3, 2] + [1], state.dice_position)
    events = stand_and_shoot(state, "u2", "u1", dice)
    assert dice.used == 6
    fired = events[0].payload
    assert events[0].actor == 2
    assert [m["rule"] for m in fired["modifiers"]] == ["Stand and Shoot", "Light Troops"]
    assert (events[1].payload["needed"], events[1].payload["successes"]) == (6, 1)
    state = fold(state, events)
    assert unit(state, "u1").damage == 0  # the one hit failed to wound (a 1)
