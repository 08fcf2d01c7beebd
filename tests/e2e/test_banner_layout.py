"""Where the charge banner goes (issue 24 item 5): over the table on a laptop and a tablet it
docks at the edge that leaves the charger and its target in view (it covered the top strip of
the table, where a charge against a unit near that edge is), its refused reactions folded under
one line; on a phone it sits above the panels, not over the table, and the game's buttons in
the top bar wrap instead of overlapping.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.test_orders_ui import GREMLINS_A, SPEARS, t9a_game
from tests.e2e.test_table import READY
from tests.e2e.waits import until

pytestmark = pytest.mark.e2e

UNIT_BOXES = """(ids) => ids.map((id) => {
  const u = warfield.store.state.units[id];
  const pts = u.footprint.features.flatMap((f) => f.geometry.type === 'Polygon'
    ? f.geometry.coordinates.flat() : f.geometry.coordinates.flat(2));
  const s = pts.map(([x, y]) => warfield.table.clientPoint(x, y));
  return {left: Math.min(...s.map(p => p.x)), right: Math.max(...s.map(p => p.x)),
          top: Math.min(...s.map(p => p.y)), bottom: Math.max(...s.map(p => p.y)) + 14};
})"""
BOX = """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
  return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; }"""


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["left"] < b["right"] and b["left"] < a["right"]
            and a["top"] < b["bottom"] and b["top"] < a["bottom"])


def test_the_charge_banner_leaves_the_charge_in_view(server: str, pages: Any) -> None:
    """The Spears (near player 1's edge) charge the Gremlins (near player 2's) across the
    table: the banner covers neither, nor the names drawn under them."""
    g = t9a_game(server)
    page = pages.open("player2", g["p2"], width=1280, height=800)
    page.wait_for_function(READY)
    g["act"](1, {"type": "declare_charge", "unit": SPEARS, "target": GREMLINS_A})
    page.wait_for_selector("#order-banner:not([hidden]) #charge-prompt")
    until(page, "() => document.activeElement.dataset.reaction === 'hold'")
    banner = page.evaluate(BOX, "#order-banner")
    for box in page.evaluate(UNIT_BOXES, [SPEARS, GREMLINS_A]):
        assert not overlaps(banner, box), (banner, box)
    # The refused reactions are one folded line; their words are there for whoever opens it.
    assert page.locator("#charge-prompt .refused-why summary").inner_text().startswith(
        "Not allowed: Flee!")
    page.click("#charge-prompt .refused-why summary")
    page.wait_for_selector("#charge-prompt .refused[data-reaction=flee]:has-text('Fearless')")


@pytest.mark.parametrize(("width", "height"), [(768, 1024), (390, 844)])
def test_on_a_tablet_or_phone_the_banner_is_above_the_panels_and_buttons_do_not_overlap(
    server: str, pages: Any, width: int, height: int
) -> None:
    g = t9a_game(server)
    g["act"](1, {"type": "declare_charge", "unit": SPEARS, "target": GREMLINS_A})
    page = pages.open("player2", g["p2"], width=width, height=height)
    page.wait_for_function(READY)
    page.wait_for_selector("#order-banner:not([hidden]) #charge-prompt")
    board = page.evaluate(BOX, "canvas")
    assert not overlaps(page.evaluate(BOX, "#order-banner"), board)
    buttons = page.evaluate("""() => [...document.querySelectorAll(
          'header.top button, header.top a')].filter((el) => el.offsetParent !== null)
        .map((el) => { const r = el.getBoundingClientRect();
          return {name: el.textContent, left: r.left, right: r.right, top: r.top,
                  bottom: r.bottom}; })""")
    for i, a in enumerate(buttons):
        assert a["right"] <= width + 0.5, a
        for b in buttons[i + 1:]:
            assert not overlaps(a, b), (a, b)
