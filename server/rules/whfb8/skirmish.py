"""WFB 8th Skirmishers moving model by model (seed 002_20fe50c61f72ab35, Skirmish Formation and
Free Reform).

"When moving Skirmishers, you should measure from the location of each model before it moves
and place it anywhere within its M Allowance (or double its M Allowance if it is marching),
except when there is a unit or impassable terrain in the way, the distance moved must include
the distance required to move around these obstacles." With the two free reforms (before and
after the move, "provided that no model ends up moving a number of inches higher than double
its M value"), Warfield reads a skirmishers' move as one action, `skirmish_move`: the unit ends
in any loose formation (position, facing, files) such that every model can reach a place of it
(one model a place) along a path no longer than its allowance, M advancing or 2M marching, the
path going around other units and Impassable Terrain (server/geometry/paths.py; a model's
centre keeps half its base width clear of them). The end position is checked as any placement
(on the table, Unit Spacing). It is the unit's whole move that phase (docs/rules-decisions.md).
"""

from __future__ import annotations

import dataclasses
from typing import Literal

import numpy as np
import shapely
from pydantic import Field

from server import geometry as geo
from server.dice import DiceStream
from server.geometry import movement
from server.geometry.footprint import Footprint, footprint
from server.geometry.frame import Placement
from server.geometry.paths import (
    Obstacles,
    grow,
    model_assignment,
    shortest_lengths,
    shortest_path,
)
from server.rules.battle import require_phase
from server.rules.core import (
    BAD_REQUEST,
    ILLEGAL_MOVE,
    OUT_OF_PHASE,
    ActionModel,
    Event,
    GameState,
    RuleError,
    register_action,
)
from server.rules.moves import allowance
from server.rules.units import (
    Coord,
    Facing,
    _illegal,
    _unit,
    datasheet_of,
    phase_moves,
    table_of,
)
from server.rules.whfb8.entombed import formation_of

SKIRMISHERS = "Skirmishers"


class SkirmishMove(ActionModel):
    type: Literal["skirmish_move"]
    unit: str
    x: Coord
    y: Coord
    facing: Facing
    files: int | None = Field(default=None, ge=1, le=50)
    mode: Literal["advance", "march"] = "advance"


def model_paths(
    state: GameState, unit_id: str, end: Placement, files: int | None, limit: float
) -> tuple[list[int] | None, np.ndarray, Obstacles, Footprint]:
    """Each model's shortest path lengths to each place of the formation at `end` (models
    by rows, places by columns), the assignment within `limit` (or None), the grown obstacles
    and the end footprint."""
    table = table_of(state)
    unit = _unit(state, unit_id)
    start = table.units[unit.id]
    formation = formation_of(state, unit, files)
    end_fp = footprint(formation, end)
    half = min(formation.base.width, formation.base.depth) / 2.0
    obstacles = [fp.boundary for uid, fp in table.units.items() if uid != unit.id]
    obstacles += [t.polygon for t in table.terrain if t.impassable]
    grown = grow(obstacles, half)
    lengths = shortest_lengths(
        [tuple(p) for p in start.model_centres], [tuple(p) for p in end_fp.model_centres], grown
    )
    return model_assignment(lengths, limit), lengths, grown, end_fp


@register_action("skirmish_move", SkirmishMove, systems=["whfb8"])
def skirmish_move(
    state: GameState, seat: int, action: SkirmishMove, dice: DiceStream
) -> list[Event]:
    """A whfb8 Skirmishers unit's whole move: any loose formation every model reaches within
    its allowance, around units and Impassable Terrain."""
    require_phase(state, seat, ("Movement",), "moving")
    unit = _unit(state, action.unit, seat)
    if unit.status != "on_table":
        raise RuleError(OUT_OF_PHASE, f"{unit.name} is not on the table")
    if not datasheet_of(state, unit).has_rule(SKIRMISHERS):
        raise RuleError(BAD_REQUEST, f"{unit.name} are not Skirmishers: use move_unit",
                        rule=SKIRMISHERS)
    if phase_moves(state).get(unit.id):
        raise RuleError(ILLEGAL_MOVE, f"{unit.name} has already moved this phase",
                        rule="One Move per Phase")
    engaged = state.extra.get("engaged", {})
    if unit.id in engaged or unit.id in engaged.values():
        raise RuleError(ILLEGAL_MOVE, f"{unit.name} is engaged in combat", rule=SKIRMISHERS)
    limit = allowance(state, unit, action.mode)
    end = Placement(action.x, action.y, action.facing % 360.0)
    assignment, lengths, grown, end_fp = model_paths(state, unit.id, end, action.files, limit)
    table = table_of(state)
    start = table.units[unit.id]
    swept = shapely.union_all([start.boundary, end_fp.boundary])
    if assignment is None:
        # The best any assignment could do (ignoring the allowance), for the message.
        loose = model_assignment(lengths, float(np.max(np.where(np.isfinite(lengths), lengths,
                                                                0.0))) + 1.0)
        worst = (
            float(max(lengths[i, j] for i, j in enumerate(loose)))
            if loose is not None else float("inf")
        )
        raise RuleError(
            ILLEGAL_MOVE,
            f"{unit.name}: some model would move "
            + (f"{worst:.2f} in" if np.isfinite(worst) else "through an obstacle")
            + f" around units and Impassable Terrain, more than its {limit:g} in "
            f"{action.mode} allowance",
            rule="Move Distance",
            obstacle=None,
            distance=round(worst, 3) if np.isfinite(worst) else None,
            allowance=limit,
            swept=geo.to_geojson(swept),
        )
    result = movement.place(table, unit.id, end_fp)
    if not result.legal:
        raise _illegal(result, f"{unit.name} cannot end there")
    used = float(max(lengths[i, j] for i, j in enumerate(assignment)))
    starts = start.model_centres
    ends = end_fp.model_centres
    paths = []
    for i, j in enumerate(assignment):
        path = shortest_path(tuple(starts[i]), tuple(ends[j]), grown)
        if path is not None and len(path) > 1:
            paths.append([[round(x, 3), round(y, 3)] for x, y in path])
    moved = dataclasses.replace(
        unit,
        placement=(round(end.x, 4), round(end.y, 4), round(end.facing, 4)),
        files=end_fp.formation.files if end_fp.formation is not None else unit.files,
    )
    return [
        Event(
            "unit_moved",
            {
                "unit": moved.to_json(),
                "manoeuvre": "skirmish",
                "distance": round(used, 4),
                "used": round(used, 4),
                "allowance": limit,
                "mode": action.mode,
                "reformed": True,
                "swept": geo.to_geojson(swept),
                "paths": paths,
                "rule": SKIRMISHERS,
                "text": f"{unit.name} move as Skirmishers ({action.mode}): the farthest model "
                f"goes {used:.2f} in of its {limit:g} in, around what is in the way",
            },
            actor=seat,
        )
    ]
