"""Warhammer 40,000 10th edition: the defender's allocation order.

FACTS.md (the core loop, Allocation): the defending player allocates each successful wound,
to a model that already lost wounds (or had attacks allocated this phase) first. The Wurrboy
page (seed 004, Attached units): no attack is allocated to a Character while a Bodyguard
model lives. Those two constraints stay with the attack sequence (`damage.allocation_target`);
what is left to the defender is which model goes first when none is wounded.

Decision (docs/rules-decisions.md, "Allocation"): the attack does not pause for the defender.
The defender sets, beforehand and at any time, an order for each of their units with
`set_allocation_order`, either

* `order`: every Bodyguard model of the unit (model ids), first to go first. The order offered
  is the sensible one the server would take (casualties.py: the unit kept in coherency, the
  models farthest from the enemy first), so a player takes it as it is in one action, or
  changes it; it follows the models as casualties are removed (damage_events.py); or
* `models`: the order of the Bodyguard model kinds (the Intercessor Sergeant and the
  Intercessors: different wargear), for a unit that has more than one; within a kind the
  server's sensible choice.

The attacker's `shoot_weapons` and `fight`, mortal wounds and Desperate Escape then allocate in
that order. Without one, the sensible default (casualties.py). Leaders are never in the order.
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
    model_name,
    models_of,
    set_forty,
)
from server.rules.wh40k10.casualties import casualty_order, chosen_order, sensible_order
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
    models: list[str] | None = Field(default=None, min_length=1, max_length=12)
    """The Bodyguard model kinds (line names), first to lose models first."""
    order: list[str] | None = Field(default=None, min_length=1, max_length=40)
    """Every Bodyguard model (model ids, as `forty.models` shows them), first to go first."""


def _guards(state: GameState, unit: Unit) -> list[str]:
    return [m.id for m in models_of(state, unit) if not m.character]


def _check_models(state: GameState, seat: int, unit: Unit) -> list[str]:
    """A model order needs a unit of yours with two Bodyguard models or more."""
    if unit.owner != seat:
        raise RuleError(ILLEGAL_MOVE, f"{display_name(state, unit.id)} is not your unit",
                        rule=ALLOCATION_RULE)
    guards = _guards(state, unit)
    if len(guards) < 2:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{display_name(state, unit.id)} has "
            + ("no Bodyguard model" if not guards else "one Bodyguard model")
            + " left: there is no allocation choice to make",
            rule=ALLOCATION_RULE,
        )
    return guards


def _named(state: GameState, unit: Unit, ids: list[str]) -> list[dict[str, Any]]:
    by_id = {m.id: m for m in models_of(state, unit)}
    return [{"id": i, "name": model_name(by_id[i]), "wounded": by_id[i].lost > 0}
            for i in ids if i in by_id]


@register_offer("set_allocation_order")
def _offer_allocation(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """Allocation order…: for a unit of yours with two Bodyguard models or more, its models in
    the order they go now (`casualties`; the owner's, else the sensible default) and
    `suggested`, that order as an action to send as it is; for a unit with more than one kind
    of Bodyguard model, the kinds and their order too. The Leaders are never allocated to
    first. Shown to the seat acting now, like every unit order (a player sets it in their
    own turn, for the enemy's); the action itself is taken at any time."""
    if unit.owner != seat or not unit.positions or state.system != SYSTEM_ID:
        return None
    leaders = sorted({m.name for m in models_of(state, unit) if m.character})
    lines = bodyguard_lines(state, unit)
    err = judge(lambda: _check_models(state, seat, unit))
    if err is not None:
        return refused("set_allocation_order", err, models=lines, leaders=leaders)
    now = casualty_order(state, unit)
    guards = [i for i in now if i in set(_guards(state, unit))]
    return offer(
        "set_allocation_order",
        models=lines,
        order=allocation_preference(state, unit.id),
        casualties=_named(state, unit, guards),
        chosen=chosen_order(state, unit) is not None,
        suggested={"type": "set_allocation_order", "unit": unit.id,
                   "order": sensible_order(state, unit)},
        leaders=leaders,
        leaders_reason="a Character in an Attached unit takes no attack while a Bodyguard "
        "model lives (the Wurrboy page)" if leaders else None,
    )


def _model_order_event(
    state: GameState, seat: int, unit: Unit, order: list[str]
) -> list[Event]:
    guards = _check_models(state, seat, unit)
    leaders = {m.id: m.name for m in models_of(state, unit) if m.character}
    led = [i for i in order if i in leaders]
    if led:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{leaders[led[0]]} leads {display_name(state, unit.id)}: a Character takes no "
            "attack while a Bodyguard model lives, so it is never in the order",
            rule="Attached Units",
            field="order",
        )
    if sorted(order) != sorted(guards):
        raise RuleError(
            BAD_REQUEST,
            f"name each Bodyguard model of {display_name(state, unit.id)} once ("
            f"{len(guards)} models, ids as the unit's models show them)",
            field="order",
            models=guards,
        )
    names = [n["name"] for n in _named(state, unit, order)]
    return [
        Event(
            "allocation_order_set",
            {
                "unit": unit.id,
                "order": list(order),
                "text": f"{display_name(state, unit.id)} will lose {names[0]} first, then "
                + ", ".join(names[1:4]) + (", ..." if len(names) > 4 else "")
                + " (a wounded model always first)",
            },
            actor=seat,
        )
    ]


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
    """The defender's allocation order for one unit: its Bodyguard models (`order`) or model
    kinds (`models`), first hit first. Every one is named once; a wounded model still goes
    first (FACTS.md)."""
    if (action.models is None) == (action.order is None):
        raise RuleError(BAD_REQUEST, "give either `order` (the models) or `models` (the model "
                        "kinds), not both", field="order")
    unit = unit_of(state, action.unit, seat)
    if action.order is not None:
        return _model_order_event(state, seat, unit, list(action.order))
    models = list(action.models or ())
    lines = _check(state, seat, unit)
    leaders = {m.name for m in models_of(state, unit) if m.character}
    named = [n for n in models if n in leaders]
    if named:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{named[0]} leads {display_name(state, unit.id)}: a Character takes no attack while "
            "a Bodyguard model lives, so it is never first",
            rule="Attached Units",
            field="models",
        )
    if sorted(models) != sorted(lines) or len(set(models)) != len(models):
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
                "models": models,
                "text": f"{display_name(state, unit.id)} will lose "
                + ", then ".join(models)
                + " first (a wounded model always first)",
            },
            actor=seat,
        )
    ]


@register_folder("allocation_order_set")
def _fold_allocation(state: GameState, event: Event) -> GameState:
    """A model order replaces a kind order and the other way round (the last one set counts)."""
    unit = str(event.payload["unit"])
    kinds = {k: v for k, v in forty(state).allocation.items() if k != unit}
    models = {k: v for k, v in forty(state).model_order.items() if k != unit}
    if "order" in event.payload:
        models[unit] = list(event.payload["order"])
    else:
        kinds[unit] = list(event.payload["models"])
    return set_forty(state, allocation=kinds, model_order=models)
