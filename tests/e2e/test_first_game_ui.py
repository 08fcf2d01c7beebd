"""What a new player trips on in a first game, in the browser: a 40k unit's deployment ghost
(its models' bases where the pointer is, with the server's verdict), player 2's typed
deployment spot as player 2 sees the table, the objective markers on the table from deployment
on, taking a submitted army back while the opponent has not submitted (and the "Submit your
army?" question before it goes), and the attack report brought into view (and focused) when
it arrives under the unit card. Every step waits for the state it asserts (tests/e2e/waits.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_battle_ui import rest
from tests.e2e.test_forty_ui import BOYZ, INTERCESSORS, Game, deployed
from tests.e2e.test_table import READY, at
from tests.e2e.waits import expect, until, until_equal

pytestmark = pytest.mark.e2e


def armies(server: str) -> Game:
    """A 40k game with both armies in: deployment, player 1 first."""
    game = Game(server)
    game.act(1, type="submit_army", units=[BOYZ])
    game.act(2, type="submit_army", units=[INTERCESSORS])
    return game


def unit_of(page: Any, owner: int) -> str:
    return str(page.evaluate(
        "(o) => Object.values(warfield.store.state.units).find((u) => u.owner === o).id", owner))


def middle(page: Any, unit: str) -> tuple[float, float]:
    """The middle of the box around a unit's models (the point it was set down around)."""
    xs, ys = zip(*page.evaluate("(id) => warfield.store.state.units[id].positions", unit),
                 strict=True)
    return (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2


def test_a_40k_unit_deploys_with_a_ghost_and_player_2_types_their_own_spot(
        server: str, pages: Any, tmp_path: Path) -> None:
    game = armies(server)
    p1 = pages.open("player1", game.urls[1])
    p2 = pages.open("player2", game.urls[2])
    for page in (p1, p2):
        page.wait_for_function(READY)
        until_equal(page, "warfield.store.state.stage", "deployment")
        # The five objective markers are on the table while deploying, not only in battle.
        until_equal(page, "warfield.table.scene.objectives.map((m) => m.name)",
                    [f"Objective {i}" for i in range(1, 6)])
    width, depth = p1.evaluate("[warfield.store.state.battlefield.width,"
                               " warfield.store.state.battlefield.depth]")

    # Player 1 picks the Boyz and points at the table: their eleven bases (ten Boyz and the
    # Wurrboy) follow the pointer, and the server says the spot is fine.
    boyz = unit_of(p1, 1)
    p1.click(f".tray li[data-unit='{boyz}'] button.deploy")
    p1.mouse.move(*at(p1, width / 2 - 1, 6))
    p1.mouse.move(*at(p1, width / 2, 6))
    ghost = until(p1, "warfield.table.moves.ghost && warfield.table.moves.ghost.verdict === 'legal'"
                      " && warfield.table.moves.ghost")
    assert ghost["geometry"]["type"] == "MultiPolygon"
    assert len(ghost["geometry"]["coordinates"]) == 11
    xs = [x for poly in ghost["geometry"]["coordinates"] for x, _ in poly[0]]
    ys = [y for poly in ghost["geometry"]["coordinates"] for _, y in poly[0]]
    assert abs((min(xs) + max(xs)) / 2 - width / 2) < 0.5 and min(ys) < 6 < max(ys), ghost
    expect(p1.locator("p.hint", has_text="rows of five")).to_be_visible()
    p1.screenshot(path=str(tmp_path / "forty-deploy-ghost.png"))
    p1.mouse.click(*at(p1, width / 2, 6))
    until(p1, "(id) => warfield.store.state.units[id].status === 'on_table'", boyz)
    mx, my = middle(p1, boyz)
    assert abs(mx - width / 2) < 0.05 and abs(my - 6) < 0.05, (mx, my)

    # Player 2 types the spot as they see the table (turned 180°): the form starts at the
    # middle of their zone in their own frame, facing 0° (away from them), and 10 in from
    # their left, 6 in in, is the table's (width - 10, depth - 6).
    squad = unit_of(p2, 2)
    until_equal(p2, "warfield.store.state.deploying", 2)
    p2.click(f".tray li[data-unit='{squad}'] button.deploy")
    form = p2.locator("#deploy-form")
    expect(form).to_be_visible()
    expect(form.locator("input[name=typed-x]")).to_have_value(f"{width / 2:g}")
    expect(form.locator("input[name=typed-y]")).to_have_value("6")
    expect(form.locator("input[name=typed-facing]")).to_have_value("0")
    expect(form).to_contain_text("as you see the table")
    form.locator("input[name=typed-x]").fill("10")
    form.locator("input[name=typed-y]").fill("6")
    form.locator("#deploy-here").focus()
    p2.keyboard.press("Enter")
    until(p2, "(id) => warfield.store.state.units[id].status === 'on_table'", squad)
    mx, my = middle(p2, squad)
    assert abs(mx - (width - 10)) < 0.05 and abs(my - (depth - 6)) < 0.05, (mx, my)
    # Facing 0° as player 2 sees it is the table's 180°: the row runs from player 2's left,
    # which is the table's right.
    positions = p2.evaluate("(id) => warfield.store.state.units[id].positions", squad)
    assert positions[0][0] > positions[-1][0], positions
    until_equal(p1, "warfield.store.state.stage", "battle")
    until_equal(p2, "warfield.table.mode", "idle")  # the tool and its form close
    expect(p2.locator("#deploy-form")).to_have_count(0)
    p2.screenshot(path=str(tmp_path / "forty-deployed-p2.png"))
    assert pages.errors == []


def test_a_submitted_army_is_confirmed_then_taken_back_and_submitted_again(
        server: str, pages: Any, tmp_path: Path) -> None:
    game = Game(server)
    p1 = pages.open("player1", game.urls[1])
    p1.wait_for_function(READY)
    p1.wait_for_selector("#setup:not([hidden])")
    p1.wait_for_selector("select[name=datasheet] option[value='beast-snagga-boyz']",
                         state="attached")
    p1.select_option("select[name=datasheet]", "beast-snagga-boyz")
    p1.click("form.army-add button[type=submit]")
    until_equal(p1, "document.querySelectorAll('.army-list > li').length", 1)
    points = p1.evaluate("document.getElementById('army-points').textContent")

    # Submit army asks first, naming the units and points; Esc (keyboard) goes back to the
    # builder with nothing sent, and the focus back on Submit army.
    submit = p1.locator("#submit-army")
    submit.focus()
    p1.keyboard.press("Enter")
    dialog = p1.locator("#submit-army-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("1 unit, ")
    total = points.split("Total: ", 1)[1].split(" ", 1)[0]
    expect(dialog).to_contain_text(f"{total} points")
    until_equal(p1, "document.activeElement.id", "confirm-submit-army")
    p1.screenshot(path=str(tmp_path / "submit-army-dialog.png"))
    p1.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    until_equal(p1, "document.activeElement.id", "submit-army")
    assert game.state()["armies_submitted"] == []

    # Enter on the dialog's Submit army sends it.
    p1.keyboard.press("Enter")
    expect(dialog).to_be_visible()
    until_equal(p1, "document.activeElement.id", "confirm-submit-army")
    p1.keyboard.press("Enter")
    p1.wait_for_selector("#army-waiting")
    until_equal(p1, "warfield.store.state.armies_submitted", [1])

    # While player 2 has not submitted, "Take back my army" brings it back into the builder.
    take_back = p1.locator("#take-back-army")
    expect(take_back).to_be_enabled()
    take_back.click()
    until_equal(p1, "warfield.store.state.armies_submitted", [])
    until_equal(p1, "document.querySelectorAll('.army-list > li').length", 1)
    assert game.state()["units"] == {}
    p1.click("#submit-army")
    p1.click("#confirm-submit-army")
    p1.wait_for_selector("#army-waiting")
    until_equal(p1, "warfield.store.state.armies_submitted", [1])

    # Once player 2's army is in, deployment starts: nothing is taken back alone.
    rest(f"{game.base}/actions", {"action": {"type": "submit_army", "units": [INTERCESSORS]}},
         token=game.tokens[2])
    until_equal(p1, "warfield.store.state.stage", "deployment")
    expect(p1.locator("#take-back-army")).to_be_hidden()
    assert pages.errors == []


def test_the_attack_report_is_brought_into_view_and_focused(
        server: str, pages: Any, tmp_path: Path) -> None:
    game, boyz, squad = deployed(server)
    # Player 2's Intercessors move up within range of the Boyz and shoot.
    game.to_phase(2, "Movement")
    game.shift(2, squad, -5)
    game.to_phase(2, "Shooting")
    p2 = pages.open("player2", game.urls[2], width=1280, height=640)
    p2.wait_for_function(READY)
    pick = p2.locator(f"button[data-pick='{squad}']")
    pick.focus()
    p2.keyboard.press("Enter")
    fire = p2.locator("#forty-fire")
    expect(fire).to_be_enabled()
    fire.click()
    until(p2, "warfield.store.history.some((e) => e.type === 'attacks_resolved')")
    group = p2.locator("#combat-report .report-group").first
    expect(group).to_be_visible()
    # The newest report's heading has the focus (a screen reader reads it out) ...
    until(p2, "document.activeElement && document.activeElement.tagName === 'SUMMARY'"
              " && document.activeElement.closest('#combat-report') !== null")
    # ... and it is on screen: inside the window and inside the side panel's scrolled view.
    summary = p2.locator("#combat-report .report-group summary").first
    until(p2, """() => {
      const s = document.querySelector('#combat-report .report-group summary')
        .getBoundingClientRect();
      const side = document.querySelector('.side').getBoundingClientRect();
      return s.top >= Math.max(0, side.top) && s.bottom <= Math.min(innerHeight, side.bottom);
    }""")
    box = summary.bounding_box()
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= 640, box
    assert box["x"] >= 0 and box["x"] + box["width"] <= 1280, box
    p2.screenshot(path=str(tmp_path / "report-in-view.png"))
    assert pages.errors == []
