"""Warhammer 40,000 10th edition: a charge against one or more targets, with the Charge move
made model by model after the roll (issue 16 item 1).

FACTS.md (Charge phase) and the 10th-edition core rules (docs/rules-decisions.md, "Charges"):
a unit that did not Advance or Fall Back (the Waaagh! aside) selects one or more enemy units
within 12 in as the targets of its charge and rolls 2D6. Then each model makes its Charge move,
up to the roll: it ends closer to one of the targets, moves within Engagement Range of no enemy
unit that is not a target, ends in base contact with a model of a target if it can (within
the roll, in a straight line, the move still legal: `engage.base_contact_refusal`), and the
unit ends within Engagement Range of every target and in Unit Coherency
(`engage.charge_move_refusal`). If that is not possible the charge fails and no
model moves.

`charge` declares and rolls (`charge_rolled`; at once `charge_failed` when the roll is short of
the closest target's distance less Engagement Range, which no move could make). When the
charged player can use Fire Overwatch, the declared charge first waits for their answer
(`charge_declared`, stratagems.py) and is rolled after it (`resume_charge`). `charge_move`
gives the models' end positions, judged against the roll: a refused move changes nothing and
may be given again; `charge_move` without positions gives the charge up (`charge_failed`), and
so does ending the Charge phase with the move not made. The shared `declare_charge` (one target,
the server moving the unit straight in) stays, judged by the same rules through
`Variant.model_charge_refusal`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from pydantic import Field

from server.dice import DiceStream
from server.geometry import ENGAGEMENT_RANGE_IN
from server.rules.battle import BATTLE, on_phase_end
from server.rules.charge import (
    charge_result,
    charge_roll_expression,
    charge_targets,
    charge_wait,
    check_charge_target,
    check_charger,
)
from server.rules.core import (
    ACTIVE,
    BAD_REQUEST,
    ILLEGAL_MOVE,
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
from server.rules.flee import sheets_of
from server.rules.naming import display_name, say_inches, tenths
from server.rules.orders import judge, offer, refused, register_offer
from server.rules.units import Coord, Unit, phase_moves, unit_of, units_of, with_phase_move
from server.rules.wh40k10.army import SYSTEM_ID, forty, set_forty
from server.rules.wh40k10.combat import hazard_after_charge
from server.rules.wh40k10.engage import charge_move_refusal

ROLLED = "charge_rolled"


def pending_charge_move(state: GameState) -> dict[str, Any] | None:
    """The charge rolled this phase whose Charge move is still to be made, if any."""
    pending = forty(state).charge_move
    if not pending:
        return None
    moves = phase_moves(state).get(pending["unit"], {})
    if not moves.get(ROLLED) or "charged" in moves:
        return None
    return dict(pending)


def pending_refusal(state: GameState, unit_id: str) -> tuple[str, str] | None:
    """While a charge waits for its Charge move, no other charge is declared."""
    pending = pending_charge_move(state)
    if pending is None or pending["unit"] == unit_id:
        return None
    return ("Charge", f"{display_name(state, pending['unit'])} must make its Charge move (or "
            "give the charge up) before another charge is declared")


class DeclareCharges(ActionModel):
    type: Literal["charge"]
    unit: str = Field(min_length=1, max_length=40)
    targets: list[str] = Field(min_length=1, max_length=6)


def _names(state: GameState, ids: list[str]) -> str:
    return ", ".join(display_name(state, t) for t in ids)


@register_action(
    "charge",
    DeclareCharges,
    systems=[SYSTEM_ID],
    when=[When(BATTLE, ACTIVE, Phases.named("Charge"))],
    doing="charging",
)
def charge(state: GameState, seat: int, action: DeclareCharges, dice: DiceStream) -> list[Event]:
    """Select the targets (each an enemy within 12 in) and roll the charge (2D6)."""
    if len(set(action.targets)) != len(action.targets):
        raise RuleError(BAD_REQUEST, "each target is named once", field="targets")
    unit = unit_of(state, action.unit, seat)
    check_charger(state, unit)
    if (pending := pending_charge_move(state)) is not None:
        waiting = display_name(state, str(pending["unit"]))
        raise RuleError(ILLEGAL_MOVE, f"{waiting} must make its Charge move first",
                        rule="Charge")
    gaps = {t: check_charge_target(state, seat, unit, unit_of(state, t)) for t in action.targets}
    answer_first = charge_wait(state, seat, unit, list(action.targets), gaps, "charge")
    if answer_first is not None:  # the charged player may fire Overwatch before the roll
        return answer_first
    return roll_charge(state, seat, unit, list(action.targets), gaps, dice)


def charge_answered(
    state: GameState, pending: dict[str, Any], reaction: str, name: str
) -> Event:
    """The charged player's answer to a declared charge (ends the wait: `charge_reaction`)."""
    target = str(pending["target"])
    return Event("charge_reaction", {
        "unit": target, "charger": pending["unit"], "reaction": reaction, "name": name,
        "forced": False,
        "text": f"Player {pending['reacting_player']} answers the charge of "
        f"{display_name(state, str(pending['unit']))}: {name}"},
        actor=int(pending["reacting_player"]))


