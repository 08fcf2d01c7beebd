"""Warhammer 40,000 10th edition: the defender's allocation order (issue 16 item 4).

FACTS.md (the core loop, Allocation): the defending player allocates each successful wound,
to a model that already lost wounds (or had attacks allocated this phase) first. The Wurrboy
page (seed 004, Attached units): no attack is allocated to a Character while a Bodyguard
model lives. Those two constraints stay with the attack sequence (`damage.allocation_target`);
what is left to the defender is which *kind* of model goes first when none is wounded.

Decision (docs/rules-decisions.md, "Allocation"): the attack does not pause for the defender.
The defender sets, beforehand and at any time, an allocation order for each of their units
whose Bodyguard has more than one model line (the Intercessor Sergeant and the Intercessors:
different wargear) with `set_allocation_order`; the attacker's `shoot_weapons` and `fight`
then allocate in that order. Without one, the default is the server's (the last Bodyguard
model first, so the Sergeant or Nob line stays longest; Leaders last). A unit with one
Bodyguard model line has no choice to make: the order is refused, with the reason.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from server.dice import DiceStream
from server.rules.core import (
    BAD_REQUEST,
    BATTLE,
    DEPLOYMENT,
    ILLEGAL_MOVE,
    ActionModel,
    Event,
    GameState,
    RuleError,
    When,
    register_action,
    register_folder,
)
from server.rules.naming import display_name
from server.rules.orders import judge, offer, refused, register_offer
from server.rules.units import Unit, unit_of
from server.rules.wh40k10.army import (
    SYSTEM_ID,
    allocation_preference,
    forty,
    models_of,
    set_forty,
)
from server.rules.wh40k10.profiles import profile_of

ALLOCATION_RULE = "Allocate Attacks"


def bodyguard_lines(state: GameState, unit: Unit) -> list[str]:
    """The Bodyguard model lines the unit has now, in datasheet order (Leaders are never in
    the choice: seed 004, Attached units)."""
    seen: list[str] = []
    for m in models_of(state, unit):
        if not m.character and m.name not in seen:
            seen.append(m.name)
    sheet_order = [
        line.name for line in profile_of(models_of(state, unit)[0].sheet).models
    ] if unit.positions else []
    return sorted(seen, key=lambda n: sheet_order.index(n) if n in sheet_order else len(seen))


def _check(state: GameState, seat: int, unit: Unit) -> list[str]:
    if unit.owner != seat:
        raise RuleError(ILLEGAL_MOVE, f"{display_name(state, unit.id)} is not your unit",
                        rule=ALLOCATION_RULE)
    if not unit.positions:
        raise RuleError(ILLEGAL_MOVE, f"{display_name(state, unit.id)} has no models left",
                        rule=ALLOCATION_RULE)
    lines = bodyguard_lines(state, unit)
    if len(lines) < 2:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{display_name(state, unit.id)} has one kind of Bodyguard model: there is no "
            "allocation choice to make (a wounded model always goes first; Leaders last)",
            rule=ALLOCATION_RULE,
            lines=lines,
        )
    return lines


class SetAllocationOrder(ActionModel):
    type: Literal["set_allocation_order"]
    unit: str = Field(min_length=1, max_length=40)
    models: list[str] = Field(min_length=1, max_length=12)


@register_offer("set_allocation_order")
def _offer_allocation(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """Allocation order…: for a unit of yours with more than one kind of Bodyguard model, the
    kinds it may order and the order now (the Leaders are never allocated to first). Shown to
    the seat acting now, like every unit order; the action itself is taken at any time."""
    if unit.owner != seat or not unit.positions or state.system != SYSTEM_ID:
        return None
    err = judge(lambda: _check(state, seat, unit))
    leaders = sorted({m.name for m in models_of(state, unit) if m.character})
    if err is not None:
        return refused("set_allocation_order", err, models=bodyguard_lines(state, unit),
                       leaders=leaders)
    return offer(
        "set_allocation_order",
        models=bodyguard_lines(state, unit),
        order=allocation_preference(state, unit.id),
        leaders=leaders,
        leaders_reason="a Character in an Attached unit takes no attack while a Bodyguard "
        "model lives (the Wurrboy page)" if leaders else None,
    )


@register_action(
    "set_allocation_order",
    SetAllocationOrder,
    systems=[SYSTEM_ID],
    when=[When(DEPLOYMENT), When(BATTLE)],
    doing="setting the order attacks are allocated in",
)
def set_allocation_order(
    state: GameState, seat: int, action: SetAllocationOrder, dice: DiceStream
) -> list[Event]:
    """The defender's allocation order for one unit: its Bodyguard model kinds, first hit
    first. Every kind is named once; a wounded model still goes first (FACTS.md)."""
    unit = unit_of(state, action.unit, seat)
    lines = _check(state, seat, unit)
    leaders = {m.name for m in models_of(state, unit) if m.character}
    named = [n for n in action.models if n in leaders]
    if named:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{named[0]} leads {display_name(state, unit.id)}: a Character takes no attack while "
            "a Bodyguard model lives, so it is never first",
            rule="Attached Units",
            field="models",
        )
    if sorted(action.models) != sorted(lines) or len(set(action.models)) != len(action.models):
        raise RuleError(
            BAD_REQUEST,
            f"name each kind of model of {display_name(state, unit.id)} once: "
            + ", ".join(lines),
            field="models",
            lines=lines,
        )
    return [
        Event(
            "allocation_order_set",
            {
                "unit": unit.id,
                "models": list(action.models),
                "text": f"{display_name(state, unit.id)} will lose "
                + ", then ".join(action.models)
                + " first (a wounded model always first)",
            },
            actor=seat,
        )
    ]


@register_folder("allocation_order_set")
def _fold_allocation(state: GameState, event: Event) -> GameState:
    prefs = dict(forty(state).allocation)
    prefs[str(event.payload["unit"])] = list(event.payload["models"])
    return set_forty(state, allocation=prefs)
