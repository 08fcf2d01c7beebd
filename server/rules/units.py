"""Units on the table: terrain, armies from datasheets, deployment, rules-checked movement and
charges. Every spatial judgement is the geometry core's (`server.geometry`); this module only
decides which judgement applies, with which allowance, in which phase.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Any, Literal

import shapely
from pydantic import BaseModel, ConfigDict, Field

from server import geometry as geo
from server.data import Datasheet, load_catalog, validate_army
from server.dice import DiceStream
from server.geometry import movement
from server.geometry.arcs import arc_of_unit
from server.geometry.bases import OvalBase, RectBase, RoundBase
from server.geometry.footprint import Footprint, footprint, models_footprint
from server.geometry.formation import SKIRMISH_GAPS_IN, ModelPlacement, RankedFormation
from server.geometry.frame import Placement, forward_vector
from server.geometry.kinds import Arc, Height, TerrainKind
from server.geometry.los import line_of_sight
from server.geometry.measure import distance
from server.geometry.table import Battlefield as GeoBattlefield
from server.geometry.table import Table, Terrain
from server.rules.battle import (
    BATTLE,
    DEPLOYMENT,
    SETUP,
    battle_started_event,
    other,
    require_phase,
    require_stage,
    stage,
)
from server.rules.core import (
    BAD_REQUEST,
    FORBIDDEN,
    ILLEGAL_MOVE,
    NOT_FOUND,
    OUT_OF_PHASE,
    ActionModel,
    Event,
    GameState,
    RuleError,
    register_action,
    register_folder,
    register_projector,
)
from server.rules.systems import find_system

Finite = Annotated[float, Field(allow_inf_nan=False)]
DEPLOYMENT_DEPTH_IN = 12.0
"""Deployment zones: 12 in deep along each player's own long edge (all three systems here)."""
RESERVE_RULES = {
    "t9a": ("Ambush",),
    "whfb8": ("Ambushers", "Entombed Beneath the Sands"),
    "wh40k10": ("Deep Strike",),
}
MOVE_PHASE = {"t9a": ("Movement",), "whfb8": ("Movement",), "wh40k10": ("Movement",)}
MAX_40K_CHARGE_DECLARE_IN = 12.0


# --- the unit, as state --------------------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """A unit in the game. Ranked units stand by `placement`; 40k units by `positions`."""

    id: str
    owner: int
    datasheet: str
    name: str
    models: int
    files: int | None
    status: str = "undeployed"  # undeployed | reserve | ambush | on_table | destroyed
    placement: tuple[float, float, float] | None = None
    positions: tuple[tuple[float, float], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "owner": self.owner,
            "datasheet": self.datasheet,
            "name": self.name,
            "models": self.models,
            "files": self.files,
            "status": self.status,
            "placement": None
            if self.placement is None
            else dict(zip(("x", "y", "facing"), self.placement, strict=True)),
            "positions": [list(p) for p in self.positions],
        }


def units_of(state: GameState) -> Mapping[str, Unit]:
    units: Mapping[str, Unit] = state.extra.get("units", {})
    return units


def terrain_of(state: GameState) -> tuple[Terrain, ...]:
    terrain: tuple[Terrain, ...] = state.extra.get("terrain", ())
    return terrain


def _set(state: GameState, **values: Any) -> GameState:
    return dataclasses.replace(state, extra={**state.extra, **values})


def _with_unit(state: GameState, unit: Unit) -> GameState:
    return _set(state, units={**units_of(state), unit.id: unit})


def datasheet_of(state: GameState, unit: Unit) -> Datasheet:
    return load_catalog().get(state.system, unit.datasheet)


# --- geometry of a unit ------------------------------------------------------------------------


def _base(sheet: Datasheet) -> RectBase | RoundBase | OvalBase:
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
    return system in ("t9a", "whfb8")


def skirmishes(system: str, sheet: Datasheet) -> bool:
    return sheet.has_rule("Skirmisher") or sheet.has_rule("Skirmishers")


@lru_cache(maxsize=4096)
def _formation(system: str, datasheet: str, models: int, files: int) -> RankedFormation:
    sheet = load_catalog().get(system, datasheet)
    base = _base(sheet)
    if not isinstance(base, RectBase):
        base = RectBase(base.width * 25.4, base.depth * 25.4)
    gap = SKIRMISH_GAPS_IN.get(system, 0.0) if skirmishes(system, sheet) else 0.0
    return RankedFormation(
        base, models, max(1, min(files, models)), gap_in=gap, height=_height(sheet)
    )