def resume_charge(state: GameState, pending: dict[str, Any], dice: DiceStream) -> list[Event]:
    """The declared charge, once answered: its roll (then the Charge move, or a failure), or
    nothing if the charger was destroyed; a Fire Overwatch's Hazardous tests once the charge
    is over (seed 004)."""
    units = units_of(state)
    charger = units[str(pending["unit"])]
    if charger.status != "on_table" or not charger.positions:
        return hazard_after_charge(state, dice)
    seat = charger.owner
    targets = [str(t) for t in pending.get("targets") or [pending["target"]]]
    stored = pending.get("distances") or {}

    def gap(t: str) -> float:
        # Measured again: the shots may have removed the charger's closest models.
        try:
            return check_charge_target(state, seat, charger, units[t])
        except RuleError:
            return float(stored.get(t, 0.0))

    if pending.get("declared_by") == "declare_charge":
        events = charge_result(state, seat, charger, units[targets[0]], dice)
    else:
        events = roll_charge(state, seat, charger, targets, {t: gap(t) for t in targets}, dice)
    after = fold_all(state, events)
    if pending_charge_move(after) is None:
        events += hazard_after_charge(after, dice)
    return events


def roll_charge(
    state: GameState, seat: int, unit: Unit, targets: list[str], gaps: dict[str, float],
    dice: DiceStream,
) -> list[Event]:
    """Roll the charge of `unit` on `targets` (`gaps`: the distance to each): `charge_rolled`,
    the Charge move then the player's, or at once `charge_failed` when the roll is short of
    what the farthest target needs. Also a Command Re-roll of a failed one (stratagems.py)."""
    expression, bonus = charge_roll_expression(state, sheets_of(state, unit))
    roll = dice.roll(expression)
    reach = (roll.total or 0) + bonus
    need = max(gaps.values()) - ENGAGEMENT_RANGE_IN
    names = _names(state, targets)
    payload: dict[str, Any] = {
        "unit": unit.id,
        "target": targets[0],
        "targets": list(targets),
        "distances": {t: round(g, 3) for t, g in gaps.items()},
        "roll": roll.to_payload(),
        "bonus": bonus,
        "range": reach,
    }
    said = f"{display_name(state, unit.id)} charge {names}: 2D6 = {reach} in"
    if reach + 1e-9 < need:
        why = f"rolled {reach}, and the farthest target needs at least {say_inches(need)}"
        return [Event("charge_failed", {**payload, "reason": why,
                                        "text": f"{said}: the charge fails ({why})"}, actor=seat)]
    return [Event(ROLLED, {**payload, "text": f"{said}: make the Charge move (each model up to "
                           f"{reach} in)"}, actor=seat)]


