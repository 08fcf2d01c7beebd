"""The cost of the per-unit orders in a projection (issue 23 item 2), over a scripted t9a
battle: for every state of the walk, the time of `GameState.to_json(seat)` with and without
the orders projector, on a fresh state object (no cached table or orders), in milliseconds.

    .venv/bin/python -m bench.orders

`wh40k10` (issue 21): the scripted 40k battle of tests/rules/wh40k10/battle.py (movement,
Advance, shooting, charges, fights, Stratagems of both players). Its log is folded event by
event as a server folds it, and at every state the players acted in, the table is built
(`table_build`) and `orders_for(state, seat)` computed for both seats with every registered
offer timed: per order kind (the offer summed over the units it is asked for), the median and
p99 over the (state, seat) pairs that ask it, and the whole `orders_for` per seat; the
Stratagem offer also per phase and in the Fire Overwatch window (the opponent's Movement or
Charge phase after an enemy unit moved, with CP to pay). Each pair is timed `--repeat` times
and its fastest kept (on a shared machine the slower runs measure the neighbours); `--cpu`
times with the thread's CPU time instead of wall time (its clock costs 1.4 us a call here
against 0.4, twice per offer asked).

    .venv/bin/python -m bench.orders wh40k10 [--repeat 3] [--cpu]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from server.dice import DiceStream
from server.rules import core, table
from server.rules import orders as orders_module
from server.rules import units as units_module
from server.rules.core import Battlefield, Event, GameState
from server.rules.orders import orders_for
from server.rules.units import table_of, units_of

SEED = bytes(range(32))
_log: list[Event] = []


def walk() -> list[GameState]:
    """A t9a battle: two Spears and Archers each, through four Game Turns; every unit that
    may advances 3 in, every archer that may shoot shoots, every charge offered is taken, every
    combat is fought."""
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
            move, shoot, charge, fight = (orders.get(k) for k in (
                "move_unit", "shoot", "declare_charge", "fight_combat"))
            try:
                if fight and fight["available"]:  # a combat is fought before the phase ends
                    act(seat, type="fight_combat", unit=fight["combat"][0])
                elif move and move["available"] and move["mode"] is None:
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


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def _figures(values: list[float]) -> dict[str, float | int]:
    return {"n": len(values), "median_ms": round(statistics.median(values), 3),
            "p99_ms": round(_quantile(values, 0.99), 3), "max_ms": round(max(values), 3)}


def _overwatch_window(state: GameState) -> int | None:
    """The seat that may be offered Fire Overwatch in `state` (the opponent's Movement or
    Charge phase, an enemy unit moved, 1 CP or more), or None."""
    from server.rules.units import phase_moves
    from server.rules.wh40k10.command import cp

    active = state.battle.active_player
    if state.battle.phase not in ("Movement", "Charge") or active not in (1, 2):
        return None
    waiting = 2 if active == 1 else 1
    units = units_of(state)
    moved = any(uid in units and units[uid].owner == active for uid in phase_moves(state))
    return waiting if moved and cp(state)[str(waiting)] >= 1 else None


def forty(repeat: int, clock: Callable[[], float] = time.perf_counter) -> dict[str, Any]:
    """The 40k walk: per order kind and per seat, what computing the orders costs."""
    from tests.rules.wh40k10.battle import scripted_battle

    game, states = scripted_battle(rounds=5)
    spent: dict[str, float] = {}

    def timed(key: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any) -> Any:
            t0 = clock()
            try:
                return fn(*args)
            finally:
                spent[key] = spent.get(key, 0.0) + clock() - t0
        return run

    saved_units, saved_game = dict(orders_module.UNIT_OFFERS), dict(orders_module.GAME_OFFERS)
    orders_module.UNIT_OFFERS.update({k: (a, timed(k, f)) for k, (a, f) in saved_units.items()})
    orders_module.GAME_OFFERS.update({k: (a, timed(k, f)) for k, (a, f) in saved_game.items()})
    # per (state, seat): the fastest of `repeat` runs, per kind and in all
    best: dict[tuple[int, int], dict[str, float]] = {}
    tables: list[float] = []
    where: dict[int, str] = {}
    overwatch: dict[int, int | None] = {}
    steps = {s.seq: i for i, s in enumerate(states)}
    try:
        for _ in range(repeat):
            # Every repeat starts cold (the walk itself warmed the footprints and their
            # line-of-sight samples) and folds the log event by event, as a server does; the
            # orders of both seats are computed at every step, as its projections do.
            units_module._model_footprint.cache_clear()
            units_module._ranked_footprint.cache_clear()
            state = GameState()
            for event in game.log:
                state = core.fold(state, event)
                i = steps.get(state.seq, -1)
                if i < 0:
                    continue
                where[i] = f"{state.battle.phase}"
                overwatch[i] = _overwatch_window(state)
                t0 = clock()
                table_of(state)
                tables.append((clock() - t0) * 1000)
                for seat in (1, 2):
                    spent.clear()
                    t0 = clock()
                    orders_for(state, seat)
                    run = {k: v * 1000 for k, v in spent.items()}
                    run["orders_for"] = (clock() - t0) * 1000
                    held = best.setdefault((i, seat), run)
                    for k, v in run.items():
                        held[k] = min(held.get(k, v), v)
    finally:
        orders_module.UNIT_OFFERS.update(saved_units)
        orders_module.GAME_OFFERS.update(saved_game)
    kinds = sorted({k for run in best.values() for k in run})
    per_kind = {k: _figures([run[k] for run in best.values() if k in run]) for k in kinds}
    # The Stratagem offer per phase, for the seat whose turn it is and for the other one.
    by_phase: dict[str, list[float]] = {}
    for (i, seat), run in best.items():
        if "stratagems" in run:
            mover = states[i].battle.active_player == seat
            key = f"{where[i]} ({'active' if mover else 'waiting'} seat)"
            by_phase.setdefault(key, []).append(run["stratagems"])
            if overwatch[i] == seat:
                by_phase.setdefault("Fire Overwatch window", []).append(run["stratagems"])
    return {
        "system": "wh40k10",
        "states": len(states),
        "seat_samples": len(best),
        "repeat": repeat,
        "clock": "thread CPU time" if clock is time.thread_time else "wall time",
        "per_kind_per_seat": per_kind,
        "stratagems_by_phase": {k: _figures(v) for k, v in sorted(by_phase.items())},
        "table_build": _figures(tables),
        "events": dict(sorted(_count(e.type for e in game.log).items())),
    }


def _count(items: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        out[item] = out.get(item, 0) + 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("system", nargs="?", default="t9a", choices=["t9a", "wh40k10"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cpu", action="store_true",
                        help="wh40k10: the thread's CPU time instead of wall time")
    args = parser.parse_args()
    if args.system == "wh40k10":
        clock = time.thread_time if args.cpu else time.perf_counter
        print(json.dumps(forty(args.repeat, clock), indent=1))
        return
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
