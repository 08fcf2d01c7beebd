"""Warhammer 40,000 10th edition: Stratagems, paid for with Command Points (issue 16).

The core rules (docs/rules-decisions.md, "wh40k10 Stratagems", with sources): using a
Stratagem reduces your CP by its cost; you cannot use one you cannot pay for; the same
Stratagem cannot be used more than once in the same phase; a Battle-shocked unit cannot be
targeted by its own player's Stratagems (FACTS.md). One action, `use_stratagem`, names the
Stratagem and its targets; every refusal has a stable code and the rule's words, and no CP is
spent. CP spent is the `stratagem_used` event; its effects follow it as their own events.

Automated core Stratagems:

* **Command Re-roll** (1 CP): the Advance roll (of the last unit of yours that rolled one this
  phase, before it moves) or the charge roll (of your last charge this phase, when it failed:
  a successful charge is not re-rolled) is rolled again; `command_reroll` holds the old and the
  new dice. A failed charge re-rolled to enough succeeds and moves as any charge. Not a
  Battle-shock test: the 10th-edition text lists hit, wound, damage, save, Advance, charge,
  Desperate Escape and Hazardous rolls and the number of attacks, not Battle-shock tests
  (Insane Bravery is the Stratagem for those). The others are not automated (listed to the
  player).
* **Insane Bravery** (1 CP, once per battle): in your Command phase, before you end it (the
  Battle-shock step runs when you end it), one of your units that will take a Battle-shock
  test (Below Half-strength) passes it without a roll.
* **Fire Overwatch** (1 CP, once per turn): in your opponent's Movement phase after an enemy
  unit was set up or moved, or in their Charge phase just after an enemy unit declared a
  charge and before its roll, one of your units within 24 in shoots at it as in your Shooting
  phase (`combat.shoot_weapons`), hitting only on unmodified 6s. A declared charge waits for
  the charged player's answer (Fire Overwatch or `decline_overwatch`) only when they can use
  it (`_overwatch_wait`); the charge is rolled after the answer. Seed 004: the Hazardous tests
  of an Overwatch at a charger are taken once the charge is over, after its Charge move
  (`combat.hazard_after_charge`).
* **Go to Ground** (1 CP): in your opponent's Shooting phase, one of your Infantry units has a
  6+ invulnerable save and the Benefit of Cover until the end of the phase.
* **Counter-offensive** (2 CP): in the Fight phase, just after an enemy unit fought, one of
  your units within Engagement Range that has not fought fights next.
* **Grenade** (1 CP): in your Shooting phase, a Grenades unit that did not Advance, Fall Back
  or shoot and is not engaged rolls six D6 at a visible enemy unit within 8 in that no unit of
  yours is engaged with: a mortal wound per 4+ (the unit may still shoot after).
* **Heroic Intervention** (2 CP): in your opponent's Charge phase, after an enemy unit ended a
  Charge move, one of your units within 6 in of it that could charge it (not engaged; a
  Vehicle only if a Walker) charges it (2D6, `charge.charge_result`); it gets no Charge bonus
  (it does not fight first).

Not automated (shown to the player as such in the offer): the others of the twelve.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from server.dice import DiceStream
from server.geometry.los import line_of_sight
from server.geometry.measure import within
from server.rules.battle import BATTLE, other, require_stage
from server.rules.charge import (
    charge_result,
    check_charge_target,
    check_charger,
    register_charge_wait,
)
from server.rules.core import (
    BAD_REQUEST,
    EITHER,
    ILLEGAL_MOVE,
    OUT_OF_PHASE,
    REACTING,
    ActionModel,
    Event,
    GameState,
    Phases,
    RuleError,
    When,
    fold_all,
    register_action,
    register_folder,
    register_projector,
)
from server.rules.naming import possessive
from server.rules.orders import in_window, judge, offer, register_game_offer
from server.rules.units import (
    Unit,
    phase_moves,
    table_of,
    turn_moves,
    unit_of,
    units_of,
    with_phase_move,
)
from server.rules.wh40k10.army import (
    SYSTEM_ID,
    demise_map,
    engaged_with,
    forty,
    is_forty,
    models_of,
    set_forty,
    sheets,
    target_unit,
)
from server.rules.wh40k10.charging import ROLLED, charge_answered, resume_charge, roll_charge
from server.rules.wh40k10.combat import (
    ShootWeapons,
    WeaponTarget,
    eligible_to_fight,
    model_weapon,
    plan_shooting,
    shoot_weapons,
)
from server.rules.wh40k10.command import battle_shocked, below_half, cp
from server.rules.wh40k10.damage import (
    Board,
    Recorder,
    Resolution,
    Roller,
    check_demise_input,
    faces,
    finish,
    inflict_mortal_wounds,
    plural,
)
from server.rules.wh40k10.damage_events import done_this_phase, resolve_and_chain
from server.rules.wh40k10.fall_back import fell_back_this_turn
from server.rules.wh40k10.profiles import RANGED, TargetUnit

COMMAND_REROLL = "Command Re-roll"
INSANE_BRAVERY = "Insane Bravery"
FIRE_OVERWATCH = "Fire Overwatch"
GO_TO_GROUND = "Go to Ground"
COUNTER_OFFENSIVE = "Counter-offensive"
HEROIC_INTERVENTION = "Heroic Intervention"
GRENADE = "Grenade"

OVERWATCH_RANGE_IN = 24.0
HEROIC_INTERVENTION_RANGE_IN = 6.0
GRENADE_RANGE_IN = 8.0
GRENADE_DICE = 6
GRENADE_WOUNDS_ON = 4
GO_TO_GROUND_INVULNERABLE = 6


@dataclass(frozen=True)
class Stratagem:
    name: str
    cost: int
    category: str
    when: str
    effect: str
    automated: bool
    note: str = ""


CORE: tuple[Stratagem, ...] = (
    Stratagem(COMMAND_REROLL, 1, "Battle Tactic", "any phase, just after a roll",
              "re-roll that roll", True,
              "automated for Advance and charge rolls; hit, wound, damage, save, Desperate "
              "Escape and Hazardous rolls and the number of attacks are not"),
    Stratagem(COUNTER_OFFENSIVE, 2, "Strategic Ploy", "Fight phase, just after an enemy unit "
              "has fought", "one of your units in Engagement Range that has not fought fights "
              "next", True),
    Stratagem("Epic Challenge", 1, "Epic Deed", "Fight phase, when a Character unit is selected "
              "to fight", "a Character's melee attacks gain [PRECISION]", False),
    Stratagem(INSANE_BRAVERY, 1, "Epic Deed", "your Command phase, before a Battle-shock test",
              "the unit passes the test; once per battle", True),
    Stratagem(GRENADE, 1, "Wargear", "your Shooting phase", "a Grenades unit rolls six D6 at "
              "a visible enemy within 8 in: a mortal wound per 4+", True),
    Stratagem("Tank Shock", 1, "Strategic Ploy", "your Charge phase, after a Vehicle's charge "
              "move", "D6 per point of Toughness, mortal wounds on 5+", False),
    Stratagem("Rapid Ingress", 1, "Strategic Ploy", "end of your opponent's Movement phase",
              "a Reserves unit arrives", False),
    Stratagem(FIRE_OVERWATCH, 1, "Strategic Ploy", "your opponent's Movement or Charge phase, "
              "after an enemy unit is set up, moves or declares a charge",
              "a unit within 24 in shoots at it, hitting on unmodified 6s; once per turn", True),
    Stratagem(GO_TO_GROUND, 1, "Battle Tactic", "your opponent's Shooting phase",
              "an Infantry unit has a 6+ invulnerable save and the Benefit of Cover until the "
              "end of the phase", True),
    Stratagem("Smokescreen", 1, "Wargear", "your opponent's Shooting phase", "a Smoke unit has "
              "the Benefit of Cover and Stealth until the end of the phase", False),
    Stratagem(HEROIC_INTERVENTION, 2, "Strategic Ploy", "your opponent's Charge phase, after "
              "an enemy unit ends a charge move", "a unit within 6 in charges it, without the "
              "charge bonus (it does not fight first)", True),
)
BY_NAME: dict[str, Stratagem] = {s.name.lower(): s for s in CORE}
NOT_AUTOMATED_WORDS = "not automated: play it by agreement with your opponent"

RerollKind = Literal["advance", "charge", "battle_shock"]
ROLL_WORDS = {"advance": "Advance roll", "charge": "charge roll",
              "battle_shock": "Battle-shock test"}


class UseStratagem(ActionModel):
    type: Literal["use_stratagem"]
    stratagem: str = Field(min_length=1, max_length=40)
    unit: str | None = Field(default=None, min_length=1, max_length=40)
    """The unit from your army the Stratagem targets (Command Re-roll: the unit whose roll;
    default: the last one that rolled)."""
    target: str | None = Field(default=None, min_length=1, max_length=40)
    """Fire Overwatch: the enemy unit shot at; Heroic Intervention: the enemy unit that
    charged."""
    roll: RerollKind | None = None
    """Command Re-roll: which roll."""
    weapons: list[str] | None = Field(default=None, min_length=1, max_length=12)
    """Fire Overwatch: the weapons that shoot (default: every ranged weapon in range)."""


# --- the state -------------------------------------------------------------------------------


def _at(state: GameState) -> list[Any]:
    return [state.battle.player_turn, state.battle.phase]


def used_this_phase(state: GameState, seat: int) -> list[str]:
    record = forty(state).stratagems_used.get(str(seat), {})
    return [name for name, at in record.items() if at == _at(state)]


def used_this_battle(state: GameState, seat: int) -> list[str]:
    return list(forty(state).stratagems_once.get(str(seat), []))


def gone_to_ground(state: GameState, unit_id: str) -> bool:
    """Go to Ground: until the end of the phase in which it was used."""
    record = forty(state).go_to_ground
    return record.get("at") == _at(state) and unit_id in record.get("units", [])


def counter_offensive_next(state: GameState) -> str | None:
    """The unit a Counter-offensive made fight next, while it has not fought."""
    record = forty(state).counter_offensive
    unit = record.get("unit")
    if record.get("at") != _at(state) or unit is None:
        return None
    return str(unit) if unit in eligible_to_fight(state) else None


def insane_bravery_test(state: GameState, unit: Unit) -> Event | None:
    """The Battle-shock test of a unit Insane Bravery was used on this turn: passed."""
    record = forty(state).insane_bravery
    if record.get("unit") != unit.id or record.get("pt") != state.battle.player_turn:
        return None
    return Event(
        "battle_shock_test",
        {
            "unit": unit.id,
            "needed": None,
            "passed": True,
            "insane_bravery": True,
            "text": f"{unit.name} Battle-shock test: passed (Insane Bravery)",
        },
    )


# --- the checks ------------------------------------------------------------------------------


def _refuse(stratagem: Stratagem, message: str, code: str = ILLEGAL_MOVE,
            **details: object) -> RuleError:
    return RuleError(code, message, rule=stratagem.name, **details)


def _own_unit(state: GameState, seat: int, s: Stratagem, unit_id: str | None) -> Unit:
    if unit_id is None:
        raise _refuse(s, f"{s.name} targets a unit from your army: name it", BAD_REQUEST,
                      field="unit")
    unit = unit_of(state, unit_id, seat)
    if unit.status != "on_table" or not unit.positions:
        raise _refuse(s, f"{unit.name} is not on the battlefield")
    if unit.id in battle_shocked(state):
        raise _refuse(s, f"{unit.name} is Battle-shocked and cannot be targeted by your "
                      "Stratagems", battle_shocked=True)
    return unit


def _phase(state: GameState) -> str:
    return str(state.battle.phase)


def _opponents_phase(state: GameState, seat: int, s: Stratagem, phases: Sequence[str]) -> None:
    if state.battle.active_player == seat or _phase(state) not in phases:
        raise _refuse(s, f"{s.name} is used in your opponent's {' or '.join(phases)} phase",
                      OUT_OF_PHASE, phase=_phase(state))


def _own_phase(state: GameState, seat: int, s: Stratagem, phase: str) -> None:
    if state.battle.active_player != seat or _phase(state) != phase:
        raise _refuse(s, f"{s.name} is used in your {phase} phase", OUT_OF_PHASE,
                      phase=_phase(state))


def _last_roll(state: GameState, kind: str) -> tuple[str, Mapping[str, Any]] | None:
    """The unit and phase record of the last Advance / charge roll this phase (phase_moves
    keeps the order the units acted in)."""
    key = "advanced" if kind == "advance" else "charged"
    for unit_id, record in reversed(list(phase_moves(state).items())):
        if key in record:
            return unit_id, record
    return None


Effect = Callable[[GameState, DiceStream], list[Event]]


def _check_reroll(state: GameState, seat: int, s: Stratagem, action: UseStratagem) -> tuple[
    Unit, Effect
]:
    if action.roll is None:
        raise _refuse(s, "Command Re-roll: name the roll (advance or charge)", BAD_REQUEST,
                      field="roll")
    if action.roll == "battle_shock":
        raise _refuse(s, "Command Re-roll does not re-roll Battle-shock tests (10th-edition "
                      "core rules); Insane Bravery passes one", not_automated=False)
    if state.battle.active_player != seat:
        raise _refuse(s, f"you made no {ROLL_WORDS[action.roll]} this phase", OUT_OF_PHASE)
    last = _last_roll(state, action.roll)
    words = ROLL_WORDS[action.roll]
    if last is None:
        raise _refuse(s, f"you made no {words} this phase", OUT_OF_PHASE, roll=action.roll)
    unit_id, record = last
    if action.unit is not None and action.unit != unit_id:
        raise _refuse(s, f"the last {words} this phase was "
                      f"{possessive(units_of(state)[unit_id].name)}: only that one can be "
                      "re-rolled")
    unit = _own_unit(state, seat, s, unit_id)
    if action.roll == "advance":
        if "used" in record:
            raise _refuse(s, f"{unit.name} has moved: an Advance roll is re-rolled before the "
                          "unit moves")
        die = int(record["advanced"])
        move = float(record["allowance"]) - die

        def advance(after: GameState, dice: DiceStream) -> list[Event]:
            roll = dice.roll("D6")
            new = roll.total or 0
            return [Event("command_reroll", {
                "seat": seat, "unit": unit.id, "kind": "advance", "old": [die], "new": [new],
                "roll": roll.to_payload(), "move": move, "allowance": move + new,
                "text": f"{unit.name} re-roll the Advance roll: {die} becomes {new}, "
                f"Move {move:g} in + {new} = {move + new:g} in"}, actor=seat)]

        return unit, advance
    if not record.get("failed"):
        raise _refuse(s, f"{possessive(unit.name)} charge succeeded: only a failed charge roll is "
                      "re-rolled")
    target = units_of(state).get(str(record.get("target")))
    if target is None or target.status != "on_table":
        raise _refuse(s, "the target of that charge is no longer on the battlefield")
    old = record.get("roll") or {}
    old_dice = [d.get("face") for d in old.get("dice", [])] if isinstance(old, Mapping) else []
    distances = record.get("distances")
    if isinstance(distances, Mapping) and record.get("targets"):
        # Declared with the Charge… order (targets, then the Charge move model by model): the
        # re-roll is the roll again, and a roll that now reaches leaves the Charge move to the
        # player, as the first roll would have.
        targets = [str(t) for t in record["targets"]]
        gaps = {str(t): float(d) for t, d in distances.items()}

        def charge_again(after: GameState, dice: DiceStream) -> list[Event]:
            events = roll_charge(after, seat, unit, targets, gaps, dice)
            new_roll = events[0].payload.get("roll") or {}
            rolled = events[0].type == ROLLED
            note = Event("command_reroll", {
                "seat": seat, "unit": unit.id, "kind": "charge", "old": old_dice,
                "new": [d.get("face") for d in new_roll.get("dice", [])], "target": targets[0],
                "succeeded": rolled,
                "text": f"{unit.name} re-roll the charge roll: {old.get('total')} becomes "
                f"{new_roll.get('total')}: "
                + ("make the Charge move" if rolled else "the charge fails")}, actor=seat)
            return [note, *events]

        return unit, charge_again

    def charge(after: GameState, dice: DiceStream) -> list[Event]:
        events = charge_result(after, seat, unit, target, dice)
        first = events[0].payload
        new_roll = first.get("roll") or {}
        succeeded = events[0].type == "charge_succeeded"
        note = Event("command_reroll", {
            "seat": seat, "unit": unit.id, "kind": "charge", "old": old_dice,
            "new": [d.get("face") for d in new_roll.get("dice", [])], "target": target.id,
            "succeeded": succeeded,
            "text": f"{unit.name} re-roll the charge roll: {old.get('total')} becomes "
            f"{new_roll.get('total')}: the charge "
            + ("reaches " + target.name if succeeded else "fails")}, actor=seat)
        return [note, *events]

    return unit, charge


def _check_bravery(state: GameState, seat: int, s: Stratagem, action: UseStratagem) -> tuple[
    Unit, Effect
]:
    _own_phase(state, seat, s, "Command")
    if INSANE_BRAVERY in used_this_battle(state, seat):
        raise _refuse(s, "Insane Bravery is used once per battle")
    unit = _own_unit(state, seat, s, action.unit)
    if not below_half(state, unit):
        raise _refuse(s, f"{unit.name} is not Below Half-strength: it takes no Battle-shock "
                      "test")
    return unit, lambda after, dice: []


def _check_ground(state: GameState, seat: int, s: Stratagem, action: UseStratagem) -> tuple[
    Unit, Effect
]:
    _opponents_phase(state, seat, s, ("Shooting",))
    unit = _own_unit(state, seat, s, action.unit)
    if not any(k.upper() == "INFANTRY" for k in sheets(unit)[0].keywords):
        raise _refuse(s, f"{unit.name} is not Infantry")
    return unit, lambda after, dice: []


def _check_counter(state: GameState, seat: int, s: Stratagem, action: UseStratagem) -> tuple[
    Unit, Effect
]:
    if _phase(state) != "Fight":
        raise _refuse(s, "Counter-offensive is used in the Fight phase", OUT_OF_PHASE,
                      phase=_phase(state))
    last = forty(state).last_fighter
    if last.get("at") != _at(state) or int(last.get("seat", seat)) == seat:
        raise _refuse(s, "Counter-offensive is used just after an enemy unit has fought",
                      OUT_OF_PHASE)
    unit = _own_unit(state, seat, s, action.unit)
    if unit.id not in eligible_to_fight(state):
        raise _refuse(s, f"{unit.name} is not within Engagement Range of an enemy unit or has "
                      "already fought this phase")
    return unit, lambda after, dice: []


def _overwatch_weapons(state: GameState, unit: Unit, target: Unit) -> list[str]:
    """Every ranged weapon of the unit with the target in range of a model carrying it; its
    Pistols only when it has nothing else in range. (Kept per state object: the offer asks
    it for a pair `check` has just judged.)"""
    known: dict[tuple[str, str], tuple[Unit, Unit, list[str]]] = state.derived.table_for(
        "wh40k10.stratagems.overwatch_weapons")
    held = known.get((unit.id, target.id))
    if held is not None and held[0] is unit and held[1] is target:
        return list(held[2])
    table = table_of(state)
    from server.rules.wh40k10.army import model_polygons

    polys = model_polygons(state, unit)
    aim = table.units[target.id]
    found: dict[str, bool] = {}
    for m in models_of(state, unit):
        for printed in m.weapons():
            w = model_weapon(state, unit, m, printed.name)
            if w is None or w.kind != RANGED or w.range_in is None:
                continue
            if within(polys[m.index], aim, float(w.range_in)):
                found[w.name] = w.pistol
    others = [n for n, pistol in found.items() if not pistol]
    names = others or list(found)
    known[unit.id, target.id] = (unit, target, names)
    return list(names)


def _check_overwatch(state: GameState, seat: int, s: Stratagem, action: UseStratagem) -> tuple[
    Unit, Effect
]:
    _opponents_phase(state, seat, s, ("Movement", "Charge"))
    if forty(state).overwatch.get(str(seat)) == state.battle.player_turn:
        raise _refuse(s, "Fire Overwatch is used once per turn")
    waiting = overwatch_charge(state, seat)
    if _phase(state) == "Charge" and waiting is None:
        aimed = units_of(state).get(action.target or "")
        record = phase_moves(state).get(aimed.id, {}) if aimed is not None else {}
        late = (f"{aimed.name} has already rolled its charge: "
                if aimed is not None and record else "no charge is waiting for your answer: ")
        raise _refuse(s, late + "in the Charge phase, Fire Overwatch is used just after an "
                      "enemy unit declares a charge, before its charge roll", OUT_OF_PHASE)
    if action.target is None:
        raise _refuse(s, "Fire Overwatch: name the enemy unit to shoot at", BAD_REQUEST,
                      field="target")
    target = unit_of(state, action.target)
    if target.owner == seat:
        raise _refuse(s, "Fire Overwatch shoots at an enemy unit")
    if waiting is not None:
        if target.id != waiting["unit"]:
            raise _refuse(s, "Fire Overwatch shoots at the unit that declared the charge, "
                          f"{units_of(state)[str(waiting['unit'])].name}", OUT_OF_PHASE)
    elif target.id not in phase_moves(state) or target.status != "on_table":
        raise _refuse(s, f"{target.name} has not been set up, moved or declared a charge this "
                      "phase", OUT_OF_PHASE)
    unit = _own_unit(state, seat, s, action.unit)
    table = table_of(state)
    if not within(table.units[unit.id], table.units[target.id], OVERWATCH_RANGE_IN):
        raise _refuse(s, f"{unit.name} is not within {OVERWATCH_RANGE_IN:g} in of "
                      f"{target.name}")
    if not line_of_sight(table, unit.id, target.id).visible:
        raise _refuse(s, f"{target.name} is not visible to {unit.name}")
    names = action.weapons or _overwatch_weapons(state, unit, target)
    if not names:
        raise _refuse(s, f"{target.name} is out of range of every ranged weapon of {unit.name}")
    shot = ShootWeapons(type="shoot_weapons", unit=unit.id,
                        weapons=[WeaponTarget(weapon=n, target=target.id) for n in names])
    # The shot's own checks (an engaged unit fires only Pistols, at the unit it is engaged
    # with; Fell Back; ...), before any CP is spent: the offer then offers only what shoots.
    plan_shooting(state, seat, shot, overwatch=target.id)

    def fire(after: GameState, dice: DiceStream) -> list[Event]:
        return shoot_weapons(after, seat, shot, dice, overwatch=target.id)

    if waiting is None:
        return unit, fire
    pending = dict(waiting)

    def answer(after: GameState, dice: DiceStream) -> list[Event]:
        # The answer ends the wait; the shots, then the charge roll; the Hazardous tests
        # once the charge is over (seed 004).
        said = charge_answered(after, pending, "fire_overwatch", FIRE_OVERWATCH)
        events = [said]
        after = fold_all(after, events)
        events += shoot_weapons(after, seat, shot, dice, overwatch=target.id, hazard_later=True)
        after = fold_all(after, events[1:])
        return [*events, *resume_charge(after, pending, dice)]

    return unit, answer


def overwatch_charge(state: GameState, seat: int) -> Mapping[str, Any] | None:
    """The declared charge waiting for `seat`'s answer with Fire Overwatch, if any."""
    pending = state.charges.pending
    if (not pending or pending.get("answer") != FIRE_OVERWATCH
            or int(pending["reacting_player"]) != seat):
        return None
    return pending


