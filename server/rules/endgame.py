"""The end of a game: a player concedes, and the `game_ended` event closes the game.

`game_ended` ({"reason": str, "winner": 1 | 2 | null}) sets `state.over` (its folder is in
server/rules/battle.py, with the other events of a game's course: the stage becomes `over`, the
winner and the reason are kept); after it `decide` refuses every action. The service appends a
`dice_revealed` event in the same batch (see server/games/archive.py), so the dice seed becomes
public exactly when the game ends.

The systems' own end conditions (last turn played, army wiped out) emit the same event. Each
action and each folder is registered once, here or in its own module: registering a name twice
is an error, so no module's registration depends on which was imported first.
"""

from __future__ import annotations

from typing import Literal

from server.dice import DiceStream
from server.rules.core import (
    ANY_TIME,
    ActionModel,
    Event,
    GameState,
    register_action,
)

GAME_ENDED = "game_ended"


def game_ended(reason: str, winner: int | None, actor: int | str = "system") -> Event:
    """The event that ends a game (public)."""
    return Event(GAME_ENDED, {"reason": reason, "winner": winner}, actor=actor)


class Concede(ActionModel):
    type: Literal["concede"]


@register_action("concede", Concede, when=ANY_TIME, doing="conceding")
def concede(state: GameState, seat: int, action: Concede, dice: DiceStream) -> list[Event]:
    """The player gives up; the opponent wins."""
    return [game_ended("concede", 2 if seat == 1 else 1, actor=seat)]
