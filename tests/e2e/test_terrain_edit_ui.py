"""Issue 19 item 4, terrain you can fix, in the browser: player 1, alone at the table (player 2
has not joined), lays out a preset, selects a piece, drags it, turns it with R and by a typed
value, deletes it with the Delete key, replaces the table with another preset (after
confirming) and takes back their own setup actions; the tooltip over a piece and the piece
list say its kind, height, cover and whether it is dangerous (Dangerous Terrain tests: not
automated).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_table import READY, at, create_game_in_lobby
from tests.e2e.waits import until, until_equal

pytestmark = pytest.mark.e2e

DOCS = Path(__file__).resolve().parents[2] / "docs"
PIECE = "(id) => warfield.store.state.terrain.find((t) => t.id === id)"


def piece(page: Any, label: str) -> Any:
    return page.evaluate(
        "(label) => warfield.store.state.terrain.find((t) => t.label === label)", label)


def centre(points: list[list[float]]) -> tuple[float, float]:
    return (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))


def test_terrain_is_fixed_and_taken_back_before_player_2_joins(server: str, pages: Any) -> None:
    p1 = pages.open("player1", server + "/")
    create_game_in_lobby(p1, "Terrain edit")
    p1.click("#open-player1")
    p1.wait_for_function(READY)
    p1.wait_for_selector("#setup:not([hidden])")
    assert not p1.evaluate("warfield.store.state.seats['2']")

    p1.click("#preset-village")
    until_equal(p1, "warfield.store.state.terrain.length", 4)

    # The tooltip over the Marsh says what it is, dangerous tests not automated.
    marsh = piece(p1, "Marsh")
    p1.mouse.move(*at(p1, *centre(marsh["points"])))
    p1.wait_for_selector("#terrain-tip:not([hidden])")
    tip = p1.inner_text("#terrain-tip")
    assert "Marsh" in tip and "Dangerous terrain" in tip and "flat" in tip
    assert "Dangerous Terrain tests: not automated" in tip
    hill = piece(p1, "Hill")
    p1.mouse.move(*at(p1, *centre(hill["points"])))
    until(p1, "document.querySelector('#terrain-tip').innerText.includes('Hill')")
    assert "large" in p1.inner_text("#terrain-tip")

    # Select the Orchard from the keyboard-usable list, its words come on focus.
    orchard = piece(p1, "Orchard")
    p1.focus(f".terrain-piece[data-terrain={orchard['id']}]")
    words = p1.inner_text(f"#terrain-words-{orchard['id']}")
    assert "Cover: soft" in words and "Dangerous: no" in words
    p1.keyboard.press("Enter")
    until_equal(p1, "warfield.table.mode", "terrain_edit")
    until_equal(p1, "warfield.table.tools.terrain_edit.selected", orchard["id"])
    p1.wait_for_selector("#terrain-selected")

    # Drag it 3 in across.
    x0, y0 = centre(orchard["points"])
    p1.mouse.move(*at(p1, x0, y0))
    p1.mouse.down()
    p1.mouse.move(*at(p1, x0 + 1.5, y0), steps=4)
    p1.mouse.move(*at(p1, x0 + 3, y0), steps=4)
    until(p1, "warfield.table.tools.terrain_edit.layers().terrainDraft")
    if os.environ.get("WARFIELD_DOCS_SCREENSHOTS") == "1":  # the README's picture
        p1.screenshot(path=str(DOCS / "terrain-edit.png"))
    p1.mouse.up()
    until(p1, f"Math.abs(({PIECE})(arg).points[0][0] - {orchard['points'][0][0] + 3}) < 0.3",
          orchard["id"])
    moved = p1.evaluate(f"(arg) => ({PIECE})(arg).points", orchard["id"])

    # R turns it 15°: the first corner moves, the centre stays.
    p1.keyboard.press("r")
    until(p1, f"({PIECE})(arg).points[0][1] !== {moved[0][1]}", orchard["id"])
    turned = p1.evaluate(f"(arg) => ({PIECE})(arg).points", orchard["id"])
    assert abs(centre(turned)[0] - centre(moved)[0]) < 0.1

    # Typed values: resize to 50 %.
    p1.fill("input[name=terrain-size]", "50")
    p1.click("#terrain-resize")
    until(p1, f"Math.abs(({PIECE})(arg).points[0][0] - {turned[0][0]}) > 0.5", orchard["id"])

    # Delete key removes it.
    p1.keyboard.press("Delete")
    until_equal(p1, "warfield.store.state.terrain.length", 3)
    assert piece(p1, "Orchard") is None

    # Take back (alone, no proposal): the Orchard comes back.
    p1.wait_for_selector("#take-back:not([disabled])")
    p1.click("#take-back")
    until_equal(p1, "warfield.store.state.terrain.length", 4)
    assert piece(p1, "Orchard") is not None

    # A preset replaces the table once the player confirms.
    p1.once("dialog", lambda dialog: dialog.dismiss())
    p1.click("#preset-ruins")
    until_equal(p1, "warfield.store.state.terrain.some((t) => t.label === 'Orchard')", True)
    p1.once("dialog", lambda dialog: dialog.accept())
    p1.click("#preset-ruins")
    until_equal(p1, "warfield.store.state.terrain.map((t) => t.label).join(',')",
                "Ruined chapel,Broken tower,Rubble,Collapsed wall,Craters")
    # ... and taking that back brings the village back.
    p1.click("#take-back")
    until(p1, "warfield.store.state.terrain.some((t) => t.label === 'Orchard')")
    assert p1.evaluate("warfield.store.state.terrain.length") == 4
