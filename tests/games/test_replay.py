"""Issue 20 item 1: replays. The state at any seq is the fold of the log up to it (one fold,
`core.replay`, reached from checkpoints), and a viewer's projection at seq N is exactly what
that viewer was shown at N: a hidden event stays hidden from the opponent and spectators until
the game reveals it."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.games.replay import Replay, timeline
from server.rules import core
from server.rules.core import Event, GameState, RuleError
from tests.rules.helpers import Game, battle

SPEARS = {"datasheet": "citizen-spears", "models": 20, "files": 5}
ARCHERS = {"datasheet": "citizen-archers", "models": 10, "files": 5}


def random_game(seed: int, steps: int) -> Game:
    """A t9a battle driven by seeded random choices: phases ended, tokens placed and moved,
    undos proposed and accepted or declined (so the log holds `events_undone`)."""
    rng = random.Random(seed)
    game = battle("t9a", [SPEARS], [ARCHERS], seed=seed.to_bytes(32, "big"))
    for _ in range(steps):
        if game.state.over:
            break
        active = int(game.state.battle.active_player or 1)
        choice = rng.random()
        try:
            if choice < 0.35:
                game.act(active, type="end_phase")
            elif choice < 0.6:
                seat = rng.choice((1, 2))
                game.act(seat, type="place_token", label="obj", x=rng.uniform(1, 70),
                         y=rng.uniform(1, 46))
            elif choice < 0.75 and game.state.tokens:
                token = rng.choice(list(game.state.tokens.values()))
                game.act(token.owner, type="move_token", id=token.id, x=rng.uniform(1, 70),
                         y=rng.uniform(1, 46))
            elif game.state.undoable:
                seat = rng.choice((1, 2))
                seq = rng.choice(game.state.undoable)[0]
                (made,) = game.act(seat, type="propose", kind="undo", seq=seq)
                answer = "accept_proposal" if rng.random() < 0.7 else "decline_proposal"
                game.act(3 - seat, type=answer, id=made.payload["id"])
        except RuleError:
            continue
    return game


def assert_every_seq_matches(log: list[Event], every: int, order: list[int]) -> None:
    replay = Replay(log, every=every)
    assert replay.state == core.replay(log)
    for seq in order:
        assert replay.state_at(seq) == core.replay(log[:seq]), f"seq {seq}, every {every}"


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), steps=st.integers(5, 45), every=st.integers(1, 9),
       shuffle=st.randoms(use_true_random=False))
def test_replay_state_at_every_seq_equals_the_fold_of_the_log_up_to_it(
    seed: int, steps: int, every: int, shuffle: random.Random
) -> None:
    game = random_game(seed, steps)
    order = list(range(game.state.seq + 1))
    shuffle.shuffle(order)  # scrubbing back and forth: the answer never depends on the path
    assert_every_seq_matches(game.log, every, order)


def test_replay_of_a_scripted_battle_with_an_undo_matches_the_fold_at_every_seq() -> None:
    """A charge, its undo by agreement (test_proposals.py), the charge again and the combat:
    an undo reaching back past a checkpoint makes the replay use an earlier one."""
    game = battle("t9a", [SPEARS], [ARCHERS])
    game.put("u1", 30, 20, 0)
    game.put("u2", 30, 27, 180)
    game.to_phase(1, "Charge")
    game.act(1, type="declare_charge", unit="u1", target="u2")
    events = game.act(2, type="charge_reaction", reaction="hold")
    (made,) = game.act(2, type="propose", kind="undo", seq=events[0].seq)
    game.act(1, type="accept_proposal", id=made.payload["id"])
    assert core.needs_replay(game.log)
    game.act(2, type="charge_reaction", reaction="hold")
    game.to_phase(1, "Melee")
    game.act(1, type="fight_combat", unit="u1")
    n = game.state.seq
    for every in (1, 4, 32):
        assert_every_seq_matches(game.log, every, [*range(n, -1, -1), *range(n + 1)])


def test_replay_extends_as_a_running_game_goes_on() -> None:
    game = random_game(7, 30)
    half = len(game.log) // 2
    replay = Replay(game.log[:half], every=5)
    replay.extend(game.log[half:])
    for seq in range(len(game.log) + 1):
        assert replay.state_at(seq) == core.replay(game.log[:seq])
    with pytest.raises(ValueError, match="does not follow"):
        replay.extend([dataclasses.replace(game.log[0], seq=replay.seq + 2)])
    with pytest.raises(ValueError, match="outside the log"):
        replay.state_at(replay.seq + 1)


# --- hidden information ------------------------------------------------------------------------


@dataclass(frozen=True)
class Secret:
    """The test's own part of the state: the hidden marker (None: none)."""

    secret: dict[str, Any] | None = None


