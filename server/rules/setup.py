"""Before the battle: terrain (placed or preset), armies from datasheets, and alternating
deployment, including units a rule keeps in reserve or ambush.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

import shapely
from pydantic import BaseModel, ConfigDict, Field

from server.data import load_catalog, validate_army
from server.data.army import ARMY_WIDE, army_points
from server.data.catalog import register_own
from server.data.own import MAX_OWN_UNITS, OwnUnitError, own_datasheet, read_own_sheet
from server.dice import DiceStream
from server.geometry import movement
from server.geometry.formation import layout
from server.geometry.kinds import Height, TerrainKind
from server.geometry.table import Battlefield as GeoBattlefield
from server.geometry.table import Terrain, outline_problem
from server.rules.battle import other, stage
from server.rules.core import (
    ACTIVE,
    BAD_REQUEST,
    DEPLOYMENT,
    ILLEGAL_MOVE,
    OUT_OF_PHASE,
    SETUP,
    ActionModel,
    Event,
    GameState,
    RuleError,
    When,
    fold_all,
    register_action,
    register_folder,
    register_projector,
)
from server.rules.naming import display_name
from server.rules.orders import judge, offer, register_acting, register_offer
from server.rules.pregame import after_deploying as next_deployer
from server.rules.pregame import deployment_start
from server.rules.state import Muster, MusteredUnit, changed
from server.rules.systems import variant_of
from server.rules.table import check_limit
from server.rules.units import (
    DEPLOYMENT_DEPTH_IN,
    Coord,
    Facing,
    JoinedCharacter,
    Unit,
    containing,
    datasheet_of,
    deployment_zone,
    entirely,
    footprint_of,
    grid_positions,
    illegal_move_error,
    is_ranked,
    ranked_formation,
    reserve_rules,
    table_of,
    terrain_of,
    unit_from_json,
    unit_of,
    units_of,
    with_unit,
)

# --- setup: terrain and armies -------------------------------------------------------------------

MAX_TERRAIN_PIECES = 64
"""Terrain features a table may hold. A T9A or WFB table has 6 to 10, a 40k table 12 to 20;
at up to 64 points each, 64 pieces keep the terrain under ~100 KB of every `welcome`."""
MAX_TERRAIN_POINTS = 64
"""Points in one terrain outline (a hill drawn point by point needs a dozen or two)."""


class PlaceTerrain(ActionModel):
    type: Literal["place_terrain"]
    kind: TerrainKind
    points: list[tuple[Coord, Coord]] = Field(min_length=3, max_length=MAX_TERRAIN_POINTS)
    height: Literal["flat", "standard", "large", "gigantic", "infinite"] = "infinite"
    label: str = Field(default="", max_length=80)


SETTING_UP = [When(SETUP)]
"""Terrain and armies: either player, before deployment."""
DEPLOYING = [When(DEPLOYMENT, ACTIVE)]
"""Setting a unit down (or keeping it off the table): the player who deploys now."""


def _check_piece(state: GameState, piece: Terrain, ignore: frozenset[str] = frozenset()) -> None:
    """A terrain outline may stand on the table: a simple polygon, wholly on the battlefield,
    overlapping no other feature (the pieces in `ignore` — the ones being moved or replaced —
    excepted). The one check for placing, moving, rotating and resizing terrain."""
    problem = outline_problem(piece.points)
    if problem is not None:
        raise RuleError(BAD_REQUEST, f"terrain outline: {problem}", field="points")
    polygon = piece.polygon
    if not GeoBattlefield(state.battlefield.width, state.battlefield.depth).contains_bounds(
        polygon.bounds
    ):
        raise RuleError(
            ILLEGAL_MOVE, "terrain must lie on the battlefield", rule="Battlefield Edge"
        )
    for other_piece in terrain_of(state):
        if other_piece.id in ignore or other_piece.id == piece.id:
            continue
        if other_piece.polygon.intersection(polygon).area > 1e-9:
            raise RuleError(
                ILLEGAL_MOVE,
                f"terrain overlaps {display_name(state, other_piece.id)}",
                rule="Terrain Overlap",
                obstacle=other_piece.id,
            )


@register_action("place_terrain", PlaceTerrain, when=SETTING_UP, doing="placing terrain")
def place_terrain(
    state: GameState, seat: int, action: PlaceTerrain, dice: DiceStream
) -> list[Event]:
    """Either player places a terrain feature before the armies are set down: it must lie on
    the table and not overlap another feature."""
    check_limit(
        len(terrain_of(state)),
        MAX_TERRAIN_PIECES,
        f"a table holds at most {MAX_TERRAIN_PIECES} terrain pieces",
        "terrain",
    )
    problem = outline_problem(action.points)
    if problem is not None:
        raise RuleError(BAD_REQUEST, f"terrain outline: {problem}", field="points")
    terrain_id = state.new_id("ter")
    piece = Terrain(terrain_id, tuple(action.points), action.kind, Height[action.height.upper()])
    _check_piece(state, piece)
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


def _piece(state: GameState, terrain_id: str) -> Terrain:
    """The terrain feature `terrain_id` (else bad_request naming the field)."""
    for piece in terrain_of(state):
        if piece.id == terrain_id:
            return piece
    raise RuleError(BAD_REQUEST, f"there is no terrain {terrain_id!r} on the table",
                    field="terrain")


def moved_outline(
    points: tuple[tuple[float, float], ...], dx: float, dy: float, rotate: float, scale: float
) -> list[tuple[float, float]]:
    """An outline turned `rotate` degrees (from +x towards +y) and scaled by `scale` about
    its centroid, then shifted by (dx, dy); rounded to 1/1000 in. The client previews the
    same sum (static/js/handlers/terrain-edit.js movedOutline)."""
    poly = shapely.Polygon(points)
    c = poly.centroid
    cx, cy = (c.x, c.y) if poly.is_valid and poly.area > 0 else (
        sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))
    a = math.radians(rotate)
    cos, sin = math.cos(a), math.sin(a)
    out = []
    for x, y in points:
        ux, uy = (x - cx) * scale, (y - cy) * scale
        out.append((round(cx + ux * cos - uy * sin + dx, 3),
                    round(cy + ux * sin + uy * cos + dy, 3)))
    return out


class MoveTerrain(ActionModel):
    type: Literal["move_terrain"]
    terrain: str = Field(min_length=1, max_length=40)
    dx: float = Field(default=0.0, ge=-1000, le=1000)
    dy: float = Field(default=0.0, ge=-1000, le=1000)
    rotate: float = Field(default=0.0, ge=-360, le=360)
    scale: float = Field(default=1.0, ge=0.25, le=4.0)
    height: Literal["flat", "standard", "large", "gigantic", "infinite"] | None = None


@register_action("move_terrain", MoveTerrain, when=SETTING_UP, doing="moving terrain")
def move_terrain(
    state: GameState, seat: int, action: MoveTerrain, dice: DiceStream
) -> list[Event]:
    """Either player moves, rotates (degrees, about its centre) or resizes (a factor) a terrain
    feature before the armies are set down, or changes its height; the new outline is checked
    like a placed one (on the table, overlapping nothing else)."""
    old = _piece(state, action.terrain)
    points = moved_outline(old.points, action.dx, action.dy, action.rotate, action.scale)
    height = Height[action.height.upper()] if action.height is not None else old.height
    piece = Terrain(old.id, tuple(points), old.kind, height)
    _check_piece(state, piece)
    return [
        Event(
            "terrain_moved",
            {
                "id": old.id,
                "points": [list(p) for p in points],
                "height": height.name.lower(),
                "text": f"{display_name(state, old.id)} moved",
            },
            actor=seat,
        )
    ]


class RemoveTerrain(ActionModel):
    type: Literal["remove_terrain"]
    terrain: str = Field(min_length=1, max_length=40)


@register_action("remove_terrain", RemoveTerrain, when=SETTING_UP, doing="removing terrain")
def remove_terrain(
    state: GameState, seat: int, action: RemoveTerrain, dice: DiceStream
) -> list[Event]:
    """Either player takes a terrain feature off the table before the armies are set down."""
    piece = _piece(state, action.terrain)
    return [Event("terrain_removed", {"id": piece.id,
                                      "text": f"{display_name(state, piece.id)} removed"},
                  actor=seat)]


@register_folder("terrain_moved")
def _fold_terrain_moved(state: GameState, event: Event) -> GameState:
    p = event.payload
    pieces = tuple(
        Terrain(t.id, tuple(tuple(pt) for pt in p["points"]), t.kind,
                Height[str(p["height"]).upper()])
        if t.id == p["id"] else t
        for t in terrain_of(state)
    )
    return state.evolve(terrain=pieces)


@register_folder("terrain_removed")
def _fold_terrain_removed(state: GameState, event: Event) -> GameState:
    gone = event.payload["id"]
    labels = {k: v for k, v in state.terrain_labels.items() if k != gone}
    return state.evolve(terrain=tuple(t for t in terrain_of(state) if t.id != gone),
                        terrain_labels=labels)


@register_folder("terrain_placed")
def _fold_terrain_placed(state: GameState, event: Event) -> GameState:
    p = event.payload
    piece = Terrain(
        p["id"],
        tuple(tuple(pt) for pt in p["points"]),
        TerrainKind(p["kind"]),
        Height[str(p["height"]).upper()],
    )
    return state.evolve(
        terrain=(*terrain_of(state), piece),
        terrain_labels={**state.terrain_labels, p["id"]: p["label"]},
        next_id=state.next_id + 1,
    )


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
        # A hill hides what stands behind it from units of its height or lower (line of sight,
        # server/geometry/los.py): Large, so that Gigantic models see over it.
        {
            "kind": "blocks_los",
            "points": [(50, 18), (58, 20), (56, 28), (48, 26)],
            "height": "large",
            "label": "Hill",
        },
        {
            "kind": "dangerous",
            "points": [(40, 34), (46, 34), (46, 38), (40, 38)],
            "height": "flat",
            "label": "Marsh",
        },
    ],
    "ruins": [
        {
            "kind": "blocks_los",
            "points": [(14, 14), (22, 14), (22, 20), (14, 20)],
            "label": "Ruined chapel",
        },
        {
            "kind": "blocks_los",
            "points": [(50, 28), (58, 28), (58, 34), (50, 34)],
            "label": "Broken tower",
        },
        {
            "kind": "cover",
            "points": [(32, 21), (40, 21), (40, 27), (32, 27)],
            "height": "standard",
            "label": "Rubble",
        },
        {
            "kind": "impassable",
            "points": [(60, 12), (64, 12), (64, 18), (60, 18)],
            "label": "Collapsed wall",
        },
        {
            "kind": "cover",
            "points": [(6, 28), (12, 28), (12, 33), (6, 33)],
            "height": "standard",
            "label": "Craters",
        },
    ],
}


class UsePreset(ActionModel):
    type: Literal["use_preset_table"]
    preset: Literal["open-field", "village", "ruins"]
    replace: bool = False
    """Take the terrain on the table off first (the client asks the player to confirm)."""


@register_action(
    "use_preset_table", UsePreset, when=SETTING_UP, doing="laying out a preset table"
)
def use_preset(state: GameState, seat: int, action: UsePreset, dice: DiceStream) -> list[Event]:
    """Lay out one of the preset tables (scaled to this battlefield); with `replace`, the
    terrain already on the table is taken off first."""
    events: list[Event] = []
    if terrain_of(state):
        if not action.replace:
            raise RuleError(ILLEGAL_MOVE, "the table already has terrain: replace it with the "
                            "preset, or remove pieces first", rule="Preset Table")
        events += [
            Event("terrain_removed", {"id": t.id, "text": f"{display_name(state, t.id)} removed"},
                  actor=seat)
            for t in terrain_of(state)
        ]
    sx, sy = state.battlefield.width / 72.0, state.battlefield.depth / 48.0
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
    joined_characters: list[str] = Field(default_factory=list, max_length=6)
    standard: bool = False
    battle_standard: bool = False
    # Hidden models the unit conceals (whfb8 Night Goblin Fanatics, seed 003): written down
    # for the owner only (the system's `army_secrets`), never in the public army.
    concealed: dict[str, int] = Field(default_factory=dict, max_length=4)


class SubmitArmy(ActionModel):
    type: Literal["submit_army"]
    units: list[ArmyUnit] = Field(min_length=1, max_length=40)
    # Issue 18: the army's faction (army book / codex; else its first catalogue unit's), the
    # game size its points must fit (one of the system's SystemData.game_sizes; none: no
    # limit), and units of your own (server/data/own.py), named in `units` by their `ref`.
    faction: str | None = Field(default=None, min_length=1, max_length=80)
    game_size: str | None = Field(default=None, min_length=1, max_length=40)
    own_units: list[dict[str, Any]] = Field(default_factory=list, max_length=MAX_OWN_UNITS)


def _own_units(state: GameState, action: SubmitArmy) -> dict[str, Any]:
    """The army's units of your own by `ref`, validated like datasheets (bad_request naming
    the field path of every problem)."""
    catalog = load_catalog()
    found: dict[str, Any] = {}
    for index, raw in enumerate(action.own_units):
        try:
            sheet = own_datasheet(state.system, raw, catalog)
        except OwnUnitError as exc:
            raise RuleError(
                BAD_REQUEST,
                f"unit of your own {exc.name!r}: " + "; ".join(
                    f"own_units.{index}.{p}" for p in exc.problems),
                field=f"own_units.{index}",
                problems=exc.problems,
            ) from None
        ref = raw.get("ref")
        if not isinstance(ref, str) or not ref or len(ref) > 80:
            raise RuleError(BAD_REQUEST, f"own_units.{index}.ref: name the unit's ref (the "
                            "id the army's entries use)", field=f"own_units.{index}.ref")
        if ref in found or ref in {d.id for d in catalog.datasheets(state.system)}:
            raise RuleError(BAD_REQUEST, f"own_units.{index}.ref: {ref!r} is already taken",
                            field=f"own_units.{index}.ref")
        found[ref] = sheet
    return found


@register_action("submit_army", SubmitArmy, when=SETTING_UP, doing="submitting an army")
def submit_army(state: GameState, seat: int, action: SubmitArmy, dice: DiceStream) -> list[Event]:
    """A player's army list, validated against the datasheets; when both are in, deployment
    begins: with player 1, or with the roll-off the system plays (`rules/pregame.py`)."""
    if seat in state.muster.armies:
        raise RuleError(OUT_OF_PHASE, "you have already submitted your army")
    own = _own_units(state, action)
    ids = {ref: sheet.id for ref, sheet in own.items()}
    action = action.model_copy(update={"units": [
        u.model_copy(update={
            "datasheet": ids.get(u.datasheet, u.datasheet),
            "joined_characters": [ids.get(c, c) for c in u.joined_characters],
        })
        for u in action.units
    ]})
    entries = [u.model_dump(exclude_none=True) for u in action.units]
    catalog = load_catalog().with_own(state.system, own.values())
    errors = validate_army(
        state.system, entries, catalog, faction=action.faction, game_size=action.game_size
    )
    if errors:
        first = errors[0]
        # A person counts entries from 1 (`entry` stays the index in `errors`); a cap on the
        # whole army (points, game size) belongs to no one entry.
        where = "" if first.code in ARMY_WIDE else f"army entry {first.entry + 1}: "
        raise RuleError(
            BAD_REQUEST,
            f"{where}{first.message}",
            rule=first.rule,
            errors=[e.model_dump(mode="json") for e in errors],
        )
    used = {d for e in action.units for d in (e.datasheet, *e.joined_characters)}
    units = []
    for i, entry in enumerate(action.units):
        sheet = catalog.get(state.system, entry.datasheet)
        files = None
        if is_ranked(state.system):
            files = entry.files or sheet.default_files or min(5, entry.models)
        characters = tuple(
            JoinedCharacter(c, catalog.get(state.system, c).name) for c in entry.joined_characters
        )
        name = sheet.name + "".join(f" + {c.name}" for c in characters)
        unit = Unit(f"u{state.next_id + i}", seat, sheet.id, name, entry.models, files)
        markers = (("standard",) if entry.standard else ()) + (
            ("battle_standard",) if entry.battle_standard else ()
        )
        units.append(dataclasses.replace(unit, characters=characters, markers=markers).to_json())
    army = {
        "seat": seat,
        "units": units,
        # Public like the rest of the list: the units of your own it uses, the faction, the
        # game size and what the army costs.
        "own_datasheets": [s.model_dump(mode="json") for s in own.values() if s.id in used],
        "faction": action.faction or _faction(catalog, state.system, action.units),
        "game_size": action.game_size,
        # Hidden models (whfb8 Fanatics) are left out: their points would give them away.
        "points": army_points(
            state.system, [{**e, "concealed": {}} for e in entries], catalog
        ),
    }
    events = [Event("army_submitted", army, actor=seat)]
    concealed = {
        unit["id"]: dict(entry.concealed) for unit, entry in zip(units, action.units, strict=True)
    }
    events += variant_of(state.system).army_secrets(state, seat, concealed)
    if other(seat) in state.muster.armies:
        events += deployment_start(state, dice)
    return events


def _faction(catalog: Any, system: str, units: list[ArmyUnit]) -> str | None:
    """The faction of the army's first catalogue unit (units of your own have none)."""
    for unit in units:
        faction = catalog.get(system, unit.datasheet).faction
        if faction:
            return str(faction)
    return None


