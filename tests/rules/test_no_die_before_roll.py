"""Issue 12 item 1: no die is ever seen before it is rolled for real.

A roll is an event: a random allowance (the 40k Advance, a charge range, a Flee or Pursue
Distance, a Rally Test) is rolled and committed first, and a move is judged against it. A
refused action never consumes, peeks at or reports an unrolled die.

The property test drives every registered action (`server.rules.core.ACTIONS`) with random,
malformed and illegal payloads in several game states of all three systems, each time twice:
with two dice streams at the state's position whose next dice differ. A refused action must
leave both streams where they were, and must be refused the same way under both: an error
that carried a value the stream would produce next (a die, a Move + die, a 2D6 total) would
differ between them, and an action refused under one stream but accepted under the other
would tell the player something about the dice to come.
"""

from __future__ import annotations

import functools
import types
import typing
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.dice import DiceStream
from server.rules import core
from server.rules.core import GameState, RuleError
from server.rules.questions import preview
from server.rules.units import units_of
from tests.rules.helpers import SEED, Game, battle

SPEARS = {"datasheet": "citizen-spears", "models": 20, "files": 5}
HALBERDIERS = {"datasheet": "empire-halberdiers", "models": 20, "files": 5}
SKELETONS = {"datasheet": "skeleton-warriors", "models": 20, "files": 5}
BOYZ = {"datasheet": "boyz", "models": 10}
MARINES = {"datasheet": "intercessor-squad", "models": 5}
SEEDS = [bytes([n]) * 32 for n in range(1, 40)]


def _next_faces(seed: bytes, position: int, n: int = 3) -> tuple[int, ...]:
    roll = DiceStream(seed, position).roll(f"{n}D6")
    return tuple(int(d.face) for d in roll.dice)


def _two_streams(position: int) -> tuple[bytes, bytes]:
    """The test seed and another whose next three dice all differ from it (so that a Move +
    die, a 2D6 total or a single face cannot agree by chance)."""
    mine = _next_faces(SEED, position)
    for seed in SEEDS:
        other = _next_faces(seed, position)
        if all(a != b for a, b in zip(mine, other, strict=True)) and sum(mine[:2]) != sum(
            other[:2]
        ):
            return SEED, seed
    raise AssertionError("no second stream with different next dice")


@functools.cache
def game_states() -> tuple[tuple[str, GameState], ...]:
    """Game states where many actions mean something: set-up, each system's movement and
    charge phases, a pending charge reaction, an engagement, a 40k unit that has Advanced."""
    out: list[tuple[str, GameState]] = []
    setup = Game("t9a")
    out.append(("t9a set-up", setup.state))

    t9a = battle("t9a", [SPEARS], [SPEARS])
    t9a.put("u1", 36, 27, 0)
    t9a.put("u2", 36, 30, 180)
    out.append(("t9a charge phase", t9a.state))
    t9a.act(1, type="declare_charge", unit="u1", target="u2")
    out.append(("t9a charge reaction pending", t9a.state))
    t9a.act(2, type="charge_reaction", reaction="hold")
    out.append(("t9a after a charge", t9a.state))
    t9a.to_phase(1, "Melee")
    out.append(("t9a melee", t9a.state))

    moving = battle("t9a", [SPEARS], [SPEARS])
    moving.to_phase(1, "Movement")
    out.append(("t9a movement", moving.state))

    whfb8 = battle("whfb8", [HALBERDIERS], [SKELETONS])
    whfb8.put("u1", 36, 27, 0)
    whfb8.put("u2", 36, 30, 180)
    whfb8.to_phase(1, "Movement")
    out.append(("whfb8 movement", whfb8.state))

    ambush = Game("t9a", seed=bytes([1]) * 32)  # this stream's Ambush roll succeeds
    ambush.act(1, type="submit_army", units=[{"datasheet": "mageblight-gremlin", "models": 3}])
    ambush.act(2, type="submit_army", units=[SPEARS])
    ambush.act(1, type="declare_reserve", unit="u1")
    ambush.act(2, type="deploy_unit", unit="u2", x=36, y=36.5, facing=180)
    while (ambush.state.battle.turn, ambush.state.battle.active_player,
           ambush.state.battle.phase) != (2, 1, "Movement"):
        ambush.act(int(ambush.state.battle.active_player), type="end_phase")
    assert "ambush_ready" in units_of(ambush.state)["u1"].markers
    out.append(("t9a ambush movement", ambush.state))

    wh40k = battle("wh40k10", [BOYZ], [MARINES])
    wh40k.to_phase(1, "Movement")
    out.append(("wh40k10 movement", wh40k.state))
    wh40k.act(1, type="advance", unit="u1")
    out.append(("wh40k10 advanced", wh40k.state))
    wh40k.to_phase(1, "Charge")
    out.append(("wh40k10 charge", wh40k.state))
    return tuple(out)


