"""Warhammer 40,000 10th edition rules the engine applies, and the handlers that apply them
(issue 17 item 4; server/rules/automation.py). server/data/wh40k10/rules.yaml states the same
marks as an expectation the tests compare (tests/rules/test_automation_marks.py)."""

from __future__ import annotations

from server.rules.automation import handled_by
from server.rules.wh40k10 import (
    army,
    attacks,
    command,
    damage,
    damage_events,
    profiles,
    reserves,
)

WH40K10 = "wh40k10"

handled_by(WH40K10, "Deadly Demise", damage.deadly_demise,
           "a D6 when the model is destroyed; on a 6 mortal wounds to each unit within 6 in")
handled_by(WH40K10, "Deadly Demise", damage_events.demise_events, "applied to those units")
handled_by(WH40K10, "Feel No Pain", damage.lose_wounds,
           "one roll per wound that would be lost, mortal wounds included")
handled_by(WH40K10, "Waaagh!", command.call_waaagh,
           "called once per battle at the start of the Command phase, before any other action "
           "of it")
handled_by(WH40K10, "Waaagh!", profiles.waaagh_weapon, "+1 Strength and Attacks in melee")
handled_by(WH40K10, "Waaagh!", profiles.waaagh_model, "a 5+ invulnerable save")
handled_by(WH40K10, "Waaagh!", army.waaagh_active, "charging after Advancing")
handled_by(WH40K10, "Leader", army.after_resolution,
           "the Attached unit: Bodyguard Toughness, no allocation to the Leader, the split")
handled_by(WH40K10, "Leader", attacks.toughness_of, "the Bodyguard's Toughness")
handled_by(WH40K10, "HAZARDOUS", damage.hazardous_tests,
           "a test per Hazardous weapon after the unit's attacks, 3 mortal wounds on a 1")
handled_by(WH40K10, "PSYCHIC", profiles.Weapon,
           "read as the weapon's keyword; the attack sequence treats it as any other attack")
handled_by(WH40K10, "PISTOL", profiles.shooting_restriction, "shooting in Engagement Range")
handled_by(WH40K10, "ASSAULT", profiles.shooting_restriction, "shooting after Advancing")
handled_by(WH40K10, "HEAVY", attacks.hit_modifier, "+1 to hit after Remaining Stationary")
handled_by(WH40K10, "Unstable Oracle", profiles.unstable_oracle,
           "Eyez of Mork's extra Attacks and Hazardous while leading 10 or more models")
handled_by(WH40K10, "Roar of Mork", command.roar,
           "the Psychic test in the opponent's Command phase, its -2 or its mortal wounds")
handled_by(WH40K10, "Deep Strike", reserves.arrive_from_reserves,
           "set up in Reserves; arrives from battle round 2 more than 9 in from every enemy")
