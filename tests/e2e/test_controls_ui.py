"""Issue 19 item 5 in a browser (t9a): controls that fit the moment.

- The March toggle belongs to the unit: turned on for the Archers, it is off for the Spears.
- Wheel 15° previews first: a ghost with the server's verdict, nothing sent until Confirm.
- A unit that may not do an order at all (it has charged, it is engaged) is shown no Charge,
  Wheel or March buttons, only one line saying why; a control shown but not possible says why
  on hover (`title`) and to screen readers (`aria-description`).

Games are set up over REST (tests/e2e/test_orders_ui.py `t9a_game`: Spears and Archers
against two units of Gremlins, player 1's Charge Phase first; t9a phases: Charge, Movement,
Magic, Shooting, Melee, docs/systems.md); player 1's page is clicked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_orders_ui import ARCHERS, GREMLINS_A, SPEARS, t9a_game
from tests.e2e.test_table import READY, at
from tests.e2e.waits import expect, until

pytestmark = pytest.mark.e2e


def select(page: Any, uid: str) -> None:
    """Click the unit a little behind its front edge's centre (facing 0: towards +y)."""
    p = page.evaluate("(id) => warfield.store.state.units[id].placement", uid)
    page.mouse.click(*at(page, p["x"], p["y"] - 0.8))
    until(page, "(id) => warfield.table.selected === id", uid)
    page.wait_for_selector(".selected.unit")


def test_march_is_each_units_own_and_a_wheel_is_previewed_before_it_is_made(
    server: str, pages: Any, tmp_path: Path
) -> None:
    g = t9a_game(server)
    g["act"](1, {"type": "end_phase"})  # Charge -> Movement
    p1 = pages.open("player1", g["p1"])
    p1.wait_for_function(READY)
    until(p1, "warfield.store.state.phase === 'Movement'")

    # The Archers march; the Spears, selected next, have their own toggle, off.
    select(p1, ARCHERS)
    march = p1.locator("#march")
    expect(march).to_have_attribute("aria-pressed", "false")
    march.click()
    expect(march).to_have_attribute("aria-pressed", "true")
    select(p1, SPEARS)
    expect(p1.locator("#march")).to_have_attribute("aria-pressed", "false")
    expect(p1.locator("#march")).to_have_text("March: off")
    select(p1, ARCHERS)
    expect(p1.locator("#march")).to_have_attribute("aria-pressed", "true")
    march.click()  # the Archers advance after all
    expect(march).to_have_attribute("aria-pressed", "false")

    # Wheel left 15°: a staged ghost the server judges; the Spears have not moved.
    select(p1, SPEARS)
    p1.click("#wheel-left")
    ghost = until(p1, "warfield.table.ghost && warfield.table.ghost.phase === 'staged'"
                      " && warfield.table.ghost.verdict !== 'unknown' && warfield.table.ghost")
    assert ghost["verdict"] == "legal", ghost
    assert ghost["action"] == {"type": "move_unit", "unit": SPEARS, "manoeuvre": "wheel",
                               "mode": "advance", "degrees": 15}
    assert p1.evaluate("(id) => warfield.store.state.units[id].placement.facing", SPEARS) == 0
    assert p1.evaluate("(id) => warfield.store.state.units[id].moved || null", SPEARS) in (None, {})
    # A second click adds 15° to the preview.
    p1.click("#wheel-left")
    until(p1, "warfield.table.ghost && warfield.table.ghost.action"
              " && warfield.table.ghost.action.degrees === 30")
    expect(p1.locator("#confirm-move")).to_have_text("Confirm wheelEnter")
    p1.screenshot(path=str(tmp_path / "wheel-preview.png"))
    p1.click("#confirm-move")
    until(p1, "(id) => Math.round(warfield.store.state.units[id].placement.facing) === 30"
              " || Math.round(warfield.store.state.units[id].placement.facing) === 330", SPEARS)
    until(p1, "warfield.table.ghost === null")
    assert pages.errors == []


