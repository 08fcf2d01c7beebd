"""Ambushers and Entombed Beneath the Sands, all of it, for Warhammer Fantasy Battle 8th
edition (seed 002_20fe50c61f72ab35, Entombed Beneath the Sands; FACTS.md: Ambushers, the
Mishap table).

- Units with Ambushers or Entombed may be kept off the table at deployment (`declare_reserve`).
  Only characters with Entombed may be deployed inside an Entombed unit (the army check,
  server/data/army.py).
- From Game Turn 2, at the start of the owner's turn (the Start phase): one D6 per such unit,
  1-2 delayed, 3+ it arrives in this turn's Remaining Moves (`ambush_rolled`, marker
  `ambush_ready`, the same event and marker as t9a's Ambush so the tray shows both alike).
- In the Movement phase the owner places the marker (`place_entombed_marker`) anywhere on the
  table, not in Impassable Terrain and not within 1 in of a unit on the table. The scatter
  die and the artillery die are rolled: a HIT leaves the marker, an arrow moves it the
  artillery die's inches in the arrow's direction. Under a friendly unit, Impassable Terrain or
  a building it is put 1 in away from the closest edge. A Misfire, a marker off the table or
  that cannot be put clear, or no legal placement touching it (the server searches) means no
  emergence: the marker is removed and the Mishap table is rolled (`entombed_mishap`).
- Otherwise the owner places the unit (`emerge`) in a legal formation touching the marker,
  facing any way; a marker under an enemy unit means base contact with that enemy in its
  front arc, front edges flush, and the unit counts as charging (it is engaged and scores
  the +1 of a charge). A unit that emerged may act normally: it may still make its Remaining
  Move and shoot (it cannot declare a charge: charges were declared before Remaining Moves).
- Mishap (FACTS.md): D6 1-2 destroyed; 3-4 it tries again next turn (it stays off the table
  and makes the Ambushers roll again next turn); 5-6 it enters from a random table edge: a
  D6, 1 south (player 1's long edge), 2 east, 3 north, 4 west, 5-6 rolled again, and the
  unit is placed with its rear edge on that edge facing straight in; it counts as having
  moved (it cannot move again this phase). If no placement fits there, it tries again next
  turn. A unit with Ambushers but without Entombed enters this way from the edge its owner
  chooses.
- Several units resolve one at a time: a marker waits for its unit before the next is placed.
  The Movement phase cannot end while a unit that rolled to arrive can still arrive; the
  placement suggested is judged again on the table as it stands (`legal_suggestion`: units
  that moved after the marker came down may have made it illegal). A unit that no longer fits
  anywhere touching its marker does not emerge: ending the phase rolls its Mishap
  (`_cannot_emerge`).
- Units still off the table when the game ends count as fled (destroyed, `fled_off_table`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import shapely
from pydantic import Field

from server import geometry as geo
from server.dice import HIT, DiceStream
from server.geometry.emergence import (
    EDGES,
    MARKER_CLEARANCE_IN,
    EmergenceRule,
    check_emergence,
    contact_candidates,
    edge_candidates,
    emergence_candidates,
    find_emergence,
    push_clear,
    scatter_marker,
)
from server.geometry.formation import RankedFormation, layout
from server.geometry.frame import Placement
from server.rules.battle import on_game_end, on_phase_end, on_phase_start
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
    part_of,
    register_action,
    register_folder,
    register_projector,
    with_part,
)
from server.rules.naming import (
    display_name,
    display_names,
    in_the_way,
    possessive,
    say_inches,
    tenths,
)
from server.rules.orders import judge, offer, register_offer
from server.rules.resume import is_suspended, register_frame, suspend_with
from server.rules.systems import MOVEMENT_PHASE
from server.rules.units import (
    Coord,
    Facing,
    Unit,
    datasheet_of,
    phase_moves,
    ranked_formation,
    record_turn_move,
    table_of,
    unit_from_json,
    unit_of,
    units_of,
    with_engaged,
    with_phase_move,
    with_phase_moves,
    with_unit,
)

SYSTEM = "whfb8"
ENTOMBED = "Entombed Beneath the Sands"
AMBUSHERS = "Ambushers"
MISHAP = "Mishap"
READY = "ambush_ready"
FLED_OFF = "fled_off_table"
FIRST_ROLL_TURN = 2
ARRIVES_ON = 3
EDGE_BY_FACE = {1: "south", 2: "east", 3: "north", 4: "west"}
"""The random table edge of a Mishap 5-6: a D6, 5-6 rolled again (docs/rules-decisions.md)."""
MAX_EDGE_ROLLS = 50
"""A guard against an endless run of 5s and 6s (probability (1/3)^50): then the last roll is
read halved (5 or 6 -> 3, the north edge). Never reached in practice; the loop is bounded."""
BUILDING_WORDS = ("building", "house")
"""A terrain piece whose label names a building (e.g. "Farmhouse") is a building."""


def reserve_rule(state: GameState, unit: Unit) -> str | None:
    """Entombed if the unit has it, else Ambushers, else None."""
    sheet = datasheet_of(state, unit)
    if sheet.has_rule(ENTOMBED):
        return ENTOMBED
    if sheet.has_rule(AMBUSHERS):
        return AMBUSHERS
    return None


@dataclass(frozen=True, slots=True)
class EntombedState:
    """This system's part of the state for Entombed and Ambushers: the units whose emergence
    waits for their placement ({unit id: {mode, marker, enemy, edge, suggested, outline}})."""

    waiting: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


def pending(state: GameState) -> Mapping[str, Mapping[str, Any]]:
    """Units whose emergence waits for their placement: mode "marker", "enemy" or "edge"."""
    return part_of(state, EntombedState).waiting


def _mark(unit: Unit, add: str | None = None, drop: str | None = None) -> Unit:
    markers = tuple(m for m in unit.markers if m != drop)
    if add is not None and add not in markers:
        markers = (*markers, add)
    return dataclasses.replace(unit, markers=markers)


def formation_of(state: GameState, unit: Unit, files: int | None = None) -> RankedFormation:
    """The unit as it would stand, joined characters in its front rank."""
    joined = tuple(c.datasheet for c in unit.characters)
    files = files or unit.files or 1
    return ranked_formation(state.system, unit.datasheet, unit.models, files, joined)


def _outline(formation: RankedFormation) -> list[list[float]]:
    return [[round(float(x), 4), round(float(y), 4)] for x, y in layout(formation).outline]


def plain_placement(placement: Placement) -> dict[str, float]:
    """A placement as plain numbers (the search computes with numpy: its floats would show
    as `np.float64(...)` in words)."""
    return {"x": float(placement.x), "y": float(placement.y), "facing": float(placement.facing)}


def placement_words(placement: Mapping[str, Any]) -> str:
    """"front centre at (36.0, 29.8), facing 0°": a suggested placement for a person."""
    return (f"front centre at ({tenths(float(placement['x']))}, {tenths(float(placement['y']))}), "
            f"facing {float(placement['facing']):.0f}°")


def _emergence_terms(entry: Mapping[str, Any]) -> dict[str, Any]:
    """What an emergence of `entry`'s mode must touch (`check_emergence`'s keywords)."""
    mode = entry["mode"]
    return {
        "marker": tuple(entry["marker"]) if mode == "marker" and entry.get("marker") else None,
        "enemy": entry["enemy"] if mode == "enemy" else None,
        "edge": entry["edge"] if mode == "edge" else None,
    }


def legal_suggestion(state: GameState, unit_id: str) -> dict[str, float] | None:
    """Where the unit whose emergence waits may be placed on the table as it now stands: the
    placement suggested when the marker came down while it is still legal, else the first
    legal one of the search (every facing and every point of the boundary touching the
    marker; along the enemy's front; along the table edge), judged by `check_emergence`, the
    judgement `emerge` makes. Units that moved after the marker came down may have made the
    first one illegal. None: no model of the unit can be placed (seed 002: it does not
    emerge). Computed once per state (the projection and the phase end both ask)."""
    memo = state.derived.table_for("entombed.legal_suggestion")
    if unit_id not in memo:
        entry = pending(state).get(unit_id)
        memo[unit_id] = None if entry is None else _search_suggestion(
            state, units_of(state)[unit_id], entry
        )
    found: dict[str, float] | None = memo[unit_id]
    return found


def _search_suggestion(
    state: GameState, unit: Unit, entry: Mapping[str, Any]
) -> dict[str, float] | None:
    table = table_of(state)
    terms = _emergence_terms(entry)
    enemy, edge, marker = terms["enemy"], terms["edge"], terms["marker"]
    if enemy is not None and enemy not in table.units:
        return None  # the enemy it was to burst into is gone
    formation = formation_of(state, unit)
    old = entry.get("suggested")
    if old is not None:
        first = Placement(float(old["x"]), float(old["y"]), float(old["facing"]))
        if check_emergence(table, unit.id, formation, first, **terms).legal:
            return plain_placement(first)
    if enemy is not None:
        cands = contact_candidates(table, formation, enemy)
    elif edge is not None:
        cands = edge_candidates(table, formation, edge)
    elif marker is not None:
        cands = emergence_candidates(formation, marker,
                                     Placement(marker[0], marker[1], _default_facing(unit.owner)))
    else:
        return None
    found = find_emergence(table, unit.id, formation, cands, **terms)
    return None if found is None else plain_placement(found)


# --- the roll at the start of the turn ----------------------------------------------------------


@on_phase_start(SYSTEM, "Start")
def roll_for_ambushers(state: GameState, dice: DiceStream) -> list[Event]:
    """FACTS.md Ambushers: from game turn 2, a D6 per unit at the start of the turn: 1-2
    delayed, 3+ arrives in Remaining Moves."""
    seat = state.battle.active_seat
    turn = (state.battle.turn or 1)
    if turn < FIRST_ROLL_TURN:
        return []
    events = []
    for unit in units_of(state).values():
        if unit.owner != seat or unit.status != "ambush":
            continue
        rule = reserve_rule(state, unit)
        if rule is None:
            continue
        roll = dice.roll("D6")
        arrives = (roll.total or 0) >= ARRIVES_ON
        events.append(
            Event(
                "ambush_rolled",
                {
                    "unit": unit.id,
                    "riders": [],
                    "rule": rule,
                    "rules": [AMBUSHERS, rule] if rule != AMBUSHERS else [AMBUSHERS],
                    "needed": ARRIVES_ON,
                    "player_turn": turn,
                    "automatic": False,
                    "maximised": 0,
                    "roll": roll.to_payload(),
                    "arrives": arrives,
                    "text": f"{display_name(state, unit.id)} roll {roll.total} for Ambushers: "
                    + (
                        "they arrive in this turn's Remaining Moves"
                        if arrives
                        else "delayed, they stay off the table"
                    ),
                },
            )
        )
    return events


# --- the marker ----------------------------------------------------------------------------------


class PlaceEntombedMarker(ActionModel):
    type: Literal["place_entombed_marker"]
    unit: str
    x: Coord
    y: Coord


def _ready_unit(state: GameState, seat: int, unit_id: str, what: str) -> Unit:
    unit = unit_of(state, unit_id, seat)
    if unit.status != "ambush" or READY not in unit.markers:
        raise RuleError(
            OUT_OF_PHASE,
            f"{display_name(state, unit.id)} has not rolled to arrive this turn",
            rule=AMBUSHERS,
            unit=unit.id,
        )
    return unit


def _is_building(state: GameState, terrain_id: str) -> bool:
    label = state.terrain_labels.get(terrain_id, "").lower()
    return any(word in label for word in BUILDING_WORDS)


def _obstacles(state: GameState, seat: int) -> list[tuple[str, Any]]:
    """What a marker may not rest under: friendly units, Impassable Terrain and buildings."""
    table = table_of(state)
    out: list[tuple[str, Any]] = []
    for uid, fp in table.units.items():
        if units_of(state)[uid].owner == seat:
            out.append((uid, fp.boundary))
    for t in table.terrain:
        if t.impassable or _is_building(state, t.id):
            out.append((t.id, t.polygon))
    return out


def _enemy_under(state: GameState, seat: int, point: tuple[float, float]) -> str | None:
    table = table_of(state)
    for uid, fp in table.units.items():
        if units_of(state)[uid].owner != seat and fp.boundary.covers(shapely.Point(point)):
            return uid
    return None


def _default_facing(seat: int) -> float:
    """Facing towards the opponent's long edge (player 1 deploys along y = 0)."""
    return 0.0 if seat == 1 else 180.0


def _check_marker_point(state: GameState, unit: Unit, point: tuple[float, float]) -> None:
    table = table_of(state)
    bf = table.battlefield
    where = f"({point[0]:g}, {point[1]:g})"
    if not (0.0 <= point[0] <= bf.width and 0.0 <= point[1] <= bf.depth):
        raise RuleError(
            ILLEGAL_MOVE, f"the marker must be placed on the table, not at {where}",
            rule=ENTOMBED, obstacle=None,
        )
    p = shapely.Point(point)
    for t in table.terrain:
        if t.impassable and t.polygon.covers(p):
            raise RuleError(
                ILLEGAL_MOVE,
                f"the marker may not be placed in Impassable Terrain ({t.id})",
                rule=ENTOMBED, obstacle=t.id,
            )
    for uid, fp in table.units.items():
        gap = float(shapely.distance(fp.boundary, p))
        if gap <= MARKER_CLEARANCE_IN + 1e-9:
            name = units_of(state)[uid].name
            raise RuleError(
                ILLEGAL_MOVE,
                f"the marker may not be placed within 1 in of a deployed unit ({name} is "
                f"{say_inches(gap)} away)",
                rule=ENTOMBED, obstacle=uid,
            )


def _mishap(
    state: GameState, unit: Unit, dice: DiceStream, why: str, near: tuple[float, float] | None
) -> Event:
    """Roll on the Mishap table (FACTS.md) and say what happens to the unit."""
    roll = dice.roll("D6")
    face = int(roll.total or 0)
    payload: dict[str, Any] = {
        "unit": unit.id,
        "roll": roll.to_payload(),
        "rule": MISHAP,
        "rules": [ENTOMBED, MISHAP],
        "reason": why,
    }
    if face <= 2:
        payload |= {"result": "destroyed",
                    "text": f"{display_name(state, unit.id)}: {why}; Mishap roll {face}: the unit "
                            "is destroyed"}
        return Event("entombed_mishap", payload)
    if face <= 4:
        payload |= {"result": "delayed",
                    "text": f"{display_name(state, unit.id)}: {why}; Mishap roll {face}: it tries "
                            "again next turn"}
        return Event("entombed_mishap", payload)
    edge_rolls = []
    edge = None
    for _ in range(MAX_EDGE_ROLLS):
        r = dice.roll("D6")
        edge_rolls.append(r.to_payload())
        edge = EDGE_BY_FACE.get(int(r.total or 0))
        if edge is not None:
            break
    if edge is None:  # pragma: no cover - (1/3)^50
        edge = EDGE_BY_FACE[(int(edge_rolls[-1]["total"]) + 1) // 2]
    faces = ", ".join(str(r["total"]) for r in edge_rolls)
    payload["rolls"] = edge_rolls
    payload["edge"] = edge
    formation = formation_of(state, unit)
    found = find_emergence(
        table_of(state), unit.id, formation,
        edge_candidates(table_of(state), formation, edge, near), edge=edge,
    )
    if found is None:
        payload |= {
            "result": "delayed",
            "text": f"{display_name(state, unit.id)}: {why}; Mishap roll {face}: it enters from a "
                    "random table "
            f"edge (rolled {faces}: the {edge} edge), but there is no room there: it tries "
            "again next turn",
        }
        return Event("entombed_mishap", payload)
    payload |= {
        "result": "edge",
        "suggested": plain_placement(found),
        "outline": _outline(formation),
        "text": f"{display_name(state, unit.id)}: {why}; Mishap roll {face}: it enters from a "
                "random table edge "
        f"(rolled {faces}: the {edge} edge)",
    }
    return Event("entombed_mishap", payload)


@register_action(
    "place_entombed_marker",
    PlaceEntombedMarker,
    systems=[SYSTEM],
    when=[When(BATTLE, ACTIVE, MOVEMENT_PHASE)],
    doing="placing the marker of a unit Entombed Beneath the Sands",
)
def place_entombed_marker(
    state: GameState, seat: int, action: PlaceEntombedMarker, dice: DiceStream
) -> list[Event]:
    """Place the marker, roll the scatter and artillery dice, and see where the unit may
    emerge (or roll on the Mishap table)."""
    unit = _ready_unit(state, seat, action.unit, "placing an Entombed marker")
    if reserve_rule(state, unit) != ENTOMBED:
        raise RuleError(
            BAD_REQUEST,
            f"{display_name(state, unit.id)} has Ambushers but not {ENTOMBED}: it enters from a "
            "table edge "
            "(`emerge` with an edge)",
            rule=AMBUSHERS,
        )
    if unit.id in pending(state):
        raise RuleError(
            OUT_OF_PHASE, f"{possessive(display_name(state, unit.id))} marker is down: place the "
                          "unit", rule=ENTOMBED
        )
    waiting = [u for u in pending(state) if u != unit.id]
    if waiting:
        raise RuleError(
            OUT_OF_PHASE,
            f"{units_of(state)[waiting[0]].name} must be placed first: Entombed units emerge "
            "one at a time",
            rule=ENTOMBED,
        )
    chosen = (float(action.x), float(action.y))
    _check_marker_point(state, unit, chosen)
    scatter = dice.scatter()
    artillery = dice.artillery()
    misfire = bool(artillery.extra.get("misfire"))
    hit = scatter.dice[0].face == HIT
    landed = chosen
    if not hit and not misfire:
        landed = scatter_marker(chosen, float(scatter.extra["direction_deg"]), artillery.total or 0)
    payload: dict[str, Any] = {
        "unit": unit.id,
        "chosen": list(chosen),
        "rolls": [scatter.to_payload(), artillery.to_payload()],
        "hit": hit,
        "misfire": misfire,
        "direction": None if hit else scatter.extra["direction_deg"],
        "scattered": 0.0 if hit or misfire else float(artillery.total or 0),
        "landed": [round(landed[0], 4), round(landed[1], 4)],
        "rule": ENTOMBED,
    }
    dice_words = (
        "Misfire" if misfire
        else "a Hit: the marker stays" if hit
        else f"an arrow and {artillery.total}: the marker moves {artillery.total} in, to "
        f"({tenths(landed[0])}, {tenths(landed[1])})"
    )
    said = (f"{display_name(state, unit.id)} stir beneath the sands: marker at ({chosen[0]:g}, "
            f"{chosen[1]:g}), "
            f"scatter and artillery dice: {dice_words}")
    if misfire:
        payload |= {"outcome": "mishap", "marker": None, "text": said}
        return [Event("entombed_marker", payload, actor=seat),
                _mishap(state, unit, dice, "a Misfire", None)]
    table = table_of(state)
    bf = table.battlefield
    pushed = push_clear(landed, _obstacles(state, seat))
    final = (round(pushed.point[0], 4), round(pushed.point[1], 4))
    payload |= {"marker": list(final), "moved_off": list(pushed.moved_off)}
    if pushed.moved_off:
        said += f"; under {display_names(state, pushed.moved_off)}, it is put 1 in clear, at " \
                f"({tenths(final[0])}, {tenths(final[1])})"
    problem = None
    if pushed.stuck:
        problem = str(EmergenceRule.MARKER_STUCK)
    elif not (0.0 <= final[0] <= bf.width and 0.0 <= final[1] <= bf.depth):
        problem = "the marker left the table"
    enemy = None if problem else _enemy_under(state, seat, final)
    formation = formation_of(state, unit)
    found = None
    if problem is None:
        if enemy is not None:
            cands = contact_candidates(table, formation, enemy)
        else:
            facing = _default_facing(seat)
            cands = emergence_candidates(formation, final, Placement(*final, facing))
        found = find_emergence(table, unit.id, formation, cands, marker=final, enemy=enemy)
        if found is None:
            problem = "no model of the unit can be placed there"
    if problem is not None:
        payload |= {"outcome": "mishap", "text": said}
        return [Event("entombed_marker", payload, actor=seat),
                _mishap(state, unit, dice, problem, None)]
    assert found is not None
    enemy_name = units_of(state)[enemy].name if enemy else None
    payload |= {
        "outcome": "enemy" if enemy else "marker",
        "enemy": enemy,
        "suggested": plain_placement(found),
        "outline": _outline(formation),
        "text": said + (
            f"; it is under {enemy_name}: the unit may emerge in base contact with its front, "
            "charging" if enemy else "; place the unit touching the marker"
        ),
    }
    return [Event("entombed_marker", payload, actor=seat)]


@register_folder("entombed_marker")
def _fold_marker(state: GameState, event: Event) -> GameState:
    p = event.payload
    if p["outcome"] == "mishap":
        return state
    entry = {
        "mode": p["outcome"],
        "marker": p["marker"],
        "enemy": p.get("enemy"),
        "edge": None,
        "suggested": p["suggested"],
        "outline": p["outline"],
    }
    return with_part(state, EntombedState({**pending(state), p["unit"]: entry}))


@register_folder("entombed_mishap")
def _fold_mishap(state: GameState, event: Event) -> GameState:
    p = event.payload
    unit = units_of(state)[p["unit"]]
    rest = {k: v for k, v in pending(state).items() if k != unit.id}
    state = with_part(state, EntombedState(rest))
    if p["result"] == "destroyed":
        return with_unit(state, dataclasses.replace(_mark(unit, drop=READY), status="destroyed"))
    if p["result"] == "delayed":
        return with_unit(state, _mark(unit, drop=READY))
    entry = {"mode": "edge", "marker": None, "enemy": None, "edge": p["edge"],
             "suggested": p["suggested"], "outline": p["outline"]}
    return with_part(state, EntombedState({**rest, unit.id: entry}))


# --- the unit emerges ----------------------------------------------------------------------------


class Emerge(ActionModel):
    type: Literal["emerge"]
    unit: str
    x: Coord
    y: Coord
    facing: Facing
    files: int | None = Field(default=None, ge=1, le=50)
    edge: Literal["south", "east", "north", "west"] | None = None


@register_offer("emerge")
def _offer_emerge(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """Emerge / Arrive: a unit that rolled to arrive (Entombed Beneath the Sands: place the
    marker first, `entombed`; Ambushers: from a table edge), in its owner's Movement phase."""
    if unit.owner != seat or unit.status != "ambush":
        return None
    if judge(lambda: _ready_unit(state, seat, unit.id, "emerging")):
        return None
    return offer("emerge", entombed=reserve_rule(state, unit) == ENTOMBED,
                 marker=unit.id in pending(state))


@register_action(
    "emerge",
    Emerge,
    systems=[SYSTEM],
    when=[When(BATTLE, ACTIVE, MOVEMENT_PHASE)],
    doing="bringing a unit onto the table",
)
def emerge(state: GameState, seat: int, action: Emerge, dice: DiceStream) -> list[Event]:
    """Place the unit: touching its marker, in base contact with the enemy the marker is
    under (charging), or from the table edge of its Mishap (or, for Ambushers, its owner's
    choice)."""
    unit = _ready_unit(state, seat, action.unit, "emerging")
    entry = pending(state).get(unit.id)
    if entry is None:
        if reserve_rule(state, unit) == ENTOMBED:
            raise RuleError(
                OUT_OF_PHASE, f"place {possessive(display_name(state, unit.id))} marker first",
                rule=ENTOMBED,
            )
        if action.edge is None:
            raise RuleError(BAD_REQUEST, f"{display_name(state, unit.id)} enters from a table "
                                         "edge: name it",
                            rule=AMBUSHERS)
        entry = {"mode": "edge", "edge": action.edge, "marker": None, "enemy": None}
    elif action.edge is not None and action.edge != entry.get("edge"):
        raise RuleError(BAD_REQUEST, f"{display_name(state, unit.id)} does not choose its table "
                                     "edge",
                        rule=MISHAP if entry["mode"] == "edge" else ENTOMBED)
    formation = formation_of(state, unit, action.files)
    placement = Placement(action.x, action.y, action.facing % 360.0)
    terms = _emergence_terms(entry)
    if terms["enemy"] is not None and terms["enemy"] not in table_of(state).units:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{display_name(state, terms['enemy'])} is no longer on the table: "
            f"{display_name(state, unit.id)} cannot burst into them; end the phase and they do "
            "not emerge "
            "(Mishap)",
            rule=ENTOMBED, obstacle=terms["enemy"],
        )
    check = check_emergence(table_of(state), unit.id, formation, placement, **terms)
    if not check.legal:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{display_name(state, unit.id)} cannot emerge there: {check.rule}"
            + in_the_way(state, check.obstacle),
            rule=str(check.rule),
            obstacle=check.obstacle,
        )
    return _emerged(state, seat, unit, entry, formation, placement, check.footprint.boundary)


def _emerged(
    state: GameState,
    seat: int,
    unit: Unit,
    entry: Mapping[str, Any],
    formation: RankedFormation,
    placement: Placement,
    boundary: Any,
) -> list[Event]:
    """The unit standing at `placement` (legal: checked by the caller), and the release of
    any concealed Fanatics its arrival brings within 8 in."""
    mode = entry["mode"]
    after = dataclasses.replace(
        _mark(unit, drop=READY),
        status="on_table",
        placement=(round(placement.x, 4), round(placement.y, 4), round(placement.facing, 4)),
        files=formation.files,
    )
    charging: str | None = str(entry["enemy"]) if mode == "enemy" else None
    if charging is not None:
        into = possessive(units_of(state)[charging].name)
        text = (f"{display_name(state, unit.id)} burst from the sands into {into} "
                "front: they count as charging")
    elif mode == "edge":
        text = f"{display_name(state, unit.id)} enter from the {entry['edge']} table edge"
    else:
        text = (
            f"{display_name(state, unit.id)} emerge from the sands at the marker and may act "
            "normally"
        )
    emerged = [
        Event(
            "entombed_emerged",
            {
                "unit": after.to_json(),
                "mode": mode,
                "charging": charging,
                "marker": entry.get("marker"),
                "edge": entry.get("edge"),
                "footprint": geo.to_geojson(boundary),
                "rule": ENTOMBED if mode != "edge" or unit.id in pending(state) else AMBUSHERS,
                "text": text,
            },
            actor=seat,
        )
    ]
    # An arrival within 8 in of concealed Night Goblin Fanatics releases them (seed 003).
    from server.rules.whfb8.fanatics import arrival_release

    return emerged + arrival_release(fold_all(state, emerged), unit.id)


@register_folder("entombed_emerged")
def _fold_emerged(state: GameState, event: Event) -> GameState:
    p = event.payload
    unit = unit_from_json(p["unit"])
    state = with_unit(state, unit)
    rest = {k: v for k, v in pending(state).items() if k != unit.id}
    state = with_part(state, EntombedState(rest))
    if p["charging"]:
        engaged = {**state.charges.engaged, unit.id: p["charging"]}
        state = with_engaged(state, engaged)
        return with_phase_move(state, unit.id, {"charged": p["charging"]})
    if p["mode"] == "edge":
        # Entering from a table edge counts as the unit's move (docs/rules-decisions.md).
        state = record_turn_move(state, unit.id, moved=True)
        moves = {**phase_moves(state), unit.id: {"arrived": True, "mode": "advance", "used": 0.0}}
        return with_phase_moves(state, moves)
    # It may act normally (seed 002): its Remaining Move is still to come; no charge.
    return with_phase_move(state, unit.id, {"emerged": True})


# --- the end of the Movement phase and of the game -----------------------------------------------


@on_phase_end(SYSTEM, "Movement")
def arrivals_must_happen(state: GameState, dice: DiceStream) -> list[Event]:
    """A unit that rolled to arrive must, if it can: the phase end is refused while one can
    still be placed, naming a legal placement (`legal_suggestion`). One whose marker is down
    but that no longer fits anywhere touching it does not emerge (seed 002): the marker is
    removed and the Mishap table rolled (`_cannot_emerge`), so the phase ends. An Ambushers
    unit with no room on any table edge stays off the table this turn (`ambush_delayed`)."""
    events: list[Event] = []
    for uid in list(units_of(state)):
        unit = units_of(state)[uid]
        if unit.status != "ambush" or READY not in unit.markers:
            continue
        entry = pending(state).get(unit.id)
        if entry is not None:
            suggested = legal_suggestion(state, unit.id)
            if suggested is not None:
                raise RuleError(
                    OUT_OF_PHASE,
                    f"{display_name(state, unit.id)} can emerge: place them before ending the "
                    "Movement phase "
                    f"(for example with their {placement_words(suggested)})",
                    rule=ENTOMBED, unit=unit.id, suggested=suggested,
                )
            made = _cannot_emerge(state, unit, entry, dice)
            state = fold_all(state, made)
            events += made
            if is_suspended(made):
                return events
            continue
        if reserve_rule(state, unit) == ENTOMBED:
            raise RuleError(
                OUT_OF_PHASE,
                f"{display_name(state, unit.id)} rolled to arrive: place their marker before "
                "ending the Movement "
                "phase",
                rule=ENTOMBED, unit=unit.id,
            )
        formation = formation_of(state, unit)
        table = table_of(state)
        for edge in EDGES:
            found = find_emergence(
                table, unit.id, formation, edge_candidates(table, formation, edge), edge=edge
            )
            if found is not None:
                raise RuleError(
                    OUT_OF_PHASE,
                    f"{display_name(state, unit.id)} rolled to arrive and can, from the {edge} "
                    "edge: place them "
                    "before ending the Movement phase (for example with their "
                    f"{placement_words(plain_placement(found))})",
                    rule=AMBUSHERS, unit=unit.id, edge=edge, suggested=plain_placement(found),
                )
        delayed = Event("ambush_delayed", {
            "unit": unit.id, "rule": AMBUSHERS,
            "text": f"{display_name(state, unit.id)}: no room on any table edge; they cannot "
                    "arrive this turn",
        })
        state = fold_all(state, [delayed])
        events.append(delayed)
    return events


ARRIVALS = "entombed_arrivals"


@register_frame(ARRIVALS)
def _resume_arrivals(state: GameState, frame: Any, dice: Any) -> list[Event]:
    """The other units that rolled to arrive, once the Fanatics an arrival released at the
    end of the phase have been released."""
    return arrivals_must_happen(state, dice)


def _cannot_emerge(
    state: GameState, unit: Unit, entry: Mapping[str, Any], dice: DiceStream
) -> list[Event]:
    """Seed 002: "if for any reason some of the models in the unit cannot be placed, then the
    unit does not emerge. Instead, remove the marker and roll on the Mishap table." A unit
    already entering from its Mishap's table edge with no room left there tries again next
    turn (FACTS.md, as when the Mishap found no room). **Decision**: a Mishap of 5-6 rolled as
    the phase ends brings the unit on at once, at the first legal placement along the rolled
    edge (its middle first): nobody could place it after the phase has ended."""
    mode = entry["mode"]
    if mode == "edge":
        return [Event("entombed_delayed", {
            "unit": unit.id, "rule": MISHAP, "edge": entry["edge"],
            "text": f"{display_name(state, unit.id)}: no room on the {entry['edge']} table edge "
                    "any more; they "
            "try again next turn",
        })]
    if mode == "enemy" and entry["enemy"] not in table_of(state).units:
        why = (f"{display_name(state, str(entry['enemy']))}, whom it was to burst into, is no "
               "longer on the table")
    elif mode == "enemy":
        why = (f"it cannot be placed in base contact with "
               f"{possessive(display_name(state, str(entry['enemy'])))} front any more")
    else:
        why = "it cannot be placed touching its marker any more (no legal placement is left)"
    mishap = _mishap(state, unit, dice, why, None)
    events = [mishap]
    if mishap.payload["result"] != "edge":
        return events
    after = fold_all(state, events)
    edge_entry = pending(after)[unit.id]
    placed = edge_entry["suggested"]
    formation = formation_of(after, unit)
    placement = Placement(float(placed["x"]), float(placed["y"]), float(placed["facing"]))
    check = check_emergence(table_of(after), unit.id, formation, placement,
                            **_emergence_terms(edge_entry))
    assert check.legal  # found by the same judgement on the same table (`_mishap`)
    came = _emerged(after, unit.owner, unit, edge_entry, formation, placement,
                    check.footprint.boundary)
    events += came
    if any(e.type == "fanatics_revealed" for e in came):
        # Released at once (seed 003): the phase end waits for their owner (battle.py).
        events = suspend_with(events, {"kind": ARRIVALS,
                                       "text": "the rest of the units arriving"})
    return events


@register_folder("entombed_delayed")
def _fold_delayed(state: GameState, event: Event) -> GameState:
    unit = units_of(state)[event.payload["unit"]]
    rest = {k: v for k, v in pending(state).items() if k != unit.id}
    return with_unit(with_part(state, EntombedState(rest)), _mark(unit, drop=READY))


@on_game_end(SYSTEM)
def never_arrived_counts_as_fled(state: GameState, dice: DiceStream) -> list[Event]:
    """FACTS.md Ambushers: a unit that never arrives counts as fled."""
    lost = [u for u in units_of(state).values()
            if u.status == "ambush" and reserve_rule(state, u) is not None]
    if not lost:
        return []
    names = ", ".join(u.name for u in lost)
    return [Event("ambushers_never_arrived", {
        "units": [u.id for u in lost],
        "rule": AMBUSHERS,
        "text": f"{names} never arrived: " + ("it counts" if len(lost) == 1 else "they count")
        + " as fled",
    })]


@register_folder("ambushers_never_arrived")
def _fold_never_arrived(state: GameState, event: Event) -> GameState:
    units = units_of(state)
    for uid in event.payload["units"]:
        gone = _mark(dataclasses.replace(units[uid], status="destroyed"), add=FLED_OFF)
        state = with_unit(state, _mark(gone, drop=READY))
    return state


@register_projector
def _project_entombed(state: GameState, viewer: int | None, out: dict[str, Any]) -> None:
    if state.system != SYSTEM:
        return
    # The suggestion as the table now stands (legal, or None: nothing fits any more).
    out["entombed"] = {
        k: {**v, "suggested": legal_suggestion(state, k)} for k, v in pending(state).items()
    }
