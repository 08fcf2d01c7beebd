"""Fleeing and rallying (t9a and whfb8): the one place a unit is made to flee.

Other rules call `flee_events(state, unit_id, away_from, dice, reason)`: a Flee! charge
reaction (server/rules/charge.py), a failed Break Test or Panic Test (server/rules/rankandflank/)
and a failed Rally Test here. It rolls the Flee Distance, moves the unit through the geometry
core and returns the events; it never changes `state`. A flee or pursuit a system stops on its
way for a player (whfb8: Night Goblin Fanatics released at 8 in, seed 003) ends its events
with what is left of it suspended (`suspend=True`, server/rules/resume.py); its caller adds
its own rest after it.

Decisions (docs/rules-decisions.md "Flee"):

* **Flee Distance**: 2D6. Swiftstride (seed 000: "Rolls for ... Flee Distance ... by units
  entirely with Swiftstride gain Maximised") rolls ``2D6 maximised x1`` in t9a; in whfb8
  Swiftstride is 3D6 keep the highest two (FACTS.md), which is the same dice expression.
* **Direction**: the unit pivots about its centre to face directly away from the centre of
  `away_from` (the charger; for a failed Rally Test the nearest enemy), then moves the Flee
  Distance straight ahead. If `away_from` is not on the table (or is the unit itself) the unit
  keeps its facing.
* **Through units and terrain**: a fleeing unit passes through other units and Impassable
  Terrain; those it passed (its way overlaps them; a unit it only touches, such as the enemy
  it fought, is not) are listed in the event (`passed_through`), with the Dangerous
  Terrain tests the rules ask for there left to the players (not automated). It may not end
  on top of another unit or Impassable Terrain nor within Unit Spacing of them: it moves on,
  in steps of `FLEE_EXTEND_STEP_IN`, until it is clear.
* **Off the table**: a flee move that would put any part of the unit beyond a Battlefield
  Edge destroys the unit (status "destroyed", marker "fled_off_table").
* **Markers**: a unit that flees gains "fleeing"; a whfb8 Skirmishers unit fleeing as a charge
  reaction also gains "feigned_flight" (seed 002 Feigned Flight: it rallies automatically in
  its next turn). A unit that passes a Rally Test loses "fleeing"; in t9a it is then "shaken"
  until the end of that Player Turn.
* **Rally Test**: at the start of its owner's Player Turn, each fleeing unit on the table
  tests 2D6 against its Discipline (t9a) or Leadership (whfb8), the highest in the unit
  including joined characters; passed: it rallies, failed: it flees again directly away from
  the nearest enemy unit. Rolled when the player turn begins (the rules have it in the Movement
  phase's Rally step; a fleeing unit can do nothing before then, so the outcome is the same).
  Not automated: Decimated units' halved Discipline (t9a) and the 25% rule (whfb8), Panic.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import shapely
import shapely.geometry
from shapely.geometry.base import BaseGeometry

from server import geometry as geo
from server.dice import Roller
from server.geometry import movement
from server.geometry.constants import CONTACT_TOLERANCE_IN
from server.geometry.footprint import Footprint, footprint, placement_for_centre
from server.geometry.kinds import Rule
from server.rules import core
from server.rules.battle import other, register_turn_start
from server.rules.core import (
    ILLEGAL_MOVE,
    OUT_OF_PHASE,
    Event,
    GameState,
    RuleError,
    register_folder,
)
from server.rules.markers import FEIGNED_FLIGHT, FLED_OFF, FLEEING, SHAKEN
from server.rules.naming import display_name, display_names, say_inches
from server.rules.resume import is_suspended, register_frame, suspend_with, suspension
from server.rules.systems import RankedRules, variant_of
from server.rules.units import (
    Unit,
    containing,
    entirely,
    is_ranked,
    sheets_of,
    table_of,
    unit_from_json,
    unit_of,
    units_of,
    with_engaged,
    with_unit,
)

FLEE_EXTEND_STEP_IN = 0.1
"""How far a flee move goes on, per step, to get clear of a unit or Impassable Terrain."""
MAX_FLEE_EXTENSION_IN = 100.0
CHARGE_REACTION = "Flee! (Charge Reaction)"
"""The `reason` of a flee chosen as a Charge Reaction (whfb8 Feigned Flight reads it)."""


# --- which rules the unit has -------------------------------------------------------------------


def ranked_rules(state: GameState) -> RankedRules:
    """The system's rules for ranked units (fleeing is theirs only)."""
    ranked = variant_of(state.system).ranked
    if ranked is None:
        raise RuleError(ILLEGAL_MOVE, "only ranked units flee", rule="Flee")
    return ranked


