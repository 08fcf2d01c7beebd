"""Issue 16: the 40k game wired to the pure attack sequence: the Command phase (CP, Battle-shock),
the Waaagh!, charges after Advancing, shooting and fighting with every die in the events,
Attached units, Unstable Oracle and Hazardous, Deadly Demise, Feel No Pain, Roar of Mork,
objectives, VP and the result. Sources: FACTS.md (wh40k10, "the core loop" and the objective
Decision), the Wurrboy page (../shared/seeds/004_dd61c1ce318a3420.txt)."""

from __future__ import annotations

import dataclasses

import pytest

from server.data import load_catalog
from server.rules.core import RuleError
from server.rules.units import units_of, with_unit
from server.rules.wh40k10.command import control
from tests.rules.test_battle import act, refused
from tests.rules.wh40k10.game import (
    BASE_IN,
    INTERCESSORS,
    LED_BOYZ,
    block,
    charging,
    deployed,
    place,
    row,
    scripted,
    steps,
    texts,
    to_phase,
    with_forty,
)
from tests.rules.wh40k10.units import ALONE  # noqa: F401  (the pure tests' fixtures)

BOYZ_FRONT = 33.0 - BASE_IN - 0.2
"""The y of a Boyz row in Engagement Range of Intercessors standing at y 33."""


def engaged(state):  # type: ignore[no-untyped-def]
    """The Boyz (10 and the Wurrboy, two rows, the second in base contact with the first) in
    Engagement Range of the Intercessors."""
    state = place(state, "u1", block(11, BOYZ_FRONT, x0=24.0, dy=-(BASE_IN + 0.005)))
    return place(state, "u2", row(5, 33.0, x0=24.0))


# --- 1. the Command phase ------------------------------------------------------------------


def test_both_players_gain_one_cp_at_the_start_of_each_command_phase() -> None:
    """FACTS.md, Command phase: at its start both players gain 1 CP (CP in the projection)."""
    state = deployed()
    assert state.to_json()["forty"]["cp"] == {"1": 1, "2": 1}
    state = to_phase(state, 2, "Command")
    assert state.to_json()["forty"]["cp"] == {"1": 2, "2": 2}
    state = to_phase(state, 1, "Command", turn=2)
    assert state.to_json()["forty"]["cp"] == {"1": 3, "2": 3}


def _below_half_intercessors(state):  # type: ignore[no-untyped-def]
    unit = units_of(state)["u2"]
    unit = dataclasses.replace(unit, models=2, positions=unit.positions[:2])
    return with_unit(state, unit)


def test_a_unit_below_half_strength_takes_a_battle_shock_test_and_fails_to_oc_0() -> None:
    """FACTS.md, Command phase: a unit Below Half-strength takes a Battle-shock test, 2D6 >= its
    best Ld; a Battle-shocked unit has OC 0 until its next Command phase."""
    state = to_phase(deployed(), 2, "Command")
    state = _below_half_intercessors(state)  # 2 of its Starting Strength 5
    state = place(state, "u2", [(30.0, 22.0), (30.0 + BASE_IN + 0.1, 22.0)])  # the centre marker
    before = {m["id"]: m["controller"] for m in control(state)}
    assert before["obj1"] == 2
    state, events, _ = scripted(state, 2, [2, 3], type="end_phase")
    test = next(e for e in events if e.type == "battle_shock_test")
    assert test.payload["needed"] == 6 and test.payload["passed"] is False  # 5 < Ld 6+
    view = state.to_json()["forty"]
    assert view["battle_shocked"] == ["u2"]
    assert {m["id"]: m["controller"] for m in view["objectives"]}["obj1"] is None  # OC 0
    # ... until its next Command phase
    state = to_phase(state, 2, "Command", turn=2)
    assert state.to_json()["forty"]["battle_shocked"] == []


def test_a_passed_battle_shock_test_and_a_unit_at_half_strength() -> None:
    """FACTS.md: 2D6 >= Ld passes; a unit at half strength or more takes no test."""
    state = to_phase(deployed(), 2, "Command")
    state = _below_half_intercessors(state)
    _, events, _ = scripted(state, 2, [3, 3], type="end_phase")
    assert next(e for e in events if e.type == "battle_shock_test").payload["passed"] is True
    _, events = act(to_phase(deployed(), 2, "Command"), 2, type="end_phase")
    assert not [e for e in events if e.type == "battle_shock_test"]


