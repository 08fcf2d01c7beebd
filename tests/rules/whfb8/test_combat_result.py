"""The whfb8 combat result, item by item (../shared/rules/FACTS.md "whfb8: the battle", Combat
result): unsaved wounds, +1 Charge!, +1 per extra rank of 5+ models (at most +3; Disrupted by
an enemy with 2+ ranks in the flank or rear), +1 standard, +1 battle standard
(tests/rules/whfb8/test_battle.py), +1 flank, +2 rear; a draw: nobody tests. Overkill counts
only in challenges, which are not automated: the rules list says so. Parry is against attacks
from the front only.

Hand-worked position: 30 Empire Halberdiers (player 1, u1, 5 x 6, a standard) charged 19
Empire Halberdiers (player 2, u2, 5 wide: ranks of 5, 5, 5 and 4) standing at (36, 30) facing
down the table; wounds caused this round: 2 by u1, 1 by u2.
"""

from __future__ import annotations

import pytest

from server.data import load_catalog
from server.rules import core
from server.rules.automation import mark
from server.rules.rankandflank import combat_result
from tests.rules.t9a.scripted import ScriptedDice
from tests.rules.t9a.test_combat import charged
from tests.rules.whfb8.positions import SWARM, position, with_units

BIG = {"datasheet": "empire-halberdiers", "models": 30, "files": 5}
NINETEEN = {"datasheet": "empire-halberdiers", "models": 19, "files": 5}


@pytest.mark.parametrize(
    ("start", "flank", "rear"),
    [
        ((36.0, 24.0, 0.0), 0, 0),  # in front
        ((30.0, 33.0, 90.0), 1, 0),  # the charger's front centre in u2's flank arc
        ((36.0, 44.0, 180.0), 0, 2),  # behind
    ],
)
def test_combat_result_items(start: tuple[float, float, float], flank: int, rear: int) -> None:
    """FACTS: u1 2 wounds + 1 Charge! + 3 ranks (six ranks of 5: five extra, at most +3) + 1
    standard (+ 1 flank or + 2 rear) = 7, 8 or 9; u2 1 wound + 2 ranks (5, 5, 5, 4: the
    fourth rank of 4 does not count) = 3 in front; from the flank or rear, u1's 2+ ranks
    Disrupt u2: no rank bonus, 1."""
    state = position([BIG], [NINETEEN], {"u1": start, "u2": (36.0, 30.0, 180.0)})
    state = with_units(charged(state, "u1", "u2"), u1={"markers": ("standard",)})
    scores = combat_result.combat_score(state, ["u1", "u2"], {1: 2, 2: 1})
    one, two = scores[1], scores[2]
    assert (one["wounds"], one["charge"], one["rank_bonus"], one["standard"]) == (2, 1, 3, 1)
    assert (one["flank"], one["rear"], one["battle_standard"]) == (flank, rear, 0)
    assert one["total"] == 7 + flank + rear
    disrupted = bool(flank or rear)
    assert two["rank_bonus"] == (0 if disrupted else 2)
    assert two["total"] == (1 if disrupted else 3)
    assert (two["rules"] == [
        {"rule": "Disrupted", "text": "Disrupted: Empire Halberdiers lose the Rank Bonus"}
    ]) is disrupted
    assert combat_result.result(scores) == (1, one["total"] - two["total"])


def test_a_draw_and_nobody_tests() -> None:
    """FACTS: "A draw: nobody tests". A Tomb Swarm charges 10 Halberdiers in one rank of 10
    (no rank bonus) carrying a standard; the Halberdiers pass their Fear test (6 against 7)
    and everyone misses: Swarm 0 + 1 Charge! = 1, Halberdiers 0 + 1 standard = 1."""
    line = {"datasheet": "empire-halberdiers", "models": 10, "files": 10}
    state = position([SWARM], [line], {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)})
    state = with_units(charged(state, "u1", "u2"), u2={"markers": ("standard",)})
    dice = ScriptedDice([3, 3] + [1] * 60, state.dice_position)
    events = core.decide(state, 1, {"type": "fight_combat", "unit": "u1"}, dice)  # type: ignore[arg-type]
    score = next(e.payload for e in events if e.type == "combat_score")
    assert (score["scores"]["1"]["total"], score["scores"]["2"]["total"]) == (1, 1)
    assert score["winner"] is None
    assert not [e for e in events if e.type in ("break_test", "unit_broke", "unit_fled")]