def overwatch_shooters(state: GameState, seat: int) -> list[dict[str, Any]]:
    """The units of `seat` that can fire Overwatch now at the charge waiting for its answer
    (every check of `use_stratagem`: CP, once per turn, range, sight, weapons)."""
    waiting = overwatch_charge(state, seat)
    if waiting is None:
        return []
    charger = str(waiting["unit"])
    out = []
    for u in units_of(state).values():
        if u.owner != seat or u.status != "on_table" or not u.positions:
            continue
        if _try(state, seat, stratagem=FIRE_OVERWATCH, unit=u.id, target=charger) is None:
            out.append({"unit": u.id, "target": charger,
                        "weapons": _overwatch_weapons(state, u, units_of(state)[charger])})
    return out


def _check_heroic(state: GameState, seat: int, s: Stratagem, action: UseStratagem) -> tuple[
    Unit, Effect
]:
    _opponents_phase(state, seat, s, ("Charge",))
    if action.target is None:
        raise _refuse(s, "Heroic Intervention: name the enemy unit that charged", BAD_REQUEST,
                      field="target")
    target = unit_of(state, action.target)
    if target.owner == seat:
        raise _refuse(s, "Heroic Intervention charges an enemy unit")
    if target.status != "on_table" or not phase_moves(state).get(target.id, {}).get("charged"):
        raise _refuse(s, f"{target.name} has not ended a charge move this phase", OUT_OF_PHASE)
    unit = _own_unit(state, seat, s, action.unit)
    if any(k.upper() == "VEHICLE" for k in sheets(unit)[0].keywords) and not any(
        k.upper() == "WALKER" for k in sheets(unit)[0].keywords
    ):
        raise _refuse(s, f"{unit.name} is a Vehicle that is not a Walker")
    table = table_of(state)
    if not within(table.units[unit.id], table.units[target.id], HEROIC_INTERVENTION_RANGE_IN):
        raise _refuse(s, f"{unit.name} is not within {HEROIC_INTERVENTION_RANGE_IN:g} in of "
                      f"{target.name}")
    check_charger(state, unit)
    check_charge_target(state, seat, unit, target)

    def intervene(after: GameState, dice: DiceStream) -> list[Event]:
        events = charge_result(after, seat, unit, target, dice)
        done = Event("heroic_intervention", {
            "seat": seat, "unit": unit.id, "target": target.id,
            "succeeded": events[0].type == "charge_succeeded",
            "text": f"{unit.name} intervene: no charge bonus, they do not fight first"
            if events[0].type == "charge_succeeded" else f"{unit.name} fail to intervene"},
            actor=seat)
        return [*events, done]

    return unit, intervene