# --- 2 and 4. Advance, charge, the Waaagh! ------------------------------------------------------


def _ready_to_charge(waaagh: bool):  # type: ignore[no-untyped-def]
    state = deployed()
    if waaagh:
        state, _ = act(state, 1, type="call_waaagh")
    state = to_phase(state, 1, "Movement")
    state = place(state, "u1", block(11, 24.0, x0=24.0))
    state = place(state, "u2", row(5, 33.0, x0=24.0))
    state, _, _ = scripted(state, 1, [1], type="advance", unit="u1")
    ahead = [(x, y + 1.0) for x, y in units_of(state)["u1"].positions]
    state, _ = act(state, 1, type="move_models", unit="u1", positions=ahead, advance=True)
    return to_phase(state, 1, "Charge")


def test_a_unit_that_advanced_may_not_charge() -> None:
    """FACTS.md, Movement: after an Advance, no charge."""
    err = refused(_ready_to_charge(False), 1, type="declare_charge", unit="u1", target="u2")
    assert err.code == "illegal_move" and err.details["rule"] == "Advance"


def test_the_waaagh_lets_a_unit_charge_after_advancing_and_chargers_fight_first() -> None:
    """Seed 004, Waaagh!: units with the ability may declare a charge in a turn in which they
    Advanced. FACTS.md, Charge phase: chargers gain Fights First that turn."""
    state = _ready_to_charge(True)
    state, events, _ = charging(state, 1, [4, 4], type="declare_charge", unit="u1", target="u2")
    assert events[0].type == "charge_succeeded"
    state = to_phase(state, 1, "Fight")
    fight = state.to_json()["forty"]
    assert fight["fights_first"] == ["u1"]
    assert fight["fight_next"] == {"seat": 1, "units": ["u1"]}
    err = refused(state, 2, type="fight", unit="u2", target="u1")
    assert err.details["rule"] == "Fights First"


def test_the_waaagh_is_called_once_per_battle_and_lasts_until_the_next_command_phase() -> None:
    """Seed 004: once per battle, at the start of your Command phase; until the start of your
    next Command phase."""
    state = deployed()
    state, events = act(state, 1, type="call_waaagh")
    assert state.to_json()["forty"]["waaagh"] == {"used": [1], "active": [1]}
    assert refused(state, 1, type="call_waaagh").details["rule"] == "Waaagh!"
    assert refused(state, 2, type="call_waaagh").code == "out_of_phase"
    state = to_phase(state, 2, "Command")
    assert state.to_json()["forty"]["waaagh"]["active"] == [1]  # the opponent's turn: still on
    state = to_phase(state, 1, "Command", turn=2)
    assert state.to_json()["forty"]["waaagh"] == {"used": [1], "active": []}
    assert refused(state, 1, type="call_waaagh").details["rule"] == "Waaagh!"
    movement = to_phase(deployed(), 1, "Movement")
    assert refused(movement, 1, type="call_waaagh").code == "out_of_phase"
    marines = deployed([INTERCESSORS], [INTERCESSORS])
    assert "no unit" in refused(marines, 1, type="call_waaagh").message


def test_the_waaagh_adds_one_strength_and_attack_to_melee_weapons_and_a_5_up_invulnerable() -> None:
    """Seed 004, Waaagh!: +1 Strength and Attacks on melee weapons; a 5+ invulnerable save."""
    state = deployed()
    state, _ = act(state, 1, type="call_waaagh")
    state = engaged(to_phase(state, 1, "Fight"))
    state, _, _ = scripted(state, 2, [1] * 15, type="fight", unit="u2", target="u1")
    state, events, _ = scripted(state, 1, [1] * 60, type="fight", unit="u1", target="u2")
    words = texts(events)
    assert any(t.startswith("Choppa: ") and "A 4 x" in t for t in words)  # A 3 + 1
    assert any(t.startswith("Close combat weapon: ") and "A 4 x 1" in t for t in words)
    # the Intercessors' attacks: the Boyz save with Sv 5+ or the 5+ invulnerable
    state = to_phase(state, 2, "Shooting")
    state, events, _ = scripted(state, 2, [6] * 5 + [6] * 5 + [1] * 5, type="shoot_weapons",
                                unit="u2", weapons=[{"weapon": "Bolt pistol", "target": "u1"}])
    saves = [s["text"] for s in steps(events) if s["step"] == "save"]
    assert saves and all("invulnerable 5+" in t for t in saves)


