"""Results (issue 17 item 6): a t9a game played to the end of Game Turn 6 ends with Victory
Points, the Secondary Objective and the result, shown to players and spectators.

Seed 000 (000_ac64b535f31b5cdf.txt), Ambush: "A unit arriving on the Battlefield in Game Turn 6
loses Scoring." Breakthrough (the 2nd-edition Secondary Objective): the player with more Scoring
Units inside the opponent's Deployment Zone at the end of the game wins it.
"""

from __future__ import annotations

from typing import Any

import pytest

from server.rules.core import Event
from server.rules.t9a import ambush
from server.rules.units import units_of
from tests.rules.helpers import Game

ARMY_1 = [
    {"datasheet": "mageblight-gremlin", "models": 3},  # u1: 100 + 3 x 25 = 175
    {"datasheet": "daemon-herald", "models": 1},  # u2: 150 (one Army Book: Daemon Legions)
]
ARMY_2 = [{"datasheet": "citizen-spears", "models": 20, "files": 5}]  # u3: 25 + 20 x 11 = 245
EDGE_POINT = (60.0, 48.0)
"""On player 2's table edge: an arrival there stands in player 2's Deployment Zone."""


def deployed(objective: str = "breakthrough") -> Game:
    """The Gremlins in Ambush, the Herald and the Spears deployed; Breakthrough chosen in the
    pre-game."""
    game = Game("t9a")
    game.act(1, type="submit_army", units=ARMY_1)
    game.act(2, type="submit_army", units=ARMY_2)
    game.act(2, type="choose_secondary_objective", objective=objective)
    places: dict[str, dict[str, Any]] = {
        "u2": {"type": "deploy_unit", "unit": "u2", "x": 20, "y": 6},
        "u3": {"type": "deploy_unit", "unit": "u3", "x": 20, "y": 42, "facing": 180},
        "u1": {"type": "declare_reserve", "unit": "u1"},
    }
    while game.state.battle.stage != "battle":
        seat = int(game.state.battle.deploying)
        uid = next(u.id for u in units_of(game.state).values()
                   if u.owner == seat and u.status == "undeployed")
        game.act(seat, **places[uid])
    return game


def play_to_the_end(game: Game, monkeypatch: pytest.MonkeyPatch, arrive_in: int) -> list[Event]:
    """End phases to the end of the game; the Gremlins find no suitable arrival point before
    Game Turn `arrive_in` (the table stands in for a crowded one: `find_arrival` is the
    engine's own check that ends the Movement Phase with `ambush_delayed`), then arrive at
    player 2's edge."""
    real = ambush.find_arrival
    monkeypatch.setattr(
        ambush, "find_arrival",
        lambda state, unit, near=None: None if int(state.battle.turn) < arrive_in
        else real(state, unit, near),
    )
    arrived = False
    for _ in range(200):
        if game.state.over:
            return game.log
        battle = game.state.battle
        seat = int(battle.active_player)
        gremlins = units_of(game.state)["u1"]
        if (not arrived and seat == 1 and battle.phase == "Movement"
                and ambush.READY in gremlins.markers and int(battle.turn) >= arrive_in):
            found = real(game.state, gremlins, EDGE_POINT)
            assert found is not None
            point, placement, files = found
            game.act(1, type="arrive_from_ambush", unit="u1", point=list(point),
                     x=placement.x, y=placement.y, facing=placement.facing, files=files)
            arrived = True
            continue
        game.act(seat, type="end_phase")
    raise AssertionError("the game did not end")


def result_of(log: list[Event]) -> dict[str, Any]:
    found = [e for e in log if e.type == "game_result"]
    assert len(found) == 1 and log[-1].type == "game_ended"
    return found[0].payload


