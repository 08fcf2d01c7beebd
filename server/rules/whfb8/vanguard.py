"""WFB 8th Vanguard (seed 002: "Skirmishers (except models with Fly) automatically have
Vanguard"; FACTS.md: "after deployment, before the first turn, a move of up to 12 in (no march)
that does not end within 12 in of an enemy").

When: Warfield has no stage between deployment and the first turn, so Vanguard moves are made
in the first player's Start phase of game turn 1, before that phase ends (nothing else happens
in it); both players may make them then, each unit once (docs/rules-decisions.md). A Vanguard
move is measured like a Skirmishers' move (server/rules/whfb8/skirmish.py): every model's path
around units and Impassable Terrain at most 12 in, the unit in any loose formation at its end,
more than 12 in from every enemy unit and following Unit Spacing. It is no move of the first
turn (the unit may still move then); the unit carries the marker `vanguard`, and may not
declare a charge in turn 1 when its side goes first (`vanguard_charge_refusal`, asked by the
shared charge declaration through the system's `charge_refusal`).

Like every move it is judged along its way by the system's `move_stop` (seed 003: Fanatics
released when a concealing unit and an enemy come within 8 in), after its own checks, so a
refusal never depends on a concealed Fanatic. The end may not be within 12 in of an enemy, so
only the way can come within 8 in (the Free Reform into a deeper formation, or its turning).
**Decision**: a Vanguard move stopped so ends where it stopped (a single move before the
battle, like a Random Movement move stopped so); the unit still counts as having made it.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from pydantic import Field

from server import geometry as geo
from server.dice import DiceStream
from server.geometry import movement
from server.geometry.frame import Placement
from server.geometry.measure import distance
from server.rules.battle import BATTLE
from server.rules.core import (
    EITHER,
    ILLEGAL_MOVE,
    OUT_OF_PHASE,
    ActionModel,
    Event,
    GameState,
    Phases,
    RuleError,
    When,
    register_action,
    register_folder,
)
from server.rules.naming import display_name, say_inches
from server.rules.orders import judge, offer, refused, register_offer
from server.rules.units import (
    Coord,
    Facing,
    Unit,
    datasheet_of,
    illegal_move_error,
    table_of,
    unit_from_json,
    unit_of,
    units_of,
    with_unit,
)
from server.rules.whfb8.skirmish import model_paths, stop_on_the_way

VANGUARD = "Vanguard"
VANGUARD_IN = 12.0
"""FACTS.md: a move of up to 12 in, not ending within 12 in of an enemy."""
MARKER = "vanguard"


def has_vanguard(state: GameState, unit: Unit) -> bool:
    """Vanguard, or Skirmishers without Fly (seed 002)."""
    sheet = datasheet_of(state, unit)
    if sheet.has_rule(VANGUARD):
        return True
    return sheet.has_rule("Skirmishers") and not sheet.has_rule("Fly")


def vanguard_charge_refusal(state: GameState, unit_id: str) -> tuple[str, str] | None:
    """FACTS.md: "units that used it may not charge in the first turn if their side goes
    first"."""
    unit = units_of(state).get(unit_id)
    if (
        unit is None
        or MARKER not in unit.markers
        or state.battle.turn != 1
        or unit.owner != state.battle.first_player
    ):
        return None
    return (
        VANGUARD,
        f"{display_name(state, unit.id)} made a Vanguard move and its side has the first turn: it "
        "may not charge "
        "in turn 1",
    )


class VanguardMove(ActionModel):
    type: Literal["vanguard_move"]
    unit: str
    x: Coord
    y: Coord
    facing: Facing
    files: int | None = Field(default=None, ge=1, le=50)


def _check_vanguard_window(state: GameState) -> None:
    b = state.battle
    first = int(b.first_player or 1)
    if (b.turn, b.active_player, b.phase, b.player_turn) != (
        1, first, "Start", 1
    ):
        raise RuleError(
            OUT_OF_PHASE,
            "Vanguard moves are made before the first turn: in the first player's Start phase "
            "of turn 1",
            rule=VANGUARD,
        )


