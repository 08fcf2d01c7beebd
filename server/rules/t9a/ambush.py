"""Ambush, all of it, for The 9th Age (seed 000_ac64b535f31b5cdf, Ambush, and the Mageblight
Gremlins' own rule).

- Units entirely with Ambush may be placed in Ambush at deployment (`declare_reserve`, setup.py).
- An Attachable Model in Ambush may choose, before each of its owner's ambush rolls, an
  ambushing unit with the same Ambush value to join (`choose_ambush_host`); the combined unit
  rolls once and arrives together, the character in its front rank.
- From the owner's Player Turn 2, at the start of their Movement Phase, one D6 per ambushing
  unit: 3+ arrives; in the owner's Player Turns 5 and 6 the roll counts as a 3+. A unit with
  the Gremlins' rule ("Spell-Eater Ambush") gains one Maximised instance per spell the opponent
  cast successfully in their previous Magic Phase (server/rules/magic.py).
- A unit that may arrive is placed with `arrive_from_ambush`: a point on a Battlefield Edge and
  a placement the geometry core accepts (3 of 4 corners within 6 in, on the table, Unit
  Spacing, nothing between the Unit Boundary and the point). It counts as having made an
  Advance Move and cannot move again that phase; arriving in Game Turn 6 loses Scoring.
- The Movement Phase cannot end while a unit that rolled to arrive still can; a unit for which
  no suitable point exists stays in Ambush this turn (`ambush_delayed`). "No suitable point"
  is said only after every formation the unit can take (each number of files, its current
  one first) was tried at every edge point (`find_arrival`).
- Units still in Ambush when the game ends are removed as casualties.

Player Turn numbers here are the owner's own (their n-th Player Turn is in Game Turn n).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal, NamedTuple

from pydantic import Field

from server import geometry as geo
from server.data.army import join_problems
from server.dice import DiceStream
from server.geometry.ambush import ambush_zone, check_ambush, edge_facing, find_ambush_placement
from server.geometry.formation import RankedFormation, layout
from server.geometry.frame import Placement, forward_vector
from server.rules.battle import on_game_end, on_phase_end, on_phase_start
from server.rules.core import (
    ACTIVE,
    BAD_REQUEST,
    BATTLE,
    DEPLOYMENT,
    ILLEGAL_MOVE,
    OUT_OF_PHASE,
    ActionModel,
    Event,
    GameState,
    Phases,
    RuleError,
    When,
    part_of,
    register_action,
    register_folder,
    register_projector,
    with_part,
)
from server.rules.magic import opponent_spells_last_magic_phase
from server.rules.naming import display_name, in_the_way
from server.rules.orders import judge, offer, refused, register_offer
from server.rules.systems import MOVEMENT_PHASE
from server.rules.units import (
    Coord,
    Facing,
    JoinedCharacter,
    Unit,
    datasheet_of,
    phase_moves,
    ranked_formation,
    record_turn_move,
    table_of,
    unit_from_json,
    unit_of,
    units_of,
    with_phase_moves,
    with_unit,
)

AMBUSH = "Ambush"
SPELL_EATER = "Spell-Eater Ambush"
ARRIVES_ON = 3
AUTOMATIC_FROM_TURN = 5
FIRST_ROLL_TURN = 2
LAST_GAME_TURN = 6
READY = "ambush_ready"
LOST_SCORING = "lost_scoring"
EDGE_SCAN_STEP_IN = 3.0
"""Spacing of the edge points tried when the server checks whether any arrival is possible."""
MAX_FILES = 50
"""The widest formation an arrival may name (and the forced-arrival search tries)."""


def ambush_value(state: GameState, unit: Unit) -> str | None:
    """X of the unit's Ambush (X), e.g. "Battlefield Edge"; None without Ambush."""
    rule = datasheet_of(state, unit).rule(AMBUSH)
    return None if rule is None else str(rule.param or "")


@dataclass(frozen=True, slots=True)
class AmbushHosts:
    """This system's part of the state for Ambush: characters in Ambush -> the ambushing unit
    they are joined to for now."""

    hosts: Mapping[str, str] = field(default_factory=dict)


