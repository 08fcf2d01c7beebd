"""The Magic Phase log (server/rules/magic.py), for every system with a Magic Phase: t9a (issue
23 item 6; seed 000, the Mageblight Gremlins' Spell-Eater Ambush, reads how many spells the
opponent cast successfully in their previous Magic Phase) and whfb8 (issue 14: "The Magic
Phase records casts and dispels the way t9a does"). The engine records each casting attempt
the active player logs in their Magic Phase (spells are not automated: docs/protocol.md "t9a:
Ambush and the Magic Phase").
"""

from __future__ import annotations

import pytest

from server.rules.magic import opponent_spells_last_magic_phase, spells_cast_in
from server.rules.orders import orders_for
from server.rules.systems import find_system
from tests.rules.helpers import Game, battle

BLOCKS = {
    "t9a": {"datasheet": "citizen-spears", "models": 10},
    "whfb8": {"datasheet": "empire-halberdiers", "models": 10},
}
NAMES = {"t9a": "Citizen Spears", "whfb8": "Empire Halberdiers"}
FIRST_PHASE = {"t9a": "Charge", "whfb8": "Start"}
SYSTEMS = sorted(BLOCKS)


def _magic_phase(seat: int, system: str = "t9a") -> Game:
    block = [BLOCKS[system]]
    game = battle(system, block, block)
    game.to_phase(seat, "Magic")
    return game


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_magic_phase_is_a_phase_of_the_turn(system: str) -> None:
    assert find_system(system).magic_phase == "Magic"
    assert "Magic" in find_system(system).phases
    assert find_system("wh40k10").magic_phase is None


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_casting_form_is_offered_in_the_active_players_magic_phase(system: str) -> None:
    """The game-level order `cast_spell` (register_game_offer) with the casters: the active
    player's units on the table; the other player, and other phases, get none."""
    game = _magic_phase(1, system)
    mine = orders_for(game.state, 1)["game"]
    assert mine["cast_spell"]["available"] is True
    assert mine["cast_spell"]["casters"] == ["u1"]
    assert "cast_spell" not in orders_for(game.state, 2)["game"]
    game.act(1, type="end_phase")
    assert "cast_spell" not in orders_for(game.state, 1)["game"]


@pytest.mark.parametrize("system", SYSTEMS)
def test_each_attempt_is_logged_and_only_successes_count(system: str) -> None:
    game = _magic_phase(1, system)
    events = game.act(1, type="cast_spell", spell=" Fireball ", caster="u1", outcome="success")
    assert events[0].payload == {
        "seat": 1, "spell": "Fireball", "caster": "u1", "outcome": "success",
        "player_turn": 1, "text": f"{NAMES[system]} cast Fireball", "action_by": 1,
    }
    events = game.act(1, type="cast_spell", spell="Curse", outcome="failure")
    assert events[0].payload["text"] == "Player 1 failed to cast Curse"
    game.act(1, type="cast_spell", spell="Shield", outcome="success")
    assert spells_cast_in(game.state, 1, 1) == 2
    assert spells_cast_in(game.state, 2, 1) == 0
    assert game.state.to_json()["magic"] == {"1": {"1": 2}}


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_caster_must_be_one_of_your_units(system: str) -> None:
    game = _magic_phase(1, system)
    for caster in ("u2", "u99"):  # the opponent's unit; no unit
        err = game.refused(1, type="cast_spell", spell="X", caster=caster, outcome="success")
        assert (err.code, err.details) == ("not_found", {"id": caster})
    assert game.state.to_json()["magic"] == {}


@pytest.mark.parametrize("system", SYSTEMS)
def test_spells_are_cast_by_the_active_player_in_the_magic_phase(system: str) -> None:
    game = _magic_phase(1, system)
    err = game.refused(2, type="cast_spell", spell="X", outcome="success")
    assert err.code == "out_of_phase" and err.details["active_player"] == 1
    game.act(1, type="end_phase")  # -> Shooting
    err = game.refused(1, type="cast_spell", spell="X", outcome="success")
    assert (err.code, err.details["allowed"]) == ("out_of_phase", ["Magic"])


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_opponents_previous_magic_phase_is_the_player_turn_before(system: str) -> None:
    """Player 2 casts two spells in player turn 2; in player turn 3 (player 1's) the opponent's
    previous Magic Phase holds two; in player turn 4 player 2 asks about player 1's (none)."""
    game = _magic_phase(2, system)
    assert opponent_spells_last_magic_phase(game.state, 2) == 0
    for spell in ("Fireball", "Curse"):
        game.act(2, type="cast_spell", spell=spell, outcome="success")
    assert spells_cast_in(game.state, 2, 2) == 2
    game.to_phase(1, FIRST_PHASE[system])
    assert game.state.battle.player_turn == 3
    assert opponent_spells_last_magic_phase(game.state, 1) == 2
    assert opponent_spells_last_magic_phase(game.state, 2) == 0
    game.to_phase(2, FIRST_PHASE[system])
    assert opponent_spells_last_magic_phase(game.state, 1) == 0


def test_in_the_first_player_turn_no_magic_phase_came_before() -> None:
    game = _magic_phase(1)
    game.act(1, type="cast_spell", spell="Fireball", outcome="success")
    assert opponent_spells_last_magic_phase(game.state, 2) == 0  # turn 1: nothing before


def test_a_system_without_a_magic_phase_has_no_magic_record() -> None:
    assert "magic" not in Game("wh40k10").state.to_json()
    assert Game("whfb8").state.to_json()["magic"] == {}
    assert Game("wh40k10").refused(1, type="cast_spell", spell="X",
                                   outcome="success").code == "bad_request"
