"""Warhammer 40,000 orders in the browser (issue 16 item 6): the Stratagems panel, the charge
against several targets with its Charge move, Strategic Reserves and the arrival from them.

Player 1 (Beast Snagga Boyz led by a Wurrboy, a lone Wurrboy, Boyz) keeps the lone Wurrboy in
Strategic Reserves from the tray (the 10th-edition core rules as docs/rules-decisions.md
"Reserves" records them: any unit, at most a quarter of the army's points). In battle round 1
the led Boyz Advance and player 1 spends 1 CP on Command Re-roll for that Advance roll through
the Stratagems panel (docs/rules-decisions.md "wh40k10 Stratagems": the Advance roll of the
last unit that rolled one, before it moves). In battle round 2 the Wurrboy arrives from
Strategic Reserves with the Arrive tool (wholly within 6 in of an edge, more than 9 in from
every enemy model), and the Boyz, 2.5 in from an Intercessor Squad, charge it through Charge…
(a target clicked on the table, 2D6: any roll reaches, FACTS.md Charge phase) and make the
Charge move with "Move all towards the target", judged by the server's preview, then Confirm.
Player 2 sets the Intercessor Squad's allocation order (the Sergeant first) on its card
(docs/rules-decisions.md "Allocation"). Both players and a spectator see each of these in their
game log. The dice are the game's own:
every step here succeeds whatever they roll. Screenshots at 1280x800 and 390x844 are saved in
the test's tmp_path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.test_battle_ui import rest
from tests.e2e.test_table import READY
from tests.e2e.waits import until

pytestmark = pytest.mark.e2e

LED = {"datasheet": "beast-snagga-boyz", "models": 10, "joined_characters": ["wurrboy"]}
LONE = {"datasheet": "wurrboy", "models": 1}
BOYZ = {"datasheet": "boyz", "models": 10}
SQUAD = {"datasheet": "intercessor-squad", "models": 5}
BASE_IN = 32 / 25.4


def logged(page: Any, words: str) -> None:
    """Wait until the page's game log has a line with `words`."""
    page.wait_for_selector(f"ol.game-log li:has-text({words!r})")