def test_the_waaagh_strength_bonus_shows_in_the_wound_roll() -> None:
    """Seed 004: +1 Strength on melee weapons: the Choppa S 4 + 1 = 5 against T 4 wounds on 3+
    (FACTS.md: S > T 3+); without the Waaagh! S 4 = T 4 needs 4+."""
    for waaagh, needed in ((True, "S 5 vs T 4"), (False, "S 4 vs T 4")):
        state = deployed()
        if waaagh:
            state, _ = act(state, 1, type="call_waaagh")
        state = engaged(to_phase(state, 1, "Fight"))
        state, _, _ = scripted(state, 2, [1] * 15, type="fight", unit="u2", target="u1")
        state, events, _ = scripted(state, 1, [6] * 40 + [1] * 60, type="fight", unit="u1",
                                    target="u2")
        assert any(needed in t for t in texts(events)), texts(events)


# --- 3. shooting ------------------------------------------------------------------------------


def test_intercessors_shoot_the_attached_unit_on_bodyguard_toughness_never_the_wurrboy() -> None:
    """Seed 004, Attached units: the Bodyguard's Toughness while the attacking unit resolves its
    attacks; no allocation to a Character model while a Bodyguard model lives. FACTS.md: Heavy
    +1 to hit after Remaining Stationary."""
    state = to_phase(deployed(), 2, "Shooting")
    faces = [6] * 10 + [6] * 10 + [1] * 10  # 10 hits, 10 wounds, 10 failed saves
    state, events, dice = scripted(state, 2, faces, type="shoot_weapons", unit="u2",
                                   weapons=[{"weapon": "Bolt rifle", "target": "u1"}])
    words = texts(events)
    assert words[0] == "Beast Snagga Boyz + Wurrboy: Attached unit, wounded on the Bodyguard's T 5"
    assert any("Heavy +1" in t for t in words)
    allocated = [s for s in steps(events) if s["step"] == "allocate"]
    assert len(allocated) == 10 and all("Wurrboy" not in s["text"] for s in allocated)
    after = state.to_json()
    models = after["forty"]["models"]["u1"]
    assert len(models) == 6 and models[-1] == {
        "id": "u1.5", "name": "Wurrboy", "wounds": 4, "lost": 0, "character": True
    }
    assert after["units"]["u1"]["models"] == 5 and len(after["units"]["u1"]["positions"]) == 6
    event = events[0]
    assert event.payload["rolls"][-1]["end"] == state.dice_position == dice.position
    assert refused(state, 2, type="shoot_weapons", unit="u2",
                   weapons=[{"weapon": "Bolt rifle", "target": "u1"}]).message.endswith(
        "has already shot this phase")


def test_the_wurrboy_leading_ten_boyz_fires_eyez_of_mork_and_takes_its_hazardous_test() -> None:
    """FACTS.md, Unstable Oracle: +2 Attacks per 5 models of the led unit, [HAZARDOUS] while it
    has 10 or more. Seed 004, Hazardous: after the unit resolved its attacks, a D6 per
    Hazardous weapon; a 1 puts 3 mortal wounds on the model with it (Feel No Pain 6+ each)."""
    state = to_phase(deployed(), 1, "Shooting")
    state = place(state, "u1", block(10, 20.0, x0=24.0) + [(30.0, 21.6)])
    # A: D6 (2) + 4 = 6; six misses; the Hazardous test 1; FNP 6+ on 3 wounds: 6, 1, 1.
    state, events, dice = scripted(state, 1, [2] + [1] * 6 + [1] + [6, 1, 1], type="shoot_weapons",
                                   unit="u1", weapons=[{"weapon": "Eyez of Mork", "target": "u2"}])
    words = texts(events)
    assert "Eyez of Mork: 6 attacks (A D6+4 x 1 = 6)" in words
    hazard = [e for e in events if e.payload.get("kind") == "hazardous"]
    assert len(hazard) == 1 and hazard[0].payload["tests"] == 1 and hazard[0].payload["failed"] == 1
    assert "Failed Hazardous test: Wurrboy is selected" in texts(hazard)
    assert "Wurrboy: Feel No Pain 6+ against 3 wounds: 1 ignored" in texts(hazard)
    assert state.to_json()["forty"]["models"]["u1"][-1]["lost"] == 2
    assert dice.used == 11


