"""whfb8 results (issue 17 item 6): Victory Points as FACTS.md lists them for the 8th edition
(the full points value of every enemy unit destroyed or fled off the table; units still
fleeing on the table score nothing) and the winner by 100 or more (docs/rules-decisions.md
"Results")."""

from __future__ import annotations

import dataclasses

from server.rules.markers import FLEEING
from server.rules.units import units_of, with_unit
from server.rules.whfb8.results import game_result
from tests.rules.helpers import battle

ARMY_1 = [{"datasheet": "empire-halberdiers", "models": 20, "files": 5}]  # 20 x 6 = 120
ARMY_2 = [
    {"datasheet": "skeleton-warriors", "models": 20, "files": 5},  # 20 x 4 = 80
    {"datasheet": "tomb-swarm", "models": 3},  # 3 x 40 = 120
]


def test_destroyed_units_score_and_fleeing_ones_do_not() -> None:
    game = battle("whfb8", ARMY_1, ARMY_2)
    units = units_of(game.state)
    state = with_unit(game.state, dataclasses.replace(units["u2"], models=0, status="destroyed"))
    state = with_unit(state, dataclasses.replace(units["u3"], markers=(FLEEING,)))
    result = game_result(state, None)
    assert result is not None
    assert dict(result.scores) == {1: 80, 2: 0}
    assert result.winner is None  # 80 more: under 100, a draw
    assert result.to_payload("last turn")["rule"] is not None and "100 Victory Points" in str(
        result.rule)  # (and the result says why: a playtest's "A draw" at 80 - 0 did not)
    state = with_unit(state, dataclasses.replace(units["u3"], models=0, status="destroyed"))
    result = game_result(state, None)
    assert result is not None
    assert dict(result.scores) == {1: 200, 2: 0}
    assert result.winner == 1 and result.margin == "Crushing Victory"


def test_a_concession_is_a_massacre_for_the_opponent() -> None:
    game = battle("whfb8", ARMY_1, ARMY_2)
    events = game.act(1, type="concede")
    result = events[0].payload
    assert result["winner"] == 2 and result["margin"] == "Massacre"
    assert result["scores"] == {"1": 0, "2": 120}
    assert events[-1].payload == {"reason": "concede", "winner": 2}

