"""Night Goblin Fanatics (whfb8, seed 003, ../shared/seeds/003_39e99837749f8d9d.txt): hidden in
their units, released at 8 in mid-move, whirling 2D6 in through everything.

1. **Concealment.** Every whfb8 army submission writes a `fanatics_concealed` event seen only by
   its owner (`seat_visibility`), empty when the army conceals none, so the opponent and
   spectators see one `hidden` event of the same wire form in every whfb8 game. The note is
   kept in the system's part of the state (`FanaticState.concealed`: {unit id: count}) and
   projected only to its owner
   (`concealed` in the owner's state, `{}` for everyone else). The Fanatics add nothing to the
   unit's models, footprint or profile until released.
2. **Release at 8 in** (`move_stop`, the one judgement every move asks through the system's
   `Variant.move_stop`: straight moves and wheels of server/rules/moves.py, charges, flees and
   pursuits, Random Movement, Skirmishers and Vanguard moves (skirmish.py `stop_on_the_way`),
   a free move agreed by both players (server/rules/proposals.py)): when a concealing unit
   comes within 8 in of an enemy, or an enemy within 8 in of it, the move stops at the first
   point of its path where the distance (the geometry core's `distance`) is 8 in: the path is
   sampled every 0.25 in and the crossing bisected to 1e-4 of the move. `fanatics_revealed`
   (public) is the release moment; the owner
   then releases each Fanatic with `release_fanatic` (a start point on the concealing unit and a
   facing); the interrupted unit's player may then carry on with the rest of the allowance. A
   flee or pursuit stopped so waits too (every one: a Flee! reaction, a Panic flee from
   shooting, Stand and Shoot or a flight through friends, a Break Test's flee, a pursuit, a
   failed Rally Test's flee), the rest of its resolution suspended (server/rules/resume.py)
   and resumed after the last release; the server never aims a Fanatic.
3. **The whirl** (`whirl`): 2D6 in straight ahead; through units (each takes D6 S5 Armour
   Piercing (1) hits, server/rules/rankandflank/attacks.py with whfb8's steps); ending inside a
   unit bounces it 1 in beyond; removed on contact with terrain that is not open ground, with
   another Fanatic (both), on leaving the table, and on a double in a later turn.
4. **Later turns** (`_compulsory`): as its player's Movement phase starts (the Compulsory
   Moves, before that player's charges and other moves) each Fanatic moves in a random
   direction (the scatter die; **Decision**: on a HIT it keeps the direction it last travelled
   in) 2D6 in; `random_move` is refused for one that has moved this turn.
5. **Lost Fanatics**: a concealing unit that flees or is destroyed loses the Fanatics it still
   hides; `fanatics_lost` (public) says so when the phase in which that happened ends.
6. **Undo** (server/rules/proposals.py): `fanatics_revealed` is in the batch of the move it
   stopped, and every release, whirl and hit lies in the events after it, so an agreed undo
   from that move takes all of them back: the state is the fold of the log without them (the
   Fanatics hidden again, no release waiting, no Fanatic on the table). **Decision**: dice
   already rolled for the whirls are not rewound, like every undone roll (the log keeps the
   events, the fold skips them; the stream, the id counter and the list of discarded rolls
   stay), so the same move made again releases at the same point but whirls with new dice.
   `events_undone` lists the discarded whirl rolls for both players; the new Fanatic has a new
   id, so its roll is not marked a re-roll (`mark_rerolls` matches by unit).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import shapely
from shapely.geometry.base import BaseGeometry

from server import geometry as geo
from server.dice import DiceStream, Roll
from server.geometry.constants import CONTACT_TOLERANCE_IN
from server.geometry.footprint import Footprint
from server.geometry.frame import forward_vector
from server.geometry.kinds import TerrainKind
from server.geometry.movement import sweep_straight
from server.rules.battle import on_phase_end, on_phase_start
from server.rules.charge import complete_interrupted_charge
from server.rules.core import (
    ACTIVE,
    BAD_REQUEST,
    BATTLE,
    EITHER,
    ILLEGAL_MOVE,
    OUT_OF_PHASE,
    SEATS,
    ActionModel,
    Event,
    GameState,
    RuleError,
    When,
    fold_all,
    part_of,
    register_action,
    register_folder,
    register_projector,
    seat_visibility,
    with_part,
)
from server.rules.naming import display_name, display_names, say_inches
from server.rules.orders import register_acting
from server.rules.rankandflank.attacks import resolve
from server.rules.rankandflank.break_test import heavy_casualties, heavy_casualties_held_back
from server.rules.rankandflank.engagement import FLEEING, rank_and_file_sheet
from server.rules.rankandflank.events import Log, losses_events, step_events
from server.rules.rankandflank.system import rank_and_flank_of
from server.rules.resume import register_frame, resume, suspend_with
from server.rules.state import changed
from server.rules.systems import MOVEMENT_PHASE
from server.rules.units import (
    Coord,
    Facing,
    Unit,
    footprint_of,
    table_of,
    terrain_of,
    unit_from_json,
    unit_of,
    units_of,
    with_unit,
)
from server.rules.whfb8.attacks import STEPS, Strike

SYSTEM = "whfb8"
FANATIC = "night-goblin-fanatic"
RELEASE_RANGE_IN = 8.0
"""Seed 003: released when a concealing unit and an enemy come within 8 in of each other."""
BOUNCE_IN = 1.0
"""Seed 003: a move ending within a unit puts the Fanatic 1 in beyond it."""
HIT_STRENGTH = 5
ARMOUR_PIERCING = 1
MOVE_DICE = "2D6"
SAMPLE_IN = 0.25
"""Step of the sampling that finds the first point of a move within 8 in (then bisected)."""
BISECT_STEPS = 40
CONCEALED = "concealed"
RELEASES = "fanatic_releases"
FANATICS = "fanatics"
"""The keys of the projection (`_project`)."""


@dataclass(frozen=True)
class FanaticState:
    """This system's part of the state for the Fanatics: {concealing unit id: Fanatics it still
    hides} (the owner's secret, `concealed_of`), the releases waiting to be placed (public,
    `pending_release`) and the released Fanatics ({unit id: {from, released, moved}})."""

    concealed: Mapping[str, int] = field(default_factory=dict)
    releases: tuple[Mapping[str, Any], ...] = ()
    released: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


def _fanatics(state: GameState) -> FanaticState:
    return part_of(state, FanaticState)


def _with(state: GameState, **changes: Any) -> GameState:
    return with_part(state, changed(_fanatics(state), **changes))


# --- the secret ---------------------------------------------------------------------------------


def concealed_of(state: GameState) -> Mapping[str, int]:
    """{concealing unit id: Fanatics it still hides} (the owner's secret)."""
    return _fanatics(state).concealed


def army_secrets(
    state: GameState, seat: int, concealed: Mapping[str, Mapping[str, int]]
) -> list[Event]:
    """The written note (seed 003): one event only `seat` sees, in every whfb8 game."""
    units = {
        uid: int(hidden.get(FANATIC, 0))
        for uid, hidden in concealed.items()
        if int(hidden.get(FANATIC, 0)) > 0
    }
    return [
        Event(
            "fanatics_concealed",
            {"seat": seat, "units": units},
            actor=seat,
            visibility=seat_visibility(seat),
        )
    ]


def without_secrets(state: GameState, seat: int | None) -> GameState:
    """`state` with only `seat`'s own concealed Fanatics (what a preview is judged on)."""
    units = units_of(state)
    mine = {
        uid: n
        for uid, n in concealed_of(state).items()
        if seat is not None and uid in units and units[uid].owner == seat
    }
    if mine == dict(concealed_of(state)):
        return state
    return _with(state, concealed=mine)


@register_folder("fanatics_concealed")
def _fold_concealed(state: GameState, event: Event) -> GameState:
    return _with(state, concealed={**concealed_of(state), **event.payload["units"]})


@register_projector
def _project(state: GameState, viewer: int | None, out: dict[str, Any]) -> None:
    """The owner sees which of their units conceal Fanatics; nobody else sees anything of it.
    Every viewer sees the pending releases and the released Fanatics (public)."""
    if state.system != SYSTEM:
        return
    units = units_of(state)
    out[CONCEALED] = {
        uid: n
        for uid, n in concealed_of(state).items()
        if viewer is not None and uid in units and units[uid].owner == viewer
    }
    out[RELEASES] = [dict(r) for r in pending_release(state)]
    out[FANATICS] = {k: dict(v) for k, v in _fanatics(state).released.items()}


@register_acting
def _releasing(state: GameState) -> frozenset[int]:
    """The owner of Fanatics waiting to be released acts now, in either player's turn: the
    move or charge that came within 8 in waits for them."""
    if state.system != SYSTEM:
        return frozenset()
    return frozenset(int(r["owner"]) for r in pending_release(state) if r.get("owner") in SEATS)


# --- release at 8 in ----------------------------------------------------------------------------


def _hides(state: GameState, unit: Unit) -> bool:
    return (
        concealed_of(state).get(unit.id, 0) > 0
        and unit.status == "on_table"
        and FLEEING not in unit.markers
    )


def _watched(state: GameState, mover: Unit) -> list[tuple[str, str]]:
    """(concealing unit, enemy) pairs the move of `mover` may bring within 8 in."""
    units = units_of(state)
    on_table = [u for u in units.values() if u.status == "on_table" and u.id != mover.id]
    pairs: list[tuple[str, str]] = []
    if _hides(state, mover):
        pairs += [(mover.id, u.id) for u in on_table if u.owner != mover.owner]
    pairs += [(u.id, mover.id) for u in on_table if u.owner != mover.owner and _hides(state, u)]
    return pairs


def move_stop(
    state: GameState, unit_id: str, path: Callable[[float], Footprint]
) -> tuple[float, list[Event]] | None:
    """Where the move must stop to release Fanatics (seed 003), and the release events.
    While Fanatics wait to be released nothing else moves (they are released at once).

    The same work is done for every move whether or not anything is concealed (every enemy on
    the table is sampled and every crossing bisected), so not even the time an opponent's
    move takes depends on the secret; only which crossings count does."""
    refuse_while_releasing(state)
    mover = units_of(state)[unit_id]
    table = table_of(state)
    units = units_of(state)
    enemies = [
        uid for uid, u in units.items()
        if u.status == "on_table" and u.owner != mover.owner and uid in table.units
    ]
    if not enemies:
        return None
    start = path(0.0)
    # Enemies already within 8 in when the move began do not "come within" 8 in.
    open_ = [e for e in enemies if geo.distance(start, table.units[e]).distance > RELEASE_RANGE_IN]
    length = max(start.boundary.hausdorff_distance(path(1.0).boundary), SAMPLE_IN)
    steps = max(1, math.ceil(length / SAMPLE_IN))
    brackets: dict[str, tuple[float, float]] = {}
    for i in range(1, steps + 1):
        here = path(i / steps)
        for e in open_:
            if e not in brackets and geo.distance(here, table.units[e]).distance <= (
                RELEASE_RANGE_IN
            ):
                brackets[e] = ((i - 1) / steps, i / steps)
    crossings: dict[str, float] = {}
    for e, (lo, hi) in brackets.items():
        for _ in range(BISECT_STEPS):
            mid = (lo + hi) / 2
            if geo.distance(path(mid), table.units[e]).distance <= RELEASE_RANGE_IN:
                hi = mid
            else:
                lo = mid
        crossings[e] = hi
    pairs = [
        (hider, enemy)
        for hider, enemy in _watched(state, mover)
        if (enemy if hider == unit_id else hider) in crossings
    ]
    if not pairs:
        return None
    stop = min(crossings[enemy if hider == unit_id else hider] for hider, enemy in pairs)
    here = path(stop)
    units = units_of(state)
    releasing: list[str] = []
    for hider, enemy in pairs:
        a = here if hider == unit_id else table.units[hider]
        b = here if enemy == unit_id else table.units[enemy]
        if geo.distance(a, b).distance <= RELEASE_RANGE_IN + 1e-6 and hider not in releasing:
            releasing.append(hider)
    events = [
        Event(
            "fanatics_revealed",
            {
                "unit": hider,
                "owner": units[hider].owner,
                "count": concealed_of(state)[hider],
                "interrupted": unit_id,
                "text": f"{display_name(state, unit_id)} stop 8 in from "
                + (
                    "the enemy"
                    if hider == unit_id
                    else display_name(state, hider)
                )
                + f": {display_name(state, hider)} release {concealed_of(state)[hider]} "
                "Night Goblin Fanatic(s)",
            },
            actor="system",
        )
        for hider in releasing
    ]
    return stop, events


def refuse_while_releasing(state: GameState) -> None:
    """`out_of_phase` while Fanatics wait to be released (seed 003: the moving unit stops and
    the Fanatics move before anything else does)."""
    pending = pending_release(state)
    if pending:
        names = display_names(state, (r["unit"] for r in pending))
        raise RuleError(
            OUT_OF_PHASE,
            f"Night Goblin Fanatics wait to be released from {names}: their owner releases "
            "them first (the Fanatics panel: Release)",
            rule="Concealed Fanatic",
            units=[r["unit"] for r in pending],
        )


def releasing_charge_refusal(state: GameState) -> tuple[str, str] | None:
    """No charge is declared while Fanatics wait to be released."""
    if pending_release(state):
        return "Concealed Fanatic", "Night Goblin Fanatics wait to be released first"
    return None


def arrival_release(state: GameState, unit_id: str) -> list[Event]:
    """A unit that arrives (Ambushers, Entombed) within 8 in of an enemy concealing unit, or a
    concealing unit that arrives within 8 in of an enemy, releases the Fanatics where it
    stands (seed 003: "or vice versa"; an arrival has no path to stop on)."""
    mover = units_of(state)[unit_id]
    table = table_of(state)
    here = table.units.get(unit_id)
    if here is None:
        return []
    hiders = []
    for hider, enemy in _watched(state, mover):
        other = enemy if hider == unit_id else hider
        if other in table.units and hider not in hiders and (
            geo.distance(here, table.units[other]).distance <= RELEASE_RANGE_IN
        ):
            hiders.append(hider)
    units = units_of(state)
    return [
        Event(
            "fanatics_revealed",
            {
                "unit": hider,
                "owner": units[hider].owner,
                "count": concealed_of(state)[hider],
                "interrupted": unit_id,
                "text": f"{display_name(state, unit_id)} arrive within 8 in: "
                f"{display_name(state, hider)} "
                f"release {concealed_of(state)[hider]} Night Goblin Fanatic(s)",
            },
        )
        for hider in hiders
    ]


@register_folder("fanatics_revealed")
def _fold_revealed(state: GameState, event: Event) -> GameState:
    p = event.payload
    hidden = {k: v for k, v in concealed_of(state).items() if k != p["unit"]}
    pending = (*pending_release(state), {"unit": p["unit"], "left": p["count"],
                                         "owner": p["owner"], "interrupted": p["interrupted"]})
    return _with(state, concealed=hidden, releases=pending)


def pending_release(state: GameState) -> tuple[Mapping[str, Any], ...]:
    return _fanatics(state).releases


# --- the whirl ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Whirl:
    """A Fanatic's move: its centre path, where it ends, the units it passed through, and why
    it was removed (None: it stays)."""

    start: tuple[float, float]
    end: tuple[float, float]
    facing: float
    rolled: float
    travelled: float
    through: tuple[str, ...]
    removed: str | None = None
    other_fanatic: str | None = None


def _radius(state: GameState) -> float:
    from server.data import load_catalog

    base = load_catalog().get(SYSTEM, FANATIC).base
    return float(geo.mm_to_in(float(getattr(base, "diameter_mm", 25.0)))) / 2


def _ray_span(
    geom: BaseGeometry, start: tuple[float, float], d: tuple[float, float], far: float
) -> tuple[float, float] | None:
    """(entry, exit) distances along the ray from `start` in direction `d` across `geom`."""
    ray = shapely.LineString([start, (start[0] + d[0] * far, start[1] + d[1] * far)])
    cut = geom.intersection(ray)
    if cut.is_empty:
        return None
    pts = shapely.get_coordinates(cut)
    ts = [(x - start[0]) * d[0] + (y - start[1]) * d[1] for x, y in pts]
    return max(0.0, min(ts)), max(ts)


def whirl(
    state: GameState,
    fanatic_id: str | None,
    start: tuple[float, float],
    facing: float,
    rolled: float,
    ignore: tuple[str, ...] = (),
) -> Whirl:
    """A Fanatic's straight move of `rolled` in from `start` (its centre) facing `facing`
    (seed 003: through units, bounce 1 in beyond a unit it would end in, removed by terrain
    that is not open ground, another Fanatic, or the table edge)."""
    r = _radius(state)
    d = forward_vector(facing)
    table = table_of(state)
    units = units_of(state)
    far = 200.0
    fanatics = {
        uid for uid, u in units.items() if u.datasheet == FANATIC and uid != fanatic_id
    } & set(table.units)
    solid = [
        uid
        for uid in table.units
        if uid != fanatic_id and uid not in fanatics and uid not in ignore
    ]
    stops: list[tuple[float, str, str | None]] = []
    for terrain in terrain_of(state):
        if terrain.kind == TerrainKind.OPEN:
            continue
        span = _ray_span(shapely.Polygon(terrain.points).buffer(r), start, d, far)
        if span is not None:
            stops.append((span[0], "terrain", terrain.id))
    for other in fanatics:
        span = _ray_span(table.units[other].boundary.buffer(r), start, d, far)
        if span is not None:
            stops.append((span[0], "fanatic", other))
    w, h = state.battlefield.width, state.battlefield.depth
    inner = shapely.box(r, r, w - r, h - r)
    span = _ray_span(inner, start, d, far)
    stops.append((span[1] if span is not None else 0.0, "table_edge", None))
    length = rolled
    for _ in range(len(solid) + 1):
        bounced = length
        for uid in solid:
            fp = table.units[uid]
            end = shapely.Point(start[0] + d[0] * length, start[1] + d[1] * length).buffer(r)
            if geo.in_base_contact(fp.boundary, end):
                out = _ray_span(fp.boundary.buffer(r + BOUNCE_IN), start, d, far)
                if out is not None:
                    bounced = max(bounced, out[1])
        if bounced <= length + 1e-9:
            break
        length = bounced
    removed = other_fanatic = None
    first = min((s for s in stops if s[0] <= length + 1e-9), default=None, key=lambda s: s[0])
    if first is not None:
        length, removed = first[0], first[1]
        other_fanatic = first[2] if first[1] == "fanatic" else None
    end_pt = (start[0] + d[0] * length, start[1] + d[1] * length)
    corridor = shapely.LineString([start, end_pt]).buffer(r) if length > 0 else shapely.Point(
        start
    ).buffer(r)
    through = tuple(
        sorted(
            (uid for uid in solid if geo.in_base_contact(table.units[uid].boundary, corridor)),
            key=lambda uid: geo.distance(table.units[uid], shapely.Point(start)).distance,
        )
    )
    return Whirl(
        (round(start[0], 4), round(start[1], 4)),
        (round(end_pt[0], 4), round(end_pt[1], 4)),
        facing % 360.0,
        rolled,
        round(length, 4),
        through,
        removed,
        other_fanatic,
    )


def _placed(state: GameState, unit: Unit, centre: tuple[float, float], facing: float) -> Unit:
    """`unit` standing with its base centred on `centre`, facing `facing`."""
    trial = dataclasses.replace(unit, status="on_table", placement=(centre[0], centre[1], facing))
    fp = footprint_of(state, trial)
    assert fp is not None
    c = fp.boundary.centroid
    dx, dy = c.x - centre[0], c.y - centre[1]
    return dataclasses.replace(
        trial,
        placement=(round(centre[0] - dx, 4), round(centre[1] - dy, 4), round(facing % 360.0, 4)),
    )


REMOVAL_TEXT = {
    "terrain": "touches terrain that is not open ground",
    "fanatic": "contacts another Fanatic (both are removed)",
    "table_edge": "moves off the table edge",
    "double": "rolled a double for its move",
    "contacted": "was moved into by a unit",
}


def whirl_events(
    state: GameState,
    fanatic: Unit,
    path: Whirl,
    roll: Roll | None,
    dice: DiceStream,
    *,
    kind: str,
    actor: int,
    extra: Mapping[str, Any] | None = None,
) -> list[Event]:
    """The Fanatic's move, the hits on every unit it passed through, and its removal."""
    log = Log(state)
    moved = _placed(state, fanatic, path.end, path.facing)
    payload: dict[str, Any] = {
        "unit": moved.to_json(),
        "start": list(path.start),
        "end": list(path.end),
        "facing": path.facing,
        "distance": path.travelled,
        "through": list(path.through),
        "removed": path.removed,
        **(extra or {}),
    }
    if roll is not None:
        payload["roll"] = roll.to_payload()
    named = with_unit(state, moved)
    verb = {"fanatic_released": "is released and whirls", "fanatic_moved": "whirls"}[kind]
    payload["text"] = (
        f"{display_name(named, moved.id)} {verb} {say_inches(path.travelled)}"
        + (f" from {display_name(state, str((extra or {})['from']))}"
           if kind == "fanatic_released" else "")
        + (f" through {display_names(state, path.through)}" if path.through else "")
        + (f"; it {REMOVAL_TEXT[path.removed]}" if path.removed else "")
    )
    log.add(Event(kind, payload, actor=actor))
    for target_id in path.through:
        target = log.unit(target_id)
        if target.status != "on_table":
            continue
        hits = dice.roll("D6")
        n = hits.total or 0
        log.add(
            Event(
                "fanatic_hits",
                {
                    "unit": fanatic.id,
                    "target": target_id,
                    "hits": n,
                    "roll": hits.to_payload(),
                    "text": f"{display_name(log.state, moved.id)}: {n} Strength {HIT_STRENGTH} "
                    f"Armour Piercing ({ARMOUR_PIERCING}) hits on "
                    f"{display_name(log.state, target_id)} (D6)",
                },
            )
        )
        hit_batch(log, moved, target, n, dice, "Fanatic Impacts")
    if path.removed is not None:
        log.add(*removal(log.state, moved.id, path.removed))
        if path.other_fanatic is not None and log.unit(path.other_fanatic).status == "on_table":
            log.add(*removal(log.state, path.other_fanatic, "fanatic"))
    else:
        # A Fanatic is an enemy unit too: ending within 8 in of the other side's concealing
        # units releases theirs, where it stands (its whirl is not stopped part-way).
        log.add(*arrival_release(log.state, moved.id))
    return log.events


def hit_batch(log: Log, source: Unit, target: Unit, hits: int, dice: Any, label: str) -> None:
    """`hits` S5 Armour Piercing (1) hits on `target`, through whfb8's attack steps."""
    rules = rank_and_flank_of(log.state)
    strike = Strike(
        label, hits, HIT_STRENGTH, armour_piercing=ARMOUR_PIERCING
    )
    guard = rules.guard(rank_and_file_sheet(log.state, target), parry=False, charged=False)
    outcome = resolve(STEPS, strike, guard, dice, hits=hits)
    log.add(*step_events(outcome, source, target))
    losses, _ = losses_events(log.state, target, outcome.unsaved)
    log.add(*losses)
    if not pending_release(log.state):  # else once none waits (release_fanatic, seed 003)
        heavy_casualties(log, target.id, source.id, dice)  # 25 % in a phase (FACTS)


def _on_table_fanatics(state: GameState) -> list[Unit]:
    return [
        u for u in units_of(state).values() if u.datasheet == FANATIC and u.status == "on_table"
    ]


def passable(state: GameState, unit_id: str) -> tuple[str, ...]:
    """Fanatics cannot be charged, but models can move into contact with them (seed 003)."""
    if units_of(state)[unit_id].datasheet == FANATIC:
        return ()
    return tuple(u.id for u in _on_table_fanatics(state))


def _fanatics_in_the_way(state: GameState, unit_id: str, swept: Any) -> list[Unit]:
    """The released Fanatics a move sweeping `swept` runs into (none for a Fanatic's own)."""
    if units_of(state)[unit_id].datasheet == FANATIC:
        return []
    table = table_of(state)
    return [
        f for f in _on_table_fanatics(state)
        if (fp := table.units.get(f.id)) is not None and geo.in_base_contact(fp.boundary, swept)
    ]


def move_hazards(state: GameState, unit_id: str, swept: Any) -> list[str]:
    """The Fanatics in a move's path, and what moving into each costs, in words (the charge
    preview: the player learns it before declaring)."""
    mover = display_name(state, unit_id)
    return [
        f"{display_name(state, f.id)} is in the path: {mover} would take 2D6 Strength "
        f"{HIT_STRENGTH} Armour Piercing ({ARMOUR_PIERCING}) hits moving into it"
        for f in _fanatics_in_the_way(state, unit_id, swept)
    ]


def move_contacts(state: GameState, unit_id: str, swept: Any, dice: Any) -> list[Event]:
    """Seed 003: "Any unit that does so takes 2D6 S 5 Armour Piercing (1) hits. The Fanatic
    model is then removed, and the unit may carry on with its move" (seed 003)."""
    log = Log(state)
    for fanatic in _fanatics_in_the_way(state, unit_id, swept):
        mover = log.unit(unit_id)
        if mover.status != "on_table":
            break
        roll = dice.roll("2D6")
        n = roll.total or 0
        log.add(
            Event(
                "fanatic_hits",
                {
                    "unit": fanatic.id,
                    "target": unit_id,
                    "hits": n,
                    "roll": roll.to_payload(),
                    "text": f"{display_name(log.state, unit_id)} move into "
                    f"{display_name(log.state, fanatic.id)}: {n} Strength "
                    f"{HIT_STRENGTH} Armour Piercing ({ARMOUR_PIERCING}) hits (2D6)",
                },
            )
        )
        hit_batch(log, fanatic, mover, n, dice, "Fanatic Impacts")
        log.add(*removal(log.state, fanatic.id, "contacted"))
    return log.events


def removal(state: GameState, fanatic_id: str, reason: str) -> list[Event]:
    return [
        Event(
            "fanatic_removed",
            {
                "unit": fanatic_id,
                "reason": reason,
                "text": f"{display_name(state, fanatic_id)} removed: it {REMOVAL_TEXT[reason]}",
            },
        )
    ]


def _turn_key(state: GameState) -> list[Any]:
    return [state.battle.turn, state.battle.active_player]


@register_folder("fanatic_released")
def _fold_released(state: GameState, event: Event) -> GameState:
    p = event.payload
    unit = unit_from_json(p["unit"])
    state = with_unit(state, unit)
    pending = []
    for r in pending_release(state):
        if r["unit"] == p["from"]:
            r = {**r, "left": r["left"] - 1}
        if r["left"] > 0:
            pending.append(r)
    fanatics = {
        **_fanatics(state).released,
        unit.id: {"from": p["from"], "released": _turn_key(state), "moved": _turn_key(state)},
    }
    state = _with(state, releases=tuple(pending), released=fanatics)
    return state.evolve(next_id=state.next_id + 1)


@register_folder("fanatic_moved")
def _fold_moved(state: GameState, event: Event) -> GameState:
    p = event.payload
    state = with_unit(state, unit_from_json(p["unit"]))
    fanatics = dict(_fanatics(state).released)
    if p["unit"]["id"] in fanatics:
        fanatics[p["unit"]["id"]] = {**fanatics[p["unit"]["id"]], "moved": _turn_key(state)}
    return _with(state, released=fanatics)


@register_folder("fanatic_removed")
def _fold_removed(state: GameState, event: Event) -> GameState:
    unit = units_of(state).get(event.payload["unit"])
    if unit is None:
        return state
    return with_unit(state, dataclasses.replace(unit, status="destroyed"))


@register_folder("fanatic_hits")
def _fold_hits(state: GameState, event: Event) -> GameState:
    return state


@register_folder("fanatics_lost")
def _fold_lost(state: GameState, event: Event) -> GameState:
    hidden = {k: v for k, v in concealed_of(state).items() if k != event.payload["unit"]}
    return _with(state, concealed=hidden)


# --- actions ------------------------------------------------------------------------------------


class ReleaseFanatic(ActionModel):
    type: Literal["release_fanatic"]
    unit: str
    point: tuple[Coord, Coord]
    facing: Facing


@register_action(
    "release_fanatic",
    ReleaseFanatic,
    systems=[SYSTEM],
    when=[When(BATTLE, EITHER)],
    doing="releasing a Night Goblin Fanatic",
)
def release_fanatic(
    state: GameState, seat: int, action: ReleaseFanatic, dice: DiceStream
) -> list[Event]:
    """Release one Fanatic of a concealing unit stopped at 8 in (seed 003): its owner picks
    the point on the unit it starts from and its direction; it moves 2D6 in (Random
    Movement). The owner acts even in the opponent's turn."""
    pending = next((r for r in pending_release(state) if r["unit"] == action.unit), None)
    if pending is None:
        raise RuleError(
            OUT_OF_PHASE, f"no Fanatics wait to be released from {action.unit!r}",
            unit=action.unit, rule="Concealed Fanatic",
        )
    hider = unit_of(state, action.unit, seat)
    fp = table_of(state).units.get(hider.id)
    if fp is None:
        raise RuleError(OUT_OF_PHASE, f"{display_name(state, hider.id)} is not on the table")
    start = (float(action.point[0]), float(action.point[1]))
    if geo.distance_to_point(fp, start).distance > CONTACT_TOLERANCE_IN:
        raise RuleError(
            ILLEGAL_MOVE,
            f"a Fanatic starts from a point on {display_name(state, hider.id)}; "
            f"({start[0]:g}, {start[1]:g}) is "
            f"{say_inches(geo.distance_to_point(fp, start).distance, 0.0)} away",
            rule="Concealed Fanatic",
        )
    events = _release(state, hider, start, float(action.facing), dice)
    after = fold_all(state, events)
    if not pending_release(after):
        events += heavy_casualties_held_back(  # the Panic Tests for the Fanatics' hits
            after, lambda u: hider.id if u.owner != hider.owner else pending["interrupted"], dice)
        after = fold_all(state, events)
        # Seed 003: "chargers must complete their charge" once the Fanatics have moved; a
        # Fanatic on the rest of its way is moved into (2D6 hits, removed).
        done = complete_interrupted_charge(after)
        events += done
        for charged in (e for e in done if e.type == "charge_succeeded"):
            uid = charged.payload["unit"]
            there = fold_all(after, done)
            rest = sweep_straight(table_of(after).units[uid], table_of(there).units[uid])
            events += move_contacts(there, uid, rest, dice)
        # A flee stopped at 8 in goes on, then what came after it (the charge on the fleeing
        # unit), with the distances rolled before the stop (server/rules/resume.py).
        events += resume(fold_all(state, events), dice, lambda s: bool(pending_release(s)))
    return events


def _release(
    state: GameState,
    hider: Unit,
    start: tuple[float, float],
    facing: float,
    dice: DiceStream,
) -> list[Event]:
    """One Fanatic out of `hider` from `start` facing `facing`: 2D6 in (Random Movement)."""
    roll = dice.roll(MOVE_DICE)
    fanatic = Unit(state.new_id("u"), hider.owner, FANATIC, "Night Goblin Fanatic", 1, 1)
    path = whirl(state, None, start, facing, float(roll.total or 0), ignore=(hider.id,))
    return whirl_events(
        state, fanatic, path, roll, dice, kind="fanatic_released", actor=hider.owner,
        extra={"from": hider.id},
    )


class RandomMove(ActionModel):
    type: Literal["random_move"]
    unit: str
    # The direction a unit with Random Movement pivots to (not a Fanatic: random direction).
    facing: Facing | None = None


def _due(state: GameState, unit: Unit) -> bool:
    info = _fanatics(state).released.get(unit.id)
    return (
        info is not None
        and unit.status == "on_table"
        and list(info["moved"]) != _turn_key(state)
        and list(info["released"]) != _turn_key(state)
    )


def fanatic_move(state: GameState, unit: Unit, dice: DiceStream, actor: int) -> list[Event]:
    """A released Fanatic's move in a later turn (seed 003): a random direction (scatter die;
    a HIT keeps its last direction, a Decision), 2D6 in; a double removes it."""
    assert unit.placement is not None
    scatter = dice.roll("scatter")
    hit = bool(scatter.extra.get("hit")) if scatter.extra else True
    facing = unit.placement[2] if hit else float(scatter.extra["direction_deg"])
    roll = dice.roll(MOVE_DICE)
    faces = [f for f in roll.kept_faces if isinstance(f, int)]
    fp = table_of(state).units[unit.id]
    c = fp.boundary.centroid
    if len(faces) == 2 and faces[0] == faces[1]:
        path = Whirl((c.x, c.y), (c.x, c.y), facing, float(roll.total or 0), 0.0, (), "double")
    else:
        path = whirl(state, unit.id, (c.x, c.y), facing, float(roll.total or 0))
    return whirl_events(
        state, unit, path, roll, dice, kind="fanatic_moved", actor=actor,
        extra={"scatter": scatter.to_payload()},
    )


@register_action(
    "random_move",
    RandomMove,
    systems=[SYSTEM],
    when=[When(BATTLE, ACTIVE, MOVEMENT_PHASE)],
    doing="a Random Movement move",
)
def random_move(state: GameState, seat: int, action: RandomMove, dice: DiceStream) -> list[Event]:
    """Move a released Fanatic in its player's Movement phase (Compulsory Moves)."""
    unit = unit_of(state, action.unit, seat)
    refuse_while_releasing(state)
    if unit.id not in _fanatics(state).released:
        return _other_random_move(state, seat, unit, action, dice)
    if action.facing is not None:
        raise RuleError(
            BAD_REQUEST, "a Fanatic always moves in a random direction: give no facing",
            field="facing", rule="Random Movement",
        )
    if not _due(state, unit):
        raise RuleError(
            ILLEGAL_MOVE,
            f"{display_name(state, unit.id)} has already moved this turn (or was released in it)",
            rule="Random Movement",
        )
    return fanatic_move(state, unit, dice, seat)


def _other_random_move(
    state: GameState, seat: int, unit: Unit, action: RandomMove, dice: DiceStream
) -> list[Event]:
    """A unit with Random Movement that is not a Fanatic (random_movement.py)."""
    from server.data import load_catalog
    from server.rules.units import phase_moves
    from server.rules.whfb8.random_movement import has_random_movement, random_move_events

    if not has_random_movement(load_catalog().get(state.system, unit.datasheet)):
        raise RuleError(BAD_REQUEST, f"{display_name(state, unit.id)} has no Random Movement",
                        rule="Random Movement")
    if unit.status != "on_table":
        raise RuleError(OUT_OF_PHASE, f"{display_name(state, unit.id)} is not on the table")
    if action.facing is None:
        raise RuleError(BAD_REQUEST, "give the facing the unit pivots to", field="facing")
    if phase_moves(state).get(unit.id):
        raise RuleError(ILLEGAL_MOVE,
                        f"{display_name(state, unit.id)} has already moved this phase",
                        rule="Random Movement")
    return random_move_events(state, seat, unit.id, float(action.facing), dice)


@on_phase_start(SYSTEM, "Movement")
def _compulsory(state: GameState, dice: DiceStream) -> list[Event]:
    """The active player's released Fanatics move as their Movement phase starts, in the
    Compulsory Moves sub-phase (seed 003), before any other move or charge of theirs (a
    Decision: docs/rules-decisions.md); one released this turn waits for the next.

    Each Fanatic is looked up afresh before it moves: an earlier whirl may have removed it
    (contact with another Fanatic, hits). None moves while a release waits (seed 003: the
    released Fanatics move at once, before anything else); a whirl that releases enemy
    Fanatics suspends the rest (`_resume_compulsory`, then the rest of the phase's start,
    server/rules/battle.py `phase_start_from`), which the release then resumes."""
    if pending_release(state):
        return []  # none is: no phase ends while one waits (`_releases_first`)
    events: list[Event] = []
    active = state.battle.active_player
    for uid in list(units_of(state)):
        unit = units_of(state).get(uid)
        if (
            unit is None
            or unit.owner != active
            or uid not in table_of(state).units
            or not _due(state, unit)
        ):
            continue
        made = fanatic_move(state, unit, dice, unit.owner)
        state = fold_all(state, made)
        events += made
        if pending_release(state):
            return suspend_with(
                events, {"kind": COMPULSORY, "text": "the rest of the Fanatics' compulsory moves"}
            )
    return events


COMPULSORY = "fanatic_compulsory"


@register_frame(COMPULSORY)
def _resume_compulsory(state: GameState, frame: Any, dice: Any) -> list[Event]:
    """The Fanatics still due once the releases are done (each moves at most once a turn)."""
    return _compulsory(state, dice)


@on_phase_end(SYSTEM)
def _releases_first(state: GameState, dice: DiceStream) -> list[Event]:
    """No phase ends while Fanatics wait to be released (seed 003: released at once)."""
    refuse_while_releasing(state)
    return []


@on_phase_end(SYSTEM)
def lost_fanatics(state: GameState, dice: DiceStream) -> list[Event]:
    """Concealing units that fled or were destroyed lose their hidden Fanatics (seed 003)."""
    units = units_of(state)
    out = []
    for uid, n in concealed_of(state).items():
        unit = units.get(uid)
        if unit is not None and (unit.status == "destroyed" or FLEEING in unit.markers):
            out.append(
                Event(
                    "fanatics_lost",
                    {
                        "unit": uid,
                        "count": n,
                        "text": f"{display_name(state, uid)} "
                        + ("is destroyed" if unit.status == "destroyed" else "flees")
                        + f": the {n} Night Goblin Fanatic(s) it hid are lost",
                    },
                )
            )
    return out


__all__ = ["army_secrets", "move_stop", "whirl"]