def _check_vanguard_unit(state: GameState, unit: Unit) -> None:
    if unit.status != "on_table":
        raise RuleError(OUT_OF_PHASE, f"{display_name(state, unit.id)} is not on the table",
                                      rule=VANGUARD)
    if not has_vanguard(state, unit):
        raise RuleError(ILLEGAL_MOVE, f"{display_name(state, unit.id)} has no Vanguard",
                                      rule=VANGUARD)
    if MARKER in unit.markers:
        raise RuleError(ILLEGAL_MOVE, f"{display_name(state, unit.id)} has made its Vanguard move",
                                      rule=VANGUARD)


@register_offer("vanguard_move", anytime=True)
def _offer_vanguard(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """Vanguard…: before the first turn (the first player's Start phase of turn 1), either
    player's units with Vanguard, until each has made its move."""
    if unit.owner != seat or unit.status != "on_table" or not has_vanguard(state, unit):
        return None
    if judge(lambda: _check_vanguard_window(state)):
        return None
    err = judge(lambda: _check_vanguard_unit(state, unit))
    if err is not None:
        return refused("vanguard_move", err)
    return offer("vanguard_move", allowance=VANGUARD_IN)


@register_action(
    "vanguard_move",
    VanguardMove,
    systems=["whfb8"],
    # Before the first turn: the first player's Start phase of turn 1, by either player.
    when=[When(BATTLE, EITHER, Phases.named("Start"))],
    doing="making a Vanguard move",
)
def vanguard_move(
    state: GameState, seat: int, action: VanguardMove, dice: DiceStream
) -> list[Event]:
    """A Vanguard move before the first turn (see the module text)."""
    _check_vanguard_window(state)
    unit = unit_of(state, action.unit, seat)
    _check_vanguard_unit(state, unit)
    end = Placement(action.x, action.y, action.facing)
    assignment, lengths, _, end_fp = model_paths(state, unit.id, end, action.files, VANGUARD_IN)
    table = table_of(state)
    if assignment is None:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{display_name(state, unit.id)}: some model would move more than {VANGUARD_IN:g} in "
            "(around units "
            "and Impassable Terrain)",
            rule="Vanguard: 12 in",
            obstacle=None,
            allowance=VANGUARD_IN,
        )
    for other in units_of(state).values():
        fp = table.units.get(other.id)
        if other.owner == seat or fp is None:
            continue
        gap = distance(end_fp, fp).distance
        if gap <= VANGUARD_IN + 1e-9:
            raise RuleError(
                ILLEGAL_MOVE,
                f"{display_name(state, unit.id)} would end {say_inches(gap, VANGUARD_IN)} from "
                f"{display_name(state, other.id)}: "
                f"a Vanguard move may not end within {VANGUARD_IN:g} in of an enemy",
                rule="Vanguard: 12 in from enemies",
                obstacle=other.id,
                distance=round(gap, 3),
            )
    result = movement.place(table, unit.id, end_fp)
    if not result.legal:
        raise illegal_move_error(
            state, result, f"{display_name(state, unit.id)} cannot end its Vanguard move there"
        )
    used = float(max(lengths[i, j] for i, j in enumerate(assignment)))
    # Asked of the legal move only, like every move (a refusal never depends on a secret).
    stopped = stop_on_the_way(state, unit.id, end_fp)
    here = end_fp
    after: list[Event] = []
    if stopped is not None:
        fraction, here, after = stopped
        used *= fraction
    place = here.placement
    assert place is not None
    moved = dataclasses.replace(
        unit,
        placement=(round(place.x, 4), round(place.y, 4), round(place.facing % 360.0, 4)),
        files=here.formation.files if here.formation is not None else unit.files,
        markers=(*unit.markers, MARKER),
    )
    return [
        Event(
            "vanguard_moved",
            {
                "unit": moved.to_json(),
                "distance": round(used, 4),
                "footprint": geo.to_geojson(here.boundary),
                "rule": VANGUARD,
                **({"stopped": True} if stopped is not None else {}),
                "text": f"{display_name(state, unit.id)} make a Vanguard move: the farthest "
                f"model goes {say_inches(used)} of {VANGUARD_IN:g} in"
                + ("; it stops there (a rule stops it part-way) and the move ends"
                   if stopped is not None else ""),
            },
            actor=seat,
        ),
        *after,
    ]


@register_folder("vanguard_moved")
def _fold_vanguard_moved(state: GameState, event: Event) -> GameState:
    return with_unit(state, unit_from_json(event.payload["unit"]))
