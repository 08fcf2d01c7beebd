"""Tests of server/dice.py: exact probabilities by enumeration, determinism, commit-reveal checks.

Probabilities are proven, not sampled: the roll logic (`resolve`) is fed every possible sequence
of D6 draws of a fixed length L (each sequence has probability 6**-L, and draws a roll does not
consume are independent of it), so counting outcomes gives exact fractions. Figures from
FACTS.md (Dice) and issue 5 (Ambush, charge with Swiftstride).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from itertools import product
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server import dice
from server.dice import (
    ARTILLERY_FACES,
    DIRECTION_STEPS,
    MISFIRE,
    SCATTER_FACES,
    SEED_BYTES,
    DiceError,
    DiceStream,
    Die,
    Reroll,
    Roll,
    RollSpec,
    commitment,
    parse_expression,
    replay,
    resolve,
    select_kept,
    uniform_from_int,
    verify,
)

SEED = bytes(range(SEED_BYTES))
OTHER_SEED = bytes(range(1, SEED_BYTES + 1))


class Scripted:
    """A draw source that plays back fixed D6 faces (and fixed uniform values)."""

    def __init__(self, faces: Iterable[int], uniforms: Iterable[int] = ()) -> None:
        self._faces: Iterator[int] = iter(faces)
        self._uniforms: Iterator[int] = iter(uniforms)
        self.used = 0

    def d6(self) -> int:
        self.used += 1
        return next(self._faces)

    def uniform(self, n: int) -> int:
        self.used += 1
        value = next(self._uniforms)
        assert 0 <= value < n
        return value


def exact(spec: RollSpec | str, event: Callable[[int | None], bool], draws: int) -> Fraction:
    """P(event(total)) for a roll, by enumerating all 6**draws sequences of D6 faces."""
    if isinstance(spec, str):
        spec = parse_expression(spec)
    hits = 0
    for faces in product(range(1, 7), repeat=draws):
        source = Scripted(faces)
        _, total, _ = resolve(spec, source)
        assert source.used <= draws
        hits += event(total)
    return Fraction(hits, 6**draws)


# --------------------------------------------------------------------------------------------
# Exact probabilities (issue 5, Show).


def at_least(n: int) -> Callable[[int | None], bool]:
    return lambda total: total is not None and total >= n


@pytest.mark.parametrize(
    ("maximised", "expected"),
    [(0, Fraction(2, 3)), (1, Fraction(8, 9)), (2, Fraction(26, 27)), (3, Fraction(80, 81))],
)
def test_ambush_arrives_on_3_plus_with_maximised(maximised: int, expected: Fraction) -> None:
    spec = parse_expression("D6").with_modifiers(maximised=maximised)
    assert exact(spec, at_least(3), 1 + maximised) == expected


def test_charge_2d6_at_least_9() -> None:
    assert exact("2D6", at_least(9), 2) == Fraction(5, 18)


def test_swiftstride_charge_maximised_is_3d6_keep_highest_two() -> None:
    assert exact("2D6 maximised", at_least(9), 3) == Fraction(113, 216)
    # Same by the pure keep/discard function over all 216 face triples.
    count = 0
    for faces in product(range(1, 7), repeat=3):
        kept = select_kept(faces, maximised=1)
        assert sum(kept) == 2
        count += sum(f for f, k in zip(faces, kept, strict=True) if k) >= 9
    assert Fraction(count, 216) == Fraction(113, 216)


def test_first_ambush_arrival_turn_distribution() -> None:
    """From Player Turn 2 one D6 per turn, 3+ arrives; Player Turns 5 and 6 count as 3+."""
    arrivals: Counter[int] = Counter()
    spec = parse_expression("D6")
    for faces in product(range(1, 7), repeat=3):
        source = Scripted(faces)
        turn = 5
        for player_turn in (2, 3, 4):
            _, total, _ = resolve(spec, source)
            if total is not None and total >= 3:
                turn = player_turn
                break
        arrivals[turn] += 1
    got = {turn: Fraction(n, 6**3) for turn, n in arrivals.items()}
    assert got == {2: Fraction(2, 3), 3: Fraction(2, 9), 4: Fraction(2, 27), 5: Fraction(1, 27)}


def test_minimised_and_cancelling() -> None:
    # Minimised D6: keep the lowest of two, P(>=3) = 4/9.
    assert exact("D6 minimised", at_least(3), 2) == Fraction(4, 9)
    # Two Maximised and one Minimised = net one Maximised.
    assert parse_expression("D6 maximised x2 minimised").net == 1
    assert exact("D6 maximised x2 minimised", at_least(3), 2) == Fraction(8, 9)
    # Equal instances cancel: a plain D6, one die drawn.
    source = Scripted([2])
    dice_, total, _ = resolve(parse_expression("D6 maximised minimised"), source)
    assert (len(dice_), total, source.used) == (1, 2, 1)


def test_d3_is_d6_halved_rounded_up() -> None:
    seen = {}
    for raw in range(1, 7):
        (die,), total, _ = resolve(parse_expression("D3"), Scripted([raw]))
        assert die.raw == raw and die.face == total
        seen[raw] = total
    assert seen == {1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 6: 3}
    assert exact("D3", lambda t: t == 3, 1) == Fraction(1, 3)


def test_reroll_ones_exact() -> None:
    # Re-rolling 1s on a 4+: 1/2 + 1/6 * 1/2 = 7/12.
    spec = parse_expression("D6").with_modifiers(reroll={1})
    assert exact(spec, at_least(4), 2) == Fraction(7, 12)
    # Re-rolling every failure of a 4+ (below 4): 1 - (1/2)**2 = 3/4.
    assert exact("D6 reroll <4", at_least(4), 2) == Fraction(3, 4)


# --------------------------------------------------------------------------------------------
# Keep/discard and re-roll records.


def test_select_kept_discards_lowest_or_highest_earliest_first() -> None:
    assert select_kept([3, 3, 5], maximised=1) == (False, True, True)
    assert select_kept([5, 2, 5], minimised=1) == (False, True, True)
    assert select_kept([1, 6, 2, 4], maximised=2) == (False, True, False, True)
    assert select_kept([1, 6, 2, 4], maximised=3, minimised=1) == (False, True, False, True)
    assert select_kept([4, 4], maximised=1, minimised=1) == (True, True)
    with pytest.raises(DiceError):
        select_kept([4], maximised=1)


def test_reroll_records_original_and_new_face() -> None:
    spec = parse_expression("3D6 reroll 1,2")
    dice_, total, extra = resolve(spec, Scripted([1, 5, 2, 6, 1]))
    assert dice_ == (
        Die(1, False, rerolled=True),
        Die(5, True),
        Die(2, False, rerolled=True),
        Die(6, True),
        Die(1, True),  # a re-roll is never re-rolled
    )
    assert total == 12
    assert extra == {"rerolls": [[0, 3], [2, 4]]}


def test_reroll_happens_before_maximised_discard() -> None:
    # D6 maximised, re-roll 1s: draw [1, 3]; the 1 is re-rolled into a 2; keep the highest.
    dice_, total, _ = resolve(parse_expression("D6 maximised reroll 1"), Scripted([1, 3, 2]))
    assert [(d.face, d.kept, d.rerolled) for d in dice_] == [
        (1, False, True),
        (3, True, False),
        (2, False, False),
    ]
    assert total == 3


# --------------------------------------------------------------------------------------------
# Scatter and artillery dice.


def test_scatter_die_has_two_hit_faces_and_arrows_with_direction() -> None:
    assert Counter(SCATTER_FACES) == {"HIT": 2, "arrow": 4}
    results = []
    for raw in range(1, 7):
        source = Scripted([raw], uniforms=[123_456])
        dice_, total, extra = resolve(RollSpec(kind="scatter"), source)
        assert total is None and len(dice_) == 1
        results.append(dice_[0].face)
        if dice_[0].face == "HIT":
            assert extra == {"hit": True} and source.used == 1
        else:
            assert extra == {"hit": False, "direction_deg": 123.456} and source.used == 2
    assert Counter(results) == {"HIT": 2, "arrow": 4}


def test_scatter_directions_from_the_stream_are_in_range() -> None:
    stream = DiceStream(SEED)
    arrows = []
    for _ in range(300):
        roll = stream.scatter()
        assert roll.end - roll.start == (2 if roll.dice[0].face == "arrow" else 1)
        if roll.extra["hit"] is False:
            direction = roll.extra["direction_deg"]
            assert 0 <= direction < 360
            arrows.append(direction)
    assert len(arrows) > 150
    # The extreme draw values map inside [0, 360).
    assert dice._direction(Scripted([], uniforms=[0])) == 0.0
    assert dice._direction(Scripted([], uniforms=[DIRECTION_STEPS - 1])) == 359.999


def test_artillery_faces() -> None:
    assert set(ARTILLERY_FACES) == {2, 4, 6, 8, 10, MISFIRE}
    faces = set()
    for raw in range(1, 7):
        dice_, total, extra = resolve(RollSpec(kind="artillery"), Scripted([raw]))
        face = dice_[0].face
        faces.add(face)
        if face == MISFIRE:
            assert total is None and extra == {"misfire": True}
        else:
            assert total == face and extra == {"misfire": False}
    assert faces == {2, 4, 6, 8, 10, MISFIRE}
    stream = DiceStream(SEED)
    assert {stream.artillery().dice[0].face for _ in range(200)} == faces


# --------------------------------------------------------------------------------------------
# The stream: derivation, determinism, uniformity.


def test_commitment_is_sha256_hex() -> None:
    assert commitment(SEED) == hashlib.sha256(SEED).hexdigest()
    assert commitment(b"abc") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
    with pytest.raises(TypeError):
        commitment("not bytes")  # type: ignore[arg-type]


def test_draw_matches_the_documented_derivation() -> None:
    """Reimplement the docstring's recipe independently and compare the first draws."""
    limit6 = 2**256 - 2**256 % 6
    for i in range(200):
        attempt = 0
        while True:
            msg = i.to_bytes(8, "big") + attempt.to_bytes(4, "big")
            v = int.from_bytes(hmac.new(SEED, msg, hashlib.sha256).digest(), "big")
            if v < limit6:
                break
            attempt += 1
        assert dice.draw_d6(SEED, i) == v % 6 + 1