def test_stratagem_charge_and_reserves_through_the_ui(
    server: str, pages: Any, tmp_path: Path
) -> None:
    g = rest(f"{server}/api/games", {"system": "wh40k10", "name": "Orders"})
    seat2 = rest(f"{server}/api/games/{g['id']}/seats", {"invite": g["invite"]})
    tokens = {1: g["token"], 2: seat2["token"]}
    base = f"{server}/api/games/{g['id']}"

    def act(seat: int, action: dict[str, Any]) -> Any:
        return rest(f"{base}/actions", {"action": action}, token=tokens[seat])

    def state() -> Any:
        return rest(base)["state"]

    act(1, {"type": "submit_army", "units": [LED, LONE, BOYZ]})
    act(2, {"type": "submit_army", "units": [SQUAD, SQUAD]})
    units = state()["units"]
    led = next(u for u, v in units.items() if v["datasheet"] == "beast-snagga-boyz")
    lone = next(u for u, v in units.items() if v["datasheet"] == "wurrboy")
    boyz = next(u for u, v in units.items() if v["datasheet"] == "boyz")
    squad, far_squad = sorted(u for u, v in units.items() if v["owner"] == 2)

    url = f"{server}/games/{g['id']}"
    p1 = pages.open("player1", f"{url}#seat=1&token={tokens[1]}")
    p2 = pages.open("player2", f"{url}#seat=2&token={tokens[2]}")
    spectator = pages.open("spectator", url)
    for page in (p1, p2, spectator):
        page.wait_for_function(READY)

    # Deployment: the lone Wurrboy to Strategic Reserves from player 1's tray.
    p1.click(f".tray li[data-unit='{lone}'] button.reserve.strategic:not([disabled])")
    until(p1, "(id) => warfield.store.state.units[id].status === 'reserve'", lone)
    act(2, {"type": "deploy_unit", "unit": squad, "x": 45, "y": 32.7, "facing": 180})
    act(1, {"type": "deploy_unit", "unit": led, "x": 20, "y": 9.5})
    act(2, {"type": "deploy_unit", "unit": far_squad, "x": 12, "y": 38, "facing": 180})
    act(1, {"type": "deploy_unit", "unit": boyz, "x": 45, "y": 10.45})

    def to_phase(seat: int, phase: str, turn: int) -> None:
        for _ in range(30):
            st = state()
            if (st["phase"], st["active_player"], st["turn"]) == (phase, seat, turn):
                return
            act(st["active_player"], {"type": "end_phase"})
        raise AssertionError(f"no {phase} phase of player {seat} in turn {turn}")

    def shift(uid: str, dy: float) -> None:
        now = state()["units"][uid]["positions"]
        act(state()["units"][uid]["owner"],
            {"type": "move_models", "unit": uid, "positions": [[x, y + dy] for x, y in now]})

    def select(page: Any, uid: str) -> None:
        """Click the unit's first model on the table, once the page has the last event."""
        until(page, "(seq) => warfield.store.seq >= seq", rest(base)["seq"])
        x, y = page.evaluate("(id) => warfield.store.state.units[id].positions[0]", uid)
        point = page.evaluate("([x, y]) => warfield.table.clientPoint(x, y)", [x, y])
        page.mouse.click(point["x"], point["y"])
        until(page, "(id) => warfield.table.selected === id", uid)

    # Battle round 1: the led Boyz Advance; Command Re-roll on that roll from the panel.
    to_phase(1, "Movement", 1)
    select(p1, led)
    p1.click("#advance:not([disabled])")
    until(p1, "() => warfield.store.history.some(e => e.type === 'advance_rolled')")
    panel = "#section-stratagems li[data-name='Command Re-roll']"
    p1.wait_for_selector(f"{panel} button.use:not([disabled])")
    assert "the Advance roll of Beast Snagga Boyz" in p1.inner_text(panel)
    p1.screenshot(path=str(tmp_path / "stratagems-1280.png"))
    p1.click(f"{panel} button.use")
    for page in (p1, p2, spectator):
        logged(page, "re-roll the Advance roll")
    # The panel says why it cannot be used again, in words on the disabled button's row.
    p1.wait_for_selector(f"{panel} button.use[disabled]")
    assert "already been used this phase" in p1.inner_text(f"{panel} .why")
    assert "0 CP" in p1.inner_text("#stratagem-cp")
    assert p2.locator("#section-stratagems li.stratagem").count() == 7
    assert spectator.locator("#section-stratagems:not([hidden])").count() == 0
    shift(boyz, 5.95)
    to_phase(2, "Movement", 1)
    shift(squad, -5.95)
    # Player 2 sets the squad's allocation order on its card: the Sergeant first.
    select(p2, squad)
    p2.wait_for_selector("#allocation-order li:has-text('Intercessor Sergeant') button")
    assert "not set" in p2.inner_text("#allocation-order")
    p2.click("#allocation-order li:has-text('Intercessor Sergeant') button")
    for page in (p1, p2, spectator):
        logged(page, "will lose")
    until(p2, "(id) => (warfield.store.state.forty.allocation[id] || [])[0] === "
          "'Intercessor Sergeant'", squad)
    p2.wait_for_selector("#allocation-order:has-text('(set:')")

    # Battle round 2: the Wurrboy arrives from Strategic Reserves with the Arrive tool.
    to_phase(1, "Movement", 2)
    p1.click(f".tray li[data-unit='{lone}'] button.arrive:not([disabled])")
    until(p1, "() => warfield.table.mode === 'arrive' && warfield.table.tools.arrive.base")
    spot = p1.evaluate("() => warfield.table.clientPoint(3, 20)")
    p1.mouse.move(spot["x"], spot["y"])
    until(p1, "() => warfield.table.ghost && warfield.table.ghost.verdict === 'legal'")
    p1.wait_for_selector("#arrive-at input[name=x]")  # the point may be typed in too
    p1.screenshot(path=str(tmp_path / "arrive-1280.png"))
    p1.mouse.click(spot["x"], spot["y"])
    for page in (p1, p2, spectator):
        logged(page, "arrive from Reserves (Strategic Reserves)")
    until(p1, "(id) => warfield.store.state.units[id].status === 'on_table'", lone)

    # The Boyz close to 2.5 in of the squad, then charge it through the UI.
    st = state()["units"]
    gap = min(y for _, y in st[squad]["positions"]) - max(
        y for _, y in st[boyz]["positions"]) - BASE_IN
    shift(boyz, gap - 2.5)
    to_phase(1, "Charge", 2)
    select(p1, boyz)
    p1.click("#forty-charge:not([disabled])")
    p1.wait_for_selector("#charge-targets")
    until(p1, "(seq) => warfield.store.seq >= seq", rest(base)["seq"])
    x, y = p1.evaluate("(id) => warfield.store.state.units[id].positions[2]", squad)
    point = p1.evaluate("([x, y]) => warfield.table.clientPoint(x, y)", [x, y])
    p1.mouse.click(point["x"], point["y"])
    p1.wait_for_selector(f"#charge-targets input[value='{squad}']:checked")
    p1.screenshot(path=str(tmp_path / "charge-targets-1280.png"))
    p1.click("#roll-charge:not([disabled])")
    # Before the roll the charged player is asked, in the moment, about Fire Overwatch; the
    # others read whom the game waits for. Player 2 declines from the keyboard.
    decline = p2.locator("#charge-prompt button[data-reaction='decline']:not([disabled])")
    decline.wait_for()
    for page in (p1, spectator):
        expect(page.locator("#waiting-for")).to_contain_text("Fire Overwatch")
    decline.focus()
    p2.keyboard.press("Enter")
    for page in (p1, p2, spectator):
        logged(page, "make the Charge move (each model up to")
    p1.click("#charge-towards")
    until(p1, "() => warfield.table.ghost && warfield.table.ghost.verdict === 'legal'")
    p1.wait_for_selector("#confirm-charge-move:not([disabled])")
    p1.screenshot(path=str(tmp_path / "charge-move-1280.png"))
    p1.set_viewport_size({"width": 390, "height": 844})
    p1.locator("#charge-move").scroll_into_view_if_needed()
    p1.screenshot(path=str(tmp_path / "charge-move-390.png"))
    p1.set_viewport_size({"width": 1280, "height": 800})
    p1.click("#confirm-charge-move")
    for page in (p1, p2, spectator):
        logged(page, "in) into Intercessor Squad")
        until(page, "() => warfield.store.history.some(e => e.type === 'charge_succeeded')")
    p1.wait_for_selector("#charge-move", state="detached")

    # The same page on a phone.
    phone = pages.open("phone", f"{url}#seat=2&token={tokens[2]}", width=390, height=844)
    phone.wait_for_function(READY)
    phone.wait_for_selector("#section-stratagems li.stratagem")
    phone.screenshot(path=str(tmp_path / "stratagems-390.png"), full_page=True)
    assert not pages.errors, pages.errors
