"""Issue 23 item 2 and issue 21: the orders a 40k player is offered are exactly what the
actions accept, at every step of a scripted battle (tests/rules/wh40k10/battle.py: deployment,
Movement with Advances, Shooting, charges, a fight, the Waaagh! and Stratagems of both
players; the seed-independent rules are FACTS.md's core loop and docs/rules-decisions.md
"wh40k10 Stratagems"). As tests/rules/test_orders.py does for t9a: at every step, for both
seats and a spectator, each order offered as available is accepted by `decide` on a throwaway
copy with a representative payload, and each representative action `decide` refuses was not
offered as available. Probed: every Stratagem on every own unit (and enemy target, and roll),
every weapon of every unit at every enemy, every charge and fight pairing, the Advance, a
move that stays in place, and the game orders. A zero move's refusal for its geometry (the
end positions, which `preview` answers while dragging) is not the offer's question."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from server.dice import DiceStream
from server.rules import core
from server.rules.core import GameState, RuleError
from server.rules.orders import ANYTIME, acting_seats, orders_for
from server.rules.units import units_of
from server.rules.wh40k10.offers import unit_weapons
from server.rules.wh40k10.profiles import RANGED
from server.rules.wh40k10.stratagems import (
    COMMAND_REROLL,
    CORE,
    FIRE_OVERWATCH,
    GRENADE,
    HEROIC_INTERVENTION,
)
from tests.rules.wh40k10.battle import scripted_battle

OTHER_SEED = bytes(range(1, 33))
PAIRED = (FIRE_OVERWATCH, HEROIC_INTERVENTION, GRENADE)


def accepted(state: GameState, seat: int, action: dict[str, Any]) -> RuleError | None:
    try:
        core.decide(state, seat, action, DiceStream(OTHER_SEED, state.dice_position))
    except RuleError as err:
        return err
    return None


def _available(entry: dict[str, Any] | None) -> bool:
    return entry is not None and bool(entry["available"])


def _target(entry: dict[str, Any] | None, uid: str) -> bool:
    return _available(entry) and any(
        t["unit"] == uid and t["available"] for t in entry["targets"])  # type: ignore[index]


def probes(state: GameState, seat: int, orders: dict[str, Any]) -> Iterator[
    tuple[dict[str, Any], bool]
]:
    """Representative actions for `seat` and whether the orders offer each as available."""
    units = units_of(state)
    mine = [u for u in units.values() if u.owner == seat]
    enemies = [u for u in units.values() if u.owner != seat]
    strat = orders["game"].get("stratagems")
    entries = {e["name"]: e for e in strat["stratagems"]} if strat else {}
    for s in (s for s in CORE if s.automated):
        entry = entries.get(s.name)
        offered = entry["targets"] if _available(strat) and _available(entry) else []
        base = {"type": "use_stratagem", "stratagem": s.name}
        if s.name == COMMAND_REROLL:
            for roll in ("advance", "charge"):
                yield {**base, "roll": roll}, any(t["roll"] == roll for t in offered)
            continue
        for u in mine:
            if s.name in PAIRED:
                for e in enemies:
                    pair = [t for t in offered if t["unit"] == u.id and t["target"] == e.id]
                    yield {**base, "unit": u.id, "target": e.id}, bool(pair)
                    if pair and "weapons" in pair[0]:
                        yield {**base, "unit": u.id, "target": e.id,
                               "weapons": pair[0]["weapons"]}, True
            else:
                yield {**base, "unit": u.id}, any(t["unit"] == u.id for t in offered)
    for u in mine:
        got = orders["units"].get(u.id, {})
        shoot = got.get("shoot_weapons")
        names = [w.name for w, _ in unit_weapons(state, u, RANGED)] if u.positions else []
        for e in enemies:
            target = next((t for t in shoot["targets"] if t["unit"] == e.id), None) \
                if shoot else None
            for name in names:
                ok = _available(shoot) and target is not None and name in target["weapons"]
                yield {"type": "shoot_weapons", "unit": u.id,
                       "weapons": [{"weapon": name, "target": e.id}]}, ok
            yield {"type": "declare_charge", "unit": u.id, "target": e.id}, _target(
                got.get("declare_charge"), e.id)
            yield {"type": "charge", "unit": u.id, "targets": [e.id]}, _target(
                got.get("charge"), e.id)
            yield {"type": "fight", "unit": u.id, "target": e.id}, _target(got.get("fight"), e.id)
        yield {"type": "advance", "unit": u.id}, _available(got.get("advance"))
        if u.positions:
            move = got.get("move_models")
            advance = bool(move and move.get("advance"))
            yield {"type": "move_models", "unit": u.id, "advance": advance,
                   "positions": [list(p) for p in u.positions]}, _available(move)
    for key, action in (("end_phase", {"type": "end_phase"}), ("call_waaagh",
                        {"type": "call_waaagh"}), ("concede", {"type": "concede"})):
        yield action, _available(orders["game"].get(key))


def check_orders(state: GameState, seen: set[str]) -> int:
    """The offers of `state` agree with `decide` both ways, for both seats; a spectator gets
    none. Returns how many actions were probed; adds the offered kinds to `seen`."""
    assert orders_for(state, None) == {"seat": None, "units": {}, "game": {}}
    acting = acting_seats(state)
    checked = 0
    for seat in (1, 2):
        orders = orders_for(state, seat)
        if seat not in acting:
            assert all(set(u) <= ANYTIME
                       for u in orders["units"].values()), orders["units"]
        for entry in orders["units"].values():
            seen.update(k for k, o in entry.items() if o["available"])
            for key, o in entry.items():
                assert o["available"] or o["reason"], (key, o)
        strat = orders["game"].get("stratagems")
        if strat is not None:
            seen.update(f"stratagem: {e['name']}" for e in strat["stratagems"] if e["available"])
        for action, shown in probes(state, seat, orders):
            err = accepted(state, seat, action)
            if (err is not None and shown and action["type"] == "move_models"
                    and err.details.get("rule") != "One Move per Phase"):
                continue  # the geometry of this one destination, not the offer's question
            assert shown == (err is None), (
                f"seat {seat}, {state.battle.phase}, {action}: offered={shown}, decide "
                f"says {'yes' if err is None else err.message}")
            checked += 1
    return checked


def test_every_40k_order_offered_is_accepted_and_every_refused_action_was_not_offered() -> None:
    """The scripted battle for three battle rounds; the orders checked at every step."""
    seen: set[str] = set()
    counts: list[int] = []
    _game, states = scripted_battle(rounds=3, on_state=lambda s: counts.append(
        check_orders(s, seen)))
    assert len(states) > 50
    assert {"move_models", "advance", "shoot_weapons", "declare_charge", "charge", "fight",
            "stratagem: Fire Overwatch", "stratagem: Command Re-roll",
            "stratagem: Go to Ground"} <= seen, seen
    assert sum(counts) > 3000