def test_same_seed_and_position_same_faces() -> None:
    a = DiceStream(SEED).roll("10D6")
    b = DiceStream(SEED).roll("10D6")
    assert a == b
    assert DiceStream(SEED, 5).roll("D6").faces == (a.faces[5],)


def test_different_seeds_differ() -> None:
    assert DiceStream(SEED).roll("40D6").faces != DiceStream(OTHER_SEED).roll("40D6").faces


def test_draw_i_independent_of_order() -> None:
    forward = [dice.draw_d6(SEED, i) for i in range(50)]
    backward = [dice.draw_d6(SEED, i) for i in reversed(range(50))][::-1]
    assert forward == backward
    stream = DiceStream(SEED)
    assert [stream.d6() for _ in range(50)] == forward
    assert stream.position == 50
    # A roll at a position sees the same draws whatever was rolled before it.
    s1 = DiceStream(SEED)
    s1.roll("3D6")
    s1.scatter()
    r1 = s1.roll("2D6")
    r2 = DiceStream(SEED, r1.start).roll("2D6")
    assert r1 == r2


@pytest.mark.parametrize(
    "expression",
    [
        "D6",
        "D3",
        "4D6+1",
        "D6 maximised x3",
        "3D3 minimised x2",
        "20D6 reroll <4",
        "2D6 maximised reroll 1",
        "scatter",
        "artillery",
    ],
)
def test_stream_rolls_are_resolve_over_the_documented_draws(expression: str) -> None:
    """The live stream runs the same `resolve` the enumerations prove, over draws p, p+1, ..."""
    spec = parse_expression(expression)
    for start in range(0, 400, 7):
        roll = DiceStream(SEED, start).roll(expression)
        faces = [dice.draw_d6(SEED, i) for i in range(start, start + 64)]
        uniforms = [dice.draw_uniform(SEED, i, DIRECTION_STEPS) for i in range(start, start + 64)]
        source = _PositionalDraws(faces, uniforms)
        assert resolve(spec, source) == (roll.dice, roll.total, roll.extra)
        assert source.used == roll.end - roll.start


