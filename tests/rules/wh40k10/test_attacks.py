"""The 10th-edition attack sequence against hand-worked examples (issue 16 item 3; FACTS.md
"wh40k10: the core loop", Shooting and Weapon abilities; seed 004 for Attached units and
Waaagh!). Every die is scripted: each example lists the faces in the order they are rolled."""

from __future__ import annotations

import pytest

from server.dice import DiceStream, verify
from server.rules.core import dice_end
from server.rules.wh40k10.attacks import (
    AttackGroup,
    cap,
    hit_succeeds,
    resolve_attacks,
    save_needed,
    toughness_of,
    wound_succeeds,
)
from server.rules.wh40k10.damage import Resolution
from server.rules.wh40k10.profiles import (
    MELEE,
    ProfileError,
    Shooter,
    TargetModel,
    TargetUnit,
    Weapon,
    waaagh_unit,
    waaagh_weapon,
)
from tests.rules.wh40k10.dice import OutOfDice, ScriptedDice
from tests.rules.wh40k10.units import (
    INFANTRY,
    attached,
    bolt_pistol,
    bolt_rifle,
    boy,
    boyz,
    choppa,
    gun,
    intercessors,
    wurrboy,
)


def run(
    groups: list[AttackGroup], target: TargetUnit, faces: list[int], **kw: object
) -> tuple[Resolution, ScriptedDice]:
    """Resolve with exactly `faces`: every one is used and no more are asked for."""
    dice = ScriptedDice(faces)
    result = resolve_attacks(groups, target, dice, **kw)  # type: ignore[arg-type]
    assert dice.used == len(faces), f"the example scripts {len(faces)} dice, {dice.used} rolled"
    return result, dice


def left(result: Resolution) -> dict[str, int]:
    return {m.id: m.left for m in result.unit.models}


def steps(result: Resolution, kind: str) -> list[str]:
    return [s.text for s in result.steps if s.step == kind]


# --- the rolls ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "skill", "modifier", "hits"),
    [
        (3, 3, 0, True),  # D6 >= BS
        (2, 3, 0, False),
        (2, 3, 1, True),  # +1
        (2, 3, 2, True),  # +2 is capped at +1 ...
        (1, 2, 2, False),  # ... and an unmodified 1 always fails
        (4, 3, -1, True),
        (3, 3, -3, False),  # -3 is capped at -1: 3 - 1 < 3
        (4, 3, -3, True),
        (6, 6, -1, True),  # an unmodified 6 always hits (Critical Hit)
    ],
)
def test_hit_roll_caps_modifiers_and_natural_rolls(
    face: int, skill: int, modifier: int, hits: bool
) -> None:
    """FACTS.md Shooting: hit on D6 >= BS/WS, modifiers capped at +1/-1, unmodified 6 always
    hits, unmodified 1 always fails."""
    assert hit_succeeds(face, skill, modifier) is hits


@pytest.mark.parametrize(
    ("face", "needed", "modifier", "critical_at", "wounds"),
    [
        (5, 5, 0, 6, True),
        (4, 5, 0, 6, False),
        (4, 5, 2, 6, True),  # capped +1
        (5, 5, -2, 6, False),  # capped -1
        (6, 6, -1, 6, True),  # Critical Wound
        (1, 2, 1, 6, False),  # unmodified 1
        (4, 6, -1, 4, True),  # Anti-X 4+: an unmodified 4 is a Critical Wound
        (3, 6, 0, 4, False),
    ],
)
def test_wound_roll_caps_modifiers_and_critical_wounds(
    face: int, needed: int, modifier: int, critical_at: int, wounds: bool
) -> None:
    """FACTS.md: wound modifiers capped at +1/-1; Anti-X Y+: an unmodified Y+ is a Critical
    Wound (and always wounds)."""
    assert wound_succeeds(face, needed, modifier, critical_at) is wounds
    assert cap(5) == 1 and cap(-5) == -1


