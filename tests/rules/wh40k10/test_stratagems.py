"""Issue 16: Stratagems in the 40k game (server/rules/wh40k10/stratagems.py).

Sources: the 10th-edition core rules on Stratagems and the core Stratagems as recorded in
docs/rules-decisions.md ("wh40k10 Stratagems"): the CP cost is paid; without enough CP a
Stratagem cannot be used; the same Stratagem is used at most once per phase; FACTS.md (wh40k10,
Command phase): a Battle-shocked unit cannot be targeted by its player's Stratagems; the
Wurrboy page (seed 004), Hazardous: the tests follow the unit's attacks, Fire Overwatch
included."""

from __future__ import annotations

import dataclasses

from server.rules.orders import acting_seats, orders_for
from server.rules.units import units_of, with_unit
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

BOYZ = {"datasheet": "boyz", "models": 10}


def _cp(state) -> dict[str, int]:  # type: ignore[no-untyped-def]
    return dict(state.to_json()["forty"]["cp"])


def _stratagems(state, seat: int) -> dict[str, dict]:  # type: ignore[no-untyped-def, type-arg]
    game = orders_for(state, seat)["game"]["stratagems"]
    return {s["name"]: s for s in game["stratagems"]}


# --- paying, once per phase, refusals ------------------------------------------------------------


def _advanced(faces: list[int]):  # type: ignore[no-untyped-def]
    """Player 1's Movement phase; the Boyz have rolled to Advance with `faces`."""
    state = to_phase(deployed(), 1, "Movement")
    state = place(state, "u1", block(11, 14.0, x0=24.0))
    state, _, _ = scripted(state, 1, faces, type="advance", unit="u1")
    return state


def test_command_reroll_re_rolls_the_advance_roll_and_spends_one_cp() -> None:
    """Core rules, Command Re-roll (1 CP): just after an Advance roll, re-roll it. The CP spent
    is an event and the total is shown."""
    state = _advanced([1])
    assert _cp(state) == {"1": 1, "2": 1}
    state, events, dice = scripted(state, 1, [5], type="use_stratagem",
                                   stratagem="Command Re-roll", roll="advance")
    assert [e.type for e in events] == ["stratagem_used", "command_reroll"]
    assert events[0].payload["cost"] == 1 and events[0].payload["cp_left"] == 0
    reroll = events[1].payload
    assert reroll["old"] == [1] and reroll["new"] == [5] and reroll["allowance"] == 6 + 5
    assert _cp(state) == {"1": 0, "2": 1}
    assert state.dice_position == dice.position
    offer = orders_for(state, 1)["units"]["u1"]["move_models"]
    assert offer["allowance"] == 11 and offer["advance"] is True
    # the new allowance is the one the move is judged against: 10 in ahead is legal
    ahead = [(x, y + 10.0) for x, y in units_of(state)["u1"].positions]
    state, moved = act(state, 1, type="move_models", unit="u1", positions=ahead, advance=True)
    assert moved[0].type == "unit_moved"


def test_the_same_stratagem_is_not_used_twice_in_a_phase() -> None:
    """Core rules: the same Stratagem cannot be used more than once in the same phase."""
    state = with_forty(_advanced([1]), cp={"1": 5, "2": 5})
    state, _, _ = scripted(state, 1, [2], type="use_stratagem", stratagem="Command Re-roll",
                           roll="advance")
    err = refused(state, 1, type="use_stratagem", stratagem="Command Re-roll", roll="advance")
    assert err.code == "illegal_move" and "already been used this phase" in err.message
    assert err.details["rule"] == "Command Re-roll"
    offered = _stratagems(state, 1)["Command Re-roll"]
    assert offered["available"] is False and "already been used" in offered["reason"]


def test_a_stratagem_without_enough_cp_is_refused_and_nothing_changes() -> None:
    """Core rules: if you do not have enough CP for a Stratagem, you cannot use it."""
    state = with_forty(_advanced([1]), cp={"1": 0, "2": 0})
    err = refused(state, 1, type="use_stratagem", stratagem="Command Re-roll", roll="advance")
    assert err.code == "illegal_move" and err.message == (
        "Command Re-roll costs 1 CP and you have 0"
    )
    assert _stratagems(state, 1)["Command Re-roll"]["reason"] == (
        "Command Re-roll costs 1 CP and you have 0"
    )