@lru_cache(maxsize=8192)
def _ranked_footprint(
    system: str, datasheet: str, models: int, files: int, placement: tuple[float, float, float]
) -> Footprint:
    return footprint(_formation(system, datasheet, models, files), Placement(*placement))


@lru_cache(maxsize=8192)
def _model_footprint(
    system: str, datasheet: str, positions: tuple[tuple[float, float], ...]
) -> Footprint:
    sheet = load_catalog().get(system, datasheet)
    return models_footprint(
        [ModelPlacement(x, y, _base(sheet)) for x, y in positions], _height(sheet)
    )


def footprint_of(state: GameState, unit: Unit) -> Footprint | None:
    """The unit's footprint on the table, or None when it is not on the table."""
    if unit.status != "on_table":
        return None
    if unit.placement is not None:
        return _ranked_footprint(
            state.system, unit.datasheet, unit.models, unit.files or 1, unit.placement
        )
    if unit.positions:
        return _model_footprint(state.system, unit.datasheet, unit.positions)
    return None


def table_of(state: GameState) -> Table:
    """The geometry table of this state (built once per state object)."""
    cached = state.__dict__.get("_table")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    fps = {}
    for unit in units_of(state).values():
        fp = footprint_of(state, unit)
        if fp is not None:
            fps[unit.id] = fp
    bf = GeoBattlefield(state.battlefield.width, state.battlefield.depth)
    table = Table(bf, terrain_of(state), fps)
    object.__setattr__(state, "_table", table)
    return table


def deployment_zone(state: GameState, seat: int) -> shapely.Polygon:
    w, d = state.battlefield.width, state.battlefield.depth
    if seat == 1:
        return shapely.box(0, 0, w, DEPLOYMENT_DEPTH_IN)
    return shapely.box(0, d - DEPLOYMENT_DEPTH_IN, w, d)


def grid_positions(
    sheet: Datasheet, models: int, x: float, y: float, facing: float
) -> tuple[tuple[float, float], ...]:
    """A 40k unit set down around (x, y): rows of five, bases 0.5 in apart, facing `facing`."""
    base = _base(sheet)
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


def _unit(state: GameState, unit_id: str, seat: int | None = None) -> Unit:
    unit = units_of(state).get(unit_id)
    if unit is None:
        raise RuleError(NOT_FOUND, f"no unit {unit_id!r} in this game", unit=unit_id)
    if seat is not None and unit.owner != seat:
        raise RuleError(
            FORBIDDEN, f"{unit.name} ({unit_id}) belongs to player {unit.owner}", unit=unit_id
        )
    return unit


def _illegal(result: movement.MoveResult, what: str, **details: Any) -> RuleError:
    rule = str(result.rule) if result.rule else "Illegal Move"
    where = f" ({result.obstacle} is in the way)" if result.obstacle else ""
    return RuleError(
        ILLEGAL_MOVE,
        f"{what}: {rule}{where}",
        rule=rule,
        obstacle=result.obstacle,
        distance=round(result.distance, 3),
        swept=geo.to_geojson(result.swept),
        **details,
    )


# --- setup: terrain and armies -------------------------------------------------------------------


class PlaceTerrain(ActionModel):
    type: Literal["place_terrain"]
    kind: TerrainKind
    points: list[tuple[Finite, Finite]] = Field(min_length=3, max_length=64)
    height: Literal["flat", "standard", "large", "gigantic", "infinite"] = "infinite"
    label: str = Field(default="", max_length=80)


@register_action("place_terrain", PlaceTerrain)
def place_terrain(
    state: GameState, seat: int, action: PlaceTerrain, dice: DiceStream
) -> list[Event]:
    """Either player places a terrain feature before the armies are set down: it must lie on
    the table and not overlap another feature."""
    require_stage(state, SETUP)
    terrain_id = state.new_id("ter")
    try:
        piece = Terrain(
            terrain_id, tuple(action.points), action.kind, Height[action.height.upper()]
        )
        polygon = piece.polygon
    except ValueError as exc:
        raise RuleError(BAD_REQUEST, f"terrain outline: {exc}", field="points") from None
    if not polygon.is_valid or polygon.area <= 0:
        raise RuleError(
            BAD_REQUEST, "terrain outline must be a simple polygon with an area", field="points"
        )
    if not GeoBattlefield(state.battlefield.width, state.battlefield.depth).contains_bounds(
        polygon.bounds
    ):
        raise RuleError(
            ILLEGAL_MOVE, "terrain must lie on the battlefield", rule="Battlefield Edge"
        )
    for other_piece in terrain_of(state):
        if other_piece.polygon.intersection(polygon).area > 1e-9:
            raise RuleError(
                ILLEGAL_MOVE,
                f"terrain overlaps {other_piece.id}",
                rule="Terrain Overlap",
                obstacle=other_piece.id,
            )
    return [
        Event(
            "terrain_placed",
            {
                "id": terrain_id,
                "kind": str(action.kind),
                "points": [list(p) for p in action.points],
                "height": action.height,
                "label": action.label,
            },
            actor=seat,
        )
    ]


