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
(on the table, Unit Spacing). It is the unit's whole move that phase (docs/rules-decisions.md),
unless a rule stops it part-way (`stop_on_the_way`: whfb8 Fanatics released at 8 in, seed 003):
then it may carry on with what is left of its allowance, in the same mode.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Literal

import numpy as np
import shapely
from pydantic import Field

from server import geometry as geo
from server.dice import DiceStream
from server.geometry import movement
from server.geometry.constants import CONTACT_TOLERANCE_IN
from server.geometry.footprint import Footprint, footprint
from server.geometry.formation import RankedFormation, layout
from server.geometry.frame import Placement
from server.geometry.paths import (
    Obstacles,
    grow,
    model_assignment,
    shortest_lengths,
    shortest_path,
)
from server.rules.battle import TURN_START_HOOKS, on_phase_end
from server.rules.core import (
    ACTIVE,
    BAD_REQUEST,
    BATTLE,
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
)
from server.rules.flee import sheets_of
from server.rules.markers import FEIGNED_FLIGHT, FLEEING, TIGHTENED
from server.rules.moves import allowance
from server.rules.naming import display_name, in_the_way, say_inches
from server.rules.orders import judge, offer, refused, register_offer
from server.rules.state import JsonRecord
from server.rules.systems import MOVEMENT_PHASE, variant_of
from server.rules.units import (
    Coord,
    Facing,
    Unit,
    datasheet_of,
    illegal_move_error,
    phase_moves,
    record_turn_move,
    table_of,
    unit_from_json,
    unit_of,
    units_of,
    with_unit,
)
from server.rules.whfb8.entombed import formation_of

SKIRMISHERS = "Skirmishers"
SYSTEM = "whfb8"


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
    unit = unit_of(state, unit_id)
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


def walked(start: Footprint, end: Footprint) -> Callable[[float], Footprint]:
    """The way of a move that puts a unit down in a new loose formation (a Skirmishers or
    Vanguard move), for the judgements made along a move (`Variant.move_stop`): the Free
    Reform before the move is immediate (any t > 0 is in the new formation), then the unit goes
    straight from its start placement to its end, turning evenly (the shorter way round)."""
    a, b = start.placement, end.placement
    formation = end.formation
    assert a is not None and b is not None and formation is not None
    turn = (b.facing - a.facing + 180.0) % 360.0 - 180.0

    def path(t: float) -> Footprint:
        if t <= 0.0:
            return start
        if t >= 1.0:
            return end
        return footprint(formation, Placement(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t,
                                              (a.facing + turn * t) % 360.0))

    return path


def stop_on_the_way(
    state: GameState, unit_id: str, end: Footprint
) -> tuple[float, Footprint, list[Event]] | None:
    """Whether a rule of the system stops a move to `end` part-way, asked as every move asks it
    (`Variant.move_stop`; whfb8: Fanatics released at 8 in, seed 003), along `walked`: the
    fraction of the way, where the unit stops and the events the stop makes; None when nothing
    stops it. **Decision**: where the point the way comes within 8 in is no legal place for the
    unit (its straight line crosses what its models walk around) it stops at its end."""
    start = table_of(state).units[unit_id]
    path = walked(start, end)
    stop = variant_of(state.system).move_stop(state, unit_id, path)
    if stop is None:
        return None
    fraction, events = stop
    here = path(fraction)
    if not movement.place(table_of(state), unit_id, here).legal:
        return 1.0, end, events
    return fraction, here, events


def _carried_on(state: GameState, unit: Unit) -> JsonRecord | None:
    """This phase's move of a unit a rule stopped part-way (it may carry on), else None."""
    done = phase_moves(state).get(unit.id)
    return done if done and done.get("stopped") else None


def _check_skirmisher(state: GameState, unit: Unit) -> None:
    """A Skirmishers unit on the table that has not moved this phase (or was stopped part-way)
    and is not in combat."""
    if unit.status != "on_table":
        raise RuleError(OUT_OF_PHASE, f"{display_name(state, unit.id)} is not on the table")
    if not datasheet_of(state, unit).has_rule(SKIRMISHERS):
        raise RuleError(BAD_REQUEST, f"{display_name(state, unit.id)} are not Skirmishers: use "
                                     "move_unit",
                        rule=SKIRMISHERS)
    if phase_moves(state).get(unit.id) and _carried_on(state, unit) is None:
        raise RuleError(ILLEGAL_MOVE,
                        f"{display_name(state, unit.id)} has already moved this phase",
                        rule="One Move per Phase")
    engaged = state.charges.engaged
    if unit.id in engaged or unit.id in engaged.values():
        raise RuleError(ILLEGAL_MOVE, f"{display_name(state, unit.id)} is engaged in combat",
                                      rule=SKIRMISHERS)


