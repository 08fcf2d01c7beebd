"""A scripted Warhammer 40,000 battle driven by the orders the server offers (the engine, no
sockets): the armies of tests/api/test_wh40k10_battle_report.py (Beast Snagga Boyz led by a
Wurrboy and a lone Wurrboy against two Intercessor Squads), deployed 25 in apart, played for
a few battle rounds. At every step the players take, in this order, the first of: a Stratagem
offered as usable (either player: Fire Overwatch and Go to Ground are the waiting player's),
the Waaagh! (round 2), an Advance then its move (the Boyz under the Waaagh!, the lone Wurrboy
in round 1), a move towards their opposite number, a Shoot at the first target offered with
its suggested weapons, a charge at the first target offered, a Fight; else they end the phase.
Used by the 40k order-offer walk (test_order_walk.py) and `bench/orders.py`."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from server.rules.core import GameState, RuleError
from server.rules.orders import acting_seats, orders_for
from server.rules.units import units_of
from tests.rules.helpers import SEED, Game

LED = {"datasheet": "beast-snagga-boyz", "models": 10, "joined_characters": ["wurrboy"]}
LONE = {"datasheet": "wurrboy", "models": 1}
SQUAD = {"datasheet": "intercessor-squad", "models": 5}
BIG_SQUAD = {"datasheet": "intercessor-squad", "models": 10}
BASE_IN = 32 / 25.4


def _gap(state: GameState, mover: str, target: str) -> float:
    """The distance between the facing rows of the two units (they face along y)."""
    units = units_of(state)
    a, b = units[mover].positions, units[target].positions
    if min(y for _, y in b) > max(y for _, y in a):
        return min(y for _, y in b) - max(y for _, y in a) - BASE_IN
    return min(y for _, y in a) - max(y for _, y in b) - BASE_IN


def _shifted(state: GameState, uid: str, dy: float) -> list[list[float]]:
    return [[x, y + dy] for x, y in units_of(state)[uid].positions]


def _stratagem_actions(state: GameState, seat: int) -> list[dict[str, Any]]:
    offer = orders_for(state, seat)["game"].get("stratagems")
    if offer is None or not offer["available"]:
        return []
    return [{"type": "use_stratagem", "stratagem": s["name"], **s["targets"][0]}
            for s in offer["stratagems"] if s["available"]]


def _candidates(state: GameState, seat: int, opposite: dict[str, str]) -> list[
    tuple[int, dict[str, Any]]
]:
    """The actions the script would take now, best first."""
    out: list[tuple[int, dict[str, Any]]] = []
    other = 2 if seat == 1 else 1
    for s in (other, seat):
        out += [(s, a) for a in _stratagem_actions(state, s)]
    orders = orders_for(state, seat)
    waaagh = orders["game"].get("call_waaagh")
    if waaagh and waaagh["available"] and state.battle.turn == 2:
        out.append((seat, {"type": "call_waaagh"}))
    units = units_of(state)
    for uid, unit_orders in orders["units"].items():
        enemy = opposite.get(uid)
        alive = enemy is not None and units[enemy].status == "on_table" and units[enemy].positions
        advance, move = unit_orders.get("advance"), unit_orders.get("move_models")
        if move and move["available"] and alive:
            gap = _gap(state, uid, enemy)  # type: ignore[arg-type]
            sign = 1 if units[uid].owner == 1 else -1
            lone_first = units[uid].datasheet == "wurrboy" and state.battle.turn == 1
            if advance and advance["available"] and (
                lone_first or (units[uid].datasheet == "beast-snagga-boyz"
                               and (state.battle.turn or 0) >= 2)):
                out.append((seat, {"type": "advance", "unit": uid}))
            elif gap > 2.5:
                step = min(float(move["allowance"]) - 0.05, gap - 1.5)
                out.append((seat, {"type": "move_models", "unit": uid, "advance": move["advance"],
                                   "positions": _shifted(state, uid, sign * step)}))
        shoot = unit_orders.get("shoot_weapons")
        if shoot and shoot["available"]:
            target = next(t for t in shoot["targets"] if t["available"])
            out.append((seat, {"type": "shoot_weapons", "unit": uid, "weapons": [
                {"weapon": w, "target": target["unit"]} for w in target["suggested"]]}))
        charge = unit_orders.get("declare_charge")
        if charge and charge["available"]:
            target = next(t for t in charge["targets"] if t["available"])
            out.append((seat, {"type": "declare_charge", "unit": uid, "target": target["unit"]}))
        fight = unit_orders.get("fight")
        if fight and fight["available"]:
            out.append((seat, {"type": "fight", "unit": uid,
                               "target": fight["targets"][0]["unit"]}))
    return out


def scripted_battle(
    seed: bytes = SEED, rounds: int = 3, on_state: Callable[[GameState], None] | None = None,
    max_steps: int = 400,
) -> tuple[Game, list[GameState]]:
    """Play the script for `rounds` battle rounds (or until the game ends); `on_state` is
    called with every state the players act in. Returns the game and those states."""
    game = Game("wh40k10", seed=seed)
    states: list[GameState] = []

    def seen() -> None:
        states.append(game.state)
        if on_state is not None:
            on_state(game.state)

    seen()
    game.act(1, type="submit_army", units=[LED, LONE])
    game.act(2, type="submit_army", units=[SQUAD, BIG_SQUAD])
    units = units_of(game.state)
    boyz = next(u.id for u in units.values() if u.datasheet == "beast-snagga-boyz")
    lone = next(u.id for u in units.values() if u.datasheet == "wurrboy" and u.owner == 1)
    squads = sorted((u for u in units.values() if u.owner == 2), key=lambda u: int(u.id[1:]))
    squad, big = squads[0].id, squads[1].id
    seen()
    game.act(1, type="deploy_unit", unit=boyz, x=15, y=9.5, facing=180)
    game.act(2, type="deploy_unit", unit=squad, x=15, y=35, facing=180)
    game.act(1, type="deploy_unit", unit=lone, x=40, y=10)
    game.act(2, type="deploy_unit", unit=big, x=40, y=35, facing=180)
    opposite = {boyz: squad, squad: boyz, lone: big, big: lone}
    for _ in range(max_steps):
        state = game.state
        if state.over or int(state.battle.turn or 0) > rounds:
            break
        seen()
        acting = acting_seats(state)
        active = int(state.battle.active_player)
        seat = active if active in acting or not acting else min(acting)
        for who, action in _candidates(state, seat, opposite):
            try:
                game.act(who, **action)
            except RuleError:
                continue  # the script's geometry (a move's end positions) may be refused
            if action["type"] == "advance":
                move = orders_for(game.state, who)["units"][action["unit"]]["move_models"]
                gap = _gap(game.state, action["unit"], opposite[action["unit"]])
                sign = 1 if who == 1 else -1
                step = min(float(move["allowance"]) - 0.05, gap - 1.5)
                with contextlib.suppress(RuleError):
                    game.act(who, type="move_models", unit=action["unit"], advance=True,
                             positions=_shifted(game.state, action["unit"], sign * step))
            break
        else:
            game.act(active, type="end_phase")
    return game, states
