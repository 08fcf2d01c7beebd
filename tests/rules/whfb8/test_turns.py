"""Warhammer Fantasy Battle 8th edition: 6 turns of two player turns, phases Start, Movement
(charges are declared in it), Magic, Shooting, Close Combat (issue 4; FACTS.md)."""

from __future__ import annotations

from server.rules.battle import phases_of
from tests.rules.test_battle import refused
from tests.rules.turns import deployed, walk

HALBERDIERS = [{"datasheet": "empire-halberdiers", "models": 20, "files": 5}]
SKELETONS = [{"datasheet": "skeleton-warriors", "models": 20, "files": 5}]


def test_the_turn_machine_and_out_of_phase_refusals() -> None:
    state = deployed("whfb8", HALBERDIERS, SKELETONS, (36, 6), (36, 42))
    assert phases_of("whfb8") == ("Start", "Movement", "Magic", "Shooting", "Close Combat")
    # Start phase: no moving yet, no charging; player 2 cannot end player 1's phase.
    assert refused(state, 1, type="move_unit", unit="u1", manoeuvre="forward",
                   distance=1).code == "out_of_phase"
    assert refused(state, 1, type="declare_charge", unit="u1", target="u2").code == (
        "out_of_phase"
    )
    assert refused(state, 2, type="end_phase").code == "out_of_phase"
    state, seen, events = walk(state)
    assert len(seen) == 5 * 2 * 6
    assert seen[0] == (1, 1, "Start") and seen[1] == (1, 1, "Movement")
    assert seen[5] == (1, 2, "Start") and seen[-1] == (6, 2, "Close Combat")
    assert events[-1].type == "game_ended"
    assert refused(state, 1, type="end_phase").code == "out_of_phase"


def test_whfb8_logs_spells_in_its_magic_phase_only() -> None:
    """Issue 14: whfb8 records casts and dispels the way t9a does (server/rules/magic.py,
    tests/rules/test_magic.py): `cast_spell` exists, in the Magic phase."""
    state = deployed("whfb8", HALBERDIERS, SKELETONS, (36, 6), (36, 42))
    err = refused(state, 1, type="cast_spell", spell="x", outcome="success")
    assert (err.code, err.details["allowed"]) == ("out_of_phase", ["Magic"])