@register_folder("terrain_placed")
def _fold_terrain_placed(state: GameState, event: Event) -> GameState:
    p = event.payload
    piece = Terrain(
        p["id"],
        tuple(tuple(pt) for pt in p["points"]),
        TerrainKind(p["kind"]),
        Height[str(p["height"]).upper()],
    )
    state = _set(
        state,
        terrain=(*terrain_of(state), piece),
        terrain_labels={**state.extra.get("terrain_labels", {}), p["id"]: p["label"]},
    )
    return dataclasses.replace(state, next_id=state.next_id + 1)


PRESETS: dict[str, list[dict[str, Any]]] = {
    "open-field": [],
    "village": [
        {
            "kind": "impassable",
            "points": [(30, 20), (36, 20), (36, 26), (30, 26)],
            "label": "Farmhouse",
        },
        {
            "kind": "cover",
            "points": [(10, 22), (18, 22), (18, 27), (10, 27)],
            "height": "standard",
            "label": "Orchard",
        },
        {"kind": "blocks_los", "points": [(50, 18), (58, 20), (56, 28), (48, 26)], "label": "Hill"},
        {
            "kind": "dangerous",
            "points": [(40, 34), (46, 34), (46, 38), (40, 38)],
            "height": "flat",
            "label": "Marsh",
        },
    ],
}


class UsePreset(ActionModel):
    type: Literal["use_preset_table"]
    preset: Literal["open-field", "village"]


@register_action("use_preset_table", UsePreset)
def use_preset(state: GameState, seat: int, action: UsePreset, dice: DiceStream) -> list[Event]:
    """Lay out one of the preset tables (scaled to this battlefield)."""
    require_stage(state, SETUP)
    if terrain_of(state):
        raise RuleError(ILLEGAL_MOVE, "the table already has terrain", rule="Preset Table")
    sx, sy = state.battlefield.width / 72.0, state.battlefield.depth / 48.0
    events: list[Event] = []
    for i, piece in enumerate(PRESETS[action.preset]):
        events.append(
            Event(
                "terrain_placed",
                {
                    "id": f"ter{state.next_id + i}",
                    "kind": piece["kind"],
                    "points": [[round(x * sx, 3), round(y * sy, 3)] for x, y in piece["points"]],
                    "height": piece.get("height", "infinite"),
                    "label": piece["label"],
                },
                actor=seat,
            )
        )
    return events


class ArmyUnit(BaseModel):
    model_config = ConfigDict(extra="forbid")
    datasheet: str = Field(min_length=1, max_length=80)
    models: int = Field(ge=1, le=200)
    files: int | None = Field(default=None, ge=1, le=50)


class SubmitArmy(ActionModel):
    type: Literal["submit_army"]
    units: list[ArmyUnit] = Field(min_length=1, max_length=40)


@register_action("submit_army", SubmitArmy)
def submit_army(state: GameState, seat: int, action: SubmitArmy, dice: DiceStream) -> list[Event]:
    """A player's army list, validated against the datasheets; when both are in, deployment
    begins with player 1."""
    require_stage(state, SETUP)
    if seat in state.extra.get("armies", ()):
        raise RuleError(OUT_OF_PHASE, "you have already submitted your army")
    entries = [u.model_dump(exclude_none=True) for u in action.units]
    errors = validate_army(state.system, entries)
    if errors:
        first = errors[0]
        raise RuleError(
            BAD_REQUEST,
            f"army entry {first.entry}: {first.message}",
            errors=[e.model_dump(mode="json") for e in errors],
        )
    catalog = load_catalog()
    units = []
    for i, entry in enumerate(action.units):
        sheet = catalog.get(state.system, entry.datasheet)
        files = None
        if is_ranked(state.system):
            files = entry.files or sheet.default_files or min(5, entry.models)
        units.append(
            Unit(f"u{state.next_id + i}", seat, sheet.id, sheet.name, entry.models, files).to_json()
        )
    events = [Event("army_submitted", {"seat": seat, "units": units}, actor=seat)]
    if other(seat) in state.extra.get("armies", ()):
        events.append(Event("deployment_started", {"deploying": 1}))
    return events


