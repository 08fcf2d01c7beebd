"""Distances in words are rounded one way everywhere (docs/rules-decisions.md "Distances in
words"): to 0.1 in, half away from zero, on the decimal a person reads (8.25 and 8.35 both go
up), so the same distance never reads 8.3 in one message and 8.2 in another. The client's
`inches` (static/js/format.js) rounds the same values the same way (static/tests/format.test.js).
"""

from __future__ import annotations

import pytest

from server.rules.naming import say_inches, tenths

CASES = [
    (8.25, "8.3"),   # Python's own round() and "%.1f" say 8.2 here
    (8.35, "8.4"),   # 8.35 is 8.34999… as a float; the person reads 8.35
    (8.02, "8.0"),
    (7.96, "8.0"),
    (0.05, "0.1"),
    (0.04, "0.0"),
    (-0.04, "0.0"),  # no "-0.0"
    (-2.25, "-2.3"),
    (12, "12.0"),
    (2.449999, "2.4"),
]


@pytest.mark.parametrize(("value", "said"), CASES)
def test_tenths_round_half_away_from_zero(value: float, said: str) -> None:
    assert tenths(value) == said


def test_inches_says_the_unit() -> None:
    assert say_inches(8.25) == "8.3 in"
    assert say_inches(3) == "3.0 in"


def test_a_distance_just_over_its_limit_says_so_rather_than_reading_equal() -> None:
    assert say_inches(8.02, 8) == "just over 8.0 in"
    assert say_inches(8.02, 7) == "8.0 in"
    assert say_inches(11.98, 12) == "just under 12.0 in"
    assert say_inches(8, 8) == "8.0 in"
    assert say_inches(8.2, 8) == "8.2 in"
