"""Issue 19 item 7 in a browser (t9a): shooting with sight.

Selecting a shooter in its Shooting Phase shows, before any click, its weapon's area in range
and in the front arc on the table and marks each enemy unit: ✓ in range and sight (distance,
how much is seen, cover), ✗ with the server's reason (the `shoot` order: server/rules/
rankandflank/shooting.py `_offer_shoot`, the same `aim` that `shoot` judges with). The Line of
sight tool answers in plain words ("Fully visible: all of the …; no cover").

The game is set up over REST (tests/e2e/test_orders_ui.py `t9a_game`): the Archers at (52, 10)
facing the second Gremlins at (52, 38), 28 in away, straight ahead; the first Gremlins at
(20, 38) are 39 in away, beyond the Longbow's 30 in (FACTS.md "Distances": closest points of the
Unit Boundaries).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_orders_ui import ARCHERS, GREMLINS_A, GREMLINS_B, t9a_game
from tests.e2e.test_table import READY, at
from tests.e2e.waits import expect, until

pytestmark = pytest.mark.e2e


def test_a_selected_shooter_shows_its_range_and_arc_and_marks_what_it_can_see_and_reach(
    server: str, pages: Any, tmp_path: Path
) -> None:
    g = t9a_game(server)
    for _ in range(3):  # Charge -> Movement -> Magic -> Shooting
        g["act"](1, {"type": "end_phase"})
    p1 = pages.open("player1", g["p1"])
    phone = pages.open("phone", g["p1"], width=390, height=844)
    for page in (p1, phone):
        page.wait_for_function(READY)
        until(page, "warfield.store.state.phase === 'Shooting'")

    p1.mouse.click(*at(p1, 52, 9.2))
    until(p1, "(id) => warfield.table.selected === id", ARCHERS)
    # On the table: the weapon's area (range and front arc, as the server drew it) and a mark
    # on each enemy unit, before anything is clicked.
    sight = until(p1, "warfield.table.tools.shoot.layers().sight || null")
    assert sight["shooter"] == ARCHERS and sight["available"] is True
    weapon = sight["weapons"][0]
    assert weapon["area"]["type"] == "Polygon" and weapon["range"] >= 28, weapon
    marks = {t["unit"]: t["ok"] for t in sight["targets"]}
    assert marks == {GREMLINS_B: True, GREMLINS_A: False}, marks

    # The same in words on the card: ✓ with the distance and how much is seen, ✗ with why.
    seen = p1.locator(f"#shoot-targets li[data-unit={GREMLINS_B}]")
    expect(seen).to_contain_text("✓ 28.0 in")
    expect(seen).to_contain_text(re.compile(r"(fully|partly) visible"))
    expect(seen).to_contain_text("cover")
    hidden = p1.locator(f"#shoot-targets li[data-unit={GREMLINS_A}]")
    expect(hidden).to_have_text(
        re.compile(r"✗ Mageblight Gremlin \(1\) is 39\.0 in away; \w+ reaches"))
    p1.screenshot(path=str(tmp_path / "shooting-sight.png"))

    # Another own unit selected: its own sight (the Spears have no shooting weapon: none).
    p1.mouse.click(*at(p1, 20, 9.2))
    until(p1, "!warfield.table.tools.shoot.layers().sight")
    expect(p1.locator("#shoot-targets")).to_have_count(0)

    # Line of sight in plain words.
    p1.click("#section-tools button[data-cmd=los]")
    p1.mouse.click(*at(p1, 52, 9.2))
    p1.mouse.click(*at(p1, 52, 39))
    result = p1.locator("#los-result")
    expect(result).to_contain_text(re.compile(
        r"Citizen Archers → Mageblight Gremlin.*: (Fully visible: all of the|Partly visible: "
        r"\d+ % of the) Mageblight Gremlin.*; (no|soft|hard) cover"))

    # On a phone the card's list wraps inside the panel.
    phone.mouse.click(*at(phone, 52, 9.2))
    until(phone, "(id) => warfield.table.selected === id", ARCHERS)
    item = phone.locator(f"#shoot-targets li[data-unit={GREMLINS_A}]")
    item.scroll_into_view_if_needed()
    expect(item).to_be_visible()
    box = item.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    phone.screenshot(path=str(tmp_path / "shooting-sight-phone.png"))
    assert pages.errors == []