def _hosts(state: GameState) -> Mapping[str, str]:
    """Characters in Ambush -> the ambushing unit they are joined to for now."""
    return part_of(state, AmbushHosts).hosts


def _riders(state: GameState, host_id: str) -> list[Unit]:
    units = units_of(state)
    return [units[c] for c, h in _hosts(state).items() if h == host_id and c in units]


def _ambushers(state: GameState, seat: int) -> Iterator[Unit]:
    """The owner's units in Ambush that roll for themselves (not characters riding along)."""
    hosted = _hosts(state)
    for unit in units_of(state).values():
        if unit.owner == seat and unit.status == "ambush" and unit.id not in hosted:
            yield unit


# --- joining a character to an ambushing unit ---------------------------------------------------


class ChooseAmbushHost(ActionModel):
    type: Literal["choose_ambush_host"]
    character: str
    host: str | None = None


def _check_ambushing_character(state: GameState, character: Unit) -> None:
    """An Attachable Model in Ambush (the stage and phase are the action's window)."""
    if not datasheet_of(state, character).can_join or character.status != "ambush":
        raise RuleError(
            ILLEGAL_MOVE, f"{character.name} is not an Attachable Model in Ambush", rule=AMBUSH
        )


def _check_host(state: GameState, character: Unit, host: Unit) -> None:
    """May `character` arrive from Ambush with `host` (its owner's unit)?"""
    if host.status != "ambush" or host.id == character.id or host.id in _hosts(state):
        raise RuleError(ILLEGAL_MOVE, f"{display_name(state, host.id)} is not a unit in Ambush",
                                      rule=AMBUSH)
    if datasheet_of(state, host).can_join:
        raise RuleError(ILLEGAL_MOVE, "characters join units, not other characters")
    if ambush_value(state, host) != ambush_value(state, character):
        raise RuleError(
            ILLEGAL_MOVE,
            f"{character.name} has Ambush ({ambush_value(state, character)}); "
            f"{display_name(state, host.id)} has Ambush ({ambush_value(state, host)}): the values "
            "must match",
            rule=AMBUSH,
        )
    problems = join_problems(
        state.system, datasheet_of(state, host), datasheet_of(state, character)
    )
    if problems:
        code, message = problems[0]
        raise RuleError(ILLEGAL_MOVE, message, rule=AMBUSH, reason=code)


