"""A released Fanatic's later move (a scatter die, then 2D6, a double or not) accounts for every
draw it makes: its rolls, wherever the event keeps them, recompute from the seed and cover the
stream from where the move began to where it ended, with no gap (the dice proof of the game)."""

from __future__ import annotations

from server import dice
from server.dice import DiceStream
from server.rules import core
from server.rules.core import Event
from tests.rules.helpers import SEED
from tests.rules.whfb8.test_fanatics import released_pair

SEEDS = [bytes([n]) * 32 for n in range(1, 13)] + [SEED]


def test_every_draw_of_a_fanatic_move_is_in_its_events() -> None:
    state, first, _ = released_pair(([3, 1], [34.5, 16.0], 90.0), ([2, 1], [37.5, 16.0], 270.0))
    state = core.fold(state, Event("phase_ended", {"ended": "Close Combat", "turn": 2,
                                                   "active_player": 1, "phase": "Movement"}))
    kinds: set[str] = set()
    for seed in SEEDS:
        stream = DiceStream(seed, state.dice_position)
        events = core.decide(state, 1, {"type": "random_move", "unit": first}, stream)
        assert events[0].type == "fanatic_moved"
        kinds.add("double" if any(e.type == "fanatic_removed" for e in events) else "moved")
        rolls = [r for e in events for r in core.rolls_of(e.payload)]
        assert all(c.ok for c in dice.replay(seed, rolls)), seed
        expected = state.dice_position
        for roll in rolls:
            assert roll["start"] == expected, (seed, [r["expression"] for r in rolls])
            expected = roll["end"]
        assert expected == stream.position
        assert core.dice_end(events[0].payload) is not None
    assert kinds == {"double", "moved"}