def grenade(
    target: TargetUnit, roller: Roller, *, within_6in: Mapping[str, Sequence[str]] | None = None
) -> Resolution:
    """Grenade: six D6, a mortal wound on `target` for each 4+ (allocated as mortal wounds)."""
    check_demise_input(target, within_6in)
    rec = Recorder(roller)
    board = Board(target)
    roll, index = rec.roll(f"{GRENADE_DICE}D6")
    rolled = faces(roll)
    n = sum(1 for f in rolled if f >= GRENADE_WOUNDS_ON)
    rec.add("grenade", f"Grenade: rolled {', '.join(map(str, rolled))}: "
            f"{plural(n, 'mortal wound')} ({GRENADE_WOUNDS_ON}+)", roll=index,
            needed=GRENADE_WOUNDS_ON, data={"mortal_wounds": n})
    lost = inflict_mortal_wounds(rec, board, n, cause="Grenade", within_6in=within_6in) if n else 0
    return finish(rec, board, lost, mortal_wounds=n)


def _check_grenade(state: GameState, seat: int, s: Stratagem, action: UseStratagem) -> tuple[
    Unit, Effect
]:
    _own_phase(state, seat, s, "Shooting")
    unit = _own_unit(state, seat, s, action.unit)
    if not any(k.upper() == "GRENADES" for k in sheets(unit)[0].keywords):
        raise _refuse(s, f"{unit.name} has no Grenades")
    moved = turn_moves(state).get(unit.id, {})
    if moved.get("advanced") or unit.id in fell_back_this_turn(state):
        raise _refuse(s, f"{unit.name} Advanced or Fell Back this turn")
    if unit.id in done_this_phase(state, "shooting"):
        raise _refuse(s, f"{unit.name} has already shot this phase")
    if engaged_with(state, unit):
        raise _refuse(s, f"{unit.name} is within Engagement Range of an enemy unit")
    if action.target is None:
        raise _refuse(s, "Grenade: name the enemy unit", BAD_REQUEST, field="target")
    target = unit_of(state, action.target)
    table = table_of(state)
    if target.owner == seat or target.id not in table.units:
        raise _refuse(s, "Grenade targets an enemy unit on the battlefield")
    if any(u.owner == seat for u in units_of(state).values()
           if u.id in engaged_with(state, target)):
        raise _refuse(s, f"{target.name} is within Engagement Range of a unit of your army")
    if not within(table.units[unit.id], table.units[target.id], GRENADE_RANGE_IN):
        raise _refuse(s, f"{target.name} is not within {GRENADE_RANGE_IN:g} in of {unit.name}")
    if not line_of_sight(table, unit.id, target.id).visible:
        raise _refuse(s, f"{target.name} is not visible to {unit.name}")

    def throw(after: GameState, dice: DiceStream) -> list[Event]:
        aim = units_of(after)[target.id]
        tu, w6 = target_unit(after, aim), demise_map(after, aim)
        _, events = resolve_and_chain(
            after, aim, lambda: grenade(tu, dice, within_6in=w6), dice, kind="grenade",
            actor=seat, attacker=None, text=f"{unit.name} throw a Grenade at {aim.name}")
        return events

    return unit, throw


