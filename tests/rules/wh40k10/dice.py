"""Scripted dice for the wh40k10 attack tests: every D6 face given in order, so a hand-worked
example gives hand-worked results; `enumerate_dice` feeds every sequence of faces for exact
probabilities (as tests/test_dice.py does for server.dice)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from itertools import product

from server.dice import Roll, parse_expression, resolve


class OutOfDice(AssertionError):
    """The scripted faces ran out: the sequence rolled more dice than the example gave."""


class ScriptedDice:
    """Plays back `faces`; `position` advances by one per die, as `DiceStream`'s does."""

    def __init__(self, faces: Iterable[int], position: int = 0) -> None:
        self._faces: Iterator[int] = iter(faces)
        self.position = position
        self.used = 0
        self.expressions: list[str] = []

    def d6(self) -> int:
        try:
            face = next(self._faces)
        except StopIteration:
            raise OutOfDice(f"ran out of scripted dice after {self.used}") from None
        self.position += 1
        self.used += 1
        return face

    def uniform(self, n: int) -> int:
        raise AssertionError("no uniform draws in 40k attacks")

    def roll(self, expression: str) -> Roll:
        spec = parse_expression(expression)
        start = self.position
        dice, total, extra = resolve(spec, self)
        self.expressions.append(spec.canonical())
        return Roll(spec.canonical(), dice, total, start, self.position, extra)


def expectation(draws: int, run: Callable[[ScriptedDice], Fraction | int]) -> Fraction:
    """E[run(dice)] over every sequence of `draws` D6 faces (each 6**-draws likely). A run
    that uses fewer dice leaves the rest unread, which changes nothing: they are independent."""
    total = Fraction(0)
    for faces in product(range(1, 7), repeat=draws):
        dice = ScriptedDice(faces)
        total += Fraction(run(dice))
        assert dice.used <= draws
    return total / 6**draws


def probability(draws: int, event: Callable[[ScriptedDice], bool]) -> Fraction:
    """P(event) over every sequence of `draws` D6 faces."""
    return expectation(draws, lambda dice: int(event(dice)))
