"""Shortest paths around obstacles (server/geometry/paths.py), worked by hand: WFB 8th
Skirmishers, seed 002: "when there is a unit or impassable terrain in the way, the distance
moved must include the distance required to move around these obstacles"."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

from server.geometry.paths import grow, model_assignment, shortest_lengths, shortest_path


def test_in_the_open_the_path_is_straight() -> None:
    assert shortest_lengths([(0, 0)], [(3, 4), (6, 8)], grow([], 0.5)).tolist() == [[5.0, 10.0]]


def test_around_a_block_by_its_corners() -> None:
    """A 2 x 4 in block from (4, -2) to (6, 2) between (0, 0) and (10, 0): over two corners,
    sqrt(4^2 + 2^2) + 2 + sqrt(4^2 + 2^2) = 10.944 in."""
    block = grow([shapely.box(4, -2, 6, 2)], 0.0)
    [[length]] = shortest_lengths([(0, 0)], [(10, 0)], block)
    assert length == pytest.approx(2 * math.hypot(4, 2) + 2)
    path = shortest_path((0, 0), (10, 0), block)
    assert path is not None and len(path) == 4
    assert [abs(y) for _, y in path[1:3]] == pytest.approx([2, 2])


def test_a_base_keeps_its_half_width_clear_of_the_block() -> None:
    """The same block grown by 0.5 in (half a 25 mm base, rounded): the centre goes round
    (3.5, 2.5) and (6.5, 2.5): 2 sqrt(3.5^2 + 2.5^2) + 3 = 11.602 in."""
    [[length]] = shortest_lengths([(0, 0)], [(10, 0)], grow([shapely.box(4, -2, 6, 2)], 0.5))
    assert length == pytest.approx(2 * math.hypot(3.5, 2.5) + 3)


def test_through_a_gap_or_around_the_wall_when_the_gap_is_too_narrow() -> None:
    """A wall at x 4..5 with a 2 in gap at y -1..1; from (0, 5) to (10, 5). Points pass the
    gap: sqrt(32) + 1 + sqrt(41) = 13.060. Grown by 1.5 in the gap closes: round the top at
    (2.5, 11.5) and (6.5, 11.5): sqrt(2.5^2 + 6.5^2) + 4 + sqrt(3.5^2 + 6.5^2) = 18.347."""
    walls = [shapely.box(4, -10, 5, -1), shapely.box(4, 1, 5, 10)]
    [[gap]] = shortest_lengths([(0, 5)], [(10, 5)], grow(walls, 0.0))
    assert gap == pytest.approx(math.sqrt(32) + 1 + math.sqrt(41))
    [[around]] = shortest_lengths([(0, 5)], [(10, 5)], grow(walls, 1.5))
    assert around == pytest.approx(math.hypot(2.5, 6.5) + 4 + math.hypot(3.5, 6.5))


def test_an_end_inside_an_obstacle_cannot_be_reached() -> None:
    lengths = shortest_lengths([(0, 0)], [(5, 0), (10, 0)], grow([shapely.box(4, -2, 6, 2)], 0))
    assert math.isinf(lengths[0, 0]) and math.isfinite(lengths[0, 1])
    assert shortest_path((0, 0), (5, 0), grow([shapely.box(4, -2, 6, 2)], 0)) is None


@pytest.mark.parametrize(
    ("lengths", "allowance", "expected"),
    [([[1, 5], [2, 1]], 4, [0, 1]), ([[5, 1], [1, 5]], 4, [1, 0]),
     ([[5, 5], [1, 1]], 4, None), ([[3, 4], [4, 3.5]], 4, [0, 1]),
     ([[1, 4], [1, 2]], 4, [0, 1])],
)
def test_each_model_takes_a_place_within_its_allowance(
    lengths: list[list[float]], allowance: float, expected: list[int] | None
) -> None:
    """Every model must reach one place of the new formation within its allowance; the
    longest path is made as short as possible ([[1, 4], [1, 2]]: 1 and 2 rather than 4 and 1,
    longest 2)."""
    assert model_assignment(np.array(lengths, dtype=float), allowance) == expected
