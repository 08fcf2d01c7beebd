"""Units on the table: terrain, armies from datasheets, deployment, rules-checked movement and
charges. Every spatial judgement is the geometry core's (`server.geometry`); this module only
decides which judgement applies, with which allowance, in which phase.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Annotated, Any

import shapely
from pydantic import AfterValidator, Field

from server import geometry as geo
from server.data import Datasheet, load_catalog
from server.geometry import movement
from server.geometry.bases import OvalBase, RectBase, RoundBase
from server.geometry.constants import COHERENCY_LARGE_UNIT
from server.geometry.footprint import Footprint, footprint, models_footprint
from server.geometry.formation import (
    Character,
    ModelPlacement,
    RankedFormation,
)
from server.geometry.frame import Placement, forward_vector
from server.geometry.kinds import Height, Rule
from server.geometry.los import LineOfSight, line_of_sight
from server.geometry.table import Battlefield as GeoBattlefield
from server.geometry.table import Table, Terrain
from server.rules import automation
from server.rules.battle import (
    BATTLE,
    DEPLOYMENT,
    stage,
)
from server.rules.core import (
    BAD_REQUEST,
    CARRIED_CACHES,
    FORBIDDEN,
    ILLEGAL_MOVE,
    NOT_FOUND,
    SETUP,
    Battlefield,
    GameState,
    RuleError,
    register_projector,
)
from server.rules.markers import TIGHTENED
from server.rules.naming import display_name, in_the_way, possessive
from server.rules.state import JoinedCharacter as JoinedCharacter
from server.rules.state import JsonRecord, changed
from server.rules.state import Unit as Unit
from server.rules.systems import containing_rule, entirely_with, find_system, variant_of

MAX_BATTLEFIELD_IN = 240.0
"""The longest table side a game may be created with (`POST /api/games`, `battlefield`)."""
TABLE_MARGIN_IN = 12.0
"""How far past the table's edges a point in an action or a question may lie: enough for a
measure from just off the table or a move the rules then refuse at the Battlefield Edge; a point
further out is a `bad_request`, not a rules question."""
MAX_NUMBER = 10_000.0
"""The largest magnitude of any other number in an action (a distance, an angle): far past any
table, small enough that no geometry overflows."""

Finite = Annotated[float, Field(allow_inf_nan=False, ge=-MAX_NUMBER, le=MAX_NUMBER)]
"""A finite number of sane size (NaN, Infinity and 1e300 are refused by the schema)."""
Coord = Annotated[
    float,
    Field(
        allow_inf_nan=False, ge=-TABLE_MARGIN_IN, le=MAX_BATTLEFIELD_IN + TABLE_MARGIN_IN
    ),
]
"""A table coordinate in inches, within the largest table plus the margin (each game's own
table is checked by `check_in_reach` or by the rules of the action)."""


def _normalise_facing(value: float) -> float:
    return value % 360.0


Facing = Annotated[float, Field(allow_inf_nan=False), AfterValidator(_normalise_facing)]
"""A facing in degrees, finite, normalised to [0, 360)."""


def check_in_reach(state: GameState, x: float, y: float, field: str) -> None:
    """Refuse (`bad_request`) a point that is not finite or lies more than `TABLE_MARGIN_IN`
    off this game's table: no question or action means anything there."""
    bf = state.battlefield
    m = TABLE_MARGIN_IN
    if not (
        math.isfinite(x)
        and math.isfinite(y)
        and -m <= x <= bf.width + m
        and -m <= y <= bf.depth + m
    ):
        raise RuleError(
            BAD_REQUEST,
            f"{field}: ({x:g}, {y:g}) is more than {m:g} in off the table "
            f"(0..{bf.width:g} x 0..{bf.depth:g} in)",
            field=field,
            limit={"min_x": -m, "max_x": bf.width + m, "min_y": -m, "max_y": bf.depth + m},
        )
DEPLOYMENT_DEPTH_IN = 12.0
"""Deployment zones: 12 in deep along each player's own long edge (all three systems here)."""