CHECKS: dict[str, Callable[[GameState, int, Stratagem, UseStratagem], tuple[Unit, Effect]]] = {
    COMMAND_REROLL: _check_reroll,
    INSANE_BRAVERY: _check_bravery,
    GO_TO_GROUND: _check_ground,
    COUNTER_OFFENSIVE: _check_counter,
    FIRE_OVERWATCH: _check_overwatch,
    HEROIC_INTERVENTION: _check_heroic,
    GRENADE: _check_grenade,
}


def stratagem_named(name: str) -> Stratagem:
    found = BY_NAME.get(name.strip().lower())
    if found is None:
        raise RuleError(BAD_REQUEST, f"no core Stratagem called {name!r}", field="stratagem",
                        known=[s.name for s in CORE])
    return found


def check(state: GameState, seat: int, action: UseStratagem) -> tuple[Stratagem, Unit, Effect]:
    """Every check of `use_stratagem`, no die rolled: the Stratagem, its unit, its effect."""
    require_stage(state, BATTLE)
    s = stratagem_named(action.stratagem)
    if not s.automated:
        raise _refuse(s, f"{s.name} is {NOT_AUTOMATED_WORDS}", not_automated=True)
    if s.name in used_this_phase(state, seat):
        raise _refuse(s, f"{s.name} has already been used this phase (the same Stratagem "
                      "cannot be used more than once in the same phase)")
    unit, effect = CHECKS[s.name](state, seat, s, action)
    have = cp(state)[str(seat)]
    if have < s.cost and s.name not in used_this_phase(state, seat):
        raise _refuse(s, f"{s.name} costs {s.cost} CP and you have {have}", cost=s.cost,
                      cp=have)
    return s, unit, effect


