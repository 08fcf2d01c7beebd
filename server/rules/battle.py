"""The shape of a battle: stages, turns and phases, and whose move it is.

A game goes setup (terrain, armies) -> deployment (alternating) -> battle (turns of two player
turns, each a fixed list of phases) -> over. The active player ends each phase explicitly; the
state shows the turn, the active player and the phase. Every action declares the stages,
phases and player it belongs to (`core.When`), and `core.decide` checks them before it runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any, Literal

from server.dice import DiceStream
from server.rules.core import (
    ACTIVE,
    BATTLE,
    OVER,
    REACTING,
    ActionModel,
    ActionSpec,
    Event,
    GameState,
    Phases,
    When,
    check_when,
    decide,
    fold_all,
    register_action,
    register_folder,
    register_projector,
)
from server.rules.core import DEPLOYMENT as DEPLOYMENT
from server.rules.endgame import result_events
from server.rules.orders import (
    judge,
    offer,
    refused,
    register_acting,
    register_game_offer,
    throwaway_dice,
)
from server.rules.resume import is_suspended, register_frame, suspension
from server.rules.state import changed
from server.rules.systems import find_system

TurnStartHook = Callable[[GameState, DiceStream], list[Event]]
TURN_START_HOOKS: list[TurnStartHook] = []


def register_turn_start(hook: TurnStartHook) -> TurnStartHook:
    """Register `hook(state, dice) -> events`, run when a Player Turn begins (after the
    `phase_ended` that starts it is folded into `state`): e.g. Rally Tests (server/rules/flee.py).
    """
    TURN_START_HOOKS.append(hook)
    return hook


def phases_of(system: str) -> tuple[str, ...]:
    """The phases of a player turn, in order, of the game system `system`."""
    return find_system(system).phases


def other(seat: int) -> int:
    return 2 if seat == 1 else 1


def stage(state: GameState) -> str:
    """The game's stage (setup, deployment, battle, over)."""
    return state.battle.stage


def require_stage(state: GameState, *allowed: str) -> None:
    """For an action registered without `when`: the stage check `decide` makes of a declared
    one (`core.check_when`). Declare `when=` instead (see `ActionSpec`)."""
    check_when(_stage_spec(allowed), state, 0)


@lru_cache(maxsize=64)
def _stage_spec(allowed: tuple[str, ...]) -> ActionSpec:
    """The stage check's spec, made once per set of stages (it is asked per Stratagem target
    in every projection)."""
    return _adhoc(tuple(When(s) for s in allowed), "this")


def require_phase(state: GameState, seat: int, phases: Iterable[str], what: str) -> None:
    """For an action registered without `when`: the check `decide` makes of one declared
    `When(BATTLE, ACTIVE, Phases.named(*phases))` (stage, active player, phase, no Charge
    Reaction awaited). Declare `when=` instead (see `ActionSpec`)."""
    window = When(BATTLE, ACTIVE, Phases.named(*phases))
    check_when(_adhoc((window,), what), state, seat)


def require_reaction_window(
    state: GameState, seat: int, phases: Iterable[str], what: str
) -> None:
    """For an action registered without `when`: the check `decide` makes of one declared
    `When(BATTLE, REACTING, Phases.named(*phases))` (stage, the player who is not active,
    phase, a charge awaiting its reaction). Declare `when=` instead (see `ActionSpec`)."""
    window = When(BATTLE, REACTING, Phases.named(*phases))
    check_when(_adhoc((window,), what), state, seat)


def _adhoc(when: tuple[When, ...], doing: str) -> ActionSpec:
    def never(state: GameState, seat: int, action: ActionModel, dice: DiceStream) -> list[Event]:
        raise AssertionError("only checked, never run")

    return ActionSpec("", ActionModel, never, None, when=when, doing=doing)


def battle_started_event(state: GameState, first: int = 1) -> Event:
    """The battle begins: Game Turn 1, `first`'s turn, the system's first phase."""
    return Event(
        "battle_started",
        {"turn": 1, "active_player": first, "phase": phases_of(state.system)[0]},
    )


# --- hooks: what rules do when a phase starts or the game ends --------------------------------

PhaseHook = Callable[[GameState, DiceStream], list[Event]]
_PHASE_START: list[tuple[str, str | None, PhaseHook]] = []
_GAME_END: list[tuple[str, PhaseHook]] = []


def _registrar(
    hooks: list[tuple[str, str | None, PhaseHook]], system: str, phase: str | None
) -> Callable[[PhaseHook], PhaseHook]:
    def wrap(hook: PhaseHook) -> PhaseHook:
        hooks.append((system, phase, hook))
        return hook

    return wrap


def on_phase_start(system: str, phase: str | None = None) -> Callable[[PhaseHook], PhaseHook]:
    """Register `hook(state, dice) -> events`, run when a phase of `system` starts (any phase
    when `phase` is None). `state` already shows the new phase and active player."""
    return _registrar(_PHASE_START, system, phase)