@register_offer("skirmish_move")
def _offer_skirmish(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """Skirmish move…: a Skirmishers unit of the active player in its Movement phase (the
    action's window), with its allowances (advance, march) in inches, and what is left of a
    move a rule stopped part-way (`carry_on`)."""
    if unit.owner != seat or unit.status != "on_table":
        return None
    if not datasheet_of(state, unit).has_rule(SKIRMISHERS):
        return None
    err = judge(lambda: _check_skirmisher(state, unit))
    if err is not None:
        return refused("skirmish_move", err)
    limits = {m: allowance(state, unit, m) for m in ("advance", "march")}
    before = _carried_on(state, unit)
    if before is None:
        return offer("skirmish_move", allowance=limits)
    # Stopped part-way (Fanatics released at 8 in): the rest, in the mode it began in.
    mode = str(before.get("mode", "advance"))
    used = float(before.get("used", 0.0))
    return offer("skirmish_move", allowance=limits, carry_on={
        "mode": mode, "used": round(used, 2), "left": round(max(limits[mode] - used, 0.0), 2)})


@register_action(
    "skirmish_move",
    SkirmishMove,
    systems=[SYSTEM],
    when=[When(BATTLE, ACTIVE, MOVEMENT_PHASE)],
    doing="moving",
)
def skirmish_move(
    state: GameState, seat: int, action: SkirmishMove, dice: DiceStream
) -> list[Event]:
    """A whfb8 Skirmishers unit's whole move: any loose formation every model reaches within
    its allowance, around units and Impassable Terrain."""
    unit = unit_of(state, action.unit, seat)
    _check_skirmisher(state, unit)
    ranked = variant_of(state.system).ranked
    if action.mode == "march" and ranked is not None:
        no_march = ranked.march_refusal(unit.name, sheets_of(state, unit), unit.markers)
        if no_march is not None:
            raise RuleError(ILLEGAL_MOVE, no_march[1], rule=no_march[0])
    whole = allowance(state, unit, action.mode)
    before = _carried_on(state, unit)
    spent = 0.0
    if before is not None:
        # Carrying on after a stop: the rest of the allowance, in the mode it began in.
        if before.get("mode", "advance") != action.mode:
            raise RuleError(ILLEGAL_MOVE, f"{display_name(state, unit.id)} carry on their "
                                          f"{before.get('mode')} "
                            f"move: the mode stays {before.get('mode')}", rule="Move Distance")
        spent = float(before.get("used", 0.0))
    limit = max(whole - spent, 0.0)
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
            f"{display_name(state, unit.id)}: some model would move "
            + (say_inches(worst, limit) if np.isfinite(worst) else "through an obstacle")
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
        raise illegal_move_error(state, result, f"{display_name(state, unit.id)} cannot end there")
    used = float(max(lengths[i, j] for i, j in enumerate(assignment)))
    # Asked only of a legal move, like every move: a refusal never depends on a secret.
    stopped = stop_on_the_way(state, unit.id, end_fp)
    after: list[Event] = []
    here = end_fp
    extra: dict[str, Any] = {}
    if stopped is not None:
        fraction, here, after = stopped
        used *= fraction
        swept = shapely.union_all([start.boundary, here.boundary])
        extra = {"stopped": True}
    starts = start.model_centres
    ends = end_fp.model_centres
    paths = []
    if stopped is None:
        for i, j in enumerate(assignment):
            path = shortest_path(tuple(starts[i]), tuple(ends[j]), grown)
            if path is not None and len(path) > 1:
                paths.append([[round(x, 3), round(y, 3)] for x, y in path])
    place = here.placement
    assert place is not None
    moved = dataclasses.replace(
        unit,
        placement=(round(place.x, 4), round(place.y, 4), round(place.facing % 360.0, 4)),
        files=here.formation.files if here.formation is not None else unit.files,
        markers=tuple(m for m in unit.markers if m != TIGHTENED),  # it ends loose
    )
    total = spent + used
    return [
        Event(
            "unit_moved",
            {
                "unit": moved.to_json(),
                "manoeuvre": "skirmish",
                "distance": round(used, 4),
                "used": round(total, 4),
                "allowance": whole,
                "mode": action.mode,
                "reformed": True,
                "swept": geo.to_geojson(swept),
                "paths": paths,
                "rule": SKIRMISHERS,
                **extra,
                "text": f"{display_name(state, unit.id)} move as Skirmishers ({action.mode}): "
                f"the farthest model goes {say_inches(total)} of its {whole:g} in, around what "
                "is in the way"
                + ("; they stop part-way and may carry on once that is resolved"
                   if stopped is not None else ""),
            },
            actor=seat,
        ),
        *after,
    ]


# --- tightening into base contact, and loosening again ------------------------------------------


def _centre_offset(formation: RankedFormation, index: int) -> np.ndarray:
    """The centre of model `index` in the unit's own frame (u right, v forward)."""
    return np.asarray(layout(formation).model_rings[index, :-1].mean(axis=0), dtype=np.float64)


def _front_by_centre(fp: Footprint, files: int) -> list[int]:
    """Indices of the front-rank models, the centremost first (ties: left first)."""
    front = [i for i, r in enumerate(fp.model_ranks) if r == 0]
    mid = (files - 1) / 2.0
    return sorted(front, key=lambda i: (abs((fp.model_files[i] or 0) - mid), fp.model_files[i]))


def _reshaped(unit: Unit, placement: Placement, markers: tuple[str, ...]) -> Unit:
    return dataclasses.replace(
        unit,
        placement=(round(placement.x, 4), round(placement.y, 4), round(placement.facing, 4)),
        markers=markers,
    )


def tighten(state: GameState, unit: Unit, enemy_id: str) -> Event | None:
    """Seed 002, Skirmishers and Charging: the unit "forms up in base contact around the
    centremost model in the front rank ... that is also in base contact with the enemy"; ranks,
    files and facing are kept. Of two equally central models, the one nearer the enemy's centre
    (then the left one). None when the unit has no loose formation to tighten."""
    table = table_of(state)
    fp, enemy = table.units.get(unit.id), table.units.get(enemy_id)
    if fp is None or enemy is None or fp.formation is None or fp.placement is None:
        return None
    loose = fp.formation
    if not loose.is_skirmish:
        return None
    files = layout(loose).file_count
    front = _front_by_centre(fp, files)
    touching = [
        i for i in front
        if shapely.dwithin(fp.model_polygons[i], enemy.boundary, CONTACT_TOLERANCE_IN)
    ] or front
    mid = (files - 1) / 2.0
    ex, ey = enemy.centre
    anchor = min(
        touching,
        key=lambda i: (
            abs((fp.model_files[i] or 0) - mid),
            float(np.hypot(fp.model_centres[i][0] - ex, fp.model_centres[i][1] - ey)),
            fp.model_files[i],
        ),
    )
    tight = dataclasses.replace(loose, gap_in=0.0)
    du, dv = _centre_offset(loose, anchor) - _centre_offset(tight, anchor)
    placement = fp.placement.moved(forward=float(dv), right=float(du))
    after = _reshaped(unit, placement, (*unit.markers, TIGHTENED))
    return Event(
        "skirmishers_tightened",
        {
            "unit": after.to_json(),
            "enemy": enemy_id,
            "anchor": {"rank": 0, "file": fp.model_files[anchor]},
            "rule": SKIRMISHERS,
            "text": f"{display_name(state, unit.id)} close up into base contact around their "
                    "front-rank model in "
            f"file {(fp.model_files[anchor] or 0) + 1} (Skirmishers and Charging)",
        },
    )


def loosen(state: GameState, unit: Unit) -> Event:
    """Seed 002: "If the Skirmishers are not in base contact with an enemy in the Remaining
    Moves sub-phase, the controlling player must move them apart": back into the loose
    formation around the centremost front-rank model (the next one when that one does not fit,
    e.g. Unit Spacing); when none fits they stay closed up this turn and the event says why."""
    table = table_of(state)
    fp = table.units[unit.id]
    assert fp.formation is not None and fp.placement is not None
    tight = fp.formation
    ranked = variant_of(state.system).ranked
    gap = ranked.skirmish_gap_in if ranked is not None else 0.0
    loose = dataclasses.replace(tight, gap_in=gap)
    markers = tuple(m for m in unit.markers if m != TIGHTENED)
    problem = None
    for anchor in _front_by_centre(fp, layout(tight).file_count):
        du, dv = _centre_offset(tight, anchor) - _centre_offset(loose, anchor)
        placement = fp.placement.moved(forward=float(dv), right=float(du))
        result = movement.place(table, unit.id, footprint(loose, placement))
        if result.legal:
            return Event(
                "skirmishers_loosened",
                {
                    "unit": _reshaped(unit, placement, markers).to_json(),
                    "rule": SKIRMISHERS,
                    "text": f"{display_name(state, unit.id)} are out of base contact and spread "
                            "out again into "
                    "their loose formation",
                },
            )
        problem = f"{result.rule}" + in_the_way(state, result.obstacle)
    return Event(
        "skirmishers_loosened",
        {
            "unit": unit.to_json(),
            "rule": SKIRMISHERS,
            "blocked": problem,
            "text": f"{display_name(state, unit.id)} cannot spread out again here ({problem}); "
                    "they stay closed up "
            "this turn",
        },
    )


def tighten_at_contact(state: GameState, charger_id: str, target_id: str) -> list[Event]:
    """Skirmishers tighten "for free at the moment both units move into base contact" (seed
    002): the charger and the charged, whichever are Skirmishers not yet closed up."""
    events: list[Event] = []
    for uid, enemy in ((charger_id, target_id), (target_id, charger_id)):
        unit, other = units_of(state).get(uid), units_of(state).get(enemy)
        if other is None or other.status != "on_table":
            continue
        if (unit is None or unit.status != "on_table" or TIGHTENED in unit.markers
                or not datasheet_of(state, unit).has_rule(SKIRMISHERS)):
            continue
        event = tighten(state, unit, enemy)
        if event is not None:
            events.append(event)
            state = fold_all(state, [event])
    return events


@on_phase_end(SYSTEM, "Movement")
def close_up_and_spread_out(state: GameState, dice: DiceStream) -> list[Event]:
    """At the end of the Movement phase (after charges and Remaining Moves): Skirmishers in
    base contact with an enemy (engaged, as chargers or charged) close up; the active player's
    closed-up Skirmishers out of contact spread out."""
    engaged = state.charges.engaged
    partner: dict[str, str] = {}
    for charger, target in engaged.items():
        partner.setdefault(charger, target)
        partner.setdefault(target, charger)
    active = state.battle.active_player
    events: list[Event] = []
    for unit in list(units_of(state).values()):
        if unit.status != "on_table" or not datasheet_of(state, unit).has_rule(SKIRMISHERS):
            continue
        event: Event | None = None
        if TIGHTENED not in unit.markers and unit.id in partner:
            event = tighten(state, unit, partner[unit.id])
        elif TIGHTENED in unit.markers and unit.id not in partner and unit.owner == active:
            event = loosen(state, unit)
        if event is not None:
            events.append(event)
            state = fold_all(state, [event])
    return events


@register_folder("skirmishers_tightened")
def _fold_tightened(state: GameState, event: Event) -> GameState:
    return with_unit(state, unit_from_json(event.payload["unit"]))


@register_folder("skirmishers_loosened")
def _fold_loosened(state: GameState, event: Event) -> GameState:
    return with_unit(state, unit_from_json(event.payload["unit"]))


# --- Feigned Flight: free to move and shoot after the automatic rally, counting as moved -------


def feigned_flight_counts_as_moved(state: GameState, dice: DiceStream) -> list[Event]:
    """Seed 002, Feigned Flight: the unit "automatically rallies in its next Compulsory
    Movement Phase. In addition, it is then also free to move during the remaining moves ...
    The unit is also free to shoot as normal (but always counts as having moved)". Runs as the
    owner's turn begins, before the automatic rally (server/rules/flee.py), while the unit
    still carries `feigned_flight`: it is recorded as having moved this turn."""
    if state.system != SYSTEM:
        return []
    seat = state.battle.active_player
    return [
        Event(
            "feigned_flight_moved",
            {
                "unit": unit.id,
                "rule": "Feigned Flight",
                "text": f"{display_name(state, unit.id)} rally from a Feigned Flight: they may "
                        "move and shoot as "
                "normal this turn, counting as having moved",
            },
        )
        for unit in units_of(state).values()
        if unit.owner == seat and unit.status == "on_table" and FEIGNED_FLIGHT in unit.markers
        and FLEEING in unit.markers
    ]


# It must run before the shared automatic rally removes `feigned_flight`, whatever the order
# the modules were imported in: first of the turn-start hooks.
TURN_START_HOOKS.insert(0, feigned_flight_counts_as_moved)


@register_folder("feigned_flight_moved")
def _fold_feigned_flight_moved(state: GameState, event: Event) -> GameState:
    return record_turn_move(state, event.payload["unit"], moved=True)
