"""Warhammer 40,000 10th edition: the engine's view of a unit's models (issue 16).

A 40k `Unit` stands by `positions`: its Bodyguard (rank-and-file) models first, then its
joined Leaders (`Unit.characters`). This module keeps what the shared `Unit` does not: which
model line each model is (the Nob, the Sergeant), the wounds each model has lost, and the
unit's Starting Strength, in the system's part of the state (`Forty`) (folded from the events of
`server/rules/wh40k10/`), and turns a unit into the pure attack sequence's `TargetUnit`.

Decisions (docs/wh40k10-attacks.md, "The engine"): model `i` of a unit has the id
`<unit>.<i>` (its index in `positions` when the attack is made); a datasheet with two model
lines (Intercessor and Sergeant) has its first model on the last line (the Sergeant) and the
others on the first; the defender's free allocation choices follow casualties.py (the owner's
order, else the model that keeps the unit coherent and farthest from the enemy) and Leaders
last.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import shapely

from server.data import Datasheet, load_catalog
from server.data.schema import Wh40kStats, Wh40kWeapon
from server.geometry import ENGAGEMENT_RANGE_IN
from server.geometry.measure import within
from server.rules.core import GameState, part_of, with_part
from server.rules.state import changed
from server.rules.units import Unit, footprint_of, table_of, units_of
from server.rules.wh40k10.profiles import (
    TargetModel,
    TargetUnit,
    Weapon,
    profile_of,
    waaagh_model,
)

SYSTEM_ID = "wh40k10"
WAAAGH = "Waaagh!"
DEMISE_RANGE_IN = 6.0


At = list[Any]
"""When a record was made: [player turn, phase] (compared with the state's now)."""


@dataclass(frozen=True)
class Forty:
    """This system's own part of the state (`forty`, changed with `set_forty`). Seats are
    keyed "1"/"2" where the projection shows the record (overwatch: by seat number, as the
    stratagem's event folds it); a record stamped `at` or `pt` counts only in that phase or
    Player Turn."""

    cp: Mapping[str, int] | None = None
    """Command points per seat (None: none gained yet)."""
    vp: Mapping[str, int] | None = None
    """Victory Points per seat (None: none scored yet)."""
    scored: Sequence[Mapping[str, Any]] = ()
    """Each scoring of objective markers ({seat, vp, turn, when, markers}), in order: the
    result's lines say where the Victory Points came from (results.py)."""
    start: Mapping[str, int] = field(default_factory=dict)
    """Each unit's Starting Strength (models), by unit id."""
    wounds: Mapping[str, Sequence[int]] = field(default_factory=dict)
    """Wounds lost by each model of a unit, by unit id (damage_events.py)."""
    lines: Mapping[str, Sequence[int]] = field(default_factory=dict)
    """Each model's profile line of a unit, by unit id."""
    allocation: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """A player's order of their unit's Bodyguard model kinds (line names) for allocating
    attacks, by unit id."""
    model_order: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """A player's order of their unit's Bodyguard models (model ids, first to go first), by
    unit id (casualties.py); kept in step with the models as casualties are removed."""
    reserves: Mapping[str, str] = field(default_factory=dict)
    """The kind of Reserves each unit set up in (reserves.py), by unit id."""
    battle_shocked: Sequence[str] = ()
    waaagh_used: Sequence[int] = ()
    waaagh_active: Sequence[int] = ()
    command_start: Mapping[str, Any] = field(default_factory=dict)
    """{at, batch, acted}: the Command phase now running (at), the action that began it (the
    batch of the event that entered it) and whether any other action has been taken in it
    since (command.py: the Waaagh! is called at its start, before anything else)."""
    roar_used: At | None = None
    roared: Sequence[str] = ()
    charge_move: Mapping[str, Any] | None = None
    """The charge rolled this phase whose Charge move is still to be made: unit, targets,
    range, roll."""
    charged: Mapping[str, Any] = field(default_factory=dict)
    """{pt, units}: the units that charged in Player Turn pt (Fights First)."""
    last_fighter: Mapping[str, Any] = field(default_factory=dict)
    """{at, seat}: who fought last in the Fight phase."""
    shooting: Mapping[str, Any] = field(default_factory=dict)
    """{at, units}: the units that shot in the phase at (damage_events.mark_done)."""
    fight: Mapping[str, Any] = field(default_factory=dict)
    """{at, units}: the units that fought in the phase at."""
    engaged_at_movement: Mapping[str, Any] = field(default_factory=dict)
    """{at, units}: the units engaged when the Movement phase began (fall_back.py)."""
    fell_back: Mapping[str, Any] = field(default_factory=dict)
    """{pt, units}: the units that Fell Back in Player Turn pt."""
    stratagems_used: Mapping[str, Mapping[str, At]] = field(default_factory=dict)
    """Per seat, per Stratagem: when it was last used."""
    stratagems_once: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """Per seat: the once-per-battle Stratagems used."""
    go_to_ground: Mapping[str, Any] = field(default_factory=dict)
    counter_offensive: Mapping[str, Any] = field(default_factory=dict)
    insane_bravery: Mapping[str, Any] = field(default_factory=dict)
    overwatch: Mapping[Any, Any] = field(default_factory=dict)
    """Per seat: the Player Turn Fire Overwatch was last used in."""
    overwatch_hazard: Mapping[str, Any] = field(default_factory=dict)
    """{unit, seat, tests, models}: the Hazardous tests of a Fire Overwatch at a charging unit,
    taken once its charge is over (combat.hazard_after_charge)."""


def forty(state: GameState) -> Forty:
    """This system's own part of the state (empty before anything happened)."""
    return part_of(state, Forty)


def set_forty(state: GameState, **changes: Any) -> GameState:
    """`state` with the fields `changes` of its `Forty` changed (a TypeError for a field it
    does not have)."""
    return with_part(state, changed(forty(state), **changes))


def is_forty(state: GameState) -> bool:
    return state.system == SYSTEM_ID


@dataclass(frozen=True)
class Model:
    """One model of a unit as the engine sees it."""

    id: str
    index: int
    sheet: Datasheet
    line: int
    lost: int
    character: bool
    position: tuple[float, float]

    @property
    def stats(self) -> Wh40kStats:
        return profile_of(self.sheet).models[self.line]

    @property
    def name(self) -> str:
        return str(self.stats.name)

    @property
    def wounds(self) -> int:
        return int(self.stats.W)

    @property
    def left(self) -> int:
        return self.wounds - self.lost

    def weapons(self) -> list[Wh40kWeapon]:
        """The weapon profiles this model carries (`carried_by` names a model line)."""
        out = []
        for w in profile_of(self.sheet).weapons:
            if w.carried_by is None or w.carried_by == self.name:
                out.append(w)
        return out


def sheets(unit: Unit) -> list[Datasheet]:
    catalog = load_catalog()
    return [catalog.get(SYSTEM_ID, unit.datasheet)] + [
        catalog.get(SYSTEM_ID, c.datasheet) for c in unit.characters
    ]


def default_line(sheet: Datasheet, index: int) -> int:
    """The model line of Bodyguard model `index`: the first model is the last line's (the
    Sergeant, the Nob), the others the first line's."""
    lines = len(profile_of(sheet).models)
    return lines - 1 if index == 0 and lines > 1 else 0


def model_lines(state: GameState, unit: Unit) -> list[int]:
    lines = forty(state).lines.get(unit.id)
    if lines is not None and len(lines) == len(unit.positions):
        return list(lines)
    sheet = sheets(unit)[0]
    return [default_line(sheet, i) for i in range(unit.models)] + [0] * len(unit.characters)


def model_wounds(state: GameState, unit: Unit) -> list[int]:
    """Wounds lost by each model, in `positions` order."""
    lost = forty(state).wounds.get(unit.id)
    if lost is not None and len(lost) == len(unit.positions):
        return list(lost)
    return [0] * len(unit.positions)


def models_of(state: GameState, unit: Unit) -> list[Model]:
    """The unit's models (kept per state object for the state's own units: the orders of a
    state ask for them per weapon and per target)."""
    return _kept_per_unit(state, unit, "wh40k10.army.models_of", _models_of)


_Kept = TypeVar("_Kept")


def _kept_per_unit(
    state: GameState,
    unit: Unit,
    owner: str,
    compute: Callable[[GameState, Unit], list[_Kept]],
) -> list[_Kept]:
    """`compute(state, unit)`, kept in the state's derived memo table `owner` for the state's
    own units (a unit object of another state is computed, not kept); a copy each time."""
    known: dict[str, tuple[Unit, list[_Kept]]] = state.derived.table_for(owner)
    held = known.get(unit.id)
    if held is not None and held[0] is unit:
        return list(held[1])
    out = compute(state, unit)
    if units_of(state).get(unit.id) is unit:
        known[unit.id] = (unit, out)
    return list(out)


def _models_of(state: GameState, unit: Unit) -> list[Model]:
    all_sheets = sheets(unit)
    lines = model_lines(state, unit)
    lost = model_wounds(state, unit)
    out = []
    for i, pos in enumerate(unit.positions):
        char = i >= unit.models
        sheet = all_sheets[1 + i - unit.models] if char else all_sheets[0]
        out.append(
            Model(f"{unit.id}.{i}", i, sheet, lines[i], lost[i], char or bool(sheet.character),
                  (float(pos[0]), float(pos[1])))
        )
    return out


def starting_strength(state: GameState, unit: Unit) -> int:
    start: int | None = forty(state).start.get(unit.id)
    return len(unit.positions) if start is None else start


def waaagh_active(state: GameState, seat: int) -> bool:
    return seat in forty(state).waaagh_active


def has_waaagh(sheet: Datasheet) -> bool:
    return sheet.has_rule(WAAAGH)


def target_unit(
    state: GameState,
    unit: Unit,
    *,
    hazardous: Sequence[str] = (),
    cover: bool = False,
    engaged: bool = False,
) -> TargetUnit:
    """The unit as the attack sequence sees it: the Waaagh! 5+ invulnerable save on models
    with the ability while their army's Waaagh! is active (seed 004); `hazardous`: ids of the
    models that used a Hazardous weapon."""
    from server.rules.wh40k10.stratagems import GO_TO_GROUND_INVULNERABLE, gone_to_ground

    models = []
    waaagh = waaagh_active(state, unit.owner)
    ground = gone_to_ground(state, unit.id)  # Go to Ground: 6+ invulnerable and cover
    for m in models_of(state, unit):
        tm = TargetModel.from_datasheet(
            m.id, m.sheet, m.line, wounds_left=m.left, hazardous=m.id in hazardous
        )
        tm = dataclasses.replace(tm, name=model_name(m), character=m.character,
                                 cover=cover or ground)
        if waaagh and has_waaagh(m.sheet):
            tm = waaagh_model(tm)
        if ground:
            best = min(tm.invulnerable or GO_TO_GROUND_INVULNERABLE, GO_TO_GROUND_INVULNERABLE)
            tm = dataclasses.replace(tm, invulnerable=best)
        models.append(tm)
    from server.rules.wh40k10.casualties import casualty_order

    keywords = frozenset(k for s in sheets(unit)[:1] for k in s.keywords)
    return TargetUnit(
        unit.id,
        unit.name,
        tuple(models),
        keywords,
        attached=bool(unit.characters),
        engaged=engaged,
        allocation_order=tuple(casualty_order(state, unit)),
    )


def allocation_preference(state: GameState, unit_id: str) -> list[str]:
    """The Bodyguard model lines the defender set for `unit_id` (server/rules/wh40k10/
    allocation.py), first allocated first; [] = the default order."""
    prefs: Mapping[str, Sequence[str]] = forty(state).allocation
    return list(prefs.get(unit_id, []))


def model_name(m: Model) -> str:
    """A Bodyguard model by its line and number ("Intercessor #3"), a Leader by its name."""
    return f"{m.name} #{m.index + 1}" if not m.character else m.name


def weapon_of(model: Model, name: str) -> Weapon | None:
    for w in model.weapons():
        if w.name == name:
            return Weapon.from_datasheet(w)
    return None


# --- geometry ------------------------------------------------------------------------------


def model_polygons(state: GameState, unit: Unit) -> list[Any]:
    fp = footprint_of(state, unit)
    if fp is None:
        return []
    return list(fp.model_polygons)


def engaged_with(state: GameState, unit: Unit) -> list[str]:
    """Enemy units within Engagement Range (1 in, geometry core) of `unit` (kept per state
    object for the state's own units: the orders of a state ask it per unit and target)."""
    return _kept_per_unit(state, unit, "wh40k10.army.engaged", _engaged_with)


def _engaged_with(state: GameState, unit: Unit) -> list[str]:
    table = table_of(state)
    mine = table.units.get(unit.id)
    if mine is None:
        return []
    out = []
    for other in units_of(state).values():
        if other.owner == unit.owner or other.id not in table.units:
            continue
        if within(mine, table.units[other.id], ENGAGEMENT_RANGE_IN):
            out.append(other.id)
    return out


def units_within_of_model(
    state: GameState, polygon: Any, inches: float, *, exclude_model: tuple[str, int] | None = None
) -> list[str]:
    """Units with a model within `inches` of `polygon` (a model's base). `exclude_model`
    (unit id, index): the model itself, not counted for its own unit."""
    out = []
    for other in units_of(state).values():
        polys = model_polygons(state, other)
        for i, p in enumerate(polys):
            if exclude_model is not None and (other.id, i) == exclude_model:
                continue
            if within(polygon, p, inches):
                out.append(other.id)
                break
    return out


def demise_map(state: GameState, unit: Unit) -> dict[str, list[str]]:
    """Deadly Demise input for every model of `unit` that has it: the units within 6 in of it
    (its own unit when another of its models is)."""
    polys = model_polygons(state, unit)
    out: dict[str, list[str]] = {}
    for m in models_of(state, unit):
        if m.sheet.rule("Deadly Demise") is None or m.index >= len(polys):
            continue
        out[m.id] = units_within_of_model(
            state, polys[m.index], DEMISE_RANGE_IN, exclude_model=(unit.id, m.index)
        )
    return out


def point_disc(x: float, y: float, radius: float) -> Any:
    return shapely.Point(x, y).buffer(radius)


# --- applying a resolution -------------------------------------------------------------------


def after_resolution(
    state: GameState, unit: Unit, result: TargetUnit
) -> tuple[Unit, list[int], list[int], str | None]:
    """The unit after the attack sequence returned `result`: destroyed models removed (their
    positions gone), Leaders' damage kept, an Attached unit split (seed 004: the survivors form
    a unit of their own with their original Starting Strength). Returns the new unit, the
    wounds lost per model, their lines and what the split left ("leader" or "bodyguard")."""
    models = models_of(state, unit)
    by_id = {m.id: m for m in result.models}
    lines = model_lines(state, unit)
    keep_rank: list[int] = []
    keep_chars: list[int] = []
    for m in models:
        t = by_id.get(m.id)
        if t is not None and not t.alive:
            continue
        (keep_chars if m.index >= unit.models else keep_rank).append(m.index)
    wounds = [
        (m.wounds - by_id[m.id].left) if m.id in by_id else m.lost for m in models
    ]
    order = keep_rank + keep_chars
    positions = tuple(unit.positions[i] for i in order)
    new_lines = [lines[i] for i in order]
    new_wounds = [wounds[i] for i in order]
    characters = tuple(
        dataclasses.replace(unit.characters[i - unit.models], damage=wounds[i])
        for i in keep_chars
    )
    rank_damage = max((wounds[i] for i in keep_rank), default=0)
    split: str | None = None
    if not order:
        after = dataclasses.replace(
            unit, models=0, positions=(), characters=(), status="destroyed", damage=0
        )
    elif not keep_rank and keep_chars and unit.models:
        # The last Bodyguard model is destroyed: the Leader is a unit of its own (one Leader
        # here: the 40k army rules let one Leader lead a unit, server/data/wh40k10).
        leader = characters[0]
        after = dataclasses.replace(
            unit,
            datasheet=leader.datasheet,
            name=leader.name,
            models=1,
            characters=(),
            positions=positions[:1],
            damage=leader.damage,
        )
        new_lines, new_wounds = new_lines[:1], new_wounds[:1]
        split = "leader"
    else:
        name = unit.name
        if unit.characters and not keep_chars:
            name = sheets(unit)[0].name
            split = "bodyguard"
        after = dataclasses.replace(
            unit,
            models=len(keep_rank),
            positions=positions,
            characters=characters,
            damage=rank_damage,
            name=name,
        )
    return after, new_wounds, new_lines, split
