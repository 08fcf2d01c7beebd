"""What each unit may do now, as the server judges it (chessground's `movable.dests`).

Every action that a player gives to a unit registers an *offer* next to itself
(`register_offer("move_unit")` in `rules/moves.py`, `register_offer("arrive_from_ambush")` in
the t9a package): a function `offer(state, seat, unit)` that answers, from the same checks the
action's handler makes, whether the order is shown for that unit now and whether it may be
given, with the reason in words when it may not ("Spears have already moved this phase").
Game-level actions (end the phase, concede, propose an undo, log a spell) register with
`register_game_offer`. This module asks every registered offer and puts the answers in each
viewer's projection as `orders`; the client shows exactly those and decides nothing itself.

A unit offer is asked only when the game is inside one of its action's declared windows
(`ActionSpec.when`: stage, actor, phases; `core.allowed_now`), so the offers judge the unit,
not the phase. An offer answers `None` when the order does not belong to the moment at all
(no Wheel in the Shooting Phase, no Charge for the player waiting for their turn): it is not
shown. Otherwise it is a dict with `action` (the action type to send), `available` and
`reason` (None when available), plus what the order needs (allowances in inches, targets,
weapons, reactions).

Only the seat whose turn or reaction it is gets unit orders (and either seat the few orders
registered `anytime`, for its own units); spectators get none. The answer
is computed once per state object and viewer (like `units.table_of`), and is pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from server.dice import SEED_BYTES, DiceStream
from server.rules.core import (
    ACTIONS,
    SEATS,
    GameState,
    RuleError,
    allowed_now,
    check_when,
    register_projector,
)

Offer = dict[str, Any]
UnitOffer = Callable[[GameState, int, Any], "Offer | None"]
GameOffer = Callable[[GameState, int], "Offer | None"]
ActingSeats = Callable[[GameState], frozenset[int]]

UNIT_OFFERS: dict[str, tuple[str, UnitOffer]] = {}
"""Order key (e.g. "move_unit", "declare_charge") -> (action type, offer)."""
ANYTIME: set[str] = set()
"""Unit orders either player may give their own units at any time of the battle (e.g. an
order to hold back from pursuits): asked for every seat, not only the one acting."""
GAME_OFFERS: dict[str, tuple[str, GameOffer]] = {}
"""Order key (e.g. "end_phase", "undo") -> (action type, offer)."""
_ACTING: list[ActingSeats] = []


def register_offer(
    action: str, key: str | None = None, *, anytime: bool = False
) -> Callable[[UnitOffer], UnitOffer]:
    """Register `offer(state, seat, unit) -> Offer | None` for the unit order `key` (default:
    the action's name), sent as action type `action`; `anytime`: either player may give it to
    their own units out of turn. Registering a key twice is an error."""

    def wrap(fn: UnitOffer) -> UnitOffer:
        name = key or action
        if name in UNIT_OFFERS:
            raise ValueError(f"unit order {name!r} registered twice")
        UNIT_OFFERS[name] = (action, fn)
        if anytime:
            ANYTIME.add(name)
        return fn

    return wrap


def register_game_offer(action: str, key: str | None = None) -> Callable[[GameOffer], GameOffer]:
    """Register `offer(state, seat) -> Offer | None` for the game-level order `key`."""

    def wrap(fn: GameOffer) -> GameOffer:
        name = key or action
        if name in GAME_OFFERS:
            raise ValueError(f"game order {name!r} registered twice")
        GAME_OFFERS[name] = (action, fn)
        return fn

    return wrap


def register_acting(fn: ActingSeats) -> ActingSeats:
    """Register `fn(state) -> seats` naming who acts now (the active player, the player who
    deploys, the player answering a charge); unit orders go only to those seats."""
    _ACTING.append(fn)
    return fn


def offer(action: str, available: bool = True, reason: str | None = None, **details: Any) -> Offer:
    """An order as the client reads it."""
    return {"action": action, "available": available, "reason": None if available else reason,
            **details}


def refused(action: str, err: RuleError, **details: Any) -> Offer:
    """An order shown but not possible now, with the rule's words."""
    rule = err.details.get("rule")
    return offer(action, False, err.message, rule=rule if isinstance(rule, str) else None,
                 **details)


def judge(check: Callable[[], object]) -> RuleError | None:
    """Run one of an action's own checks; the refusal it raises, or None when it passes."""
    try:
        check()
    except RuleError as err:
        return err
    return None


def throwaway_dice(state: GameState) -> DiceStream:
    """A stream at the game's position but not the game's (a fixed, public seed): for asking
    an action whether it would be accepted. Offers report no roll, only yes or no."""
    return DiceStream(bytes(SEED_BYTES), state.dice_position)


def acting_seats(state: GameState) -> frozenset[int]:
    """The seats that may act now, as the registered rules say."""
    seats: set[int] = set()
    for fn in _ACTING:
        seats |= fn(state)
    return frozenset(seats)


def in_window(state: GameState, seat: int, action: str) -> bool:
    """Is the game in one of the action's windows for `seat` (its declared stage, actor and
    phases: `core.check_when`)? An order outside them is not shown at all. (Kept per state
    object: every offer of every viewer asks it.)"""
    known: dict[tuple[str, int], bool] = state.derived.table_for("orders.windows")
    found = known.get((action, seat))
    if found is None:
        spec = ACTIONS.get(action)
        found = known[action, seat] = spec is not None and allowed_now(spec, state, seat)
    return found


def window_refusal(state: GameState, seat: int, action: str) -> RuleError | None:
    """Why `seat` may not take `action` now as far as its windows go (stage, seats, actor,
    phase), or None."""
    return judge(lambda: check_when(ACTIONS[action], state, seat))


def _exists(state: GameState, action: str) -> bool:
    spec = ACTIONS.get(action)
    return spec is not None and spec.available(state.system)


def orders_for(state: GameState, viewer: int | None) -> dict[str, Any]:
    """`viewer`'s orders: per unit id, order key -> offer; and the game-level orders."""
    cache = state.derived.orders
    if cache is not None and viewer in cache:
        return cache[viewer]
    out: dict[str, Any] = {"seat": viewer, "units": {}, "game": {}}
    if viewer in SEATS and not state.over and state.system:
        for key, (action, game_fn) in GAME_OFFERS.items():
            if _exists(state, action) and (got := game_fn(state, viewer)) is not None:
                out["game"][key] = got
        acting = viewer in acting_seats(state)
        from server.rules.units import units_of

        units = units_of(state)
        for key, (action, unit_fn) in UNIT_OFFERS.items():
            if (acting or key in ANYTIME) and in_window(state, viewer, action):
                for unit in units.values():
                    got = unit_fn(state, viewer, unit)
                    if got is not None:
                        out["units"].setdefault(unit.id, {})[key] = got
    state.derived.orders = {**(cache or {}), viewer: out}
    return out


@register_projector
def _project_orders(state: GameState, viewer: int | None, out: dict[str, Any]) -> None:
    out["orders"] = orders_for(state, viewer)


__all__ = [
    "GAME_OFFERS",
    "UNIT_OFFERS",
    "acting_seats",
    "in_window",
    "judge",
    "offer",
    "orders_for",
    "refused",
    "register_acting",
    "register_game_offer",
    "register_offer",
    "throwaway_dice",
    "window_refusal",
]