def flee_expression(state: GameState, unit: Unit) -> tuple[str, str | None]:
    """The Flee Distance dice and the rule that changed them (seed 000 Swiftstride)."""
    return ranked_rules(state).flee_roll(sheets_of(state, unit))


def discipline(state: GameState, unit: Unit) -> int:
    """The unit's Discipline (t9a) or Leadership (whfb8): the highest of its models."""
    rules = ranked_rules(state)
    return max([0, *(rules.discipline(sheet) for sheet in sheets_of(state, unit))])


# --- the flee move --------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class FleeMove:
    """Where a flee of `distance` inches takes a unit: its end footprint (None when it left
    the table), the area swept, how far it really went and what it passed through."""

    facing: float
    distance: float
    moved: float
    end: Footprint | None
    swept: BaseGeometry
    passed_through: tuple[str, ...]
    turned: Footprint | None = None
    """The unit turned to flee, where its straight move begins."""
    reached: Footprint | None = None
    """Where the straight move ends, on or off the table."""

    @property
    def off_table(self) -> bool:
        return self.end is None


def facing_away(start: Footprint, away: Footprint | None) -> float:
    """The facing that looks from `away`'s centre through `start`'s centre (0 = +y, ccw)."""
    assert start.placement is not None
    if away is None:
        return start.placement.facing
    dx, dy = start.centre[0] - away.centre[0], start.centre[1] - away.centre[1]
    if math.hypot(dx, dy) < 1e-9:
        return (start.placement.facing + 180.0) % 360.0
    return math.degrees(math.atan2(-dx, dy)) % 360.0


def flee_path(state: GameState, unit_id: str, away_from: str, distance: float) -> FleeMove:
    """The flee move of `unit_id` directly away from `away_from`, `distance` inches, judged by
    the geometry core (see the module docstring for the decisions)."""
    table = table_of(state)
    start = table.units[unit_id]
    if start.formation is None or start.placement is None:
        raise RuleError(ILLEGAL_MOVE, "only ranked units flee", rule="Flee")
    away = table.units.get(away_from) if away_from != unit_id else None
    facing = facing_away(start, away)
    turned = footprint(start.formation, placement_for_centre(start.formation, start.centre, facing))
    # Units it may run into (whfb8 Fanatics, seed 003): it moves into them, not past them.
    passable = variant_of(state.system).passable(state, unit_id)
    go = distance
    while True:
        result = movement.move_straight(table, unit_id, go, start=turned, ignore=passable)
        rule, _ = movement.check_area(
            table, unit_id, result.footprint.boundary, result.footprint.boundary,
            ignore=passable,
        )
        if rule is None or rule is Rule.BATTLEFIELD_EDGE or go > distance + MAX_FLEE_EXTENSION_IN:
            break
        go = round(go + FLEE_EXTEND_STEP_IN, 6)
    swept = shapely.union_all([start.boundary, turned.boundary, result.swept])
    idx = table.index
    # What it passed through is what its way overlaps, not what it only touches (the enemy it
    # fought, a friend in base contact beside it): the way shrunk by the contact tolerance.
    inner = shapely.buffer(swept, -CONTACT_TOLERANCE_IN, join_style="mitre")
    hits = idx.query(inner, "intersects")
    passed = tuple(sorted(idx.ids[int(i)] for i in hits if idx.ids[int(i)] != unit_id
                          and idx.ids[int(i)] not in passable
                          and (idx.is_unit[int(i)] or idx.impassable[int(i)])))
    off = rule is not None
    return FleeMove(facing, distance, go, None if off else result.footprint, swept, passed,
                    turned, result.footprint)