def test_an_advance_roll_is_re_rolled_only_before_the_unit_moves() -> None:
    """Core rules, Command Re-roll: "just after" the Advance roll (Warfield: before the move)."""
    state = _advanced([3])
    ahead = [(x, y + 2.0) for x, y in units_of(state)["u1"].positions]
    state, _ = act(state, 1, type="move_models", unit="u1", positions=ahead, advance=True)
    err = refused(state, 1, type="use_stratagem", stratagem="Command Re-roll", roll="advance")
    assert "re-rolled before the unit moves" in err.message


def test_command_reroll_does_not_re_roll_battle_shock_tests() -> None:
    """Core rules, Command Re-roll lists hit, wound, damage, save, Advance, charge, Desperate
    Escape and Hazardous rolls and the number of attacks: not Battle-shock tests (docs)."""
    err = refused(_advanced([1]), 1, type="use_stratagem", stratagem="Command Re-roll",
                  roll="battle_shock")
    assert "Insane Bravery" in err.message


def _failed_charge():  # type: ignore[no-untyped-def]
    state = to_phase(deployed(), 1, "Movement")
    state = place(state, "u1", block(11, 24.0, x0=24.0))
    state = place(state, "u2", row(5, 33.0, x0=24.0))
    state = to_phase(state, 1, "Charge")
    state, events, _ = charging(state, 1, [1, 2], type="declare_charge", unit="u1", target="u2")
    assert events[0].type == "charge_failed"
    return state


def test_command_reroll_re_rolls_a_failed_charge_which_then_succeeds() -> None:
    """Core rules, Command Re-roll: a charge roll re-rolled; the new 2D6 decides the charge
    (FACTS.md, Charge phase) and the chargers fight first."""
    state = _failed_charge()
    offered = _stratagems(state, 1)["Command Re-roll"]
    assert offered["available"] and offered["targets"] == [{"roll": "charge", "unit": "u1"}]
    state, events, _ = scripted(state, 1, [6, 5], type="use_stratagem",
                                stratagem="Command Re-roll", roll="charge")
    assert [e.type for e in events] == ["stratagem_used", "command_reroll", "charge_succeeded"]
    assert events[1].payload["old"] == [1, 2] and events[1].payload["new"] == [6, 5]
    assert "3 becomes 11" in events[1].payload["text"]
    state = to_phase(state, 1, "Fight")
    assert state.to_json()["forty"]["fights_first"] == ["u1"]


def test_a_successful_charge_is_not_re_rolled() -> None:
    """Decision (docs): only a failed charge roll is re-rolled."""
    state = to_phase(deployed(), 1, "Movement")
    state = place(state, "u1", block(11, 24.0, x0=24.0))
    state = place(state, "u2", row(5, 33.0, x0=24.0))
    state = to_phase(state, 1, "Charge")
    state, _, _ = charging(state, 1, [6, 6], type="declare_charge", unit="u1", target="u2")
    err = refused(state, 1, type="use_stratagem", stratagem="Command Re-roll", roll="charge")
    assert "only a failed charge roll" in err.message


# --- Insane Bravery -----------------------------------------------------------------------------


def _below_half(state):  # type: ignore[no-untyped-def]
    unit = units_of(state)["u2"]
    return with_unit(state, dataclasses.replace(unit, models=2, positions=unit.positions[:2]))


def test_insane_bravery_passes_the_battle_shock_test_once_per_battle() -> None:
    """Core rules, Insane Bravery (1 CP): the unit passes its Battle-shock test; once per
    battle. FACTS.md: Battle-shock tests for units Below Half-strength."""
    state = _below_half(to_phase(deployed(), 2, "Command"))
    state, events = act(state, 2, type="use_stratagem", stratagem="Insane Bravery", unit="u2")
    assert events[0].payload["cp_left"] == 1
    state, events, dice = scripted(state, 2, [], type="end_phase")  # no die rolled
    test = next(e for e in events if e.type == "battle_shock_test")
    assert test.payload["passed"] is True and test.payload["insane_bravery"] is True
    assert dice.used == 0 and state.to_json()["forty"]["battle_shocked"] == []
    state = to_phase(state, 2, "Command", turn=2)
    err = refused(state, 2, type="use_stratagem", stratagem="Insane Bravery", unit="u2")
    assert err.message == "Insane Bravery is used once per battle"
    # the next test is rolled again: 1 + 1 fails
    state, events, _ = scripted(state, 2, [1, 1], type="end_phase")
    assert next(e for e in events if e.type == "battle_shock_test").payload["passed"] is False


