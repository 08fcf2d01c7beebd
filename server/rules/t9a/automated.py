"""The 9th Age rules the engine applies, and the handlers that apply them (issue 17 item 4;
server/rules/automation.py). The unit card's "automated / partly / not" marks come from here;
server/data/t9a/rules.yaml states the same marks as an expectation the tests compare."""

from __future__ import annotations

from server.data.t9a import NinthAgeData
from server.rules.automation import handled_by
from server.rules.moves import check_unit_move
from server.rules.setup import declare_reserve
from server.rules.systems import swiftstride_roll
from server.rules.t9a import ambush, attacks, combat, profiles
from server.rules.t9a.variant import NinthAge, NinthAgeRanked
from server.rules.units import ranked_formation

T9A = "t9a"

handled_by(T9A, "Ambush", declare_reserve, "a unit entirely with Ambush stays off the table")
handled_by(T9A, "Ambush", ambush.roll_for_ambushers, "the arrival rolls (3+, Turns 5-6 automatic)")
handled_by(
    T9A,
    "Ambush",
    ambush.arrive_from_ambush,
    "arrival at a Battlefield Edge point (3 of 4 corners within 6 in, nothing in between); a "
    "Game Turn 6 arrival loses Scoring",
    lacks="Ambush values other than Battlefield Edge",
)
handled_by(T9A, "Ambush", ambush.ambushers_left_are_casualties, "units never arrived are lost")
handled_by(T9A, "Supernal", combat.T9ARankAndFlank.losses_instead_of_fleeing,
           "Health Point losses instead of a failed Break Test")
handled_by(T9A, "Supernal", NinthAgeData.join_problems, "Supernal characters and units join only "
           "each other")
handled_by(T9A, "Fearless", combat.T9ARankAndFlank.panic_immunity,
           "Panic Tests are passed automatically")
handled_by(
    T9A,
    "Fearless",
    NinthAgeRanked.flee_refusal,
    "Flee! is refused as a Charge Reaction unless Shaken or the entire unit has Feigned Flight",
    lacks="ignoring Horror (no Horror in the engine)",
)
handled_by(T9A, "Skirmisher", ranked_formation, "12.5 mm gaps; contracting when the last goes")
handled_by(T9A, "Skirmisher", NinthAgeData.join_problems, "only characters of its Height join")
handled_by(T9A, "Light Troops", check_unit_move,
           "a unit entirely with it reforms up to twice its Mobility, the centre too; beyond its "
           "Mobility the Reform counts as a March")
handled_by(T9A, "Light Troops", combat.T9ARankAndFlank.rank_width, "zero Proper Ranks")
handled_by(T9A, "Swiftstride", swiftstride_roll,
           "charge, flee and pursuit rolls of a unit entirely with it are Maximised")
handled_by(T9A, "Swiftstride", NinthAge.unit_charge_roll, "the charge roll")
handled_by(T9A, "Spell-Eater Ambush", ambush.ambush_roll_expression,
           "one Maximised instance per spell the opponent cast")
handled_by(T9A, "Hard Target", attacks.to_hit_needed, "-X to hit for shots")
handled_by(T9A, "Distracting", attacks.to_hit_needed, "-1 to hit in melee, not beyond 5+")
handled_by(T9A, "Poison Attacks", attacks.T9AAttackSteps.auto_wounds, "6s (5-6) to hit wound")
handled_by(T9A, "Magical Attacks", attacks.best_aegis, "read by Aegis against Magical Attacks")
handled_by(T9A, "Extra Support", profiles.support_limit, "the Supporting Attacks limit")
handled_by(T9A, "Hand Weapon", profiles.melee_weapon, "the default weapon")
handled_by(T9A, "Spear", profiles.melee_weapon, "+1 AP and an extra rank on foot")
handled_by(T9A, "Lance", profiles.melee_weapon, "+2 S and +2 AP charging on horse")
handled_by(T9A, "Shield", profiles.armour_of, "+1 Armour")
handled_by(T9A, "Shield", profiles.has_parry, "Parry with a Hand Weapon")
handled_by(T9A, "Light Armour", profiles.armour_of, "+1 Armour")
handled_by(T9A, "Heavy Armour", profiles.armour_of, "+2 Armour")
handled_by(T9A, "Longbow", combat.T9ARankAndFlank.shooting_weapons, "shot with its profile")
handled_by(T9A, "Fight in Extra Rank", profiles.supporting_ranks, "one more supporting rank")
handled_by(T9A, "Aegis", attacks.best_aegis, "the best Aegis save that applies")