def halt_on_the_way(
    state: GameState,
    unit: Unit,
    start: Footprint,
    length: float,
    markers: tuple[str, ...],
    dice: Roller,
    what: str,
    *,
    suspend: bool = False,
    roll: Mapping[str, Any] | None = None,
) -> tuple[Footprint, list[Event]]:
    """A rule of the system that stops a flee or a pursuit part-way (whfb8: Night Goblin
    Fanatics released at 8 in, seed 003): the unit halts at the point the system finds on its
    straight move of `length` in from `start` (`move_halted`), whatever it ran into on the way
    acts (`move_contacts`), and the stop is resolved by the players' actions (whfb8: the
    owner's `release_fanatic`), the caller suspending the rest of its resolution (server/rules/
    resume.py); the move then goes on: a fleeing or pursuing unit must complete its move.
    Every resolution in play can wait (`suspend`); a caller that cannot (`suspend=False`,
    never one in play: no rule stops its moves) is refused rather than have the server choose
    for the player. Returns where it halted (`start` when it was not stopped) and the events,
    none when not stopped. `roll` (the distance's roll) is recorded on `move_halted`, the event
    that follows it in the log, so the dice stay in the order they were drawn (the whole move's
    event, after the stop's, names it `distance_roll`).
    `markers` are the unit's markers during the move (a fleeing unit's own hidden Fanatics
    are lost, not released)."""
    variant = variant_of(state.system)
    placement, formation = start.placement, start.formation
    assert placement is not None and formation is not None

    def path(t: float) -> Footprint:
        return footprint(formation, placement.moved(length * t))

    judged = with_unit(state, dataclasses.replace(unit, markers=markers))
    stop = variant.move_stop(judged, unit.id, path)
    if stop is None:
        return start, []
    if not suspend:  # unreachable in play: every flee and pursuit of a game can wait
        raise RuleError(OUT_OF_PHASE, f"{display_name(state, unit.id)} cannot stop part-way "
                        f"{what} here: this resolution cannot wait", rule="Resolution under way")
    fraction, revealed = stop
    here = path(fraction)
    assert here.placement is not None
    halted = dataclasses.replace(
        unit,
        placement=(round(here.placement.x, 4), round(here.placement.y, 4),
                   round(here.placement.facing % 360.0, 4)),
        markers=markers,
    )
    events = [
        Event(
            "move_halted",
            {
                "unit": unit.id,
                "moved": round(length * fraction, 4),
                "unit_after": halted.to_json(),
                "swept": geo.to_geojson(movement.sweep_straight(start, here)),
                "text": f"{display_name(state, unit.id)} stop {what} after "
                f"{say_inches(length * fraction)}; they go on once that is resolved",
                **({"roll": dict(roll)} if roll is not None else {}),
            },
            actor=unit.owner,
        )
    ]
    after = core.fold_all(state, events)
    touched = variant.move_contacts(
        after, unit.id, shapely.union(start.boundary, movement.sweep_straight(start, here)), dice
    )
    events += touched + revealed
    return here, events


@register_folder("move_halted")
def _fold_move_halted(state: GameState, event: Event) -> GameState:
    return with_unit(state, unit_from_json(event.payload["unit_after"]))


def _moved_on(
    state: GameState, events: list[Event], unit_id: str, swept: BaseGeometry, dice: Roller
) -> list[Event]:
    """What the unit ran into on (the rest of) its move (whfb8: a Fanatic, seed 003)."""
    after = core.fold_all(state, events)
    unit = units_of(after).get(unit_id)
    if unit is None or unit.status != "on_table":
        return []
    return variant_of(state.system).move_contacts(after, unit_id, swept, dice)


