"""Ambush in the browser (seed 000: Ambush and the Mageblight Gremlins' own rule; issue 6).

Player 1 keeps Mageblight Gremlins in Ambush; player 2 logs two spells (and a failed one) in
their Magic Phase through the panel's form; in player 1's Movement Phase of Game Turn 2 the
roll is in the log with its Maximised dice; the Gremlins arrive through the Arrive tool (edge
point, 6 in zone, snapped ghost, drag, R, Enter) and stand on the table in both players' and a
spectator's canvas. Phases that are not under test are ended over REST to keep it short.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_battle_ui import rest
from tests.e2e.test_table import READY, at, drag
from tests.e2e.waits import expect, until, until_equal

pytestmark = pytest.mark.e2e


def _setup(server: str) -> dict[str, Any]:
    g = rest(f"{server}/api/games", {"system": "t9a", "name": "Gremlins in Ambush"})
    seat2 = rest(f"{server}/api/games/{g['id']}/seats", {"invite": g["invite"]})
    tokens = {1: g["token"], 2: seat2["token"]}

    def act(seat: int, action: dict[str, Any]) -> Any:
        return rest(f"{server}/api/games/{g['id']}/actions", {"action": action},
                    token=tokens[seat])

    def state() -> dict[str, Any]:
        body: dict[str, Any] = rest(f"{server}/api/games/{g['id']}")["state"]
        return body

    act(1, {"type": "submit_army", "units": [{"datasheet": "mageblight-gremlin", "models": 3}]})
    act(2, {"type": "submit_army", "units": [{"datasheet": "citizen-spears", "models": 20}]})
    units = state()["units"]
    gremlins = next(u for u in units if units[u]["owner"] == 1)
    spears = next(u for u in units if units[u]["owner"] == 2)
    act(1, {"type": "declare_reserve", "unit": gremlins, "mode": "ambush"})
    act(2, {"type": "deploy_unit", "unit": spears, "x": 36, "y": 40, "facing": 180})
    return {"id": g["id"], "act": act, "state": state, "gremlins": gremlins, "tokens": tokens}


def _end_phases_until(g: dict[str, Any], seat: int, phase: str) -> dict[str, Any]:
    """End phases over REST, as whoever is active, until `seat`'s `phase`."""
    for _ in range(12):
        st: dict[str, Any] = g["state"]()
        if st["active_player"] == seat and st["phase"] == phase:
            return st
        g["act"](st["active_player"], {"type": "end_phase"})
    raise AssertionError(f"never reached player {seat}'s {phase} phase")