@register_action(
    "use_stratagem",
    UseStratagem,
    systems=[SYSTEM_ID],
    when=[When(BATTLE, EITHER)],
    doing="using a Stratagem",
)
def use_stratagem(
    state: GameState, seat: int, action: UseStratagem, dice: DiceStream
) -> list[Event]:
    """Pay the Stratagem's CP (`stratagem_used`), then resolve its effect."""
    s, unit, effect = check(state, seat, action)
    left = cp(state)[str(seat)] - s.cost
    target = units_of(state).get(action.target or "") if action.target else None
    paid = Event(
        "stratagem_used",
        {
            "seat": seat,
            "stratagem": s.name,
            "cost": s.cost,
            "cp_left": left,
            "unit": unit.id,
            "target": target.id if target else None,
            "turn_of": state.battle.player_turn,
            "text": f"Player {seat} uses {s.name} ({s.cost} CP, {left} left) on {unit.name}"
            + (f", at {target.name}" if target else ""),
        },
        actor=seat,
    )
    return [paid, *effect(fold_all(state, [paid]), dice)]


@register_folder("stratagem_used")
def _fold_used(state: GameState, event: Event) -> GameState:
    p = event.payload
    seat, name, unit = str(p["seat"]), str(p["stratagem"]), str(p["unit"])
    data = forty(state)
    points = cp(state)
    points[seat] = int(p["cp_left"])
    used = {k: dict(v) for k, v in data.stratagems_used.items()}
    used.setdefault(seat, {})[name] = _at(state)
    values: dict[str, Any] = {"cp": points, "stratagems_used": used}
    if name == INSANE_BRAVERY:
        once = {k: list(v) for k, v in data.stratagems_once.items()}
        once.setdefault(seat, []).append(name)
        values["stratagems_once"] = once
        values["insane_bravery"] = {"unit": unit, "pt": state.battle.player_turn}
    elif name == GO_TO_GROUND:
        record = data.go_to_ground
        units = list(record.get("units", [])) if record.get("at") == _at(state) else []
        values["go_to_ground"] = {"at": _at(state), "units": [*units, unit]}
    elif name == COUNTER_OFFENSIVE:
        values["counter_offensive"] = {"at": _at(state), "unit": unit}
    elif name == FIRE_OVERWATCH:
        values["overwatch"] = {**data.overwatch, seat: state.battle.player_turn}
    return set_forty(state, **values)