def flee_events(
    state: GameState,
    unit_id: str,
    away_from: str,
    dice: Roller,
    reason: str,
    *,
    suspend: bool = False,
) -> list[Event]:
    """Make `unit_id` flee directly away from unit `away_from` for `reason`: roll the Flee
    Distance (Swiftstride applied), move it through the geometry core, return the events
    (one `unit_fled`). Pure: `state` is not changed; `dice` advances by the roll.

    With `suspend`, a flee stopped on the way for a player's choice (whfb8: Fanatics released
    at 8 in, seed 003) ends its events with `resolution_suspended` holding the rest of the
    flee (its Flee Distance already rolled, its path fixed): server/rules/resume.py runs it
    (`_rest_of_flee`) once the choice is made. Without it, a stop is refused
    (`halt_on_the_way`; no flee in play is made so).

    `unit_fled` payload: unit, away_from, reason, roll, rule ("Swiftstride" or null),
    distance (the roll), moved (inches really moved, longer when it had to get clear),
    facing, swept (GeoJSON), passed_through (ids of units and Impassable Terrain crossed:
    Dangerous Terrain tests not automated), destroyed (left the table), unit_after.
    """
    unit = unit_of(state, unit_id)
    if unit.status != "on_table" or not is_ranked(state.system):
        raise RuleError(ILLEGAL_MOVE, f"{display_name(state, unit.id)} cannot flee", rule="Flee")
    expression, rule = flee_expression(state, unit)
    roll = dice.roll(expression)
    distance = float(roll.total or 0)
    path = flee_path(state, unit_id, away_from, distance)
    markers = tuple(m for m in unit.markers if m not in (FLEEING, FEIGNED_FLIGHT)) + (FLEEING,)
    feigned = ranked_rules(state).feigned_flight_rule
    if reason == CHARGE_REACTION and feigned is not None and entirely(state, unit, feigned):
        markers += (FEIGNED_FLIGHT,)  # whfb8 seed 002: rallies automatically next turn
    assert path.turned is not None and path.reached is not None
    here, halt = halt_on_the_way(state, unit, path.turned, path.moved, markers, dice, "fleeing",
                                 suspend=suspend, roll=roll.to_payload())
    rest = movement.sweep_straight(here, path.reached) if halt else path.swept
    source = units_of(state).get(away_from)
    text = (
        f"{display_name(state, unit.id)} flee ({reason}) {distance:g} in"
        + (" (Swiftstride: Maximised)" if rule else "")
        + (f" from {display_name(state, source.id)}"
           if source is not None and source.id != unit.id else "")
        + (": off the table, destroyed" if path.off_table else "")
        + (f"; passed through {display_names(state, path.passed_through)} "
           "(Dangerous Terrain tests not automated)" if path.passed_through else "")
    )
    end = None if path.end is None else path.end.placement
    frame: dict[str, Any] = {
        "kind": "flee",
        "text": f"{display_name(state, unit.id)} flee on to the end of their "
        f"{distance:g} in",
        "fled": {
            "text": text,
            "unit": unit.id,
            "away_from": away_from,
            "reason": reason,
            "roll": roll.to_payload(),
            "rule": rule,
            "distance": distance,
            "moved": round(path.moved, 4),
            "facing": round(path.facing, 4),
            "swept": geo.to_geojson(path.swept),
            "passed_through": list(path.passed_through),
            "destroyed": path.off_table,
        },
        "end": None if end is None else [round(end.x, 4), round(end.y, 4),
                                         round(end.facing % 360.0, 4)],
        "markers": list(markers),
        "halted_after": halt[0].payload["moved"] if halt else None,
    }
    if halt and suspend:
        frame["rest"] = geo.to_geojson(rest, None)
        return suspend_with(halt, frame)
    return halt + _rest_of_flee(core.fold_all(state, halt), frame, dice, rest, suspend=suspend)