def _decide_twice(state: GameState, seat: int, action: Any) -> list[tuple[Any, int]]:
    """The outcome of `action` under two streams: (error on the wire or None, position)."""
    outcomes: list[tuple[Any, int]] = []
    for seed in _two_streams(state.dice_position):
        dice = DiceStream(seed, state.dice_position)
        try:
            core.decide(state, seat, action, dice)
        except RuleError as exc:
            outcomes.append((exc.to_wire(), dice.position))
        else:
            outcomes.append((None, dice.position))
    return outcomes


def assert_no_die_seen(state: GameState, seat: int, action: Any) -> None:
    (wire_a, pos_a), (wire_b, pos_b) = _decide_twice(state, seat, action)
    refused = wire_a is not None or wire_b is not None
    if not refused:
        return
    assert wire_a is not None and wire_b is not None, (
        f"{action}: refused under one dice stream and accepted under another: {wire_a or wire_b}"
    )
    assert pos_a == state.dice_position and pos_b == state.dice_position, (
        f"{action}: a refused action moved the dice from {state.dice_position} to {pos_a}"
    )
    assert wire_a == wire_b, f"{action}: the refusal depends on the dice to come"


_WORDS = [
    "u1", "u2", "u3", "u99", "", "hold", "flee", "stand_and_shoot", "forward", "backward",
    "sideways", "wheel", "pivot", "reform", "advance", "march", "D6", "2D6", "ambush", "reserve",
    "deep_strike", "x", "t1", "undo", "move", "ruins", "forest",
]
_values = st.one_of(
    st.sampled_from(_WORDS),
    st.integers(-5, 80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.lists(st.tuples(st.floats(-5, 80), st.floats(-5, 80)).map(list), max_size=12),
    st.dictionaries(st.sampled_from(["x", "y", "facing", "type"]), st.integers(-5, 80)),
)


def _field_values(state: GameState, annotation: Any) -> st.SearchStrategy[Any]:
    """Values of a field's own type (so that payloads get past the schema and reach the rules):
    its Literal words, booleans, numbers near the table, unit ids, shifted model positions."""
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    units = units_of(state)
    if origin is typing.Literal:
        return st.sampled_from(args)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*(_field_values(state, a) for a in args))
    if annotation is bool:
        return st.booleans()
    if annotation is type(None):
        return st.none()
    if annotation is int:
        return st.integers(-2, 30)
    if annotation is str:
        ids = sorted(units) or ["u1"]
        return st.one_of(*[st.sampled_from(ids)] * 4, st.sampled_from(_WORDS))
    if origin is tuple and len(args) == 2:  # a point: often on a table edge
        edge = st.sampled_from([0.0, 48.0, 72.0])
        return st.one_of(st.tuples(st.floats(-2, 74), st.floats(-2, 50)),
                         st.tuples(edge, st.floats(0, 48)), st.tuples(st.floats(0, 72), edge))
    if origin is list or origin is tuple or annotation is float:
        moved = [u for u in units.values() if u.positions]
        if origin is list and moved:
            return st.builds(
                lambda u, dx, dy: [[x + dx, y + dy] for x, y in u.positions],
                st.sampled_from(moved), st.floats(-14, 14), st.floats(-14, 14),
            )
        return _values
    return _values


@st.composite
def payloads(draw: st.DrawFn, state: GameState, name: str) -> tuple[int, dict[str, Any]]:
    """A seat and an action of type `name` for `state`: mostly values of its fields' own types
    (to reach the rules), sometimes random ones (malformed), and now and then a foreign field."""
    model = core.ACTIONS[name].model
    action: dict[str, Any] = {"type": name}
    typed = draw(st.integers(0, 4)) > 0
    for key, info in model.model_fields.items():
        if key == "type" or (not info.is_required() and draw(st.integers(0, 3)) == 0):
            continue
        action[key] = draw(_field_values(state, info.annotation) if typed else _values)
    ref = action.get("unit")
    unit = units_of(state).get(ref) if isinstance(ref, str) else None
    if typed and unit is not None and unit.positions and "positions" in action:
        dx, dy = draw(st.floats(-3, 3)), draw(st.floats(-14, 14))
        action["positions"] = [[x + dx, y + dy] for x, y in unit.positions]
    if draw(st.integers(0, 9)) == 0:
        action[draw(st.sampled_from(["unit", "target", "advance", "extra"]))] = draw(_values)
    active = int(state.battle.active_player or 1)
    return draw(st.sampled_from([active, active, 3 - active])), action


STATE_LABELS = [
    "t9a set-up", "t9a charge phase", "t9a charge reaction pending", "t9a after a charge",
    "t9a melee", "t9a movement", "t9a ambush movement", "whfb8 movement", "wh40k10 movement",
    "wh40k10 advanced", "wh40k10 charge",
]