def test_eyez_of_mork_with_fewer_than_ten_boyz_is_not_hazardous() -> None:
    """FACTS.md, Unstable Oracle: with 5-9 models, +2 Attacks and no [HAZARDOUS]."""
    state = to_phase(deployed(), 1, "Shooting")
    unit = units_of(state)["u1"]
    state = with_unit(state, dataclasses.replace(unit, models=5))
    state = place(state, "u1", block(5, 20.0, x0=24.0) + [(30.0, 21.6)])
    state, events, _ = scripted(state, 1, [2] + [1] * 4, type="shoot_weapons", unit="u1",
                                weapons=[{"weapon": "Eyez of Mork", "target": "u2"}])
    assert "Eyez of Mork: 4 attacks (A D6+2 x 1 = 4)" in texts(events)
    assert not [e for e in events if e.payload.get("kind") == "hazardous"]


def test_shooting_is_refused_out_of_range_after_advancing_and_at_friends() -> None:
    """FACTS.md, Shooting: a target must be within range; after an Advance only Assault weapons
    shoot; a unit shoots at enemies."""
    state = to_phase(deployed(), 1, "Shooting")
    out = refused(state, 1, type="shoot_weapons", unit="u1",
                  weapons=[{"weapon": "Eyez of Mork", "target": "u2"}])
    assert out.details["rule"] == "Shooting: Range"
    own = refused(state, 1, type="shoot_weapons", unit="u1",
                  weapons=[{"weapon": "Eyez of Mork", "target": "u1"}])
    assert "enemy" in own.message
    melee = refused(state, 1, type="shoot_weapons", unit="u1",
                    weapons=[{"weapon": "Choppa", "target": "u2"}])
    assert "melee" in melee.message
    state = to_phase(deployed(), 1, "Movement")
    state, _, _ = scripted(state, 1, [3], type="advance", unit="u1")
    state = to_phase(place(state, "u1", block(10, 20.0, x0=24.0) + [(30.0, 21.6)]), 1,
                     "Shooting")
    err = refused(state, 1, type="shoot_weapons", unit="u1",
                  weapons=[{"weapon": "Eyez of Mork", "target": "u2"}])
    assert "not an Assault weapon" in err.message
    # the Intercessors' bolt rifles are Assault: they shoot after Advancing
    state = to_phase(deployed(), 2, "Movement")
    state, _, _ = scripted(state, 2, [3], type="advance", unit="u2")
    state = to_phase(state, 2, "Shooting")
    state, events, _ = scripted(state, 2, [1] * 10, type="shoot_weapons", unit="u2",
                                weapons=[{"weapon": "Bolt rifle", "target": "u1"}])
    assert not any("Heavy" in t for t in texts(events))  # it moved: no Heavy bonus


def test_pistols_shoot_in_engagement_range_and_other_guns_do_not() -> None:
    """FACTS.md, Shooting: units in Engagement Range shoot only with Pistols."""
    state = engaged(to_phase(deployed(), 2, "Shooting"))
    err = refused(state, 2, type="shoot_weapons", unit="u2",
                  weapons=[{"weapon": "Bolt rifle", "target": "u1"}])
    assert "not a Pistol" in err.message
    state, events, _ = scripted(state, 2, [1] * 5, type="shoot_weapons", unit="u2",
                                weapons=[{"weapon": "Bolt pistol", "target": "u1"}])
    assert events[0].payload["kind"] == "shooting"


# --- the Fight phase ----------------------------------------------------------------------------


def test_in_the_fight_phase_the_player_whose_turn_it_is_not_chooses_first() -> None:
    """FACTS.md, Fight phase: without Fights First, players alternate choosing a unit, starting
    with the player whose turn it is not."""
    state = engaged(to_phase(deployed(), 1, "Fight"))
    assert state.to_json()["forty"]["fight_next"] == {"seat": 2, "units": ["u1", "u2"]}
    err = refused(state, 1, type="fight", unit="u1", target="u2")
    assert err.code == "out_of_phase" and err.details["waiting_for"] == 2
    state, events, _ = scripted(state, 2, [1] * 15, type="fight", unit="u2", target="u1")
    assert events[0].type == "fight_started" and events[1].payload["kind"] == "fight"
    assert state.to_json()["forty"]["fight_next"] == {"seat": 1, "units": ["u1"]}
    state, _, _ = scripted(state, 1, [1] * 60, type="fight", unit="u1", target="u2")
    assert state.to_json()["forty"]["fight_next"] == {"seat": None, "units": []}
    err = refused(state, 1, type="fight", unit="u1", target="u2")
    assert "already fought" in err.message