def on_game_end(system: str) -> Callable[[PhaseHook], PhaseHook]:
    """Register `hook(state, dice) -> events`, run just before the game ends after its last
    turn (e.g. Ambush: units that never arrived are removed as casualties)."""

    def wrap(hook: PhaseHook) -> PhaseHook:
        _GAME_END.append((system, hook))
        return hook

    return wrap


_PHASE_END: list[tuple[str, str | None, PhaseHook]] = []


def on_phase_end(system: str, phase: str | None = None) -> Callable[[PhaseHook], PhaseHook]:
    """Register `hook(state, dice) -> events`, run when the active player ends a phase, before
    the next one starts. A hook may refuse the end with a RuleError (something must happen
    first) or add events (e.g. ambushers that could not arrive stay in ambush)."""

    return _registrar(_PHASE_END, system, phase)


def _run_hooks(state: GameState, hooks: Iterable[PhaseHook], dice: DiceStream) -> list[Event]:
    """Run hooks in order, each seeing the state left by the events of those before it."""
    out: list[Event] = []
    for hook in hooks:
        produced = hook(state, dice)
        state = fold_all(state, produced)
        out.extend(produced)
    return out


def phase_start_events(state: GameState, dice: DiceStream) -> list[Event]:
    """The events the rules of `state`'s system add as its current phase starts."""
    return phase_start_from(state, 0, dice)


def _opening_hooks(state: GameState) -> list[PhaseHook]:
    phase = state.battle.phase
    return [h for s, p, h in _PHASE_START if s == state.system and p in (None, phase)]


def phase_start_from(state: GameState, first: int, dice: DiceStream) -> list[Event]:
    """The start of the current phase from its `first` opening hook on. A hook whose events
    wait for a player (whfb8: a Fanatic's compulsory whirl at the start of the Movement phase
    releases enemy Fanatics, which move before anything else) suspends the rest, as a phase
    end does (`phase_end_from`): its events are kept and the other hooks run once the player
    has acted (`_resume_phase_start`)."""
    phase = state.battle.phase
    _, out, _ = _hooks_from(state, _opening_hooks(state), first, dice, lambda i: {
        "kind": "phase_start", "next": i, "text": f"the rest of the start of the {phase} phase"})
    return out


def _hooks_from(
    state: GameState, hooks: list[PhaseHook], first: int, dice: DiceStream,
    frame: Callable[[int], dict[str, Any]],
) -> tuple[GameState, list[Event], bool]:
    """Run `hooks` from the `first` on, each on the state the ones before left; a hook whose
    events wait for a player suspends the rest (`frame(i)`: where to resume, at hook i). The
    state after, the events, and whether they stopped to wait."""
    out: list[Event] = []
    for i, hook in enumerate(hooks[first:], first):
        produced = hook(state, dice)
        state = fold_all(state, produced)
        out.extend(produced)
        if is_suspended(produced):
            out.append(suspension(frame(i + 1)))
            return state, out, True
    return state, out, False


@register_frame("phase_start")
def _resume_phase_start(state: GameState, frame: Any, dice: Any) -> list[Event]:
    return phase_start_from(state, int(frame["next"]), dice)


class EndPhase(ActionModel):
    type: Literal["end_phase"]


@register_action("end_phase", EndPhase, when=[When(BATTLE, ACTIVE)], doing="ending the phase")
def end_phase(state: GameState, seat: int, action: EndPhase, dice: DiceStream) -> list[Event]:
    """The active player ends the phase; the last phase ends the player turn, and the second
    player turn ends the game turn. After the system's last turn the game ends."""
    return phase_end_from(state, seat, 0, dice)


def _closing_hooks(state: GameState) -> list[PhaseHook]:
    phase = state.battle.phase
    return [h for s, p, h in _PHASE_END if s == state.system and p in (None, phase)]


def phase_end_from(state: GameState, seat: int, first: int, dice: DiceStream) -> list[Event]:
    """The end of `seat`'s phase from its `first` closing hook on. A hook whose events wait for
    a player (whfb8: a unit a Mishap brings on as the Movement phase ends comes within 8 in
    of concealing Night Goblins, whose Fanatics move before anything else) suspends the rest:
    its events are kept and the phase ends once the player has acted (`_resume_phase_end`),
    rather than the whole end being refused and rolled again."""
    phase = state.battle.phase
    state, closing, waits = _hooks_from(state, _closing_hooks(state), first, dice, lambda i: {
        "kind": "phase_end", "next": i, "seat": seat, "text": f"the end of the {phase} phase"})
    if waits:
        return closing
    phases = phases_of(state.system)
    turn = state.battle.turn or 1
    first_player = state.battle.first_player
    index = phases.index(str(phase))
    nxt: dict[str, Any]
    if index + 1 < len(phases):
        nxt = {"turn": turn, "active_player": seat, "phase": phases[index + 1]}
    elif seat == first_player:
        nxt = {"turn": turn, "active_player": other(seat), "phase": phases[0]}
    else:
        nxt = {"turn": turn + 1, "active_player": first_player, "phase": phases[0]}
    if nxt["turn"] > find_system(state.system).turns:
        ended = Event(
            "phase_ended",
            {"ended": phase, "turn": turn, "active_player": None, "phase": None},
            actor=seat,
        )
        after = fold_all(state, [ended])
        hooks = [h for s, h in _GAME_END if s == state.system]
        last = _run_hooks(after, hooks, dice)
        # The result (Victory Points, objectives: the system's `game_result`) and
        # `game_ended`: server/rules/endgame.py.
        return [*closing, ended, *last, *result_events(fold_all(after, last), "last turn played")]
    ended = Event("phase_ended", {"ended": phase, **nxt}, actor=seat)
    events = [*closing, ended]
    began = fold_all(state, [ended])
    if nxt["active_player"] != seat:
        # A new Player Turn begins: start-of-turn rules (Rally Tests, ...) happen first.
        new = turn_start_from(began, 0, dice)
        began = fold_all(began, new)
        events += new
        if is_suspended(new):  # a flee waits for a player: the rest after (resume.py)
            return events
    return [*events, *phase_start_events(began, dice)]