@pytest.mark.parametrize("name", sorted(core.ACTIONS))
@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_a_refused_action_never_consumes_peeks_at_or_reports_a_die(
    name: str, data: st.DataObject
) -> None:
    """Every registered action, random/malformed/illegal payloads, eleven game states."""
    spec = core.ACTIONS[name]
    own = [lb for lb in STATE_LABELS if spec.available(lb.split()[0])]
    label = data.draw(st.sampled_from(own) if data.draw(st.integers(0, 9)) else
                      st.sampled_from(STATE_LABELS), label="state")
    state = dict(game_states())[label]
    seat, action = data.draw(payloads(state, name), label="action")
    assert_no_die_seen(state, seat, action)


def _moved(state: GameState, unit: str, dy: float) -> list[list[float]]:
    return [[x, y + dy] for x, y in units_of(state)[unit].positions]


@pytest.mark.parametrize("dy", [1.0, 6.5, 9.0, 12.5, 30.0])
def test_a_refused_40k_advance_move_shows_no_die(dy: float) -> None:
    """The reported leak: `move_models` with `"advance": true` rolled the next D6, refused the
    move and answered Move + that die in `details.allowance`, the same on every retry. Now
    a move that asks to Advance before the Advance was rolled is refused without a die."""
    state = dict(game_states())["wh40k10 movement"]
    action = {"type": "move_models", "unit": "u1", "positions": _moved(state, "u1", dy),
              "advance": True}
    assert_no_die_seen(state, 1, action)
    dice = DiceStream(SEED, state.dice_position)
    with pytest.raises(RuleError) as err:
        core.decide(state, 1, action, dice)
    assert err.value.details["rule"] == "Advance" and "allowance" not in err.value.details
    assert dice.position == state.dice_position


def test_the_40k_advance_is_rolled_and_committed_before_the_move() -> None:
    """wh40k10 Advance (FACTS.md Movement): the unit rolls a D6 and adds it to its Move. The
    `advance` action commits the roll as `advance_rolled`; `move_models` is then judged
    against Move + that committed die, and a refused move reports only that allowance."""
    game = battle("wh40k10", [BOYZ], [MARINES])
    game.to_phase(1, "Movement")
    start = game.state.dice_position
    (rolled,) = game.act(1, type="advance", unit="u1")
    assert rolled.type == "advance_rolled" and rolled.actor == 1
    die = rolled.payload["roll"]["total"]
    assert rolled.payload["move"] == 6 and rolled.payload["allowance"] == 6 + die
    assert game.state.dice_position == start + 1
    assert game.state.to_json()["units"]["u1"]["moved"]["allowance"] == 6 + die
    # Twice is refused, and the refusal rolls nothing.
    err = game.refused(1, type="advance", unit="u1")
    assert err.code == "illegal_move" and err.details["rule"] == "One Move per Phase"
    # Too far for Move + die: refused with the committed allowance; the dice stay.
    too_far = _moved(game.state, "u1", 6 + die + 0.5)
    err = game.refused(1, type="move_models", unit="u1", positions=too_far)
    assert err.details["allowance"] == 6 + die
    assert game.state.dice_position == start + 1
    # Within it (and beyond the plain Move when the die allows): the Advance move.
    (moved,) = game.act(1, type="move_models", unit="u1",
                        positions=_moved(game.state, "u1", 6 + die - 0.5))
    assert moved.payload["mode"] == "advance" and moved.payload["allowance"] == 6 + die
    assert game.state.dice_position == start + 1
    err = game.refused(1, type="move_models", unit="u1",
                       positions=_moved(game.state, "u1", 0.5))
    assert err.details["rule"] == "One Move per Phase"
    # The Advance survives a replay of the log.
    assert core.replay(game.log).to_json() == game.state.to_json()


def test_a_40k_unit_that_has_moved_cannot_then_advance() -> None:
    """An Advance is the unit's move for the phase: it cannot also make a normal move."""
    game = battle("wh40k10", [BOYZ], [MARINES])
    game.to_phase(1, "Movement")
    game.act(1, type="move_models", unit="u1", positions=_moved(game.state, "u1", 1))
    err = game.refused(1, type="advance", unit="u1")
    assert err.details["rule"] == "One Move per Phase"


@pytest.mark.parametrize(
    "action",
    [
        {"type": "advance", "unit": "u1"},
        {"type": "move_models", "unit": "u1", "positions": "shift"},
        {"type": "declare_charge", "unit": "u1", "target": "u2"},
        {"type": "roll_dice", "dice": "2D6"},
    ],
)
def test_a_preview_rolls_throwaway_dice_and_reports_none(action: dict[str, Any]) -> None:
    """A preview decides with a throwaway stream (server/games/service.py) and reports no
    roll, so it tells nothing about the game's dice: two previews with streams whose next
    dice differ answer the same."""
    states = dict(game_states())
    state = states["wh40k10 charge" if action["type"] == "declare_charge" else "wh40k10 movement"]
    if action.get("positions") == "shift":
        action = {**action, "positions": _moved(state, "u1", 3)}
    a, b = _two_streams(state.dice_position)
    answers = [preview(state, 1, action, DiceStream(seed, state.dice_position))
               for seed in (a, b)]
    assert answers[0] == answers[1]