def test_gremlins_arriving_in_game_turn_6_do_not_score_breakthrough(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Gremlins arrive from Ambush in Game Turn 6 inside player 2's Deployment Zone: they
    lose Scoring, so nobody wins Breakthrough; no unit was destroyed: 0 - 0, a draw. The
    result is in the log and in the view of a player and of a spectator."""
    game = deployed()
    log = play_to_the_end(game, monkeypatch, arrive_in=6)
    arrival = next(e for e in log if e.type == "unit_arrived")
    assert "loses Scoring" in arrival.payload["text"]
    gremlins = units_of(game.state)["u1"]
    assert ambush.LOST_SCORING in gremlins.markers and gremlins.status == "on_table"
    result = result_of(log)
    [breakthrough] = result["objectives"]
    assert breakthrough["name"] == "Breakthrough" and breakthrough["winner"] is None
    assert breakthrough["counts"] == {"1": 0, "2": 0}
    assert "not Scoring (arrived from Ambush in Game Turn 6): Mageblight Gremlin" in (
        breakthrough["text"]
    )
    assert result["scores"] == {"1": 0, "2": 0}
    assert result["results"] == {"1": "draw", "2": "draw"} and result["winner"] is None
    assert log[-1].payload == {"reason": "last turn played", "winner": None}
    for viewer in (1, 2, None):
        view = game.state.to_json(viewer)
        assert view["game_result"]["text"] == result["text"]
        assert view["stage"] == "over"


def test_gremlins_arriving_in_game_turn_5_score_breakthrough_and_win(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same arrival in Game Turn 5 keeps Scoring: player 1 wins Breakthrough, worth 20%
    of the Army Points (325: the larger army) = 65 Victory Points; 65 - 0 is at least 10% of
    325 and at most 50%: a Win for player 1."""
    game = deployed()
    log = play_to_the_end(game, monkeypatch, arrive_in=5)
    result = result_of(log)
    [breakthrough] = result["objectives"]
    assert breakthrough["winner"] == 1 and breakthrough["counts"] == {"1": 1, "2": 0}
    assert result["scores"] == {"1": 65, "2": 0}
    assert result["winner"] == 1 and result["margin"] == "Win"
    assert result["results"] == {"1": "win", "2": "loss"}
    assert log[-1].payload == {"reason": "last turn played", "winner": 1}


def test_the_secondary_objective_is_chosen_before_the_battle() -> None:
    game = deployed()
    err = game.refused(1, type="choose_secondary_objective", objective="hold_the_ground")
    assert err.code == "out_of_phase"
    assert game.state.to_json(None)["secondary_objective"] == "breakthrough"


def test_a_concession_ends_the_game_with_the_conceding_army_destroyed() -> None:
    """Decision (docs/rules-decisions.md "Results"): the conceding player's units count as
    destroyed and the opponent wins: player 2 concedes, player 1 scores the Spears' 245."""
    game = deployed()
    events = game.act(2, type="concede")
    assert [e.type for e in events] == ["game_result", "game_ended"]
    result = events[0].payload
    assert result["scores"] == {"1": 245, "2": 0} and result["conceded_by"] == 2
    assert result["winner"] == 1 and result["results"] == {"1": "win", "2": "loss"}
    assert events[1].payload == {"reason": "concede", "winner": 1}
    assert game.state.over


def test_destroyed_units_score_their_full_cost() -> None:
    """2nd-edition rules, Scoring Victory Points: a destroyed enemy unit is worth its full
    Point Cost: the Herald (150) destroyed gives player 2 150 Victory Points, 46.2% of the 325
    Army Points (between 10% and 50%): a Win for player 2."""
    import dataclasses

    from server.rules.t9a.results import game_result
    from server.rules.units import with_unit

    game = deployed()
    herald = units_of(game.state)["u2"]
    state = with_unit(game.state, dataclasses.replace(herald, models=0, status="destroyed"))
    result = game_result(state, None)
    assert result is not None
    assert dict(result.scores) == {1: 0, 2: 150}
    assert result.winner == 2 and result.margin == "Win"
    assert [line.text for line in result.lines] == ["Daemon Herald (Daemon Herald) destroyed"]


def test_hold_the_ground_gives_a_counter_from_the_second_game_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Hold the Ground (2nd edition): at the end of each Game Turn after the first, the player
    with more Scoring Units within 6 in of the centre (36, 24) gains a counter. The Herald
    stands 4 in from it; nothing at the end of Game Turn 1, a counter at the end of Game Turn 2;
    a unit that lost Scoring would not count."""
    monkeypatch.setattr(ambush, "find_arrival", lambda state, unit, near=None: None)
    game = deployed("hold_the_ground")
    game.put("u2", 36.0, 20.0, 0.0)
    counters: list[Event] = []
    while int(game.state.battle.turn) < 3:
        counters += [e for e in game.act(int(game.state.battle.active_player), type="end_phase")
                     if e.type == "objective_counter"]
    [counter] = counters
    assert counter.payload["turn"] == 2 and counter.payload["gained"] == 1
    assert counter.payload["counts"] == {"1": 1, "2": 0}
    assert game.state.to_json(None)["objective_counters"] == {"1": 1, "2": 0}
    import dataclasses

    from server.rules.t9a.results import near_centre, scoring

    herald = units_of(game.state)["u2"]
    assert herald in near_centre(game.state)[1] and scoring(herald)
    assert not scoring(dataclasses.replace(herald, markers=(ambush.LOST_SCORING,)))


def test_both_players_are_offered_the_secondary_objectives_before_the_battle() -> None:
    """Secondary Objectives (2nd edition): set in the pre-game. Both players are offered the two
    objectives with their words and the one set now; once the battle starts nobody is."""
    game = Game("t9a")
    game.act(1, type="submit_army", units=ARMY_1)
    for seat in (1, 2):
        offer = game.state.to_json(seat)["orders"]["game"]["choose_secondary_objective"]
        assert offer["available"] and offer["current"] is None
        assert [o["name"] for o in offer["objectives"]] == ["Hold the Ground", "Breakthrough"]
    assert "choose_secondary_objective" not in game.state.to_json(None)["orders"]["game"]
    game.act(2, type="choose_secondary_objective", objective="hold_the_ground")
    assert game.state.to_json(1)["orders"]["game"]["choose_secondary_objective"]["current"] == (
        "hold_the_ground")
    battle = deployed()
    assert "choose_secondary_objective" not in battle.state.to_json(1)["orders"]["game"]
