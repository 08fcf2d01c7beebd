"""Warhammer 40,000 10th edition: the `shoot_weapons` and `fight` actions (issue 16).

Both run the pure attack sequence (`attacks.resolve_attacks`) and record each target's
resolution as an `attacks_resolved` event (`damage_events`), with every die. Then Deadly Demise
(units within 6 in of a destroyed model, measured by the geometry core), then the attacking
unit's Hazardous tests (seed 004: after the unit has resolved all of its attacks).

Shooting (FACTS.md, the core loop): in your Shooting phase, once per unit; each chosen weapon is
fired by every model of the unit that carries it and has the target within the weapon's range
(the geometry core's distance from its base); the target must be visible (the line-of-sight
core) and an enemy; Benefit of Cover when the line-of-sight core gives the target cover;
`profiles.shooting_restriction` (Advanced: Assault only; Fell Back: none; Engaged: Pistols at a
unit it is engaged with; Blast). Rapid Fire: the models within half range get the extra
attacks. Heavy: the unit did not move this turn. The Wurrboy's Eyez of Mork gains Unstable
Oracle's attacks and [HAZARDOUS] while it leads a unit (FACTS.md).

Fighting: in the Fight phase, a unit within Engagement Range of an enemy unit (or that charged
this turn) fights once; units with Fights First (chargers this turn) first, then the rest; in
each step the players alternate, the player whose turn it is not choosing first (a player with
no unit left in the step passes). Models fighting: those within Engagement Range of the target
or in base contact with a model of their unit that is. The Waaagh! adds +1 S and +1 A to melee
weapons of models with the ability (seed 004).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from server.dice import DiceStream
from server.geometry import ENGAGEMENT_RANGE_IN
from server.geometry.kinds import Cover
from server.geometry.los import LineOfSight, line_of_sight
from server.geometry.measure import in_base_contact, within
from server.rules.battle import BATTLE, other, require_phase, require_stage
from server.rules.core import (
    ACTIVE,
    BAD_REQUEST,
    EITHER,
    ILLEGAL_MOVE,
    OUT_OF_PHASE,
    ActionModel,
    Event,
    GameState,
    Phases,
    RuleError,
    When,
    fold_all,
    register_action,
    register_folder,
)
from server.rules.naming import display_name, possessive, say_inches
from server.rules.units import (
    Coord,
    Unit,
    phase_moves,
    table_of,
    turn_moves,
    unit_from_json,
    unit_of,
    units_of,
    with_unit,
)
from server.rules.wh40k10.army import (
    SYSTEM_ID,
    Model,
    demise_map,
    engaged_with,
    forty,
    has_waaagh,
    model_polygons,
    models_of,
    set_forty,
    target_unit,
    waaagh_active,
)
from server.rules.wh40k10.attacks import AttackGroup, resolve_attacks
from server.rules.wh40k10.damage import Resolution, hazardous_tests
from server.rules.wh40k10.damage_events import done_this_phase, resolve_and_chain
from server.rules.wh40k10.engage import close_in_refusal
from server.rules.wh40k10.fall_back import fell_back_this_turn
from server.rules.wh40k10.profiles import (
    MELEE,
    RANGED,
    ProfileError,
    Shooter,
    TargetUnit,
    Weapon,
    shooting_restriction,
    unstable_oracle,
    waaagh_weapon,
)

UNSTABLE_ORACLE = "Unstable Oracle"
EYEZ_OF_MORK = "Eyez of Mork"


class WeaponTarget(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    weapon: str = Field(min_length=1, max_length=80)
    target: str = Field(min_length=1, max_length=40)


class ShootWeapons(ActionModel):
    type: Literal["shoot_weapons"]
    unit: str = Field(min_length=1, max_length=40)
    weapons: list[WeaponTarget] = Field(min_length=1, max_length=12)


def _refuse(message: str, rule: str = "Shooting", **details: object) -> RuleError:
    return RuleError(ILLEGAL_MOVE, message, rule=rule, **details)


_PRINTED: dict[int, tuple[Any, Weapon]] = {}
"""id of a datasheet's weapon profile -> (that profile, its `Weapon`): the catalog's profiles
live as long as the process, and parsing one is most of what asking a model's weapon costs
(the orders ask every weapon of every model per target)."""


def _printed_weapon(printed: Any) -> Weapon:
    held = _PRINTED.get(id(printed))
    if held is None or held[0] is not printed:
        if len(_PRINTED) > 4096:
            _PRINTED.clear()
        held = _PRINTED[id(printed)] = (printed, Weapon.from_datasheet(printed))
    return held[1]


def model_weapon(state: GameState, unit: Unit, model: Model, name: str) -> Weapon | None:
    """`name` as `model` uses it now: its profile, with Unstable Oracle (FACTS.md, Wurrboy: +2
    A per 5 models of the led unit, [HAZARDOUS] at 10 or more) and the Waaagh! (seed 004)."""
    printed = next((w for w in model.weapons() if w.name == name), None)
    if printed is None:
        return None
    weapon = _printed_weapon(printed)
    if (
        name == EYEZ_OF_MORK
        and model.sheet.has_rule(UNSTABLE_ORACLE)
        and model.character
        and unit.characters
        and unit.models > 0
    ):
        weapon = unstable_oracle(weapon, unit.models)
    if weapon.kind == MELEE and waaagh_active(state, unit.owner) and has_waaagh(model.sheet):
        weapon = waaagh_weapon(weapon)
    return weapon


def shooter_of(state: GameState, unit: Unit, engaged: bool) -> Shooter:
    moved = turn_moves(state).get(unit.id, {})
    keywords = frozenset(k for s in [models_of(state, unit)[0].sheet] for k in s.keywords)
    return Shooter(
        advanced=bool(moved.get("advanced")),
        fell_back=unit.id in fell_back_this_turn(state),
        engaged=engaged,
        remained_stationary=not moved.get("moved"),
        keywords=keywords,
    )


def check_shooter(state: GameState, unit: Unit) -> None:
    """The unit itself may shoot this phase: on the table, not yet shot."""
    if unit.status != "on_table" or not unit.positions:
        raise _refuse(f"{display_name(state, unit.id)} is not on the table")
    if unit.id in done_this_phase(state, "shooting"):
        raise _refuse(f"{display_name(state, unit.id)} has already shot this phase")


@dataclasses.dataclass(frozen=True)
class Aim:
    """One weapon aimed at one target, as `aim_weapon` judged it."""

    target: Unit
    weapon: Weapon
    in_range: list[tuple[Model, Weapon]]
    """The models that carry the weapon and have the target within its range."""
    sight: LineOfSight


def aim_weapon(
    state: GameState,
    seat: int,
    unit: Unit,
    shooter: Shooter,
    engaged: Sequence[str],
    weapon_name: str,
    target_id: str,
    *,
    friends: Sequence[Unit],
    sight: LineOfSight | None = None,
) -> Aim:
    """Every check `shoot_weapons` makes of one weapon at one target before a die is rolled
    (the Shoot order's offer asks the same, `offers.py`): an enemy on the table, a ranged
    weapon its models carry, visible (the line-of-sight core; `sight` when already asked),
    `shooting_restriction`, and at least one carrier with the target within range."""
    table = table_of(state)
    models = models_of(state, unit)
    polys = model_polygons(state, unit)
    target = unit_of(state, target_id)
    if target.owner == seat:
        raise _refuse("shooting targets an enemy unit")
    if target.status != "on_table" or target.id not in table.units:
        raise _refuse(f"{display_name(state, target.id)} is not on the table")
    carriers = [(m, model_weapon(state, unit, m, weapon_name)) for m in models]
    armed = [(m, w) for m, w in carriers if w is not None]
    if not armed:
        raise RuleError(
            BAD_REQUEST,
            f"no model of {display_name(state, unit.id)} carries {weapon_name!r}",
            field="weapons",
            carried=sorted({w.name for m in models for w in m.weapons()}),
        )
    weapon = armed[0][1]
    assert weapon is not None
    if weapon.kind != RANGED:
        raise _refuse(f"{weapon.name} is a melee weapon: it fights, it does not shoot")
    if sight is None:
        sight = line_of_sight(table, unit.id, target.id)
    if not sight.visible:
        raise _refuse(
            f"{display_name(state, target.id)} is not visible to {display_name(state, unit.id)}",
            rule="Shooting: Visibility",
            obstacle=sight.blockers[0] if sight.blockers else None,
        )
    target_fp = table.units[target.id]
    target_friends = any(
        within(table.units[f.id], target_fp, ENGAGEMENT_RANGE_IN) for f in friends
    )
    why = shooting_restriction(
        weapon,
        shooter,
        target_engaged_with_friends=target_friends,
        target_engaged_with_shooter=target.id in engaged,
    )
    if why is not None:
        raise _refuse(why)
    assert weapon.range_in is not None
    in_range = [
        (m, w) for m, w in armed if within(polys[m.index], target_fp, float(weapon.range_in))
    ]
    if not in_range:
        raise _refuse(
            f"{display_name(state, target.id)} is out of {possessive(weapon.name)} range "
            f"({weapon.range_in:g} in)",
            rule="Shooting: Range",
        )
    return Aim(target, weapon, in_range, sight)


@register_action(
    "shoot_weapons",
    ShootWeapons,
    systems=[SYSTEM_ID],
    when=[When(BATTLE, ACTIVE, Phases.named("Shooting"))],
    doing="shooting",
)
def shoot_weapons(
    state: GameState,
    seat: int,
    action: ShootWeapons,
    dice: DiceStream,
    *,
    overwatch: str | None = None,
    hazard_later: bool = False,
) -> list[Event]:
    """Shoot: each listed weapon at its target, every check made before any die is rolled
    (`plan_shooting`). `overwatch`: the enemy unit a Fire Overwatch shoots at (stratagems.py),
    "as if it were your Shooting phase", hitting on unmodified 6s; the unit's Engagement Range
    with that unit is not counted (a Charge move after the shots may have ended there).
    `hazard_later`: the Hazardous tests wait for the charging unit's Charge move (seed 004:
    `overwatch_hazard_deferred`, then `hazard_after_charge`)."""
    return _resolve(*plan_shooting(state, seat, action, overwatch=overwatch), dice,
                    kind="shooting", hazard_later=hazard_later)


def plan_shooting(
    state: GameState, seat: int, action: ShootWeapons, *, overwatch: str | None = None
) -> tuple[GameState, int, Unit, dict[str, list[AttackGroup]], dict[str, bool], Shooter, int,
           list[str]]:
    """Every check of `shoot_weapons`, no die rolled (Fire Overwatch asks it before its CP is
    spent): the arguments of the attacks' resolution, or the refusal."""
    if overwatch is None:
        require_phase(state, seat, ("Shooting",), "shooting")
    unit = unit_of(state, action.unit, seat)
    check_shooter(state, unit)
    names = [w.weapon for w in action.weapons]
    if len(set(names)) != len(names):
        raise RuleError(BAD_REQUEST, "each weapon is listed once", field="weapons")
    engaged = [e for e in engaged_with(state, unit) if e != overwatch]
    shooter = shooter_of(state, unit, bool(engaged))
    polys = model_polygons(state, unit)
    table = table_of(state)
    friends = [u for u in units_of(state).values() if u.owner == seat and u.id in table.units]
    plan: dict[str, list[AttackGroup]] = {}
    cover: dict[str, bool] = {}
    hazardous_models: list[str] = []
    hazardous_used = 0
    pistol_models: dict[str, bool] = {}
    for choice in action.weapons:
        if overwatch is not None and choice.target != overwatch:
            raise _refuse(f"Fire Overwatch shoots only at {units_of(state)[overwatch].name}",
                          rule="Fire Overwatch")
        aimed = aim_weapon(state, seat, unit, shooter, engaged, choice.weapon, choice.target,
                           friends=friends)
        target, weapon, in_range, sight = aimed.target, aimed.weapon, aimed.in_range, aimed.sight
        target_fp = table.units[target.id]
        assert weapon.range_in is not None
        for m, w in in_range:
            assert w is not None
            was = pistol_models.setdefault(m.id, w.pistol)
            if was != w.pistol and not (shooter.has_keyword("MONSTER") or shooter.has_keyword(
                "VEHICLE"
            )):
                raise _refuse(
                    f"{m.name} shoots either its Pistols or its other weapons, not both",
                    rule="Pistol",
                )
        half = [m for m, _ in in_range if within(polys[m.index], target_fp, weapon.range_in / 2)]
        far = len(in_range) - len(half)
        groups = plan.setdefault(target.id, [])
        for count, near in ((len(half), True), (far, False)):
            if count:
                groups.append(AttackGroup(weapon, models=count, within_half_range=near,
                                          hit_on_six=overwatch is not None))
        cover[target.id] = cover.get(target.id, False) or sight.cover != Cover.NONE
        if weapon.hazardous:
            hazardous_used += len(in_range)
            hazardous_models.extend(m.id for m, _ in in_range)
    return state, seat, unit, plan, cover, shooter, hazardous_used, hazardous_models


