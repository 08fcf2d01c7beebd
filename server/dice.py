"""Seeded dice that nobody has to trust: a commit-reveal dice stream for every game.

Each game has a secret seed (``SEED_BYTES`` random bytes, made by the server, never by this
module). At creation the server publishes ``commitment(seed)``; when the game ends it reveals the
seed, and anyone can recompute every recorded roll with :func:`verify`. This module is pure: no
I/O, no clock, no global random state. The same (seed, position) always gives the same dice.

Derivation (enough to reimplement the check in any language)
-----------------------------------------------------------

* **Commitment**: ``commitment = lowercase hex of SHA-256(seed)``.
* **Block**: ``block(seed, i, a) = HMAC-SHA256(key=seed, msg=i as 8-byte big-endian ||
  a as 4-byte big-endian)``, where ``i`` is the draw index (the stream position, from 0) and
  ``a`` is the attempt number (from 0). Read the 32-byte block as a big-endian unsigned
  integer ``v``.
* **Draw i, uniform over n values** (``n`` = 6 for a die, 360000 for a direction): for
  ``a = 0, 1, 2, ...`` accept the first ``v`` with ``v < L = 2**256 - (2**256 mod n)`` and
  return ``v mod n``. Every residue has exactly ``L / n`` preimages below ``L``, so the result
  is exactly uniform (rejection sampling; for n = 6 a retry happens with probability 4 / 2**256).
  One draw always advances the position by exactly 1, retries included.
* **D6** = uniform over 6, plus 1. **D3** = one D6 draw halved, rounded up: raw 1-2 -> 1,
  3-4 -> 2, 5-6 -> 3; the die's ``face`` is the D3 value and ``raw`` the D6 draw.
* **Direction** (scatter arrow) = uniform over 360000, divided by 1000: degrees in [0, 360)
  with a resolution of a thousandth of a degree, which survives a JSON round trip exactly.
* **Scatter die (WFB)**: one D6 draw; 1-2 = "HIT", 3-6 = "arrow" (2 HIT faces, 4 arrows).
  An arrow takes the next draw as its direction, so it consumes 2 draws, a HIT 1.
* **Artillery die (WFB)**: one D6 draw; 1..6 -> 2, 4, 6, 8, 10, "MISFIRE".

A dice roll ``nDs`` (s = 6 or 3) with net ``k`` Maximised (or Minimised) instances and an
optional re-roll, starting at position ``p``:

1. Draw ``n + |k|`` dice at positions ``p, p+1, ...`` (these come first in ``Roll.dice``).
2. Re-roll, once: each of those dice whose face matches the re-roll condition, in draw order,
   is marked ``rerolled`` (and not kept) and a fresh die is drawn for it at the next position;
   fresh dice follow in ``Roll.dice`` in the same order, and ``extra["rerolls"]`` lists the
   ``[original index, new index]`` pairs.
3. Keep/discard (:func:`select_kept`): of the dice still standing, Maximised discards the ``k``
   lowest faces, Minimised the ``k`` highest; among equal faces the earlier-drawn die is
   discarded first. Each Maximised instance cancels one Minimised (The 9th Age).
4. ``total`` = sum of kept faces + the expression's constant.

The expression is recorded in a canonical form that says everything the roll asked for
(``"2D6+3"``, ``"D6 maximised x2"``, ``"3D6 minimised x1"``, ``"10D6 reroll <3"``,
``"D6 reroll 1,2"``, ``"scatter"``, ``"artillery"``), so ``DiceStream(seed, start).roll(
expression)`` recomputes any roll from its recorded start alone.

:func:`verify` checks ``SHA-256(seed)`` against the commitment, recomputes every recorded roll
(faces, raw D6 behind each D3, kept and re-rolled flags, total, end position, extra fields) and,
by default, that the rolls use the stream contiguously from position 0 (each starts where the
previous one ended), so no draw was made and hidden, or used twice.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import struct
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "ARTILLERY_FACES",
    "DIRECTION_STEPS",
    "MAX_DICE",
    "MISFIRE",
    "SCATTER_FACES",
    "SEED_BYTES",
    "DiceError",
    "DiceStream",
    "Die",
    "Draws",
    "Reroll",
    "Roll",
    "RollCheck",
    "RollSpec",
    "VerifyReport",
    "block",
    "commitment",
    "d3_from_d6",
    "draw_d6",
    "draw_uniform",
    "parse_expression",
    "replay",
    "resolve",
    "select_kept",
    "uniform_from_int",
    "verify",
]

SEED_BYTES = 32
"""Recommended seed length: the server makes seeds with ``os.urandom(SEED_BYTES)``."""

BLOCK_BITS = 256
DIRECTION_STEPS = 360_000
"""A scatter direction is one of 360000 equally likely thousandths of a degree."""
MISFIRE = "MISFIRE"
HIT = "HIT"
ARROW = "arrow"
SCATTER_FACES: tuple[str, ...] = (HIT, HIT, ARROW, ARROW, ARROW, ARROW)
"""Scatter die faces indexed by D6 draw - 1."""
ARTILLERY_FACES: tuple[int | str, ...] = (2, 4, 6, 8, 10, MISFIRE)
"""Artillery die faces indexed by D6 draw - 1."""
MAX_DICE = 1000
"""Most dice one roll may draw (a guard against absurd requests, not a game rule)."""


class DiceError(ValueError):
    """A malformed dice expression, re-roll condition or roll payload; the message quotes it."""


# --------------------------------------------------------------------------------------------
# The stream: draw i is a function of (seed, i) only.


def commitment(seed: bytes) -> str:
    """The published commitment to a seed: lowercase hex SHA-256 of the seed bytes."""
    _check_seed(seed)
    return hashlib.sha256(seed).hexdigest()


def block(seed: bytes, index: int, attempt: int = 0) -> int:
    """HMAC-SHA256(seed, index as 8-byte big-endian || attempt as 4-byte big-endian) as an int."""
    msg = struct.pack(">QI", index, attempt)
    return int.from_bytes(hmac.new(seed, msg, hashlib.sha256).digest(), "big")


def uniform_from_int(value: int, bits: int, n: int) -> int | None:
    """Map a uniform ``bits``-bit integer to a uniform value in [0, n), or None to reject it.

    Accepts ``value < 2**bits - (2**bits mod n)``, where every residue mod n occurs equally often.
    """
    if not 0 < n <= 1 << bits:
        raise ValueError(f"cannot draw uniformly over {n} values from {bits} bits")
    limit = (1 << bits) - ((1 << bits) % n)
    return value % n if value < limit else None


def draw_uniform(seed: bytes, index: int, n: int) -> int:
    """Draw ``index`` of the stream as a uniform integer in [0, n) (rejection sampling)."""
    if index < 0:
        raise ValueError(f"draw index must be >= 0, got {index}")
    attempt = 0
    while True:
        result = uniform_from_int(block(seed, index, attempt), BLOCK_BITS, n)
        if result is not None:
            return result
        attempt += 1


def draw_d6(seed: bytes, index: int) -> int:
    """Draw ``index`` of the stream as a D6 face, 1..6."""
    return draw_uniform(seed, index, 6) + 1


def d3_from_d6(raw: int) -> int:
    """D3 = D6 halved, rounded up (FACTS.md)."""
    return (raw + 1) // 2


class Draws(Protocol):
    """A source of draws: the live stream, or a scripted sequence in tests."""

    def d6(self) -> int: ...

    def uniform(self, n: int) -> int: ...


class Roller(Protocol):
    """Where the rules take dice from: the game's `DiceStream` (or scripted dice in tests)."""

    def roll(self, expression: str) -> Roll: ...