# --- the unit, as state --------------------------------------------------------------------------


def units_of(state: GameState) -> Mapping[str, Unit]:
    """Every unit of the game, by id."""
    return state.units


def terrain_of(state: GameState) -> tuple[Terrain, ...]:
    return state.terrain


def with_unit(state: GameState, unit: Unit) -> GameState:
    """`state` with `unit` (new, or in place of the unit of its id)."""
    return state.evolve(units={**state.units, unit.id: unit})


def with_units(state: GameState, units: Mapping[str, Unit]) -> GameState:
    """`state` with `units` as all its units."""
    return state.evolve(units=units)


def with_engaged(state: GameState, engaged: Mapping[str, str]) -> GameState:
    """`state` with `engaged` (charger -> target) as who is engaged with whom."""
    return state.evolve(charges=changed(state.charges, engaged=engaged))


def datasheet_of(state: GameState, unit: Unit) -> Datasheet:
    return load_catalog().get(state.system, unit.datasheet)


# --- which rules the unit has (issue 17 item 1: one judgement for every rule) ---------------------


def sheets_of(state: GameState, unit: Unit) -> list[Datasheet]:
    """The datasheets of every model of the unit: its rank-and-file (while any remain, or when
    it has nothing else) then its joined characters'. The one list every "containing" and
    "entirely" judgement reads (flee, charge, moves, reserves, the rank-and-flank battle)."""
    catalog = load_catalog()
    keep = unit.models > 0 or not unit.characters
    found = [catalog.get(state.system, unit.datasheet)] if keep else []
    return found + [catalog.get(state.system, c.datasheet) for c in unit.characters]


def containing(state: GameState, unit: Unit, rule: str) -> bool:
    """"A unit containing <rule>" (seed 000, e.g. Fearless): some model of it has the rule."""
    return containing_rule(sheets_of(state, unit), rule)


def entirely(state: GameState, unit: Unit, rule: str) -> bool:
    """"A unit entirely with <rule>" (seed 000: Ambush, Light Troops, Swiftstride, Supernal):
    every model of it, joined characters included, has the rule."""
    return entirely_with(sheets_of(state, unit), rule)


def unit_from_json(raw: Mapping[str, Any]) -> Unit:
    placement = raw.get("placement")
    return Unit(
        raw["id"],
        raw["owner"],
        raw["datasheet"],
        raw["name"],
        raw["models"],
        raw["files"],
        raw["status"],
        None if placement is None else (placement["x"], placement["y"], placement["facing"]),
        tuple(tuple(p) for p in raw.get("positions", ())),
        tuple(
            JoinedCharacter(c["datasheet"], c["name"], c.get("damage", 0))
            for c in raw.get("characters", ())
        ),
        raw.get("damage", 0),
        tuple(raw.get("markers", ())),
    )


def phase_moves(state: GameState) -> Mapping[str, JsonRecord]:
    """What each unit did in this phase (by unit id; the client shows it as `moved`)."""
    return state.moves.phase


def with_phase_moves(state: GameState, moves: Mapping[str, JsonRecord]) -> GameState:
    """`state` with `moves` as what the units did in this phase."""
    return state.evolve(moves=changed(state.moves, phase=moves))


def with_phase_move(state: GameState, unit_id: str, record: JsonRecord) -> GameState:
    """`state` with `record` as what the unit `unit_id` did in this phase."""
    return with_phase_moves(state, {**state.moves.phase, unit_id: record})


def turn_moves(state: GameState) -> Mapping[str, Mapping[str, bool]]:
    """How each unit moved in the current Player Turn: `marched` (a March Move: no shooting)
    and `march_rules` (counts as marching for march-triggered rules, e.g. a Light Troops
    Reform whose centre moved further than its Mobility, seed 000)."""
    moves = state.moves
    return moves.turn if moves.turn_of == state.battle.player_turn else {}


