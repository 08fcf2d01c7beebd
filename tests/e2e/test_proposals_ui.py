"""Issue 19 item 2 in the browser: proposals you can see.

- A free move proposed by player 1 is drawn at the proposed position on player 2's table and
  the spectator's (server/rules/proposals.py: the proposal carries the unit's outline there).
- An undo lists in words what it takes back, and only what the player may take back: their own
  actions since the opponent last acted (README "Playing"). After player 2's Charge Reaction,
  player 1 has nothing to take back; player 2's offer names the Hold and the charge roll, and
  is the same after a reload. Accepted, both players see the dice discarded, and the charge
  rolled again is marked a re-roll in the log.

Player 1: Citizen Spears and Archers; player 2: two units of Mageblight Gremlins (the set-up of
test_orders_ui, over REST).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_orders_ui import GREMLINS_A, SPEARS, t9a_game
from tests.e2e.test_table import READY, at
from tests.e2e.waits import expect, until

pytestmark = pytest.mark.e2e
DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_a_free_move_proposal_is_drawn_for_the_opponent_and_the_spectators(
    server: str, pages: Any
) -> None:
    g = t9a_game(server)
    p1 = pages.open("player1", g["p1"])
    p2 = pages.open("player2", g["p2"])
    spectator = pages.open("spectator", g["spectate"])
    for page in (p1, p2, spectator):
        page.wait_for_function(READY)
    p1.mouse.click(*at(p1, 20, 8.5))
    p1.wait_for_selector("#free-move")
    p1.click("#free-move")
    p1.mouse.move(*at(p1, 40, 22))
    p1.mouse.click(*at(p1, 40, 24))
    p1.wait_for_function("warfield.table.ghost && warfield.table.ghost.verdict === 'legal'")
    p1.click("#propose-free-move")
    for page in (p2, spectator):
        page.wait_for_selector("#proposal-banner:has-text('a free move of Citizen Spears')")
        drawn = until(page, "(id) => { const g = warfield.table.proposalGhost;"
                            " return g && g.unit === id && g; }", SPEARS)
        assert drawn["label"] == "Proposed: Citizen Spears (free move, player 1)", drawn
    if os.environ.get("WARFIELD_DOCS_SCREENSHOTS") == "1":  # the README's picture
        p2.screenshot(path=str(DOCS / "free-move-proposal.png"))
    # Where it is drawn: the outline the proposal carries, around the point clicked.
    outline = p2.evaluate("warfield.store.state.proposal.free_move.outline.coordinates[0]")
    xs, ys = [p[0] for p in outline], [p[1] for p in outline]
    assert min(xs) < 40 < max(xs) and min(ys) < 24 < max(ys), outline
    # Not moved yet: the unit stands where it was until the answer.
    assert p2.evaluate(f"warfield.store.state.units['{SPEARS}'].placement.y") == 10
    p2.click("#decline-proposal")
    for page in (p1, p2, spectator):
        until(page, "warfield.table.proposalGhost === null && !warfield.store.state.proposal")


def test_an_undo_lists_what_it_takes_back_and_shows_the_discarded_dice(
    server: str, pages: Any
) -> None:
    g = t9a_game(server)
    act = g["act"]
    act(1, {"type": "propose", "kind": "free_move", "unit": SPEARS, "x": 20, "y": 35,
            "facing": 0})
    act(2, {"type": "accept_proposal"})
    act(1, {"type": "declare_charge", "unit": SPEARS, "target": GREMLINS_A})
    act(2, {"type": "charge_reaction", "reaction": "hold"})
    p1 = pages.open("player1", g["p1"])
    p2 = pages.open("player2", g["p2"])
    for page in (p1, p2):
        page.wait_for_function(READY)

    # Player 2 acted last: player 1 has nothing of theirs to take back, and is told why.
    expect(p1.locator("#propose-undo")).to_be_disabled()
    expect(p1.locator("#agreement .undo-what")).to_contain_text(
        "player 2 has acted since your last action")
    # Player 2's offer: their Hold and the charge it rolled, in words, with the dice.
    what = p2.locator("#agreement .undo-what")
    expect(what).to_contain_text("Mageblight Gremlin (1): Hold")
    expect(what).to_contain_text("Citizen Spears roll")
    expect(what).to_contain_text("Dice it discards: Citizen Spears: 2D6 [")
    assert "u1" not in what.inner_text() and "u3" not in what.inner_text()
    before = what.text_content()
    p2.reload()
    p2.wait_for_function(READY)
    expect(p2.locator("#agreement .undo-what")).to_have_text(before)  # stable over a reload

    # (after the reload the page's history fills in from the server: wait for the charge)
    rolled = until(p2, "(() => { const c = warfield.store.history.filter(e => e.type === "
                       "'charge_succeeded' || e.type === 'charge_failed').at(-1); "
                       "return c ? c.payload.roll.dice.map(d => d.face) : null; })()")
    faces = ", ".join(str(f) for f in rolled)
    p2.click("#propose-undo:not([disabled])")
    banner = p1.locator("#proposal-banner")
    expect(banner.locator("#proposal-events li").first).to_have_text("Mageblight Gremlin (1): Hold")
    expect(banner.locator("#proposal-dice")).to_contain_text(f"2D6 [{faces}]")
    p1.click("#accept-proposal")
    for page in (p1, p2):
        page.wait_for_selector(f".game-log li:has-text('dice discarded: Citizen Spears: 2D6 "
                               f"[{faces}]')")
    # The charge waits for the reaction again; holding again rolls anew: a re-roll.
    p2.wait_for_selector("#charge-prompt button[data-reaction=hold]:not([disabled])")
    p2.click("#charge-prompt button[data-reaction=hold]")
    for page in (p1, p2):
        page.wait_for_selector(f".game-log li:has-text('a re-roll: the undone roll was {faces}')")