def test_pile_in_is_at_most_three_inches() -> None:
    """FACTS.md, Fight phase: a fighting unit piles in up to 3 in."""
    state = engaged(to_phase(deployed(), 1, "Fight"))
    state, _, _ = scripted(state, 2, [1] * 15, type="fight", unit="u2", target="u1")
    far = [(x, y - 3.5) for x, y in units_of(state)["u1"].positions]
    err = refused(state, 1, type="fight", unit="u1", target="u2", pile_in=far)
    assert err.details["rule"] == "Move Distance"


# --- 4. Deadly Demise and Feel No Pain ---------------------------------------------------------


def test_a_destroyed_wurrboy_rolls_deadly_demise_on_every_unit_within_6_in() -> None:
    """Seed 004, Deadly Demise D3: a D6 when destroyed; on a 6 each unit within 6 in suffers D3
    mortal wounds, rolled per unit. Feel No Pain 6+ is rolled for the wound it would lose."""
    state = deployed([{"datasheet": "wurrboy", "models": 1}, {"datasheet": "boyz", "models": 10}])
    state = to_phase(state, 2, "Shooting")
    state = place(state, "u1", [(30.0, 20.0)])
    state = place(state, "u2", block(10, 15.0, x0=24.0, dy=-1.4))
    state = place(state, "u3", row(5, 25.5, x0=26.0))
    state = with_forty(state, wounds={"u1": [3]})  # the Wurrboy has 1 wound left
    # 10 hit dice (one 6), the wound 6, the save 1, FNP 1, Deadly Demise 6, then a D3 per unit
    # within 6 in (the Boyz and the Intercessors themselves): raw 6 -> 3, raw 6 -> 3.
    faces = [6] + [1] * 9 + [6, 1, 1, 6, 6, 6]
    state, events, dice = scripted(state, 2, faces, type="shoot_weapons", unit="u3",
                                   weapons=[{"weapon": "Bolt rifle", "target": "u1"}])
    words = texts(events)
    assert "Wurrboy: Feel No Pain 6+ against 1 wound: 0 ignored" in words
    assert "Wurrboy: Deadly Demise D3: rolled 6" in words
    demise = [e for e in events if e.payload["kind"] == "deadly_demise"]
    assert sorted(e.payload["target"] for e in demise) == ["u2", "u3"]
    assert all(e.payload["mortal_wounds"] == 3 for e in demise)
    assert units_of(state)["u1"].status == "destroyed"
    assert units_of(state)["u2"].models == 7  # Boyz W 1: three destroyed
    assert dice.used == len(faces)


def test_deadly_demise_on_a_roll_below_6_does_nothing() -> None:
    """Seed 004: only a 6 inflicts the mortal wounds."""
    state = deployed([{"datasheet": "wurrboy", "models": 1}, {"datasheet": "boyz", "models": 10}])
    state = to_phase(state, 2, "Shooting")
    state = place(state, "u1", [(30.0, 20.0)])
    state = place(state, "u2", block(10, 15.0, x0=24.0))
    state = place(state, "u3", row(5, 25.5, x0=26.0))
    state = with_forty(state, wounds={"u1": [3]})
    state, events, _ = scripted(state, 2, [6] + [1] * 9 + [6, 1, 1, 5], type="shoot_weapons",
                                unit="u3", weapons=[{"weapon": "Bolt rifle", "target": "u1"}])
    assert "Wurrboy: Deadly Demise D3: rolled 5, nothing happens" in texts(events)
    assert [e.payload["kind"] for e in events] == ["shooting"]
    assert units_of(state)["u2"].models == 10


