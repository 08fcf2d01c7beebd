"""The keyboard shortcuts of the table (README, "Keyboard shortcuts"): E then Enter ends the
phase (from the table, and from a field with Esc first: at most three keys), the focus leaves
End phase for the table once the server has answered so a stray Enter presses nothing, and Enter
in a typed order whose move is staged sends the move instead of staging it again."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.test_orders_ui import SPEARS, t9a_game
from tests.e2e.test_table import READY
from tests.e2e.waits import next_frame, until, until_equal

pytestmark = pytest.mark.e2e

FOCUSED_ID = "document.activeElement && document.activeElement.id"


def test_e_then_enter_ends_the_phase_from_the_table_and_from_a_field(
        server: str, pages: Any) -> None:
    g = t9a_game(server)  # player 1's Charge phase
    p1 = pages.open("player1", g["p1"])
    p1.wait_for_function(READY)
    until_equal(p1, "warfield.store.state.phase", "Charge")
    p1.focus("#table")
    p1.keyboard.press("e")
    until_equal(p1, FOCUSED_ID, "end-phase")
    p1.keyboard.press("Enter")
    until_equal(p1, "warfield.store.state.phase", "Movement")
    # Answered: the focus is back on the table, where Enter confirms a staged move (none).
    until_equal(p1, FOCUSED_ID, "table")
    seq = p1.evaluate("warfield.store.seq")
    p1.keyboard.press("Enter")
    next_frame(p1)
    assert p1.evaluate("[warfield.store.state.phase, warfield.store.seq]") == ["Movement", seq]

    # From a field: Esc leaves it for the table, then E and Enter.
    p1.focus("input[name=reason]")
    until_equal(p1, "document.activeElement.name", "reason")
    p1.keyboard.press("Escape")
    until_equal(p1, FOCUSED_ID, "table")
    p1.keyboard.press("e")
    until_equal(p1, FOCUSED_ID, "end-phase")
    p1.keyboard.press("Enter")
    until(p1, "warfield.store.state.phase !== 'Movement'")
    assert pages.errors == []


def test_enter_in_a_typed_move_sends_the_move_it_staged(server: str, pages: Any) -> None:
    g = t9a_game(server)
    g["act"](1, {"type": "end_phase"})  # to player 1's Movement phase
    p1 = pages.open("player1", g["p1"])
    p1.wait_for_function(READY)
    until_equal(p1, "warfield.store.state.phase", "Movement")
    y0 = p1.evaluate("(id) => warfield.store.state.units[id].placement.y", SPEARS)
    p1.click(f"button[data-pick={SPEARS}]")
    p1.click("#typed-orders > summary")
    p1.fill("#move-form input[name=typed-distance]", "4")
    p1.focus("#move-form input[name=typed-distance]")
    p1.keyboard.press("Enter")  # Show move: staged, with the server's verdict
    until(p1, "warfield.table.moves.ghost && warfield.table.moves.ghost.phase === 'staged'"
              " && warfield.table.moves.ghost.verdict === 'legal'")
    assert p1.evaluate("(id) => warfield.store.state.units[id].placement.y", SPEARS) == y0
    p1.keyboard.press("Enter")  # the same order again: it sends the staged move
    until(p1, "([id, y]) => Math.abs(warfield.store.state.units[id].placement.y - y) < 0.01",
          [SPEARS, y0 + 4])
    until(p1, "!warfield.table.moves.ghost")
    assert pages.errors == []
