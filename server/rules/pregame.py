"""Roll-offs before the battle: who deploys first and who takes the first turn, as each system
says (issue 19 item 6; the system's `Variant.pregame`, docs/rules-decisions.md "Roll-offs").

A game created with `pregame: "roll_offs"` (the lobby's default) plays them; a game created
with `pregame: "fixed"` (the API's default, and every game made before roll-offs existed)
keeps player 1 deploying first and taking the first turn, so old logs replay unchanged.

- When the second army is written down, both players roll a D6 (ties rolled again, every die
  in the event): `roll_off` with `about: "deployment"`. Then either the winner chooses which
  player deploys first (`choose_first` action; t9a: which player is the Defender, the Attacker
  deploying first; whfb8: who sets up the first unit), or the loser deploys first (40k: the
  winner is the Attacker, the Defender sets up first).
- The player who deploys their whole army first is recorded (`deployment_finished`). Then, by
  the system: t9a, that player chooses at once who has the first Player Turn (the other player
  goes on deploying meanwhile); whfb8, once both have deployed, a roll-off with +1 for that
  player whose winner chooses; 40k, a roll-off whose winner takes the first turn.

Pure: no I/O; dice come from the game's stream inside the events that use them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from server.dice import DiceStream
from server.rules.battle import battle_started_event, other, phase_start_events, stage
from server.rules.core import (
    DEPLOYMENT,
    ILLEGAL_MOVE,
    OUT_OF_PHASE,
    ActionModel,
    Event,
    GameState,
    RuleError,
    When,
    fold_all,
    register_action,
    register_folder,
    register_projector,
)
from server.rules.orders import Offer, in_window, offer, register_game_offer
from server.rules.state import changed
from server.rules.systems import Pregame, variant_of
from server.rules.units import units_of

ROLL_OFFS = "roll_offs"
FIXED = "fixed"
PREGAME_MODES = (ROLL_OFFS, FIXED)
DEPLOY_FIRST = "deploy_first"
FIRST_TURN = "first_turn"
MAX_ROLL_OFF_ROUNDS = 50
"""Ties are rolled again; 50 ties in a row (odds 6^-50) would be a broken stream, not a game."""


def pregame_rules(state: GameState) -> Pregame | None:
    """The roll-offs this game plays (None: the fixed order: player 1 first in both)."""
    if state.pregame.mode != ROLL_OFFS:
        return None
    return variant_of(state.system).pregame


# --- the roll-off -------------------------------------------------------------------------------


def roll_off(
    about: str, dice: DiceStream, outcome: Callable[[int], str],
    bonus: dict[int, int] | None = None,
) -> tuple[int, Event]:
    """Both players roll a D6 (plus `bonus`), again while tied; the winner and the event, whose
    text ends with `outcome(winner)` (what winning it means here)."""
    bonus = bonus or {}
    rounds: list[dict[str, int]] = []
    rolls: list[dict[str, Any]] = []
    seats: list[int] = []
    winner = 0
    for _ in range(MAX_ROLL_OFF_ROUNDS):
        score: dict[int, int] = {}
        for seat in (1, 2):
            roll = dice.roll("D6")
            # The roll is kept as rolled (the dice proof recomputes it exactly); whose it was
            # is said beside it, in `seats`.
            rolls.append(roll.to_payload())
            seats.append(seat)
            score[seat] = int(roll.total or 0) + bonus.get(seat, 0)
        rounds.append({"1": score[1], "2": score[2]})
        if score[1] != score[2]:
            winner = 1 if score[1] > score[2] else 2
            break
    else:  # pragma: no cover - a stream that ties 50 times is broken
        raise RuleError(ILLEGAL_MOVE, "the roll-off tied 50 times")
    ties = len(rounds) - 1
    last = rounds[-1]
    plus = "".join(f" (+{b} for Player {s}, who finished deploying first)"
                   for s, b in bonus.items() if b)
    text = (
        f"Roll-off {_ABOUT_WORDS[about]}: Player 1 {last['1']}, Player 2 {last['2']}{plus}"
        + (f" after {ties} tie{'s' if ties > 1 else ''} rolled again" if ties else "")
        + f": Player {winner} wins{outcome(winner)}"
    )
    return winner, Event(
        "roll_off",
        {"about": about, "rolls": rolls, "seats": seats, "rounds": rounds,
         "bonus": {str(s): b for s, b in bonus.items()}, "winner": winner, "text": text},
        actor="system",
    )


_ABOUT_WORDS = {DEPLOY_FIRST: "for deployment", FIRST_TURN: "for the first turn"}


@register_folder("roll_off")
def _fold_roll_off(state: GameState, event: Event) -> GameState:
    won = {**state.pregame.roll_offs_won, event.payload["about"]: event.payload["winner"]}
    return state.evolve(pregame=changed(state.pregame, roll_offs_won=won))


# --- a choice the rules give a player -----------------------------------------------------------


def _pending(seat: int, about: str, rules: Pregame) -> Event:
    question = (
        f"Player {seat} {rules.deployment_words}: who deploys first?"
        if about == DEPLOY_FIRST
        else f"Player {seat} chooses who takes the first turn"
    )
    return Event("choice_pending", {"seat": seat, "about": about, "text": question})


@register_folder("choice_pending")
def _fold_choice_pending(state: GameState, event: Event) -> GameState:
    choice = {"seat": event.payload["seat"], "about": event.payload["about"]}
    return state.evolve(pregame=changed(state.pregame, pending_choice=choice))


class ChooseFirst(ActionModel):
    type: Literal["choose_first"]
    first: Literal[1, 2]
    """The player who goes first: who deploys first, or who takes the first turn (whichever
    the pending choice is about)."""


def _check_choice(state: GameState, seat: int) -> Mapping[str, Any]:
    pending = state.pregame.pending_choice
    if not pending:
        raise RuleError(OUT_OF_PHASE, "no roll-off choice is waiting")
    if int(pending["seat"]) != seat:
        raise RuleError(OUT_OF_PHASE, f"Player {pending['seat']} makes this choice",
                        waiting_for=int(pending["seat"]))
    return pending


@register_action(
    "choose_first",
    ChooseFirst,
    when=[When(DEPLOYMENT)],
    doing="choosing who goes first",
)
def choose_first(state: GameState, seat: int, action: ChooseFirst, dice: DiceStream) -> list[Event]:
    """The roll-off's winner (or, t9a, the first to finish deploying) chooses who deploys first
    or who takes the first turn."""
    pending = _check_choice(state, seat)
    about = str(pending["about"])
    first = int(action.first)
    who = "themselves" if first == seat else f"Player {first}"
    what = "to deploy first" if about == DEPLOY_FIRST else "to take the first turn"
    chosen = Event(
        "first_chosen",
        {"seat": seat, "about": about, "first": first,
         "text": f"Player {seat} chooses {who} {what}"},
        actor=seat,
    )
    events = [chosen]
    after = fold_all(state, events)
    if about == DEPLOY_FIRST:
        events.append(Event("deploying", {"deploying": first}))
    elif not _undeployed_left(after):
        events += start_battle(after, first, dice)
    return events


@register_folder("first_chosen")
def _fold_first_chosen(state: GameState, event: Event) -> GameState:
    chosen = {**state.pregame.first_chosen, event.payload["about"]: event.payload["first"]}
    pregame = changed(state.pregame, pending_choice=None, first_chosen=chosen)
    return state.evolve(pregame=pregame)


@register_game_offer("choose_first")
def _offer_choose_first(state: GameState, seat: int) -> Offer | None:
    """The pending choice, for the player who makes it: the question and its two answers."""
    pending = state.pregame.pending_choice
    if not pending or int(pending["seat"]) != seat or not in_window(state, seat, "choose_first"):
        return None
    about = str(pending["about"])
    verb, verbs = (("deploy first", "deploys first") if about == DEPLOY_FIRST
                   else ("take the first turn", "takes the first turn"))
    return offer(
        "choose_first",
        about=about,
        question="Who deploys first?" if about == DEPLOY_FIRST else "Who takes the first turn?",
        options=[{"first": seat, "label": f"I {verb}"},
                 {"first": other(seat), "label": f"My opponent (Player {other(seat)}) {verbs}"}],
        rule="Roll-offs",
    )


# --- the hooks setup.py calls -------------------------------------------------------------------


def deployment_start(state: GameState, dice: DiceStream) -> list[Event]:
    """When both armies are written down: who deploys first (the fixed order: player 1)."""
    rules = pregame_rules(state)
    if rules is None:
        return [Event("deployment_started", {"deploying": 1})]
    if rules.deployment == "loser_deploys_first":
        winner, rolled = roll_off(
            DEPLOY_FIRST, dice,
            lambda w: f" and {rules.deployment_words}: Player {other(w)} first")
        return [rolled, Event("deployment_started", {"deploying": other(winner)})]
    winner, rolled = roll_off(DEPLOY_FIRST, dice, lambda w: f" and {rules.deployment_words}")
    return [rolled, Event("deployment_started", {"deploying": None}),
            _pending(winner, DEPLOY_FIRST, rules)]


def _undeployed_left(state: GameState, just_placed: str | None = None) -> dict[int, int]:
    """Units each seat has still to deploy (`just_placed` counted as deployed)."""
    left: dict[int, int] = {}
    for unit in units_of(state).values():
        if unit.status == "undeployed" and unit.id != just_placed:
            left[unit.owner] = left.get(unit.owner, 0) + 1
    return left


def after_deploying(
    state: GameState, seat: int, unit_id: str, dice: DiceStream
) -> list[Event]:
    """After `seat` deployed (or kept off the table) the unit `unit_id`, `state` holding it:
    whose turn it is to deploy, the first to finish, the first-turn roll-off or choice, the
    battle."""
    left = _undeployed_left(state, unit_id)
    rules = pregame_rules(state)
    events: list[Event] = []
    if rules is not None and not left.get(seat) and state.pregame.finished_first is None:
        events.append(Event("deployment_finished",
                            {"seat": seat, "text": f"Player {seat} has deployed their whole army "
                                                   "first"}))
        if rules.first_turn == "first_to_finish_chooses":
            events.append(_pending(seat, FIRST_TURN, rules))
        state = fold_all(state, events)
    if left.get(other(seat)):
        return [*events, Event("deploying", {"deploying": other(seat)})]
    if left.get(seat):
        return [*events, Event("deploying", {"deploying": seat})]
    return events + _deployment_done(state, dice, rules)


def _deployment_done(state: GameState, dice: DiceStream, rules: Pregame | None) -> list[Event]:
    if rules is None:
        return start_battle(state, 1, dice)
    chosen = state.pregame.first_chosen.get(FIRST_TURN)
    if rules.first_turn == "first_to_finish_chooses":
        if chosen is not None:
            return start_battle(state, int(chosen), dice)
        return [Event("deploying", {"deploying": None})]  # waiting for the choice
    finished = int(state.pregame.finished_first or 0)
    bonus = {finished: rules.finished_first_bonus} if rules.finished_first_bonus else {}
    if rules.first_turn == "roll_off_winner_first":
        winner, rolled = roll_off(FIRST_TURN, dice, lambda w: " and takes the first turn", bonus)
        after = fold_all(state, [rolled])
        return [rolled, *start_battle(after, winner, dice)]
    winner, rolled = roll_off(
        FIRST_TURN, dice, lambda w: " and chooses who takes the first turn", bonus)
    return [rolled, Event("deploying", {"deploying": None}), _pending(winner, FIRST_TURN, rules)]


@register_folder("deployment_finished")
def _fold_finished(state: GameState, event: Event) -> GameState:
    pregame = changed(state.pregame, finished_first=event.payload["seat"])
    return state.evolve(pregame=pregame)


def start_battle(state: GameState, first: int, dice: DiceStream) -> list[Event]:
    """The battle begins with `first`'s turn, and whatever the system does as its first phase
    starts (40k's first Command phase)."""
    started = battle_started_event(state, first)
    return [started, *phase_start_events(fold_all(state, [started]), dice)]


@register_projector
def _project_pregame(state: GameState, viewer: int | None, out: dict[str, Any]) -> None:
    if stage(state) not in (DEPLOYMENT,) and not state.pregame.roll_offs_won:
        out["pregame"] = {"mode": state.pregame.mode}
        return
    rules = pregame_rules(state)
    out["pregame"] = {
        "mode": state.pregame.mode,
        "pending": state.pregame.pending_choice,
        "finished_first": state.pregame.finished_first,
        "roll_offs_won": state.pregame.roll_offs_won,
        "chosen": state.pregame.first_chosen,
        "deployment_words": rules.deployment_words if rules else None,
        "first_turn_words": rules.first_turn_words if rules else None,
    }