def record_turn_move(state: GameState, unit_id: str, **flags: bool) -> GameState:
    units = {k: dict(v) for k, v in turn_moves(state).items()}
    mine = units.setdefault(unit_id, {})
    for key, value in flags.items():
        mine[key] = mine.get(key, False) or value
    moves = changed(state.moves, turn_of=state.battle.player_turn, turn=units)
    return state.evolve(moves=moves)


def require_in_sight(state: GameState, unit: Unit, target: Unit, rule: str) -> LineOfSight:
    """`target` must be in `unit`'s front arc and line of sight (a charge, a shot), else
    illegal_move naming `rule` and the first blocker; returns the line of sight."""
    sight = line_of_sight(table_of(state), unit.id, target.id)
    if not sight.visible:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{display_name(state, target.id)} is not in "
            f"{possessive(display_name(state, unit.id))} front arc and "
            "line of sight",
            rule=rule,
            obstacle=(sight.blockers[0] if sight.blockers else None),
        )
    return sight


# --- geometry of a unit ------------------------------------------------------------------------


def base_of(sheet: Datasheet) -> RectBase | RoundBase | OvalBase:
    b = sheet.base
    if b.shape == "round":
        assert b.diameter_mm is not None
        return RoundBase(b.diameter_mm)
    assert b.width_mm is not None and b.depth_mm is not None
    if b.shape == "oval":
        return OvalBase(b.width_mm, b.depth_mm)
    return RectBase(b.width_mm, b.depth_mm)


def _height(sheet: Datasheet) -> Height:
    label = str(getattr(sheet, "height_class", "Standard")).upper()
    return Height[label] if label in Height.__members__ else Height.STANDARD


def is_ranked(system: str) -> bool:
    """Do the units of `system` move as ranked blocks (else model by model)?"""
    return variant_of(system).ranked is not None


def move_phases(system: str) -> tuple[str, ...]:
    """The phases in which the units of `system` make their moves."""
    return (find_system(system).movement_phase,)


def reserve_rules(system: str) -> tuple[str, ...]:
    """The special rules that let a unit of `system` stay off the table at deployment."""
    return variant_of(system).reserve_rules


def skirmishes(system: str, sheet: Datasheet) -> bool:
    return sheet.has_rule("Skirmisher") or sheet.has_rule("Skirmishers")


def _rect_base(sheet: Datasheet) -> RectBase:
    base = base_of(sheet)
    return base if isinstance(base, RectBase) else RectBase(base.width * 25.4, base.depth * 25.4)


@lru_cache(maxsize=4096)
def ranked_formation(
    system: str,
    datasheet: str,
    models: int,
    files: int,
    characters: tuple[str, ...] = (),
    tight: bool = False,
) -> RankedFormation:
    """The unit's ranked formation: rank-and-file in `files` files, joined characters in the
    front rank (mismatched bases take a block of the grid), skirmish gaps when it skirmishes
    (none when `tight`: skirmishers drawn into base contact, marker TIGHTENED)."""
    catalog = load_catalog()
    sheet = catalog.get(system, datasheet)
    # The gaps belong to the skirmishing rank-and-file: when the last of them is removed, the
    # joined characters contract into a normal formation around the centre of the first rank
    # (seed 000, Skirmisher). The front-edge centre is kept, and with it the first rank's.
    ranked = variant_of(system).ranked
    gap = (
        ranked.skirmish_gap_in
        if ranked is not None and skirmishes(system, sheet) and models > 0 and not tight
        else 0.0
    )
    joined = tuple(Character(_rect_base(catalog.get(system, c))) for c in characters)
    return RankedFormation(
        _rect_base(sheet),
        models,
        max(1, min(files, max(models, 1))),
        gap_in=gap,
        height=_height(sheet),
        characters=joined,
    )


@lru_cache(maxsize=8192)
def _ranked_footprint(
    system: str,
    datasheet: str,
    models: int,
    files: int,
    placement: tuple[float, float, float],
    characters: tuple[str, ...] = (),
    tight: bool = False,
) -> Footprint:
    formation = ranked_formation(system, datasheet, models, files, characters, tight)
    return footprint(formation, Placement(*placement))