@register_folder("army_submitted")
def _fold_army_submitted(state: GameState, event: Event) -> GameState:
    # Units of your own come back from the log (replays too); the state holds them, which keeps
    # them findable by the catalogue for as long as the game is (server/data/catalog.py).
    catalog = load_catalog()
    own = dict(state.muster.own_sheets)
    for raw_sheet in event.payload.get("own_datasheets", ()):
        sheet = register_own(read_own_sheet(state.system, raw_sheet, catalog))
        own[sheet.id] = sheet
    lists = dict(state.muster.army_lists)
    lists[event.payload["seat"]] = {
        key: event.payload.get(key) for key in ("faction", "game_size", "points")
    }
    units = dict(units_of(state))
    # What each unit was mustered with (Victory Points are counted from it: endgame.py).
    mustered = dict(state.muster.mustered)
    for raw in event.payload["units"]:
        units[raw["id"]] = unit_from_json({**raw, "status": "undeployed"})
        mustered[raw["id"]] = MusteredUnit(
            raw["models"], tuple(c["datasheet"] for c in raw.get("characters", ()))
        )
    armies = (*state.muster.armies, event.payload["seat"])
    muster = Muster(armies, lists, own, mustered)
    return state.evolve(units=units, muster=muster,
                        next_id=state.next_id + len(event.payload["units"]))