def _rest_of_flee(
    state: GameState, frame: Mapping[str, Any], dice: Roller,
    rest: BaseGeometry | None = None, *, suspend: bool = True,
) -> list[Event]:
    """The flee's `unit_fled` (to the end its roll gave it) and what it ran into on the rest of
    its way, on `state` as it stands after any stop (the unit as it then is: a stop's Fanatic
    hits may have destroyed it, then it goes no further). The rest of a stopped flee may stop
    again (another concealing unit further on): then it waits again."""
    unit = units_of(state)[frame["fled"]["unit"]]
    if unit.status != "on_table":  # the Fanatics' hits destroyed it where it stopped
        return []
    markers = tuple(frame["markers"])
    again = _stops_again(state, unit, frame, frame["fled"]["moved"], markers, dice, "fleeing",
                         suspend)
    if again is not None:
        halt, frame, rest = again
        if suspend:
            return halt + [suspension(frame)]
        state = core.fold_all(state, halt)
        return halt + _rest_of_flee(state, frame, dice, rest, suspend=False)
    if frame["end"] is None:
        after = dataclasses.replace(
            unit,
            status="destroyed",
            markers=tuple(m for m in markers if m != FLEEING) + (FLED_OFF,),
        )
    else:
        x, y, facing = frame["end"]
        after = dataclasses.replace(unit, placement=(x, y, facing), markers=markers)
    halted = frame.get("halted_after")
    fled = [
        Event(
            "unit_fled",
            {
                **{_roll_key(k, halted): frame["fled"][k] for k in FLED_KEYS},
                "unit_after": after.to_json(),
                **({"halted_after": halted} if halted is not None else {}),
            },
            actor=unit.owner,
        )
    ]
    if rest is None:
        rest = shapely.geometry.shape(frame["rest"])
    return fled + _moved_on(state, fled, unit.id, rest, dice)


def _roll_key(key: str, halted: float | None) -> str:
    """A move stopped on its way had its roll recorded on `move_halted` (in the dice's order):
    the whole move's event repeats it as `distance_roll`, not as a second `roll`."""
    return "distance_roll" if key == "roll" and halted is not None else key


FLED_KEYS = ("text", "unit", "away_from", "reason", "roll", "rule", "distance", "moved",
             "facing", "swept", "passed_through", "destroyed")


@register_frame("flee")
def _resume_flee(state: GameState, frame: Mapping[str, Any], dice: Any) -> list[Event]:
    return _rest_of_flee(state, frame, dice)


def _without_engagements(state: GameState, unit_id: str) -> GameState:
    engaged = {
        k: v for k, v in state.charges.engaged.items() if unit_id not in (k, v)
    }
    return with_engaged(state, engaged)


@register_folder("unit_fled")
def _fold_unit_fled(state: GameState, event: Event) -> GameState:
    state = with_unit(state, unit_from_json(event.payload["unit_after"]))
    return _without_engagements(state, event.payload["unit"])


@register_folder("fleeing_unit_caught")
def _fold_caught(state: GameState, event: Event) -> GameState:
    """A charger reached a fleeing unit: the fleeing unit is destroyed (t9a and whfb8)."""
    unit = units_of(state)[event.payload["unit"]]
    gone = dataclasses.replace(
        unit,
        status="destroyed",
        markers=tuple(m for m in unit.markers if m != FLEEING) + ("caught",),
    )
    return _without_engagements(with_unit(state, gone), unit.id)


# --- rallying -------------------------------------------------------------------------------------


def nearest_enemy(state: GameState, unit: Unit) -> str:
    """The id of the nearest enemy unit on the table (the unit's own id when there is none)."""
    table = table_of(state)
    mine = table.units[unit.id]
    enemies = [u for u in units_of(state).values() if u.owner != unit.owner and u.id in table.units]
    if not enemies:
        return unit.id
    return min(
        enemies, key=lambda e: (geo.distance(mine, table.units[e.id]).distance, e.id)
    ).id