@lru_cache(maxsize=8192)
def _model_footprint(
    system: str,
    datasheet: str,
    positions: tuple[tuple[float, float], ...],
    characters: tuple[str, ...] = (),
) -> Footprint:
    """40k: every model on its own base; the positions of joined Leaders come last."""
    catalog = load_catalog()
    sheet = catalog.get(system, datasheet)
    bases = [base_of(sheet)] * (len(positions) - len(characters)) + [
        base_of(catalog.get(system, c)) for c in characters
    ]
    return models_footprint(
        [ModelPlacement(x, y, base) for (x, y), base in zip(positions, bases, strict=True)],
        _height(sheet),
    )


def footprint_of(state: GameState, unit: Unit) -> Footprint | None:
    """The unit's footprint on the table, or None when it is not on the table."""
    if unit.status != "on_table":
        return None
    if unit.placement is not None:
        return _ranked_footprint(
            state.system,
            unit.datasheet,
            unit.models,
            unit.files or 1,
            unit.placement,
            tuple(c.datasheet for c in unit.characters),
            TIGHTENED in unit.markers,
        )
    if unit.positions:
        joined = tuple(c.datasheet for c in unit.characters)
        return _model_footprint(state.system, unit.datasheet, unit.positions, joined)
    return None


def table_of(state: GameState) -> Table:
    """The geometry table of this state (built once per state object, kept in its
    `derived` cache)."""
    cached = state.derived.table
    if cached is not None:
        return cached
    fps = {}
    for unit in units_of(state).values():
        fp = footprint_of(state, unit)
        if fp is not None:
            fps[unit.id] = fp
    bf = GeoBattlefield(state.battlefield.width, state.battlefield.depth)
    table = Table(bf, terrain_of(state), fps)
    state.derived.table = table
    return table


def _carry_table(before: GameState, after: GameState) -> None:
    """The table (its obstacle index, the lines of sight it answered) is the next state's too
    when the fold changed no unit, no terrain and not the battlefield: a phase ending, CP
    spent, a shot that killed nothing. The units and terrain are compared as objects, which
    a fold replaces when it changes one (the game system is fixed before any unit exists)."""
    table = before.derived.table
    if (
        table is not None
        and after.derived.table is None
        and units_of(after) is units_of(before)
        and terrain_of(after) is terrain_of(before)
        and after.battlefield == before.battlefield
    ):
        after.derived.table = table


CARRIED_CACHES.append(_carry_table)


def deployment_zone(state: GameState, seat: int) -> shapely.Polygon:
    w, d = state.battlefield.width, state.battlefield.depth
    if seat == 1:
        return shapely.box(0, 0, w, DEPLOYMENT_DEPTH_IN)
    return shapely.box(0, d - DEPLOYMENT_DEPTH_IN, w, d)


@lru_cache(maxsize=64)
def _zones_geojson(width: float, depth: float) -> dict[str, Any]:
    """Both deployment zones as GeoJSON (shared: read, do not change)."""
    state = GameState(battlefield=Battlefield(width, depth))
    return {str(s): geo.to_geojson(deployment_zone(state, s)) for s in (1, 2)}


def grid_positions(
    sheet: Datasheet, models: int, x: float, y: float, facing: float
) -> tuple[tuple[float, float], ...]:
    """A 40k unit set down around (x, y): rows of five, bases 0.5 in apart, facing `facing`."""
    base = base_of(sheet)
    step_u, step_v = base.width + 0.5, base.depth + 0.5
    per_row = min(5, models)
    rows = math.ceil(models / per_row)
    fx, fy = forward_vector(facing)
    rx, ry = fy, -fx
    out = []
    for i in range(models):
        row, col = divmod(i, per_row)
        in_row = min(per_row, models - row * per_row)
        u = (col - (in_row - 1) / 2) * step_u
        v = ((rows - 1) / 2 - row) * step_v
        out.append((round(x + u * rx + v * fx, 4), round(y + u * ry + v * fy, 4)))
    return tuple(out)


