"""The actions every game system shares: setting up a game, seats, tokens, dice and notes.

These make a tokens-and-dice game playable end to end; the systems' own packages add
rules-aware units on top.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

from pydantic import Field, field_validator

from server.dice import DiceError, DiceStream
from server.rules.core import (
    ANY_TIME,
    BAD_REQUEST,
    FORBIDDEN,
    ILLEGAL_MOVE,
    NOT_FOUND,
    ActionModel,
    Battlefield,
    Event,
    GameState,
    RuleError,
    Token,
    register_action,
    register_folder,
)
from server.rules.state import PregameState
from server.rules.units import Coord, Facing, Finite

MAX_TOKEN_SIZE_IN = 48.0
MAX_LABEL_CHARS = 80
MAX_TOKENS = 400
"""Tokens a game may hold at once. A game uses a few dozen (objectives, wound and status
markers, a tokens-only army of 100-odd models); each token is 120 to 270 bytes of every
viewer's `welcome` state, so 400 keep it near 50 KB (110 KB with 80-character labels) where
3,000 made 590 KB."""
MAX_NOTES = 500
"""Notes a game may hold: one every few minutes of a long game is under 100. Notes are events,
replayed to every client that resumes from the start, so they cannot grow without end."""
MAX_NOTE_CHARS = 500
"""A note is a line or two in the log ("Knights advance, Wizard dispelled"), not a document."""


def genesis(
    game_id: str,
    system: str,
    name: str,
    battlefield: Battlefield,
    dice_commitment: str,
    pregame: str = "fixed",
) -> list[Event]:
    """The first event of every game: what it is, on which table, the dice commitment, and
    how the first deployment and first turn are decided (`rules/pregame.py`: "roll_offs" as
    the system says, or "fixed": player 1 first; a log without it is "fixed")."""
    payload: dict[str, object] = {
        "id": game_id,
        "system": system,
        "name": name,
        "battlefield": battlefield.to_json(),
        "dice_commitment": dice_commitment,
    }
    if pregame != "fixed":
        payload["pregame"] = pregame
    return [Event("game_created", payload)]


def seat_claimed(seat: int) -> Event:
    return Event("seat_claimed", {"seat": seat})


@register_folder("game_created")
def _fold_game_created(state: GameState, event: Event) -> GameState:
    p = event.payload
    bf = p["battlefield"]
    return dataclasses.replace(
        state,
        id=p["id"],
        system=p["system"],
        name=p["name"],
        battlefield=Battlefield(float(bf["width"]), float(bf["depth"])),
        dice_commitment=p["dice_commitment"],
        pregame=PregameState(mode=p.get("pregame", "fixed")),
    )


@register_folder("seat_claimed")
def _fold_seat_claimed(state: GameState, event: Event) -> GameState:
    return state.evolve(seats=state.seats | {int(event.payload["seat"])})


# --- tokens ------------------------------------------------------------------------------------


def _facing(value: float) -> float:
    return value % 360.0


def _check_on_table(state: GameState, x: float, y: float) -> None:
    bf = state.battlefield
    if not bf.contains(x, y):
        raise RuleError(
            ILLEGAL_MOVE,
            f"({x:g}, {y:g}) is off the battlefield (0..{bf.width:g} x 0..{bf.depth:g} in)",
            rule="Battlefield Edge",
            x=x,
            y=y,
            battlefield=bf.to_json(),
        )


def _own_token(state: GameState, seat: int, token_id: str) -> Token:
    token = state.tokens.get(token_id)
    if token is None:
        raise RuleError(NOT_FOUND, f"no token {token_id!r} in this game", id=token_id)
    if token.owner != seat:
        raise RuleError(
            FORBIDDEN, f"token {token_id!r} belongs to player {token.owner}", id=token_id
        )
    return token


def check_limit(count: int, limit: int, message: str, field: str) -> None:
    """Refuse (`bad_request`, naming the limit) what would take a game past one of its limits."""
    if count >= limit:
        raise RuleError(BAD_REQUEST, message, field=field, limit=limit)


class PlaceToken(ActionModel):
    type: Literal["place_token"]
    label: str = Field(default="", max_length=MAX_LABEL_CHARS)
    x: Coord
    y: Coord
    facing: Facing = 0.0
    width: Finite = Field(default=1.0, gt=0, le=MAX_TOKEN_SIZE_IN)
    depth: Finite = Field(default=1.0, gt=0, le=MAX_TOKEN_SIZE_IN)


@register_action("place_token", PlaceToken, when=ANY_TIME, doing="placing a token")
def place_token(state: GameState, seat: int, action: PlaceToken, dice: DiceStream) -> list[Event]:
    """Put a token on the table; its centre must lie on the battlefield."""
    check_limit(
        len(state.tokens),
        MAX_TOKENS,
        f"a game holds at most {MAX_TOKENS} tokens; remove one to place another",
        "tokens",
    )
    _check_on_table(state, action.x, action.y)
    token = Token(
        id=state.new_id("t"),
        owner=seat,
        label=action.label or f"Token {state.next_id}",
        x=action.x,
        y=action.y,
        facing=_facing(action.facing),
        width=action.width,
        depth=action.depth,
    )
    return [Event("token_placed", {"token": token.to_json()}, actor=seat)]


@register_folder("token_placed")
def _fold_token_placed(state: GameState, event: Event) -> GameState:
    token = Token(**event.payload["token"])
    return dataclasses.replace(
        state, tokens={**state.tokens, token.id: token}, next_id=state.next_id + 1
    )


class MoveToken(ActionModel):
    type: Literal["move_token"]
    id: str = Field(min_length=1, max_length=64)
    x: Coord
    y: Coord
    facing: Facing | None = None


@register_action("move_token", MoveToken, when=ANY_TIME, doing="moving a token")
def move_token(state: GameState, seat: int, action: MoveToken, dice: DiceStream) -> list[Event]:
    """Move one of your own tokens anywhere on the battlefield."""
    token = _own_token(state, seat, action.id)
    _check_on_table(state, action.x, action.y)
    facing = token.facing if action.facing is None else _facing(action.facing)
    return [
        Event(
            "token_moved",
            {
                "id": token.id,
                "x": action.x,
                "y": action.y,
                "facing": facing,
                "from": {"x": token.x, "y": token.y, "facing": token.facing},
                "distance": round(math.hypot(action.x - token.x, action.y - token.y), 4),
            },
            actor=seat,
        )
    ]


@register_folder("token_moved")
def _fold_token_moved(state: GameState, event: Event) -> GameState:
    p = event.payload
    token = dataclasses.replace(
        state.tokens[p["id"]], x=float(p["x"]), y=float(p["y"]), facing=float(p["facing"])
    )
    return state.evolve(tokens={**state.tokens, token.id: token})


class RemoveToken(ActionModel):
    type: Literal["remove_token"]
    id: str = Field(min_length=1, max_length=64)


@register_action("remove_token", RemoveToken, when=ANY_TIME, doing="removing a token")
def remove_token(state: GameState, seat: int, action: RemoveToken, dice: DiceStream) -> list[Event]:
    token = _own_token(state, seat, action.id)
    return [Event("token_removed", {"id": token.id, "label": token.label}, actor=seat)]


@register_folder("token_removed")
def _fold_token_removed(state: GameState, event: Event) -> GameState:
    tokens = dict(state.tokens)
    tokens.pop(event.payload["id"], None)
    return state.evolve(tokens=tokens)


# --- dice and notes ----------------------------------------------------------------------------


class RollDice(ActionModel):
    type: Literal["roll_dice"]
    dice: str = Field(min_length=1, max_length=32)
    reason: str = Field(default="", max_length=200)

    @field_validator("dice")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()


@register_action("roll_dice", RollDice, when=ANY_TIME, doing="rolling dice")
def roll_dice(state: GameState, seat: int, action: RollDice, dice: DiceStream) -> list[Event]:
    """Roll dice on the server from the game's seeded stream; everyone sees every face."""
    try:
        roll = dice.roll(action.dice)
    except DiceError as exc:
        raise RuleError(BAD_REQUEST, str(exc), field="dice", dice=action.dice) from None
    payload: dict[str, Any] = {"reason": action.reason, "roll": roll.to_payload()}
    return [Event("dice_rolled", payload, actor=seat)]


class Note(ActionModel):
    type: Literal["note"]
    text: str = Field(min_length=1, max_length=MAX_NOTE_CHARS)


@register_action("note", Note, when=ANY_TIME, doing="writing a note")
def note(state: GameState, seat: int, action: Note, dice: DiceStream) -> list[Event]:
    """A line in the game's log for both players (and spectators) to read."""
    check_limit(
        state.notes, MAX_NOTES, f"a game holds at most {MAX_NOTES} notes",
        "notes",
    )
    return [Event("note_added", {"text": action.text}, actor=seat)]


@register_folder("note_added")
def _fold_note_added(state: GameState, event: Event) -> GameState:
    return state.evolve(notes=state.notes + 1)
