"""Roar of Mork offered as a unit order (FACTS.md, Wurrboy): the player whose Wurrboy may roar
sees the order in the opponent's Command phase, with each enemy unit allowed or refused with the
rule's reason, and never in their own turn or another phase (server/rules/orders.py)."""

from __future__ import annotations

from server.rules.orders import orders_for
from tests.rules.test_battle import act
from tests.rules.wh40k10.game import deployed, place, row, to_phase


def test_roar_of_mork_is_offered_to_the_wurrboys_player_in_the_opponents_command_phase() -> None:
    state = to_phase(deployed(), 2, "Command")
    far = orders_for(state, 1)["units"]["u1"]["roar_of_mork"]
    assert far["action"] == "roar_of_mork"
    assert far["available"] is False and "within 18" in far["reason"]
    assert far["targets"] == [{"unit": "u2", "available": False, "reason": far["reason"]}]
    state = place(state, "u2", row(5, 25.0, x0=26.0))
    near = orders_for(state, 1)["units"]["u1"]["roar_of_mork"]
    assert near["available"] is True and near["reason"] is None
    assert near["targets"] == [{"unit": "u2", "available": True, "reason": None}]
    # the active player is not offered it for their own units, nor for the enemy's
    assert "roar_of_mork" not in orders_for(state, 2)["units"].get("u2", {})
    assert "u1" not in orders_for(state, 2)["units"]


def test_roar_of_mork_is_not_offered_in_your_own_command_phase_or_another_phase() -> None:
    state = deployed()  # player 1's own Command phase
    assert "roar_of_mork" not in orders_for(state, 1)["units"].get("u1", {})
    state = to_phase(state, 2, "Movement")
    assert "roar_of_mork" not in orders_for(state, 1)["units"].get("u1", {})


def test_roar_of_mork_once_used_is_shown_refused_once_per_phase() -> None:
    state = to_phase(deployed(), 2, "Command")
    state = place(state, "u2", row(5, 25.0, x0=26.0))
    state, _ = act(state, 1, type="roar_of_mork", unit="u1", target="u2")
    used = orders_for(state, 1)["units"]["u1"]["roar_of_mork"]
    assert used["available"] is False and "once per phase" in used["reason"]
