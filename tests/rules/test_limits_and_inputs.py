"""Hostile inputs to the pure engine (issue 12 items 4g and 5): per-game limits on tokens,
terrain and notes; coordinates finite and near the table; facings normalised; terrain outlines
that are degenerate or cross themselves refused with `bad_request` naming the problem.

Not rules of any game system: these are limits of the table (docs/protocol.md, "Limits").
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rules import core, questions
from server.rules.core import RuleError
from server.rules.setup import MAX_TERRAIN_PIECES
from server.rules.table import MAX_NOTE_CHARS, MAX_NOTES, MAX_TOKENS
from server.rules.units import MAX_BATTLEFIELD_IN, TABLE_MARGIN_IN, terrain_of
from tests.rules.helpers import Game

HOSTILE_NUMBERS = [math.nan, math.inf, -math.inf, 1e300, -1e300, 1e20]


def _tokens(game: Game, count: int) -> None:
    for i in range(count):
        game.act(1 + i % 2, type="place_token", x=1 + i % 70, y=1 + (i // 70) % 46)


def test_token_limit_per_game() -> None:
    """The 401st token is refused with `bad_request` naming the limit; removing one makes room,
    and a full table's `welcome` state stays small (3,000 tokens made 590 KB)."""
    game = Game()
    _tokens(game, MAX_TOKENS)
    assert len(game.state.tokens) == MAX_TOKENS == 400
    err = game.refused(1, type="place_token", x=10, y=10)
    assert err.code == "bad_request"
    assert err.details == {"field": "tokens", "limit": MAX_TOKENS}
    assert "at most 400 tokens" in err.message
    assert len(json.dumps(game.state.to_json(1))) < 100_000
    game.act(1, type="remove_token", id="t1")
    game.act(1, type="place_token", x=10, y=10)
    assert len(game.state.tokens) == MAX_TOKENS


