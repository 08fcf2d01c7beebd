"""Warhammer 40,000 10th edition: 5 battle rounds of two player turns, phases Command,
Movement, Shooting, Charge, Fight (issue 4; FACTS.md)."""

from __future__ import annotations

from server.rules.battle import phases_of
from tests.rules.test_battle import refused
from tests.rules.turns import deployed, walk

BOYZ = [{"datasheet": "boyz", "models": 10}]
MARINES = [{"datasheet": "intercessor-squad", "models": 5}]


def test_the_battle_round_machine_and_out_of_phase_refusals() -> None:
    state = deployed("wh40k10", BOYZ, MARINES, (30, 6), (30, 38))
    assert phases_of("wh40k10") == ("Command", "Movement", "Shooting", "Charge", "Fight")
    ahead = [[x, y + 1] for x, y in state.to_json()["units"]["u1"]["positions"]]
    assert refused(state, 1, type="move_models", unit="u1", positions=ahead).code == (
        "out_of_phase"
    )
    assert refused(state, 1, type="declare_charge", unit="u1", target="u2").code == (
        "out_of_phase"
    )
    assert refused(state, 2, type="end_phase").code == "out_of_phase"
    state, seen, events = walk(state)
    assert len(seen) == 5 * 2 * 5
    assert seen[0] == (1, 1, "Command") and seen[3] == (1, 1, "Charge")
    assert seen[-1] == (5, 2, "Fight") and events[-1].type == "game_ended"


def test_ranked_manoeuvres_are_not_for_40k() -> None:
    state = deployed("wh40k10", BOYZ, MARINES, (30, 6), (30, 38))
    from tests.rules.test_battle import act

    state, _ = act(state, 1, type="end_phase")  # Command -> Movement
    err = refused(state, 1, type="move_unit", unit="u1", manoeuvre="forward", distance=1)
    assert err.code == "bad_request" and "model by model" in err.message
