"""The cost of the per-unit orders in a projection (issue 23 item 2), over a scripted t9a
battle: for every state of the walk, the time of `GameState.to_json(seat)` with and without
the orders projector, on a fresh state object (no cached table or orders), in milliseconds.

    .venv/bin/python -m bench.orders
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import time

from server.dice import DiceStream
from server.rules import core, table
from server.rules.core import Battlefield, Event, GameState
from server.rules.orders import orders_for
from server.rules.units import units_of

SEED = bytes(range(32))
_log: list[Event] = []


def walk() -> list[GameState]:
    """A t9a battle: two Spears and Archers each, through four Game Turns; every unit that
    may advances 3 in, every archer that may shoot shoots, every charge offered is taken."""
    state = GameState()
    states: list[GameState] = []

    def append(events: list[Event]) -> None:
        nonlocal state
        _log.extend(events)
        for e in events:
            state = core.fold(state, dataclasses.replace(e, seq=state.seq + 1))
        states.append(state)

    def act(seat: int, **action: object) -> None:
        append(core.decide(state, seat, action, DiceStream(SEED, state.dice_position)))

    append(table.genesis("g", "t9a", "Bench", Battlefield(72, 48), "c"))
    append([table.seat_claimed(1), table.seat_claimed(2)])
    army = [{"datasheet": "citizen-spears", "models": 20, "files": 5},
            {"datasheet": "citizen-archers", "models": 10, "files": 5},
            {"datasheet": "citizen-spears", "models": 20, "files": 5}]
    act(1, type="submit_army", units=army)
    act(2, type="submit_army", units=army)
    while state.battle.stage == "deployment":
        seat = int(state.battle.deploying)
        mine = sorted((u for u in units_of(state).values() if u.owner == seat),
                      key=lambda u: int(u.id[1:]))
        i, unit = next((i, u) for i, u in enumerate(mine) if u.status == "undeployed")
        x = 12 + 20 * i
        if seat == 1:
            act(1, type="deploy_unit", unit=unit.id, x=x, y=8)
        else:
            act(2, type="deploy_unit", unit=unit.id, x=x, y=40, facing=180)
    while not state.over and (state.battle.turn or 0) <= 4:
        seat = int(state.battle.active_player)
        acted = False
        for uid, orders in orders_for(state, seat)["units"].items():
            move, shoot, charge = (orders.get(k) for k in ("move_unit", "shoot",
                                                          "declare_charge"))
            try:
                if move and move["available"] and move["mode"] is None:
                    act(seat, type="move_unit", unit=uid, manoeuvre="forward", distance=3)
                elif shoot and shoot["available"]:
                    t = next(t for t in shoot["targets"] if t["available"])
                    act(seat, type="shoot", unit=uid, target=t["unit"])
                elif charge and charge["available"]:
                    t = next(t for t in charge["targets"] if t["available"])
                    act(seat, type="declare_charge", unit=uid, target=t["unit"])
                    pending = state.charges.pending
                    act(int(pending["reacting_player"]), type="charge_reaction",
                        reaction="hold")
                else:
                    continue
            except core.RuleError:
                continue
            acted = True
            break
        if not acted:
            act(seat, type="end_phase")
    return states


def main() -> None:
    states = walk()
    with_orders: list[float] = []
    without: list[float] = []
    orders_only: list[float] = []
    seen = sorted({k for s in states for u in orders_for(s, s.battle.active_player or 1)
                   ["units"].values() for k in u})
    events = sorted({e.type for e in _log})
    projector = next(p for p in core.STATE_PROJECTORS if p.__name__ == "_project_orders")
    for s in states:
        seat = s.battle.active_player or 1
        fresh = dataclasses.replace(s)
        t0 = time.perf_counter()
        fresh.to_json(seat)
        with_orders.append((time.perf_counter() - t0) * 1000)
        fresh = dataclasses.replace(s)
        core.STATE_PROJECTORS.remove(projector)
        try:
            t0 = time.perf_counter()
            fresh.to_json(seat)
            without.append((time.perf_counter() - t0) * 1000)
        finally:
            core.STATE_PROJECTORS.append(projector)
        t0 = time.perf_counter()
        orders_for(fresh, seat)  # the table is built: the orders' own cost
        orders_only.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        orders_for(fresh, seat)
        orders_only_cached = (time.perf_counter() - t0) * 1000
    print(json.dumps({
        "states": len(states),
        "projection_ms_median": round(statistics.median(with_orders), 3),
        "projection_ms_max": round(max(with_orders), 3),
        "projection_without_orders_ms_median": round(statistics.median(without), 3),
        "orders_ms_median": round(statistics.median(orders_only), 3),
        "orders_ms_p95": round(sorted(orders_only)[int(len(orders_only) * 0.95)], 3),
        "orders_ms_max": round(max(orders_only), 3),
        "orders_cached_ms_last": round(orders_only_cached, 4),
        "orders_offered": seen,
        "events": events,
    }, indent=1))


if __name__ == "__main__":
    main()