class _PositionalDraws:
    """Draw k of a roll is stream draw start + k, read as a D6 or as a uniform value."""

    def __init__(self, faces: list[int], uniforms: list[int]) -> None:
        self._faces, self._uniforms, self.used = faces, uniforms, 0

    def d6(self) -> int:
        self.used += 1
        return self._faces[self.used - 1]

    def uniform(self, n: int) -> int:
        assert n == DIRECTION_STEPS
        self.used += 1
        return self._uniforms[self.used - 1]


@settings(max_examples=200, deadline=None)
@given(
    seed=st.binary(min_size=1, max_size=SEED_BYTES),
    start=st.integers(0, 2**40),
    count=st.integers(1, 12),
    sides=st.sampled_from([3, 6]),
    constant=st.integers(-3, 3),
    maximised=st.integers(0, 3),
    minimised=st.integers(0, 3),
    reroll=st.one_of(st.none(), st.frozensets(st.integers(1, 6), min_size=1)),
)
def test_any_roll_replays_and_round_trips(
    seed: bytes,
    start: int,
    count: int,
    sides: int,
    constant: int,
    maximised: int,
    minimised: int,
    reroll: frozenset[int] | None,
) -> None:
    spec = RollSpec(
        "dice", count, sides, constant, maximised, minimised, Reroll(reroll) if reroll else None
    )
    roll = DiceStream(seed, start).roll(spec.canonical())
    assert parse_expression(roll.expression) == spec
    standing = [d for d in roll.dice if not d.rerolled]
    assert len(standing) == count + abs(maximised - minimised)
    assert sum(d.kept for d in roll.dice) == count
    assert roll.end - roll.start == len(roll.dice)
    assert roll.total == sum(int(d.face) for d in roll.dice if d.kept) + constant
    assert all(1 <= int(d.face) <= sides for d in roll.dice)
    payload = json.loads(json.dumps(roll.to_payload()))
    assert Roll.from_payload(payload) == roll
    assert replay(seed, [payload])[0].ok


