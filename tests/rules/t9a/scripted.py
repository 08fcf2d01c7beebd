"""Scripted dice for rules tests: every D6 face is given in order, so a hand-worked position
gives hand-worked results (like `Scripted` in tests/test_dice.py, plus `roll` and `position`
so it can stand in for the game's `DiceStream` in `decide`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from fractions import Fraction
from itertools import product

from server.dice import Roll, parse_expression, resolve


class ScriptedDice:
    """Plays back `faces`; `position` advances by one per die, as the stream's does."""

    def __init__(self, faces: Iterable[int], position: int = 0) -> None:
        self._faces: Iterator[int] = iter(faces)
        self.position = position
        self.used = 0

    def d6(self) -> int:
        self.position += 1
        self.used += 1
        return next(self._faces)

    def uniform(self, n: int) -> int:
        raise AssertionError("no uniform draws in these tests")

    def roll(self, expression: str) -> Roll:
        spec = parse_expression(expression)
        start = self.position
        dice, total, extra = resolve(spec, self)
        return Roll(spec.canonical(), dice, total, start, self.position, extra)


def enumerate_dice(draws: int) -> Iterator[tuple[int, ...]]:
    """Every sequence of `draws` D6 faces, each equally likely."""
    return product(range(1, 7), repeat=draws)


def probability(hits: int, draws: int) -> Fraction:
    return Fraction(hits, 6**draws)