@register_folder("army_submitted")
def _fold_army_submitted(state: GameState, event: Event) -> GameState:
    units = dict(units_of(state))
    for raw in event.payload["units"]:
        units[raw["id"]] = Unit(
            raw["id"], raw["owner"], raw["datasheet"], raw["name"], raw["models"], raw["files"]
        )
    state = _set(state, units=units, armies=(*state.extra.get("armies", ()), event.payload["seat"]))
    return dataclasses.replace(state, next_id=state.next_id + len(event.payload["units"]))


@register_folder("deployment_started")
def _fold_deployment_started(state: GameState, event: Event) -> GameState:
    return _set(state, stage=DEPLOYMENT, deploying=event.payload["deploying"])


# --- deployment ---------------------------------------------------------------------------------


def _after_deploying(state: GameState, seat: int, unit_id: str) -> list[Event]:
    """Whose turn it is to deploy next, or the start of the battle when nobody has units left."""
    left = {
        s: [
            u
            for u in units_of(state).values()
            if u.owner == s and u.status == "undeployed" and u.id != unit_id
        ]
        for s in (1, 2)
    }
    if left[other(seat)]:
        return [Event("deploying", {"deploying": other(seat)})]
    if left[seat]:
        return [Event("deploying", {"deploying": seat})]
    return [battle_started_event(state)]


def _require_deploying(state: GameState, seat: int, unit: Unit) -> None:
    require_stage(state, DEPLOYMENT)
    if state.extra.get("deploying") != seat:
        raise RuleError(
            OUT_OF_PHASE,
            f"player {state.extra.get('deploying')} deploys now",
            deploying=state.extra.get("deploying"),
        )
    if unit.status != "undeployed":
        raise RuleError(OUT_OF_PHASE, f"{unit.name} is already {unit.status}")


class DeployUnit(ActionModel):
    type: Literal["deploy_unit"]
    unit: str
    x: Finite
    y: Finite
    facing: Finite | None = None
    files: int | None = Field(default=None, ge=1, le=50)


def deployed_unit(
    state: GameState,
    seat: int,
    unit: Unit,
    x: float,
    y: float,
    facing: float | None,
    files: int | None,
) -> Unit:
    facing = (0.0 if seat == 1 else 180.0) if facing is None else facing % 360.0
    if is_ranked(state.system):
        return dataclasses.replace(
            unit, status="on_table", placement=(x, y, facing), files=files or unit.files
        )
    sheet = datasheet_of(state, unit)
    return dataclasses.replace(
        unit, status="on_table", positions=grid_positions(sheet, unit.models, x, y, facing)
    )


@register_action("deploy_unit", DeployUnit)
def deploy_unit(state: GameState, seat: int, action: DeployUnit, dice: DiceStream) -> list[Event]:
    """Set a unit down wholly inside your deployment zone, keeping the unit spacing. Ranked
    units are placed by the centre of their front edge; 40k units around the point."""
    unit = _unit(state, action.unit, seat)
    _require_deploying(state, seat, unit)
    placed = deployed_unit(state, seat, unit, action.x, action.y, action.facing, action.files)
    fp = footprint_of(state, placed)
    assert fp is not None
    result = movement.place(table_of(state), unit.id, fp)
    if not result.legal:
        raise _illegal(result, f"{unit.name} cannot deploy there")
    zone = deployment_zone(state, seat)
    if not zone.buffer(1e-6).covers(fp.boundary):
        raise RuleError(
            ILLEGAL_MOVE,
            f"{unit.name} must deploy wholly inside your deployment "
            f"zone ({DEPLOYMENT_DEPTH_IN:g} in from your table edge)",
            rule="Deployment Zone",
            obstacle=None,
        )
    return [
        Event("unit_deployed", {"unit": placed.to_json()}, actor=seat),
        *_after_deploying(state, seat, unit.id),
    ]


class DeclareReserve(ActionModel):
    type: Literal["declare_reserve"]
    unit: str
    mode: Literal["ambush", "reserve"] = "ambush"


