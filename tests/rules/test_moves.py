"""Issue 23 item 6: server/rules/moves.py, directly. The Move Manoeuvres of ranked units (FACTS.md
"Move Manoeuvres": Advance, March at twice the rate, Reform, Wheel; backward and sideways moves
cost double except for Light Troops, seed 000) and the model-by-model moves of wh40k10 (FACTS.md
"Movement": a Normal Move up to M, one move per unit per phase).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.rules.helpers import Game, battle


def _halberdiers() -> Game:
    """whfb8: two blocks of 20 Empire Halberdiers (M 4), player 1's Movement phase."""
    block = [{"datasheet": "empire-halberdiers", "models": 20, "files": 5}]
    game = battle("whfb8", block, block)
    game.to_phase(1, "Movement")
    return game


def _move(game: Game, manoeuvre: str, **fields: Any) -> dict[str, Any]:
    events = game.act(1, type="move_unit", unit="u1", manoeuvre=manoeuvre, **fields)
    assert [e.type for e in events] == ["unit_moved"]
    return dict(events[0].payload)


def test_backward_and_sideways_moves_cost_double() -> None:
    """whfb8 Halberdiers, M 4: 1.5 in backward spends 3 in; 1 in sideways more would be 5."""
    game = _halberdiers()
    moved = _move(game, "backward", distance=1.5)
    assert (moved["distance"], moved["used"], moved["allowance"]) == (1.5, 3.0, 4.0)
    assert game.unit("u1").placement == (10.0, 4.5, 0.0)
    err = game.refused(1, type="move_unit", unit="u1", manoeuvre="sideways", distance=1)
    assert err.code == "illegal_move"
    assert (err.details["rule"], err.details["distance"], err.details["allowance"]) == (
        "Move Distance", 5.0, 4.0
    )


def test_light_troops_move_backward_and_sideways_at_double_cost() -> None:
    """t9a Light Troops (seed 000, the Mageblight Gremlins): "this rule has no effect on other
    Move Manoeuvres", so backward and sideways cost double as for any unit (issue 17 item 2;
    this test read the older FACTS.md summary, full rate, before)."""
    game = battle("t9a", [{"datasheet": "mageblight-gremlin", "models": 3}],
                  [{"datasheet": "citizen-spears", "models": 20, "files": 5}])
    game.to_phase(1, "Movement")
    assert _move(game, "backward", distance=1)["used"] == 2.0
    assert _move(game, "sideways", distance=1)["used"] == 4.0


def test_a_march_is_twice_the_rate_and_only_forward_and_wheels() -> None:
    """whfb8: a March is 2M (8 in); it allows no backward, sideways or reform manoeuvre."""
    game = _halberdiers()
    for manoeuvre in ("backward", "sideways", "reform"):
        err = game.refused(1, type="move_unit", unit="u1", manoeuvre=manoeuvre, mode="march",
                           distance=1, files=5)
        assert (err.code, err.details["rule"]) == ("illegal_move", "March Move")
        assert err.message == f"a March Move allows no {manoeuvre} manoeuvre"
    moved = _move(game, "forward", mode="march", distance=8)
    assert (moved["used"], moved["allowance"], moved["mode"]) == (8.0, 8.0, "march")
    assert game.state.to_json()["units"]["u1"]["moved"]["mode"] == "march"


def test_one_move_is_one_mode() -> None:
    """Several manoeuvres make one Advance or one March, not both."""
    game = _halberdiers()
    _move(game, "forward", distance=1)
    err = game.refused(1, type="move_unit", unit="u1", manoeuvre="forward", mode="march",
                       distance=1)
    assert (err.code, err.details["rule"]) == ("illegal_move", "Move Manoeuvres")


