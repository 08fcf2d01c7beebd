"""t9a Stand and Shoot (the Charge Reactions text of The 9th Age, docs/rules-decisions.md "Charge
Reactions"): the charged unit performs a Shooting Attack as if in the Shooting Phase, even at a
charger beyond the weapon's maximum range (then at Long Range), with the Stand and Shoot
modifier (-1, a **Decision**); only when the charger is Located in its Front Arc and farther
away than the charger's Advance Rate, and once per Player Turn.

Hand-worked position: 10 Citizen Spears (player 1, u1, 5 x 2, Advance Rate 5, Light Armour and
Shield: Armour 2) with their front edge centred at (36, 30 - gap) facing up the table; 10
Citizen Archers (player 2, u2, 5 x 2, Longbow 30 in, Aim 4+: both ranks shoot) at (36, 30)
facing them. Player 1's Charge phase.
"""

from __future__ import annotations

import pytest

from server.rules import core
from server.rules.core import Event, GameState, RuleError
from tests.rules.t9a.scripted import ScriptedDice
from tests.rules.t9a.test_combat import ARCHERS, SPEARS, position, run, unit

SPEAR_BLOCK = {"datasheet": SPEARS, "models": 10, "files": 5}
ARCHER_BLOCK = {"datasheet": ARCHERS, "models": 10, "files": 5}


def declared(gap: float = 16.0, places: dict[str, tuple[float, float, float]] | None = None,
             army1: list[dict[str, object]] | None = None, target: str = "u2") -> GameState:
    state = position(
        army1 or [SPEAR_BLOCK], [ARCHER_BLOCK],
        places or {"u1": (36.0, 30.0 - gap, 0.0), "u2": (36.0, 30.0, 180.0)},
        phase="Charge",
    )
    state, _ = run(state, 1, [], type="declare_charge", unit="u1", target=target)
    return state


def shoot(state: GameState, faces: list[int]) -> tuple[GameState, list[Event]]:
    return run(state, 2, faces, type="charge_reaction", reaction="stand_and_shoot")


def refused(state: GameState) -> RuleError:
    with pytest.raises(RuleError) as err:
        core.decide(state, 2, {"type": "charge_reaction", "reaction": "stand_and_shoot"},
                    ScriptedDice([], state.dice_position))  # type: ignore[arg-type]
    return err.value


@pytest.mark.parametrize(("charge", "reaches"), [([3, 3], False), ([6, 6], True)])
def test_the_archers_shoot_the_charging_spears(charge: list[int], reaches: bool) -> None:
    """16 in: beyond half of 30 (Long Range -1), Stand and Shoot -1: Aim 4+ becomes 6+. Both
    ranks shoot, 10 shots: 6, 6, 6 hit; Strength 3 vs Resilience 3, 4+: 4, 4, 3 two wounds;
    Armour 2, 5+: 3 and 3 fail. Two Spears fall. Then 2D6 + 5: 3 + 3 + 5 = 11 < 16 fails
    (t9a makes no Failed Charge move here: the Spears stay); 6 + 6 + 5 = 17 reaches, with 8
    Spears."""
    state = declared()
    assert state.charges.pending["reactions"] == ["hold", "flee", "stand_and_shoot"]
    state, events = shoot(state, [6, 6, 6, 5, 4, 3, 2, 1, 1, 1] + [4, 4, 3] + [3, 3] + charge)
    assert [e.type for e in events][:4] == [
        "charge_reaction", "shots_fired", "attack_step", "attack_step",
    ]
    fired = events[1].payload
    assert events[1].actor == 2 and fired["shots"] == 10
    assert [m["rule"] for m in fired["modifiers"]] == ["Long Range", "Stand and Shoot"]
    to_hit = events[2].payload
    assert (to_hit["needed"], to_hit["successes"]) == (6, 3)
    assert events[3].payload["successes"] == 2
    assert unit(state, "u1").models == 8
    last = events[-1]
    if reaches:
        assert last.type == "charge_succeeded"
        assert state.charges.engaged == {"u1": "u2"}
    else:
        # The Failed Charge Move (a Decision, docs/rules-decisions.md "Charges"): the Charge
        # Range rolled, towards the target, stopping clear of it.
        assert last.type == "charge_failed"
        assert last.payload["failed_move"]["allowed"] == last.payload["range"]
        moved = last.payload["failed_move"]["distance"]
        assert 0 < moved <= last.payload["range"]
        assert unit(state, "u1").placement[1] == pytest.approx(14.0 + moved, abs=1e-3)


def test_a_charger_beyond_range_is_shot_at_long_range() -> None:
    """"Even if the enemy is beyond the attack's maximum range ... the Charging unit is
    considered to be at Long Range": 36 in, Longbow 30 in: still 6+ (Long Range, Stand and
    Shoot). No hits (all 5s and under); the charge (at most 12 + 5) fails."""
    state = declared(gap=36.0, places={"u1": (36.0, 8.0, 0.0), "u2": (36.0, 44.0, 180.0)})
    state, events = shoot(state, [5] * 10 + [6, 6])
    fired = events[1].payload
    assert fired["distance"] == pytest.approx(36.0)
    assert "beyond its 30 in: Long Range" in fired["text"]
    assert events[2].payload["needed"] == 6 and events[2].payload["successes"] == 0
    assert events[-1].type == "charge_failed"


@pytest.mark.parametrize(("gap", "allowed"), [(3.0, False), (5.0, False), (5.5, True)])
def test_a_charger_within_its_advance_rate_is_too_close(gap: float, allowed: bool) -> None:
    """"The Charging unit is farther away than its Advance Rate": the Spears' is 5; at 5 in
    exactly they are not farther away."""
    state = declared(gap=gap)
    reactions = state.charges.pending["reactions"]
    assert ("stand_and_shoot" in reactions) is allowed
    if not allowed:
        err = refused(state)
        assert err.details["rule"] == "Stand and Shoot"
        assert err.message == (
            f"Citizen Spears is {gap:.1f} in away, not farther than its Advance Rate 5: too "
            "close to Stand and Shoot"
        )


def test_a_charger_outside_the_front_arc_cannot_be_shot() -> None:
    """"The Charging unit is Located in the Charged unit's Front Arc": Spears facing +x at
    x = 20, level with the Archers' ranks, are in their flank arc."""
    state = declared(places={"u1": (20.0, 31.0, 270.0), "u2": (36.0, 30.0, 180.0)})
    err = refused(state)
    assert err.message == "Citizen Spears is not Located in Citizen Archers' Front Arc"
    assert "stand_and_shoot" not in state.charges.pending["reactions"]


def test_once_per_player_turn() -> None:
    """"Units can only choose to declare a Stand and Shoot Charge Reaction once per Player
    Turn": a second Spear block charges the Archers after the first failed."""
    state = declared(
        army1=[SPEAR_BLOCK, SPEAR_BLOCK],
        places={"u1": (36.0, 14.0, 0.0), "u2": (28.0, 14.0, 0.0), "u3": (36.0, 30.0, 180.0)},
        target="u3",
    )
    state, events = run(state, 2, [1] * 10 + [1, 1], type="charge_reaction",
                        reaction="stand_and_shoot")
    assert events[-1].type == "charge_failed"
    state, _ = run(state, 1, [], type="declare_charge", unit="u2", target="u3")
    assert state.charges.pending["reactions"] == ["hold", "flee"]
    err = refused(state)
    assert err.message == "Citizen Archers has already Stood and Shot this Player Turn"