@register_folder("heroic_intervention")
def _fold_heroic(state: GameState, event: Event) -> GameState:
    """The intervening unit charged, but it is no charger of this phase: no Fights First."""
    p = event.payload
    record = {"intervened": p["target"] if p["succeeded"] else None}
    return with_phase_move(state, p["unit"], record)


@register_folder("command_reroll")
def _fold_reroll(state: GameState, event: Event) -> GameState:
    p = event.payload
    if p["kind"] != "advance":
        return state  # a charge re-roll: the charge events that follow say what happened
    moves = phase_moves(state)
    record = {**moves.get(p["unit"], {}), "advanced": p["new"][0], "allowance": p["allowance"]}
    return with_phase_move(state, p["unit"], record)


# --- what a player is offered ----------------------------------------------------------------


def _try(state: GameState, seat: int, **fields: Any) -> RuleError | None:
    action = UseStratagem(type="use_stratagem", **fields)
    return judge(lambda: check(state, seat, action))


def _usable(state: GameState, seat: int, s: Stratagem) -> dict[str, Any]:
    """Whether `s` can be used now, on what, and why not."""
    entry: dict[str, Any] = {"name": s.name, "cost": s.cost, "category": s.category,
                             "when": s.when, "effect": s.effect, "note": s.note or None}
    have = cp(state)[str(seat)]
    if have < s.cost and s.name not in used_this_phase(state, seat):
        # Not affordable: no target can change that, so none is judged (the per-target checks
        # measure ranges and sight, the bulk of the offer's cost).
        entry.update(available=False, targets=[],
                     reason=f"{s.name} costs {s.cost} CP and you have {have}")
        return entry
    # The moment (stage, phase, whose turn, once per phase / turn / battle): asked with no
    # unit, target or roll, a check refuses before it reads them or asks for the first one it
    # needs (BAD_REQUEST). Any other refusal is the moment's, the same for every target: it is
    # their verdict, and no target is judged (most Stratagems are out of their moment).
    moment = _try(state, seat, stratagem=s.name)
    if moment is not None and moment.code == BAD_REQUEST:
        moment = None

    def attempt(**fields: Any) -> RuleError | None:
        return moment if moment is not None else _try(state, seat, stratagem=s.name, **fields)

    units = [u for u in units_of(state).values() if u.status == "on_table" and u.positions]
    mine = [u for u in units if u.owner == seat]
    targets: list[dict[str, Any]] = []
    reasons: list[RuleError] = []
    if s.name == COMMAND_REROLL:
        for kind in ("advance", "charge"):
            err = attempt(roll=kind)
            if err is None:
                last = _last_roll(state, kind)
                assert last is not None
                targets.append({"roll": kind, "unit": last[0]})
            else:
                reasons.append(err)
    elif s.name in (FIRE_OVERWATCH, HEROIC_INTERVENTION, GRENADE):
        charging = overwatch_charge(state, seat) if s.name == FIRE_OVERWATCH else None
        enemies = [u for u in units if u.owner != seat
                   and (s.name == GRENADE or u.id in phase_moves(state)
                        or (charging is not None and u.id == charging["unit"]))]
        for u in mine:
            for e in enemies:
                err = attempt(unit=u.id, target=e.id)
                if err is None:
                    pair: dict[str, Any] = {"unit": u.id, "target": e.id}
                    if s.name == FIRE_OVERWATCH:
                        pair["weapons"] = _overwatch_weapons(state, u, e)
                    targets.append(pair)
                else:
                    reasons.append(err)
        if not enemies:
            err = moment or _try(state, seat, stratagem=s.name)
            reasons.append(
                err
                if err is not None and err.code != BAD_REQUEST
                else _refuse(s, "no enemy unit is on the battlefield" if s.name == GRENADE
                             else "no enemy unit has been set up, moved or declared a charge "
                             "this phase", OUT_OF_PHASE)
            )
    else:
        for u in mine:
            err = attempt(unit=u.id)
            if err is None:
                targets.append({"unit": u.id})
            else:
                reasons.append(err)
        if not mine:
            reasons.append(_refuse(s, "no unit of yours is on the battlefield"))
    entry["available"] = bool(targets)
    entry["targets"] = targets
    entry["reason"] = None if targets else (_first_reason(reasons) or "not now")
    return entry