def test_positions_advance_by_draws_consumed() -> None:
    stream = DiceStream(SEED, 7)
    roll = stream.roll("2D6", maximised=1)
    assert (roll.start, roll.end, stream.position) == (7, 10, 10)
    assert len(roll.dice) == 3


def test_uniformity_chi_square_fixed_seed() -> None:
    """Deterministic (fixed seed): 60000 draws, chi-square with 5 degrees of freedom."""
    n = 60_000
    counts = Counter(dice.draw_d6(SEED, i) for i in range(n))
    expected = n / 6
    chi2 = sum((counts[f] - expected) ** 2 / expected for f in range(1, 7))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert chi2 < 20.5  # p = 0.001 for 5 degrees of freedom


def test_direction_uniformity_fixed_seed() -> None:
    n = 36_000
    bins = Counter(
        dice.draw_uniform(SEED, i, DIRECTION_STEPS) * 12 // DIRECTION_STEPS for i in range(n)
    )
    expected = n / 12
    chi2 = sum((bins[b] - expected) ** 2 / expected for b in range(12))
    assert chi2 < 31.3  # p = 0.001 for 11 degrees of freedom


@pytest.mark.parametrize(("bits", "n"), [(8, 6), (8, 7), (8, 256), (12, 6), (20, 360_000)])
def test_rejection_sampling_is_exactly_uniform(bits: int, n: int) -> None:
    """Enumerate the whole input space of the same mapping the stream uses with 256 bits."""
    counts = Counter(uniform_from_int(v, bits, n) for v in range(2**bits))
    rejected = counts.pop(None, 0)
    assert rejected == 2**bits % n
    assert set(counts) == set(range(n))
    assert len(set(counts.values())) == 1