def test_the_bodyguard_destroyed_leaves_the_wurrboy_a_unit_of_its_own() -> None:
    """Seed 004: when the last Bodyguard model is destroyed the Character becomes a separate
    unit with its original Starting Strength, after the attacking unit resolved its attacks."""
    state = to_phase(deployed(), 2, "Shooting")
    unit = units_of(state)["u1"]
    state = with_unit(state, dataclasses.replace(unit, models=1))
    state = place(state, "u1", [(30.0, 20.0), (30.0 + BASE_IN + 0.1, 20.0)])
    state = place(state, "u2", row(5, 30.0, x0=26.0))
    faces = [6] * 3 + [1] * 7 + [6, 6, 6] + [1, 1, 1] + [1]  # 3 hits, 3 wounds, 3 failed saves
    state, events, _ = scripted(state, 2, faces, type="shoot_weapons", unit="u2",
                                weapons=[{"weapon": "Bolt rifle", "target": "u1"}])
    shot = events[0].payload
    assert shot["split"] == "leader" and shot["starting_strength"] == 1
    after = units_of(state)["u1"]
    assert after.name == "Wurrboy" and after.datasheet == "wurrboy" and after.characters == ()
    # the Boy (W 2) took the first two wounds; the third, once no Bodyguard lived, was the
    # Wurrboy's (seed 004: then attacks may be allocated to Characters)
    assert state.to_json()["forty"]["models"]["u1"][0]["lost"] == 1


# --- Roar of Mork ------------------------------------------------------------------------------


def test_roar_of_mork_in_the_opponents_command_phase_worsens_their_battle_shock_test() -> None:
    """FACTS.md, Roar of Mork: in the opponent's Command phase, a visible enemy unit within
    18 in; on 2+ it subtracts 2 from Battle-shock tests until the opponent's next Command
    phase."""
    state = deployed()
    assert refused(state, 1, type="roar_of_mork", unit="u1", target="u2").code == "out_of_phase"
    state = to_phase(state, 2, "Command")
    far = refused(state, 1, type="roar_of_mork", unit="u1", target="u2")
    assert "within 18" in far.message
    assert far.message.endswith("of the Wurrboy"), far.message  # the model, by its own name
    state = place(state, "u2", row(5, 25.0, x0=26.0))
    state = _below_half_intercessors(state)
    state, events, _ = scripted(state, 1, [4], type="roar_of_mork", unit="u1", target="u2")
    assert events[-1].type == "roar_of_mork_used" and events[-1].payload["succeeded"]
    assert state.to_json()["forty"]["roared"] == ["u2"]
    assert "once per phase" in refused(state, 1, type="roar_of_mork", unit="u1",
                                       target="u2").message
    _, events, _ = scripted(state, 2, [3, 4], type="end_phase")
    test = next(e for e in events if e.type == "battle_shock_test")
    assert test.payload["needed"] == 8 and not test.payload["passed"]  # Ld 6+, -2: 7 fails


def test_roar_of_mork_on_a_1_puts_d3_mortal_wounds_on_the_bodyguard_first() -> None:
    """FACTS.md, Roar of Mork: on a 1 the Wurrboy's unit suffers D3 mortal wounds; in an
    Attached unit they go to Bodyguard models first (docs/wh40k10-attacks.md)."""
    state = to_phase(deployed(), 2, "Command")
    state = place(state, "u2", row(5, 25.0, x0=26.0))
    state, events, _ = scripted(state, 1, [1, 6], type="roar_of_mork", unit="u1", target="u2")
    roar = events[0].payload
    assert roar["kind"] == "roar_of_mork" and roar["mortal_wounds"] == 3
    models = state.to_json()["forty"]["models"]["u1"]
    assert models[-1]["name"] == "Wurrboy" and models[-1]["lost"] == 0
    assert sum(m["lost"] for m in models) + 2 * (11 - len(models)) == 3


# --- 5. objectives, VP and the result ----------------------------------------------------------


def test_five_markers_controlled_by_the_greater_oc_within_3_in() -> None:
    """FACTS.md Decision: five markers (the centre, one in each quarter 12 in from the short
    edges); control by the greater total OC within 3 in."""
    state = deployed()
    spots = [(m["x"], m["y"]) for m in control(state)]
    assert spots == [(30, 22), (12, 11), (48, 11), (12, 33), (48, 33)]
    state = place(state, "u1", block(11, 22.0, x0=27.0, per_row=4))
    state = place(state, "u2", row(5, 25.5, x0=27.5))
    centre = control(state)[0]
    assert centre["oc"]["2"] > 0 and centre["oc"]["1"] > centre["oc"]["2"]
    assert centre["controller"] == 1


