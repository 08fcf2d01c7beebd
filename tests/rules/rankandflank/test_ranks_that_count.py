"""One judgement of the ranks that count, shared by the combat result (rank bonus, Disrupted)
and the Break Test after it (Steadfast), in both rank-and-flank systems
(../shared/rules/FACTS.md: "+1 per extra rank of 5+ models, at most +3", Steadfast "more ranks
than the enemy"; docs/rules-decisions.md "Ranks that count")."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from server.rules.core import Event, GameState
from server.rules.rankandflank import combat_result
from server.rules.state import JoinedCharacter
from server.rules.units import table_of, units_of
from tests.rules.t9a import test_combat as t9a
from tests.rules.whfb8 import positions as whfb8

PLACES = {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)}

Position = Callable[[int, tuple[JoinedCharacter, ...], int], GameState]
BreakTest = Callable[[GameState], tuple[GameState, list[Event]]]


def t9a_block(
    models: int, characters: tuple[JoinedCharacter, ...] = (), files: int = 5
) -> GameState:
    """Citizen Spears (player 2, u2), `models` rank-and-file `files` wide, charged by three
    Gremlins (Light Troops: zero Proper Ranks)."""
    state = t9a.position(
        [{"datasheet": t9a.GREMLINS, "models": 3}],
        [{"datasheet": t9a.SPEARS, "models": models, "files": files}],
        PLACES,
    )
    return _joined(t9a.charged(state, "u1", "u2"), characters)


def whfb8_block(
    models: int, characters: tuple[JoinedCharacter, ...] = (), files: int = 5
) -> GameState:
    """Empire Halberdiers (player 2, u2), `models` rank-and-file `files` wide, charged by a
    Tomb Swarm (Skirmishers: zero ranks)."""
    army = {**whfb8.HALBERDIERS, "models": models, "files": files}
    return _joined(whfb8.swarm_charged(army), characters)


def _joined(state: GameState, characters: tuple[JoinedCharacter, ...]) -> GameState:
    if not characters:
        return state
    units = dict(units_of(state))
    units["u2"] = dataclasses.replace(units["u2"], characters=characters)
    return state.evolve(units=units)


def t9a_break_test(state: GameState) -> tuple[GameState, list[Event]]:
    return t9a.break_test(state, "u2", 1, 0, [3, 3])


def whfb8_break_test(state: GameState) -> tuple[GameState, list[Event]]:
    return whfb8.break_test(state, "u2", 1, 0, [3, 3])


SYSTEMS = [
    pytest.param(t9a_block, t9a_break_test, "Proper Ranks", id="t9a"),
    pytest.param(whfb8_block, whfb8_break_test, "ranks", id="whfb8"),
]


def judged(
    state: GameState, break_test: BreakTest
) -> tuple[int, int, dict[str, str] | None]:
    """(ranks counted, the rank bonus in the combat result, the Break Test's Steadfast note)
    for the Spears / Halberdiers as they stand."""
    ranks = combat_result.proper_ranks(state, units_of(state)["u2"])
    scores = combat_result.combat_score(state, ["u1", "u2"], {1: 3})
    _, events = break_test(state)
    test = events[0].payload
    note = next((r for r in test["rules"] if r["rule"] == "Steadfast"), None)
    assert test["steadfast"] is (note is not None)
    return ranks, scores[2]["rank_bonus"], note


@pytest.mark.parametrize(("block", "break_test", "word"), SYSTEMS)
def test_twelve_models_five_wide_count_two_ranks_for_the_bonus_and_for_steadfast(
    block: Position, break_test: BreakTest, word: str
) -> None:
    """12 models five wide: two full ranks of 5 and 2 in a third. Two ranks count: +1 rank
    bonus (one rank after the first) and Steadfast on 2 against the enemy's 0."""
    state = block(12, (), 5)
    assert table_of(state).units["u2"].rank_widths == (5, 5, 2)
    ranks, bonus, note = judged(state, break_test)
    assert (ranks, bonus) == (2, 1)
    assert note is not None and note["text"].startswith(f"Steadfast: 2 {word} against 0")


@pytest.mark.parametrize(("block", "break_test", "word"), SYSTEMS)
def test_one_rank_is_spelled_singular_and_gives_no_bonus_but_is_steadfast(
    block: Position, break_test: BreakTest, word: str
) -> None:
    """10 models in one rank: one rank counts, no bonus (none after the first), Steadfast
    against 0 ranks."""
    ranks, bonus, note = judged(block(10, (), 10), break_test)
    assert (ranks, bonus) == (1, 0)
    assert note is not None and note["text"].startswith(f"Steadfast: 1 {word[:-1]} against 0")


def test_a_character_on_a_larger_base_fills_the_files_of_its_block_in_every_rank() -> None:
    """11 Spears (20 mm) and a Daemon Stalker (25 mm: a block two files wide and two ranks
    deep) five wide, 12 models: the grid is three full ranks of 5, so three Proper Ranks
    count: +2 rank bonus and Steadfast on 3. Counting the bases that start in each rank
    instead (4, 3, 5) found one rank: no rank bonus, then "Steadfast: 1" in the Break Test."""
    stalker = (JoinedCharacter("daemon-stalker", "Daemon Stalker"),)
    state = t9a_block(11, stalker)
    assert table_of(state).units["u2"].rank_widths == (5, 5, 5)
    ranks, bonus, note = judged(state, t9a_break_test)
    assert (ranks, bonus) == (3, 2)
    assert note is not None and note["text"].startswith("Steadfast: 3 Proper Ranks against 0")