@pytest.fixture
def secret_rules() -> Iterator[None]:
    """A test-only secret: `test_secret_hidden` (visible to its seat) puts a hidden marker
    into the state, shown only to that seat; `test_secret_revealed` (public) shows it to all."""

    def hide(state: GameState, event: Event) -> GameState:
        return core.with_part(state, Secret(dict(event.payload, seat=event.actor)))

    def reveal(state: GameState, event: Event) -> GameState:
        secret = core.part_of(state, Secret).secret
        return core.with_part(state, Secret({**secret, "revealed": True})) if secret else state

    def project(state: GameState, viewer: int | None, out: dict[str, Any]) -> None:
        secret = core.part_of(state, Secret).secret
        if secret and (secret.get("revealed") or viewer == secret["seat"]):
            out["test_secret"] = secret["where"]
        elif secret:
            out["test_secret"] = "a secret"

    core.FOLDERS["test_secret_hidden"] = hide
    core.FOLDERS["test_secret_revealed"] = reveal
    core.STATE_PROJECTORS.append(project)
    try:
        yield
    finally:
        core.FOLDERS.pop("test_secret_hidden")
        core.FOLDERS.pop("test_secret_revealed")
        core.STATE_PROJECTORS.remove(project)


def test_hidden_events_stay_hidden_in_replay_for_the_opponent_and_spectators(
    secret_rules: None,
) -> None:
    """Each viewer's replay at every seq is the projection that viewer was shown live then:
    the opponent and spectators see "a secret" (and a `hidden` event) until it is revealed."""
    game = battle("t9a", [SPEARS], [ARCHERS])
    shown: dict[int, dict[int | None, dict[str, Any]]] = {}
    hidden_seq = game.append([Event("test_secret_hidden", {"where": "behind the hill"},
                                    actor=1, visibility="player:1")])[0].seq
    shown[hidden_seq] = {v: game.state.to_json(v) for v in (1, 2, None)}
    game.act(1, type="place_token", label="flag", x=5, y=5)
    shown[game.state.seq] = {v: game.state.to_json(v) for v in (1, 2, None)}
    revealed_seq = game.append([Event("test_secret_revealed", {})])[0].seq
    shown[revealed_seq] = {v: game.state.to_json(v) for v in (1, 2, None)}

    replay = Replay(game.log, every=2)
    for seq, views in shown.items():
        for viewer, view in views.items():
            assert replay.state_at(seq).to_json(viewer) == view
    for seq in range(hidden_seq, revealed_seq):
        for viewer in (2, None):
            assert replay.state_at(seq).to_json(viewer)["test_secret"] == "a secret"
        assert replay.state_at(seq).to_json(1)["test_secret"] == "behind the hill"
    assert replay.state_at(revealed_seq).to_json(None)["test_secret"] == "behind the hill"
    for viewer in (2, None):
        (step,) = [s for s in timeline(replay, viewer) if s["seq"] == hidden_seq]
        assert step["type"] == "hidden"
    (own,) = [s for s in timeline(replay, 1) if s["seq"] == hidden_seq]
    assert own["type"] == "test_secret_hidden"


def test_a_timeline_step_tells_the_turn_player_and_phase_after_each_event() -> None:
    game = battle("t9a", [SPEARS], [ARCHERS])
    game.act(1, type="end_phase")
    steps = timeline(Replay(game.log), None)
    assert [s["seq"] for s in steps] == list(range(1, game.state.seq + 1))
    last = steps[-1]
    now = game.state.battle
    assert (last["turn"], last["player"], last["phase"]) == (now.turn, now.active_player, now.phase)
    assert steps[0]["stage"] == "setup" and steps[0]["turn"] is None
