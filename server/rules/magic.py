"""The Magic Phase log, for every system with a Magic Phase (`GameSystem.magic_phase`: t9a and
whfb8): the active player logs each casting attempt and its outcome; how many spells each
player cast successfully in each Magic Phase is derived from that log (the t9a Mageblight
Gremlins' own rule reads it, seed 000; whfb8 "records casts and dispels the way t9a does",
issue 14: a spell dispelled is logged as a failure to cast).

Spells themselves are not automated: a player states the spell and whether it was cast, and the
players resolve its effect. The client says so beside the casting form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import Field

from server.dice import DiceStream
from server.rules.battle import other
from server.rules.core import (
    ACTIVE,
    BATTLE,
    NOT_FOUND,
    ActionModel,
    Event,
    GameState,
    RuleError,
    When,
    part_of,
    register_action,
    register_folder,
    register_projector,
    with_part,
)
from server.rules.orders import in_window, offer, register_game_offer
from server.rules.systems import MAGIC_PHASE, has_magic_phase
from server.rules.units import units_of


class CastSpell(ActionModel):
    type: Literal["cast_spell"]
    spell: str = Field(min_length=1, max_length=80)
    caster: str | None = Field(default=None, max_length=40)
    outcome: Literal["success", "failure"]


@register_game_offer("cast_spell")
def _offer_cast(state: GameState, seat: int) -> dict[str, Any] | None:
    """Log a spell: the active player in their Magic Phase, naming one of their units on the
    table as the caster if they like."""
    if not in_window(state, seat, "cast_spell"):
        return None
    casters = [u.id for u in units_of(state).values()
               if u.owner == seat and u.status == "on_table"]
    return offer("cast_spell", casters=casters)


@register_action(
    "cast_spell",
    CastSpell,
    systems=has_magic_phase,
    when=[When(BATTLE, ACTIVE, MAGIC_PHASE)],
    doing="casting spells",
)
def cast_spell(state: GameState, seat: int, action: CastSpell, dice: DiceStream) -> list[Event]:
    """Log one casting attempt of the active player in their Magic Phase."""
    caster_name = None
    if action.caster is not None:
        unit = units_of(state).get(action.caster)
        if unit is None or unit.owner != seat:
            raise RuleError(NOT_FOUND, f"you have no unit {action.caster!r}", id=action.caster)
        caster_name = unit.name
    verb = "cast" if action.outcome == "success" else "failed to cast"
    who = f"{caster_name} " if caster_name else f"Player {seat} "
    return [
        Event(
            "spell_cast",
            {
                "seat": seat,
                "spell": action.spell.strip(),
                "caster": action.caster,
                "outcome": action.outcome,
                "player_turn": (state.battle.player_turn or 0),
                "text": f"{who}{verb} {action.spell.strip()}",
            },
            actor=seat,
        )
    ]


@dataclass(frozen=True, slots=True)
class Casts:
    """This module's part of the state: per seat ("1"/"2"), per player turn ("3"), the
    successful casts in that turn's Magic Phase."""

    by_seat: Mapping[str, Mapping[str, int]] = field(default_factory=dict)


def _magic(state: GameState) -> Mapping[str, Mapping[str, int]]:
    """Per seat ("1"/"2"), per player turn: successful casts in that turn's Magic Phase."""
    return part_of(state, Casts).by_seat


@register_folder("spell_cast")
def _fold_spell_cast(state: GameState, event: Event) -> GameState:
    p = event.payload
    seat, turn = str(p["seat"]), str(p["player_turn"])
    record = {k: dict(v) for k, v in _magic(state).items()}
    per_turn = record.setdefault(seat, {})
    per_turn[turn] = per_turn.get(turn, 0) + (1 if p["outcome"] == "success" else 0)
    return with_part(state, Casts(record))


def spells_cast_in(state: GameState, seat: int, player_turn: int) -> int:
    """Spells `seat` cast successfully in the Magic Phase of global player turn `player_turn`."""
    return int(_magic(state).get(str(seat), {}).get(str(player_turn), 0))


def opponent_spells_last_magic_phase(state: GameState, seat: int) -> int:
    """Spells the opponent of `seat` cast successfully in their previous Magic Phase: the one
    of the player turn just before the current one (player turns alternate)."""
    current = (state.battle.player_turn or 0)
    if current <= 1:
        return 0
    return spells_cast_in(state, other(seat), current - 1)


@register_projector
def _project_magic(state: GameState, viewer: int | None, out: dict[str, Any]) -> None:
    if not state.system or not has_magic_phase(state.system):
        return
    out["magic"] = {seat: dict(turns) for seat, turns in _magic(state).items()}
