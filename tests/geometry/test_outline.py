"""Terrain outlines (issue 12 item 5): a degenerate or self-crossing ring is named, not repaired.

Before, a bowtie was silently replaced by its convex hull (drawn one shape, judged another) and
three identical or collinear points failed an `assert` (a 500)."""

from __future__ import annotations

import pytest

from server.geometry.table import Terrain, outline_problem


def test_a_simple_outline_has_no_problem() -> None:
    assert outline_problem([(0, 0), (4, 0), (4, 4), (0, 4)]) is None
    assert outline_problem([(0, 0), (4, 0), (2, 3)]) is None
    # A repeated point is harmless: the ring is still simple.
    assert outline_problem([(0, 0), (4, 0), (4, 0), (4, 4), (0, 4)]) is None
    # Concave is fine.
    assert outline_problem([(0, 0), (6, 0), (6, 6), (3, 2), (0, 6)]) is None


def test_identical_points_are_named() -> None:
    assert outline_problem([(1, 1), (1, 1), (1, 1)]) == (
        "it needs at least 3 distinct points (it has 1)"
    )
    assert outline_problem([(1, 1), (2, 1), (1, 1), (2, 1)]) == (
        "it needs at least 3 distinct points (it has 2)"
    )


def test_collinear_points_are_named() -> None:
    assert outline_problem([(1, 1), (2, 2), (3, 3)]) == (
        "all its points lie on one line, so it has no area"
    )
    assert outline_problem([(0, 5), (10, 5), (4, 5), (7, 5)]) == (
        "all its points lie on one line, so it has no area"
    )


def test_a_bowtie_is_named_with_where_it_crosses() -> None:
    problem = outline_problem([(1, 1), (5, 5), (5, 1), (1, 5)])
    assert problem is not None and problem.startswith("it crosses or touches itself at (3, 3)")


def test_a_ring_touching_itself_is_named() -> None:
    # Two squares meeting at one corner, drawn as one ring: not a simple polygon.
    problem = outline_problem([(0, 0), (2, 0), (2, 2), (0, 2), (0, 0), (-2, 0), (-2, -2),
                               (0, -2)])
    assert problem is not None and "(0, 0)" in problem


def test_a_degenerate_outline_in_an_old_log_is_a_value_error_not_an_assert() -> None:
    with pytest.raises(ValueError, match="one line"):
        _ = Terrain("ter1", ((1, 1), (2, 2), (3, 3))).polygon
