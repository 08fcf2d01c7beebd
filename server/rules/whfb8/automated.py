"""Warhammer Fantasy Battle 8th edition rules the engine applies, and the handlers that apply
them (issue 17 item 4; server/rules/automation.py). server/data/whfb8/rules.yaml states the same
marks as an expectation the tests compare."""

from __future__ import annotations

from server.rules.automation import handled_by
from server.rules.flee import flee_events
from server.rules.resume import resume
from server.rules.setup import declare_reserve
from server.rules.units import ranked_formation
from server.rules.whfb8 import (
    combat,
    entombed,
    fanatics,
    profiles,
    random_movement,
    skirmish,
    undead,
    vanguard,
)
from server.rules.whfb8.variant import WarhammerRanked

WHFB8 = "whfb8"

handled_by(WHFB8, "Undead", profiles.has, "carries Animated Construct, Fear and Unstable")
handled_by(WHFB8, "Undead", undead.march_refusal,
           "no March unless joined by My Will Be Done or Sworn Bodyguard")
handled_by(WHFB8, "Undead", WarhammerRanked.flee_refusal, "no Flee! reaction")
handled_by(WHFB8, "Unstable", combat.unstable_losses, "extra Wounds instead of breaking")
handled_by(WHFB8, "Unstable", WarhammerRanked.flee_refusal, "no Flee! reaction")
handled_by(
    WHFB8,
    "Animated Construct",
    profiles.armour_save,
    "the 5+ armour save and one Wound less from Unstable (two within 12 in of the Battle "
    "Standard Bearer)",
    lacks="the fewer Wounds when the army's Hierophant dies (no Hierophant in the catalogue)",
)
handled_by(WHFB8, "Fear", combat.fear_tests, "Fear tests of enemies in base contact")
handled_by(WHFB8, "Poisoned Attacks", profiles.poisoned, "the poisoned wound rule")
handled_by(WHFB8, "Armour Piercing", profiles.armour_piercing, "-1 to the armour save")
handled_by(WHFB8, "Hand Weapon", profiles.parries, "Parry with a shield")
handled_by(WHFB8, "Shield", profiles.armour_save, "+1 armour save")
handled_by(WHFB8, "Light Armour", profiles.armour_save, "+1 armour save")
handled_by(WHFB8, "Halberd", profiles.melee_weapon, "+1 Strength")
handled_by(WHFB8, "Great Weapon", profiles.melee_weapon, "+2 Strength, strikes last")
handled_by(WHFB8, "Spear", profiles.melee_weapon, "fights in an extra rank")
handled_by(WHFB8, "Stubborn", combat.WHFB8RankAndFlank.unmodified_leadership,
           "Break Tests on unmodified Leadership")
handled_by(WHFB8, "Unbreakable", profiles.unbreakable_rule, "never breaks")
handled_by(WHFB8, "Always Strikes First", profiles.melee_parts, "strike order")
handled_by(WHFB8, "Always Strikes Last", profiles.melee_parts, "strike order")
handled_by(WHFB8, "Multiple Shots", profiles.multiple_shots, "several shots, -1 to hit")
handled_by(
    WHFB8,
    "Immunity",
    combat.immunity,
    "Immunity (Panic), (Fear) and (Psychology) for Panic and Fear tests (the majority of the "
    "models)",
    lacks="Terror and other Psychology tests (the engine has none yet)",
)
handled_by(WHFB8, "Immunity", WarhammerRanked.flee_refusal,
           "Immunity (Psychology): no Flee! except Feigned Flight or Fire and Flee unless Frenzied")
# Night Goblin Fanatics and Random Movement (seed 003; issue 15).
handled_by(WHFB8, "Concealed Fanatic", fanatics.army_secrets,
           "the owner-only written note with the army")
handled_by(WHFB8, "Concealed Fanatic", fanatics.move_stop,
           "moves and charges stop at 8 in and the Fanatics are released one by one",
           lacks="fliers landing where the release stops them (the page: \"fliers land\"; "
           "Warfield has no flying moves, every unit moves and stops on the ground)")
handled_by(WHFB8, "Concealed Fanatic", fanatics.arrival_release,
           "arrivals and Fanatics ending within 8 in release them")
handled_by(WHFB8, "Concealed Fanatic", fanatics.release_fanatic,
           "the owner picks the start point and the direction")