def test_insane_bravery_needs_a_unit_that_tests_in_your_command_phase() -> None:
    """Core rules, Insane Bravery: your Command phase, a unit that takes a Battle-shock test."""
    state = to_phase(deployed(), 2, "Command")
    err = refused(state, 2, type="use_stratagem", stratagem="Insane Bravery", unit="u2")
    assert "not Below Half-strength" in err.message
    err = refused(_below_half(state), 1, type="use_stratagem", stratagem="Insane Bravery",
                  unit="u1")
    assert err.code == "out_of_phase"


# --- Go to Ground and Battle-shock ------------------------------------------------------------


def _plasma_at_boyz(go_to_ground: bool):  # type: ignore[no-untyped-def]
    state = to_phase(deployed(), 2, "Shooting")
    state = place(state, "u1", block(10, 20.0, x0=24.0) + [(30.0, 21.6)])
    state = place(state, "u2", row(5, 30.0, x0=24.0))
    if go_to_ground:
        state, _ = act(state, 1, type="use_stratagem", stratagem="Go to Ground", unit="u1")
    # the Sergeant's supercharged plasma pistol: hit 6, wound 6, save 6, Hazardous test 2
    return scripted(state, 2, [6, 6, 6, 2], type="shoot_weapons", unit="u2",
                    weapons=[{"weapon": "Plasma pistol - supercharge", "target": "u1"}])


def test_go_to_ground_gives_a_6_up_invulnerable_save_and_cover_until_the_end_of_the_phase() -> None:
    """Core rules, Go to Ground (1 CP): in the opponent's Shooting phase, an Infantry unit has
    a 6+ invulnerable save and the Benefit of Cover until the end of the phase. FACTS.md: an
    invulnerable save ignores AP; Sv 5+ against AP -3 is no save at all."""
    _, events, _ = _plasma_at_boyz(False)
    assert [s["text"] for s in steps(events) if s["step"] == "save"][0].endswith(
        "no save possible")
    state, events, _ = _plasma_at_boyz(True)
    save = next(s for s in steps(events) if s["step"] == "save")
    assert "invulnerable 6+ used" in save["text"] and "saved" in save["text"]
    assert state.to_json()["forty"]["stratagems"]["gone_to_ground"] == ["u1"]
    state = to_phase(state, 2, "Charge")
    assert state.to_json()["forty"]["stratagems"]["gone_to_ground"] == []


def test_go_to_ground_is_for_the_opponents_shooting_phase_and_not_a_battle_shocked_unit() -> None:
    """Core rules, Go to Ground: your opponent's Shooting phase. FACTS.md: a Battle-shocked unit
    cannot be targeted by its player's Stratagems."""
    own = to_phase(deployed(), 1, "Shooting")
    err = refused(own, 1, type="use_stratagem", stratagem="Go to Ground", unit="u1")
    assert err.code == "out_of_phase"
    state = with_forty(to_phase(deployed(), 2, "Shooting"), battle_shocked=["u1"])
    err = refused(state, 1, type="use_stratagem", stratagem="Go to Ground", unit="u1")
    assert err.code == "illegal_move" and "Battle-shocked" in err.message
    assert err.details["battle_shocked"] is True
    offered = _stratagems(state, 1)["Go to Ground"]
    assert offered["available"] is False and "Battle-shocked" in offered["reason"]


# --- Fire Overwatch -----------------------------------------------------------------------------


def _intercessors_advance_on_the_boyz():  # type: ignore[no-untyped-def]
    state = to_phase(deployed(), 2, "Movement")
    state = place(state, "u1", block(10, 20.0, x0=24.0) + [(30.0, 21.6)])
    state = place(state, "u2", row(5, 36.0, x0=24.0))
    closer = [(x, y - 3.0) for x, y in units_of(state)["u2"].positions]
    state, _ = act(state, 2, type="move_models", unit="u2", positions=closer)
    return state