def test_rejection_band_at_256_bits() -> None:
    top = 2**256
    assert top % 6 == 4
    assert uniform_from_int(top - 5, 256, 6) == (top - 5) % 6
    for v in range(top - 4, top):
        assert uniform_from_int(v, 256, 6) is None


def test_rejected_block_retries_at_the_same_position(monkeypatch: pytest.MonkeyPatch) -> None:
    real = dice.block
    calls = []

    def fake(seed: bytes, index: int, attempt: int = 0) -> int:
        calls.append((index, attempt))
        return 2**256 - 1 if attempt == 0 else real(seed, index, attempt)

    monkeypatch.setattr(dice, "block", fake)
    stream = DiceStream(SEED, 3)
    face = stream.d6()
    assert calls == [(3, 0), (3, 1)]
    assert face == real(SEED, 3, 1) % 6 + 1
    assert stream.position == 4


# --------------------------------------------------------------------------------------------
# Expressions and payloads.


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("D6", "D6"),
        ("d6", "D6"),
        ("1D6", "D6"),
        ("D3", "D3"),
        ("3d3", "3D3"),
        ("2D6+3", "2D6+3"),
        ("2D6 - 1", "2D6-1"),
        ("2D6+0", "2D6"),
        ("D6 maximised x2", "D6 maximised x2"),
        ("D6 Maximized", "D6 maximised x1"),
        ("D6 maximised minimised x2", "D6 maximised x1 minimised x2"),
        ("10D6 reroll <4", "10D6 reroll <4"),
        ("3D6 reroll 2,1", "3D6 reroll 1,2"),
        ("3D6 reroll 1 maximised", "3D6 maximised x1 reroll 1"),
        ("Scatter", "scatter"),
        ("artillery", "artillery"),
    ],
)
def test_expressions_parse_to_canonical_form(text: str, canonical: str) -> None:
    assert parse_expression(text).canonical() == canonical
    assert parse_expression(canonical).canonical() == canonical


@pytest.mark.parametrize(
    "text",
    [
        "",
        "D",
        "D8",
        "0D6",
        "2D6+",
        "D6 maximised x",
        "D6 sideways",
        "2D6 reroll",
        "D6 reroll x",
        "D6 reroll 1 reroll 2",
        "1001D6",
    ],
)
def test_malformed_expressions_raise_dice_error_quoting_input(text: str) -> None:
    with pytest.raises(DiceError) as err:
        DiceStream(SEED).roll(text)
    assert repr(text) in str(err.value)


def test_keyword_modifiers_add_to_expression_and_are_recorded() -> None:
    roll = DiceStream(SEED).roll("D6 maximised", maximised=1, minimised=1, reroll=[1])
    assert roll.expression == "D6 maximised x2 minimised x1 reroll 1"
    with pytest.raises(DiceError):
        DiceStream(SEED).roll("scatter", maximised=1)
    with pytest.raises(DiceError):
        DiceStream(SEED).roll("D6", maximised=-1)
    with pytest.raises(DiceError):
        DiceStream(SEED).roll("D6 reroll 1", reroll=Reroll(below=3))


def test_payload_round_trips_through_json() -> None:
    stream = DiceStream(SEED)
    rolls = [stream.roll(e) for e in ("D3", "2D6+3", "3D6 reroll 1", "D6 minimised x2")]
    rolls += [stream.scatter() for _ in range(4)] + [stream.artillery() for _ in range(4)]
    for roll in rolls:
        payload = json.loads(json.dumps(roll.to_payload()))
        assert Roll.from_payload(payload) == roll
        assert set(payload) == {"expression", "dice", "total", "start", "end", "extra"}


def test_from_payload_rejects_malformed() -> None:
    good = DiceStream(SEED).roll("2D6").to_payload()
    for broken in (
        {**good, "dice": "66"},
        {**good, "total": "7"},
        {**good, "start": -1},
        {k: v for k, v in good.items() if k != "end"},
        {**good, "dice": [{"face": 3}]},
    ):
        with pytest.raises(DiceError):
            Roll.from_payload(broken)


# --------------------------------------------------------------------------------------------
# Replay and verify: the commit-reveal check.


