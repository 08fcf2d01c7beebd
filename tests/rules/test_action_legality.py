"""Issue 23 item 1: an action says when it is legal. Every registered action declares the
stages, phases and player it belongs to (`core.When`), and `core.decide` checks them in one
place, in a fixed order, before the action's handler runs (boardgame.io's moves per phase).
"""

from __future__ import annotations

import dataclasses
import enum
import typing
from collections.abc import Iterator
from typing import Any, Literal

import pytest

from server.dice import DiceStream
from server.rules import core, questions, table
from server.rules.core import (
    ACTIONS,
    ACTIVE,
    ACTORS,
    BATTLE,
    EITHER,
    PLAYING,
    REACTING,
    SETUP,
    SYSTEM,
    ActionModel,
    ActionSpec,
    Event,
    GameState,
    Phases,
    RuleError,
    When,
    allowed_now,
    register_action,
    register_folder,
)
from server.rules.systems import SYSTEMS, find_system
from tests.rules.helpers import SEED, Game

# --- game states in every stage and phase of each system ----------------------------------------


def _fold(state: GameState, *events: Event) -> GameState:
    for event in events:
        state = core.fold(state, dataclasses.replace(event, seq=state.seq + 1))
    return state


def _one_seat(system: str) -> GameState:
    events = table.genesis("g", system, "Test", core.Battlefield(72, 48), "c")
    return _fold(GameState(), *events, table.seat_claimed(1))


def states(system: str) -> Iterator[tuple[str, GameState]]:
    """Setup (both seats, and one), deployment (player 1 deploys), each phase of the battle with
    player 1 and with player 2 active, and a charge waiting for player 2's Charge Reaction."""
    setup = Game(system).state
    yield "setup", setup
    yield "setup, one seat", _one_seat(system)
    yield "deployment", _fold(setup, Event("deployment_started", {"deploying": 1}))
    rules = find_system(system)
    for active in (1, 2):
        for phase in rules.phases:
            began = Event("battle_started", {"turn": 1, "active_player": active, "phase": phase})
            yield f"battle, player {active}, {phase}", _fold(setup, began)
    charge = rules.charge_phases[0]
    began = _fold(setup, Event("battle_started", {"turn": 1, "active_player": 1, "phase": charge}))
    pending = {"unit": "u1", "target": "u2", "reacting_player": 2, "reactions": ["hold"]}
    waiting = began.evolve(charges=dataclasses.replace(began.charges, pending=pending))
    yield f"battle, player 1, {charge}, charge pending", waiting


# --- a well-formed payload of every action ------------------------------------------------------

KNOWN: dict[str, Any] = {
    "unit": "u1", "target": "u2", "character": "u1", "id": "t1", "x": 10.0, "y": 10.0,
    "facing": 0.0, "point": [0.0, 10.0], "positions": [[10.0, 10.0]],
    "points": [[1.0, 1.0], [5.0, 1.0], [3.0, 4.0]], "dice": "D6", "text": "a note",
    "spell": "Fireball", "units": [{"datasheet": "citizen-spears", "models": 10}],
    "weapons": [{"weapon": "Bolt rifle", "target": "u2"}],
    "targets": ["u2"], "models": ["Intercessor", "Intercessor Sergeant"],
}


def _value(annotation: Any) -> Any:
    if typing.get_origin(annotation) is Literal:
        return typing.get_args(annotation)[0]
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return next(iter(annotation)).value
    if annotation is str:
        return "u1"
    if annotation in (int, float):
        return 1
    raise AssertionError(f"no sample value for {annotation!r}: add the field to KNOWN")


def payload(spec: ActionSpec) -> dict[str, Any]:
    """The action with its required fields filled, valid against its schema."""
    raw: dict[str, Any] = {"type": spec.name}
    for key, info in spec.model.model_fields.items():
        if key != "type" and info.is_required():
            raw[key] = KNOWN[key] if key in KNOWN else _value(info.annotation)
    spec.model.model_validate(raw)
    return raw


# --- the declaration, read independently of core.check_when --------------------------------------


def declared_refusal(spec: ActionSpec, state: GameState, seat: int) -> str | None:
    """Which of its declared requirements `seat`'s action misses in `state` (None: none)."""
    battle = state.battle
    stage = battle.stage
    windows = [w for w in spec.when if w.stage == stage]
    if not windows:
        return "stage"
    window = windows[0]
    if spec.needs_opponent and state.seats != {1, 2}:
        return "opponent"
    if window.actor == SYSTEM:
        return "system"
    if window.actor == ACTIVE:
        whose = battle.deploying if stage == "deployment" else battle.active_player
        if whose != seat:
            return "turn"
    if window.actor == REACTING and battle.active_player == seat:
        return "turn"
    if window.phases is not None and battle.phase not in window.phases.of(state.system):
        return "phase"
    if window.actor == ACTIVE and stage == BATTLE and state.charges.pending:
        return "waiting"
    if window.actor == REACTING and not state.charges.pending:
        return "nothing to answer"
    return None