def rally_events(
    state: GameState, dice: Roller, *, suspend: bool = False, past: str | None = None
) -> list[Event]:
    """At the start of a Player Turn: the active player's shaken units steady (t9a: Shaken
    lasts until the end of the Player Turn it began in) and each fleeing unit takes a Rally
    Test, or rallies automatically after a whfb8 Feigned Flight (seed 002). With `suspend`, a
    failed test's flee that waits part-way for a player (whfb8 Fanatics released at 8 in)
    suspends the other units' tests (`past`: the unit whose flee waited; they go on from the
    next unit)."""
    if not is_ranked(state.system):
        return []
    seat = state.battle.active_player
    events: list[Event] = []
    for unit in sorted(units_of(state).values(), key=lambda u: u.id) if past is None else ():
        # Shaken after a Rally Test lasts until the end of that Player Turn (t9a).
        if unit.owner == other(int(seat or 1)) and SHAKEN in unit.markers \
                and FLEEING not in unit.markers:
            events.append(
                Event(
                    "unit_steadied",
                    {"unit": unit.id, "removed": [SHAKEN], "reason": "its Player Turn ended"},
                )
            )
    for unit_id in sorted(units_of(state)):
        if past is not None and unit_id <= past:
            continue
        unit = units_of(state)[unit_id]
        if unit.owner != seat or unit.status != "on_table" or FLEEING not in unit.markers:
            continue
        keep = tuple(m for m in unit.markers if m not in (FLEEING, FEIGNED_FLIGHT, SHAKEN))
        shaken = (SHAKEN,) if ranked_rules(state).shaken_after_rally else ()
        new: list[Event] = []
        if FEIGNED_FLIGHT in unit.markers:
            after = dataclasses.replace(unit, markers=keep)
            new.append(
                Event(
                    "unit_rallied",
                    {"unit": unit.id, "rule": "Feigned Flight", "unit_after": after.to_json(),
                     "text": f"{display_name(state, unit.id)} rally automatically "
                     "(Feigned Flight)"},
                    actor=unit.owner,
                )
            )
        else:
            need = discipline(state, unit)
            roll = dice.roll("2D6")
            rallied = (roll.total or 0) <= need
            payload = {
                "unit": unit.id,
                "roll": roll.to_payload(),
                "discipline": need,
                "rule": "Rally Test",
                "text": f"{display_name(state, unit.id)} take a Rally Test: rolled {roll.total} "
                f"against {need}: "
                + ("they rally" + (" and are Shaken" if shaken else "") if rallied
                   else "they flee on"),
            }
            if rallied:
                after = dataclasses.replace(unit, markers=keep + shaken)
                new.append(
                    Event(
                        "unit_rallied", {**payload, "unit_after": after.to_json()}, actor=unit.owner
                    )
                )
            else:
                new.append(Event("rally_failed", payload, actor=unit.owner))
                new += flee_events(
                    state, unit.id, nearest_enemy(state, unit), dice, "failed Rally Test",
                    suspend=suspend,
                )
        state = core.fold_all(state, new)  # the next unit flees on the table as it is now
        events += new
        if is_suspended(new):
            return [*events, suspension({"kind": "rally", "after": unit.id,
                                         "text": "the other Rally Tests"})]
    return events


@register_frame("rally")
def _resume_rally(state: GameState, frame: Mapping[str, Any], dice: Any) -> list[Event]:
    return rally_events(state, dice, suspend=True, past=str(frame["after"]))


# --- pursuit ------------------------------------------------------------------------------------


PURSUE_STEP_IN = 0.1
"""How far a pursuit is shortened, per step, until it ends clear of units, terrain and edges."""


