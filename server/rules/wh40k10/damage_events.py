"""Warhammer 40,000 10th edition: attack sequences as events (issue 16).

Every use of the pure sequence (`attacks.resolve_attacks`, `damage.mortal_wounds`,
`damage.hazardous_tests`, `wurrboy.roar_of_mork`) becomes one `attacks_resolved` event: the
`Resolution` payload (`rolls` in draw order with their `end` positions, `steps` for the
report, `destroyed`, `demise`), the unit afterwards (`unit_after`, destroyed models removed,
an Attached unit split) and the wounds each surviving model has lost. Deadly Demise mortal
wounds a resolution reports are resolved at once, unit by unit, each its own event (and may
set off more Deadly Demise).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from server.rules.core import Event, GameState, fold_all, register_folder
from server.rules.units import Unit, unit_from_json, units_of, with_unit
from server.rules.wh40k10.army import (
    after_resolution,
    demise_map,
    forty,
    models_of,
    set_forty,
    starting_strength,
    target_unit,
)
from server.rules.wh40k10.damage import Resolution, Roller, mortal_wounds

ATTACKS_RESOLVED = "attacks_resolved"


def resolution_event(
    state: GameState,
    unit: Unit,
    res: Resolution,
    *,
    kind: str,
    actor: int | str,
    attacker: str | None = None,
    text: str = "",
) -> Event:
    """The event recording `res` on `unit` (the unit the sequence was resolved against)."""
    after, wounds, lines, split = after_resolution(state, unit, res.unit)
    start = starting_strength(state, unit)
    if split == "leader":
        start = 1
    elif split == "bodyguard":
        start = max(1, start - len(unit.characters))
    payload: dict[str, Any] = {
        **res.to_payload(),
        "kind": kind,
        "attacker": attacker,
        "target": unit.id,
        "target_name": unit.name,
        "unit_after": after.to_json(),
        "wounds_after": wounds,
        "lines_after": lines,
        "starting_strength": start,
        "split": split,
        "models_before": len(unit.positions),
        "models_after": len(after.positions),
        "text": text
        or f"{unit.name}: {res.wounds_lost} wounds lost, {len(res.destroyed)} models destroyed",
    }
    return Event(ATTACKS_RESOLVED, payload, actor=actor)


def demise_events(
    state: GameState, events: list[Event], dice: Roller, actor: int | str
) -> list[Event]:
    """The Deadly Demise mortal wounds the `events` report, resolved unit by unit (each may
    destroy models with Deadly Demise of their own: resolved in turn)."""
    out: list[Event] = []
    queue = [d for e in events for d in e.payload.get("demise", [])]
    while queue:
        hit = queue.pop(0)
        unit = units_of(state).get(hit["unit"])
        if unit is None or unit.status != "on_table" or not unit.positions:
            continue
        res = mortal_wounds(
            target_unit(state, unit),
            int(hit["mortal_wounds"]),
            dice,
            cause="Deadly Demise",
            within_6in=demise_map(state, unit),
        )
        event = resolution_event(
            state,
            unit,
            res,
            kind="deadly_demise",
            actor=actor,
            attacker=None,
            text=f"Deadly Demise: {unit.name} suffers {hit['mortal_wounds']} mortal wounds",
        )
        out.append(event)
        state = fold_all(state, [event])
        queue.extend(event.payload.get("demise", []))
    return out


def resolve_and_chain(
    state: GameState,
    unit: Unit,
    run: Callable[[], Resolution],
    dice: Roller,
    **kw: Any,
) -> tuple[GameState, list[Event]]:
    """Run one sequence against `unit`, record it and resolve the Deadly Demise it sets off."""
    res = run()
    event = resolution_event(state, unit, res, **kw)
    state = fold_all(state, [event])
    chained = demise_events(state, [event], dice, kw.get("actor", "system"))
    state = fold_all(state, chained)
    return state, [event, *chained]


@register_folder(ATTACKS_RESOLVED)
def _fold_attacks_resolved(state: GameState, event: Event) -> GameState:
    p = event.payload
    after = unit_from_json(p["unit_after"])
    state = with_unit(state, after)
    data = forty(state)
    wounds = {**data.wounds, after.id: list(p["wounds_after"])}
    lines = {**data.lines, after.id: list(p["lines_after"])}
    start = {**data.start, after.id: int(p["starting_strength"])}
    state = set_forty(state, wounds=wounds, lines=lines, start=start,
                      model_order=_order_after(data.model_order, p))
    attacker = p.get("attacker")
    if attacker and p.get("kind") in ("shooting", "fight"):
        state = mark_done(state, str(p["kind"]), attacker)
    return state


def _order_after(
    orders: Mapping[str, Sequence[str]], p: Mapping[str, Any]
) -> Mapping[str, Sequence[str]]:
    """The owner's model order (allocation.py) once the destroyed models are removed: model
    ids are indices into `positions`, which close up behind a removed model, so each survivor
    takes its new id and the destroyed ones leave the order."""
    uid = str(p["target"])
    order = orders.get(uid)
    if not order:
        return orders
    gone = {str(d) for d in p.get("destroyed", ())}
    kept = [i for i in range(int(p.get("models_before", 0))) if f"{uid}.{i}" not in gone]
    new_id = {f"{uid}.{old}": f"{uid}.{k}" for k, old in enumerate(kept)}
    return {**orders, uid: [new_id[m] for m in order if m in new_id]}


def done_this_phase(state: GameState, what: str) -> list[str]:
    """Units that shot / fought in the current phase (`what`: "shooting" or "fight")."""
    record: Mapping[str, Any] = getattr(forty(state), what)
    at = [state.battle.player_turn, state.battle.phase]
    return list(record.get("units", [])) if record.get("at") == at else []


def mark_done(state: GameState, what: str, unit_id: str) -> GameState:
    units = done_this_phase(state, what)
    if unit_id not in units:
        units.append(unit_id)
    at = [state.battle.player_turn, state.battle.phase]
    return set_forty(state, **{what: {"at": at, "units": units}})


def alive_models(state: GameState, unit: Unit) -> int:
    return len(models_of(state, unit))