@register_offer("charge")
def _offer_charge(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """Charge… (one or more targets): the enemy units within 12 in, each with why not; hidden
    while the unit's own Charge move waits (`charge_move` is offered then)."""
    if unit.owner != seat or unit.status != "on_table" or state.system != SYSTEM_ID:
        return None
    pending = pending_charge_move(state)
    if pending is not None and pending["unit"] == unit.id:
        return None
    err = judge(lambda: check_charger(state, unit))
    if err is not None:
        return refused("charge", err, targets=[])
    targets = charge_targets(state, seat, unit)
    if not any(t["available"] for t in targets):
        return offer("charge", False, "no enemy unit is within 12 in", targets=targets)
    return offer("charge", targets=targets)


@register_offer("charge_move")
def _offer_charge_move(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """The Charge move after the roll: its targets and the roll (each model's most)."""
    pending = pending_charge_move(state)
    if unit.owner != seat or pending is None or pending["unit"] != unit.id:
        return None
    return offer("charge_move", targets=list(pending["targets"]), range=pending["range"])


@register_folder(ROLLED)
def _fold_rolled(state: GameState, event: Event) -> GameState:
    p = event.payload
    state = with_phase_move(state, p["unit"], {ROLLED: True})
    return set_forty(state, charge_move={"unit": p["unit"], "targets": p["targets"],
                                         "range": p["range"], "roll": p["roll"]})


class ChargeMove(ActionModel):
    type: Literal["charge_move"]
    unit: str = Field(min_length=1, max_length=40)
    positions: list[tuple[Coord, Coord]] | None = Field(
        default=None, min_length=1, max_length=200
    )


def _failed(state: GameState, unit: Unit, pending: dict[str, Any], why: str) -> Event:
    return Event(
        "charge_failed",
        {"unit": unit.id, "target": pending["targets"][0], "targets": pending["targets"],
         "range": pending["range"], "reason": why,
         "text": f"{display_name(state, unit.id)}: the charge fails ({why})"},
        actor=unit.owner,
    )


@register_action(
    "charge_move",
    ChargeMove,
    systems=[SYSTEM_ID],
    when=[When(BATTLE, ACTIVE, Phases.named("Charge"))],
    doing="making a Charge move",
)
def charge_move(state: GameState, seat: int, action: ChargeMove, dice: DiceStream) -> list[Event]:
    """The Charge move after the roll: every model's end position, judged against the roll
    and the targets (`engage.charge_move_refusal`); no positions: the charge is given up."""
    unit = unit_of(state, action.unit, seat)
    pending = pending_charge_move(state)
    if pending is None or pending["unit"] != unit.id:
        raise RuleError(ILLEGAL_MOVE,
                        f"{display_name(state, unit.id)} has no charge waiting for its Charge move",
                        rule="Charge")
    if action.positions is None:
        gave_up = [_failed(state, unit, pending, "no Charge move made")]
        return gave_up + hazard_after_charge(fold_all(state, gave_up), dice)
    refusal = charge_move_refusal(
        state, unit, pending["targets"], action.positions, float(pending["range"])
    )
    if refusal is not None:
        raise refusal
    moved = dataclasses.replace(unit, positions=tuple(
        (round(float(x), 4), round(float(y), 4)) for x, y in action.positions))
    far = max(
        ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5
        for a, b in zip(unit.positions, moved.positions, strict=True)
    )
    moved_in = [
        Event(
            "charge_succeeded",
            {
                "unit": unit.id,
                "target": pending["targets"][0],
                "targets": pending["targets"],
                # The roll is recorded on `charge_rolled`, where it was drawn; named here
                # as a reference (core.ROLL_REFERENCES), or the proof would count it twice.
                "distance_roll": pending["roll"],
                "bonus": 0,
                "range": pending["range"],
                "distance": round(far, 3),
                "rule": None,
                "unit_after": moved.to_json(),
                "text": f"{display_name(state, unit.id)} make the Charge move "
                f"({tenths(far)} of {pending['range']} in) "
                f"into {_names(state, pending['targets'])}",
            },
            actor=seat,
        )
    ]
    # Seed 004: a Fire Overwatch's Hazardous mortal wounds come after the Charge move.
    return moved_in + hazard_after_charge(fold_all(state, moved_in), dice)


@on_phase_end(SYSTEM_ID, "Charge")
def unmade_charge_moves(state: GameState, dice: DiceStream) -> list[Event]:
    """A charge whose Charge move was not made by the end of the phase fails."""
    pending = pending_charge_move(state)
    if pending is None:
        return []
    unit = units_of(state)[pending["unit"]]
    ended = [_failed(state, unit, pending, "the Charge phase ended before the Charge move")]
    return ended + hazard_after_charge(fold_all(state, ended), dice)