def game_log(seed: bytes = SEED) -> list[dict[str, Any]]:
    """A recorded sequence of rolls like a finished game's, as JSON payloads."""
    stream = DiceStream(seed)
    rolls = [
        stream.roll("D6"),
        stream.roll("D6", maximised=2),
        stream.roll("2D6+4"),
        stream.roll("2D6", maximised=1),
        stream.roll("10D6 reroll 1"),
        stream.roll("D3"),
        stream.scatter(),
        stream.scatter(),
        stream.artillery(),
        stream.roll("3D6 minimised x1"),
    ]
    return json.loads(json.dumps([r.to_payload() for r in rolls]))


def test_replay_of_recorded_rolls_passes() -> None:
    log = game_log()
    checks = replay(SEED, log)
    assert [c.ok for c in checks] == [True] * len(log)
    report = verify(SEED, commitment(SEED), log)
    assert report.ok and bool(report) and report.commitment_ok
    assert report.rolls_checked == len(log) and report.reason == ""
    # Roll objects are accepted as well as payloads, and rolls check independently of order.
    assert all(c.ok for c in replay(SEED, [Roll.from_payload(p) for p in reversed(log)]))


def failing(report: dice.VerifyReport) -> tuple[int, str]:
    assert not report.ok
    first = report.first_failure
    assert first is not None
    return first.index, first.reason


def test_tampered_face_fails() -> None:
    log = game_log()
    die = log[2]["dice"][0]
    die["face"] = 7 - die["face"]  # and the total made consistent, so only the face betrays it
    log[2]["total"] = sum(d["face"] for d in log[2]["dice"]) + 4
    index, reason = failing(verify(SEED, commitment(SEED), log))
    assert index == 2
    assert "roll 2 (start 4)" in reason and "die 0 face" in reason


def test_tampered_kept_flag_fails() -> None:
    log = game_log()
    log[1]["dice"] = [{**d, "kept": not d["kept"]} for d in log[1]["dice"]]
    index, reason = failing(verify(SEED, commitment(SEED), log))
    assert index == 1 and "kept" in reason


def test_tampered_total_fails() -> None:
    log = game_log()
    log[3]["total"] += 1
    index, reason = failing(verify(SEED, commitment(SEED), log))
    assert index == 3 and "total recorded" in reason


def test_tampered_direction_and_expression_fail() -> None:
    log = game_log()
    arrow = next(i for i, r in enumerate(log) if r["extra"].get("direction_deg") is not None)
    log[arrow]["extra"]["direction_deg"] = 0.0
    index, reason = failing(verify(SEED, commitment(SEED), log))
    assert index == arrow and "direction_deg" in reason and "{" not in reason
    log = game_log()
    log[0]["expression"] = "D6 maximised"  # claims a Maximised roll that was never rolled
    index, reason = failing(verify(SEED, commitment(SEED), log))
    assert index == 0


def test_wrong_seed_against_commitment_fails() -> None:
    log = game_log(OTHER_SEED)
    report = verify(OTHER_SEED, commitment(SEED), log)
    assert not report.ok and not report.commitment_ok
    assert "does not match the commitment" in report.reason
    assert report.failures == ()  # the rolls themselves are consistent with the revealed seed
    # The honest seed does not reproduce the other seed's rolls either.
    assert not verify(SEED, commitment(SEED), log).ok


def test_hidden_or_reused_draws_fail_contiguity() -> None:
    log = game_log()
    dropped = log[:3] + log[4:]  # a roll the server made and hid
    index, reason = failing(verify(SEED, commitment(SEED), dropped))
    assert index == 3 and "gap" in reason
    reused = log[:3] + [log[2]] + log[3:]  # the same draws used twice
    index, reason = failing(verify(SEED, commitment(SEED), reused))
    assert index == 3 and "overlap" in reason
    assert verify(SEED, commitment(SEED), dropped, contiguous=False).ok


def test_malformed_roll_in_log_is_reported_not_raised() -> None:
    log: list[Any] = game_log()
    log[4] = {"expression": "2D6", "dice": "lots"}
    index, reason = failing(verify(SEED, commitment(SEED), log))
    assert index == 4 and "malformed" in reason