def test_terrain_limit_per_game() -> None:
    """The 65th terrain piece is refused with `bad_request` naming the limit."""
    game = Game()
    for i in range(MAX_TERRAIN_PIECES):
        x, y = 1 + (i % 16) * 4, 1 + (i // 16) * 4
        game.act(1, type="place_terrain", kind="cover",
                 points=[[x, y], [x + 2, y], [x + 2, y + 2], [x, y + 2]])
    assert len(terrain_of(game.state)) == MAX_TERRAIN_PIECES == 64
    err = game.refused(2, type="place_terrain", kind="cover",
                       points=[[1, 40], [3, 40], [3, 42], [1, 42]])
    assert (err.code, err.details) == ("bad_request", {"field": "terrain", "limit": 64})
    assert "at most 64 terrain pieces" in err.message


def test_note_limit_per_game() -> None:
    """The 501st note is refused with `bad_request` naming the limit; a note is at most 500
    characters."""
    game = Game()
    for i in range(MAX_NOTES):
        game.act(1 + i % 2, type="note", text=f"note {i}")
    assert game.state.notes == MAX_NOTES == 500
    err = game.refused(1, type="note", text="one more")
    assert (err.code, err.details) == ("bad_request", {"field": "notes", "limit": 500})
    assert "at most 500 notes" in err.message
    # Replaying the log counts the same notes.
    assert core.replay(game.log).notes == MAX_NOTES

    fresh = Game()
    fresh.act(1, type="note", text="x" * MAX_NOTE_CHARS)
    err = fresh.refused(1, type="note", text="x" * (MAX_NOTE_CHARS + 1))
    assert err.code == "bad_request" and err.details["field"] == "text"
    assert "500 characters" in err.message


def test_bowtie_terrain_is_refused_not_hulled() -> None:
    """A crossing outline used to become its convex hull: drawn as a bowtie, judged a square."""
    game = Game()
    err = game.refused(1, type="place_terrain", kind="impassable",
                       points=[[10, 10], [20, 20], [20, 10], [10, 20]])
    assert err.code == "bad_request" and err.details == {"field": "points"}
    assert "crosses or touches itself at (15, 15)" in err.message
    assert terrain_of(game.state) == ()


def test_collinear_terrain_is_refused() -> None:
    """Collinear or identical points failed an `assert` (a 500); now `bad_request`."""
    game = Game()
    err = game.refused(1, type="place_terrain", kind="cover", points=[[1, 1], [2, 2], [3, 3]])
    assert (err.code, err.details) == ("bad_request", {"field": "points"})
    assert "one line" in err.message
    err = game.refused(1, type="place_terrain", kind="cover", points=[[1, 1], [1, 1], [1, 1]])
    assert (err.code, err.details) == ("bad_request", {"field": "points"})
    assert "3 distinct points" in err.message
    assert terrain_of(game.state) == ()


@pytest.mark.parametrize("value", HOSTILE_NUMBERS)
def test_action_coordinates_must_be_finite_and_near_a_table(value: float) -> None:
    game = Game()
    game.act(1, type="place_token", x=5, y=5)
    for action in (
        {"type": "place_token", "x": value, "y": 5},
        {"type": "move_token", "id": "t1", "x": 5, "y": value},
        {"type": "place_terrain", "kind": "cover", "points": [[1, 1], [value, 1], [1, 3]]},
    ):
        err = game.refused(1, **action)
        assert err.code == "bad_request", (action, err.message)
    if not math.isfinite(value):
        assert game.refused(1, type="place_token", x=5, y=5, facing=value).code == "bad_request"


def test_the_schema_bound_is_the_largest_table_plus_the_margin() -> None:
    game = Game()
    limit = MAX_BATTLEFIELD_IN + TABLE_MARGIN_IN
    err = game.refused(1, type="place_token", x=limit + 0.5, y=5)
    assert err.code == "bad_request" and err.details["field"] == "x"
    # Within the bound but off this 72 x 48 table: the rule answers (Battlefield Edge).
    err = game.refused(1, type="place_token", x=limit, y=5)
    assert (err.code, err.details["rule"]) == ("illegal_move", "Battlefield Edge")


def test_facings_are_normalised() -> None:
    game = Game()
    game.act(1, type="place_token", x=5, y=5, facing=1e300)
    assert 0 <= game.state.tokens["t1"].facing < 360
    game.act(1, type="move_token", id="t1", x=6, y=5, facing=-90)
    assert game.state.tokens["t1"].facing == 270


@pytest.mark.parametrize("value", HOSTILE_NUMBERS)
def test_measure_refuses_points_far_off_this_table_with_bad_request(value: float) -> None:
    """The rules layer checks points against this game's table, whatever the caller."""
    game = Game()
    with pytest.raises(RuleError) as err:
        questions.measure(game.state, {"x": value, "y": 1}, {"x": 1, "y": 1})
    assert err.value.code == "bad_request" and err.value.details["field"] == "from"
    with pytest.raises(RuleError) as err:
        questions.measure(game.state, {"x": 1, "y": 1}, {"x": 72 + TABLE_MARGIN_IN + 1, "y": 1})
    assert err.value.code == "bad_request" and err.value.details["field"] == "to"
    with pytest.raises(RuleError) as err:
        questions.measure(game.state, {"x": "1", "y": True}, {"x": 1, "y": 1})
    assert err.value.code == "bad_request"
    on_edge = questions.measure(game.state, {"x": -TABLE_MARGIN_IN, "y": 0}, {"x": 0, "y": 0})
    assert on_edge["distance"] == TABLE_MARGIN_IN


NUMBERS = st.one_of(
    st.floats(),  # every float: NaN, infinities, subnormals, 1e308
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, 2, 36, 47.5, 72, -12]),
)
POINT = st.tuples(NUMBERS, NUMBERS).map(list)
ACTIONS = st.one_of(
    st.fixed_dictionaries({"type": st.just("place_token"), "x": NUMBERS, "y": NUMBERS,
                           "facing": NUMBERS, "width": NUMBERS}),
    st.fixed_dictionaries({"type": st.just("move_token"), "id": st.just("t1"), "x": NUMBERS,
                           "y": NUMBERS, "facing": NUMBERS}),
    st.fixed_dictionaries({"type": st.just("place_terrain"), "kind": st.just("impassable"),
                           "points": st.lists(POINT, min_size=3, max_size=6)}),
    st.fixed_dictionaries({"type": st.just("use_preset_table"),
                           "preset": st.just("village")}),
)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(actions=st.lists(ACTIONS, min_size=1, max_size=4),
       measure=st.tuples(st.one_of(st.fixed_dictionaries({"x": NUMBERS, "y": NUMBERS}),
                                   st.sampled_from(["t1", "ter1", "nothing"])),
                         st.fixed_dictionaries({"x": NUMBERS, "y": NUMBERS})))
def test_no_number_makes_the_table_fail_other_than_with_a_rule_error(
    actions: list[dict[str, Any]], measure: tuple[Any, Any]
) -> None:
    """Any numbers in the table's actions and in a measure: events or a `RuleError` with a
    documented code, never another exception (which the server would answer as a 500)."""
    game = Game()
    game.act(1, type="place_token", x=5, y=5)
    documented = {"bad_request", "not_found", "forbidden", "out_of_phase", "illegal_move"}
    for action in actions:
        try:
            game.act(1, **action)
        except RuleError as err:
            assert err.code in documented
    try:
        result = questions.measure(game.state, *measure)
    except RuleError as err:
        assert err.code in documented
    else:
        assert math.isfinite(result["distance"])