def _first_reason(reasons: Sequence[RuleError]) -> str | None:
    """Why not: a refusal past the moment (CP, once per phase, the unit) before a refusal of
    the moment; the one most targets share."""
    if not reasons:
        return None
    fitting = [r.message for r in reasons if r.code != OUT_OF_PHASE]
    words = fitting or [r.message for r in reasons]
    return max(words, key=words.count)


@register_game_offer("use_stratagem", key="stratagems")
def _offer_stratagems(state: GameState, seat: int) -> dict[str, Any] | None:
    """The core Stratagems: the automated ones with cost, whether usable now, the targets and
    the reason when not; the others listed as not automated."""
    if not is_forty(state) or not in_window(state, seat, "use_stratagem"):
        return None
    auto = [_usable(state, seat, s) for s in CORE if s.automated]
    return offer(
        "use_stratagem",
        available=any(e["available"] for e in auto),
        reason=None if any(e["available"] for e in auto) else "no Stratagem can be used now",
        cp=cp(state)[str(seat)],
        stratagems=auto,
        not_automated=[
            {"name": s.name, "cost": s.cost, "when": s.when, "effect": s.effect,
             "reason": NOT_AUTOMATED_WORDS}
            for s in CORE
            if not s.automated
        ],
    )


# --- the charged player's answer: Fire Overwatch or not -------------------------------------