def _resolve(
    state: GameState,
    seat: int,
    unit: Unit,
    plan: dict[str, list[AttackGroup]],
    cover: dict[str, bool],
    shooter: Shooter,
    hazardous_used: int,
    hazardous_models: Sequence[str],
    dice: DiceStream,
    *,
    kind: str,
    hazard_later: bool = False,
) -> list[Event]:
    events: list[Event] = []
    verb = "shoot" if kind == "shooting" else "fight"
    for target_id, groups in plan.items():
        target = units_of(state)[target_id]
        if target.status != "on_table" or not target.positions:
            continue
        tu = target_unit(
            state, target, cover=cover.get(target_id, False), engaged=bool(engaged_with(state,
                                                                                         target))
        )
        within_6in = demise_map(state, target)

        def run(
            tu: TargetUnit = tu,
            groups: list[AttackGroup] = groups,
            w6: dict[str, list[str]] = within_6in,
        ) -> Resolution:
            return resolve_attacks(groups, tu, dice, shooter=shooter, within_6in=w6)

        try:
            state, made = resolve_and_chain(
                state,
                target,
                run,
                dice,
                kind=kind,
                actor=seat,
                attacker=unit.id,
                text=f"{display_name(state, unit.id)} {verb} {display_name(state, target.id)}",
            )
        except ProfileError as exc:  # a profile the sequence cannot use: nothing rolled
            raise RuleError(BAD_REQUEST, str(exc)) from None
        events += made
    if hazardous_used and hazard_later:
        events.append(Event("overwatch_hazard_deferred", {
            "unit": unit.id, "seat": seat, "tests": hazardous_used,
            "models": list(hazardous_models),
            "text": f"{display_name(state, unit.id)}: {hazardous_used} Hazardous "
            f"test{'s' if hazardous_used != 1 else ''} after the Charge move"}, actor=seat))
    elif hazardous_used:
        state, made = hazardous_events(state, seat, unit.id, hazardous_used, hazardous_models,
                                       dice)
        events += made
    if not any(e.payload.get("attacker") == unit.id for e in events):
        events.insert(
            0,
            Event(
                "unit_attacked",
                {"unit": unit.id, "kind": kind, "text": f"{display_name(state, unit.id)}: no "
                                                        "target left"},
                actor=seat,
            ),
        )
    return events


