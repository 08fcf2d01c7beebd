"""The end of a game: a player concedes, and the `game_ended` event closes the game.

`game_ended` ({"reason": str, "winner": 1 | 2 | null}) sets `state.over`; after it `decide`
refuses every action. The service appends a `dice_revealed` event in the same batch (see
server/games/archive.py), so the dice seed becomes public exactly when the game ends.

The systems' own end conditions (last turn played, army wiped out) emit the same event. This
module only registers what is not registered already, so a fuller end-of-game module imported
before it takes precedence.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from server.dice import DiceStream
from server.rules.core import (
    ACTIONS,
    FOLDERS,
    ActionModel,
    Event,
    GameState,
    register_action,
    register_folder,
)
from server.rules.orders import offer, register_game_offer

GAME_ENDED = "game_ended"


def game_ended(reason: str, winner: int | None, actor: int | str = "system") -> Event:
    """The event that ends a game (public)."""
    return Event(GAME_ENDED, {"reason": reason, "winner": winner}, actor=actor)


class Concede(ActionModel):
    type: Literal["concede"]


def concede(state: GameState, seat: int, action: Concede, dice: DiceStream) -> list[Event]:
    """The player gives up; the opponent wins."""
    return [game_ended("concede", 2 if seat == 1 else 1, actor=seat)]


def _fold_game_ended(state: GameState, event: Event) -> GameState:
    return dataclasses.replace(state, over=True)


@register_game_offer("concede")
def _offer_concede(state: GameState, seat: int) -> dict[str, Any] | None:
    """Concede: either player, until the game is over (the opponent wins)."""
    return offer("concede")


if "concede" not in ACTIONS:
    register_action("concede", Concede)(concede)
if GAME_ENDED not in FOLDERS:
    register_folder(GAME_ENDED)(_fold_game_ended)