def test_fire_overwatch_hits_only_on_6s_and_the_hazardous_test_follows() -> None:
    """Core rules, Fire Overwatch (1 CP): in the opponent's Movement phase, after an enemy unit
    moved, a unit within 24 in shoots at it as in its Shooting phase, an unmodified 6 needed to
    hit. Seed 004, Hazardous: the test follows the unit's attacks (Eyez of Mork is Hazardous
    while the Wurrboy leads 10 Boyz, FACTS.md)."""
    state = _intercessors_advance_on_the_boyz()
    offered = _stratagems(state, 1)["Fire Overwatch"]
    assert offered["targets"] == [{"unit": "u1", "target": "u2", "weapons": ["Eyez of Mork"]}]
    # A D6 (2) + 4 = 6 attacks: 6 and five 5s (a 5 hits at BS 5+, not here); wound 2 (S 8 vs
    # T 4: 2+); save 1; the Hazardous test 1; Feel No Pain 6+ on 3 wounds: 6, 1, 1
    faces = [2, 6, 5, 5, 5, 5, 5, 2, 1, 1, 6, 1, 1]
    state, events, dice = scripted(state, 1, faces, type="use_stratagem",
                                   stratagem="Fire Overwatch", unit="u1", target="u2")
    assert events[0].type == "stratagem_used" and events[0].payload["target"] == "u2"
    words = texts(events, "shooting")
    hit = next(t for t in words if t.startswith("Eyez of Mork: 6 attacks hitting"))
    assert "hitting on 6+ (Fire Overwatch: unmodified 6s only): 1 hit" in hit
    kinds = [e.payload.get("kind") for e in events if e.type == "attacks_resolved"]
    assert kinds == ["shooting", "hazardous"]
    assert "Failed Hazardous test: Wurrboy is selected" in texts(events, "hazardous")
    assert dice.used == len(faces)
    assert len(units_of(state)["u2"].positions) == 4
    # once per turn
    state = to_phase(state, 2, "Charge")
    err = refused(state, 1, type="use_stratagem", stratagem="Fire Overwatch", unit="u1",
                  target="u2")
    assert err.message == "Fire Overwatch is used once per turn"


def test_fire_overwatch_needs_an_enemy_that_moved_within_24_in() -> None:
    """Core rules, Fire Overwatch: the opponent's Movement or Charge phase; an enemy unit set
    up, moving or declaring a charge; your unit within 24 in of it."""
    state = to_phase(deployed(), 2, "Movement")
    err = refused(state, 1, type="use_stratagem", stratagem="Fire Overwatch", unit="u1",
                  target="u2")
    assert err.code == "out_of_phase" and "has not been set up, moved" in err.message
    own = to_phase(deployed(), 1, "Movement")
    assert refused(own, 1, type="use_stratagem", stratagem="Fire Overwatch", unit="u1",
                   target="u2").code == "out_of_phase"
    state = place(state, "u2", row(5, 40.0, x0=24.0))
    far = [(x, y + 2.0) for x, y in units_of(state)["u2"].positions]
    state = place(state, "u1", block(10, 9.0, x0=24.0) + [(30.0, 10.6)])
    state, _ = act(state, 2, type="move_models", unit="u2", positions=far)
    err = refused(state, 1, type="use_stratagem", stratagem="Fire Overwatch", unit="u1",
                  target="u2")
    assert "not within 24 in" in err.message


def _intercessors_charge(action: str = "charge"):  # type: ignore[no-untyped-def]
    """Player 2's Charge phase: the Intercessors (u2) 7 in from the led Boyz (u1) declare a
    charge on them (`action`: `charge` or the straight `declare_charge`); no die is read."""
    state = to_phase(deployed(), 2, "Movement")
    state = place(state, "u1", block(10, 20.0, x0=24.0) + [(30.0, 21.6)])
    state = place(state, "u2", row(5, 27.0, x0=24.0))
    state = to_phase(state, 2, "Charge")
    if action == "charge":
        return scripted(state, 2, [], type="charge", unit="u2", targets=["u1"])
    return scripted(state, 2, [], type="declare_charge", unit="u2", target="u1")


