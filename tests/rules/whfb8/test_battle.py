"""The whfb8 battle on the shared rank-and-flank pipeline (issue 14 items 1-3), from
hand-worked positions with scripted dice: a fight round by hand, Fear, Unstable and Animated
Construct (the Tomb Swarm page, ../shared/seeds/002_20fe50c61f72ab35.txt), Steadfast,
Stubborn-free Break Tests and Insane Courage (../shared/rules/FACTS.md "whfb8: the battle")."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

import pytest

from server.rules.core import RuleError
from server.rules.rankandflank import combat_result
from server.rules.rankandflank.attacks import Pool, allocate
from server.rules.rankandflank.break_test import restrain_orders
from server.rules.whfb8.combat import WHFB8
from tests.rules.whfb8.positions import (
    HALBERDIERS,
    SKELETONS,
    SWARM,
    break_test,
    position,
    run,
    swarm_charged,
    unit,
)

FEAR_FAILED = [4, 4]  # 8 against Leadership 7: failed
HALBERDIERS_HIT = [6, 5, 5, 4, 3, 2, 1, 1, 2, 3]  # 10 attacks at 5+ (WS 1 vs 3): 3 hits
HALBERDIERS_WOUND = [2, 1, 6]  # S4 (halberd) vs T2, 2+: 2 wounds
SWARM_SAVE = [6, 5]  # Animated Construct 5+, S4 -1: 6+: 1 saved
SWARM_HIT = [6, 6, 5, 5, 4, 3, 3, 2, 2, 1, 1, 1, 2, 2, 1]  # 15 at 3+ (WS 3 vs 1): 7 hits
SWARM_WOUND = [4, 4, 5, 6, 1, 2, 3]  # S2 vs T3 5+, Poisoned Attacks +1: 4+: 4 wounds
HALBERDIERS_SAVE = [6, 1, 2, 3]  # light armour 6+, S2: 6+: 1 saved, 3 models lost
BREAK = [3, 3]  # 6 against unmodified Leadership 7 (Steadfast): passed


def test_a_fight_round_by_hand_fear_poison_animated_construct_steadfast() -> None:
    """FACTS "whfb8: the battle" and seed 002, worked by hand:

    Fear: the Halberdiers (Ld 7) touch the Undead Tomb Swarm (Fear); 8: failed, WS 1 this
    round. The Swarm causes Fear and does not test.
    Initiative 3, Halberdiers: 5 in contact + 5 supporting (second rank) = 10 attacks; WS 1
    against WS 3 (more than double): 5+: 3 hits; halberd S4 vs T2: 2+: 2 wounds; Animated
    Construct 5+ worsened by S4 to 6+: 1 saved: the Swarm loses 1 Wound.
    Initiative 1, Swarm: 3 x 5 = 15 attacks, WS 3 against WS 1: 3+: 7 hits; S2 vs T3 is 5+,
    the page's Poisoned Attacks +1: 4+: 4 wounds; light armour 6+ (S2 does not worsen it):
    1 saved: 3 Halberdiers die.
    Combat result: Swarm 3 + 1 charge = 4 (Skirmishers: zero ranks, Light Troops);
    Halberdiers 1 + 2 ranks (17 models: 5, 5, 5, 2) = 3. The Halberdiers lose by 1 but are
    Steadfast (3 ranks against 0): 6 against unmodified Leadership 7, passed.
    """
    state = swarm_charged()
    faces = (
        FEAR_FAILED
        + HALBERDIERS_HIT
        + HALBERDIERS_WOUND
        + SWARM_SAVE
        + SWARM_HIT
        + SWARM_WOUND
        + HALBERDIERS_SAVE
        + BREAK
    )
    state, events = run(state, 1, faces, type="fight_combat", unit="u1")
    assert [e.type for e in events] == [
        "combat_round",
        "fear_test",
        "attack_step",  # Halberdiers: attacks
        "attack_step",
        "attack_step",
        "attack_step",
        "hp_lost",
        "attack_step",  # Swarm: attacks
        "attack_step",
        "attack_step",
        "attack_step",
        "hp_lost",
        "combat_score",
        "break_test",
        "combat_fought",
    ]
    p = [e.payload for e in events]
    fear = p[1]
    assert (fear["unit"], fear["cause"], fear["leadership"], fear["passed"]) == (
        "u2", "u1", 7, False
    )
    assert fear["rules"][0]["rule"] == "Fear"
    attacks = p[2]
    assert (attacks["in_contact"], attacks["supporting"], attacks["successes"]) == (5, 5, 10)
    assert attacks["weapon"] == "Halberd" and attacks["initiative"] == 3
    assert attacks["rules"] == [{"rule": "Halberd", "text": "Halberd: +1 Strength"}]
    assert (p[3]["needed"], p[3]["successes"]) == (5, 3)
    assert {"rule": "Fear", "text": "Fear: Empire Halberdiers failed the Fear test: WS 1"} in p[
        3
    ]["rules"]
    assert (p[4]["needed"], p[4]["successes"]) == (2, 2)
    assert (p[5]["step"], p[5]["needed"], p[5]["successes"]) == ("armour", 6, 1)
    assert p[5]["rules"][0]["rule"] == "Animated Construct"
    assert p[6]["losses"] == 1 and p[6]["unit_after"]["damage"] == 1
    assert (p[7]["successes"], p[7]["initiative"]) == (15, 1)
    assert (p[8]["needed"], p[8]["successes"]) == (3, 7)
    assert (p[9]["needed"], p[9]["successes"]) == (4, 4)
    assert p[9]["rules"] == [
        {"rule": "Poisoned Attacks", "text": "Poisoned Attacks: +1 to wound (5+ becomes 4+)"}
    ]
    assert (p[10]["needed"], p[10]["successes"]) == (6, 1)
    assert p[11]["losses"] == 3 and p[11]["models_removed"] == 3
    score = p[12]
    assert score["text"].startswith("Combat result: ")
    assert score["scores"]["1"] == {
        "wounds": 3,
        "rank_bonus": 0,
        "standard": 0,
        "charge": 1,
        "flank": 0,
        "rear": 0,
        "battle_standard": 0,
        "total": 4,
        "rules": [
            {
                "rule": "Light Troops",
                "text": "Light Troops: Tomb Swarm are Skirmishers and count zero ranks",
            }
        ],
    }
    assert score["scores"]["2"]["total"] == 3 and score["scores"]["2"]["rank_bonus"] == 2
    assert (score["winner"], score["difference"]) == (1, 1)
    test = p[13]
    assert (test["needed"], test["steadfast"], test["passed"]) == (7, True, True)
    assert test["rules"][0]["rule"] == "Steadfast"
    assert (unit(state, "u1").models, unit(state, "u1").damage) == (3, 1)
    assert unit(state, "u2").models == 17


SWARM_LOSES = (
    [3, 3]  # Fear test: 6 against 7, passed: WS 3 against WS 3, 4+
    + [6, 6, 5, 1, 1, 1, 1, 1, 1, 1]  # Halberdiers: 3 hits
    + [2, 2, 2]  # 3 wounds
    + [1, 1, 1]  # Animated Construct 6+: none saved
    + [1] * 15  # the Swarm misses everything
    + []  # Unstable: no Break Test, no dice
)


def test_an_unstable_swarm_that_loses_takes_one_wound_per_point_less_animated_construct() -> None:
    """Seed 002, Unstable: Unbreakable, one extra Wound per point lost by, no saves;
    Animated Construct (FACTS): one less. Halberdiers 3 Wounds + 3 ranks (20 models, 4 ranks)
    = 6 against the Swarm's 0 + 1 charge = 1: lost by 5: 5 - 1 = 4 Unstable Wounds, no saves,
    no Break Test roll: 3 + 4 = 7 Wounds on 5-Wound models: one removed, the next on 2."""
    state = swarm_charged()
    state, events = run(state, 1, SWARM_LOSES, type="fight_combat", unit="u1")
    types = [e.type for e in events]
    assert types[-4:] == ["combat_score", "break_test", "hp_lost", "combat_fought"]
    test = events[-3].payload
    assert (test["roll"], test["needed"], test["passed"], test["rule"]) == (
        None, None, True, "Unstable"
    )
    assert [r["rule"] for r in test["rules"]] == ["Unstable", "Unstable", "Animated Construct"]
    lost = events[-2].payload
    assert (lost["rule"], lost["losses"], lost["saves"]) == ("Unstable", 4, False)
    assert lost["text"].startswith("Unstable: Tomb Swarm lose 4 Wounds")
    assert (unit(state, "u1").models, unit(state, "u1").damage) == (2, 2)
    assert "fleeing" not in unit(state, "u1").markers
    assert state.charges.engaged == {"u1": "u2"}


def test_unstable_wounds_for_a_combat_result_by_exact_enumeration() -> None:
    """Seed 002 Unstable and FACTS Animated Construct, every die enumerated: the Halberdiers
    cause 3 wounds; the Swarm's three 6+ armour saves are the only dice left to chance. Lost by
    (unsaved + 3 ranks) - 1 charge; Unstable Wounds = that - 1 (Animated Construct) = unsaved
    + 1, so 4 with (5/6)^3, 3 with 3 (1/6)(5/6)^2, 2 with 3 (1/6)^2 (5/6), 1 with (1/6)^3."""
    base = swarm_charged()
    counts: Counter[int] = Counter()
    for saves in product(range(1, 7), repeat=3):
        faces = SWARM_LOSES[:15] + list(saves) + [1] * 15
        _, events = run(base, 1, faces, type="fight_combat", unit="u1")
        unstable = [e for e in events if e.type == "hp_lost" and e.payload["rule"] == "Unstable"]
        counts[unstable[0].payload["losses"]] += 1
    total = sum(counts.values())
    assert {k: Fraction(v, total) for k, v in counts.items()} == {
        4: Fraction(125, 216),
        3: Fraction(75, 216),
        2: Fraction(15, 216),
        1: Fraction(1, 216),
    }


@pytest.mark.parametrize(
    ("difference", "steadfast", "sheet", "losses"),
    [
        (5, False, "tomb-swarm", 4),  # Animated Construct: one less
        (1, False, "tomb-swarm", 0),
        (5, True, "skeleton-warriors", 3),  # Steadfast and Animated Construct: two less
        (2, True, "skeleton-warriors", 0),
        (1, True, "skeleton-warriors", 0),  # never negative
    ],
)
def test_unstable_losses_table(difference: int, steadfast: bool, sheet: str, losses: int) -> None:
    """Seed 002: one Wound per point lost by, one less if it would have been Steadfast;
    FACTS Animated Construct: one less again (both Undead sheets have it)."""
    from server.data import load_catalog

    ds = load_catalog().get("whfb8", sheet)
    found = WHFB8.instead_of_break_test([ds], difference=difference, steadfast=steadfast)
    assert found is not None and found[0] == "Unstable" and found[1] == losses


def test_steadfast_unstable_skeletons_with_a_tomb_king_share_wounds_unit_first() -> None:
    """Seed 002: Unstable characters inside an Unstable unit: wounds go to the unit first, the
    rest as evenly as possible among the characters (shared `allocate(evenly=True)`)."""
    pool = Pool(models=2, health_points=1, characters=((4, 0), (4, 0)))
    after, alloc = allocate(pool, 7, evenly=True)
    assert alloc.models_removed == 2 and alloc.character_losses == (3, 2)
    state = position(
        [{**SKELETONS, "joined_characters": ["tomb-king"]}],
        [{**HALBERDIERS, "models": 10}],
        {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)},
    )
    skeletons = unit(state, "u1")
    assert combat_result.proper_ranks(state, skeletons) == 4
    # Lost by 4, Steadfast (4 ranks against 2): 4 - 1 - 1 (Animated Construct) = 2 Wounds.
    state, events = break_test(state, "u1", 4, 2, [], winner="u2")
    assert [e.type for e in events] == ["break_test", "hp_lost"]
    assert events[1].payload["losses"] == 2 and events[1].payload["character_losses"] == [0]
    assert unit(state, "u1").models == 18 and unit(state, "u1").characters[0].damage == 0


@pytest.mark.parametrize(
    ("difference", "enemy_ranks", "faces", "needed", "passed", "rules"),
    [
        (3, 4, [3, 2], 4, False, []),  # 5 against 7 - 3
        (3, 4, [2, 2], 4, True, []),
        (3, 3, [4, 3], 7, True, ["Steadfast"]),  # 4 ranks against 3: unmodified Ld 7
        (6, 4, [1, 1], 1, True, ["Insane Courage"]),  # a double 1 passes against 7 - 6
        (6, 4, [1, 2], 1, False, []),
    ],
)
def test_break_test_steadfast_and_insane_courage(
    difference: int, enemy_ranks: int, faces: list[int], needed: int, passed: bool,
    rules: list[str],
) -> None:
    """FACTS Break Test: 2D6 at most Ld minus the difference; Steadfast tests on unmodified
    Ld; a double 1 always passes (Insane Courage). A failure breaks (the flee and pursuit dice
    follow, not asserted here)."""
    state = position(
        [{"datasheet": "tomb-swarm", "models": 3, "files": 3}],
        [HALBERDIERS],
        {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)},
    )
    from tests.rules.t9a.test_combat import charged

    state = charged(state, "u1", "u2")
    flee = [] if passed else [5, 5, 1, 1]  # flees 10 in, the Swarm pursues 2 in
    state, events = break_test(state, "u2", difference, enemy_ranks, faces + flee)
    test = events[0].payload
    assert (test["needed"], test["passed"]) == (needed, passed)
    assert [r["rule"] for r in test["rules"]] == rules
    if not passed:
        assert events[1].type == "unit_broke" and "fleeing" in unit(state, "u2").markers


def test_unbreakable_units_pass_panic_and_ignore_fear() -> None:
    """Seed 002: Unstable units are Unbreakable (no Panic); FACTS Fear: Fear-causers are
    immune; Immunity (Psychology) passes."""
    from server.data import load_catalog

    cat = load_catalog()
    swarm, goblins = cat.get("whfb8", "tomb-swarm"), cat.get("whfb8", "night-goblins")
    fanatic = cat.get("whfb8", "night-goblin-fanatic")
    assert WHFB8.panic_immunity([swarm]) == "Unstable"
    assert WHFB8.panic_immunity([fanatic]) == "Immunity (Psychology)"
    assert WHFB8.panic_immunity([goblins]) is None


@pytest.mark.parametrize(
    ("restraint", "pursues"),
    [([3, 3], False), ([6, 6, 1, 1], True)],  # 6 against Ld 10: holds; 12: pursues 2 in
)
def test_a_winner_ordered_to_hold_back_tests_leadership_before_pursuing(
    restraint: list[int], pursues: bool
) -> None:
    """FACTS Break Test: "winners pursue 2D6 (or restrain on a Ld test)". Player 1 orders the
    Tomb Swarm to hold back (`restrain_pursuit`); the Halberdiers fail their Break Test (5
    against 7 - 3) and flee 10 in; the Swarm tests Leadership 10 (`restraint_test`): passed, it
    stays; failed, it pursues."""
    from tests.rules.t9a.test_combat import charged

    state = charged(
        position(
            [{"datasheet": "tomb-swarm", "models": 3, "files": 3}],
            [HALBERDIERS],
            {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)},
        ),
        "u1",
        "u2",
    )
    refused = pytest.raises(RuleError, run, state, 2, [], type="restrain_pursuit", unit="u1")
    assert refused.value.message == "Tomb Swarm belongs to player 1"
    state, events = run(state, 1, [], type="restrain_pursuit", unit="u1")
    assert events[0].type == "pursuit_order" and restrain_orders(state) == {"u1"}
    assert state.to_json(1)["restrain_pursuit"] == ["u1"]
    state, events = break_test(state, "u2", 3, 4, [3, 2] + [5, 5] + restraint)
    types = [e.type for e in events]
    assert types[:3] == ["break_test", "unit_broke", "unit_fled"]
    test = events[types.index("restraint_test")].payload
    assert (test["passed"], test["rule"], test["leadership"]) == (
        not pursues, "Restrain Pursuit", 10
    )
    assert ("unit_pursued" in types) is pursues
    state, _ = run(state, 1, [], type="restrain_pursuit", unit="u1", restrain=False)
    assert restrain_orders(state) == frozenset()


def test_the_battle_standard_adds_one_while_its_bearer_stands() -> None:
    """FACTS combat result: +1 battle standard. The army entry's `battle_standard` (whfb8, one
    per army, carried by a character: the unit's joined character here) marks the unit; the
    +1 counts while the unit has its character."""
    from server.data.army import validate_army

    entry = {**SKELETONS, "joined_characters": ["tomb-king"], "battle_standard": True}
    assert validate_army("whfb8", [entry]) == []
    bad = validate_army("whfb8", [{**SKELETONS, "battle_standard": True}])
    assert [e.code for e in bad] == ["no_battle_standard"]
    two = validate_army("whfb8", [entry, entry])
    assert [(e.code, e.entry) for e in two] == [("no_battle_standard", 1)]
    assert [e.code for e in validate_army("t9a", [
        {"datasheet": "citizen-spears", "models": 20, "battle_standard": True}
    ])] == ["no_battle_standard"]
    state = position(
        [entry],
        [HALBERDIERS],
        {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)},
    )
    from tests.rules.t9a.test_combat import charged

    state = charged(state, "u1", "u2")
    assert "battle_standard" in unit(state, "u1").markers
    scores = combat_result.combat_score(state, ["u1", "u2"], {})
    assert scores[1]["battle_standard"] == 1 and scores[2]["battle_standard"] == 0
    text = "Battle Standard: +1 (Skeleton Warriors + Tomb King)"
    note = {"rule": "Battle Standard", "text": text}
    assert note in scores[1]["rules"]
    assert scores[1]["total"] == 1 + 1 + 3  # charge, battle standard, ranks (4 ranks: +3)


def test_unstable_wounds_beyond_the_unit_are_split_evenly_among_its_characters() -> None:
    """Seed 002: "first allocates wounds to the unit, then divides any remaining wounds as
    equally as possible amongst the characters". 10 Skeletons with two Tomb Kings (W4 each)
    lose by 18, not Steadfast: 18 - 1 (Animated Construct) = 17 Wounds: 10 to the Skeletons,
    the other 7 split 4 and 3: one Tomb King falls, the other is left on 1 Wound."""
    entry = {**SKELETONS, "models": 10, "joined_characters": ["tomb-king", "tomb-king"]}
    state = position(
        [entry], [HALBERDIERS], {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)}
    )
    state, events = break_test(state, "u1", 18, 4, [], winner="u2")
    lost = events[1].payload
    assert (lost["losses"], lost["models_removed"], lost["character_losses"]) == (17, 10, [4, 3])
    assert lost["characters_removed"] == ["Tomb King"]
    skeletons = unit(state, "u1")
    assert skeletons.models == 0 and [c.damage for c in skeletons.characters] == [3]
    assert skeletons.status == "on_table"


def test_fleeing_through_friends_makes_them_test_for_panic_once() -> None:
    """FACTS Panic: fleeing friends passing through make a unit test; a unit that passed a
    Panic Test does not test again that phase. The Halberdiers break (12 against 7 - 2) and
    flee 10 in straight through the Handgunners behind them: those test (6 against Ld 7,
    passed) and, within 6 in of the broken unit too, do not test a second time; the Swarm
    pursues 2 in."""
    from tests.rules.t9a.test_combat import charged

    state = charged(
        position(
            [SWARM],
            [HALBERDIERS, HANDGUNNERS_P2],
            {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0), "u3": (36.0, 36.0, 180.0)},
        ),
        "u1",
        "u2",
    )
    state, events = break_test(state, "u2", 2, 4, [6, 6] + [5, 5] + [3, 3] + [1, 1])
    fled = next(e.payload for e in events if e.type == "unit_fled")
    assert "u3" in fled["passed_through"]
    panics = [e.payload for e in events if e.type == "panic_test"]
    assert [(p["unit"], p["passed"]) for p in panics] == [("u3", True)]
    assert panics[0]["text"].startswith("Empire Handgunners take a Panic Test (Empire "
                                        "Halberdiers fled through them)")
    assert "fleeing" not in unit(state, "u3").markers


HANDGUNNERS_P2 = {"datasheet": "empire-handgunners", "models": 10, "files": 5}


def test_a_stubborn_unit_tests_on_unmodified_leadership(monkeypatch: pytest.MonkeyPatch) -> None:
    """FACTS Break Test: Stubborn uses unmodified Ld, whatever the ranks. Halberdiers made
    Stubborn (no catalogue unit has the rule: the sheet is swapped in) lose by 4 with fewer
    ranks than the enemy: 7 against Leadership 7, passed."""
    from server.data import load_catalog
    from server.data.schema import SpecialRule
    from server.rules.rankandflank import break_test as breaking
    from tests.rules.t9a.test_combat import charged

    state = charged(
        position([SWARM], [HALBERDIERS], {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)}),
        "u1",
        "u2",
    )
    halberdiers = load_catalog().get("whfb8", "empire-halberdiers")
    stubborn = halberdiers.model_copy(update={"special_rules": [SpecialRule(name="Stubborn")]})
    assert WHFB8.unmodified_leadership([stubborn]) == "Stubborn"
    assert WHFB8.unmodified_leadership([halberdiers]) is None
    monkeypatch.setattr(breaking, "sheets_of", lambda state, unit: [stubborn])
    state, events = break_test(state, "u2", 4, 5, [4, 3])
    test = events[0].payload
    assert (test["needed"], test["passed"], test["steadfast"]) == (7, True, False)
    assert test["rules"][0]["rule"] == "Stubborn"


@pytest.mark.parametrize(("gap", "losses"), [(11.5, 3), (12.0, 3), (12.5, 4)])
def test_animated_construct_near_the_battle_standard_loses_two_wounds_less(
    gap: float, losses: int
) -> None:
    """FACTS Animated Construct: "one less wound from Unstable ... (two less within 12 in of
    its army's Battle Standard Bearer)" (docs/rules-decisions.md). A Tomb Swarm (u1, one rank
    of 40 mm bases: rear edge at y 24 - 1.57 = 22.43) loses by 5, not Steadfast (zero ranks);
    the army's Battle Standard Bearer, a Tomb King in Skeleton Warriors (u2), stands `gap` in
    behind it: within 12 in, 5 - 2 = 3 Wounds; beyond, 5 - 1 = 4."""
    rear = 24.0 - 40 / 25.4
    bsb = {**SKELETONS, "joined_characters": ["tomb-king"], "battle_standard": True}
    state = position(
        [SWARM, bsb],
        [HALBERDIERS],
        {"u1": (36.0, 24.0, 0.0), "u2": (36.0, rear - gap, 0.0), "u3": (36.0, 30.0, 180.0)},
    )
    state, events = break_test(state, "u1", 5, 4, [], winner="u3")
    assert [e.type for e in events][:2] == ["break_test", "hp_lost"]
    assert events[1].payload["losses"] == losses
    note = next(r["text"] for r in events[0].payload["rules"]
                if r["rule"] == "Animated Construct")
    assert note.startswith(f"Animated Construct: {5 - losses} Wound")


def test_the_battle_standard_bearers_own_unit_is_within_12_in() -> None:
    """The Battle Standard Bearer's own Undead unit is within 12 in of it: Skeletons with their
    Tomb King BSB lose by 4, Steadfast: 4 - 1 - 2 = 1 Wound."""
    bsb = {**SKELETONS, "joined_characters": ["tomb-king"], "battle_standard": True}
    state = position([bsb], [{**HALBERDIERS, "models": 10}],
                     {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)})
    state, events = break_test(state, "u1", 4, 2, [], winner="u2")
    assert events[1].payload["losses"] == 1