class DiceStream:
    """One game's dice: the draws of ``seed`` from ``position`` on.

    ``position`` counts the draws consumed so far; the server stores it with the game (or
    recovers it as the ``end`` of the last recorded roll) and continues from there.
    """

    def __init__(self, seed: bytes, position: int = 0) -> None:
        _check_seed(seed)
        if not isinstance(position, int) or isinstance(position, bool) or position < 0:
            raise ValueError(f"stream position must be an int >= 0, got {position!r}")
        self._seed = bytes(seed)
        self.position = position

    def __repr__(self) -> str:  # never show the seed
        return f"DiceStream(commitment={commitment(self._seed)[:12]}..., position={self.position})"

    @property
    def commitment(self) -> str:
        return commitment(self._seed)

    def uniform(self, n: int) -> int:
        """One raw draw, uniform in [0, n); advances the position by 1."""
        value = draw_uniform(self._seed, self.position, n)
        self.position += 1
        return value

    def d6(self) -> int:
        """One raw D6 draw, 1..6; advances the position by 1."""
        return self.uniform(6) + 1

    def roll(
        self,
        expression: str,
        *,
        maximised: int = 0,
        minimised: int = 0,
        reroll: Reroll | Collection[int] | str | None = None,
    ) -> Roll:
        """Roll a dice expression, e.g. ``"2D6"``, ``"D3"``, ``"2D6+3"``, ``"scatter"``.

        ``maximised``/``minimised`` add instances to any in the expression; ``reroll`` is a
        :class:`Reroll`, a set of faces to re-roll, or a condition string (``"1,2"``, ``"<3"``).
        """
        spec = parse_expression(expression).with_modifiers(
            maximised=maximised, minimised=minimised, reroll=reroll
        )
        return self.roll_spec(spec)

    def roll_spec(self, spec: RollSpec) -> Roll:
        start = self.position
        dice, total, extra = resolve(spec, self)
        return Roll(spec.canonical(), dice, total, start, self.position, extra)

    def scatter(self) -> Roll:
        """The WFB scatter die: 2 HIT faces, 4 arrows with a uniform direction in [0, 360)."""
        return self.roll_spec(RollSpec(kind="scatter"))

    def artillery(self) -> Roll:
        """The WFB artillery die: 2, 4, 6, 8, 10 or MISFIRE (total None on a Misfire)."""
        return self.roll_spec(RollSpec(kind="artillery"))