def test_a_declared_charge_waits_for_the_charged_player_s_fire_overwatch_answer() -> None:
    """Core rules, Fire Overwatch: the charged player uses it in the opponent's Charge phase,
    just after an enemy unit declared a charge, before the charge roll. The charge waits for
    that player's answer: they act (and only they), their orders hold the prompt (Fire
    Overwatch with each unit that can, or Decline), and the charger cannot go on."""
    state, events, dice = _intercessors_charge()
    assert [e.type for e in events] == ["charge_declared"] and dice.used == 0
    assert acting_seats(state) == frozenset({1})
    pending = state.to_json(2)["pending_charge"]
    assert pending["answer"] == "Fire Overwatch" and pending["reacting_player"] == 1
    answer = orders_for(state, 1)["game"]["charge_answer"]
    assert answer["available"] and answer["charger"] == "u2"
    assert [(r["reaction"], r["action"]) for r in answer["reactions"]] == [
        ("fire_overwatch", {"type": "use_stratagem", "stratagem": "Fire Overwatch",
                            "unit": "u1", "target": "u2", "weapons": ["Eyez of Mork"]}),
        ("decline", {"type": "decline_overwatch"}),
    ]
    assert _stratagems(state, 1)["Fire Overwatch"]["targets"] == [
        {"unit": "u1", "target": "u2", "weapons": ["Eyez of Mork"]}]
    # Asked of the charged player only: the charger's player has no prompt and waits.
    assert "charge_answer" not in orders_for(state, 2)["game"]
    assert not orders_for(state, 2)["game"]["end_phase"]["available"]
    waiting = refused(state, 2, type="end_phase")
    assert waiting.code == "out_of_phase" and waiting.details["waiting_for"] == 1
    assert "to answer the charge" in waiting.message and "(Fire Overwatch)" in waiting.message
    assert refused(state, 2, type="decline_overwatch").code == "out_of_phase"
    assert refused(state, 2, type="use_stratagem", stratagem="Fire Overwatch", unit="u2",
                   target="u1").code == "out_of_phase"


def test_fire_overwatch_shoots_before_the_roll_and_hazardous_follows_the_charge_move() -> None:
    """Core rules, Fire Overwatch: the shots come before the charge roll. Seed 004: the
    Hazardous tests' mortal wounds of a unit that fired Overwatch in the opponent's Charge
    phase are allocated after the charging unit ended its Charge move. The dice, in order:
    the shots, the charge roll, then the Hazardous test and its Feel No Pain rolls."""
    state, _, _ = _intercessors_charge("declare_charge")
    had = _cp(state)["1"]
    # D6 (2) + 4 = 6 attacks, no 6; the charge roll 6, 6 (the straight move); the Hazardous
    # test 1: the Wurrboy is selected; Feel No Pain 6+ on 3 mortal wounds: 1, 1, 1.
    faces = [2, 1, 1, 1, 1, 1, 1, 6, 6, 1, 1, 1, 1]
    state, events, dice = scripted(state, 1, faces, type="use_stratagem",
                                   stratagem="Fire Overwatch", unit="u1", target="u2")
    kinds = [e.type if e.type != "attacks_resolved" else e.payload["kind"] for e in events]
    assert kinds == ["stratagem_used", "charge_reaction", "shooting",
                     "overwatch_hazard_deferred", "charge_succeeded", "overwatch_hazard_due",
                     "hazardous"]
    # the attacks (D6 + 4) and hits, the charge roll, the Hazardous test, its Feel No Pain
    assert dice.expressions == ["D6+4", "6D6", "2D6", "D6", "3D6"]
    assert dice.used == len(faces)
    assert "Failed Hazardous test: Wurrboy is selected" in texts(events, "hazardous")
    assert state.charges.pending is None and acting_seats(state) == frozenset({2})
    assert _cp(state)["1"] == had - 1


def test_hazardous_after_overwatch_waits_for_the_charge_move_model_by_model() -> None:
    """Seed 004, with the Charge… order: the roll leaves the Charge move to the charger's
    player, and the Hazardous tests wait for it (here: the charge given up, which ends it)."""
    state, _, _ = _intercessors_charge("charge")
    faces = [2, 1, 1, 1, 1, 1, 1, 4, 4]
    state, events, dice = scripted(state, 1, faces, type="use_stratagem",
                                   stratagem="Fire Overwatch", unit="u1", target="u2")
    assert [e.type for e in events][-2:] == ["overwatch_hazard_deferred", "charge_rolled"]
    assert not steps(events, "hazardous") and dice.used == len(faces)
    assert acting_seats(state) == frozenset({2})
    state, events, dice = scripted(state, 2, [1, 6, 1, 1], type="charge_move", unit="u2")
    assert [e.type for e in events][:2] == ["charge_failed", "overwatch_hazard_due"]
    assert "1 Hazardous test: 1 failed" in texts(events, "hazardous")[0]