@register_action("declare_reserve", DeclareReserve)
def declare_reserve(
    state: GameState, seat: int, action: DeclareReserve, dice: DiceStream
) -> list[Event]:
    """Keep a unit off the table (Ambush, Ambushers, Entombed); its arrival follows its rule."""
    unit = _unit(state, action.unit, seat)
    _require_deploying(state, seat, unit)
    sheet = datasheet_of(state, unit)
    allowed = [r for r in RESERVE_RULES.get(state.system, ()) if sheet.has_rule(r)]
    if not allowed:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{unit.name} has no rule that lets it stay off the table",
            rule="Deployment",
            needs=list(RESERVE_RULES.get(state.system, ())),
        )
    placed = dataclasses.replace(unit, status=action.mode)
    return [
        Event("unit_deployed", {"unit": placed.to_json(), "rule": allowed[0]}, actor=seat),
        *_after_deploying(state, seat, unit.id),
    ]


@register_folder("unit_deployed")
def _fold_unit_deployed(state: GameState, event: Event) -> GameState:
    return _with_unit(state, _unit_from_json(event.payload["unit"]))


def _unit_from_json(raw: Mapping[str, Any]) -> Unit:
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
        tuple(tuple(p) for p in raw.get("positions", ())),  # type: ignore[misc]
    )


@register_folder("deploying")
def _fold_deploying(state: GameState, event: Event) -> GameState:
    return _set(state, deploying=event.payload["deploying"])


# --- movement -----------------------------------------------------------------------------------


def allowance(state: GameState, unit: Unit, mode: str) -> float:
    """How far the unit may move in `mode` (advance / march), from its profile."""
    profile = datasheet_of(state, unit).profile
    if state.system == "t9a":
        g = profile.global_characteristics  # type: ignore[union-attr]
        return float(g.march_rate if mode == "march" else g.advance_rate)
    if state.system == "whfb8":
        m = profile.models[0].M  # type: ignore[union-attr]
        rate = float(m) if isinstance(m, int) else 0.0
        return rate * 2 if mode == "march" else rate
    return float(profile.models[0].M)  # type: ignore[union-attr]


def _moves(state: GameState) -> Mapping[str, Mapping[str, Any]]:
    moves: Mapping[str, Mapping[str, Any]] = state.extra.get("phase_moves", {})
    return moves


class MoveUnit(ActionModel):
    type: Literal["move_unit"]
    unit: str
    manoeuvre: Literal["forward", "backward", "sideways", "wheel", "pivot", "reform"]
    mode: Literal["advance", "march"] = "advance"
    distance: Finite = 0.0
    degrees: Finite = 0.0
    files: int | None = Field(default=None, ge=1, le=50)
    facing: Finite | None = None


def check_unit_move(
    state: GameState, seat: int, action: MoveUnit
) -> tuple[Unit, movement.MoveResult, dict[str, Any]]:
    """The geometry verdict on one manoeuvre of a ranked unit, with the allowance applied.

    Several manoeuvres make one Advance or March Move; their distances add up against the
    allowance. Backward and sideways moves cost double; a March allows only forward moves and
    wheels; a Reform is the whole move (Light Troops: up to twice the allowance)."""
    require_phase(state, seat, MOVE_PHASE[state.system], "moving")
    unit = _unit(state, action.unit, seat)
    if unit.status != "on_table":
        raise RuleError(OUT_OF_PHASE, f"{unit.name} is not on the table")
    if not is_ranked(state.system):
        raise RuleError(BAD_REQUEST, "40k units move model by model: use move_models")
    done = _moves(state).get(unit.id, {})
    if done.get("arrived") or done.get("charged"):
        raise RuleError(
            ILLEGAL_MOVE, f"{unit.name} cannot move again this phase", rule="One Move per Phase"
        )
    mode = str(done.get("mode", action.mode))
    if done and mode != action.mode:
        raise RuleError(
            ILLEGAL_MOVE, f"{unit.name} is already making a {mode} move", rule="Move Manoeuvres"
        )
    if done.get("reformed"):
        raise RuleError(
            ILLEGAL_MOVE, f"{unit.name} has reformed; that was its whole move", rule="Reform"
        )
    sheet = datasheet_of(state, unit)
    light = sheet.has_rule("Light Troops")
    limit = allowance(state, unit, mode)
    used = float(done.get("used", 0.0))
    table = table_of(state)
    cost = 1.0
    if action.manoeuvre == "forward":
        result = movement.move_straight(table, unit.id, action.distance)
    elif action.manoeuvre == "backward":
        result = movement.move_straight(table, unit.id, -abs(action.distance))
        cost = 1.0 if light else 2.0
    elif action.manoeuvre == "sideways":
        result = movement.move_straight(table, unit.id, 0.0, action.distance)
        cost = 1.0 if light else 2.0
    elif action.manoeuvre == "wheel":
        result = movement.wheel(table, unit.id, action.degrees)
    elif action.manoeuvre == "pivot":
        result = movement.pivot(table, unit.id, action.degrees)
    else:
        if used:
            raise RuleError(ILLEGAL_MOVE, "a Reform is the whole move", rule="Reform")
        start = table.units[unit.id]
        assert start.placement is not None
        result = movement.reform(
            table,
            unit.id,
            action.files or unit.files or 1,
            start.placement.facing if action.facing is None else action.facing,
        )
        limit = limit * (2.0 if light else 0.5) if state.system == "t9a" else limit
    if mode == "march" and action.manoeuvre in ("backward", "sideways", "reform"):
        raise RuleError(
            ILLEGAL_MOVE, f"a March Move allows no {action.manoeuvre} manoeuvre", rule="March Move"
        )
    spent = used + result.distance * cost
    info = {"used": round(spent, 4), "allowance": limit, "mode": mode}
    if result.legal and spent > limit + 1e-9:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{unit.name} would move {spent:.2f} in of its {limit:g} in {mode} allowance",
            rule="Move Distance",
            obstacle=None,
            distance=round(spent, 3),
            allowance=limit,
            swept=geo.to_geojson(result.swept),
        )
    return unit, result, info