@pytest.mark.parametrize(
    ("model", "ap", "melee", "ignores_cover", "needed"),
    [
        (boy(1), -1, False, False, 6),  # Sv 5+ AP -1: 6+
        (boy(1), -3, False, False, None),  # Sv 5+ AP -3: 8+, no save
        (boy(1, invulnerable=5), -3, False, False, 5),  # Waaagh! 5+ invulnerable ignores AP
        (boy(1, cover=True), -1, False, False, 5),  # Benefit of Cover +1
        (boy(1, cover=True), -1, True, False, 6),  # ... against ranged attacks only
        (boy(1, cover=True), -1, False, True, 6),  # [IGNORES COVER]
        (boy(1, cover=True, invulnerable=5), -3, False, False, 5),  # cover: armour only
        (TargetModel("m", "Marine", 4, 3, 2, cover=True), 0, False, False, 3),  # 3+ vs AP 0
        (TargetModel("m", "Marine", 4, 3, 2, cover=True), -1, False, False, 3),
        (TargetModel("m", "Marine", 4, 3, 2), -1, False, False, 4),  # FACTS: 3+ vs AP -1: 4+
        (TargetModel("m", "Marine", 4, 4, 2, cover=True), 0, False, False, 3),
        (TargetModel("t", "Terminator", 5, 2, 3, invulnerable=4), -1, False, False, 3),
        (TargetModel("t", "Terminator", 5, 2, 3, invulnerable=4), -3, False, False, 4),
    ],
)
def test_saving_throw_needed(
    model: TargetModel, ap: int, melee: bool, ignores_cover: bool, needed: int | None
) -> None:
    """FACTS.md: save D6 >= Sv - AP; an invulnerable save ignores AP and is used if better;
    Benefit of Cover +1 to armour saves against ranged attacks, not for Sv 3+ or better
    against AP 0."""
    if melee:
        weapon = Weapon.build("Choppa", MELEE, attacks=1, skill=3, strength=4, ap=ap, damage=1)
    else:
        weapon = gun(*(["IGNORES COVER"] if ignores_cover else []), ap=ap)
    assert save_needed(model, weapon)[0] == needed


# --- whole sequences ------------------------------------------------------------------------


def test_bolt_rifles_at_boyz_hit_wound_save_and_remove_models() -> None:
    """FACTS.md hit/wound/save; Heavy +1 after Remaining Stationary. 5 Intercessors, 10 attacks
    on 3+ with +1: two 1s miss, 8 hits. S 4 vs T 5: 5+, four wound (5, 6, 5, 5). Sv 5+ AP -1:
    6+; the first wound goes to Boy 1 and is saved (6), so Boy 1 takes the next (it has had an
    attack allocated): 1 fails, Boy 1 dies; 5 and 2 fail: Boys 2 and 3 die."""
    result, dice = run(
        [AttackGroup(bolt_rifle(), models=5)],
        boyz(),
        [1, 2, 2, 3, 4, 5, 6, 6, 1, 3] + [5, 6, 4, 3, 2, 1, 5, 5] + [6, 1, 5, 2],
        shooter=Shooter(remained_stationary=True),
    )
    hit = next(s for s in result.steps if s.step == "hit")
    assert hit.data["hits"] == 8 and hit.data["critical"] == 2 and hit.needed == 2
    assert "Heavy +1" in hit.text
    wound = next(s for s in result.steps if s.step == "wound")
    assert wound.needed == 5 and wound.data["wounds"] == 4
    assert [s.model for s in result.steps if s.step == "allocate"] == ["b1", "b1", "b2", "b3"]
    assert result.destroyed == ("b1", "b2", "b3")
    assert result.wounds_lost == 3
    assert dice.expressions == ["10D6", "8D6", "D6", "D6", "D6", "D6"]


def test_waaagh_invulnerable_save_against_bolt_rifles() -> None:
    """Seed 004 Waaagh!: a 5+ invulnerable save, better than the 6+ armour save left by AP -1:
    the same dice as above save two (6 and 5)."""
    result, _ = run(
        [AttackGroup(bolt_rifle(), models=5)],
        waaagh_unit(boyz()),
        [1, 2, 2, 3, 4, 5, 6, 6, 1, 3] + [5, 6, 4, 3, 2, 1, 5, 5] + [6, 1, 5, 2],
        shooter=Shooter(remained_stationary=True),
    )
    assert result.destroyed == ("b1", "b2")
    assert all("invulnerable 5+ used" in t for t in steps(result, "save"))


