"""Issue 19 item 1 in the browser: before a charge is declared, the Charge tool shows what the
server would judge (server/rules/charge.py `charge_preview`).

The Knights-vs-terrain case of the issue: the Knights of Ryma stand 3 in from Citizen Spears
with an impassable Farmhouse in the gap. Clicking the Spears with the Charge tool warns that
the path is blocked ("Farmhouse is in the way") BEFORE anything is declared or rolled. A clear
charge (Citizen Spears 10 in from the other Spears) shows the distance needed, and Declare
declares it. Armies, terrain and positions go over REST (free moves by agreement).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_battle_ui import rest
from tests.e2e.test_table import READY, at
from tests.e2e.waits import expect, until, until_equal

pytestmark = pytest.mark.e2e

DOCS = Path(__file__).resolve().parents[2] / "docs"
FARMHOUSE = [[37.6, 28.3], [39.0, 28.3], [39.0, 28.7], [37.6, 28.7]]


def knights_game(server: str) -> dict[str, Any]:
    g = rest(f"{server}/api/games", {"system": "t9a", "name": "Charge preview"})
    seat2 = rest(f"{server}/api/games/{g['id']}/seats", {"invite": g["invite"]})
    tokens = {1: g["token"], 2: seat2["token"]}

    def act(seat: int, action: dict[str, Any]) -> Any:
        return rest(f"{server}/api/games/{g['id']}/actions", {"action": action},
                    token=tokens[seat])

    act(1, {"type": "place_terrain", "kind": "impassable", "label": "Farmhouse",
            "points": FARMHOUSE})
    act(1, {"type": "submit_army", "units": [{"datasheet": "knights-of-ryma", "models": 5},
                                             {"datasheet": "citizen-spears", "models": 20}]})
    act(2, {"type": "submit_army", "units": [{"datasheet": "citizen-spears", "models": 20},
                                             {"datasheet": "citizen-spears", "models": 20}]})
    units = rest(f"{server}/api/games/{g['id']}")["state"]["units"]
    ids = sorted(units, key=lambda u: int(u[1:]))
    knights, spears, target, other = ids
    assert units[knights]["name"] == "Knights of Ryma" and units[target]["owner"] == 2
    deploy = {knights: (36, 6, 0), spears: (14, 6, 0), target: (36, 42, 180),
              other: (14, 42, 180)}
    while deploy:
        seat = rest(f"{server}/api/games/{g['id']}")["state"]["deploying"]
        uid = next(u for u in deploy if units[u]["owner"] == seat)
        x, y, facing = deploy.pop(uid)
        act(seat, {"type": "deploy_unit", "unit": uid, "x": x, "y": y, "facing": facing})
    # Into position by agreement (a free move ignores Unit Spacing).
    for uid, (x, y, facing) in {knights: (36, 27, 0), target: (36, 30, 180),
                                spears: (14, 20, 0), other: (14, 30, 180)}.items():
        act(1, {"type": "propose", "kind": "free_move", "unit": uid, "x": x, "y": y,
                "facing": facing})
        act(2, {"type": "accept_proposal"})
    state = rest(f"{server}/api/games/{g['id']}")["state"]
    assert state["phase"] == "Charge" and state["active_player"] == 1
    return {"id": g["id"], "act": act, "ids": ids,
            "p1": f"{server}/games/{g['id']}#seat=1&token={tokens[1]}"}


def test_a_blocked_charge_warns_before_the_roll_and_a_clear_one_shows_the_distance(
    server: str, pages: Any
) -> None:
    g = knights_game(server)
    knights, spears, target, other = g["ids"]
    p1 = pages.open("player1", g["p1"])
    p1.wait_for_function(READY)
    until(p1, "(id) => warfield.store.state.units[id].placement.y === 27", knights)
    seq_before = p1.evaluate("warfield.store.state.seq")

    # --- The Knights and the Farmhouse: the warning comes before anything is declared. -------
    p1.mouse.click(*at(p1, 36, 26))
    until_equal(p1, "warfield.table.selected", knights)
    p1.click("#charge")
    p1.mouse.click(*at(p1, 36, 31.5))
    warning = p1.locator("#charge-warning")
    expect(warning).to_contain_text("path is blocked by Farmhouse")
    expect(p1.locator("#charge-preview li[data-check=path]")).to_contain_text(
        "Impassable Terrain (Farmhouse is in the way)")
    expect(p1.locator("#charge-preview li[data-check=arc]")).to_contain_text("In the front arc")
    expect(p1.locator("#charge-preview li[data-check=sight]")).to_contain_text(
        "In line of sight")
    expect(p1.locator("#declare-charge")).to_contain_text("Declare anyway")
    # Nothing was declared, nothing rolled: the game's log did not move.
    history = p1.evaluate("warfield.store.history.map(e => e.type)")
    assert "charge_declared" not in history and "charge_failed" not in history, history
    assert p1.evaluate("warfield.store.state.pending_charge ?? null") is None
    assert p1.evaluate("warfield.store.state.seq") == seq_before
    # The path is drawn red on the table (the ghost the tool draws), with the words.
    until(p1, "warfield.table.tools.charge.layers().ghost?.verdict === 'illegal'")
    if os.environ.get("WARFIELD_DOCS_SCREENSHOTS") == "1":  # the README's picture
        p1.screenshot(path=str(DOCS / "charge-preview.png"))
    p1.click("#cancel-charge")
    until_equal(p1, "warfield.table.mode", "idle")

    # --- A clear charge: the distance needed, then Declare declares it. ---------------------
    p1.mouse.click(*at(p1, 14, 19))
    until_equal(p1, "warfield.table.selected", spears)
    p1.click("#charge")
    p1.mouse.click(*at(p1, 14, 31.5))
    expect(p1.locator("#charge-preview li[data-check=needed]")).to_contain_text(
        "Needs 10.0 in on 2D6 + 5")
    expect(p1.locator("#charge-preview li[data-check=path]")).to_contain_text("Path clear")
    expect(p1.locator("#charge-warning")).to_have_count(0)
    until(p1, "warfield.table.tools.charge.layers().ghost?.verdict === 'legal'")
    assert p1.evaluate("warfield.store.state.pending_charge ?? null") is None
    p1.click("#declare-charge:not([disabled])")
    until(p1, "(id) => warfield.store.state.pending_charge?.unit === id", spears)
    p1.wait_for_selector("#charge-prompt:has-text('Waiting for Player 2')")
