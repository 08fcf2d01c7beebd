"""The end of a game: its result, a player's concession, and the `game_ended` event.

Every game ends with `game_ended` ({"reason": str, "winner": 1 | 2 | null}), which sets
`state.over` (its folder is server/rules/battle.py's); after it `decide` refuses every action.
The service appends a `dice_revealed` event in the same batch (see server/games/archive.py), so
the dice seed becomes public exactly when the game ends.

Before it, a system that scores its games (`Variant.game_result`) adds one public
`game_result` event, the same shape in every system (issue 17 item 6):

    {"reason": str, "winner": 1 | 2 | null,
     "scores": {"1": int, "2": int},                 # Victory Points
     "results": {"1": "win" | "draw" | "loss", "2": ...},
     "margin": str | null,                           # e.g. "Massacre", "Win"
     "lines": [{"seat": 1 | 2, "points": int, "text": str}, ...],   # where the points came from
     "objectives": [{"name": str, "winner": 1 | 2 | null, "text": str,
                     "counts": {"1": int, "2": int}}, ...],
     "battle_points": {"1": int, "2": int} | null,
     "conceded_by": 1 | 2 | null, "text": str}

Its folder keeps it in `state.outcome.result` and the projection shows it to players and
spectators alike (`view["game_result"]`). A system without `game_result` ends its games with
only `game_ended` (winner: the opponent of a conceding player, else none).

The end of the last turn (server/rules/battle.py) and a concession both call `result_events`.

Each action and each folder is registered once, here or in its own module: registering a name
twice is an error, so no module's registration depends on which was imported first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from server.dice import DiceStream
from server.rules.core import (
    ANY_TIME,
    ActionModel,
    Event,
    GameState,
    register_action,
    register_folder,
    register_projector,
)
from server.rules.orders import offer, register_game_offer
from server.rules.state import changed
from server.rules.systems import find_system

GAME_ENDED = "game_ended"
GAME_RESULT = "game_result"
CONCEDE = "concede"


def game_ended(reason: str, winner: int | None, actor: int | str = "system") -> Event:
    """The event that ends a game (public)."""
    return Event(GAME_ENDED, {"reason": reason, "winner": winner}, actor=actor)


@dataclass(frozen=True)
class ScoreLine:
    """Victory Points `seat` scored, and why, in words players read."""

    seat: int
    points: int
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "points": self.points, "text": self.text}


@dataclass(frozen=True)
class Objective:
    """An objective and who won it (None: nobody), with each player's count."""

    name: str
    winner: int | None
    text: str
    counts: Mapping[int, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "winner": self.winner,
            "text": self.text,
            "counts": {str(k): v for k, v in sorted(self.counts.items())},
        }


@dataclass(frozen=True)
class GameResult:
    """What a system says its finished game came to."""

    scores: Mapping[int, int]
    winner: int | None
    margin: str | None = None
    lines: Sequence[ScoreLine] = ()
    objectives: Sequence[Objective] = ()
    battle_points: Mapping[int, int] | None = None
    conceded_by: int | None = None
    # How the system decides the result, in words players read (whfb8: the 100 VP margin);
    # shown with the result, so that a draw or a win says why.
    rule: str | None = None

    def results(self) -> dict[int, str]:
        if self.winner is None:
            return {1: "draw", 2: "draw"}
        return {self.winner: "win", 3 - self.winner: "loss"}

    def text(self) -> str:
        scores = f"{self.scores.get(1, 0)} - {self.scores.get(2, 0)} Victory Points"
        if self.battle_points is not None:
            scores += f" ({self.battle_points[1]} - {self.battle_points[2]} Battle Points)"
        head = "Player 1 and Player 2 draw" if self.winner is None else (
            f"Player {self.winner} wins" + (f" ({self.margin})" if self.margin else "")
        )
        tail = f"; Player {self.conceded_by} conceded" if self.conceded_by else ""
        return f"{head}: {scores}{tail}"

    def to_payload(self, reason: str) -> dict[str, Any]:
        return {
            "reason": reason,
            "winner": self.winner,
            "scores": {str(s): self.scores.get(s, 0) for s in (1, 2)},
            "results": {str(s): r for s, r in sorted(self.results().items())},
            "margin": self.margin,
            "lines": [line.to_json() for line in self.lines],
            "objectives": [o.to_json() for o in self.objectives],
            "battle_points": None
            if self.battle_points is None
            else {str(s): self.battle_points[s] for s in (1, 2)},
            "conceded_by": self.conceded_by,
            "rule": self.rule,
            "text": self.text(),
        }


def result_events(
    state: GameState, reason: str, conceded_by: int | None = None, actor: int | str = "system"
) -> list[Event]:
    """The events that end the game now: the system's `game_result` (if it scores its games)
    and `game_ended` with the winner it names."""
    result = (
        find_system(state.system).variant.game_result(state, conceded_by)
        if state.system
        else None
    )
    if result is None:
        # No scored result: a concession gives the opponent the game; else the winner a
        # game-end hook declared, if any (logs stored before 40k scored its games this way).
        winner = state.outcome.declared_winner if conceded_by is None else 3 - conceded_by
        return [game_ended(reason, winner, actor)]
    return [
        Event(GAME_RESULT, result.to_payload(reason), actor="system"),
        game_ended(reason, result.winner, actor),
    ]


class Concede(ActionModel):
    type: Literal["concede"]


@register_action("concede", Concede, when=ANY_TIME, doing="conceding")
def concede(state: GameState, seat: int, action: Concede, dice: DiceStream) -> list[Event]:
    """The player gives up: the game ends with the result its rules give a concession (t9a,
    whfb8: docs/rules-decisions.md "Results"); without one the opponent wins."""
    return result_events(state, CONCEDE, conceded_by=seat, actor=seat)


@register_folder(GAME_RESULT)
def _fold_game_result(state: GameState, event: Event) -> GameState:
    return state.evolve(outcome=changed(state.outcome, result=dict(event.payload)))


@register_projector
def _project_result(state: GameState, viewer: int | None, out: dict[str, Any]) -> None:
    out["game_result"] = state.outcome.result


@register_game_offer("concede")
def _offer_concede(state: GameState, seat: int) -> dict[str, Any] | None:
    """Concede: either player, until the game is over (the result its rules give)."""
    return offer("concede")