def _check_seed(seed: object) -> None:
    if not isinstance(seed, bytes | bytearray):
        raise TypeError(f"a dice seed must be bytes, got {type(seed).__name__}")
    if not seed:
        raise ValueError("a dice seed must not be empty")


# --------------------------------------------------------------------------------------------
# Values: dice, rolls and what a roll asks for.


@dataclass(frozen=True)
class Die:
    """One die as rolled.

    ``face`` is the value read (an int, or "HIT"/"arrow"/"MISFIRE"); ``kept`` whether it counts
    towards the total. ``raw`` is the D6 draw behind a derived face (a D3); ``rerolled`` marks a
    die that was re-rolled (its replacement follows later in the roll).
    """

    face: int | str
    kept: bool
    raw: int | None = None
    rerolled: bool = False

    def to_payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {"face": self.face, "kept": self.kept}
        if self.raw is not None:
            out["raw"] = self.raw
        if self.rerolled:
            out["rerolled"] = True
        return out

    @classmethod
    def from_payload(cls, d: Mapping[str, Any]) -> Die:
        if not isinstance(d, Mapping):
            raise DiceError(f"a die must be an object, got {_words(d)}")
        face, kept = d.get("face"), d.get("kept")
        raw, rerolled = d.get("raw"), d.get("rerolled", False)
        if isinstance(face, bool) or not isinstance(face, int | str):
            raise DiceError(f"die face must be an int or a string, got {face!r}")
        if not isinstance(kept, bool):
            raise DiceError(f"die 'kept' must be true or false, got {kept!r}")
        if raw is not None and (isinstance(raw, bool) or not isinstance(raw, int)):
            raise DiceError(f"die 'raw' must be an int, got {raw!r}")
        if not isinstance(rerolled, bool):
            raise DiceError(f"die 'rerolled' must be true or false, got {rerolled!r}")
        return cls(face, kept, raw, rerolled)