@pytest.mark.parametrize(("start", "parry"), [((36.0, 24.0, 0.0), True),
                                              ((30.0, 33.0, 90.0), False)])
def test_parry_against_attacks_from_the_front_only(
    start: tuple[float, float, float], parry: bool
) -> None:
    """FACTS Parry (hand weapon and shield): a 6+ ward save in close combat, against attacks
    from the front. Night Goblins (hand weapon, shield) charged by a Tomb Swarm in the front
    roll Parry saves against its wounds; charged in the flank they do not. Dice: Fear passed
    (a double 1), the Goblins miss everything (1s: 10 attacks in front, 5 in contact and 5
    supporting; 4 from the flank, no supporting attacks), the Swarm's 15 attacks hit and wound
    (6s)
    and the Goblins' armour (6+) fails (1s): then, from the front only, Parry 6+ saves 5 of
    the 15 wounds; whatever follows rolls 3s."""
    goblins = {"datasheet": "night-goblins", "models": 20, "files": 5}
    state = position([SWARM], [goblins], {"u1": start, "u2": (36.0, 30.0, 180.0)})
    state = charged(state, "u1", "u2")
    goblin_attacks = 10 if parry else 4  # 5 in contact + 5 supporting; from the flank 4
    faces = [1, 1] + [1] * goblin_attacks + [6] * 30 + [1] * 15
    faces += [6] * 5 + [1] * 10 if parry else []
    dice = ScriptedDice(faces + [3] * 40, state.dice_position)
    events = core.decide(state, 1, {"type": "fight_combat", "unit": "u1"}, dice)  # type: ignore[arg-type]
    wards = [e.payload for e in events
             if e.payload.get("step") == "ward_save" and e.payload["target"] == "u2"]
    assert bool(wards) is parry
    if parry:
        assert (wards[0]["needed"], wards[0]["successes"]) == (6, 5)
        assert wards[0]["rules"][0]["rule"] == "Parry"
    lost = next(e.payload for e in events if e.type == "hp_lost" and e.payload["unit"] == "u2")
    assert lost["losses"] == (10 if parry else 15)


def test_challenges_and_overkill_are_not_automated_and_the_rules_list_says_so() -> None:
    """FACTS: overkill counts only in challenges (up to +5). The engine fights no challenges
    (characters strike at the unit), so the whfb8 rules list carries "Challenges" marked not
    automated (no handler names it), and the character's card shows it."""
    rules = {r.name: r for r in load_catalog().rules("whfb8")}
    assert "Challenges" in rules and rules["Challenges"].automated is False
    assert "overkill" in rules["Challenges"].summary.lower()
    assert "not automated" in rules["Challenges"].summary.lower()
    assert mark("whfb8", "Challenges") == "not"
    assert "Challenges" in load_catalog().not_automated("whfb8", "tomb-king")


def test_a_narrow_enemy_fought_face_to_face_gives_no_flank_bonus() -> None:
    """FACTS: +1 flank is for fighting an enemy in its flank. A Tomb Swarm down to its last
    40 mm model (1.57 in wide) fights 19 Halberdiers (3.94 in wide) front to front, the
    Halberdiers' front centre 1 in to the side of the Swarm's, past the corner of the Swarm's
    front: where the Halberdiers' front centre lies is the Swarm's flank arc, but they touch
    its front, so they fight it there (found in a playtest: "+1 flank" from the third round
    of a frontal combat, as the Swarm shrank)."""
    state = position([SWARM], [NINETEEN], {"u1": (36.0, 28.0, 0.0), "u2": (37.0, 28.0, 180.0)})
    state = with_units(state, u1={"models": 1})
    scores = combat_result.combat_score(state, ["u1", "u2"], {1: 0, 2: 1}, chargers=[])
    assert (scores[2]["flank"], scores[2]["rear"]) == (0, 0)
    assert (scores[1]["flank"], scores[1]["rear"]) == (0, 0)
