"""A 40k game ends like every other system's: one public `game_result` before `game_ended`,
the shape server/rules/endgame.py gives t9a and whfb8 (Victory Points, lines, win / draw /
loss, margin), from the VP scored on the objective markers (FACTS.md, the objective Decision:
"most VP wins")."""

from __future__ import annotations

from typing import Any

from server.rules.core import Event, GameState
from server.rules.t9a.results import game_result as t9a_game_result
from tests.rules.test_battle import act, t9a_deployed
from tests.rules.wh40k10.game import block, deployed, place, row, with_forty


def play_to_the_end(state: GameState) -> tuple[GameState, list[Event]]:
    """End every phase until the game is over; the whole log of the battle."""
    log: list[Event] = []
    for _ in range(200):
        if state.over:
            return state, log
        state, events = act(state, int(state.battle.active_player), type="end_phase")
        log += events
    raise AssertionError("the game did not end")


def t9a_result_keys() -> set[str]:
    result = t9a_game_result(t9a_deployed(), None)
    assert result is not None
    return set(result.to_payload("last turn played"))


def holding_two_markers() -> GameState:
    """The Boyz on the centre marker and the one in player 1's left quarter (obj1, obj2); the
    Intercessors far from every marker."""
    state = deployed()
    state = place(state, "u1", [(30.0, 22.0)] + block(10, 11.0, x0=10.5, per_row=3))
    return place(state, "u2", row(5, 40.0, x0=24.0))


def test_a_40k_game_played_to_its_end_produces_the_shared_game_result() -> None:
    """Player 1 holds two markers from battle round 2 to 5: 10 VP at the end of each of their
    Command phases from round 2, 40 in all; player 2 holds none. One `game_result` with t9a's
    keys comes just before `game_ended`; its scores are the VP, its lines say where they came
    from, player 1 wins by 40 VP; players and spectators see it."""
    state, log = play_to_the_end(holding_two_markers())
    found = [e for e in log if e.type == "game_result"]
    assert len(found) == 1
    assert [e.type for e in log[-2:]] == ["game_result", "game_ended"]
    result: dict[str, Any] = found[0].payload
    assert set(result) == t9a_result_keys()
    assert result["scores"] == {"1": 40, "2": 0} == state.to_json()["forty"]["vp"]
    assert result["results"] == {"1": "win", "2": "loss"} and result["winner"] == 1
    assert result["margin"] == "by 40 VP" and result["reason"] == "last turn played"
    assert [(line["seat"], line["points"]) for line in result["lines"]] == [(1, 10)] * 4
    assert result["lines"][0]["text"] == (
        "2 objective markers controlled (battle round 2, end of the Command phase)")
    assert result["conceded_by"] is None
    assert result["text"] == "Player 1 wins (by 40 VP): 40 - 0 Victory Points"
    assert log[-1].payload == {"reason": "last turn played", "winner": 1}
    assert not [e for e in log if e.type == "result_declared"]  # one result, the shared one
    for viewer in (1, 2, None):
        view = state.to_json(viewer)
        assert view["game_result"] == result and view["stage"] == "over"


def test_equal_victory_points_at_the_end_are_a_draw() -> None:
    state = with_forty(place(deployed(), "u2", row(5, 40.0, x0=24.0)), vp={"1": 5, "2": 5})
    state = place(state, "u1", block(11, 4.0, x0=24.0))  # on no marker: nobody scores more
    _, log = play_to_the_end(state)
    result = next(e.payload for e in log if e.type == "game_result")
    assert result["scores"] == {"1": 5, "2": 5} and result["winner"] is None
    assert result["results"] == {"1": "draw", "2": "draw"} and result["margin"] is None
    assert log[-1].payload["winner"] is None


def test_a_40k_concession_ends_with_the_shared_game_result_and_the_opponent_wins() -> None:
    """Player 2 concedes 10 VP ahead: the VP stand as scored, player 1 wins the game."""
    state = with_forty(deployed(), vp={"1": 0, "2": 10})
    state, events = act(state, 2, type="concede")
    assert [e.type for e in events] == ["game_result", "game_ended"]
    result = events[0].payload
    # (the first event of an action names who took it: `action_by`, what an undo takes back)
    assert set(result) - {"action_by"} == t9a_result_keys()
    assert result["scores"] == {"1": 0, "2": 10} and result["conceded_by"] == 2
    assert result["winner"] == 1 and result["results"] == {"1": "win", "2": "loss"}
    assert result["text"] == "Player 1 wins: 0 - 10 Victory Points; Player 2 conceded"
    assert events[1].payload["winner"] == 1 and state.over


def test_a_log_stored_with_the_old_result_declared_event_still_folds_to_its_end() -> None:
    """Games stored before 40k ended with `game_result` hold `result_declared` before their
    `game_ended`: they still fold, to the winner they recorded."""
    from tests.rules.test_battle import fold

    old = [Event("result_declared", {"vp": {"1": 20, "2": 5}, "winner": 1,
                                     "text": "Victory points 20 to 5: player 1 wins"}),
           Event("game_ended", {"reason": "last turn played", "winner": 1})]
    state = fold(with_forty(deployed(), vp={"1": 20, "2": 5}), old)
    assert state.over and state.to_json()["winner"] == 1
    assert state.outcome.declared_winner == 1 and state.to_json()["game_result"] is None
