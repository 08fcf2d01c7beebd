"""The keyboard shortcuts of the table (README, "Keyboard shortcuts"): E then Enter ends the
phase (from the table, and from a field with Esc first: at most three keys), the focus leaves
End phase and the Dice panel for the table once the server has answered so a stray Enter presses
nothing, and Enter
in a typed order whose move is staged sends the move instead of staging it again; and a
decision out of turn (releasing Fanatics) is asked in a banner that takes the focus, while the
turn bar names the wait to everyone else."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.test_battle_ui import rest
from tests.e2e.test_fanatics_ui import GoblinsAndHalberdiers
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

    # A roll from the Dice panel with Enter: once rolled the focus leaves the panel, and a
    # second Enter rolls nothing more in front of everyone.
    rolls = "warfield.store.history.filter(e => e.type === 'dice_rolled').length"
    p1.fill("input[name=reason]", "Leadership")
    p1.focus("input[name=reason]")
    p1.keyboard.press("Enter")
    until_equal(p1, rolls, 1)
    until_equal(p1, FOCUSED_ID, "table")
    p1.keyboard.press("Enter")
    next_frame(p1)
    assert p1.evaluate(rolls) == 1

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


def test_fanatics_released_in_the_opponents_turn_are_asked_in_a_banner_with_the_focus(
        server: str, pages: Any) -> None:
    """whfb8 (seed 003): an enemy move in player 2's turn comes within 8 in of the Night
    Goblins hiding Fanatics; player 1's banner takes the focus at once (on a control that rolls
    nothing), and the turn bar tells player 2 and the spectator whom the game waits for."""
    game = GoblinsAndHalberdiers(server, "Fanatics out of turn")
    g, tokens, base, act = {"id": game.id}, game.tokens, game.base, game.act
    gob, hal = game.gob, game.hal

    def to_movement(seat: int) -> None:
        for _ in range(12):
            st = rest(base)["state"]
            if st["phase"] == "Movement" and st["active_player"] == seat:
                return
            act(st["active_player"], {"type": "end_phase"})
        raise AssertionError("no Movement phase")

    to_movement(1)
    act(1, {"type": "move_unit", "unit": gob, "manoeuvre": "forward", "distance": 8,
            "mode": "march"})
    to_movement(2)
    act(2, {"type": "move_unit", "unit": hal, "manoeuvre": "forward", "distance": 8,
            "mode": "march"})
    to_movement(1)
    to_movement(2)

    url = f"{server}/games/{g['id']}"
    p1 = pages.open("player1", f"{url}#seat=1&token={tokens[1]}")
    p2 = pages.open("player2", f"{url}#seat=2&token={tokens[2]}")
    spectator = pages.open("spectator", url)
    for page in (p1, p2, spectator):
        page.wait_for_function(READY)
    act(2, {"type": "move_unit", "unit": hal, "manoeuvre": "forward", "distance": 4})
    assert rest(base)["state"]["fanatic_releases"][0]["owner"] == 1

    prompt = f"#release-prompt-{gob}"
    p1.wait_for_selector(prompt)
    until_equal(p1, "document.activeElement && document.activeElement.textContent",
                "Choose point and direction…")
    for page in (p2, spectator):
        page.wait_for_selector("#waiting-for:has-text('Waiting for Player 1 to release Fanatics')")
        assert page.locator(prompt).count() == 0
    # Enter on the focused control goes to the release form: no dice yet.
    p1.keyboard.press("Enter")
    until_equal(p1, "document.activeElement && document.activeElement.getAttribute('aria-label')",
                "Start x")
    assert p1.evaluate("warfield.store.history.filter(e => e.type === 'fanatic_released')"
                       ".length") == 0
    # Both released from the banner (the front of the unit): the wait is over for everyone.
    for n in (1, 2):
        p1.click(f"{prompt} button.release-front")
        until(p1, "(n) => warfield.store.history.filter(e => e.type === 'fanatic_released')"
                  ".length === n", n)
    p1.wait_for_selector(prompt, state="detached")
    for page in (p1, p2, spectator):
        page.wait_for_selector("#waiting-for", state="detached")
    assert pages.errors == []