def hazardous_events(
    state: GameState, seat: int, unit_id: str, tests: int, models: Sequence[str],
    dice: DiceStream,
) -> tuple[GameState, list[Event]]:
    """The Hazardous tests of `unit_id` (`tests` weapons used by `models`), if it is still on
    the battlefield."""
    now = units_of(state)[unit_id]
    if not now.positions:
        return state, []
    ids = [m.id for m in models_of(state, now) if m.id in models]
    tu = target_unit(state, now, hazardous=ids)
    w6 = demise_map(state, now)
    return resolve_and_chain(
        state,
        now,
        lambda: hazardous_tests(tu, tests, dice, within_6in=w6),
        dice,
        kind="hazardous",
        actor=seat,
        attacker=None,
        text=f"{display_name(state, now.id)}: Hazardous tests",
    )


def hazard_after_charge(state: GameState, dice: DiceStream) -> list[Event]:
    """The Hazardous tests a Fire Overwatch left for after the Charge move (seed 004), once
    the charge is over: moved, failed or given up (`overwatch_hazard_due`, then the tests)."""
    record = forty(state).overwatch_hazard
    if not record:
        return []
    due = Event("overwatch_hazard_due", {
        "unit": record["unit"], "text": f"{display_name(state, record['unit'])}: the "
        "Hazardous tests of the Fire Overwatch, now the charge is over"},
        actor=int(record["seat"]))
    after = fold_all(state, [due])
    _, made = hazardous_events(after, int(record["seat"]), str(record["unit"]),
                               int(record["tests"]), list(record["models"]), dice)
    return [due, *made]