def test_attached_unit_uses_bodyguard_toughness_and_spares_the_character() -> None:
    """Seed 004, Attached units: the Bodyguard's Toughness (5) while the attacking unit resolves
    all its attacks, even after the last Bodyguard model died and even though the Leader has
    T 3; no wound goes to the Character while a Bodyguard model lives, even though it is
    wounded; then it may. Bolt rifle (1 model): hits 3, 3; wounds on 5+: 5, 4 -> one, to the
    Boy (not the wounded Leader); save 6+: 2, the Boy dies. Bolt pistols (2 models): hits 4, 4;
    wounds still on 5+ (on T 3 the 4 would wound): 4, 5 -> one, to the Leader; save 5+: 3."""
    leader = TargetModel(
        "leader", "Leader", toughness=3, save=5, wounds=4, wounds_left=3, character=True
    )
    unit = TargetUnit("boyz", "Boyz", (leader, boy(1)), INFANTRY, attached=True)
    assert toughness_of(unit) == 5
    result, _ = run(
        [AttackGroup(bolt_rifle()), AttackGroup(bolt_pistol(), models=2)],
        unit,
        [3, 3, 5, 4, 2] + [4, 4, 4, 5, 3],
    )
    assert [s.model for s in result.steps if s.step == "allocate"] == ["b1", "leader"]
    assert [s.needed for s in result.steps if s.step == "wound"] == [5, 5]
    assert next(s for s in result.steps if s.step == "toughness").data == {"toughness": 5}
    assert left(result) == {"leader": 2, "b1": 0}
    assert result.separated == "bodyguard_destroyed"
    assert "separate unit" in steps(result, "separated")[0]


def test_attached_unit_leader_destroyed_splits_off_the_bodyguard() -> None:
    """Seed 004: the last Character model destroyed, the Bodyguard becomes a separate unit.
    Precision sends the wound to the Wurrboy past its Boyz (FACTS.md Precision): hit 4, wound 6,
    save 6+ fails on 1, D 4: Feel No Pain 6+ 2, 3, 4, 5: all four lost."""
    sniper = gun("PRECISION", ap=-1, d=4)
    result, _ = run(
        [AttackGroup(sniper, precision_model="wurrboy")],
        attached(2),
        [4, 6, 1, 2, 3, 4, 5, 1],  # the last: Deadly Demise, a 1
        within_6in={"wurrboy": ()},
    )
    assert [s.model for s in result.steps if s.step == "allocate"] == ["wurrboy"]
    assert "Precision" in steps(result, "allocate")[0]
    assert result.destroyed == ("wurrboy",)
    assert result.separated == "leader_destroyed"


def test_precision_needs_a_character() -> None:
    """Precision allocates to a Character model only (FACTS.md); anything else is refused."""
    dice = ScriptedDice([3, 3, 3])
    groups = [AttackGroup(gun()), AttackGroup(gun("PRECISION"), precision_model="b1")]
    with pytest.raises(ProfileError, match="not a Character"):
        resolve_attacks(groups, attached(2), dice, within_6in={"wurrboy": ()})
    assert dice.used == 0  # refused before the first group rolled
    with pytest.raises(ProfileError, match="no \\[PRECISION\\]"):
        resolve_attacks(
            [AttackGroup(gun(), precision_model="wurrboy")],
            attached(2),
            dice,
            within_6in={"wurrboy": ()},
        )


def test_lethal_and_sustained_hits_from_critical_hits() -> None:
    """FACTS.md: Lethal Hits (a Critical Hit wounds automatically) and Sustained Hits 1 (a
    Critical Hit scores 1 more hit). 4 attacks on 3+: 6, 6, 4, 1 -> 3 hits, 2 critical: 2
    automatic wounds and 2 extra hits; 3 hits roll to wound on 5+: 5, 1, 6 -> 2. Four wounds,
    saves 5+: 5, 5, 1, 1: Boy 1 saves twice then dies, Boy 2 dies."""
    weapon = gun("LETHAL HITS", "SUSTAINED HITS 1", a=4)
    result, dice = run([AttackGroup(weapon)], boyz(), [6, 6, 4, 1, 5, 1, 6, 5, 5, 1, 1])
    hit = next(s for s in result.steps if s.step == "hit")
    assert hit.data == {"hits": 5, "critical": 2, "lethal": 2, "sustained": 2}
    wound = next(s for s in result.steps if s.step == "wound")
    assert wound.data["wounds"] == 4 and wound.data["lethal"] == 2
    assert dice.expressions[:2] == ["4D6", "3D6"]
    assert result.destroyed == ("b1", "b2")


