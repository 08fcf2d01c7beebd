"""Issue 23 item 2 (with issue 19 item 5) in a browser: a unit card shows only the orders the
server offers that unit now, and a control shown but not possible says why on hover.

Games are set up over REST; player 1's page selects its unit with the mouse; a spectator
watches. t9a phases: Charge, Movement, Magic, Shooting, Melee (docs/systems.md)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.test_battle_ui import rest
from tests.e2e.test_table import READY, at
from tests.e2e.test_tools import battle
from tests.e2e.waits import expect, until

pytestmark = pytest.mark.e2e

ARCHERS = {"datasheet": "citizen-archers", "models": 10, "files": 5}
SPEARS = {"datasheet": "citizen-spears", "models": 20, "files": 5}


def act(server: str, g: dict[str, Any], token: str, action: dict[str, Any]) -> Any:
    return rest(f"{server}/api/games/{g['id']}/actions", {"action": action}, token=token)


def select(page: Any, x: float, y: float) -> None:
    page.mouse.click(*at(page, x, y))
    page.wait_for_selector(".selected.unit")


def test_the_card_shows_only_the_orders_of_the_moment_and_says_why_one_is_not_possible(
    server: str, pages: Any
) -> None:
    g = battle(server, "t9a", [ARCHERS], [SPEARS], (20, 8), (20, 40), "Movement")
    p1 = pages.open("player1", g["p1_url"])
    p1.wait_for_function(READY)
    spectator = pages.open("spectator", g["spectate"])
    spectator.wait_for_function(READY)

    # Movement Phase: the move's controls with the allowance left; no Charge, no Shoot.
    select(p1, 20, 7.2)
    expect(p1.locator("#wheel-left")).to_be_enabled()
    expect(p1.locator("#wheel-left")).to_have_attribute(
        "title", "Wheel left 15° (5.0 of 5.0 in left)")
    expect(p1.locator("#march")).to_be_enabled()
    assert p1.locator("#charge").count() == 0 and p1.locator("#shoot").count() == 0
    # A spectator has no orders at all.
    assert spectator.evaluate("warfield.store.state.orders") == {"seat": None, "units": {},
                                                                 "game": {}}

    # The Archers march: the toggle follows the unit's move; a backward step is not offered.
    act(server, g, g["t1"], {"type": "move_unit", "unit": g["u1"], "manoeuvre": "forward",
                             "mode": "march", "distance": 2})
    until(p1, "(id) => warfield.store.state.units[id].moved.mode === 'march'", g["u1"])
    expect(p1.locator("#march")).to_have_text("March: on")
    backward = until(p1, "(id) => warfield.store.unitOrders(id).move_unit.modes.march"
                         ".manoeuvres.backward", g["u1"])
    assert backward["available"] is False and "March Move" in backward["reason"]

    # Shooting Phase: no move controls; Shoot is shown but not possible, with the rule's words.
    act(server, g, g["t1"], {"type": "end_phase"})  # Magic
    act(server, g, g["t1"], {"type": "end_phase"})  # Shooting
    until(p1, "warfield.store.state.phase === 'Shooting'")
    shoot = p1.locator("#shoot")
    expect(shoot).to_be_disabled()
    expect(shoot).to_have_attribute("title", "Citizen Archers made a March Move this turn and "
                                             "cannot shoot")
    assert p1.locator("#wheel-left").count() == 0 and p1.locator("#charge").count() == 0

    # Player 2's turn: player 1's card offers nothing but what either player may do.
    act(server, g, g["t1"], {"type": "end_phase"})  # Melee
    act(server, g, g["t1"], {"type": "end_phase"})  # player 2's Charge
    until(p1, "warfield.store.state.active_player === 2")
    assert p1.evaluate("(id) => warfield.store.unitOrders(id)", g["u1"]) == {}
    assert p1.locator("#shoot").count() == 0 and p1.locator("#wheel-left").count() == 0
    expect(p1.locator("#end-phase")).to_be_disabled()
    assert pages.errors == []