@register_folder("overwatch_hazard_deferred")
def _fold_hazard_deferred(state: GameState, event: Event) -> GameState:
    p = event.payload
    return set_forty(state, overwatch_hazard={k: p[k] for k in ("unit", "seat", "tests",
                                                                  "models")})


@register_folder("overwatch_hazard_due")
def _fold_hazard_due(state: GameState, event: Event) -> GameState:
    return set_forty(state, overwatch_hazard={})


# --- the Fight phase ---------------------------------------------------------------------------


def charged_this_turn(state: GameState) -> list[str]:
    record = forty(state).charged
    return list(record.get("units", [])) if record.get("pt") == state.battle.player_turn else []


def fighting_models(state: GameState, unit: Unit, target_id: str) -> list[Model]:
    """The models of `unit` that fight `target_id` (as they stand: before a Pile-in): those
    within Engagement Range of it, and those in base contact with a model of the unit that is
    (FACTS.md, Fight phase). Empty when none is in range or the target is not on the table."""
    table = table_of(state)
    if target_id not in table.units:
        return []
    target_fp = table.units[target_id]
    polys = model_polygons(state, unit)
    models = models_of(state, unit)
    close = {m.index for m in models if within(polys[m.index], target_fp, ENGAGEMENT_RANGE_IN)}
    return [
        m
        for m in models
        if m.index in close or any(in_base_contact(polys[m.index], polys[i]) for i in close)
    ]


