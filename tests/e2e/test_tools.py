"""Unit handles, 40k model moves, the shared measure, line of sight and the keys, in a browser.

Games are set up over REST (armies, deployment) so the browser time goes to what is tested:
player 1's page drives the table with a real mouse and keyboard; a phone-sized spectator
watches.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_battle_ui import rest
from tests.e2e.test_table import READY, at, drag
from tests.e2e.waits import expect, until, until_equal

pytestmark = pytest.mark.e2e


def battle(server: str, system: str, army1: list[Any], army2: list[Any],
           at1: tuple[float, float], at2: tuple[float, float], phase: str,
           village: bool = False) -> dict[str, Any]:
    """A game in its battle stage at player 1's `phase`, one unit a side, set up over REST."""
    g = rest(f"{server}/api/games", {"system": system, "name": f"Tools {system}"})
    seat2 = rest(f"{server}/api/games/{g['id']}/seats", {"invite": g["invite"]})
    t1, t2 = g["token"], seat2["token"]

    def act(token: str, action: dict[str, Any]) -> Any:
        return rest(f"{server}/api/games/{g['id']}/actions", {"action": action}, token=token)

    if village:
        act(t1, {"type": "use_preset_table", "preset": "village"})
    act(t1, {"type": "submit_army", "units": army1})
    act(t2, {"type": "submit_army", "units": army2})
    units = rest(f"{server}/api/games/{g['id']}")["state"]["units"]
    u1 = next(u["id"] for u in units.values() if u["owner"] == 1)
    u2 = next(u["id"] for u in units.values() if u["owner"] == 2)
    act(t1, {"type": "deploy_unit", "unit": u1, "x": at1[0], "y": at1[1], "facing": 0})
    act(t2, {"type": "deploy_unit", "unit": u2, "x": at2[0], "y": at2[1], "facing": 180})
    for _ in range(6):
        if rest(f"{server}/api/games/{g['id']}")["state"]["phase"] == phase:
            break
        act(t1, {"type": "end_phase"})
    return {"id": g["id"], "t1": t1, "t2": t2, "u1": u1, "u2": u2,
            "p1_url": f"{server}/games/{g['id']}#seat=1&token={t1}",
            "spectate": f"{server}/games/{g['id']}"}


def unit(page: Any, uid: str) -> dict[str, Any]:
    return page.evaluate(
        "(id) => { const u = warfield.store.state.units[id];"
        " return {placement: u.placement, files: u.files, positions: u.positions}; }", uid)


def handle(page: Any, kind: str) -> tuple[float, float]:
    h = until(page, "(k) => (warfield.table.handles() || []).find(h => h.kind === k)", kind)
    return h["x"], h["y"]


def test_handles_measure_line_of_sight_and_keys(server: str, pages: Any, tmp_path: Path) -> None:
    g = battle(server, "t9a",
               [{"datasheet": "citizen-spears", "models": 20,
                 "joined_characters": ["highborn-commander"]}],
               [{"datasheet": "citizen-spears", "models": 20}],
               (14, 8), (14, 40), "Movement", village=True)
    p1 = pages.open("player1", g["p1_url"])
    p1.wait_for_function(READY)
    spectator = pages.open("spectator", g["spectate"], width=390, height=844)
    spectator.wait_for_function(READY)
    u1, u2 = g["u1"], g["u2"]

    # Select the unit: its card lists the joined character; four handles appear.
    p1.mouse.click(*at(p1, 14, 6))
    p1.wait_for_selector(".selected.unit .characters li:has-text('Highborn Commander')")
    until_equal(p1, "(warfield.table.handles() || []).length", 4)

    # Reform: drag the rear-right corner out to 8 files (a Reform changes the files by at
    # most 3: docs/rules-decisions.md "Reform"); the ghost says legal with the distance used
    # against the allowance (a model moves at most twice the Advance Rate, 10 in); release
    # reforms the unit.
    rx, ry = handle(p1, "reform")
    drag(p1, (rx, ry), (18.3, ry), release=False)
    # The verdict on the position the drag stopped at (earlier ones answered it on its way).
    until(p1, "warfield.table.ghost && warfield.table.ghost.verdict === 'legal'"
              " && warfield.table.ghost.text.startsWith('Reform: 8 wide')"
              " && warfield.table.ghost.text.includes('/ 10.0 in')")
    p1.mouse.up()
    p1.wait_for_function("(id) => warfield.store.state.units[id].files === 8", arg=u1)

    # Pivot after a reform: the knob's ghost turns red and names the rule; release is refused.
    p1.wait_for_function("warfield.table.handles() && warfield.table.handles().length === 4")
    kx, ky = handle(p1, "pivot")
    cx, cy = p1.evaluate(
        "(id) => warfield.store.state.units[id].footprint.features[0].properties.centre", u1)
    t = math.radians(30)
    tx = cx + (kx - cx) * math.cos(t) - (ky - cy) * math.sin(t)
    ty = cy + (kx - cx) * math.sin(t) + (ky - cy) * math.cos(t)
    drag(p1, (kx, ky), (tx, ty), release=False)
    until(p1, "warfield.table.ghost && warfield.table.ghost.verdict === 'illegal'"
              " && warfield.table.ghost.text.includes('Reform')")
    p1.keyboard.press("Escape")  # cancels the drag: nothing is sent
    p1.mouse.up()
    until_equal(p1, "warfield.table.ghost", None)
    assert unit(p1, u1)["placement"]["facing"] == 0

    # M: measure unit to unit; the spectator sees the shared measurement fade in and out.
    p1.keyboard.press("m")
    p1.mouse.click(*at(p1, 14, 6))
    p1.mouse.click(*at(p1, 14, 42))
    p1.wait_for_selector(".measure-result")
    # The answer to the second click (answers to the pointer on its way there are not shared).
    measured = until(p1, "warfield.table.measure.fixed && warfield.table.measure.result.shared"
                         " === true && {label: warfield.table.measure.label,"
                         " distance: warfield.table.measure.result.distance}")
    label, distance = measured["label"], measured["distance"]
    assert 30 < distance < 34 and label == f"{distance:.1f} in"
    # The spectator sees it (for 5 s, then it fades).
    until(spectator, "(label) => warfield.table.overlays.length === 1"
                     " && warfield.table.overlays[0].label === label", f"P1: {label}")
    spectator.screenshot(path=str(tmp_path / "spectator-390.png"))

    # L: line of sight from player 1's unit to the enemy, in plain words (issue 19 item 7):
    # how much of it is seen, behind what, its cover.
    p1.keyboard.press("l")
    until_equal(p1, "warfield.table.mode", "los")
    p1.mouse.click(*at(p1, 14, 6))
    p1.mouse.click(*at(p1, 14, 42))
    los = p1.locator("#los-result")
    expect(los).to_contain_text(re.compile(
        r"(Fully visible: all|Partly visible: \d+ %) of the .*, behind .*Orchard.*; "
        r"(soft|hard|no) cover"))
    until(p1, "warfield.table.los.lines.length > 0")
    p1.screenshot(path=str(tmp_path / "player1-1280.png"))

    # ? opens the help, Esc closes the tool, then the help.
    p1.keyboard.press("?")
    expect(p1.locator(".overlay[aria-label=Help]")).to_be_visible()
    p1.keyboard.press("?")
    p1.keyboard.press("Escape")
    until_equal(p1, "warfield.table.mode", "idle")
    until(spectator, "warfield.table.overlays.length === 0")
    assert pages.errors == []
    assert unit(p1, u2)["placement"]["y"] == 40