handled_by(WHFB8, "Concealed Fanatic", fanatics.lost_fanatics,
           "lost when the concealing unit flees or is destroyed (announced when the phase ends)",
           lacks="the stop part-way through a Fanatic's whirl")
handled_by(WHFB8, "Concealed Fanatic", resume,
           "flee and pursuit moves stop at 8 in too (a Panic flee caused by Stand and Shoot as "
           "well) and wait for the owner's releases; the move and what follows it (the charge or "
           "its abandonment, Panic Tests, pursuits, the rest of the combat or of the turn's "
           "start) go on after the last one; the server never aims a Fanatic")
handled_by(WHFB8, "Fanatic Impacts", fanatics.whirl,
           "through units, bounce 1 in beyond, removal on terrain, another Fanatic, the table "
           "edge or a double after the release turn")
handled_by(WHFB8, "Fanatic Impacts", fanatics.whirl_events,
           "D6 S5 Armour Piercing (1) hits on each unit passed through")
handled_by(WHFB8, "Fanatic Impacts", fanatics.move_contacts,
           "a unit moving into a Fanatic (a move, charge, flee or pursuit) takes 2D6 hits and "
           "removes it, then carries on",
           lacks="the same for another unit's Random Movement move (it stops short), a reform "
           "or a pivot (refused)")
handled_by(WHFB8, "Fanatic Impacts", random_movement.charge_target_refusal,
           "Fanatics cannot be charged")
handled_by(WHFB8, "Ball and Chain", fanatics.whirl_events, "the Fanatic's hits")
handled_by(WHFB8, "Random Movement", random_movement.random_movement_charge_refusal,
           "no charge declared")
handled_by(WHFB8, "Random Movement", random_movement.random_movement_march_refusal, "no march")
handled_by(WHFB8, "Random Movement", fanatics.fanatic_move,
           "the Fanatic's move: a random direction, 2D6 straight ahead")
handled_by(WHFB8, "Random Movement", random_movement.random_move_events,
           "other units: pivot about the centre, one roll (the slowest), straight ahead, an "
           "enemy reached in the front arc charged without reaction, stop within 1 in of "
           "friends or impassable terrain",
           lacks="Dangerous Terrain: not automated (Warfield has no Dangerous Terrain test; a "
           "random move that crosses dangerous terrain says so); other units' random moves are "
           "not forced at the end of the phase")
handled_by(WHFB8, "Skirmishers", ranked_formation, "half-inch gaps")
handled_by(WHFB8, "Skirmishers", flee_events, "Feigned Flight: rallies after fleeing from a charge")
handled_by(WHFB8, "Skirmishers", combat.light_troops, "Light Troops: zero ranks, -1 to hit shots")
handled_by(WHFB8, "Skirmishers", skirmish.skirmish_move, "each model moves up to M, reforms free")
handled_by(WHFB8, "Skirmishers", skirmish.close_up_and_spread_out,
           "closing up in base contact and spreading out again")
handled_by(WHFB8, "Vanguard", vanguard.vanguard_move, "the 12 in move before the first turn")
handled_by(WHFB8, "Vanguard", vanguard.vanguard_charge_refusal, "no charge in turn 1 going first")
for _rule in ("Ambushers", "Entombed Beneath the Sands"):
    handled_by(WHFB8, _rule, declare_reserve, "the unit stays off the table at deployment")
    handled_by(WHFB8, _rule, entombed.roll_for_ambushers, "the arrival rolls from turn 2")
    handled_by(WHFB8, _rule, entombed.never_arrived_counts_as_fled, "never arrived: fled")
handled_by(WHFB8, "Entombed Beneath the Sands", entombed.place_entombed_marker,
           "the marker, scatter and artillery dice, the Mishap table")
handled_by(WHFB8, "Entombed Beneath the Sands", entombed.emerge, "the unit emerges at the marker")
handled_by(WHFB8, "Ambushers", entombed.arrivals_must_happen, "arrivals in the Movement phase")
handled_by(
    WHFB8,
    "My Will Be Done",
    undead.march_refusal,
    "the joined Undead unit may march",
    lacks="using the character's Weapon Skill",
)
handled_by(
    WHFB8,
    "Sworn Bodyguard",
    undead.march_refusal,
    "the joined Undead unit may march",
    lacks="the rule's other effects in the army books (no model in the catalogue has it)",
)
