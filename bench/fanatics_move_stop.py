"""How long the 8 in release check (server/rules/whfb8/fanatics.py `move_stop`) adds to a whfb8
`move_unit` (an 8 in march with N enemy units on the table, with and without concealed
Fanatics: the work is the same by design, so the times should match), and to a flee (the
goblins, concealing or not, flee from an enemy with 8 enemies on the table: a fleeing
concealing unit releases nothing, so both flees must take as long). Prints JSON.

    .venv/bin/python -m bench.fanatics_move_stop
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import time

from server.dice import DiceStream
from server.rules import core
from server.rules.core import Event, GameState
from server.rules.units import units_of
from tests.rules.test_battle import act, fold, new_game

GOBLINS = {"datasheet": "night-goblins", "models": 20, "files": 5}
HALBERDIERS = {"datasheet": "empire-halberdiers", "models": 10, "files": 5}
ENEMIES = 8
RUNS = 30


def game(fanatics: int) -> GameState:
    state = new_game("whfb8")
    goblins = {**GOBLINS, "concealed": {"night-goblin-fanatic": fanatics}} if fanatics else GOBLINS
    state, _ = act(state, 1, type="submit_army", units=[goblins])
    state, _ = act(state, 2, type="submit_army", units=[HALBERDIERS] * ENEMIES)
    state = fold(state, [Event("battle_started", {"turn": 1, "active_player": 2,
                                                  "phase": "Movement"})])
    units = dict(units_of(state))
    units["u1"] = dataclasses.replace(units["u1"], status="on_table", placement=(36.0, 6.0, 0.0))
    for i in range(ENEMIES):
        uid = f"u{i + 2}"
        units[uid] = dataclasses.replace(
            units[uid], status="on_table", placement=(4.0 + i * 8.5, 40.0, 180.0)
        )
    return state.evolve(units=units)


def timed(state: GameState) -> float:
    action = {"type": "move_unit", "unit": "u2", "manoeuvre": "forward", "distance": 8,
              "mode": "march"}
    samples = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        core.decide(state, 2, action, DiceStream(b"\0" * 32, state.dice_position))
        samples.append((time.perf_counter() - t0) * 1000)
    return round(statistics.median(samples), 3)


def timed_flee(state: GameState) -> float:
    """The goblins flee from the first enemy (server/rules/flee.py `flee_events`)."""
    from server.rules.flee import flee_events

    units = dict(units_of(state))
    units["u1"] = dataclasses.replace(units["u1"], placement=(36.0, 26.0, 180.0))
    state = state.evolve(units=units)
    samples = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        flee_events(state, "u1", "u2", DiceStream(b"\0" * 32, state.dice_position), "bench")
        samples.append((time.perf_counter() - t0) * 1000)
    return round(statistics.median(samples), 3)


if __name__ == "__main__":
    print(json.dumps({
        "enemies_of_the_mover": 1, "units_on_table": ENEMIES + 1, "march_in": 8,
        "median_ms_with_fanatics": timed(game(2)),
        "median_ms_without_fanatics": timed(game(0)),
        "flee_median_ms_with_fanatics": timed_flee(game(2)),
        "flee_median_ms_without_fanatics": timed_flee(game(0)),
    }))