def pursue_events(
    state: GameState,
    pursuer_id: str,
    fled_id: str,
    flee_distance: float,
    dice: Roller,
    *,
    suspend: bool = False,
) -> list[Event]:
    """The winner of a combat pursues a unit that broke from it (t9a, whfb8): it rolls the
    Pursue Distance (2D6; Swiftstride: Maximised, seed 000), turns about its centre to the
    direction the broken unit fled in and moves that far straight ahead. A Pursue Distance
    equal to or above the Flee Distance catches the fleeing unit, which is destroyed.

    Decisions (docs/rules-decisions.md "Pursuit"): a winner always pursues (holding back with
    a Discipline test is not automated); the pursuer stops short, in steps of
    `PURSUE_STEP_IN`, of anything that would end its move within Unit Spacing of another unit
    or Impassable Terrain or beyond a table edge (pursuing into a new enemy, off the table or
    through terrain is not automated).

    With `suspend`, a pursuit stopped on the way for a player's choice (whfb8: Fanatics
    released at 8 in) ends its events with `resolution_suspended` holding the rest of it (its
    Pursue Distance already rolled): `_rest_of_pursuit` once the choice is made.
    """
    pursuer, fled = unit_of(state, pursuer_id), unit_of(state, fled_id)
    if pursuer.status != "on_table" or not is_ranked(state.system):
        return []
    expression, rule = ranked_rules(state).pursue_roll(sheets_of(state, pursuer))
    roll = dice.roll(expression)
    distance = float(roll.total or 0)
    caught = fled.status == "on_table" and distance >= flee_distance
    table = table_of(state)
    start = table.units[pursuer_id]
    assert start.formation is not None and start.placement is not None
    facing = fled.placement[2] if fled.placement is not None else start.placement.facing
    turned = footprint(start.formation, placement_for_centre(start.formation, start.centre, facing))
    ignore = [fled_id] if caught or fled.status != "on_table" else []
    # Units it may run into (whfb8 Fanatics, seed 003): it moves into them, not past them.
    ignore += variant_of(state.system).passable(state, pursuer_id)
    go, result = distance, None
    while go > 0:
        attempt = movement.move_straight(table, pursuer_id, go, start=turned, ignore=ignore)
        if attempt.legal:
            result = attempt
            break
        go = round(go - PURSUE_STEP_IN, 6)
    halt: list[Event] = []
    if result is None:  # no room to move at all: it stays where it is
        end_placement, moved, swept = start.placement, 0.0, start.boundary
        rest = swept
    else:
        assert result.footprint.placement is not None
        end_placement, moved = result.footprint.placement, go
        swept = shapely.union_all([start.boundary, turned.boundary, result.swept])
        here, halt = halt_on_the_way(state, pursuer, turned, go, pursuer.markers, dice,
                                     "pursuing", suspend=suspend, roll=roll.to_payload())
        rest = movement.sweep_straight(here, result.footprint) if halt else swept
    text = (
        f"{display_name(state, pursuer.id)} pursue {display_name(state, fled.id)}: "
        f"{distance:g} in"
        + (" (Swiftstride: Maximised)" if rule else "")
        + f" against a Flee Distance of {flee_distance:g} in"
        + (f": caught, {display_name(state, fled.id)} are destroyed" if caught
           else ": they escape")
        + (f"; {display_name(state, pursuer.id)} move {say_inches(moved)}" if moved else "")
        + (f" (stopped after {say_inches(halt[0].payload['moved'])} on the way, then went on)"
           if halt else "")
    )
    frame: dict[str, Any] = {
        "kind": "pursuit",
        "text": f"{display_name(state, pursuer.id)} pursue on to the end of their "
        f"{distance:g} in",
        "pursued": {
            "unit": pursuer.id,
            "target": fled.id,
            "roll": roll.to_payload(),
            "rule": rule or "Pursuit",
            "distance": distance,
            "flee_distance": flee_distance,
            "moved": round(moved, 4),
            "facing": round(facing % 360.0, 4),
            "swept": geo.to_geojson(swept),
            "caught": caught,
            "text": text,
        },
        "end": [round(end_placement.x, 4), round(end_placement.y, 4),
                round(end_placement.facing % 360.0, 4)],
        "halted_after": halt[0].payload["moved"] if halt else None,
    }
    if halt and suspend:
        frame["rest"] = geo.to_geojson(rest, None)
        return suspend_with(halt, frame)
    return halt + _rest_of_pursuit(core.fold_all(state, halt), frame, dice, rest,
                                   suspend=suspend)


def _stops_again(
    state: GameState,
    unit: Unit,
    frame: Mapping[str, Any],
    total: float,
    markers: tuple[str, ...],
    dice: Roller,
    what: str,
    suspend: bool,
) -> tuple[list[Event], dict[str, Any], BaseGeometry] | None:
    """The rest of a stopped flee or pursuit (from where it stopped, `total` in in all) judged
    again (`halt_on_the_way`): a concealing unit further on stops it again (seed 003: "in any
    move"; units already within 8 in of it where it stopped do not). Returns the new stop's
    events, the frame of what is left after it and the area left to sweep, or None."""
    done = frame.get("halted_after")
    if done is None or total - float(done) <= 1e-6:
        return None
    start = table_of(state).units[unit.id]
    assert start.placement is not None and start.formation is not None
    length = total - float(done)
    here, halt = halt_on_the_way(state, unit, start, length, markers, dice, what,
                                 suspend=suspend)
    if not halt:
        return None
    end = footprint(start.formation, start.placement.moved(length))
    left = movement.sweep_straight(here, end)
    again = {**frame, "halted_after": round(float(done) + halt[0].payload["moved"], 4),
             "rest": geo.to_geojson(left, None)}
    return halt, again, left