def test_anti_infantry_devastating_wounds_no_save_and_allocated_last() -> None:
    """FACTS.md: Anti-Infantry 4+ makes an unmodified 4+ a Critical Wound; Devastating Wounds:
    no saving throw of any kind and allocated after all the other attacks. Group 1 (D 2): hits
    3, 3, 3; wounds 4, 5, 2 -> two Critical Wounds held back. Group 2 (bolt pistol): hit 3,
    wound 5, to the Nob, save 5+ fails on 2: the Nob has 1 wound left. Then the Devastating
    Wounds: to the wounded Nob, no save, D 2: dies (1 excess lost); to Boy 2, dies."""
    dev = gun("ANTI-INFANTRY 4+", "DEVASTATING WOUNDS", a=3, d=2)
    unit = boyz(3, nob_first=True, allocation_order=("nob", "b2", "b3"))
    result, _ = run(
        [AttackGroup(dev), AttackGroup(bolt_pistol())],
        unit,
        [3, 3, 3, 4, 5, 2] + [3, 5, 2],
    )
    wound = next(s for s in result.steps if s.step == "wound")
    assert wound.data["devastating"] == 2 and "ANTI-INFANTRY 4+" in wound.text
    allocations = [s for s in result.steps if s.step in ("allocate", "save")]
    assert [(s.step, s.model) for s in allocations] == [
        ("allocate", "nob"),
        ("save", "nob"),  # the bolt pistol first
        ("allocate", "nob"),
        ("save", "nob"),  # Devastating Wounds after
        ("allocate", "b2"),
        ("save", "b2"),
    ]
    assert [s.data["saved"] for s in allocations if s.step == "save"] == [False, False, False]
    assert "Devastating Wounds: no saving throw" in allocations[3].text
    assert result.destroyed == ("nob", "b2")
    damage = [s.data for s in result.steps if s.step == "damage"]
    assert damage[1] == {"lost": 1, "left": 0, "excess": 1}


def test_anti_x_only_against_its_keyword() -> None:
    """Anti-X Y+ reads the target's keywords (FACTS.md): against Vehicles a 4 is no Critical
    Wound; S 4 vs T 5 needs 5+, so 4 fails."""
    vehicle = TargetUnit(
        "v", "Truck", (TargetModel("t", "Truck", 5, 4, 10),), frozenset({"Vehicle"})
    )
    result, _ = run([AttackGroup(gun("ANTI-INFANTRY 4+"))], vehicle, [3, 4])
    assert next(s for s in result.steps if s.step == "wound").data["wounds"] == 0


def test_twin_linked_rerolls_failed_wound_rolls() -> None:
    """FACTS.md Twin-linked (re-roll wound rolls): hits 3, 3; wound 5+: 2 fails and is
    re-rolled (6), 5 stands: two wounds; saves 5+: 1, 1."""
    result, dice = run([AttackGroup(gun("TWIN-LINKED", a=2))], boyz(), [3, 3, 2, 5, 6, 1, 1])
    assert dice.expressions[1] == "2D6 reroll 1,2,3,4"
    wound_roll = result.rolls[1]
    assert [d.rerolled for d in wound_roll.dice] == [True, False, False]
    assert result.destroyed == ("b1", "b2")


def test_torrent_hits_automatically() -> None:
    """FACTS.md Torrent: no hit roll. A D6 rolls 4: 4 hits; S 5 vs T 5: 4+: 4, 4, 1, 6: 3
    wounds; saves 5+ (AP -1: 6+): 6, 2, 2."""
    flamer = gun("TORRENT", a="D6", bs=None, s=5, ap=-1, rng=12)
    result, dice = run([AttackGroup(flamer)], boyz(), [4, 4, 4, 1, 6, 6, 2, 2])
    assert dice.expressions == ["D6", "4D6", "D6", "D6", "D6"]
    assert "Torrent" in steps(result, "hit")[0]
    assert result.destroyed == ("b1", "b2")


def test_rapid_fire_and_blast_add_attacks() -> None:
    """FACTS.md: Rapid Fire X (+X attacks at half range) per model; Blast (+1 attack per 5
    models in the target) per model. 5 bolt rifles with Rapid Fire 1 within half range: 15
    attacks. A D3 Blast weapon at 11 models: D3 (raw 5 = 3) + 2 = 5 attacks."""
    result, _ = run(
        [AttackGroup(bolt_rifle("RAPID FIRE 1"), models=5, within_half_range=True)],
        boyz(),
        [1] * 15,
    )
    assert next(s for s in result.steps if s.step == "attacks").data["attacks"] == 15
    blast = gun("BLAST", a="D3")
    result, _ = run([AttackGroup(blast)], boyz(11), [5] + [1] * 5)
    assert next(s for s in result.steps if s.step == "attacks").data["attacks"] == 5