@register_action("move_unit", MoveUnit)
def move_unit(state: GameState, seat: int, action: MoveUnit, dice: DiceStream) -> list[Event]:
    """One manoeuvre of a ranked unit in the Movement phase, checked by the geometry core."""
    unit, result, info = check_unit_move(state, seat, action)
    if not result.legal:
        raise _illegal(result, f"{unit.name} cannot {action.manoeuvre} there")
    end = result.footprint
    assert end.placement is not None
    moved = dataclasses.replace(
        unit,
        placement=(
            round(end.placement.x, 4),
            round(end.placement.y, 4),
            round(end.placement.facing % 360.0, 4),
        ),
        files=end.formation.files if end.formation is not None else unit.files,
    )
    return [
        Event(
            "unit_moved",
            {
                "unit": moved.to_json(),
                "manoeuvre": action.manoeuvre,
                "distance": round(result.distance, 4),
                "swept": geo.to_geojson(result.swept),
                "reformed": action.manoeuvre == "reform",
                **info,
            },
            actor=seat,
        )
    ]


class MoveModels(ActionModel):
    type: Literal["move_models"]
    unit: str
    positions: list[tuple[Finite, Finite]] = Field(min_length=1, max_length=200)
    advance: bool = False


@register_action("move_models", MoveModels, systems=["wh40k10"])
def move_models(state: GameState, seat: int, action: MoveModels, dice: DiceStream) -> list[Event]:
    """40k: move each model up to its Move (plus the Advance roll), ending in coherency and
    out of Engagement Range of enemies."""
    require_phase(state, seat, MOVE_PHASE[state.system], "moving")
    unit = _unit(state, action.unit, seat)
    if unit.status != "on_table":
        raise RuleError(OUT_OF_PHASE, f"{unit.name} is not on the table")
    if _moves(state).get(unit.id):
        raise RuleError(
            ILLEGAL_MOVE, f"{unit.name} has already moved this phase", rule="One Move per Phase"
        )
    if len(action.positions) != len(unit.positions):
        raise RuleError(
            BAD_REQUEST,
            f"{unit.name} has {len(unit.positions)} models; give one position for each",
            field="positions",
        )
    sheet = datasheet_of(state, unit)
    base = _base(sheet)
    limit = allowance(state, unit, "advance")
    events: list[Event] = []
    if action.advance:
        roll = dice.roll("D6")
        limit += roll.total or 0
        events.append(
            Event(
                "dice_rolled",
                {"reason": f"Advance: {unit.name}", "roll": roll.to_payload()},
                actor=seat,
            )
        )
    result = movement.move_models(
        table_of(state),
        unit.id,
        [ModelPlacement(x, y, base) for x, y in unit.positions],
        [ModelPlacement(x, y, base) for x, y in action.positions],
        max_distance=limit,
        ignore=[u.id for u in units_of(state).values() if u.owner == seat],
    )
    if not result.legal:
        raise _illegal(
            result,
            f"{unit.name} cannot move there",
            allowance=limit,
            incoherent=list(result.incoherent),
        )
    moved = dataclasses.replace(
        unit, positions=tuple((round(x, 4), round(y, 4)) for x, y in action.positions)
    )
    events.append(
        Event(
            "unit_moved",
            {
                "unit": moved.to_json(),
                "manoeuvre": "models",
                "distance": round(result.distance, 4),
                "swept": geo.to_geojson(result.swept),
                "used": round(result.distance, 4),
                "allowance": limit,
                "mode": "advance" if action.advance else "normal",
            },
            actor=seat,
        )
    )
    return events