PURSUED_KEYS = ("unit", "target", "roll", "rule", "distance", "flee_distance", "moved", "facing",
                "swept", "caught")


def _rest_of_pursuit(
    state: GameState, frame: Mapping[str, Any], dice: Roller,
    rest: BaseGeometry | None = None, *, suspend: bool = True,
) -> list[Event]:
    """The pursuit's `unit_pursued` (to the end its roll gave it), the catch, and what it ran
    into on the rest of its way, on `state` as it stands after any stop (a stop's Fanatic hits
    may have destroyed the pursuer: then it goes no further). The rest of a stopped pursuit
    may stop again (another concealing unit further on): then it waits again."""
    p = frame["pursued"]
    pursuer = units_of(state)[p["unit"]]
    if pursuer.status != "on_table":  # the Fanatics' hits destroyed it
        return []
    again = _stops_again(state, pursuer, frame, p["moved"], pursuer.markers, dice, "pursuing",
                         suspend)
    if again is not None:
        halt, frame, rest = again
        if suspend:
            return halt + [suspension(frame)]
        state = core.fold_all(state, halt)
        return halt + _rest_of_pursuit(state, frame, dice, rest, suspend=False)
    x, y, facing = frame["end"]
    after = dataclasses.replace(pursuer, placement=(x, y, facing))
    halted = frame.get("halted_after")
    events = [
        Event(
            "unit_pursued",
            {
                **{_roll_key(k, halted): p[k] for k in PURSUED_KEYS},
                "unit_after": after.to_json(),
                "text": p["text"],
                **({"halted_after": halted} if halted is not None else {}),
            },
            actor=pursuer.owner,
        )
    ]
    if p["caught"]:
        fled = p["target"]
        events.append(
            Event(
                "fleeing_unit_caught",
                {"unit": fled, "by": pursuer.id, "rule": "Pursuit",
                 "text": f"{display_name(state, pursuer.id)} catch the fleeing "
                 f"{display_name(state, fled)}: destroyed"},
                actor=pursuer.owner,
            )
        )
    if rest is None:
        rest = shapely.geometry.shape(frame["rest"])
    return events + _moved_on(state, events, pursuer.id, rest, dice)


@register_frame("pursuit")
def _resume_pursuit(state: GameState, frame: Mapping[str, Any], dice: Any) -> list[Event]:
    return _rest_of_pursuit(state, frame, dice)


@register_folder("unit_pursued")
def _fold_unit_pursued(state: GameState, event: Event) -> GameState:
    return with_unit(state, unit_from_json(event.payload["unit_after"]))


@register_turn_start
def _rally_at_turn_start(state: GameState, dice: Roller) -> list[Event]:
    return rally_events(state, dice, suspend=True)


@register_folder("unit_rallied")
def _fold_rallied(state: GameState, event: Event) -> GameState:
    return with_unit(state, unit_from_json(event.payload["unit_after"]))


@register_folder("rally_failed")
def _fold_rally_failed(state: GameState, event: Event) -> GameState:
    return state


@register_folder("unit_steadied")
def _fold_steadied(state: GameState, event: Event) -> GameState:
    unit = units_of(state)[event.payload["unit"]]
    removed = set(event.payload.get("removed", ()))
    return with_unit(
        state, dataclasses.replace(unit, markers=tuple(m for m in unit.markers if m not in removed))
    )


__all__ = [
    "FEIGNED_FLIGHT",
    "FLEEING",
    "SHAKEN",
    "FleeMove",
    "containing",
    "entirely",
    "flee_events",
    "flee_expression",
    "flee_path",
    "rally_events",
]