def unit_of(state: GameState, unit_id: str, seat: int | None = None) -> Unit:
    unit = units_of(state).get(unit_id)
    if unit is None:
        raise RuleError(NOT_FOUND, f"no unit {unit_id!r} in this game", unit=unit_id)
    if seat is not None and unit.owner != seat:
        raise RuleError(
            FORBIDDEN,
            f"{display_name(state, unit_id)} belongs to player {unit.owner}",
            unit=unit_id,
        )
    return unit


def coherency_faults(
    state: GameState, unit: Unit, incoherent: Sequence[int], count: int
) -> tuple[str, list[str]]:
    """The models (indices `incoherent` of `count`) a move or set-up leaves out of Unit
    Coherency, in words ("Beast Snagga Boy #7 is not within 2 in of two other models") and by
    name (the system's `model_names`)."""
    names = variant_of(state.system).model_names(state, unit)
    named = [names[i] if i < len(names) else f"model {i + 1}" for i in incoherent]
    fault = ("is not within 2 in of two other models" if count >= COHERENCY_LARGE_UNIT
             else "is more than 2 in from any other model")
    return "; ".join(f"{n} {fault}" for n in named), named


def illegal_move_error(
    state: GameState, result: movement.MoveResult, what: str, unit: Unit | None = None,
    **details: Any,
) -> RuleError:
    """`illegal_move` naming the rule and, in words, the obstacle (its id stays in `obstacle`);
    a Unit Coherency refusal of `unit`'s move names the models at fault (`incoherent`: their
    indices, `incoherent_models`: their names)."""
    rule = str(result.rule) if result.rule else "Illegal Move"
    where = in_the_way(state, result.obstacle)
    if result.rule is Rule.UNIT_COHERENCY and result.incoherent and unit is not None:
        count = len(result.models) or len(unit.positions)
        words, named = coherency_faults(state, unit, result.incoherent, count)
        where = f": {words}"
        details = {"incoherent": list(result.incoherent), **details,
                   "incoherent_models": named}
    return RuleError(
        ILLEGAL_MOVE,
        f"{what}: {rule}{where}",
        rule=rule,
        obstacle=result.obstacle,
        obstacle_name=display_name(state, result.obstacle) if result.obstacle else None,
        distance=round(result.distance, 3),
        swept=geo.to_geojson(result.swept),
        **details,
    )


# --- what the client sees -----------------------------------------------------------------------


def unit_view(state: GameState, unit: Unit) -> dict[str, Any]:
    sheet = datasheet_of(state, unit)
    out = unit.to_json()
    fp = footprint_of(state, unit)
    out["footprint"] = None if fp is None else fp.to_geojson()
    out["rules"] = [r.printed for r in sheet.special_rules]
    # The marks come from the handlers the code declares (server/rules/automation.py).
    out["not_automated"] = automation.not_automated(state.system, unit.datasheet)
    out["partly_automated"] = automation.partly_automated(state.system, unit.datasheet)
    out["moved"] = dict(phase_moves(state).get(unit.id, {}))
    out["engaged_with"] = state.charges.engaged.get(unit.id)
    return out


@register_projector
def _project_units(state: GameState, viewer: int | None, out: dict[str, Any]) -> None:
    if not state.system:
        return
    labels = state.terrain_labels
    out["terrain"] = [
        {
            "id": t.id,
            "kind": str(t.kind),
            "height": t.height.name.lower(),
            "cover": t.cover_level.label,
            "points": [list(p) for p in t.points],
            "label": labels.get(t.id, ""),
        }
        for t in terrain_of(state)
    ]
    out["units"] = {u.id: unit_view(state, u) for u in units_of(state).values()}
    out["armies_submitted"] = list(state.muster.armies)
    out["deploying"] = state.battle.deploying if stage(state) == DEPLOYMENT else None
    out["deployment_zones"] = _zones_geojson(state.battlefield.width, state.battlefield.depth)
    out["stage"] = stage(state)


__all__ = ["BATTLE", "SETUP", "Unit", "footprint_of", "table_of", "units_of"]
