"""Rank-and-flank: the loser's Break Tests, fleeing and pursuit, and Panic Tests.

1. **Break Test**: each unit of the side that lost the round, still on the table and not
   fleeing, rolls 2D6 against its leadership (the system's `leadership` of every model: t9a
   Discipline, the highest) minus the difference; passed when `test_passes` (at most the
   number needed). A **Steadfast** unit (more counting ranks than every enemy unit of the
   combat still fighting) tests against its unmodified leadership (`steadfast_note` says so),
   as does a unit with the system's `unmodified_leadership` rule (whfb8 Stubborn). The
   system's `test_notes` name rules that decided the roll (whfb8 Insane Courage). A unit with
   the system's `instead_of_break_test` rule (whfb8 Unbreakable, Unstable) takes no test: its
   `break_test` has no roll and names the rule, and it loses the wounds the rule says (Unstable:
   one per point lost by, fewer when Steadfast or an Animated Construct), no saves.
2. **A failed test**: a unit with the system's `losses_instead_of_fleeing` rule (t9a Supernal,
   entirely) loses wounds equal to the difference instead, no saves, rank-and-file first, then
   attachable models as evenly as possible. Any other unit breaks and flees (`flee_unit`:
   server/rules/flee.py's flee move away from the winner), and every winning unit no longer
   Engaged with another enemy pursues (flee.py `pursue_events`: caught when its Pursuit
   Distance reaches the Flee Distance). In a system with a `restraint_rule` (whfb8), a winner
   its owner ordered to hold back (`restrain_pursuit`) first tests its leadership
   (`restraint_test`): passed, it stays.
3. **Panic Tests**: when a unit breaks or is destroyed, every friendly unit on the table within
   the system's `panic_range_in` (6 in) of where it stood, not Engaged and not fleeing, rolls
   2D6 against its leadership; a unit with the system's `panic_immunity` rule (t9a Fearless)
   passes without a roll; a failed test flees from the enemy. A system with
   `heavy_casualties` (whfb8: 0.25) also has a unit that lost that fraction of the models it
   had at the start of the phase test (`heavy_casualties`, after any loss: shooting, Stand
   and Shoot, a Fanatic's hits; never an Engaged unit, so the strikes and Unstable wounds of a
   combat make no such test, FACTS "units in close combat do not test"); with
   `panic_once_per_phase` (whfb8) a unit that passed a Panic Test does not test again that
   phase; with `panic_through` (whfb8) a unit that breaks or flees from Panic makes the friends
   it flees through test.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import shapely
import shapely.geometry
from pydantic import Field
from shapely.geometry.base import BaseGeometry

from server import geometry as geo
from server.dice import DiceStream
from server.geometry.footprint import Footprint, as_geometry
from server.geometry.measure import distance
from server.rules.core import (
    BATTLE,
    ActionModel,
    Event,
    GameState,
    When,
    part_of,
    register_action,
    register_folder,
    register_projector,
    with_part,
)
from server.rules.flee import pursue_events
from server.rules.markers import FEIGNED_FLIGHT
from server.rules.naming import display_name
from server.rules.orders import offer, register_offer
from server.rules.rankandflank.attacks import Roller
from server.rules.rankandflank.combat_result import proper_ranks
from server.rules.rankandflank.engagement import active, is_engaged, sheets_of
from server.rules.rankandflank.events import (
    MODELS_AT_START,
    MODELS_LOST,
    Log,
    flee_unit,
    losses_events,
)
from server.rules.rankandflank.system import rank_and_flank_of
from server.rules.resume import is_suspended, register_frame, suspension
from server.rules.systems import find_system
from server.rules.units import Unit, phase_moves, table_of, unit_of, units_of, with_phase_move


def panic_tests(
    log: Log,
    source_id: str,
    where: Footprint | None,
    enemy_id: str,
    dice: Roller,
    cause: str,
) -> None:
    """Panic Tests for friendly units within the Panic range of `source_id`, which broke or
    was destroyed standing at `where` (its footprint before it fled or was removed); module
    text, step 3."""
    _panic_tests(log, source_id, where, enemy_id, dice, cause, None)


def _panic_tests(
    log: Log,
    source_id: str,
    where: Footprint | BaseGeometry | None,
    enemy_id: str,
    dice: Roller,
    cause: str,
    only: list[str] | None,
) -> None:
    """`panic_tests` for the units in `only` (None: every unit), in order; a Panic Test whose
    flee waits for a player (whfb8 Fanatics) suspends the tests still to take."""
    state = log.state
    rules = rank_and_flank_of(state)
    source = units_of(state)[source_id]
    table = table_of(state)
    if where is None:
        return
    order = [u.id for u in units_of(state).values()] if only is None else only
    for i, uid in enumerate(order):
        unit = units_of(state)[uid]
        if unit.owner != source.owner or unit.id == source_id or not active(unit):
            continue
        if is_engaged(log.state, unit.id) or unit.id not in table.units:
            continue
        gap = distance(where, table.units[unit.id]).distance
        if gap > rules.panic_range_in + 1e-9:
            continue
        panic_test(log, unit, source_id, enemy_id, dice, cause)
        if log.suspended:
            log.add(suspension({
                "kind": "panic_tests", "source": source_id, "where": _shape(where),
                "enemy": enemy_id, "cause": cause, "left": order[i + 1:],
                "text": f"the other Panic Tests ({cause})",
            }))
            return


def _shape(where: Footprint | BaseGeometry) -> Any:
    return geo.to_geojson(as_geometry(where), None)


@register_frame("panic_tests")
def _resume_panic_tests(state: GameState, frame: Any, dice: Any) -> list[Event]:
    log = Log(state, resumable=True)
    _panic_tests(log, frame["source"], shapely.geometry.shape(frame["where"]), frame["enemy"],
                 dice, frame["cause"], list(frame["left"]))
    return log.events


def panic_test(
    log: Log, unit: Unit, source_id: str, enemy_id: str, dice: Roller, cause: str
) -> None:
    """One unit's Panic Test (`cause` in words, `source_id` the unit that caused it); a failed
    test flees from `enemy_id`. A system with `panic_once_per_phase` (whfb8) skips a unit that
    passed one this phase."""
    rules = rank_and_flank_of(log.state)
    unit = log.unit(unit.id)  # as it stands now: an earlier test of this batch may have moved it
    if not active(unit):
        return
    if rules.panic_once_per_phase and phase_moves(log.state).get(unit.id, {}).get(PANIC_PASSED):
        return
    key = rules.leadership_name.lower()
    sheets = sheets_of(log.state, unit)
    immune = rules.panic_immunity(sheets)
    if immune is not None:
        text = (
            f"{immune}: {display_name(log.state, unit.id)} pass the Panic Test automatically "
            f"({cause})"
        )
        log.add(
            Event(
                "panic_test",
                {
                    "unit": unit.id,
                    "cause": source_id,
                    "passed": True,
                    "rule": immune,
                    "rules": [{"rule": immune, "text": text}],
                    "text": text,
                },
            )
        )
        return
    value = rules.leadership(sheets)
    roll = dice.roll("2D6")
    total = roll.total or 0
    passed = rules.test_passes(total, value)
    notes = rules.test_notes(total, value)
    text = (
        f"{display_name(log.state, unit.id)} take a Panic Test ({cause}): rolled {total} against "
        f"{rules.leadership_name} {value}: {'passed' if passed else 'failed'}"
    )
    log.add(
        Event(
            "panic_test",
            {
                "unit": unit.id,
                "cause": source_id,
                key: value,
                "roll": roll.to_payload(),
                "passed": passed,
                "rule": None,
                "rules": notes,
                "text": text,
            },
        )
    )
    if not passed:
        flee_and_panic(log, unit.id, enemy_id, dice, "failed a Panic Test")


def flee_and_panic(
    log: Log, unit_id: str, enemy_id: str, dice: Roller, reason: str
) -> list[Event]:
    """`flee_unit`, then (a system with `panic_through`, whfb8) a Panic Test for each friendly
    unit the flight passed through (flee.py's `passed_through`); the flee events."""
    fled = flee_unit(log.state, unit_id, enemy_id, dice, reason, suspend=log.resumable)
    log.add(*fled)
    panic_through(log, unit_id, enemy_id, fled, dice)
    return fled


def panic_through(
    log: Log, unit_id: str, enemy_id: str, fled: Sequence[Event], dice: Roller
) -> None:
    """A system with `panic_through` (whfb8): a Panic Test for each friendly unit, not Engaged,
    that the flight of `unit_id` (the events `fled`, already in `log`) passed through (flee.py's
    `passed_through`); a failed test flees from `enemy_id`."""
    rules = rank_and_flank_of(log.state)
    if not rules.panic_through:
        return
    crossed = [
        uid for e in fled if e.type == "unit_fled" for uid in e.payload.get("passed_through", ())
    ]
    if log.suspended:  # the flee waits part-way: its rest first, then these tests
        crossed = list(_flee_frame(list(fled))["fled"]["passed_through"])
        log.add(suspension({"kind": "panic_through", "unit": unit_id, "enemy": enemy_id,
                            "crossed": crossed,
                            "text": "Panic Tests of the units they fled through"}))
        return
    _panic_through(log, unit_id, enemy_id, crossed, dice)


def _panic_through(
    log: Log, unit_id: str, enemy_id: str, crossed: list[str], dice: Roller
) -> None:
    """The Panic Tests of friends a flight passed through (whfb8 `panic_through`)."""
    name = log.unit(unit_id).name
    owner = log.unit(unit_id).owner
    for i, uid in enumerate(crossed):
        friend = units_of(log.state).get(uid)
        if friend is None or friend.owner != owner or not active(friend):
            continue
        if is_engaged(log.state, uid):
            continue
        panic_test(log, friend, unit_id, enemy_id, dice, f"{name} fled through them")
        if log.suspended:
            log.add(suspension({"kind": "panic_through", "unit": unit_id, "enemy": enemy_id,
                                "crossed": crossed[i + 1:],
                                "text": "Panic Tests of the units they fled through"}))
            return


@register_frame("panic_through")
def _resume_panic_through(state: GameState, frame: Any, dice: Any) -> list[Event]:
    log = Log(state, resumable=True)
    _panic_through(log, frame["unit"], frame["enemy"], list(frame["crossed"]), dice)
    return log.events


def _flee_frame(events: list[Event]) -> Any:
    """The suspended rest of the flee among `events` (its Flee Distance, what it crossed)."""
    return next(f for e in events if e.type == "resolution_suspended"
                for f in e.payload["frames"] if f["kind"] == "flee")


def flee_distance_of(events: list[Event]) -> float:
    """The Flee Distance rolled by the flee among `events` (moved or still suspended)."""
    for e in events:
        if e.type == "unit_fled":
            return float(e.payload["distance"])
    if is_suspended(events):
        return float(_flee_frame(events)["fled"]["distance"])
    return 0.0


def reaction_flight_panic(
    state: GameState, unit_id: str, charger_id: str, fled: Sequence[Event], dice: Roller
) -> list[Event]:
    """Panic Tests for the friends a unit that fled as a Charge Reaction passed through (the
    events `fled`, already folded into `state`), in a system with `panic_through` (whfb8,
    FACTS Panic: "when fleeing friends pass through"); none after a Feigned Flight (seed 002:
    it "does not cause Panic from fleeing through friendly units"). A friend's Panic flee may
    wait part-way for a player (whfb8 Fanatics): the events then end suspended, and the charge
    reaction (server/rules/charge.py `react`) suspends the charge after them."""
    if FEIGNED_FLIGHT in units_of(state)[unit_id].markers:
        return []
    if is_suspended(list(fled)):  # the flee waits part-way (whfb8 Fanatics): the tests after it
        crossed = list(_flee_frame(list(fled))["fled"]["passed_through"])
        if not crossed or not rank_and_flank_of(state).panic_through:
            return []
        return [suspension({"kind": "panic_through", "unit": unit_id, "enemy": charger_id,
                            "crossed": crossed,
                            "text": "Panic Tests of the units they fled through"})]
    log = Log(state, resumable=True)
    panic_through(log, unit_id, charger_id, fled, dice)
    return log.events


def restrains(log: Log, winner_id: str, fled_id: str, dice: Roller) -> bool:
    """A winner its owner ordered to hold back (`restrain_pursuit`) in a system with a
    `restraint_rule` tests its leadership (`restraint_test`): passed, it does not pursue."""
    rules = rank_and_flank_of(log.state)
    rule = rules.restraint_rule
    if rule is None or winner_id not in restrain_orders(log.state):
        return False
    winner = log.unit(winner_id)
    value = rules.leadership(sheets_of(log.state, winner))
    roll = dice.roll("2D6")
    total = roll.total or 0
    passed = rules.test_passes(total, value)
    outcome = "passed: they hold" if passed else "failed: they pursue"
    text = (
        f"{display_name(log.state, winner.id)} try to restrain their pursuit of "
        f"{log.unit(fled_id).name}: rolled "
        f"{total} against {rules.leadership_name} {value}: {outcome}"
    )
    log.add(
        Event(
            "restraint_test",
            {
                "unit": winner_id,
                "fled": fled_id,
                rules.leadership_name.lower(): value,
                "roll": roll.to_payload(),
                "passed": passed,
                "rule": rule,
                "rules": [{"rule": rule, "text": f"{rule}: {outcome}"}],
                "text": text,
            },
        )
    )
    return passed


RESTRAIN = "restrain_pursuit"
"""The projection's key for the units held back (`PursuitRestraint`)."""


@dataclass(frozen=True, slots=True)
class PursuitRestraint:
    """This family's part of the state: the units whose owner ordered them to hold back from
    pursuits (a system's `restraint_rule`), sorted."""

    units: tuple[str, ...] = ()


def has_restraint(system_id: str) -> bool:
    """For `register_action(systems=...)`: systems whose winners may be ordered to hold back
    (a `restraint_rule`)."""
    rules = find_system(system_id).rank_and_flank
    return rules is not None and rules.restraint_rule is not None


def restrain_orders(state: GameState) -> frozenset[str]:
    """Units whose owner ordered them to hold back from pursuits."""
    return frozenset(part_of(state, PursuitRestraint).units)


class RestrainPursuit(ActionModel):
    type: Literal["restrain_pursuit"]
    unit: str = Field(min_length=1, max_length=40)
    restrain: bool = True


@register_offer("restrain_pursuit", anytime=True)
def _offer_restrain(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """Hold back / Pursue: either player's order to their own units on the table, any time in
    the battle (`restrained`: the order stands now)."""
    if unit.owner != seat or unit.status != "on_table":
        return None
    return offer("restrain_pursuit", restrained=unit.id in restrain_orders(state),
                 rule=rank_and_flank_of(state).restraint_rule)


@register_action(
    "restrain_pursuit",
    RestrainPursuit,
    systems=has_restraint,
    when=[When(BATTLE)],
    doing="ordering a unit to hold back from pursuits",
)
def restrain_pursuit(
    state: GameState, seat: int, action: RestrainPursuit, dice: DiceStream
) -> list[Event]:
    """Order one of your units to hold back from pursuing (a restraint test when its enemy
    breaks) or to pursue again; any time in the battle, either player for their own units."""
    unit = unit_of(state, action.unit, seat)
    rule = rank_and_flank_of(state).restraint_rule
    text = (
        f"{display_name(state, unit.id)} will try to hold back from pursuits ({rule}: a "
        "Leadership test)"
        if action.restrain
        else f"{display_name(state, unit.id)} will pursue fleeing enemies"
    )
    return [
        Event(
            "pursuit_order",
            {"unit": unit.id, "restrain": action.restrain, "rule": rule, "text": text},
            actor=seat,
        )
    ]


@register_folder("pursuit_order")
def _fold_pursuit_order(state: GameState, event: Event) -> GameState:
    orders = set(restrain_orders(state))
    unit = event.payload["unit"]
    if event.payload["restrain"]:
        orders.add(unit)
    else:
        orders.discard(unit)
    return with_part(state, PursuitRestraint(tuple(sorted(orders))))


@register_projector
def _project_restrain(state: GameState, viewer: int | None, base: dict[str, Any]) -> None:
    if part_of(state, PursuitRestraint).units:
        base[RESTRAIN] = sorted(restrain_orders(state))


def heavy_casualties(log: Log, unit_id: str, enemy_id: str, dice: Roller) -> None:
    """The system's `heavy_casualties` Panic (whfb8: 25 % of the models the unit had at the
    start of the phase lost in it, FACTS): the unit itself tests, if it is on the table, not
    fleeing and not Engaged, once the losses of this phase reach the fraction (module text,
    step 3)."""
    rules = rank_and_flank_of(log.state)
    fraction = rules.heavy_casualties
    unit = log.unit(unit_id)
    if fraction is None or not active(unit) or is_engaged(log.state, unit_id):
        return
    record = phase_moves(log.state).get(unit_id, {})
    start, lost = record.get(MODELS_AT_START, 0), record.get(MODELS_LOST, 0)
    if not start or lost < fraction * start - 1e-9 or record.get(HEAVY_CASUALTIES_TESTED):
        return
    log.add(
        Event(
            "heavy_casualties",
            {
                "unit": unit_id,
                "lost": lost,
                "of": start,
                "text": f"{display_name(log.state, unit.id)} lost {lost} of {start} models this "
                        "phase "
                f"({round(100 * lost / start)} %): a Panic Test",
            },
        )
    )
    panic_test(log, log.unit(unit_id), unit_id, enemy_id, dice, f"{lost} of {start} models lost")


def heavy_casualties_held_back(
    state: GameState, away_from: Callable[[Unit], str], dice: Roller
) -> list[Event]:
    """The `heavy_casualties` Panic Tests held back while nothing else could move (whfb8:
    Fanatics waiting to be released, seed 003, "the Fanatics move before anything else"): every
    unit whose losses this phase reached the fraction and that has not tested, in id order,
    each fleeing (if it fails) from `away_from(unit)`."""
    log = Log(state)
    for uid in sorted(phase_moves(state)):
        unit = units_of(log.state).get(uid)
        if unit is not None:
            heavy_casualties(log, uid, away_from(unit), dice)
    return log.events


def break_test(
    log: Log,
    unit: Unit,
    difference: int,
    enemy_ranks: int,
    winners: list[str],
    dice: Roller,
) -> None:
    """The Break Test of a unit that lost a combat by `difference` against winning units whose
    best counting ranks are `enemy_ranks` (module text, steps 1 and 2)."""
    state = log.state
    rules = rank_and_flank_of(state)
    sheets = sheets_of(state, unit)
    value = rules.leadership(sheets)
    ranks = proper_ranks(state, unit)
    steadfast = ranks > enemy_ranks
    instead = rules.instead_of_break_test(
        sheets, difference=difference, steadfast=steadfast, state=state, unit=unit
    )
    if instead is not None:
        _no_break_test(log, unit, difference, instead, winners, dice)
        return
    stubborn = rules.unmodified_leadership(sheets)
    unmodified = steadfast or stubborn is not None
    needed = value if unmodified else value - difference
    roll = dice.roll("2D6")
    total = roll.total or 0
    passed = rules.test_passes(total, needed)
    notes = [rules.steadfast_note(ranks, enemy_ranks, value)] if steadfast else []
    if stubborn is not None and not steadfast:
        notes.append(
            {
                "rule": stubborn,
                "text": f"{stubborn}: {display_name(state, unit.id)} test on unmodified "
                f"{rules.leadership_name} {value}",
            }
        )
    notes += rules.test_notes(total, needed)
    text = (
        f"{display_name(state, unit.id)} take a Break Test: rolled {total} against "
        f"{needed} ({rules.leadership_name} {value}"
        + ("" if unmodified else f" - {difference}")
        + f"): {'passed' if passed else 'failed'}"
    )
    log.add(
        Event(
            "break_test",
            {
                "unit": unit.id,
                rules.leadership_name.lower(): value,
                "difference": difference,
                "needed": needed,
                "steadfast": steadfast,
                "roll": roll.to_payload(),
                "passed": passed,
                "rules": notes,
                "text": text,
            },
        )
    )
    if passed:
        return
    enemy = winners[0] if winners else unit.id
    where = table_of(log.state).units.get(unit.id)
    losing = rules.losses_instead_of_fleeing(sheets)
    if losing is not None:
        events, _ = losses_events(
            log.state,
            log.unit(unit.id),
            difference,
            evenly=True,
            rule=losing,
            cause=f"failed Break Test, combat lost by {difference}, no saves",
        )
        log.add(*events)
        if log.unit(unit.id).status == "destroyed":
            panic_tests(log, unit.id, where, enemy, dice, f"{display_name(state, unit.id)} "
                                                          "destroyed")
        return
    fled = flee_and_panic(log, unit.id, enemy, dice, "failed their Break Test")
    flee_distance = flee_distance_of(fled)
    if log.suspended:  # the flee waits part-way (whfb8 Fanatics): the rest after it
        log.add(suspension({
            "kind": "broke", "unit": unit.id, "where": None if where is None else _shape(where),
            "enemy": enemy, "winners": list(winners), "flee_distance": flee_distance,
            "text": f"Panic Tests for {display_name(state, unit.id)} breaking, then the pursuit",
        }))
        return
    _after_breaking(log, unit.id, where, enemy, winners, flee_distance, dice)


def _after_breaking(
    log: Log,
    unit_id: str,
    where: Footprint | BaseGeometry | None,
    enemy: str,
    winners: list[str],
    flee_distance: float,
    dice: Roller,
) -> None:
    """A unit broke and fled: Panic Tests for it, then the winners' pursuits."""
    name = log.unit(unit_id).name
    panic_tests(log, unit_id, where, enemy, dice, f"{name} broke")
    if log.suspended:
        log.add(suspension({"kind": "pursuits", "fled": unit_id, "winners": list(winners),
                            "flee_distance": flee_distance,
                            "text": f"the pursuit of {name}"}))
        return
    _pursuits(log, unit_id, winners, flee_distance, dice)


def _pursuits(
    log: Log, fled_id: str, winners: list[str], flee_distance: float, dice: Roller
) -> None:
    for i, winner in enumerate(winners):
        # A winner still fighting another enemy stays; the others pursue (flee.py), unless
        # ordered to hold back and they pass the system's restraint test.
        if log.unit(winner).status == "on_table" and not is_engaged(log.state, winner):
            if restrains(log, winner, fled_id, dice):
                continue
            log.add(*pursue_events(log.state, winner, fled_id, flee_distance, dice,
                                   suspend=log.resumable))
            if log.suspended and winners[i + 1:]:
                log.add(suspension({"kind": "pursuits", "fled": fled_id,
                                    "winners": winners[i + 1:], "flee_distance": flee_distance,
                                    "text": f"the other pursuits of {log.unit(fled_id).name}"}))
            if log.suspended:
                return


@register_frame("broke")
def _resume_broke(state: GameState, frame: Any, dice: Any) -> list[Event]:
    log = Log(state, resumable=True)
    where = None if frame["where"] is None else shapely.geometry.shape(frame["where"])
    _after_breaking(log, frame["unit"], where, frame["enemy"], list(frame["winners"]),
                    float(frame["flee_distance"]), dice)
    return log.events


@register_frame("pursuits")
def _resume_pursuits(state: GameState, frame: Any, dice: Any) -> list[Event]:
    log = Log(state, resumable=True)
    _pursuits(log, frame["fled"], list(frame["winners"]), float(frame["flee_distance"]), dice)
    return log.events


def _no_break_test(
    log: Log,
    unit: Unit,
    difference: int,
    instead: tuple[str, int, list[dict[str, str]]],
    winners: list[str],
    dice: Roller,
) -> None:
    """A unit that takes no Break Test (the system's `instead_of_break_test`: whfb8
    Unbreakable, Unstable): `break_test` with no roll, passed, naming the rule; then the wounds
    the rule costs, no saves, rank-and-file first and then characters as evenly as possible."""
    rule, losses, notes = instead
    text = (
        f"{rule}: {display_name(log.state, unit.id)} take no Break Test (combat lost by "
        f"{difference})"
    )
    log.add(
        Event(
            "break_test",
            {
                "unit": unit.id,
                "difference": difference,
                "needed": None,
                "steadfast": False,
                "roll": None,
                "passed": True,
                "rule": rule,
                "rules": [{"rule": rule, "text": text}, *notes],
                "text": text,
            },
        )
    )
    if losses <= 0:
        return
    where = table_of(log.state).units.get(unit.id)
    events, _ = losses_events(
        log.state,
        log.unit(unit.id),
        losses,
        evenly=True,
        rule=rule,
        cause=f"combat lost by {difference}, no saves",
    )
    log.add(*events)
    if log.unit(unit.id).status == "destroyed":
        enemy = winners[0] if winners else unit.id
        panic_tests(log, unit.id, where, enemy, dice, f"{display_name(log.state, unit.id)} "
                                                      "destroyed")


PANIC_PASSED = "panic_passed"
HEAVY_CASUALTIES_TESTED = "heavy_casualties_tested"


@register_folder("panic_test")
def _fold_panic_test(state: GameState, event: Event) -> GameState:
    """A passed Panic Test is remembered for the phase where the system asks (whfb8)."""
    rules = find_system(state.system).rank_and_flank
    p = event.payload
    if rules is None or not rules.panic_once_per_phase or not p["passed"]:
        return state
    record = {**phase_moves(state).get(p["unit"], {}), PANIC_PASSED: True}
    return with_phase_move(state, p["unit"], record)


@register_folder("heavy_casualties")
def _fold_heavy_casualties(state: GameState, event: Event) -> GameState:
    unit = event.payload["unit"]
    record = {**phase_moves(state).get(unit, {}), HEAVY_CASUALTIES_TESTED: True}
    return with_phase_move(state, unit, record)