@dataclass(frozen=True)
class Roll:
    """A roll as recorded in the log: what was asked, every die, the result, where in the stream.

    ``dice`` holds every die drawn (kept, discarded and re-rolled) in draw order; ``total`` is
    the sum of kept dice plus the constant (None where meaningless, e.g. a Misfire or a scatter
    die); ``end - start`` draws were consumed.
    """

    expression: str
    dice: tuple[Die, ...]
    total: int | None
    start: int
    end: int
    extra: dict[str, Any] = field(default_factory=dict, hash=False)

    @property
    def faces(self) -> tuple[int | str, ...]:
        return tuple(d.face for d in self.dice)

    @property
    def kept_faces(self) -> tuple[int | str, ...]:
        return tuple(d.face for d in self.dice if d.kept)

    def to_payload(self) -> dict[str, Any]:
        """A JSON-safe dict with everything needed to show and to verify the roll."""
        return {
            "expression": self.expression,
            "dice": [d.to_payload() for d in self.dice],
            "total": self.total,
            "start": self.start,
            "end": self.end,
            "extra": _json_copy(self.extra),
        }

    @classmethod
    def from_payload(cls, d: Mapping[str, Any]) -> Roll:
        """Read a payload written by :meth:`to_payload`; raises DiceError if it is malformed."""
        if not isinstance(d, Mapping):
            raise DiceError(f"a roll must be an object, got {_words(d)}")
        missing = [k for k in ("expression", "dice", "total", "start", "end") if k not in d]
        if missing:
            raise DiceError(f"the roll has no {', '.join(missing)}")
        expression, dice, total = d["expression"], d["dice"], d["total"]
        start, end, extra = d["start"], d["end"], d.get("extra", {})
        if not isinstance(expression, str):
            raise DiceError(f"roll 'expression' must be a string, got {expression!r}")
        if not isinstance(dice, list | tuple):
            raise DiceError(f"roll 'dice' must be a list, got {_words(dice)}")
        if total is not None and (isinstance(total, bool) or not isinstance(total, int)):
            raise DiceError(f"roll 'total' must be an int or null, got {total!r}")
        for name, value in (("start", start), ("end", end)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise DiceError(f"roll '{name}' must be an int >= 0, got {value!r}")
        if not isinstance(extra, Mapping):
            raise DiceError(f"roll 'extra' must be an object, got {_words(extra)}")
        return cls(
            expression,
            tuple(Die.from_payload(x) for x in dice),
            total,
            start,
            end,
            _json_copy(dict(extra)),
        )


def _words(value: Any) -> str:
    """A recorded value as a player reads it in a failed check: numbers and words as they are,
    anything larger by what it is (never a Python repr of a dict)."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float | str):
        return str(value)
    if isinstance(value, Mapping):
        return "an object with " + (", ".join(map(str, value)) or "nothing in it")
    if isinstance(value, list | tuple):
        return f"a list of {len(value)}"
    return type(value).__name__


def _json_copy(value: Any) -> Any:
    """A deep copy of a JSON-like value, tuples as lists."""
    if isinstance(value, Mapping):
        return {str(k): _json_copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_copy(v) for v in value]
    return value


@dataclass(frozen=True)
class Reroll:
    """Re-roll, once, each die showing one of ``faces`` or a face below ``below``.

    ``Reroll(faces=frozenset({1}))`` re-rolls 1s; ``Reroll(below=4)`` re-rolls failures against a
    4+ target. A re-rolled die is never re-rolled again.
    """

    faces: frozenset[int] = frozenset()
    below: int | None = None

    def __post_init__(self) -> None:
        if not self.faces and self.below is None:
            raise DiceError("a re-roll needs faces or a 'below' target")

    def matches(self, face: int) -> bool:
        return face in self.faces or (self.below is not None and face < self.below)

    def canonical(self) -> str:
        parts = []
        if self.faces:
            parts.append(",".join(str(f) for f in sorted(self.faces)))
        if self.below is not None:
            parts.append(f"<{self.below}")
        return " ".join(parts)

    @classmethod
    def parse(cls, text: str) -> Reroll:
        """Parse ``"1"``, ``"1,2"``, ``"<3"`` or ``"1,6 <3"``."""
        faces: set[int] = set()
        below: int | None = None
        tokens = text.replace(",", " ").split()
        if not tokens:
            raise DiceError(f"empty re-roll condition: {text!r}")
        for token in tokens:
            if re.fullmatch(r"<\d+", token):
                if below is not None:
                    raise DiceError(f"two 'below' targets in re-roll condition {text!r}")
                below = int(token[1:])
            elif token.isdigit():
                faces.add(int(token))
            else:
                raise DiceError(f"cannot read re-roll condition {text!r} (at {token!r})")
        return cls(frozenset(faces), below)

    @classmethod
    def coerce(cls, value: Reroll | Collection[int] | str) -> Reroll:
        if isinstance(value, Reroll):
            return value
        if isinstance(value, str):
            return cls.parse(value)
        faces = frozenset(value)
        if not all(isinstance(f, int) and not isinstance(f, bool) for f in faces):
            raise DiceError(f"re-roll faces must be ints, got {value!r}")
        return cls(faces)


_BASE = re.compile(
    r"\s*(?P<count>\d+)?\s*[dD]\s*(?P<sides>\d+)\s*(?:(?P<sign>[+-])\s*(?P<const>\d+))?\s*"
)
_MOD = re.compile(
    r"\s*(?:(?P<max>maximi[sz]ed)|(?P<min>minimi[sz]ed))(?:\s+x\s*(?P<times>\d+))?\s*"
    r"|\s*reroll\s+(?P<reroll>[0-9<,\s]+?)\s*(?=$|maximi|minimi|reroll)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class RollSpec:
    """What a roll asks for, parsed from an expression (see :func:`parse_expression`)."""

    kind: str = "dice"  # "dice" | "scatter" | "artillery"
    count: int = 1
    sides: int = 6  # 6 or 3
    constant: int = 0
    maximised: int = 0
    minimised: int = 0
    reroll: Reroll | None = None

    @property
    def net(self) -> int:
        """Net instances: > 0 Maximised, < 0 Minimised (each Maximised cancels one Minimised)."""
        return self.maximised - self.minimised

    def with_modifiers(
        self,
        *,
        maximised: int = 0,
        minimised: int = 0,
        reroll: Reroll | Collection[int] | str | None = None,
    ) -> RollSpec:
        for name, value in (("maximised", maximised), ("minimised", minimised)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise DiceError(f"{name} instances must be an int >= 0, got {value!r}")
        if not maximised and not minimised and reroll is None:
            return self
        if self.kind != "dice":
            raise DiceError(f"the {self.kind} die takes no Maximised, Minimised or re-roll")
        if reroll is not None and self.reroll is not None:
            raise DiceError(f"two re-roll conditions for {self.canonical()!r}")
        spec = RollSpec(
            self.kind,
            self.count,
            self.sides,
            self.constant,
            self.maximised + maximised,
            self.minimised + minimised,
            Reroll.coerce(reroll) if reroll is not None else self.reroll,
        )
        try:
            spec.check()
        except DiceError as err:
            raise DiceError(f"{err}: {spec.canonical()!r}") from None
        return spec

    def check(self) -> None:
        if self.kind in ("scatter", "artillery"):
            return
        if self.kind != "dice":
            raise DiceError(f"unknown kind of roll {self.kind!r}")
        if self.sides not in (3, 6):
            raise DiceError(f"only D6 and D3 dice exist here, got D{self.sides}")
        if self.count < 1:
            raise DiceError(f"a roll needs at least one die, got {self.count}")
        if self.count + abs(self.net) > MAX_DICE:
            raise DiceError(f"at most {MAX_DICE} dice per roll, got {self.count + abs(self.net)}")

    def canonical(self) -> str:
        if self.kind != "dice":
            return self.kind
        text = f"{self.count if self.count != 1 else ''}D{self.sides}"
        if self.constant:
            text += f"{self.constant:+d}"
        if self.maximised:
            text += f" maximised x{self.maximised}"
        if self.minimised:
            text += f" minimised x{self.minimised}"
        if self.reroll is not None:
            text += f" reroll {self.reroll.canonical()}"
        return text


def parse_expression(expression: str) -> RollSpec:
    """Parse a dice expression.

    Grammar (case-insensitive): ``scatter`` | ``artillery`` |
    ``[n]D(6|3)[(+|-)c] [maximised [xK]] [minimised [xK]] [reroll COND]`` where COND is a
    comma-separated list of faces and/or ``<t`` (faces below t). ``maximised`` alone means x1.
    """
    if not isinstance(expression, str):
        raise DiceError(f"a dice expression must be a string, got {expression!r}")
    text = expression.strip()
    if text.lower() in ("scatter", "artillery"):
        return RollSpec(kind=text.lower())
    base = _BASE.match(text)
    if base is None:
        raise DiceError(f"cannot read dice expression {expression!r}")
    count = int(base["count"]) if base["count"] is not None else 1
    sides = int(base["sides"])
    constant = int(base["const"] or 0) * (-1 if base["sign"] == "-" else 1)
    maximised = minimised = 0
    reroll: Reroll | None = None
    pos = base.end()
    while pos < len(text):
        mod = _MOD.match(text, pos)
        if mod is None or mod.end() == pos:
            raise DiceError(f"cannot read dice expression {expression!r} (at {text[pos:]!r})")
        times = int(mod["times"]) if mod["times"] is not None else 1
        if mod["max"]:
            maximised += times
        elif mod["min"]:
            minimised += times
        else:
            if reroll is not None:
                raise DiceError(f"two re-roll conditions in {expression!r}")
            reroll = Reroll.parse(mod["reroll"])
        pos = mod.end()
    spec = RollSpec("dice", count, sides, constant, maximised, minimised, reroll)
    try:
        spec.check()
    except DiceError as err:
        raise DiceError(f"{err}: {expression!r}") from None
    return spec


# --------------------------------------------------------------------------------------------
# The logic of a roll over faces: pure, shared by the stream and by the tests' enumerations.


def select_kept(faces: Sequence[int], maximised: int = 0, minimised: int = 0) -> tuple[bool, ...]:
    """Which of ``faces`` are kept under Maximised/Minimised instances (they cancel one for one).

    Net Maximised k discards the k lowest faces, net Minimised k the k highest; among equal
    faces the earlier one is discarded first. ``len(faces)`` must exceed the net instances.
    """
    net = maximised - minimised
    if abs(net) >= len(faces):
        raise DiceError(f"cannot discard {abs(net)} of {len(faces)} dice")
    if net > 0:
        order = sorted(range(len(faces)), key=lambda i: (faces[i], i))
    else:
        order = sorted(range(len(faces)), key=lambda i: (-faces[i], i))
    discarded = set(order[: abs(net)])
    return tuple(i not in discarded for i in range(len(faces)))


def resolve(spec: RollSpec, draws: Draws) -> tuple[tuple[Die, ...], int | None, dict[str, Any]]:
    """Roll ``spec`` with ``draws``: the dice (in draw order), the total and the extra fields."""
    spec.check()
    if spec.kind == "scatter":
        face = SCATTER_FACES[draws.d6() - 1]
        if face == HIT:
            return (Die(face, True),), None, {"hit": True}
        return (Die(face, True),), None, {"hit": False, "direction_deg": _direction(draws)}
    if spec.kind == "artillery":
        art = ARTILLERY_FACES[draws.d6() - 1]
        if art == MISFIRE:
            return (Die(art, True),), None, {"misfire": True}
        return (Die(art, True),), int(art), {"misfire": False}

    def one() -> tuple[int, int | None]:
        raw = draws.d6()
        return (d3_from_d6(raw), raw) if spec.sides == 3 else (raw, None)

    drawn = [one() for _ in range(spec.count + abs(spec.net))]
    rerolled: list[bool] = [False] * len(drawn)
    pairs: list[list[int]] = []
    if spec.reroll is not None:
        for i in range(len(drawn)):
            if spec.reroll.matches(drawn[i][0]):
                rerolled[i] = True
                pairs.append([i, len(drawn)])
                drawn.append(one())
                rerolled.append(False)
    standing = [i for i in range(len(drawn)) if not rerolled[i]]
    kept_flags = select_kept([drawn[i][0] for i in standing], spec.maximised, spec.minimised)
    kept = {i for i, k in zip(standing, kept_flags, strict=True) if k}
    dice = tuple(Die(face, i in kept, raw, rerolled[i]) for i, (face, raw) in enumerate(drawn))
    total = sum(drawn[i][0] for i in kept) + spec.constant
    extra: dict[str, Any] = {"rerolls": pairs} if pairs else {}
    return dice, total, extra


def _direction(draws: Draws) -> float:
    return draws.uniform(DIRECTION_STEPS) / 1000


# --------------------------------------------------------------------------------------------
# Checking a log: replay every roll from the seed, and verify the commitment.


@dataclass(frozen=True)
class RollCheck:
    """The outcome of recomputing one recorded roll."""

    index: int
    start: int | None
    ok: bool
    reason: str
    recorded: Any
    recomputed: Roll | None


@dataclass(frozen=True)
class VerifyReport:
    """Whether a revealed seed matches its commitment and recomputes every recorded roll."""

    ok: bool
    commitment_ok: bool
    rolls_checked: int
    failures: tuple[RollCheck, ...]
    reason: str

    def __bool__(self) -> bool:
        return self.ok

    @property
    def first_failure(self) -> RollCheck | None:
        return self.failures[0] if self.failures else None


def _check_one(seed: bytes, index: int, recorded: Any) -> RollCheck:
    payload = recorded.to_payload() if isinstance(recorded, Roll) else recorded
    start = payload.get("start") if isinstance(payload, Mapping) else None
    start = start if isinstance(start, int) and not isinstance(start, bool) else None
    where = f"roll {index}" + (f" (start {start})" if start is not None else "")
    try:
        rec = Roll.from_payload(payload)
        spec = parse_expression(rec.expression)
    except DiceError as err:
        return RollCheck(index, start, False, f"{where}: malformed: {err}", recorded, None)
    stream = DiceStream(seed, rec.start)
    again = stream.roll_spec(spec)
    problems: list[str] = []
    if rec.expression != again.expression:
        problems.append(
            f"expression {rec.expression!r} is not canonical, expected {again.expression!r}"
        )
    if rec.end != again.end:
        problems.append(f"end recorded {rec.end}, recomputed {again.end}")
    if len(rec.dice) != len(again.dice):
        problems.append(f"{len(rec.dice)} dice recorded, {len(again.dice)} recomputed")
    for i, (a, b) in enumerate(zip(rec.dice, again.dice, strict=False)):
        for name in ("face", "kept", "raw", "rerolled"):
            va, vb = getattr(a, name), getattr(b, name)
            if va != vb or type(va) is not type(vb):
                problems.append(f"die {i} {name} recorded {_words(va)}, recomputed {_words(vb)}")
    if rec.total != again.total:
        problems.append(f"total recorded {_words(rec.total)}, recomputed {_words(again.total)}")
    if rec.extra != again.extra:
        differ = sorted(k for k in {*rec.extra, *again.extra}
                        if rec.extra.get(k) != again.extra.get(k))
        problems.append(f"the roll's own details ({', '.join(differ)}) differ from the "
                        "recomputed roll's")
    if problems:
        return RollCheck(index, start, False, f"{where}: " + "; ".join(problems), recorded, again)
    return RollCheck(index, start, True, "", recorded, again)


def replay(seed: bytes, rolls: Iterable[Mapping[str, Any] | Roll]) -> list[RollCheck]:
    """Recompute each recorded roll (payload or Roll) from the seed at its recorded start.

    Returns one :class:`RollCheck` per roll, in order; a failed check's ``reason`` names the
    roll, its start and every field that differs. Rolls are checked independently.
    """
    _check_seed(seed)
    return [_check_one(seed, i, r) for i, r in enumerate(rolls)]


def verify(
    seed: bytes,
    commitment_hex: str,
    rolls: Iterable[Mapping[str, Any] | Roll],
    *,
    contiguous: bool = True,
) -> VerifyReport:
    """Check a revealed seed against its commitment and recompute every recorded roll exactly.

    With ``contiguous`` (the default) the rolls must also cover the stream without gaps or
    overlaps from position 0: each roll starts where the previous one ended, so no draw can have
    been made and hidden (re-rolling the stream until a result suits) or used twice.
    """
    _check_seed(seed)
    committed = commitment(seed)
    given = commitment_hex.strip().lower() if isinstance(commitment_hex, str) else ""
    commitment_ok = hmac.compare_digest(committed, given)
    checks = replay(seed, rolls)
    failures = [c for c in checks if not c.ok]
    if contiguous:
        expected = 0
        for check in checks:
            payload = check.recorded
            if isinstance(payload, Roll):
                payload = payload.to_payload()
            if not isinstance(payload, Mapping) or check.start is None:
                continue  # already failed as malformed
            if check.start != expected:
                what = "a gap: draws" if check.start > expected else "an overlap: draws"
                lo, hi = sorted((expected, check.start))
                failures.append(
                    RollCheck(
                        check.index,
                        check.start,
                        False,
                        f"roll {check.index} (start {check.start}): expected start {expected}, "
                        f"{what} {lo}..{hi - 1} are not accounted for exactly once",
                        check.recorded,
                        check.recomputed,
                    )
                )
            end = payload.get("end")
            expected = end if isinstance(end, int) else check.start
        failures.sort(key=lambda c: c.index)
    reasons = []
    if not commitment_ok:
        reasons.append(
            f"seed does not match the commitment: SHA-256(seed) = {committed}, "
            f"committed {commitment_hex!r}"
        )
    if failures:
        reasons.append(failures[0].reason)
        if len(failures) > 1:
            reasons.append(f"{len(failures) - 1} more failure(s)")
    return VerifyReport(
        ok=commitment_ok and not failures,
        commitment_ok=commitment_ok,
        rolls_checked=len(checks),
        failures=tuple(failures),
        reason="; ".join(reasons),
    )