class Spy:
    """A handler that records that it ran and produces nothing."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, state: GameState, seat: int, action: Any, dice: DiceStream) -> list[Event]:
        self.calls += 1
        return []


CASES = [
    (name, system)
    for name in sorted(ACTIONS)
    for system in sorted(SYSTEMS)
    if ACTIONS[name].available(system)
]


# --- the tests ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_every_registered_action_declares_its_stages_phases_and_actor(name: str) -> None:
    """Each action of the engine says in which stages, for which player and (in battle) in
    which phases it may be taken; the phases it names are phases of every system it exists in,
    asked of the system."""
    spec = ACTIONS[name]
    assert spec.declared, f"{name} is registered without `when=`"
    assert spec.doing, name
    assert spec.when and set(spec.stages) <= set(PLAYING), (name, spec.stages)
    assert len(set(spec.stages)) == len(spec.stages)
    for window in spec.when:
        assert window.actor in ACTORS
        if window.phases is None:
            continue
        assert window.stage == BATTLE
        for system in SYSTEMS:
            if spec.available(system):
                phases = window.phases.of(system)
                assert phases and set(phases) <= set(find_system(system).phases), (
                    name, system, phases
                )


@pytest.mark.parametrize(("name", "system"), CASES)
def test_decide_refuses_out_of_stage_phase_and_turn_before_the_handler_runs(
    name: str, system: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In every stage, phase and seat of a game of `system`: where the declaration says no,
    `decide` refuses with `out_of_phase` and the handler never runs; where it says yes, the
    handler is asked (and judges the rest)."""
    spec = ACTIONS[name]
    spy = Spy()
    monkeypatch.setitem(ACTIONS, name, dataclasses.replace(spec, handler=spy))
    raw = payload(spec)
    for label, state in states(system):
        for seat in (1, 2):
            before = spy.calls
            why = declared_refusal(spec, state, seat)
            dice = DiceStream(SEED, state.dice_position)
            if why is None:
                assert core.decide(state, seat, raw, dice) == [], (label, seat)
                assert spy.calls == before + 1, (label, seat)
                continue
            with pytest.raises(RuleError) as err:
                core.decide(state, seat, raw, dice)
            assert err.value.code == "out_of_phase", (label, seat, why, err.value.message)
            assert spy.calls == before, (label, seat, why)
            assert dice.position == state.dice_position


def _battle(system: str, active: int, phase: str) -> GameState:
    began = Event("battle_started", {"turn": 1, "active_player": active, "phase": phase})
    return _fold(Game(system).state, began)


def _refusal(state: GameState, seat: int, **action: Any) -> RuleError:
    with pytest.raises(RuleError) as err:
        core.decide(state, seat, action, DiceStream(SEED, state.dice_position))
    return err.value


def test_a_move_out_of_the_movement_phase_names_the_systems_phase() -> None:
    """The phases are asked of the system: moving is in t9a's and whfb8's "Movement", and the
    refusal names the phase the game is in and the one allowed."""
    for system in ("t9a", "whfb8"):
        err = _refusal(_battle(system, 1, "Shooting"), 1, type="move_unit", unit="u1",
                       manoeuvre="forward", distance=1)
        assert err.code == "out_of_phase"
        assert err.details == {"active_player": 1, "phase": "Shooting", "allowed": ["Movement"]}
        assert err.message == "moving happens in the Movement phase, not Shooting"


def test_the_turn_is_checked_before_the_phase_and_names_the_active_player() -> None:
    """Player 2 moving in player 1's Shooting phase is told it is player 1's turn (the turn is
    checked before the phase)."""
    err = _refusal(_battle("t9a", 1, "Shooting"), 2, type="move_unit", unit="u1",
                   manoeuvre="forward", distance=1)
    assert err.code == "out_of_phase"
    assert err.details == {"active_player": 1, "phase": "Shooting"}
    assert err.message == "it is player 1's turn; moving waits for yours"


def test_the_stage_is_checked_first_and_names_the_stages_allowed() -> None:
    """Deploying during set-up: out_of_phase naming the stage, before the unit is looked up
    (there is no unit u9)."""
    err = _refusal(Game("t9a").state, 1, type="deploy_unit", unit="u9", x=10, y=5)
    assert err.code == "out_of_phase"
    assert err.details == {"stage": "setup", "allowed": ["deployment"]}


def test_deploying_out_of_turn_names_the_deploying_player() -> None:
    state = _fold(Game("whfb8").state, Event("deployment_started", {"deploying": 1}))
    err = _refusal(state, 2, type="declare_reserve", unit="u2")
    assert (err.code, err.details) == ("out_of_phase", {"deploying": 1})


def test_a_charge_reaction_is_the_other_players_and_needs_a_waiting_charge() -> None:
    """docs/protocol.md "Charges and Charge Reactions": the charged (not the active) player
    answers, and only while a charge waits for the answer."""
    state = _battle("t9a", 1, "Charge")
    mine = _refusal(state, 1, type="charge_reaction", reaction="hold")
    assert mine.code == "out_of_phase" and mine.details["active_player"] == 1
    nothing = _refusal(state, 2, type="charge_reaction", reaction="hold")
    assert nothing.code == "out_of_phase"
    assert nothing.message == "no charge is waiting for a Charge Reaction"


