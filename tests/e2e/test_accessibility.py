"""Accessibility in the browser (issue 24): axe-core on every kind of page; deployment, a charge,
an end of phase and a move played from the keyboard alone; focus kept across re-renders and
each new event announced once; and the layouts at 1280x800, 768x1024 and 390x844 (with a
protanopia simulation of a refused move) and the setup terrain row at four widths.

axe-core comes from the root package.json (`npm ci`); it is injected into the page and run as
it is: a critical or serious violation fails the test, with the rule, its help text and the
elements it found. axe cannot see inside the canvas, so the keyboard test plays through the
units list and the typed orders that stand in for it.

Screenshots go to pytest's tmp_path; with WARFIELD_DOCS_SCREENSHOTS=1 the four of the README
are written to docs/ as well.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require
from tests.e2e.test_battle_ui import rest
from tests.e2e.test_orders_ui import ARCHERS, GREMLINS_A, GREMLINS_B, PLACES, SPEARS, t9a_game
from tests.e2e.test_table import READY, create_game_in_lobby
from tests.e2e.waits import expect, until, until_equal

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
DOCS = REPO / "docs"


def axe_violations(page: Any, where: str) -> list[str]:
    """Run axe-core in `page`; the critical and serious violations, in words."""
    require(AXE.exists(), "the accessibility tests need axe-core: run `npm ci` in the repository")
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = page.evaluate(
        """async () => {
          const r = await axe.run(document, { resultTypes: ['violations'] });
          return r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ': ' + n.failureSummary) }));
        }""")
    return [f"{where}: [{v['impact']}] {v['id']} — {v['help']}: {v['nodes']}"
            for v in found if v["impact"] in ("critical", "serious")]


def assert_no_serious_violations(page: Any, where: str) -> None:
    bad = axe_violations(page, where)
    assert bad == [], "\n".join(bad)


def tab_to(page: Any, selector: str, *, shift: bool = False, limit: int = 400) -> None:
    """Press Tab (or Shift+Tab) until the focused element matches `selector`."""
    for _ in range(limit):
        if page.evaluate("(s) => !!document.activeElement && document.activeElement.matches(s)",
                         selector):
            return
        page.keyboard.press("Shift+Tab" if shift else "Tab")
    raise AssertionError(f"{limit} Tab presses never reached {selector!r}; focus is on "
                         f"{page.evaluate('document.activeElement.outerHTML.slice(0, 200)')}")


def type_into(page: Any, selector: str, text: str) -> None:
    """Tab to a field, select what it holds and type over it."""
    tab_to(page, selector)
    page.keyboard.press("Control+a")
    page.keyboard.type(text)


def armies_game(server: str) -> dict[str, Any]:
    """A t9a game with both armies submitted: deployment, player 1 or 2 to deploy."""
    g = rest(f"{server}/api/games", {"system": "t9a", "name": "Keyboard"})
    seat2 = rest(f"{server}/api/games/{g['id']}/seats", {"invite": g["invite"]})
    tokens = {1: g["token"], 2: seat2["token"]}
    for seat, sheet, n in ((1, "citizen-spears", 20), (2, "mageblight-gremlin", 3)):
        rest(f"{server}/api/games/{g['id']}/actions",
             {"action": {"type": "submit_army", "units": [{"datasheet": sheet, "models": n}]}},
             token=tokens[seat])
    base = f"{server}/games/{g['id']}"
    return {"id": g["id"], "p1": f"{base}#seat=1&token={tokens[1]}",
            "p2": f"{base}#seat=2&token={tokens[2]}", "spectate": base}


def ruins_game(server: str) -> dict[str, Any]:
    """The orders game (tests/e2e/test_orders_ui.py: Spears and Archers against two units of
    Gremlins, deployed over REST) on the ruins table, so the terrain patterns show."""
    g = rest(f"{server}/api/games", {"system": "t9a", "name": "Ruins"})
    seat2 = rest(f"{server}/api/games/{g['id']}/seats", {"invite": g["invite"]})
    tokens = {1: g["token"], 2: seat2["token"]}

    def act(seat: int, action: dict[str, Any]) -> Any:
        return rest(f"{server}/api/games/{g['id']}/actions", {"action": action},
                    token=tokens[seat])

    act(1, {"type": "use_preset_table", "preset": "ruins"})
    act(1, {"type": "submit_army", "units": [
        {"datasheet": "citizen-spears", "models": 20},
        {"datasheet": "citizen-archers", "models": 10}]})
    act(2, {"type": "submit_army", "units": [
        {"datasheet": "mageblight-gremlin", "models": 3},
        {"datasheet": "mageblight-gremlin", "models": 3}]})
    # The terrain took the first ids: the units are known by their datasheets, in order.
    units = rest(f"{server}/api/games/{g['id']}")["state"]["units"]
    order = sorted(units, key=lambda u: int(u.lstrip("u")))
    ids = dict(zip((SPEARS, ARCHERS, GREMLINS_A, GREMLINS_B), order, strict=True))
    assert [units[ids[k]]["datasheet"] for k in (SPEARS, GREMLINS_A)] == [
        "citizen-spears", "mageblight-gremlin"], units
    left = {ids[k]: place for k, place in PLACES.items()}
    while left:
        seat = rest(f"{server}/api/games/{g['id']}")["state"]["deploying"]
        uid = next(u for u in left if units[u]["owner"] == seat)
        x, y, facing = left.pop(uid)
        act(seat, {"type": "deploy_unit", "unit": uid, "x": x, "y": y, "facing": facing})
    base = f"{server}/games/{g['id']}"
    return {"id": g["id"], "act": act, "ids": ids, "p1": f"{base}#seat=1&token={tokens[1]}",
            "p2": f"{base}#seat=2&token={tokens[2]}", "spectate": base}


def charge_pending(server: str, *, ruins: bool = False) -> dict[str, Any]:
    """The orders game with the Spears 3 in from the Gremlins (a free move agreed over REST)
    and their charge declared: player 2 has a Charge Reaction to choose."""
    g = ruins_game(server) if ruins else t9a_game(server)
    ids = g.setdefault("ids", {k: k for k in (SPEARS, ARCHERS, GREMLINS_A, GREMLINS_B)})
    g["act"](1, {"type": "propose", "kind": "free_move", "unit": ids[SPEARS], "x": 20, "y": 35,
                 "facing": 0})
    g["act"](2, {"type": "accept_proposal"})
    g["act"](1, {"type": "declare_charge", "unit": ids[SPEARS], "target": ids[GREMLINS_A]})
    state = rest(f"{server}/api/games/{g['id']}")["state"]
    assert state["pending_charge"]["unit"] == ids[SPEARS], state.get("pending_charge")
    return g


def test_axe_finds_no_serious_violations_on_lobby_setup_battle_banner_and_spectator(
        server: str, pages: Any) -> None:
    lobby = pages.open("lobby", server + "/")
    lobby.wait_for_selector("form.create")
    assert_no_serious_violations(lobby, "lobby")

    create_game_in_lobby(lobby, "Axe")
    lobby.click("#open-player1")
    lobby.wait_for_function(READY)
    lobby.wait_for_selector("#setup:not([hidden]) #submit-army")
    assert_no_serious_violations(lobby, "setup")

    g = charge_pending(server)
    p1 = pages.open("player1", g["p1"])
    p1.wait_for_function(READY)
    p1.click(f"button[data-pick={SPEARS}]")
    p1.wait_for_selector("#info .selected.unit")
    expect(p1.locator(f"button[data-pick={SPEARS}]")).to_have_attribute("aria-pressed", "true")
    assert_no_serious_violations(p1, "battle with a selection")

    p2 = pages.open("player2", g["p2"])
    p2.wait_for_function(READY)
    p2.wait_for_selector("#charge-prompt button[data-reaction=hold]:not([disabled])")
    # The banner that asks for an answer has the focus.
    until(p2, "document.activeElement && document.activeElement.closest('#charge-prompt')")
    assert_no_serious_violations(p2, "reaction banner")

    spectator = pages.open("spectator", g["spectate"], width=390, height=844)
    spectator.wait_for_function(READY)
    spectator.wait_for_selector("#charge-prompt")
    spectator.wait_for_selector(".game-log li")
    assert_no_serious_violations(spectator, "spectator (phone)")

    # The reaction banner on a phone, docked at the top of the panel sheet.
    phone = pages.open("player2-phone", g["p2"], width=390, height=844)
    phone.wait_for_function(READY)
    phone.wait_for_selector(".side > #order-banner #charge-prompt button[data-reaction=hold]")
    assert_no_serious_violations(phone, "reaction banner (phone)")
    assert pages.errors == []


def test_reaction_banner_takes_focus_and_is_answered_with_enter(server: str, pages: Any,
                                                               tmp_path: Path) -> None:
    g = charge_pending(server)
    p2 = pages.open("player2", g["p2"])
    p2.wait_for_function(READY)
    until_equal(p2, "document.activeElement && document.activeElement.dataset.reaction", "hold")
    p2.keyboard.press("Shift+Tab")  # the focus ring shows (keyboard focus), then back on Hold
    p2.keyboard.press("Tab")
    until_equal(p2, "document.activeElement.dataset.reaction", "hold")
    p2.screenshot(path=str(tmp_path / "reaction-banner-focus.png"))
    p2.keyboard.press("Enter")
    p2.wait_for_selector(".game-log li:has-text('charge succeeded')")
    expect(p2.locator("#charge-prompt")).to_have_count(0)
    # The focus went back to the page's controls, not lost to the body.
    until(p2, "document.activeElement && document.activeElement !== document.body")
    assert pages.errors == []


def test_deployment_a_charge_an_end_of_phase_and_a_move_with_the_keyboard_only(
        server: str, pages: Any) -> None:
    g = armies_game(server)
    p1 = pages.open("player1", g["p1"])
    p2 = pages.open("player2", g["p2"])
    for page in (p1, p2):
        page.wait_for_function(READY)
    # Typed as each player sees the table: player 2's (52, 10) is the table's (20, 38).
    deployed = {1: (20.0, 10.0), 2: (52.0, 10.0)}
    # Deployment: Tab to the unit in the tray, Enter; type x and y; Enter on "Deploy here".
    for _ in range(2):
        seat = until(p1, "warfield.store.state.stage === 'deployment'"
                         " && warfield.store.state.deploying")
        page = p1 if seat == 1 else p2
        page.wait_for_selector(".tray button.deploy")
        tab_to(page, ".tray button.deploy")
        page.keyboard.press("Enter")
        page.wait_for_selector("#deploy-form")
        x, y = deployed[seat]
        type_into(page, "#deploy-form input[name=typed-x]", f"{x:g}")
        type_into(page, "#deploy-form input[name=typed-y]", f"{y:g}")
        tab_to(page, "#deploy-here")
        page.keyboard.press("Enter")
        until(page, "(s) => Object.values(warfield.store.state.units).some(u => u.owner === s"
                    " && u.status === 'on_table')", seat)
    until_equal(p1, "warfield.store.state.stage", "battle")
    until_equal(p1, "warfield.store.state.phase", "Charge")
    spears = p1.evaluate("Object.values(warfield.store.state.units).find(u => u.owner === 1).id")
    placed = p1.evaluate("(id) => warfield.store.state.units[id].placement", spears)
    assert (placed["x"], placed["y"], placed["facing"]) == (20, 10, 0), placed

    # A charge from the keyboard: the Spears from the list, the target from the list.
    tab_to(p1, f"button[data-pick={spears}]")
    p1.keyboard.press("Enter")
    tab_to(p1, "#typed-target")
    # The list is the server's: each enemy with what the order may do to it (issue 24 item 1).
    until(p1, "() => [...document.querySelectorAll('#typed-target option')]"
              ".some(o => /— charge \\(\\d+\\.\\d in\\)/.test(o.textContent))")
    tab_to(p1, "#charge-target")
    p1.keyboard.press("Enter")
    # The server's preview first (issue 19): the distance needed, then Declare.
    p1.wait_for_selector("#charge-preview li[data-check=needed]")
    tab_to(p1, "#declare-charge")
    p1.keyboard.press("Enter")
    p1.wait_for_selector("#charge-prompt:has-text('Waiting for Player 2')")
    # Player 2's banner has the focus on Hold (Flee! is refused: Fearless): Enter answers.
    until_equal(p2, "document.activeElement && document.activeElement.dataset.reaction", "hold")
    p2.keyboard.press("Enter")
    # 28 in is more than 2D6 + the Advance Rate can reach: the server rolls and it fails.
    p1.wait_for_selector(".game-log li:has-text('charge failed')")
    expect(p1.locator("#charge-prompt")).to_have_count(0)
    # The Failed Charge move (t9a: the Charge Range, straight at the target).
    y0 = until(p1, "(id) => { const p = warfield.store.state.units[id].placement;"
                   " return p.y > 10 && p.y; }", spears)

    # End of phase: Tab to End phase, Enter.
    tab_to(p1, "#end-phase")
    p1.keyboard.press("Enter")
    until(p1, "warfield.store.state.phase !== 'Charge'")
    until_equal(p1, "warfield.store.state.phase", "Movement")

    # A move: the Spears are still selected (picked for the charge); type 4 in, Show move,
    # then Confirm.
    p1.wait_for_selector(f"button[data-pick={spears}][aria-pressed=true]")
    tab_to(p1, "#typed-orders > summary")
    p1.keyboard.press("Enter")  # opens the typed orders
    p1.wait_for_selector("#move-form input[name=typed-distance]")
    type_into(p1, "#move-form input[name=typed-distance]", "4")
    p1.keyboard.press("Enter")  # submits the form: the move is staged and previewed
    until(p1, "warfield.table.ghost && warfield.table.ghost.phase === 'staged'"
              " && warfield.table.ghost.verdict === 'legal'")
    tab_to(p1, "#confirm-move", shift=True)
    p1.keyboard.press("Enter")
    until(p1, "([id, y]) => Math.abs(warfield.store.state.units[id].placement.y - y) < 0.01",
          [spears, y0 + 4])
    p1.wait_for_selector(f"button[data-pick={spears}]:has-text('front at 20.0, {y0 + 4:.1f} in')")
    assert pages.errors == []


def _save(page: Any, tmp_path: Path, name: str) -> None:
    page.screenshot(path=str(tmp_path / name))
    if os.environ.get("WARFIELD_DOCS_SCREENSHOTS") == "1":
        page.screenshot(path=str(DOCS / name))


def _box(page: Any, selector: str) -> dict[str, float]:
    box: dict[str, float] = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box


def test_layouts_desktop_tablet_phone_and_a_refused_move_under_protanopia(
        server: str, pages: Any, tmp_path: Path) -> None:
    g = charge_pending(server, ruins=True)
    # Desktop: the selected unit and the latest report in view, under the turn bar.
    p1 = pages.open("player1", g["p1"], width=1280, height=800)
    p1.wait_for_function(READY)
    p1.click(f"button[data-pick={g['ids'][SPEARS]}]")
    p1.wait_for_selector("#info .selected.unit")
    p1.wait_for_selector("#combat-report:not([hidden]) details")
    for sel in (".panel.phase", "#info .selected.unit", "#combat-report details summary"):
        box = _box(p1, sel)
        assert box["y"] + 20 < 800, (sel, box)
    _save(p1, tmp_path, "screenshot-1280x800.png")
    # The terrain legend (folded): each kind's pattern in words, and the refused move's marks.
    p1.click("#section-legend > summary")
    legend = p1.locator("#section-legend .legend-list")
    for kind, words in (("impassable", "cross-hatched"), ("blocks_los", "striped"),
                        ("cover", "dotted"), ("dangerous", "zig-zag")):
        expect(legend.locator(f"li[data-kind={kind}]")).to_contain_text(words)
    expect(legend.locator(".legend-ghost")).to_contain_text("dotted black-and-white outline")
    assert_no_serious_violations(p1, "battle with the terrain legend open")
    p1.click("#section-legend > summary")

    # Tablet portrait: the table is the full width of the screen.
    tablet = pages.open("tablet", g["spectate"], width=768, height=1024)
    tablet.wait_for_function(READY)
    board = _box(tablet, ".board")
    assert board["width"] == 768 and board["height"] > 480, board
    _save(tablet, tmp_path, "screenshot-768x1024.png")
    assert_no_serious_violations(tablet, "spectator (tablet)")

    # Phone: the spectator sees the table and the report at once; the banner covers none of it.
    phone = pages.open("phone", g["spectate"], width=390, height=844)
    phone.wait_for_function(READY)
    phone.wait_for_selector("#charge-prompt")
    phone.wait_for_selector(".game-log li")
    board = _box(phone, ".board")
    banner = _box(phone, "#order-banner")
    side = _box(phone, ".side")
    assert board["width"] == 390 and board["height"] > 200, board
    assert banner["y"] >= board["y"] + board["height"] - 1, (banner, board)  # not over it
    assert side["y"] < 844 - 200, side  # the panel sheet is on screen with the table
    # Scrolling the sheet to the game log leaves the table where it was, in view.
    phone.locator(".game-log li").first.scroll_into_view_if_needed()
    log = _box(phone, ".game-log li >> nth=0")
    assert side["y"] <= log["y"] and log["y"] + log["height"] <= 844, (log, side)
    assert _box(phone, ".board") == board
    _save(phone, tmp_path, "screenshot-390x844.png")

    # A move the server refuses, seen under protanopia: a Spears move of 14 in (Move Distance).
    g["act"](2, {"type": "charge_reaction", "reaction": "hold"})
    g["act"](1, {"type": "end_phase"})  # Charge to Movement, still player 1's turn
    until_equal(p1, "warfield.store.state.phase", "Movement")
    p1.click(f"button[data-pick={g['ids'][ARCHERS]}]")
    p1.click("#typed-orders > summary")
    p1.fill("#move-form input[name=typed-distance]", "14")
    p1.click("#stage-move")
    until(p1, "warfield.table.ghost && warfield.table.ghost.verdict === 'illegal'")
    expect(p1.locator("#info .verdict.illegal")).to_contain_text("Not allowed: ")
    text = p1.evaluate("warfield.table.ghost.text")
    assert "Not allowed: Move Distance · 14.0 in" in text, text
    assert_no_serious_violations(p1, "a refused move, the typed orders open")
    cdp = p1.context.new_cdp_session(p1)
    cdp.send("Emulation.setEmulatedVisionDeficiency", {"type": "protanopia"})
    _save(p1, tmp_path, "screenshot-protanopia-illegal-move.png")
    cdp.send("Emulation.setEmulatedVisionDeficiency", {"type": "none"})
    assert pages.errors == []


def test_focus_survives_re_renders_and_each_new_event_is_announced_once(
        server: str, pages: Any) -> None:
    g = t9a_game(server)
    p1 = pages.open("player1", g["p1"])
    p1.wait_for_function(READY)
    p1.wait_for_selector(".game-log li[data-seq]")
    # The backlog the page loaded is in the log, and none of it is announced.
    expect(p1.locator("#announcer p")).to_have_count(0)
    tab_to(p1, f"button[data-pick={SPEARS}]")
    # The other player writes a note: every panel renders again; the focus stays put and the
    # note is said once.
    g["act"](2, {"type": "note", "text": "Gremlins ready"})
    p1.wait_for_selector(".note-log li:has-text('Gremlins ready')")
    expect(p1.locator("#announcer p")).to_have_count(1)
    expect(p1.locator("#announcer p")).to_contain_text("Gremlins ready")
    until_equal(p1, "document.activeElement.dataset.pick", SPEARS)
    # Selecting from the list re-renders the list too: the focus is on the same unit's button.
    p1.keyboard.press("Enter")
    p1.wait_for_selector(f"button[data-pick={SPEARS}][aria-pressed=true]")
    until_equal(p1, "document.activeElement.dataset.pick", SPEARS)
    g["act"](1, {"type": "end_phase"})
    p1.wait_for_selector(".game-log li:has-text('Charge')")
    until_equal(p1, "document.activeElement.dataset.pick", SPEARS)
    expect(p1.locator("#announcer p")).to_have_count(2)

    # Typing in a field while the panel renders again: nothing typed is lost or misplaced.
    p1.click("#typed-orders > summary")
    type_into(p1, "#move-form input[name=typed-distance]", "1")
    g["act"](2, {"type": "note", "text": "Still here"})
    p1.wait_for_selector(".note-log li:has-text('Still here')")
    until_equal(p1, "document.activeElement.name", "typed-distance")
    p1.keyboard.type("2")
    until_equal(p1, "document.querySelector('#move-form input[name=typed-distance]').value", "12")
    tab_to(p1, f"button[data-pick={SPEARS}]", shift=True)

    # The help dialog is modal: it takes the focus, keeps it, Esc closes it and gives it back.
    p1.keyboard.press("?")
    expect(p1.locator(".overlay[aria-label=Help]")).to_have_attribute("aria-modal", "true")
    until_equal(p1, "document.activeElement.id", "help-close")
    p1.keyboard.press("Tab")
    until_equal(p1, "document.activeElement.id", "help-close")
    p1.keyboard.press("Escape")
    expect(p1.locator(".overlay[aria-label=Help]")).to_be_hidden()
    until_equal(p1, "document.activeElement.dataset.pick", SPEARS)
    assert pages.errors == []


@pytest.mark.parametrize("width,height", [(390, 844), (768, 1024), (1280, 800), (1920, 1080)])
def test_setup_terrain_row_fits_at_every_width(server: str, pages: Any, tmp_path: Path,
                                               width: int, height: int) -> None:
    g = rest(f"{server}/api/games", {"system": "t9a", "name": "Setup"})
    page = pages.open("player1", f"{server}/games/{g['id']}#seat=1&token={g['token']}",
                      width=width, height=height)
    page.wait_for_function(READY)
    page.wait_for_selector("#setup:not([hidden]) .terrain-form #draw-terrain")
    side = _box(page, ".side")
    if width >= 1600:  # the panel widens on wide screens (320 px at 1280)
        assert side["width"] >= 400, side
    for sel in (".terrain-form", ".terrain-form #draw-terrain", "form.army-add",
                "#setup #submit-army"):
        box = _box(page, sel)
        assert side["x"] <= box["x"] and box["x"] + box["width"] <= side["x"] + side["width"], (
            sel, box, side)
    overflow = page.evaluate("""() => [...document.querySelectorAll('.side *')]
        .filter(e => e.scrollWidth > e.clientWidth + 1
                     && getComputedStyle(e).overflowX !== 'visible'
                     && !['INPUT', 'SELECT'].includes(e.tagName))
        .map(e => e.className || e.tagName)""")
    assert overflow == [], overflow
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(tmp_path / f"setup-{width}x{height}.png"))
    assert pages.errors == []