@register_offer("choose_ambush_host", anytime=True)
def _offer_host(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """Arrive with…: an ambushing character's choice of unit, with the units it may join (in
    deployment either player chooses for their own, whoever deploys next)."""
    if unit.owner != seat or judge(lambda: _check_ambushing_character(state, unit)):
        return None
    hosts = [
        {"unit": u.id, "available": why is None, "reason": None if why is None else why.message}
        for u in units_of(state).values()
        if u.owner == seat and u.status == "ambush" and u.id != unit.id
        and not datasheet_of(state, u).can_join
        for why in [judge(partial(_check_host, state, unit, u))]
    ]
    return offer("choose_ambush_host", host=_hosts(state).get(unit.id), hosts=hosts)


@register_action(
    "choose_ambush_host",
    ChooseAmbushHost,
    systems=["t9a"],
    # At deployment, or in the owner's Player Turn before the Movement Phase's ambush rolls.
    when=[When(DEPLOYMENT), When(BATTLE, ACTIVE, Phases.named("Charge"))],
    doing="choosing the unit a character in Ambush arrives with",
)
def choose_ambush_host(
    state: GameState, seat: int, action: ChooseAmbushHost, dice: DiceStream
) -> list[Event]:
    """An Attachable Model in Ambush picks the ambushing unit it arrives with (or none), at
    deployment or in its owner's Player Turn before the Movement Phase's ambush rolls."""
    character = unit_of(state, action.character, seat)
    _check_ambushing_character(state, character)
    if action.host is not None:
        host = unit_of(state, action.host, seat)
        _check_host(state, character, host)
        text = f"{character.name} will arrive from Ambush with {display_name(state, host.id)}"
    else:
        text = f"{character.name} will arrive from Ambush on its own"
    return [
        Event(
            "ambush_host_chosen",
            {"character": character.id, "host": action.host, "text": text, "rule": AMBUSH},
            actor=seat,
        )
    ]


@register_folder("ambush_host_chosen")
def _fold_host_chosen(state: GameState, event: Event) -> GameState:
    hosts = dict(_hosts(state))
    hosts.pop(event.payload["character"], None)
    if event.payload["host"] is not None:
        hosts[event.payload["character"]] = event.payload["host"]
    return with_part(state, AmbushHosts(hosts))


# --- the rolls ----------------------------------------------------------------------------------


def ambush_roll_expression(state: GameState, unit: Unit) -> tuple[str, int]:
    """The dice of the unit's ambush roll now and its Maximised instances (Spell-Eater)."""
    instances = 0
    if datasheet_of(state, unit).has_rule(SPELL_EATER):
        instances = opponent_spells_last_magic_phase(state, unit.owner)
    return ("D6" if instances == 0 else f"D6 maximised x{instances}"), instances


@on_phase_start("t9a", "Movement")
def roll_for_ambushers(state: GameState, dice: DiceStream) -> list[Event]:
    """At the start of the owner's Movement Phase, from their Player Turn 2: one roll per
    ambushing unit (one for a combined unit); Player Turns 5 and 6 count as a 3+."""
    seat = state.battle.active_seat
    turn = (state.battle.turn or 1)
    if turn < FIRST_ROLL_TURN:
        return []
    events = []
    for unit in _ambushers(state, seat):
        riders = [r.name for r in _riders(state, unit.id)]
        who = unit.name + "".join(f" with {r}" for r in riders)
        payload: dict[str, Any] = {"unit": unit.id, "riders": riders, "rule": AMBUSH,
                                   "needed": ARRIVES_ON, "player_turn": turn}
        if turn >= AUTOMATIC_FROM_TURN:
            payload |= {
                "automatic": True,
                "arrives": True,
                "text": f"{who}: Player Turn {turn}, the Ambush roll counts as a 3+",
            }
        else:
            expression, instances = ambush_roll_expression(state, unit)
            roll = dice.roll(expression)
            arrives = (roll.total or 0) >= ARRIVES_ON
            why = (
                f" ({instances} spell{'s' if instances != 1 else ''} cast last Magic Phase: "
                f"Maximised x{instances})"
                if instances
                else ""
            )
            payload |= {
                "automatic": False,
                "roll": roll.to_payload(),
                "maximised": instances,
                "arrives": arrives,
                "text": f"{who} roll{why} {roll.total} for Ambush: "
                + ("they arrive this turn" if arrives else "they stay in Ambush"),
            }
            if instances:
                payload["rules"] = [AMBUSH, SPELL_EATER]
        events.append(Event("ambush_rolled", payload, actor="system"))  # the game rolls it
    return events


def _mark(unit: Unit, add: str | None = None, drop: str | None = None) -> Unit:
    markers = tuple(m for m in unit.markers if m != drop)
    if add is not None and add not in markers:
        markers = (*markers, add)
    return dataclasses.replace(unit, markers=markers)


@register_folder("ambush_rolled")
def _fold_ambush_rolled(state: GameState, event: Event) -> GameState:
    if not event.payload["arrives"]:
        return state
    unit = units_of(state)[event.payload["unit"]]
    return with_unit(state, _mark(unit, add=READY))


# --- arriving -----------------------------------------------------------------------------------


class ArriveFromAmbush(ActionModel):
    type: Literal["arrive_from_ambush"]
    unit: str
    point: tuple[Coord, Coord]
    x: Coord
    y: Coord
    facing: Facing
    files: int | None = Field(default=None, ge=1, le=MAX_FILES)


def arrival_formation(state: GameState, unit: Unit, files: int | None) -> RankedFormation:
    """The arriving unit in the formation its owner chose, riders in its front rank."""
    joined = tuple(c.datasheet for c in unit.characters) + tuple(
        r.datasheet for r in _riders(state, unit.id)
    )
    return ranked_formation(
        state.system, unit.datasheet, unit.models, files or unit.files or 1, joined
    )


def _require_edge_point(state: GameState, unit: Unit, point: tuple[float, float]) -> None:
    value = ambush_value(state, unit)
    if value != "Battlefield Edge":
        raise RuleError(
            BAD_REQUEST,
            f"Ambush ({value}) is not automated: only Ambush (Battlefield Edge) is",
            rule=AMBUSH,
        )
    if not table_of(state).battlefield.on_edge(point, tolerance=1e-3):
        raise RuleError(
            ILLEGAL_MOVE,
            f"the chosen point ({point[0]:g}, {point[1]:g}) is not on a Battlefield Edge",
            rule="Ambush: Battlefield Edge",
            obstacle=None,
        )


def _check_ready(unit: Unit) -> None:
    if unit.status != "ambush" or READY not in unit.markers:
        raise RuleError(
            OUT_OF_PHASE,
            f"{unit.name} has not rolled to arrive from Ambush this turn",
            rule=AMBUSH,
        )


@register_offer("arrive_from_ambush")
def _offer_arrive(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """Arrive: an ambusher that rolled to arrive, in its owner's Movement Phase, with a valid
    arrival the server found (edge point and placement) to start from."""
    if unit.owner != seat or unit.status != "ambush":
        return None
    err = judge(lambda: _check_ready(unit))
    if err is not None:
        return refused("arrive_from_ambush", err)
    value = ambush_value(state, unit)
    if value != "Battlefield Edge":
        return offer("arrive_from_ambush", False,
                     f"Ambush ({value}) is not automated: place the unit by agreement")
    found = find_arrival(state, unit)
    if found is None:
        return offer("arrive_from_ambush", False,
                     f"{display_name(state, unit.id)}: no suitable point on the Battlefield Edge "
                     "this turn")
    (px, py), where, files = found
    return offer(
        "arrive_from_ambush",
        suggested={"point": [px, py], "x": where.x, "y": where.y, "facing": where.facing,
                   "files": files},
    )


@register_action(
    "arrive_from_ambush",
    ArriveFromAmbush,
    systems=["t9a"],
    when=[When(BATTLE, ACTIVE, MOVEMENT_PHASE)],
    doing="arriving from Ambush",
)
def arrive_from_ambush(
    state: GameState, seat: int, action: ArriveFromAmbush, dice: DiceStream
) -> list[Event]:
    """Place a unit that rolled to arrive, checked by the geometry core's ambush judgement."""
    unit = unit_of(state, action.unit, seat)
    _check_ready(unit)
    point = (float(action.point[0]), float(action.point[1]))
    _require_edge_point(state, unit, point)
    formation = arrival_formation(state, unit, action.files)
    placement = Placement(action.x, action.y, action.facing % 360.0)
    check = check_ambush(table_of(state), unit.id, formation, placement, point)
    if not check.legal:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{display_name(state, unit.id)} cannot arrive there: {check.rule}"
            + in_the_way(state, check.obstacle),
            rule=str(check.rule),
            obstacle=check.obstacle,
            corners_within=check.corners_within,
            swept=geo.to_geojson(check.region),
        )
    riders = _riders(state, unit.id)
    turn = (state.battle.turn or 1)
    arrived = dataclasses.replace(
        _mark(unit, drop=READY),
        status="on_table",
        placement=(round(placement.x, 4), round(placement.y, 4), round(placement.facing, 4)),
        files=formation.files,
        characters=unit.characters + tuple(JoinedCharacter(r.datasheet, r.name) for r in riders),
        name=unit.name + "".join(f" + {r.name}" for r in riders),
    )
    notes = []
    if turn >= LAST_GAME_TURN:
        arrived = _mark(arrived, add=LOST_SCORING)
        notes.append("arriving in Game Turn 6, it loses Scoring")
    text = (
        f"{display_name(state, arrived.id)} arrive from Ambush at the table edge ({point[0]:g}, "
        f"{point[1]:g}); "
        "this counts as their Advance Move"
        + "".join(f"; {n}" for n in notes)
    )
    return [
        Event(
            "unit_arrived",
            {
                "unit": arrived.to_json(),
                "riders": [r.id for r in riders],
                "point": list(point),
                "swept": geo.to_geojson(check.region),
                "distance": 0.0,
                "rule": AMBUSH,
                "text": text,
            },
            actor=seat,
        )
    ]


@register_folder("unit_arrived")
def _fold_unit_arrived(state: GameState, event: Event) -> GameState:
    p = event.payload
    unit = unit_from_json(p["unit"])
    state = with_unit(state, unit)
    units = units_of(state)
    for rider in p["riders"]:
        state = with_unit(state, dataclasses.replace(units[rider], status="joined"))
    hosts = {c: h for c, h in _hosts(state).items() if h != unit.id}
    # Arriving counts as an Advance Move (seed 000): it moved, and cannot move again.
    state = record_turn_move(state, unit.id, moved=True)
    moves = {**phase_moves(state), unit.id: {"arrived": True, "mode": "advance", "used": 0.0}}
    return with_phase_moves(with_part(state, AmbushHosts(hosts)), moves)


# --- is any arrival possible? -------------------------------------------------------------------


def edge_points(
    width: float, depth: float, step: float = EDGE_SCAN_STEP_IN
) -> list[tuple[float, float]]:
    """Points along the four table edges, `step` apart (corners included)."""
    out: list[tuple[float, float]] = []
    n = max(1, round(width / step))
    m = max(1, round(depth / step))
    out += [(width * i / n, 0.0) for i in range(n + 1)]
    out += [(width * i / n, depth) for i in range(n + 1)]
    out += [(0.0, depth * j / m) for j in range(1, m)]
    out += [(width, depth * j / m) for j in range(1, m)]
    return out


def inward_placement(
    formation: RankedFormation, point: tuple[float, float], width: float, depth: float
) -> Placement:
    """The unit set with its rear edge on the table edge at `point`, facing into the table."""
    facing = edge_facing(geo.Battlefield(width, depth), point)
    facing = 0.0 if facing is None else facing
    unit_depth = layout(formation).depth
    fx, fy = forward_vector(facing)
    return Placement(point[0] + fx * unit_depth, point[1] + fy * unit_depth, facing)


class Arrival(NamedTuple):
    """A valid arrival the server found: the edge point, the placement and the number of files
    (the formation) it was found in."""

    point: tuple[float, float]
    placement: Placement
    files: int


def arrival_widths(state: GameState, unit: Unit) -> list[int]:
    """Every number of files the arriving unit can stand in, its current one first, then the
    nearest to it (narrower first on a tie); widths that give the same formation (more files
    than models) and widths its characters do not fit in are left out."""
    current = unit.files or 1
    most = max(1, unit.models + 4 * (len(unit.characters) + len(_riders(state, unit.id))))
    widths: list[int] = []
    seen: set[tuple[int, int]] = set()
    for files in sorted(range(1, min(MAX_FILES, most) + 1), key=lambda f: (abs(f - current), f)):
        try:
            lay = layout(arrival_formation(state, unit, files))
        except ValueError:
            continue
        shape = (lay.file_count, lay.rank_count)
        if shape not in seen:
            seen.add(shape)
            widths.append(files)
    return widths


def find_arrival(
    state: GameState, unit: Unit, near: tuple[float, float] | None = None
) -> Arrival | None:
    """A valid arrival for `unit` (edge point, placement, files), trying its current formation
    first at every edge point (nearest to `near` first), then every other number of files the
    same way; None only when no formation fits at any point (seed 000: "no suitable point")."""
    table = table_of(state)
    bf = table.battlefield
    points = edge_points(bf.width, bf.depth)
    if near is not None:
        points.sort(key=lambda p: (p[0] - near[0]) ** 2 + (p[1] - near[1]) ** 2)
    for files in arrival_widths(state, unit):
        formation = arrival_formation(state, unit, files)
        for point in points:
            wanted = inward_placement(formation, point, bf.width, bf.depth)
            found = find_ambush_placement(table, unit.id, formation, point, wanted)
            if found is not None:
                return Arrival(point, found, files)
    return None


@on_phase_end("t9a", "Movement")
def ambushers_must_arrive(state: GameState, dice: DiceStream) -> list[Event]:
    """A unit that rolled to arrive must, if possible; if no suitable point is available it
    cannot arrive this turn and stays in Ambush."""
    events = []
    for unit in units_of(state).values():
        if unit.status != "ambush" or READY not in unit.markers:
            continue
        found = find_arrival(state, unit)
        if found is not None:
            (px, py), where, files = found
            width = "" if files == (unit.files or 1) else f", {files} files wide"
            raise RuleError(
                OUT_OF_PHASE,
                f"{display_name(state, unit.id)} rolled to arrive from Ambush and can: place "
                f"them before ending the Movement Phase (for example from the edge point "
                f"({px:g}, {py:g}){width})",
                rule=AMBUSH,
                unit=unit.id,
                point=[px, py],
                files=files,
            )
        events.append(
            Event(
                "ambush_delayed",
                {
                    "unit": unit.id,
                    "rule": AMBUSH,
                    "text": f"{display_name(state, unit.id)}: no suitable point on the "
                            "Battlefield Edge; they "
                    "cannot arrive this turn",
                },
            )
        )
    return events


@register_folder("ambush_delayed")
def _fold_ambush_delayed(state: GameState, event: Event) -> GameState:
    unit = units_of(state)[event.payload["unit"]]
    return with_unit(state, _mark(unit, drop=READY))


# --- the end of the game ------------------------------------------------------------------------


@on_game_end("t9a")
def ambushers_left_are_casualties(state: GameState, dice: DiceStream) -> list[Event]:
    """Units still in Ambush when the game ends are removed as casualties."""
    lost = [u for u in units_of(state).values() if u.status == "ambush"]
    if not lost:
        return []
    names = ", ".join(u.name for u in lost)
    return [
        Event(
            "ambush_casualties",
            {
                "units": [u.id for u in lost],
                "rule": AMBUSH,
                "text": f"{names} never arrived from Ambush and "
                + ("is" if len(lost) == 1 else "are")
                + " removed as casualties",
            },
        )
    ]


@register_folder("ambush_casualties")
def _fold_ambush_casualties(state: GameState, event: Event) -> GameState:
    units = units_of(state)
    for unit_id in event.payload["units"]:
        state = with_unit(state, dataclasses.replace(units[unit_id], status="destroyed"))
    return state


# --- what the client sees -----------------------------------------------------------------------


@register_projector
def _project_ambush(state: GameState, viewer: int | None, out: dict[str, Any]) -> None:
    if state.system != "t9a":
        return
    out["ambush_hosts"] = dict(_hosts(state))


def ambush_options(
    state: GameState, unit_id: str, point: tuple[float, float], requested: Placement | None
) -> dict[str, Any]:
    """For the client's ambush tool: the 6 in zone around an edge point, the verdict on the
    requested placement, and the valid placement nearest to it (snapping), or none."""
    unit = unit_of(state, unit_id)
    if unit.status != "ambush":
        raise RuleError(OUT_OF_PHASE, f"{display_name(state, unit.id)} is not in Ambush",
                                      rule=AMBUSH)
    _require_edge_point(state, unit, point)
    table = table_of(state)
    bf = table.battlefield
    formation = arrival_formation(state, unit, None)
    wanted = requested or inward_placement(formation, point, bf.width, bf.depth)
    check = check_ambush(table, unit.id, formation, wanted, point)
    nearest = (
        wanted if check.legal else find_ambush_placement(table, unit.id, formation, point, wanted)
    )
    return {
        "zone": geo.to_geojson(ambush_zone(bf, point)),
        # The Unit Boundary in the unit's own frame (front-edge centre at the origin, facing
        # 0): the client draws the ghost at any placement without working out the formation.
        "outline": [[round(float(x), 4), round(float(y), 4)] for x, y in layout(formation).outline],
        "requested": {
            **check.to_dict(),
            "obstacle_name": display_name(state, check.obstacle) if check.obstacle else None,
        },
        "nearest": None if nearest is None else nearest.to_dict(),
        "ready": READY in unit.markers,
    }
