"""Deployment previews the footprint under the cursor (issue 19 item 6): the unit picked in the
tray follows the pointer as a ghost the server judges (green inside the deployment zone, red
with the rule outside it), its frontage chosen with [ and ] and its facing with R, and a click
deploys it exactly as shown.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.test_battle_ui import rest
from tests.e2e.test_table import READY, at
from tests.e2e.waits import until, until_equal

pytestmark = pytest.mark.e2e

GHOST = "warfield.table.moves.ghost"


def test_the_deploy_ghost_follows_the_pointer_with_frontage_and_facing(
    server: str, pages: Any
) -> None:
    g = rest(f"{server}/api/games", {"system": "t9a", "name": "Deploy preview"})
    seat2 = rest(f"{server}/api/games/{g['id']}/seats", {"invite": g["invite"]})
    tokens = {1: g["token"], 2: seat2["token"]}
    for seat, units in ((1, [{"datasheet": "citizen-spears", "models": 20}]),
                        (2, [{"datasheet": "mageblight-gremlin", "models": 3}])):
        rest(f"{server}/api/games/{g['id']}/actions",
             {"action": {"type": "submit_army", "units": units}}, token=tokens[seat])
    p1 = pages.open("player1", f"{server}/games/{g['id']}#seat=1&token={tokens[1]}")
    p1.wait_for_function(READY)
    p1.click("li[data-unit='u1'] button.deploy")
    until_equal(p1, "warfield.table.mode", "deploy")

    # Over the own zone: a legal ghost, 5 files by default, facing away from the own edge.
    p1.mouse.move(*at(p1, 30, 8))
    until(p1, f"() => {GHOST} && {GHOST}.verdict === 'legal'")
    assert "5 files" in p1.evaluate(f"{GHOST}.label")
    # ] widens the frontage, R turns it 15°: the ghost shows both, still judged by the server.
    p1.keyboard.press("]")
    p1.keyboard.press("r")
    until(p1, f"() => {GHOST} && {GHOST}.label.includes('6 files') && {GHOST}.facing === 15"
              f" && {GHOST}.verdict === 'legal'")
    # Over the middle of the table: red, with the rule.
    p1.mouse.move(*at(p1, 30, 24))
    until(p1, f"() => {GHOST} && {GHOST}.verdict === 'illegal' && {GHOST}.action.y === 24")
    assert p1.evaluate(f"{GHOST}.text")
    # Back in the zone, a click deploys it as the ghost showed.
    p1.mouse.move(*at(p1, 30, 8))
    until(p1, f"() => {GHOST} && {GHOST}.verdict === 'legal' && {GHOST}.action.y === 8")
    p1.mouse.click(*at(p1, 30, 8))
    until(p1, "() => warfield.store.state.units.u1.status === 'on_table'")
    unit = p1.evaluate("warfield.store.state.units.u1")
    assert unit["files"] == 6 and unit["placement"]["facing"] == 15, unit
    assert (unit["placement"]["x"], unit["placement"]["y"]) == (30, 8), unit
    until(p1, f"() => !{GHOST}")
    assert not pages.errors, pages.errors