def eligible_to_fight(state: GameState) -> list[str]:
    """Units on the table within Engagement Range of an enemy (or that charged this turn) that
    have not fought this phase."""
    fought = set(done_this_phase(state, "fight"))
    charged = set(charged_this_turn(state))
    out = []
    for u in units_of(state).values():
        if u.status != "on_table" or not u.positions or u.id in fought:
            continue
        if engaged_with(state, u) or u.id in charged:
            out.append(u.id)
    return out


def fight_chooser(state: GameState) -> tuple[int | None, list[str]]:
    """Whose unit fights next and the units of the current step (Fights First, then the rest).
    The player whose turn it is not chooses first; then the players alternate; a player with no
    unit left in the step passes."""
    from server.rules.wh40k10.stratagems import counter_offensive_next

    ahead = counter_offensive_next(state)  # Counter-offensive: that unit fights next
    if ahead is not None:
        return units_of(state)[ahead].owner, [ahead]
    eligible = eligible_to_fight(state)
    first = [u for u in eligible if u in set(charged_this_turn(state))]
    step = first or eligible
    if not step:
        return None, []
    units = units_of(state)
    owners = {units[u].owner for u in step}
    active = int(state.battle.active_player or 1)
    last = forty(state).last_fighter
    at = [state.battle.player_turn, state.battle.phase]
    prefer = other(int(last["seat"])) if last.get("at") == at else other(active)
    return (prefer if prefer in owners else other(prefer)), step