def test_a_reform_is_the_whole_move() -> None:
    """After a Reform nothing else moves the unit this phase; after another manoeuvre a
    Reform is refused."""
    game = _halberdiers()
    moved = _move(game, "reform", files=5, facing=180)
    assert moved["reformed"] and moved["used"] == pytest.approx(3.937, abs=1e-3)
    assert game.unit("u1").placement[2] == 180
    err = game.refused(1, type="move_unit", unit="u1", manoeuvre="forward", distance=1)
    assert (err.code, err.details["rule"]) == ("illegal_move", "Reform")
    other = _halberdiers()
    _move(other, "forward", distance=1)
    err = other.refused(1, type="move_unit", unit="u1", manoeuvre="reform", files=4)
    assert (err.code, err.details["rule"], err.message) == (
        "illegal_move", "Reform", "a Reform is the whole move"
    )


@pytest.mark.parametrize(("system", "sheet", "allowance"), [
    ("t9a", "citizen-spears", 10.0),  # t9a/variant.py: a model moves up to twice its Mobility
    ("whfb8", "empire-halberdiers", 4.0),  # whfb8: up to M
])
def test_the_reform_allowance_is_the_systems(system: str, sheet: str, allowance: float) -> None:
    block = [{"datasheet": sheet, "models": 20, "files": 5}]
    game = battle(system, block, block)
    game.to_phase(1, "Movement")
    moved = _move(game, "reform", files=5)  # in place: nobody moves
    assert (moved["used"], moved["allowance"]) == (0.0, allowance)


def test_a_t9a_about_face_reform_is_within_twice_the_advance_rate() -> None:
    """Citizen Spears (Advance Rate 5) turning round by a Reform move their models 3.9 in:
    within the 10 in a 2nd-edition Reform allows a model (issue 17 item 3; this test encoded the
    old half-Advance-Rate cap, 2.5 in, before); 12 files is more than 3 files' change."""
    block = [{"datasheet": "citizen-spears", "models": 20, "files": 5}]
    game = battle("t9a", block, block)
    game.to_phase(1, "Movement")
    err = game.refused(1, type="move_unit", unit="u1", manoeuvre="reform", files=9, facing=180)
    assert (err.code, err.details["rule"]) == ("illegal_move", "Reform")
    moved = _move(game, "reform", files=5, facing=180)
    assert moved["allowance"] == 10.0
    assert moved["used"] == pytest.approx(3.937, abs=1e-3)


def _boyz() -> Game:
    squad = [{"datasheet": "boyz", "models": 10}]
    game = battle("wh40k10", squad, squad)
    game.to_phase(1, "Movement")
    return game


def _shifted(game: Game, dy: float) -> list[list[float]]:
    return [[x, y + dy] for x, y in game.unit("u1").positions]


def test_40k_models_move_up_to_their_move_once_a_phase() -> None:
    """Boyz (M 6): 7 in is refused naming the allowance; 5 in is a normal move; a second
    move, or an Advance after it, is refused (One Move per Phase)."""
    game = _boyz()
    err = game.refused(1, type="move_models", unit="u1", positions=_shifted(game, 7))
    assert (err.code, err.details["rule"], err.details["allowance"]) == (
        "illegal_move", "Move Distance", 6.0
    )
    before = game.unit("u1").positions
    events = game.act(1, type="move_models", unit="u1", positions=_shifted(game, 5))
    payload = events[0].payload
    assert (payload["used"], payload["allowance"], payload["mode"]) == (5.0, 6.0, "normal")
    assert game.unit("u1").positions == tuple((x, y + 5) for x, y in before)
    for action in ({"type": "move_models", "unit": "u1", "positions": _shifted(game, 1)},
                   {"type": "advance", "unit": "u1"}):
        err = game.refused(1, **action)
        assert (err.code, err.details["rule"]) == ("illegal_move", "One Move per Phase")


def test_40k_moves_give_every_model_a_position_and_no_manoeuvres() -> None:
    game = _boyz()
    positions = [list(p) for p in game.unit("u1").positions[:3]]
    err = game.refused(1, type="move_models", unit="u1", positions=positions)
    assert (err.code, err.details) == ("bad_request", {"field": "positions"})
    err = game.refused(1, type="move_unit", unit="u1", manoeuvre="forward", distance=1)
    assert (err.code, err.message) == ("bad_request", "40k units move model by model: use "
                                       "move_models")
