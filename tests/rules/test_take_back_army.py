"""Taking back a submitted army while the opponent has not submitted theirs (`take_back` in
setup with both seats taken): nobody has built on it yet, so it needs no agreement. Anything
else with both seats taken stays an undo by agreement (`propose`)."""

from __future__ import annotations

from server.rules import core
from server.rules.orders import orders_for
from server.rules.units import units_of
from tests.rules.helpers import Game

SPEARS = {"datasheet": "citizen-spears", "models": 10}
ARCHERS = {"datasheet": "citizen-archers", "models": 10}


def test_a_submitted_army_is_taken_back_before_the_opponent_submits() -> None:
    """Player 1 submits, takes the army back at once (no proposal), and submits another; the
    state is the log without the first army, and a replay agrees."""
    game = Game()
    game.act(1, type="submit_army", units=[SPEARS])
    offer = orders_for(game.state, 1)["game"]["take_back"]
    assert offer["available"] and offer["undo"]["events"][0]["type"] == "army_submitted"
    (undone,) = game.act(1, type="take_back")
    assert undone.type == "events_undone"
    assert game.state.muster.armies == () and units_of(game.state) == {}
    assert "take_back" not in orders_for(game.state, 1)["game"]
    game.act(1, type="submit_army", units=[ARCHERS])
    assert [u.datasheet for u in units_of(game.state).values()] == ["citizen-archers"]
    assert core.replay(game.log).to_json() == game.state.to_json()
    # Once the opponent's army is in, deployment has begun: nothing to take back alone.
    game.act(2, type="submit_army", units=[SPEARS])
    assert game.state.battle.stage == "deployment"
    assert "take_back" not in orders_for(game.state, 1)["game"]
    assert game.refused(1, type="take_back").code == "out_of_phase"


def test_only_the_army_is_taken_back_without_agreement() -> None:
    """With both seats taken, terrain placed after the army is an undo by agreement; and once
    the opponent has acted since the army went in, the order says why it cannot be taken back."""
    game = Game()
    game.act(1, type="submit_army", units=[SPEARS])
    game.act(1, type="place_terrain", kind="cover", points=[[10, 10], [14, 10], [14, 14]])
    err = game.refused(1, type="take_back")
    assert (err.code, err.details["rule"]) == ("out_of_phase", "Undo")
    game = Game()
    game.act(1, type="submit_army", units=[SPEARS])
    game.act(2, type="place_terrain", kind="cover", points=[[10, 10], [14, 10], [14, 14]])
    offer = orders_for(game.state, 1)["game"]["take_back"]
    assert offer["available"] is False and "player 2 has acted" in offer["reason"]
    assert game.refused(1, type="take_back").code == "illegal_move"
    # Player 2, with no army in, has no army to take back.
    assert "take_back" not in orders_for(game.state, 2)["game"]