def test_a_unit_that_has_charged_is_shown_no_charge_or_move_controls_only_why(
    server: str, pages: Any, tmp_path: Path
) -> None:
    g = t9a_game(server)
    # The Spears are put 3 in in front of the Gremlins by agreement, charge them; Hold.
    g["act"](1, {"type": "propose", "kind": "free_move", "unit": SPEARS, "x": 20, "y": 35,
                 "facing": 0})
    g["act"](2, {"type": "accept_proposal"})
    g["act"](1, {"type": "declare_charge", "unit": SPEARS, "target": GREMLINS_A})
    g["act"](2, {"type": "charge_reaction", "reaction": "hold"})
    p1 = pages.open("player1", g["p1"])
    p1.wait_for_function(READY)
    until(p1, "(id) => (warfield.store.state.engaged || {})[id]"
              " || warfield.store.state.units[id].placement.y > 36", SPEARS)

    # Charge Phase: the Spears have charged: no Charge… button, the reason in words.
    select(p1, SPEARS)
    offer = until(p1, "(id) => warfield.store.unitOrders(id).declare_charge", SPEARS)
    assert offer["available"] is False, offer
    expect(p1.locator("#charge")).to_have_count(0)
    why = p1.locator(".hint.unavailable[data-order=declare_charge]")
    expect(why).to_have_text(offer["reason"][0].upper() + offer["reason"][1:].rstrip(".") + ".")
    # The Archers may still charge (none in reach): the button says why, to everyone.
    select(p1, ARCHERS)
    archers = until(p1, "(id) => warfield.store.unitOrders(id).declare_charge", ARCHERS)
    if not archers["available"]:
        button = p1.locator("#charge")
        expect(button).to_be_disabled()
        expect(button).to_have_attribute("title", archers["reason"])
        expect(button).to_have_attribute("aria-description", archers["reason"])

    # Movement Phase: the engaged Spears are shown no Wheel or March, only why.
    g["act"](1, {"type": "end_phase"})
    until(p1, "warfield.store.state.phase === 'Movement'")
    select(p1, SPEARS)
    move = until(p1, "(id) => warfield.store.unitOrders(id).move_unit", SPEARS)
    assert move["available"] is False and "engaged" in move["reason"], move
    expect(p1.locator(".hint.unavailable[data-order=move_unit]")).to_contain_text("engaged")
    for control in ("#wheel-left", "#wheel-right", "#march"):
        expect(p1.locator(control)).to_have_count(0)
    p1.screenshot(path=str(tmp_path / "engaged-card.png"))
    assert pages.errors == []


def test_a_toast_goes_when_its_moment_passes(server: str, pages: Any) -> None:
    """Issue 19 item 9: a toast belongs to the stage, turn, player and phase it was said in;
    when the phase ends it is gone at once (not after its few seconds: an error's is 6 s). A
    listener added after the page's own counts the toasts as the new phase arrives."""
    g = t9a_game(server)
    g["act"](1, {"type": "end_phase"})  # Charge -> Movement
    p1 = pages.open("player1", g["p1"])
    p1.wait_for_function(READY)
    until(p1, "warfield.store.state.phase === 'Movement'")
    p1.evaluate(
        "() => { window.toastsAt = null;"
        " warfield.store.subscribe(() => { if (warfield.store.state.phase !== 'Movement'"
        " && window.toastsAt === null)"
        " window.toastsAt = document.querySelectorAll('.toasts .toast').length; }); }")
    # A refusal said in the Movement phase (as the typed move says it).
    p1.evaluate("() => warfield.table.toast('Move: type a distance in inches.', 'error')")
    p1.wait_for_selector(".toasts .toast:has-text('type a distance')")
    g["act"](1, {"type": "end_phase"})  # Movement -> Magic
    gone = until(p1, "window.toastsAt !== null && {n: window.toastsAt}")
    assert gone == {"n": 0}
    expect(p1.locator(".toasts .toast")).to_have_count(0)
    assert pages.errors == []