def test_gremlins_arrive_from_ambush_through_the_ui(
    server: str, pages: Any, tmp_path: Path
) -> None:
    g = _setup(server)
    gid, grem = g["id"], g["gremlins"]
    url = f"{server}/games/{gid}"

    # Player 2's Magic Phase of Game Turn 1: two spells cast and one failed, through the form.
    _end_phases_until(g, 2, "Magic")
    p2 = pages.open("player2", f"{url}#seat=2&token={g['tokens'][2]}")
    p2.wait_for_function(READY)
    p2.wait_for_selector("#magic:not([hidden]) .spell-form")
    expect(p2.locator("#magic")).to_contain_text("not automated")
    for spell, button in (("Fireball", "#spell-cast"), ("Hex", "#spell-failed"),
                          ("Bolt", "#spell-cast")):
        p2.fill("#magic input[name=spell]", spell)
        p2.click(button)
        p2.wait_for_selector(f"#magic .spell-list li:has-text('{spell}')")
    p2.wait_for_selector("#spell-tally:has-text('cast 2 spells, 1 failed')")
    p2.locator("#magic").screenshot(path=str(tmp_path / "magic-panel.png"))

    # Player 1's page and a spectator; Game Turn 2, player 1's Movement Phase: the roll.
    p1 = pages.open("player1", f"{url}#seat=1&token={g['tokens'][1]}")
    spectator = pages.open("spectator", url)
    for page in (p1, spectator):
        page.wait_for_function(READY)
    p1.wait_for_selector(f"li[data-unit='{grem}'] .ambush-status:has-text('in Ambush')")
    # The other player and spectators see the tally, not the form.
    p1.wait_for_selector("#spell-tally:has-text('Player 2 cast 2 spells, 1 failed')")
    expect(p1.locator("#magic .spell-form")).to_be_hidden()
    st = _end_phases_until(g, 1, "Movement")
    assert st["turn"] == 2
    p1.wait_for_selector(".game-log li:has-text('Maximised x2')")
    roll = until(p1, """(id) => warfield.store.history.find(
             e => e.type === 'ambush_rolled' && e.payload.unit === id).payload""", grem)
    assert roll["maximised"] == 2 and len(roll["roll"]["dice"]) == 3
    assert sum(1 for d in roll["roll"]["dice"] if d["kept"]) == 1
    # Every die in the dice panel, the discarded two included.
    faces = p1.locator(".dice-log li").filter(has_text="Ambush").first.locator(".die")
    expect(faces).to_have_count(3)
    # A failed roll (1 in 27 with Maximised x2) waits for the next turn; Turn 5 is automatic.
    while "ambush_ready" not in g["state"]()["units"][grem]["markers"]:
        g["act"](1, {"type": "end_phase"})
        st = _end_phases_until(g, 1, "Movement")
        assert st["turn"] <= 5
    status = f"li[data-unit='{grem}'] .ambush-status:has-text('rolled to arrive')"
    p1.wait_for_selector(status)
    spectator.wait_for_selector(status)

    # The Arrive tool: the pointer snaps to the edge; the zone and the snapped ghost show.
    p1.click(f"li[data-unit='{grem}'] button.arrive")
    until_equal(p1, "warfield.table.mode", "ambush")
    p1.mouse.move(*at(p1, 24.03, 2.5))
    p1.wait_for_function(
        "warfield.table.ambush.zone && warfield.table.ghost"
        " && warfield.table.ghost.verdict === 'legal'"
    )
    until_equal(p1, "warfield.table.ambush.point", {"x": 24, "y": 0, "edge": "near"})
    p1.mouse.click(*at(p1, 30.0, 1.0))  # fixes the point (30, 0)
    p1.wait_for_function(
        "warfield.table.ambush.fixed && warfield.table.ambush.point.x === 30"
        " && warfield.table.ambush.placement && warfield.table.ghost.verdict === 'legal'"
    )
    # Drag the ghost 10 in into the table: too far (3 of 4 corners within 6 in), so it snaps
    # back to the nearest valid placement, the asked-for outline dashed beside it.
    ghost = p1.evaluate("[warfield.table.ghost.x, warfield.table.ghost.y]")
    drag(p1, (ghost[0], ghost[1]), (ghost[0], ghost[1] + 10))
    # ... the snapped placement stays within the 6 in zone (its edge point is 0 in deep).
    until(p1, "(y) => warfield.table.ghost && /Snapped to the nearest valid placement/"
              ".test(warfield.table.ghost.text) && /3 of 4 corners/.test(warfield.table.ghost.text)"
              " && warfield.table.ambush.placement.y < y", ghost[1] + 7)
    p1.keyboard.press("r")  # turn 15 degrees
    p1.wait_for_function(
        "warfield.table.ambush.shown && warfield.table.ambush.shown.facing === 15"
        " && warfield.table.ghost.verdict === 'legal' && warfield.table.ghost.facing === 15"
    )
    p1.screenshot(path=str(tmp_path / "ambush-ghost.png"))
    final = p1.evaluate("warfield.table.ambush.placement")
    p1.keyboard.press("Enter")

    # On the table for everyone: player 1, player 2 and the spectator draw it.
    for page in (p1, p2, spectator):
        page.wait_for_function(
            """(id) => { const u = warfield.store.state.units[id];
                         return u && u.status === 'on_table'
                           && warfield.table.currentScene().pieces.some(p => p.id === id); }""",
            arg=grem,
        )
    unit = g["state"]()["units"][grem]
    assert unit["placement"] == pytest.approx(final, abs=1e-3)
    until_equal(p1, "warfield.table.mode", "idle")
    p1.wait_for_selector(".game-log li:has-text('arrive from Ambush')")
    expect(p1.locator(f"li[data-unit='{grem}']")).to_be_hidden()
    p1.screenshot(path=str(tmp_path / "ambush-arrived.png"))
    spectator.screenshot(path=str(tmp_path / "ambush-spectator.png"))
    assert pages.errors == []
