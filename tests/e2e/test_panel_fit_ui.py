"""The page fits the screen: at 1280 and 1440 px wide the side panel's army builder (the Game
size select) and the unit card's weapon tables stay inside the panel, and on a phone (390 x
844) nothing runs off sideways. A screenshot of each is kept for a person to look at; the
check is that nothing scrolls sideways: the page (`document.scrollingElement.scrollWidth <=
innerWidth`) and the side panel (`scrollWidth <= clientWidth`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_forty_ui import Game, deployed
from tests.e2e.test_table import READY
from tests.e2e.waits import expect, until

pytestmark = pytest.mark.e2e

SIZES = [(1280, 800), (1440, 900)]
PHONE = (390, 844)

# What sticks out sideways: the page, the side panel, and the panel's widest child.
OVERFLOW = """() => {
  const side = document.querySelector('.side');
  const widest = [...side.querySelectorAll('*')].filter((e) => e.offsetParent !== null)
    .map((e) => ({ e, right: e.getBoundingClientRect().right }))
    .sort((a, b) => b.right - a.right)[0];
  return {
    page: document.scrollingElement.scrollWidth, inner: innerWidth,
    side: side.scrollWidth, sideClient: side.clientWidth,
    widest: widest ? `${widest.e.tagName}.${widest.e.className} ${Math.round(widest.right)}` : '',
  };
}"""


def assert_fits(page: Any, what: str) -> None:
    """Nothing scrolls sideways (waited for: the panel may still be laying out)."""
    try:
        until(page, f"() => {{ const o = ({OVERFLOW})(); return o.page <= o.inner"
                    " && o.side <= o.sideClient; }", timeout=5_000)
    except AssertionError:
        raise AssertionError(f"{what}: {page.evaluate(OVERFLOW)}") from None


def test_the_army_builder_fits_the_side_panel(server: str, pages: Any, tmp_path: Path) -> None:
    game = Game(server)
    page = pages.open("player1", game.urls[1], *SIZES[0])
    page.wait_for_function(READY)
    page.wait_for_selector("select[name=game_size] option", state="attached")
    page.select_option("select[name=datasheet]", "beast-snagga-boyz")
    page.click("form.army-add button[type=submit]")
    page.wait_for_selector(".army-list li")
    for width, height in [*SIZES, PHONE]:
        page.set_viewport_size({"width": width, "height": height})
        size = page.locator("select[name=game_size]")
        expect(size).to_be_visible()
        box, side = size.bounding_box(), page.locator(".side").bounding_box()
        assert box and side and box["x"] + box["width"] <= side["x"] + side["width"], (box, side)
        assert_fits(page, f"setup at {width} px")
        page.screenshot(path=str(tmp_path / f"setup-{width}x{height}.png"))
    assert pages.errors == []


def test_the_unit_card_and_the_table_fit_at_every_size(
        server: str, pages: Any, tmp_path: Path) -> None:
    game, boyz, squad = deployed(server)
    page = pages.open("player2", game.urls[2], *SIZES[0])
    page.wait_for_function(READY)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        for unit in (squad, boyz):
            pick(page, unit)
            assert_fits(page, f"the card of {unit} at {width} px")
        page.locator("#info").screenshot(path=str(tmp_path / f"card-{width}x{height}.png"))
    # A phone opens the page at its own size (the table fits the board from the start).
    phone = pages.open("phone", game.urls[2], *PHONE)
    phone.wait_for_function(READY)
    until(phone, "warfield.table.scene && warfield.table.scene.objectives.length === 5")
    assert_fits(phone, "the table on a phone")
    phone.screenshot(path=str(tmp_path / "phone-390x844.png"))
    for unit in (squad, boyz):
        pick(phone, unit)
        assert_fits(phone, f"the card of {unit} on a phone")
    phone.locator("#info").screenshot(path=str(tmp_path / "card-phone.png"))
    assert pages.errors == []


def pick(page: Any, unit: str) -> None:
    """Select a unit from the units list; its card shows its profile tables."""
    page.locator(f"button[data-pick='{unit}']").click()
    until(page, "(id) => warfield.table.selected === id", unit)
    expect(page.locator("#info table.profile-table").first).to_be_visible()