@register_projector
def _project_armies(state: GameState, viewer: int | None, out: dict[str, Any]) -> None:
    """Public army-list facts: each army's faction, game size and points, and the datasheets
    of its units of your own (the client's unit cards read them)."""
    if not state.system:
        return
    out["own_datasheets"] = {
        sheet_id: sheet.model_dump(mode="json")
        for sheet_id, sheet in state.muster.own_sheets.items()
    }
    lists = state.muster.army_lists
    out["army_lists"] = {str(seat): info for seat, info in lists.items()}


@register_folder("deployment_started")
def _fold_deployment_started(state: GameState, event: Event) -> GameState:
    battle = changed(state.battle, stage=DEPLOYMENT,
                                 deploying=event.payload["deploying"])
    return state.evolve(battle=battle)


# --- deployment ---------------------------------------------------------------------------------


def after_deploying_unit(
    state: GameState, seat: int, unit_id: str, dice: DiceStream
) -> list[Event]:
    """Whose turn it is to deploy next, or the start of the battle when nobody has units left
    (with whatever the system's rules do as its first phase starts: 40k's first Command
    phase); in a game with roll-offs, also who finished first and the first-turn roll-off or
    choice (`rules/pregame.py`). `state` already holds the unit just deployed."""
    return next_deployer(state, seat, unit_id, dice)