def test_proposals_need_both_seats() -> None:
    err = _refusal(_one_seat("t9a"), 1, type="propose", kind="undo")
    assert (err.code, err.details) == ("out_of_phase", {"seats": [1]})


def test_allowed_now_answers_from_the_declaration() -> None:
    """The game-level question a client's controls ask: may this seat take this action now?"""
    state = _battle("wh40k10", 2, "Movement")
    assert allowed_now(ACTIONS["end_phase"], state, 2)
    assert not allowed_now(ACTIONS["end_phase"], state, 1)
    assert allowed_now(ACTIONS["advance"], state, 2)
    assert not allowed_now(ACTIONS["shoot"], state, 2)  # no rank-and-flank shooting in 40k
    assert not allowed_now(ACTIONS["submit_army"], state, 2)
    assert allowed_now(ACTIONS["submit_army"], Game("wh40k10").state, 1)


class _Toy(ActionModel):
    type: Literal["toy_system_step"]


def test_a_system_action_is_refused_to_both_seats(monkeypatch: pytest.MonkeyPatch) -> None:
    """An action only the engine produces: `forbidden` for either player, handler not run."""
    spy = Spy()
    monkeypatch.setattr(core, "ACTIONS", dict(ACTIONS))
    register_action("toy_system_step", _Toy, when=[When(BATTLE, SYSTEM)])(spy)
    state = _battle("t9a", 1, "Charge")
    for seat in (1, 2):
        assert _refusal(state, seat, type="toy_system_step").code == "forbidden"
    assert spy.calls == 0


def test_registering_an_action_or_a_folder_twice_is_an_error() -> None:
    """Registration order does not matter because nothing is registered twice: a second
    registration of a name raises, whichever module comes first."""
    spec = ACTIONS["concede"]
    with pytest.raises(ValueError, match="registered twice"):
        register_action("concede", spec.model, when=core.ANY_TIME)(spec.handler)
    with pytest.raises(ValueError, match="registered twice"):
        register_folder("game_ended")(lambda state, event: state)
    assert ACTIONS["concede"] is spec


def test_a_declaration_is_checked_when_it_is_made() -> None:
    """One window per stage; phases only in battle; an active player only in deployment and
    battle, a reacting one only in battle; known stages and actors."""
    with pytest.raises(ValueError, match="one window per stage"):
        register_action("toy", _Toy, when=[When(SETUP), When(SETUP)])
    with pytest.raises(ValueError, match="one window per stage"):
        register_action("toy", _Toy, when=[])
    with pytest.raises(ValueError, match="battle stage"):
        When(SETUP, EITHER, Phases.named("Movement"))
    with pytest.raises(ValueError, match="active player"):
        When(SETUP, ACTIVE)
    with pytest.raises(ValueError, match="reacting player"):
        When("deployment", REACTING)
    with pytest.raises(ValueError, match="unknown stage"):
        When("lunch")
    with pytest.raises(ValueError, match="unknown actor"):
        When(BATTLE, "referee")


class _Sweep(ActionModel):
    type: Literal["toy_sweep", "toy_hidden_sweep", "toy_rolled"]


def _sweeping(state: GameState, seat: int, action: Any, dice: DiceStream) -> list[Event]:
    swept = {"type": "Point", "coordinates": [1, 2]}
    return [Event("toy_swept", {"swept": swept, "distance": 3.5}, actor=seat)]


def test_a_preview_shows_what_the_action_declares(monkeypatch: pytest.MonkeyPatch) -> None:
    """`preview` (server/rules/questions.py) names no action: an action declared not to
    `sweep` shows no swept region, one declared `rolls_distance` no distance."""
    monkeypatch.setattr(core, "ACTIONS", dict(ACTIONS))
    monkeypatch.setattr(questions, "ACTIONS", core.ACTIONS)
    register_action("toy_sweep", _Sweep, when=core.ANY_TIME)(_sweeping)
    register_action("toy_hidden_sweep", _Sweep, when=core.ANY_TIME, sweeps=False)(_sweeping)
    register_action("toy_rolled", _Sweep, when=core.ANY_TIME, rolls_distance=True)(_sweeping)
    state = Game("t9a").state

    def ask(kind: str) -> dict[str, Any]:
        return questions.preview(state, 1, {"type": kind}, DiceStream(SEED, 0))

    shown, hidden, rolled = ask("toy_sweep"), ask("toy_hidden_sweep"), ask("toy_rolled")
    assert (shown["swept"], shown["distance"]) == ({"type": "Point", "coordinates": [1, 2]}, 3.5)
    assert (hidden["swept"], hidden["distance"]) == (None, 3.5)
    assert (rolled["swept"], rolled["distance"]) == ({"type": "Point", "coordinates": [1, 2]},
                                                     None)
    assert ACTIONS["charge_reaction"].rolls_distance
    assert {n for n, s in ACTIONS.items() if not s.sweeps} == {
        "declare_charge", "charge_reaction", "decline_overwatch", "propose", "accept_proposal"
    }