def test_vp_from_round_2_at_the_end_of_the_command_phase_and_round_5_at_the_end_of_the_turn(
) -> None:
    """FACTS.md Decision: from battle round 2, at the end of each player's Command phase, 5 VP
    per marker controlled (at most 15); in round 5 the second player scores at the end of their
    turn instead."""
    state = deployed()
    state = place(state, "u1", [(30.0, 22.0)] + [(12.0 + i * 0.01, 11.0) for i in range(0)]
                  + block(10, 11.0, x0=10.5, per_row=3))
    state = to_phase(state, 1, "Movement")
    assert not [e for e in act(state, 1, type="end_phase")[1] if e.type == "objectives_scored"]
    state = to_phase(state, 1, "Command", turn=2)
    state, events = act(state, 1, type="end_phase")
    scored = next(e for e in events if e.type == "objectives_scored")
    assert scored.payload["markers"] == ["obj1", "obj2"] and scored.payload["vp"] == 10
    assert state.to_json()["forty"]["vp"] == {"1": 10, "2": 0}
    state = to_phase(state, 2, "Command", turn=5)
    state = place(state, "u2", row(5, 22.0, x0=40.0))
    state, events = act(state, 2, type="end_phase")
    assert not [e for e in events if e.type == "objectives_scored"]
    state = to_phase(state, 2, "Fight", turn=5)
    state, events = act(state, 2, type="end_phase")
    last = next(e for e in events if e.type == "objectives_scored")
    assert last.payload["seat"] == 2 and last.payload["when"] == "end of the last turn"
    assert events[-1].type == "game_ended"


def test_at_most_15_vp_a_turn() -> None:
    """FACTS.md Decision: at most 15 VP a turn."""
    state = to_phase(deployed(), 1, "Command", turn=2)
    four = [(30.0, 22.0), (12.0, 11.0), (48.0, 11.0), (12.0, 33.0)]
    unit = units_of(state)["u1"]
    state = with_unit(state, dataclasses.replace(unit, models=3, positions=tuple(four)))
    state = place(state, "u2", row(5, 40.0, x0=24.0))
    state = with_forty(state, start={"u1": 4, "u2": 5})  # no Battle-shock test to take
    _, events = act(state, 1, type="end_phase")
    scored = next(e for e in events if e.type == "objectives_scored")
    assert len(scored.payload["markers"]) == 4 and scored.payload["vp"] == 15


def test_the_player_with_more_vp_wins_at_the_end() -> None:
    """FACTS.md Decision: most VP wins (the game-end hook declares it)."""
    away = place(to_phase(deployed(), 2, "Fight", turn=5), "u2", row(5, 40.0, x0=24.0))
    state = with_forty(away, vp={"1": 20, "2": 5})
    state, events = act(state, 2, type="end_phase")
    assert events[-2].type == "game_result" and events[-1].type == "game_ended"
    assert events[-1].payload == {"reason": "last turn played", "winner": 1}
    assert state.to_json()["winner"] == 1 and state.over
    draw = with_forty(away, vp={"1": 5, "2": 5})
    _, events = act(draw, 2, type="end_phase")
    assert events[-1].payload["winner"] is None


def test_concede_ends_the_game_with_the_opponent_the_winner() -> None:
    """Issue 16 item 5: a concede."""
    state, events = act(deployed(), 1, type="concede")
    # the shared result first (tests/rules/wh40k10/test_results.py); the first event of an
    # action names who took it (`action_by`, what an undo takes back)
    assert [e.type for e in events] == ["game_result", "game_ended"]
    assert events[0].payload["action_by"] == 1 and events[0].payload["conceded_by"] == 1
    assert events[-1].payload == {"reason": "concede", "winner": 2} and state.over


# --- 6. the catalog's marks ----------------------------------------------------------------------


def test_every_rule_on_the_wurrboy_card_is_marked_automated() -> None:
    """Issue 16 item 6: `GET /api/systems/wh40k10/datasheets` marks every rule on the Wurrboy
    card automated; the tests above prove each: Deadly Demise, Feel No Pain, Waaagh!, Leader
    (Attached units), Unstable Oracle, Roar of Mork, PSYCHIC (the Eyez of Mork attack) and
    the HAZARDOUS its Unstable Oracle gives."""
    cat = load_catalog()
    wurrboy = cat.get("wh40k10", "wurrboy")
    printed = {r.name for r in wurrboy.all_rules()}
    assert printed >= {"Deadly Demise", "Feel No Pain", "Waaagh!", "Leader", "Unstable Oracle",
                       "Roar of Mork", "PSYCHIC"}
    assert cat.not_automated("wh40k10", "wurrboy") == []
    assert cat.not_automated("wh40k10", "beast-snagga-boyz") == []
    automated = {r.name for r in cat.rules("wh40k10") if r.automated}
    assert "HAZARDOUS" in automated
    assert cat.not_automated("wh40k10", "intercessor-squad") == ["Oath of Moment"]


