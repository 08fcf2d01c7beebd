"""Issue 23 item 6: t9a magic (server/rules/t9a/magic.py), directly. Seed 000 (the Mageblight
Gremlins' Spell-Eater Ambush) reads how many spells the opponent cast successfully in their
previous Magic Phase; the engine records each casting attempt the active player logs in their
Magic Phase (spells are not automated: docs/protocol.md "t9a: Ambush and the Magic Phase").
"""

from __future__ import annotations

from server.rules.t9a.magic import opponent_spells_last_magic_phase, spells_cast_in
from tests.rules.helpers import Game, battle


def _magic_phase(seat: int) -> Game:
    block = [{"datasheet": "citizen-spears", "models": 10}]
    game = battle("t9a", block, block)
    game.to_phase(seat, "Magic")
    return game


def test_each_attempt_is_logged_and_only_successes_count() -> None:
    game = _magic_phase(1)
    events = game.act(1, type="cast_spell", spell=" Fireball ", caster="u1", outcome="success")
    assert events[0].payload == {
        "seat": 1, "spell": "Fireball", "caster": "u1", "outcome": "success",
        "player_turn": 1, "text": "Citizen Spears cast Fireball", "action_by": 1,
    }
    events = game.act(1, type="cast_spell", spell="Curse", outcome="failure")
    assert events[0].payload["text"] == "Player 1 failed to cast Curse"
    game.act(1, type="cast_spell", spell="Shield", outcome="success")
    assert spells_cast_in(game.state, 1, 1) == 2
    assert spells_cast_in(game.state, 2, 1) == 0
    assert game.state.to_json()["magic"] == {"1": {"1": 2}}


def test_a_caster_must_be_one_of_your_units() -> None:
    game = _magic_phase(1)
    for caster in ("u2", "u99"):  # the opponent's unit; no unit
        err = game.refused(1, type="cast_spell", spell="X", caster=caster, outcome="success")
        assert (err.code, err.details) == ("not_found", {"id": caster})
    assert game.state.to_json()["magic"] == {}


def test_spells_are_cast_by_the_active_player_in_the_magic_phase() -> None:
    game = _magic_phase(1)
    err = game.refused(2, type="cast_spell", spell="X", outcome="success")
    assert err.code == "out_of_phase" and err.details["active_player"] == 1
    game.act(1, type="end_phase")  # -> Shooting
    err = game.refused(1, type="cast_spell", spell="X", outcome="success")
    assert (err.code, err.details["allowed"]) == ("out_of_phase", ["Magic"])


def test_the_opponents_previous_magic_phase_is_the_player_turn_before() -> None:
    """Player 2 casts two spells in player turn 2; in player turn 3 (player 1's) the opponent's
    previous Magic Phase holds two; in player turn 4 player 2 asks about player 1's (none)."""
    game = _magic_phase(2)
    assert opponent_spells_last_magic_phase(game.state, 2) == 0
    for spell in ("Fireball", "Curse"):
        game.act(2, type="cast_spell", spell=spell, outcome="success")
    assert spells_cast_in(game.state, 2, 2) == 2
    game.to_phase(1, "Charge")
    assert game.state.extra["player_turn"] == 3
    assert opponent_spells_last_magic_phase(game.state, 1) == 2
    assert opponent_spells_last_magic_phase(game.state, 2) == 0
    game.to_phase(2, "Charge")
    assert opponent_spells_last_magic_phase(game.state, 1) == 0


def test_in_the_first_player_turn_no_magic_phase_came_before() -> None:
    game = _magic_phase(1)
    game.act(1, type="cast_spell", spell="Fireball", outcome="success")
    assert opponent_spells_last_magic_phase(game.state, 2) == 0  # turn 1: nothing before


def test_other_systems_have_no_magic_record() -> None:
    assert "magic" not in Game("whfb8").state.to_json()
    assert Game("wh40k10").refused(1, type="cast_spell", spell="X",
                                   outcome="success").code == "bad_request"
