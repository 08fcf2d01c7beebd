"""The Waaagh! "at the start of your Command phase" (the Wurrboy page,
../shared/seeds/004_dd61c1ce318a3420.txt; FACTS.md "Waaagh! timing": the page wins): called
before any other action of that phase, once per battle (docs/rules-decisions.md, wh40k10)."""

from __future__ import annotations

from server.rules.core import GameState
from server.rules.orders import orders_for
from tests.rules.test_battle import act, refused
from tests.rules.wh40k10.game import LED_BOYZ, deployed, place, row, scripted, to_phase


def two_ork_armies() -> GameState:
    """Beast Snagga Boyz led by a Wurrboy on both sides, player 2's (u2) 14 in from player 1's
    (u1): player 1's first Command phase, player 2's Wurrboy in range to Roar."""
    return place(deployed((LED_BOYZ,), (LED_BOYZ,)), "u2", row(11, 24.0, x0=10.0))


def waaagh_offer(state: GameState, seat: int) -> dict[str, object]:
    return orders_for(state, seat)["game"]["call_waaagh"]


def test_the_waaagh_may_be_called_at_the_start_of_the_command_phase() -> None:
    """Nothing done yet in the phase but its Command step (the CP): the Waaagh! may be called;
    a note in the log is not an action of the phase."""
    state = two_ork_armies()
    assert waaagh_offer(state, 1)["available"] is True
    state, _ = act(state, 1, type="note", text="Waaagh! coming")
    assert waaagh_offer(state, 1)["available"] is True
    state, events = act(state, 1, type="call_waaagh")
    assert events[0].type == "waaagh_called"


def test_after_another_action_of_the_command_phase_the_waaagh_is_too_late() -> None:
    """Player 2's Roar of Mork in player 1's Command phase is an action of that phase: after
    it, player 1's Waaagh! is no longer at the start of the phase. The offer says why; in the
    next Command phase it may be called again (once per battle: not yet called)."""
    state = two_ork_armies()
    state, _, _ = scripted(state, 2, [4], type="roar_of_mork", unit="u2", target="u1")
    err = refused(state, 1, type="call_waaagh")
    assert err.code == "out_of_phase" and err.details["rule"] == "Waaagh!"
    assert "start of your Command phase" in err.message
    offer = waaagh_offer(state, 1)
    assert offer["available"] is False and "start of your Command phase" in str(offer["reason"])
    state = to_phase(state, 1, "Command", turn=2)
    assert waaagh_offer(state, 1)["available"] is True
    state, _ = act(state, 1, type="call_waaagh")
    assert refused(state, 1, type="call_waaagh").message == "the Waaagh! is called once per battle"