def test_the_charged_player_may_decline_and_the_charge_is_rolled() -> None:
    """The answer may be no: the charge is then rolled (the first die after the wait), and
    Fire Overwatch is refused once the charge has been rolled, and after its Charge move."""
    state, _, _ = _intercessors_charge("declare_charge")
    state, events, dice = scripted(state, 1, [6, 6], type="decline_overwatch")
    assert [e.type for e in events] == ["charge_reaction", "charge_succeeded"]
    assert events[0].payload["reaction"] == "decline" and dice.expressions == ["2D6"]
    assert "charge_answer" not in orders_for(state, 1)["game"]
    late = refused(state, 1, type="use_stratagem", stratagem="Fire Overwatch", unit="u1",
                   target="u2")
    assert late.code == "out_of_phase"
    assert late.message.startswith("Intercessor Squad has already rolled its charge")
    assert "before its charge roll" in late.message
    assert not _stratagems(state, 1)["Fire Overwatch"]["available"]
    state, _, _ = _intercessors_charge("charge")
    state, _, _ = scripted(state, 1, [4, 4], type="decline_overwatch")
    rolled = refused(state, 1, type="use_stratagem", stratagem="Fire Overwatch", unit="u1",
                     target="u2")
    assert "already rolled its charge" in rolled.message


def test_no_wait_when_the_charged_player_cannot_fire_overwatch() -> None:
    """Only a usable Fire Overwatch makes the charge wait: without the CP, or once it was
    used this turn, the charge is rolled at once and nobody is asked."""
    _, events, dice = scripted(_no_cp_state(), 2, [4, 4], type="charge", unit="u2",
                               targets=["u1"])
    assert events[0].type == "charge_rolled" and dice.used == 2
    state = _no_cp_state(cp=2)
    state = with_forty(state, overwatch={"1": state.battle.player_turn})
    state, events, _ = scripted(state, 2, [4, 4], type="charge", unit="u2", targets=["u1"])
    assert events[0].type == "charge_rolled"
    assert "charge_answer" not in orders_for(state, 1)["game"]
    assert acting_seats(state) == frozenset({2})


def _no_cp_state(cp: int = 0):  # type: ignore[no-untyped-def]
    state = to_phase(deployed(), 2, "Movement")
    state = place(state, "u1", block(10, 20.0, x0=24.0) + [(30.0, 21.6)])
    state = place(state, "u2", row(5, 27.0, x0=24.0))
    state = to_phase(state, 2, "Charge")
    return with_forty(state, cp={**_cp(state), "1": cp})


def test_fire_overwatch_from_an_engaged_unit_fires_no_weapon_but_its_pistols() -> None:
    """Core rules, Fire Overwatch: the unit shoots "as if it were your Shooting phase"; FACTS.md
    (Shooting): a unit within Engagement Range fires only Pistols, and only at a unit it is
    engaged with. The Boyz in Engagement Range of one squad cannot overwatch the other, which
    moved: the Stratagem is not offered for them and is refused in the shooting rule's words
    (it was offered before, and refused only when its shot was rolled)."""
    army2 = (INTERCESSORS, INTERCESSORS)
    state = to_phase(deployed(army2=army2), 2, "Movement")
    state = place(state, "u1", block(10, 20.0, x0=24.0) + [(30.0, 21.6)])
    state = place(state, "u3", row(5, 21.6 + BASE_IN + 0.5, x0=27.0))  # engaged with the Boyz
    state = place(state, "u2", row(5, 31.0, x0=12.0))
    closer = [(x, y - 3.0) for x, y in units_of(state)["u2"].positions]
    state, _ = act(state, 2, type="move_models", unit="u2", positions=closer)
    offered = _stratagems(state, 1)["Fire Overwatch"]
    assert not offered["available"] and offered["targets"] == []
    assert offered["reason"] == "Eyez of Mork is not a Pistol and the unit is in Engagement Range"
    err = refused(state, 1, type="use_stratagem", stratagem="Fire Overwatch", unit="u1",
                  target="u2")
    assert err.message == offered["reason"]
    assert _cp(state)["1"] >= 1  # not for want of CP


# --- Counter-offensive --------------------------------------------------------------------------


def _two_chargers():  # type: ignore[no-untyped-def]
    """Player 1's Fight phase: the led Boyz (u1) and Boyz (u2) charged the Intercessors (u3)."""
    state = deployed([LED_BOYZ, BOYZ], [INTERCESSORS])
    state = to_phase(state, 1, "Fight")
    front = 33.0 - BASE_IN - 0.2
    state = place(state, "u1", block(11, front, x0=24.0, dy=-(BASE_IN + 0.005)))
    state = place(state, "u2", block(10, 33.0 + BASE_IN + 0.2, x0=24.0, dy=BASE_IN + 0.005))
    state = place(state, "u3", row(5, 33.0, x0=24.0))
    return with_forty(state, charged={"pt": state.battle.player_turn, "units": ["u1", "u2"]})