def _overwatch_wait(
    state: GameState, seat: int, unit: Unit, targets: list[str], gaps: dict[str, float],
    declared_by: str,
) -> list[Event] | None:
    """A declared charge waits for the charged player's answer when they can fire Overwatch
    at the charger now (the core Stratagem's moment: just after the charge is declared, before
    its roll); else None and the charge is rolled at once."""
    answerer = other(seat)
    names = ", ".join(units_of(state)[t].name for t in targets)
    declared = Event("charge_declared", {
        "unit": unit.id, "target": targets[0], "targets": list(targets),
        "distances": {t: round(g, 3) for t, g in gaps.items()},
        "distance": round(min(gaps.values()), 3), "reacting_player": answerer,
        "reactions": ["fire_overwatch", "decline"], "refused": {}, "answer": FIRE_OVERWATCH,
        "declared_by": declared_by,
        "text": f"{unit.name} declare a charge against {names}: Player {answerer} may fire "
        "Overwatch before the charge roll"}, actor=seat)
    if not overwatch_shooters(fold_all(state, [declared]), answerer):
        return None
    return [declared]


register_charge_wait(SYSTEM_ID, _overwatch_wait)


class DeclineOverwatch(ActionModel):
    type: Literal["decline_overwatch"]


@register_action(
    "decline_overwatch",
    DeclineOverwatch,
    systems=[SYSTEM_ID],
    when=[When(BATTLE, REACTING, Phases.named("Charge"))],
    doing="answering a charge",
    rolls_distance=True,
    sweeps=False,
)
def decline_overwatch(
    state: GameState, seat: int, action: DeclineOverwatch, dice: DiceStream
) -> list[Event]:
    """The charged player lets the declared charge go on without Fire Overwatch: it is
    rolled."""
    waiting = overwatch_charge(state, seat)
    if waiting is None:
        raise RuleError(OUT_OF_PHASE, "no charge is waiting for your answer",
                        rule=FIRE_OVERWATCH)
    pending = dict(waiting)
    said = charge_answered(state, pending, "decline", "no Fire Overwatch")
    return [said, *resume_charge(fold_all(state, [said]), pending, dice)]


@register_game_offer("decline_overwatch", key="charge_answer")
def _offer_charge_answer(state: GameState, seat: int) -> dict[str, Any] | None:
    """For the charged player while a declared charge waits: Fire Overwatch with each unit
    that can (the `use_stratagem` to send), or Decline (`decline_overwatch`)."""
    waiting = overwatch_charge(state, seat)
    if waiting is None or not is_forty(state):
        return None
    charger = units_of(state)[str(waiting["unit"])]
    reactions: list[dict[str, Any]] = [
        {"reaction": "fire_overwatch", "name": f"Fire Overwatch with "
         f"{units_of(state)[p['unit']].name}", "available": True, "unit": p["unit"],
         "weapons": p["weapons"],
         "action": {"type": "use_stratagem", "stratagem": FIRE_OVERWATCH, **p}}
        for p in overwatch_shooters(state, seat)
    ]
    reactions.append({"reaction": "decline", "name": "Decline", "available": True,
                      "action": {"type": "decline_overwatch"}})
    fire = BY_NAME[FIRE_OVERWATCH.lower()]
    return offer("decline_overwatch", answer=FIRE_OVERWATCH, charger=charger.id,
                 targets=list(waiting.get("targets") or [waiting["target"]]),
                 cost=fire.cost, cp=cp(state)[str(seat)], reactions=reactions,
                 text=f"{charger.name} declare a charge: fire Overwatch ({fire.cost} CP, "
                 "hitting on unmodified 6s) before the charge roll?")


@register_projector
def _project_stratagems(state: GameState, viewer: int | None, out: dict[str, Any]) -> None:
    view = out.get("forty")
    if not isinstance(view, dict):
        return
    data = forty(state)
    view["stratagems"] = {
        "used_this_phase": {str(s): used_this_phase(state, s) for s in (1, 2)},
        "once_per_battle_used": {str(s): used_this_battle(state, s) for s in (1, 2)},
        "gone_to_ground": [u for u in units_of(state) if gone_to_ground(state, u)],
        "fights_next": counter_offensive_next(state) if _phase(state) == "Fight" else None,
        "overwatch_used": dict(data.overwatch),
    }


__all__ = [
    "CORE",
    "GO_TO_GROUND_INVULNERABLE",
    "UseStratagem",
    "counter_offensive_next",
    "gone_to_ground",
    "insane_bravery_test",
    "use_stratagem",
]
