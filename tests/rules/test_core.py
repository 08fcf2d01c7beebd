"""The pure reducer: decide() and fold() on the shared table actions (issue 2)."""

from __future__ import annotations

import dataclasses

import pytest

from server.dice import DiceStream, verify
from server.rules import core, table
from server.rules.core import Battlefield, Event, GameState, RuleError

SEED = bytes(range(32))


def new_game(seats: tuple[int, ...] = (1, 2)) -> GameState:
    events = table.genesis("g1", "t9a", "Test", Battlefield(72, 48), "c0mm1t")
    events += [table.seat_claimed(s) for s in seats]
    return play(GameState(), events)


def play(state: GameState, events: list[Event]) -> GameState:
    for e in events:
        state = core.fold(state, dataclasses.replace(e, seq=state.seq + 1))
    return state


def act(state: GameState, seat: int | None, action: dict) -> GameState:
    events = core.decide(state, seat, action, DiceStream(SEED, state.dice_position))
    return play(state, events)


def test_genesis_sets_up_the_game() -> None:
    state = new_game()
    assert (state.id, state.system, state.name) == ("g1", "t9a", "Test")
    assert state.battlefield == Battlefield(72.0, 48.0)
    assert state.seats == {1, 2}
    assert state.seq == 3


def test_place_move_remove_token() -> None:
    state = act(new_game(), 1, {"type": "place_token", "label": "Spears", "x": 10, "y": 5})
    token = state.tokens["t1"]
    assert (token.owner, token.label, token.x, token.y) == (1, "Spears", 10.0, 5.0)
    state = act(state, 1, {"type": "move_token", "id": "t1", "x": 13, "y": 9, "facing": 450})
    assert (state.tokens["t1"].x, state.tokens["t1"].y, state.tokens["t1"].facing) == (13, 9, 90)
    state = act(state, 1, {"type": "remove_token", "id": "t1"})
    assert state.tokens == {}
    # Ids are never reused: the next token is t2.
    state = act(state, 2, {"type": "place_token", "x": 1, "y": 1})
    assert list(state.tokens) == ["t2"]


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "place_token", "x": 72.5, "y": 5}, "illegal_move"),
        ({"type": "place_token", "x": -0.1, "y": 5}, "illegal_move"),
        ({"type": "place_token", "x": 5, "y": 48.01}, "illegal_move"),
        ({"type": "place_token", "x": "a", "y": 5}, "bad_request"),
        ({"type": "place_token", "x": 5, "y": 5, "colour": "red"}, "bad_request"),
        ({"type": "place_token", "x": float("nan"), "y": 5}, "bad_request"),
        ({"type": "teleport"}, "bad_request"),
        ({"x": 1}, "bad_request"),
        ("place_token", "bad_request"),
        ({"type": "move_token", "id": "t99", "x": 1, "y": 1}, "not_found"),
        ({"type": "roll_dice", "dice": "2D7"}, "bad_request"),
        ({"type": "note", "text": ""}, "bad_request"),
    ],
)
def test_bad_actions_are_refused_with_a_code(action: object, code: str) -> None:
    state = new_game()
    with pytest.raises(RuleError) as err:
        core.decide(state, 1, action, DiceStream(SEED))
    assert err.value.code == code
    assert err.value.message


def test_edges_of_the_battlefield_are_on_it() -> None:
    state = act(new_game(), 1, {"type": "place_token", "x": 72, "y": 48})
    assert state.tokens["t1"].x == 72


def test_only_the_owner_moves_a_token() -> None:
    state = act(new_game(), 1, {"type": "place_token", "x": 10, "y": 5})
    with pytest.raises(RuleError) as err:
        core.decide(state, 2, {"type": "move_token", "id": "t1", "x": 1, "y": 1}, DiceStream(SEED))
    assert err.value.code == "forbidden"


def test_spectators_cannot_act() -> None:
    with pytest.raises(RuleError) as err:
        core.decide(new_game(), None, {"type": "note", "text": "hi"}, DiceStream(SEED))
    assert err.value.code == "forbidden"


def test_dice_rolls_advance_the_stream_and_verify() -> None:
    state = new_game()
    state = act(state, 1, {"type": "roll_dice", "dice": "2D6", "reason": "charge"})
    state = act(state, 2, {"type": "roll_dice", "dice": "D3"})
    assert state.dice_position == 3
    assert state.rolls == 2


def test_replay_reproduces_state_and_dice() -> None:
    """The log alone rebuilds the state; its rolls verify against the seed (issue 2, 4)."""
    from server.dice import commitment

    state = new_game()
    log: list[Event] = []
    for action in [
        {"type": "place_token", "x": 10, "y": 5},
        {"type": "roll_dice", "dice": "3D6"},
        {"type": "move_token", "id": "t1", "x": 11, "y": 6},
        {"type": "roll_dice", "dice": "D6"},
    ]:
        events = core.decide(state, 1, action, DiceStream(SEED, state.dice_position))
        events = [dataclasses.replace(e, seq=state.seq + i + 1) for i, e in enumerate(events)]
        log += events
        state = core.fold_all(state, events)
    replayed = core.fold_all(new_game(), log)
    assert replayed == state
    rolls = [r for e in log for r in core.rolls_of(e.payload)]
    assert verify(SEED, commitment(SEED), rolls)


def test_hidden_events_keep_their_seq_but_not_their_content() -> None:
    secret = Event("fanatics_hidden", {"unit": "u1"}, actor=1, visibility="player:1", seq=7)
    assert secret.to_wire(1)["payload"] == {"unit": "u1"}
    for viewer in (2, None):
        wire = secret.to_wire(viewer)
        assert wire == {"seq": 7, "type": "hidden", "actor": 1, "payload": {}}