@register_folder("unit_moved")
def _fold_unit_moved(state: GameState, event: Event) -> GameState:
    p = event.payload
    unit = _unit_from_json(p["unit"])
    record = {
        "used": p.get("used", p.get("distance", 0.0)),
        "mode": p.get("mode", "advance"),
        "reformed": bool(p.get("reformed")),
    }
    state = _with_unit(state, unit)
    return _set(state, phase_moves={**_moves(state), unit.id: record})


# --- charges ------------------------------------------------------------------------------------


class DeclareCharge(ActionModel):
    type: Literal["declare_charge"]
    unit: str
    target: str


def charge_roll_expression(state: GameState, sheet: Datasheet) -> tuple[str, int]:
    """The dice of a charge and what is added to them: t9a 2D6 + Advance Rate (FACTS.md
    decision), whfb8 M + 2D6, 40k 2D6; Swiftstride (t9a) rolls Maximised (3D6, keep 2)."""
    swift = sheet.has_rule("Swiftstride")
    expression = "2D6 maximised x1" if swift and state.system != "wh40k10" else "2D6"
    bonus = 0
    if state.system == "t9a":
        bonus = sheet.profile.global_characteristics.advance_rate  # type: ignore[union-attr]
    elif state.system == "whfb8":
        m = sheet.profile.models[0].M  # type: ignore[union-attr]
        bonus = m if isinstance(m, int) else 0
    return expression, bonus


def contact_placement(charger: Footprint, target: Footprint) -> tuple[Placement, Arc]:
    """Where a ranked charger ends: its front edge flush against the facing of the target it
    charges (the arc it stands in), centred on the point of that facing nearest to it."""
    assert target.corners is not None and target.placement is not None
    arcs = arc_of_unit(target, charger)
    arc = (
        next(a for a in (Arc.FRONT, Arc.LEFT, Arc.RIGHT, Arc.REAR) if a in arcs)
        if arcs
        else Arc.FRONT
    )
    c = target.corners
    side = {
        Arc.FRONT: (c.front_left, c.front_right),
        Arc.REAR: (c.rear_right, c.rear_left),
        Arc.LEFT: (c.rear_left, c.front_left),
        Arc.RIGHT: (c.front_right, c.rear_right),
    }[arc]
    facing = {Arc.FRONT: 180.0, Arc.REAR: 0.0, Arc.LEFT: -90.0, Arc.RIGHT: 90.0}[arc]
    line = shapely.LineString(side)
    half = min(charger.width / 2.0, line.length / 2.0)
    along = line.project(shapely.Point(charger.front_centre))
    along = (
        min(max(along, half), line.length - half) if line.length >= 2 * half else line.length / 2.0
    )
    point = line.interpolate(along)
    return Placement(point.x, point.y, (target.placement.facing + facing) % 360.0), arc