@register_frame("phase_end")
def _resume_phase_end(state: GameState, frame: Any, dice: Any) -> list[Event]:
    return phase_end_from(state, int(frame["seat"]), int(frame["next"]), dice)


def turn_start_from(state: GameState, first: int, dice: DiceStream) -> list[Event]:
    """The start-of-turn hooks from the `first`, in order; one whose events wait for a player
    (whfb8: a Rally Test's flee stopped to release Fanatics) suspends the others and the
    phase's start (server/rules/resume.py)."""
    out: list[Event] = []
    for i, hook in enumerate(TURN_START_HOOKS[first:], first):
        produced = hook(state, dice)
        state = fold_all(state, produced)
        out.extend(produced)
        if is_suspended(produced):
            out.append(suspension({"kind": "turn_start", "next": i + 1,
                                   "text": "the rest of the start of the turn"}))
            return out
    return out


@register_frame("turn_start")
def _resume_turn_start(state: GameState, frame: Any, dice: Any) -> list[Event]:
    new = turn_start_from(state, int(frame["next"]), dice)
    if is_suspended(new):
        return new
    return [*new, *phase_start_events(fold_all(state, new), dice)]


@register_acting
def _acting(state: GameState) -> frozenset[int]:
    """In the battle, the active player acts, or the player a declared charge waits for."""
    if stage(state) != BATTLE:
        return frozenset()
    pending = state.charges.pending
    if pending:
        return frozenset({int(pending["reacting_player"])})
    active = state.battle.active_player
    return frozenset({int(active)}) if active in (1, 2) else frozenset()


@register_game_offer("end_phase")
def _offer_end_phase(state: GameState, seat: int) -> dict[str, Any] | None:
    """The active player's "End phase": refused while a charge waits for its reaction, or
    while a rule of the phase must be played first (asked of the action itself)."""
    if stage(state) != BATTLE or state.battle.active_player != seat:
        return None
    phase = state.battle.phase
    err = judge(lambda: decide(state, seat, {"type": "end_phase"}, throwaway_dice(state)))
    if err is not None:
        return refused("end_phase", err, phase=phase)
    return offer("end_phase", phase=phase)


@register_folder("battle_started")
def _fold_battle_started(state: GameState, event: Event) -> GameState:
    p = event.payload
    battle = changed(
        state.battle,
        stage=BATTLE,
        turn=p["turn"],
        active_player=p["active_player"],
        phase=p["phase"],
        first_player=p["active_player"],
        player_turn=1,
    )
    return state.evolve(battle=battle, moves=changed(state.moves, phase={}))


@register_folder("phase_ended")
def _fold_phase_ended(state: GameState, event: Event) -> GameState:
    p = event.payload
    player_turn = state.battle.player_turn or 1
    if p["active_player"] != state.battle.active_player:
        player_turn += 1
    battle = changed(
        state.battle,
        turn=p["turn"],
        active_player=p["active_player"],
        phase=p["phase"],
        player_turn=player_turn,
    )
    # Per-phase facts (who moved, who charged) live only until the phase ends.
    return state.evolve(battle=battle, moves=changed(state.moves, phase={}))


@register_folder("game_ended")
def _fold_game_ended(state: GameState, event: Event) -> GameState:
    battle = changed(
        state.battle,
        stage=OVER,
        winner=event.payload.get("winner"),
        end_reason=event.payload.get("reason"),
    )
    return state.evolve(battle=battle, over=True)


@register_projector
def _project_battle(state: GameState, viewer: int | None, out: dict[str, object]) -> None:
    battle = state.battle
    out.update(
        stage=stage(state),
        turn=battle.turn or 0,
        player_turn=battle.player_turn or 0,
        active_player=battle.active_player,
        phase=battle.phase,
        phases=list(phases_of(state.system)) if state.system else [],
        turns=find_system(state.system).turns if state.system else 0,
        winner=battle.winner,
        pending_charge=state.charges.pending,
    )