def test_bad_shoot_and_fight_actions_change_nothing() -> None:
    """Bad input gets a clear error and rolls nothing."""
    state = to_phase(deployed(), 2, "Shooting")
    err = refused(state, 2, type="shoot_weapons", unit="u2",
                  weapons=[{"weapon": "Lascannon", "target": "u1"}])
    assert err.code == "bad_request" and "Bolt rifle" in err.details["carried"]
    twice = refused(state, 2, type="shoot_weapons", unit="u2",
                    weapons=[{"weapon": "Bolt rifle", "target": "u1"}] * 2)
    assert twice.code == "bad_request"
    assert refused(state, 2, type="fight", unit="u2", target="u1").code == "out_of_phase"
    with pytest.raises(RuleError):
        scripted(state, 1, [], type="shoot_weapons", unit="u1",
                 weapons=[{"weapon": "Eyez of Mork", "target": "u2"}])


# --- Fall Back and Desperate Escape ---------------------------------------------------------------


def _falling_back(shocked: bool):  # type: ignore[no-untyped-def]
    state = engaged(deployed())  # in Engagement Range as player 1's Movement phase begins
    if shocked:
        state = with_forty(state, battle_shocked=["u1"])
    state = to_phase(state, 1, "Movement")
    back = [(x, y - 3.0) for x, y in units_of(state)["u1"].positions]
    state, _ = act(state, 1, type="move_models", unit="u1", positions=back)
    return state


def test_a_unit_that_fell_back_may_neither_shoot_nor_charge() -> None:
    """FACTS.md, Movement: Fall Back M out of Engagement Range (then no shooting or charge)."""
    state = _falling_back(False)
    state, events = act(state, 1, type="end_phase")
    fell = next(e for e in events if e.type == "fell_back")
    assert fell.payload["units"] == ["u1"]
    assert not [e for e in events if e.payload.get("kind") == "desperate_escape"]
    err = refused(state, 1, type="shoot_weapons", unit="u1",
                  weapons=[{"weapon": "Eyez of Mork", "target": "u2"}])
    assert err.message == "a unit that Fell Back cannot shoot this turn"
    state = to_phase(state, 1, "Charge")
    err = refused(state, 1, type="declare_charge", unit="u1", target="u2")
    assert err.details["rule"] == "Fall Back"


def test_a_battle_shocked_unit_falling_back_takes_desperate_escape_tests() -> None:
    """FACTS.md, Command phase: a Battle-shocked unit that Falls Back takes a Desperate Escape
    test for each model: D6, 1-2 destroyed."""
    state = _falling_back(True)
    state, events, dice = scripted(state, 1, [1, 2] + [6] * 9, type="end_phase")
    escape = next(e for e in events if e.payload.get("kind") == "desperate_escape")
    assert escape.payload["tests"] == 11 and escape.payload["failed"] == 2
    assert len(escape.payload["destroyed"]) == 2
    models = state.to_json()["forty"]["models"]["u1"]
    assert len(models) == 9 and models[-1]["name"] == "Wurrboy"
    assert dice.used == 11


def test_models_move_through_friendly_models_but_never_end_on_one() -> None:
    """Warhammer 40,000 10th-edition core rules, Moving: a model can be moved through friendly
    models, but cannot end its move on top of another model (refused as Model Overlap, naming
    the friendly unit)."""
    boyz = {"datasheet": "beast-snagga-boyz", "models": 10}
    state = to_phase(deployed(army1=(LED_BOYZ, boyz)), 1, "Movement")
    ids = [u.id for u in units_of(state).values() if u.owner == 1]
    mover, other = ids[0], ids[1]
    state = place(state, mover, row(11, 12.0, x0=10.0))
    state = place(state, other, row(10, 16.0, x0=10.0))
    on_top = [(x, 16.0) for x, _ in units_of(state)[mover].positions]
    err = refused(state, 1, type="move_models", unit=mover, positions=on_top)
    assert err.code == "illegal_move"
    assert err.details["rule"] == "Model Overlap" and err.details["obstacle"] == other
    through = [(x, 17.9) for x, _ in units_of(state)[mover].positions]
    state, _ = act(state, 1, type="move_models", unit=mover, positions=through)
    assert units_of(state)[mover].positions[0] == (10.0, 17.9)