def test_counter_offensive_lets_a_unit_fight_next_after_an_enemy_unit_fought() -> None:
    """Core rules, Counter-offensive (2 CP): in the Fight phase, just after an enemy unit has
    fought, one of your units in Engagement Range that has not fought fights next."""
    state = with_forty(_two_chargers(), cp={"1": 2, "2": 2})
    err = refused(state, 2, type="use_stratagem", stratagem="Counter-offensive", unit="u3")
    assert err.code == "out_of_phase" and "just after an enemy unit has fought" in err.message
    assert state.to_json()["forty"]["fight_next"] == {"seat": 1, "units": ["u1", "u2"]}
    state, _, _ = scripted(state, 1, [1] * 80, type="fight", unit="u1", target="u3")
    assert state.to_json()["forty"]["fight_next"] == {"seat": 1, "units": ["u2"]}
    state, events = act(state, 2, type="use_stratagem", stratagem="Counter-offensive",
                        unit="u3")
    assert events[0].payload["cost"] == 2 and _cp(state)["2"] == 0
    assert state.to_json()["forty"]["fight_next"] == {"seat": 2, "units": ["u3"]}
    err = refused(state, 1, type="fight", unit="u2", target="u3")
    assert err.message == "Intercessor Squad fight next (Counter-offensive)"
    state, events, _ = scripted(state, 2, [1] * 20, type="fight", unit="u3", target="u2")
    assert events[0].type == "fight_started"
    assert state.to_json()["forty"]["fight_next"] == {"seat": 1, "units": ["u2"]}


# --- Heroic Intervention -----------------------------------------------------------------------


def _intercessors_charged_the_led_boyz():  # type: ignore[no-untyped-def]
    """Player 2's Charge phase: the Intercessors (u3) charged the led Boyz (u1); the Boyz (u2)
    stand 2 in to the side of where the charge ends."""
    state = deployed([LED_BOYZ, BOYZ], [INTERCESSORS])
    state = to_phase(state, 2, "Movement")
    state = place(state, "u1", block(11, 20.0, x0=24.0))
    state = place(state, "u2", row(10, 23.0, x0=33.0))
    state = place(state, "u3", row(5, 27.0, x0=24.0))
    state = to_phase(state, 2, "Charge")
    state, events, _ = charging(state, 2, [6, 6], type="declare_charge", unit="u3", target="u1")
    assert events[0].type == "charge_succeeded"
    return with_forty(state, cp={"1": 2, "2": 2})


def test_heroic_intervention_charges_the_charger_without_fighting_first() -> None:
    """Core rules, Heroic Intervention (2 CP): in the opponent's Charge phase, just after an
    enemy unit ends a Charge move, a unit within 6 in of it declares a charge against it alone
    and resolves it (2D6, FACTS.md); it gets no Charge bonus: it does not fight first."""
    state = _intercessors_charged_the_led_boyz()
    offered = _stratagems(state, 1)["Heroic Intervention"]
    assert offered["targets"] == [{"unit": "u2", "target": "u3"}]
    err = refused(state, 1, type="use_stratagem", stratagem="Heroic Intervention", unit="u1",
                  target="u3")
    assert "Engagement Range" in err.message  # the charged unit is engaged: no charge
    state, events, _ = scripted(state, 1, [3, 3], type="use_stratagem",
                                stratagem="Heroic Intervention", unit="u2", target="u3")
    assert [e.type for e in events] == ["stratagem_used", "charge_succeeded",
                                        "heroic_intervention"]
    assert _cp(state)["1"] == 0
    state = to_phase(state, 2, "Fight")
    view = state.to_json()["forty"]
    assert view["fights_first"] == ["u3"]
    assert "u3" in view["engaged"]["u2"]


def test_heroic_intervention_needs_an_enemy_that_charged_and_a_unit_within_6_in() -> None:
    """Core rules, Heroic Intervention: after an enemy unit ends a Charge move; within 6 in."""
    state = to_phase(deployed([LED_BOYZ, BOYZ], [INTERCESSORS]), 2, "Charge")
    err = refused(state, 1, type="use_stratagem", stratagem="Heroic Intervention", unit="u2",
                  target="u3")
    assert err.code == "out_of_phase" and "has not ended a charge move" in err.message
    state = _intercessors_charged_the_led_boyz()
    state = place(state, "u2", row(10, 40.0, x0=40.0))
    err = refused(state, 1, type="use_stratagem", stratagem="Heroic Intervention", unit="u2",
                  target="u3")
    assert "not within 6 in" in err.message