def undeployed(state: GameState, seat: int, unit_id: str) -> Unit:
    """`seat`'s unit `unit_id`, not yet deployed (else out_of_phase)."""
    unit = unit_of(state, unit_id, seat)
    if unit.status != "undeployed":
        raise RuleError(OUT_OF_PHASE, f"{unit.name} is already {unit.status}")
    return unit


class DeployUnit(ActionModel):
    type: Literal["deploy_unit"]
    unit: str
    x: Coord
    y: Coord
    facing: Facing | None = None
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
        unit, status="on_table", positions=grid_positions(sheet, unit.model_count, x, y, facing)
    )


@register_acting
def _deploying(state: GameState) -> frozenset[int]:
    """In deployment, the player whose turn it is to deploy acts."""
    who = state.battle.deploying
    return frozenset({int(who)}) if stage(state) == DEPLOYMENT and who in (1, 2) else frozenset()


@register_offer("deploy_unit")
def _offer_deploy(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """Deploy: the deploying player's units not yet deployed (placed in their zone)."""
    if unit.owner != seat or judge(lambda: undeployed(state, seat, unit.id)):
        return None
    if not is_ranked(state.system):
        return offer("deploy_unit", zone=seat)
    # The Unit Boundary for each frontage the player may pick (files), in the unit's own frame
    # (front-edge centre at the origin, facing 0), so the deploy tool draws the ghost under the
    # pointer at any placement; the server's preview judges it (issue 19 item 6).
    joined = tuple(c.datasheet for c in unit.characters)
    most = min(unit.models, MAX_DEPLOY_FILES)
    outlines = {
        str(files): [[round(float(x), 4), round(float(y), 4)] for x, y in
                     layout(ranked_formation(state.system, unit.datasheet, unit.models, files,
                                       joined)).outline]
        for files in range(1, most + 1)
    }
    return offer("deploy_unit", zone=seat, files=min(unit.files or 1, most),
                 facing=0.0 if seat == 1 else 180.0, outlines=outlines)


MAX_DEPLOY_FILES = 12
"""Frontages the deploy tool offers (a wider block is typed in the deploy form)."""


@register_offer("declare_reserve")
def _offer_reserve(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """Keep off the table: for units whose special rules allow it (Ambush, Ambushers,
    Entombed Beneath the Sands, Deep Strike), naming the rule."""
    if unit.owner != seat or judge(lambda: undeployed(state, seat, unit.id)):
        return None
    sheet = datasheet_of(state, unit)
    allowed = [r for r in reserve_rules(state.system) if sheet.has_rule(r)]
    if not allowed:
        return None
    return offer("declare_reserve", rule=allowed[0], mode=variant_of(state.system).reserve_mode)


@register_action("deploy_unit", DeployUnit, when=DEPLOYING, doing="deploying")
def deploy_unit(state: GameState, seat: int, action: DeployUnit, dice: DiceStream) -> list[Event]:
    """Set a unit down wholly inside your deployment zone, keeping the unit spacing. Ranked
    units are placed by the centre of their front edge; 40k units around the point."""
    unit = undeployed(state, seat, action.unit)
    placed = deployed_unit(state, seat, unit, action.x, action.y, action.facing, action.files)
    fp = footprint_of(state, placed)
    assert fp is not None
    result = movement.place(table_of(state), unit.id, fp)
    if not result.legal:
        raise illegal_move_error(
            state, result, f"{display_name(state, unit.id)} cannot deploy there"
        )
    zone = deployment_zone(state, seat)
    if not zone.buffer(1e-6).covers(fp.boundary):
        raise RuleError(
            ILLEGAL_MOVE,
            f"{unit.name} must deploy wholly inside your deployment "
            f"zone ({DEPLOYMENT_DEPTH_IN:g} in from your table edge)",
            rule="Deployment Zone",
            obstacle=None,
        )
    deployed = Event("unit_deployed", {"unit": placed.to_json()}, actor=seat)
    return [deployed, *after_deploying_unit(fold_all(state, [deployed]), seat, unit.id, dice)]


class DeclareReserve(ActionModel):
    type: Literal["declare_reserve"]
    unit: str
    mode: Literal["ambush", "reserve"] = "ambush"


@register_action(
    "declare_reserve", DeclareReserve, when=DEPLOYING, doing="keeping a unit in reserve"
)
def declare_reserve(
    state: GameState, seat: int, action: DeclareReserve, dice: DiceStream
) -> list[Event]:
    """Keep a unit off the table (Ambush, Ambushers, Entombed); its arrival follows its rule."""
    unit = undeployed(state, seat, action.unit)
    sheet = datasheet_of(state, unit)
    # Seed 000, Ambush: "any unit entirely with Ambush": every model, joined characters too.
    allowed = [r for r in reserve_rules(state.system) if entirely(state, unit, r)]
    if not allowed:
        partly = [r for r in reserve_rules(state.system) if containing(state, unit, r)]
        raise RuleError(
            ILLEGAL_MOVE,
            f"{unit.name} is not entirely with {partly[0]}: every model, joined characters "
            "included, must have it to stay off the table"
            if partly
            else f"{unit.name} has no rule that lets it stay off the table",
            rule=partly[0] if partly else "Deployment",
            needs=list(reserve_rules(state.system)),
        )
    placed = dataclasses.replace(unit, status=action.mode)
    deployed = Event(
        "unit_deployed",
        {
            "unit": placed.to_json(),
            "rule": allowed[0],
            "text": f"{unit.name} stays off the table, in "
            + ("Ambush" if action.mode == "ambush" else "reserve")
            + f" ({sheet.rule_printed(allowed[0])})",
        },
        actor=seat,
    )
    return [deployed, *after_deploying_unit(fold_all(state, [deployed]), seat, unit.id, dice)]


@register_folder("unit_deployed")
def _fold_unit_deployed(state: GameState, event: Event) -> GameState:
    return with_unit(state, unit_from_json(event.payload["unit"]))


@register_folder("deploying")
def _fold_deploying(state: GameState, event: Event) -> GameState:
    return state.evolve(
        battle=changed(state.battle, deploying=event.payload["deploying"])
    )