class Fight(ActionModel):
    type: Literal["fight"]
    unit: str = Field(min_length=1, max_length=40)
    target: str = Field(min_length=1, max_length=40)
    weapon: str | None = Field(default=None, max_length=80)
    pile_in: list[tuple[Coord, Coord]] | None = Field(default=None, min_length=1, max_length=200)
    consolidate: list[tuple[Coord, Coord]] | None = Field(
        default=None, min_length=1, max_length=200
    )


def close_in(
    state: GameState, unit: Unit, positions: Sequence[tuple[float, float]], what: str
) -> Event:
    """A Pile-in or Consolidation move (FACTS.md: up to 3 in), judged model by model by
    `engage.close_in_refusal`: the geometry core's model moves (distance, terrain, other
    units, coherency), then closer to the closest enemy model (or objective marker), base
    contact where it can, ending within Engagement Range."""
    refusal, result = close_in_refusal(state, unit, positions, what)
    if refusal is not None:
        raise refusal
    assert result is not None
    moved = dataclasses.replace(
        unit, positions=tuple((round(x, 4), round(y, 4)) for x, y in positions)
    )
    return Event(
        "models_closed_in",
        {
            "unit": moved.to_json(),
            "move": what,
            "distance": round(result.distance, 4),
            "text": f"{display_name(state, unit.id)} "
                    f"{'pile in' if what == 'pile_in' else 'consolidate'} "
            f"({say_inches(result.distance)})",
        },
        actor=unit.owner,
    )


@register_folder("models_closed_in")
def _fold_closed_in(state: GameState, event: Event) -> GameState:
    return with_unit(state, unit_from_json(event.payload["unit"]))


def check_fighter(state: GameState, seat: int, unit: Unit) -> None:
    """The unit may fight now (the Fight order's offer asks the same, `offers.py`): it has not
    fought this phase, it is eligible, it is in the current step (Fights First) and `seat`
    chooses the next unit to fight."""
    if unit.id in done_this_phase(state, "fight"):
        raise _refuse(f"{display_name(state, unit.id)} has already fought this phase", rule="Fight")
    chooser, step = fight_chooser(state)
    if unit.id not in eligible_to_fight(state):
        raise _refuse(f"{display_name(state, unit.id)} is not within Engagement Range of an enemy "
                      "unit",
                      rule="Fight")
    from server.rules.wh40k10.stratagems import counter_offensive_next  # noqa: PLC0415

    ahead = counter_offensive_next(state)
    if ahead is not None and ahead != unit.id:
        raise _refuse(f"{display_name(state, ahead)} fight next (Counter-offensive)",
                      rule="Counter-offensive", waiting=[ahead])
    if unit.id not in step:
        raise _refuse(
            "units with Fights First fight first: "
            + ", ".join(display_name(state, u) for u in step),
            rule="Fights First",
            waiting=step,
        )
    if chooser != seat:
        raise RuleError(
            OUT_OF_PHASE,
            f"player {chooser} chooses the next unit to fight",
            waiting_for=chooser,
            rule="Fight Order",
        )