# --- Grenade ----------------------------------------------------------------------------------


def _grenade_range(y: float):  # type: ignore[no-untyped-def]
    state = to_phase(deployed(), 2, "Shooting")
    state = place(state, "u1", block(11, 20.0, x0=24.0))
    return place(state, "u2", row(5, y, x0=24.0))


def test_grenade_rolls_six_dice_a_mortal_wound_per_4_up_and_the_unit_still_shoots() -> None:
    """Core rules, Grenade (1 CP): your Shooting phase, a Grenades unit (the Intercessors' data
    keyword) and a visible enemy unit within 8 in: six D6, each 4+ a mortal wound (FACTS.md:
    mortal wounds carry over from model to model)."""
    state = _grenade_range(27.0)
    assert _stratagems(state, 2)["Grenade"]["targets"] == [{"unit": "u2", "target": "u1"}]
    state, events, dice = scripted(state, 2, [4, 5, 6, 1, 2, 3], type="use_stratagem",
                                   stratagem="Grenade", unit="u2", target="u1")
    assert [e.type for e in events] == ["stratagem_used", "attacks_resolved"]
    assert "Grenade: rolled 4, 5, 6, 1, 2, 3: 3 mortal wounds (4+)" in texts(events, "grenade")
    assert events[1].payload["wounds_lost"] == 3 and dice.used == 6
    models = state.to_json()["forty"]["models"]["u1"]
    assert len(models) == 10 and sum(m["lost"] for m in models) == 1
    state, shot, _ = scripted(state, 2, [1] * 10, type="shoot_weapons", unit="u2",
                              weapons=[{"weapon": "Bolt rifle", "target": "u1"}])
    assert shot[0].payload["kind"] == "shooting"


def test_grenade_needs_grenades_and_an_enemy_within_8_in() -> None:
    """Core rules, Grenade: a Grenades unit; the enemy within 8 in."""
    far = _grenade_range(33.0)
    err = refused(far, 2, type="use_stratagem", stratagem="Grenade", unit="u2", target="u1")
    assert "not within 8 in" in err.message
    boyz = to_phase(deployed(), 1, "Shooting")
    err = refused(boyz, 1, type="use_stratagem", stratagem="Grenade", unit="u1", target="u2")
    assert err.message == "Beast Snagga Boyz + Wurrboy has no Grenades"


# --- unknown and not automated, and the offer ---------------------------------------------------


def test_unknown_and_not_automated_stratagems_are_refused_with_their_reason() -> None:
    """A Stratagem Warfield does not automate is said so (the house rule: never silently)."""
    state = to_phase(deployed(), 1, "Shooting")
    err = refused(state, 1, type="use_stratagem", stratagem="Orbital Strike", unit="u1")
    assert err.code == "bad_request" and "Fire Overwatch" in err.details["known"]
    err = refused(state, 1, type="use_stratagem", stratagem="Smokescreen", unit="u1")
    assert err.code == "illegal_move" and err.details["not_automated"] is True
    assert "not automated" in err.message


def test_the_offer_lists_costs_targets_reasons_and_the_stratagems_not_automated() -> None:
    """The client shows what the server offers: every automated core Stratagem with its cost,
    its targets now or why not, and the core Stratagems that are not automated."""
    state = _intercessors_advance_on_the_boyz()
    game = orders_for(state, 1)["game"]["stratagems"]
    assert game["action"] == "use_stratagem" and game["cp"] == 2
    by_name = {s["name"]: s for s in game["stratagems"]}
    assert set(by_name) == {"Command Re-roll", "Counter-offensive", "Insane Bravery",
                            "Fire Overwatch", "Go to Ground", "Heroic Intervention",
                            "Grenade"}
    assert by_name["Fire Overwatch"]["cost"] == 1 and by_name["Fire Overwatch"]["available"]
    assert by_name["Counter-offensive"]["cost"] == 2
    assert by_name["Go to Ground"]["reason"] == (
        "Go to Ground is used in your opponent's Shooting phase")
    missing = {s["name"] for s in game["not_automated"]}
    assert missing == {"Epic Challenge", "Tank Shock", "Rapid Ingress", "Smokescreen"}
    assert all("not automated" in s["reason"] for s in game["not_automated"])
    assert orders_for(state, None)["game"] == {}