def test_big_guns_never_tire_and_the_modifier_cap() -> None:
    """FACTS.md: -1 to hit for attacks by an engaged Monster or Vehicle (not with a Pistol);
    with Heavy's +1 the sum is 0: a 3 hits on 3+. With another +1 the sum +2 is capped at +1."""
    monster = Shooter(engaged=True, remained_stationary=True, keywords=frozenset({"Monster"}))
    result, _ = run([AttackGroup(gun("HEAVY"))], boyz(), [3, 1], shooter=monster)
    hit = next(s for s in result.steps if s.step == "hit")
    assert "Big Guns Never Tire -1" in hit.text and hit.data["hits"] == 1 and hit.needed == 3
    result, _ = run(
        [AttackGroup(gun("HEAVY", a=2), hit_modifier=1)],
        boyz(),
        [1, 2, 1],
        shooter=Shooter(remained_stationary=True),
    )
    hit = next(s for s in result.steps if s.step == "hit")
    assert hit.needed == 2 and hit.data["hits"] == 1  # a 2 hits (2 + 1 >= 3)
    # ... and only the first die: the unmodified 1 fails whatever the modifier
    result, _ = run([AttackGroup(gun(a=2), hit_modifier=1)], boyz(), [1, 1])
    assert next(s for s in result.steps if s.step == "hit").data["hits"] == 0


def test_waaagh_melee_strength_and_attacks() -> None:
    """Seed 004 Waaagh!: +1 S and +1 A on melee weapons. A Choppa (A 3, S 4, AP -1) becomes
    A 4, S 5: against T 4 Intercessors that wounds on 3+. 4 attacks on 3+: 3, 3, 3, 3; wounds
    3, 3, 2, 2 -> 2; saves 3+ AP -1 = 4+: 1, 1: Intercessor 1 loses 2 wounds and dies."""
    weapon = waaagh_weapon(choppa())
    assert (weapon.attacks, weapon.strength) == (4, 5)
    result, _ = run([AttackGroup(weapon)], intercessors(), [3, 3, 3, 3, 3, 3, 2, 2, 1, 1])
    assert next(s for s in result.steps if s.step == "wound").needed == 3
    assert result.destroyed == ("i1",)
    assert result.to_payload()["kind"] == "melee"


def test_random_damage_excess_is_lost() -> None:
    """FACTS.md: excess damage on a destroyed model is lost. D3 damage (raw 6 = 3) on a W 1
    Boy: 1 lost, 2 excess; the next Boy is untouched."""
    result, _ = run([AttackGroup(gun(d="D3"))], boyz(2), [3, 5, 1, 6])
    assert left(result) == {"b1": 0, "b2": 1}
    assert next(s for s in result.steps if s.step == "damage").data["excess"] == 2


def test_ranged_and_melee_resolved_apart_and_bad_groups_refused() -> None:
    """A unit's shooting and its fighting are separate phases; an empty list is refused."""
    with pytest.raises(ProfileError):
        resolve_attacks([AttackGroup(gun()), AttackGroup(choppa())], boyz(), ScriptedDice([]))
    with pytest.raises(ProfileError):
        resolve_attacks([], boyz(), ScriptedDice([]))


def test_deadly_demise_model_needs_its_neighbours() -> None:
    """Deadly Demise (seed 004) needs the units within 6 in of each model that has it: missing,
    a clear error before any die is rolled (bad input changes nothing)."""
    dice = ScriptedDice([3, 6, 1])
    with pytest.raises(ProfileError, match="within 6 in of wurrboy"):
        resolve_attacks(
            [AttackGroup(gun(d=4, ap=-3))],
            TargetUnit("w", "Wurrboy", (wurrboy(feel_no_pain=None),), INFANTRY),
            dice,
        )
    assert dice.used == 0


def test_scripted_examples_use_exactly_their_dice() -> None:
    """The helper itself: a sequence that wants more dice than scripted fails loudly."""
    with pytest.raises(OutOfDice):
        resolve_attacks([AttackGroup(gun(a=2))], boyz(), ScriptedDice([3]))