@register_action(
    "fight",
    Fight,
    systems=[SYSTEM_ID],
    when=[When(BATTLE, EITHER, Phases.named("Fight"))],
    doing="fighting",
)
def fight(state: GameState, seat: int, action: Fight, dice: DiceStream) -> list[Event]:
    """One unit fights: its models in Engagement Range (or in base contact with one of their
    unit that is) attack the target with `weapon` (default: each model's first melee weapon)."""
    require_stage(state, BATTLE)
    if state.battle.phase != "Fight":
        raise RuleError(
            OUT_OF_PHASE, f"fighting happens in the Fight phase, not {state.battle.phase}",
            phase=state.battle.phase,
        )
    unit = unit_of(state, action.unit, seat)
    target = unit_of(state, action.target)
    if target.owner == seat:
        raise _refuse("a unit fights an enemy unit", rule="Fight")
    check_fighter(state, seat, unit)
    opening_moves: list[Event] = []
    if action.pile_in is not None:
        piled = close_in(state, unit, action.pile_in, "pile_in")
        opening_moves.append(piled)
        state = fold_all(state, [piled])
        unit = units_of(state)[unit.id]
    if target.id not in table_of(state).units:
        raise _refuse(f"{display_name(state, target.id)} is not on the table", rule="Fight")
    fighting = fighting_models(state, unit, target.id)
    if not fighting:
        raise _refuse(
            f"no model of {display_name(state, unit.id)} is within Engagement Range of "
            f"{display_name(state, target.id)}", rule="Fight"
        )
    groups: dict[tuple[str, str], tuple[Weapon, int]] = {}
    hazard: list[str] = []
    for m in fighting:
        melee = [w.name for w in m.weapons() if w.type == MELEE]
        if not melee:
            continue
        name = action.weapon if action.weapon is not None and action.weapon in melee else melee[0]
        weapon = model_weapon(state, unit, m, name)
        assert weapon is not None
        if weapon.hazardous:
            hazard.append(m.id)
        key = (m.sheet.id, name)
        held = groups.get(key)
        groups[key] = (weapon, 1 if held is None else held[1] + 1)
    if action.weapon is not None and not any(n == action.weapon for _, n in groups):
        raise RuleError(BAD_REQUEST, f"no fighting model of {display_name(state, unit.id)} has "
                                     f"{action.weapon!r}",
                        field="weapon")
    if not groups:
        raise _refuse(f"{display_name(state, unit.id)} has no melee weapon", rule="Fight")
    plan = {target.id: [AttackGroup(w, models=n) for w, n in groups.values()]}
    shooter = Shooter(engaged=True)
    opening = Event(
        "fight_started",
        {"unit": unit.id, "target": target.id, "models": len(fighting), "seat": seat,
         "fights_first": unit.id in charged_this_turn(state),
         "text": f"{display_name(state, unit.id)} fight {display_name(state, target.id)} with "
                 f"{len(fighting)} models"},
        actor=seat,
    )
    state = fold_all(state, [opening])
    resolved = _resolve(state, seat, unit, plan, {}, shooter, len(hazard), hazard, dice,
                        kind="fight")
    events = [*opening_moves, opening, *resolved]
    if action.consolidate is not None:
        state = fold_all(state, resolved)
        now = units_of(state)[unit.id]
        if now.positions:
            events.append(close_in(state, now, action.consolidate, "consolidate"))
    return events


@register_folder("fight_started")
def _fold_fight_started(state: GameState, event: Event) -> GameState:
    at = [state.battle.player_turn, state.battle.phase]
    return set_forty(state, last_fighter={"at": at, "seat": event.payload["seat"]})


@register_folder("unit_attacked")
def _fold_unit_attacked(state: GameState, event: Event) -> GameState:
    from server.rules.wh40k10.damage_events import mark_done

    return mark_done(state, str(event.payload["kind"]), str(event.payload["unit"]))


@register_folder("charges_recorded")
def _fold_charges_recorded(state: GameState, event: Event) -> GameState:
    return set_forty(
        state, charged={"pt": state.battle.player_turn, "units": event.payload["units"]}
    )


def charges_of_phase(state: GameState) -> list[str]:
    return [u for u, m in phase_moves(state).items() if m.get("charged")]