def test_40k_single_model_moves(server: str, pages: Any, tmp_path: Path) -> None:
    g = battle(server, "wh40k10",
               [{"datasheet": "beast-snagga-boyz", "models": 10, "joined_characters": ["wurrboy"]}],
               [{"datasheet": "intercessor-squad", "models": 5}],
               (20, 8), (20, 36), "Movement")
    p1 = pages.open("player1", g["p1_url"])
    p1.wait_for_function(READY)
    u1 = g["u1"]
    before = unit(p1, u1)["positions"]
    x0, y0 = before[0]

    # One model 3 in forward: out of coherency, red with the rule; Esc puts it back.
    drag(p1, (x0, y0), (x0, y0 + 3))
    until(p1, "warfield.table.ghost && warfield.table.ghost.verdict === 'illegal'"
              " && warfield.table.ghost.text.includes('Unit Coherency')"
              " && warfield.table.ghost.phase === 'staged'")
    p1.keyboard.press("Escape")
    until_equal(p1, "warfield.table.ghost", None)

    # One model 1 in forward: legal; the move waits for Confirm, then only that model moved.
    drag(p1, (x0, y0), (x0, y0 + 1))
    # The verdict on the released position (earlier ones answered the drag on its way there);
    # a drag lands on whole pixels: about 1 in, to the nearest tenth shown.
    text = until(
        p1,
        "warfield.table.ghost && warfield.table.ghost.verdict === 'legal'"
        " && /used (0\\.9|1\\.0|1\\.1)/.test(warfield.table.ghost.text)"
        " && warfield.table.ghost.text"
    )
    used = re.search(r"used (\d+\.\d)", text)
    assert used is not None and abs(float(used.group(1)) - 1.0) <= 0.1
    assert unit(p1, u1)["positions"] == before
    p1.click("#confirm-move")
    p1.wait_for_function("(id) => warfield.store.state.units[id].moved.used > 0.8", arg=u1)
    after = unit(p1, u1)["positions"]
    assert abs(after[0][1] - (y0 + 1)) < 0.1 and abs(after[0][0] - x0) < 0.1
    assert after[1:] == before[1:]
    p1.screenshot(path=str(tmp_path / "40k.png"))
    assert pages.errors == []


def test_40k_advance_rolls_its_die_before_the_move(server: str, pages: Any) -> None:
    """Issue 12 item 1: the 40k Advance control sends `advance`, which rolls and commits the D6
    at once; the move that follows is judged against Move + that die."""
    g = battle(server, "wh40k10", [{"datasheet": "boyz", "models": 10}],
               [{"datasheet": "intercessor-squad", "models": 5}], (20, 8), (20, 36), "Movement")
    p1 = pages.open("player1", g["p1_url"])
    p1.wait_for_function(READY)
    u1 = g["u1"]
    x0, y0 = unit(p1, u1)["positions"][0]
    drag(p1, (x0, y0), (x0, y0), steps=1)  # a click on a model selects its unit
    p1.wait_for_selector("#advance")
    p1.click("#advance")
    p1.wait_for_function("(id) => warfield.store.state.units[id].moved.allowance > 6", arg=u1)
    moved = p1.evaluate("(id) => warfield.store.state.units[id].moved", arg=u1)
    assert moved["mode"] == "advance" and moved["allowance"] == 6 + moved["advanced"]
    p1.wait_for_selector("#advance", state="detached")
    assert pages.errors == []