def test_every_die_is_recorded_contiguously_and_verifies() -> None:
    """Issue 16 Deliver 3 ("each step an event with its dice"): the rolls of a resolution cover
    the stream without gaps from where it started, `dice_end` reads the position after them,
    and the revealed seed recomputes every one (server/dice.py `verify`)."""
    seed = bytes(range(32))
    stream = DiceStream(seed, 0)
    target = attached(10)
    groups = [
        AttackGroup(bolt_rifle("RAPID FIRE 1"), models=4, within_half_range=True),
        AttackGroup(gun("TWIN-LINKED", "SUSTAINED HITS D3", "LETHAL HITS", a="D6", d="D3")),
        AttackGroup(gun("DEVASTATING WOUNDS", "PRECISION", a=6, d=2), precision_model="wurrboy"),
    ]
    result = resolve_attacks(
        groups, target, stream, within_6in={"wurrboy": ("boyz", "intercessors")}
    )
    payload = result.to_payload()
    rolls = payload["rolls"]
    assert rolls and rolls[0]["start"] == 0
    assert all(a["end"] == b["start"] for a, b in zip(rolls, rolls[1:], strict=False))
    assert dice_end(payload) == stream.position
    report = verify(seed, stream.commitment, rolls)
    assert report.ok, report.reason
    indexed = [s["roll"] for s in payload["steps"] if "roll" in s]
    assert sorted(indexed) == list(range(len(rolls)))  # every roll is shown by one step
    assert result.wounds_lost == sum(m.wounds - m.left for m in result.unit.models)


# One attack, one Boy-like model (T 5, Sv 5+, W 3 so that damage shows): the faces in rolling
# order (hit, wound, save, then Feel No Pain dice) and the wounds lost. FACTS.md wh40k10 (Hit,
# Wound, Save, Benefit of Cover, weapon abilities) and seed 004 (Feel No Pain, Waaagh!).
ONE_ATTACK_CASES = [
    # (what, weapon, model fields, faces, wounds lost)
    ("hit 3+ wound 5+ save 5+ fails", gun(), {}, [3, 5, 4], 1),
    ("miss on 2 at BS 3+", gun(), {}, [2], 0),
    ("S 4 vs T 5 fails on 4", gun(), {}, [3, 4], 0),
    ("saved on 5", gun(), {}, [3, 5, 5], 0),
    ("AP -1 makes 5 fail (6+)", gun(ap=-1), {}, [3, 5, 5], 1),
    ("cover: AP -1 back to 5+", gun(ap=-1), {"cover": True}, [3, 5, 5], 0),
    ("AP -3: no save, no die", gun(ap=-3, d=2), {}, [3, 5], 2),
    ("Waaagh! 5+ invulnerable vs AP -3", gun(ap=-3, d=2), {"invulnerable": 5}, [3, 5, 5], 0),
    ("S 8 vs T 5 wounds on 3+", gun(s=8), {}, [3, 3, 1], 1),
    ("S 10 vs T 5 wounds on 2+", gun(s=10), {}, [3, 2, 2], 1),
    ("S 2 vs T 5 wounds only on 6", gun(s=2), {}, [3, 5], 0),
    ("Lethal Hits: a 6 skips the wound roll", gun("LETHAL HITS"), {}, [6, 1], 1),
    (
        "Devastating Wounds: no save, not even invulnerable",
        gun("DEVASTATING WOUNDS", d=2),
        {"invulnerable": 4},
        [3, 6],
        2,
    ),
    ("FNP 5+ ignores one of 3 damage", gun(d=3), {"feel_no_pain": 5}, [3, 5, 1, 5, 1, 2], 2),
    ("D 3 on a model with 1 wound left: 2 excess", gun(d=3), {"wounds_left": 1}, [3, 5, 1], 1),
    ("Torrent, no hit die", gun("TORRENT", bs=None), {}, [5, 1], 1),
]


@pytest.mark.parametrize(
    ("weapon", "fields", "faces", "lost"),
    [pytest.param(w, f, d, n, id=what) for what, w, f, d, n in ONE_ATTACK_CASES],
)
def test_one_attack_hand_worked(
    weapon: Weapon, fields: dict[str, object], faces: list[int], lost: int
) -> None:
    """A table of single attacks worked by hand (see the row's name and ONE_ATTACK_CASES)."""
    model = TargetModel("m", "Boy", toughness=5, save=5, wounds=3, **fields)  # type: ignore[arg-type]
    unit = TargetUnit("u", "Boyz", (model,), INFANTRY)
    result, _ = run([AttackGroup(weapon)], unit, faces)
    assert result.wounds_lost == lost