@register_action("declare_charge", DeclareCharge)
def declare_charge(
    state: GameState, seat: int, action: DeclareCharge, dice: DiceStream
) -> list[Event]:
    """Declare a charge against an enemy in the charger's front arc and line of sight; the
    server rolls the charge range; on enough, the charger moves into base contact aligned to
    the target's facing, else the charge fails and the unit stays."""
    require_phase(state, seat, find_system(state.system).charge_phases, "charging")
    unit = _unit(state, action.unit, seat)
    target = _unit(state, action.target)
    if target.owner == seat:
        raise RuleError(ILLEGAL_MOVE, "a charge targets an enemy unit", rule="Charge")
    if unit.status != "on_table" or target.status != "on_table":
        raise RuleError(ILLEGAL_MOVE, "both units must be on the table", rule="Charge")
    if _moves(state).get(unit.id):
        raise RuleError(
            ILLEGAL_MOVE, f"{unit.name} has already moved or charged this phase", rule="Charge"
        )
    table = table_of(state)
    start, aim = table.units[unit.id], table.units[target.id]
    gap = distance(start, aim).distance
    sheet = datasheet_of(state, unit)
    if is_ranked(state.system):
        sight = line_of_sight(table, unit.id, target.id)
        if not sight.visible:
            raise RuleError(
                ILLEGAL_MOVE,
                f"{target.name} is not in {unit.name}'s front arc and line of sight",
                rule="Charge: Line of Sight",
                obstacle=(sight.blockers[0] if sight.blockers else None),
            )
    elif gap > MAX_40K_CHARGE_DECLARE_IN:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{target.name} is {gap:.1f} in away; charges are "
            f"declared within {MAX_40K_CHARGE_DECLARE_IN:g} in",
            rule="Charge",
        )
    expression, bonus = charge_roll_expression(state, sheet)
    roll = dice.roll(expression)
    reach = (roll.total or 0) + bonus
    payload: dict[str, Any] = {
        "unit": unit.id,
        "target": target.id,
        "distance": round(gap, 3),
        "roll": roll.to_payload(),
        "bonus": bonus,
        "range": reach,
        "rule": "Swiftstride" if "maximised" in expression else None,
    }
    if reach + 1e-9 < gap:
        return [
            Event(
                "charge_failed",
                {**payload, "reason": f"rolled {reach}, needed {gap:.1f}"},
                actor=seat,
            )
        ]
    if is_ranked(state.system):
        placement, arc = contact_placement(start, aim)
        end = footprint(start.formation, placement)  # type: ignore[arg-type]
        swept = movement.sweep_straight(start, end)
        rule, obstacle = movement.check_area(
            table, unit.id, end.boundary, swept, origin=start.boundary, charging=[target.id]
        )
        if rule is not None:
            return [
                Event(
                    "charge_failed",
                    {
                        **payload,
                        "reason": f"{rule}{f' ({obstacle} is in the way)' if obstacle else ''}",
                        "blocked_by": obstacle,
                    },
                    actor=seat,
                )
            ]
        moved = dataclasses.replace(
            unit,
            placement=(round(placement.x, 4), round(placement.y, 4), round(placement.facing, 4)),
        )
        payload["arc"] = str(arc)
        payload["swept"] = geo.to_geojson(swept)
    else:
        near = distance(start, aim)
        (ax, ay), (bx, by) = near.from_point, near.to_point
        length = math.hypot(bx - ax, by - ay) or 1.0
        shift = max(0.0, length - 0.01)
        dx, dy = (bx - ax) / length * shift, (by - ay) / length * shift
        moved = dataclasses.replace(
            unit, positions=tuple((round(x + dx, 4), round(y + dy, 4)) for x, y in unit.positions)
        )
    return [Event("charge_succeeded", {**payload, "unit_after": moved.to_json()}, actor=seat)]


@register_folder("charge_succeeded")
def _fold_charge_succeeded(state: GameState, event: Event) -> GameState:
    p = event.payload
    state = _with_unit(state, _unit_from_json(p["unit_after"]))
    engaged = {**state.extra.get("engaged", {}), p["unit"]: p["target"]}
    return _set(
        state, engaged=engaged, phase_moves={**_moves(state), p["unit"]: {"charged": p["target"]}}
    )


@register_folder("charge_failed")
def _fold_charge_failed(state: GameState, event: Event) -> GameState:
    p = event.payload
    return _set(state, phase_moves={**_moves(state), p["unit"]: {"charged": None, "failed": True}})


# --- what the client sees -----------------------------------------------------------------------


def unit_view(state: GameState, unit: Unit) -> dict[str, Any]:
    sheet = datasheet_of(state, unit)
    out = unit.to_json()
    fp = footprint_of(state, unit)
    out["footprint"] = None if fp is None else fp.to_geojson()
    out["rules"] = [r.printed for r in sheet.special_rules]
    out["not_automated"] = load_catalog().not_automated(state.system, unit.datasheet)
    out["moved"] = dict(_moves(state).get(unit.id, {}))
    out["engaged_with"] = state.extra.get("engaged", {}).get(unit.id)
    return out


@register_projector
def _project_units(state: GameState, viewer: int | None, out: dict[str, Any]) -> None:
    if not state.system:
        return
    labels = state.extra.get("terrain_labels", {})
    out["terrain"] = [
        {
            "id": t.id,
            "kind": str(t.kind),
            "height": t.height.name.lower(),
            "points": [list(p) for p in t.points],
            "label": labels.get(t.id, ""),
        }
        for t in terrain_of(state)
    ]
    out["units"] = {u.id: unit_view(state, u) for u in units_of(state).values()}
    out["armies_submitted"] = list(state.extra.get("armies", ()))
    out["deploying"] = state.extra.get("deploying") if stage(state) == DEPLOYMENT else None
    out["deployment_zones"] = {str(s): geo.to_geojson(deployment_zone(state, s)) for s in (1, 2)}
    out["stage"] = stage(state)


__all__ = ["BATTLE", "SETUP", "Unit", "footprint_of", "table_of", "units_of"]
