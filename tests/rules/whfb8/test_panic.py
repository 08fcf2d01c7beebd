"""whfb8 Panic when a friend within 6 in breaks (FACTS whfb8 "Panic": "2D6 <= Ld or flee, when
a friendly unit within 6 in is destroyed or breaks"); friends it flees through:
tests/rules/whfb8/test_battle.py; 25 % casualties: tests/rules/whfb8/test_heavy_casualties.py."""

from __future__ import annotations

import pytest

from tests.rules.t9a.test_combat import charged
from tests.rules.whfb8.positions import HALBERDIERS, SWARM, break_test, position, unit

HANDGUNNERS_P2 = {"datasheet": "empire-handgunners", "models": 10, "files": 5}


@pytest.mark.parametrize(("roll", "passed"), [([3, 3], True), ([6, 5], False)])
def test_a_friend_breaking_within_6_in_makes_a_unit_test(roll: list[int], passed: bool) -> None:
    """The Halberdiers (x 34.03..37.97) break (12 against 7 - 2) and flee 5 + 5 = 10 in
    straight back, away from the Tomb Swarm; the Handgunners beside them (x 40.53..44.47, 2.56
    in away, not in the flee's way) test Panic on Ld 7: 6 passes; 11 fails and they flee 2 + 2
    = 4 in. Then the Swarm pursues 1 + 1 = 2 in. Neither the Swarm they fought nor the
    Handgunners are "passed through" (no Panic for that, no Dangerous Terrain note)."""
    flee = [] if passed else [2, 2]
    state = charged(
        position(
            [SWARM],
            [HALBERDIERS, HANDGUNNERS_P2],
            {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0), "u3": (42.5, 30.0, 180.0)},
        ),
        "u1",
        "u2",
    )
    state, events = break_test(state, "u2", 2, 4, [6, 6] + [5, 5] + roll + flee + [1, 1])
    fled = next(e.payload for e in events if e.type == "unit_fled" and e.payload["unit"] == "u2")
    # It turns away from the Swarm it touched and the Handgunners beside it: neither is passed
    # through (flee.py: what the way overlaps, not what it touches).
    assert fled["passed_through"] == []
    assert "passed through" not in fled["text"]
    panics = [e.payload for e in events if e.type == "panic_test"]
    assert [(p["unit"], p["passed"]) for p in panics] == [("u3", passed)]
    assert "Empire Halberdiers" in panics[0]["text"]
    assert ("fleeing" in unit(state, "u3").markers) is not passed
