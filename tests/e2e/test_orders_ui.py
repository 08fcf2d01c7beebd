"""Orders in the browser (t9a): a free move and an undo by agreement, a charge that waits for the
Charge Reaction (Flee! refused to the Fearless Gremlins, seed 000), shooting at the Gremlins
(Hard Target), a round of melee (Distracting, Poison Attacks) shown in the combat report, and a
Flee! taken by a unit that is not Fearless.

One game: player 1 (Citizen Spears and Archers) and player 2 (two units of Mageblight Gremlins)
each on their own page, and a spectator. The armies and deployment go over REST; every order
under test is clicked in the pages.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_battle_ui import rest
from tests.e2e.test_table import READY, at
from tests.e2e.waits import expect, until

pytestmark = pytest.mark.e2e

SPEARS, ARCHERS, GREMLINS_A, GREMLINS_B = "u1", "u2", "u3", "u4"
PLACES = {  # front-edge centre, facing
    SPEARS: (20.0, 10.0, 0.0),
    ARCHERS: (52.0, 10.0, 0.0),
    GREMLINS_A: (20.0, 38.0, 180.0),
    GREMLINS_B: (52.0, 38.0, 180.0),
}


def t9a_game(server: str) -> dict[str, Any]:
    g = rest(f"{server}/api/games", {"system": "t9a", "name": "Orders"})
    seat2 = rest(f"{server}/api/games/{g['id']}/seats", {"invite": g["invite"]})
    tokens = {1: g["token"], 2: seat2["token"]}

    def act(seat: int, action: dict[str, Any]) -> Any:
        return rest(f"{server}/api/games/{g['id']}/actions", {"action": action},
                    token=tokens[seat])

    act(1, {"type": "submit_army", "units": [
        {"datasheet": "citizen-spears", "models": 20},
        {"datasheet": "citizen-archers", "models": 10}]})
    act(2, {"type": "submit_army", "units": [
        {"datasheet": "mageblight-gremlin", "models": 3},
        {"datasheet": "mageblight-gremlin", "models": 3}]})
    units = rest(f"{server}/api/games/{g['id']}")["state"]["units"]
    assert {u["id"]: u["owner"] for u in units.values()} == {SPEARS: 1, ARCHERS: 1,
                                                            GREMLINS_A: 2, GREMLINS_B: 2}
    left = dict(PLACES)
    while left:
        state = rest(f"{server}/api/games/{g['id']}")["state"]
        seat = state["deploying"]
        uid = next(u for u in left if units[u]["owner"] == seat)
        x, y, facing = left.pop(uid)
        act(seat, {"type": "deploy_unit", "unit": uid, "x": x, "y": y, "facing": facing})
    state = rest(f"{server}/api/games/{g['id']}")["state"]
    assert state["stage"] == "battle" and state["phase"] == "Charge", state.get("phase")
    base = f"{server}/games/{g['id']}"
    return {"id": g["id"], "act": act, "p1": f"{base}#seat=1&token={tokens[1]}",
            "p2": f"{base}#seat=2&token={tokens[2]}", "spectate": base}


def placement_when(page: Any, uid: str, condition: str) -> dict[str, float]:
    """The unit's placement `p` once the JavaScript `condition` on it holds."""
    found: dict[str, float] = until(
        page, f"(id) => {{ const p = warfield.store.state.units[id].placement;"
              f" return ({condition}) && p; }}", uid)
    return found


def all_pages(pages_: list[Any], script: str, arg: Any = None) -> None:
    for page in pages_:
        until(page, script, arg)


def test_charge_reaction_undo_shooting_and_melee(server: str, pages: Any, tmp_path: Path) -> None:
    g = t9a_game(server)
    p1 = pages.open("player1", g["p1"])
    p2 = pages.open("player2", g["p2"])
    spectator = pages.open("spectator", g["spectate"], width=390, height=844)
    everyone = [p1, p2, spectator]
    for page in everyone:
        page.wait_for_function(READY)

    # --- Free move by agreement: the Spears are put 3 in in front of the Gremlins. ----------
    p1.mouse.click(*at(p1, 20, 8.5))
    p1.wait_for_selector("#free-move")
    p1.click("#free-move")
    p1.mouse.move(*at(p1, 20, 30))
    p1.mouse.click(*at(p1, 20, 33.4))
    p1.wait_for_function("warfield.table.ghost && warfield.table.ghost.verdict === 'legal'")
    p1.click("#propose-free-move")
    p2.wait_for_selector("#proposal-banner:has-text('a free move of Citizen Spears')")
    spectator.wait_for_selector("#proposal-banner")
    expect(spectator.locator("#accept-proposal")).to_have_count(0)
    p2.click("#accept-proposal")
    all_pages(everyone, "(id) => warfield.store.state.units[id].placement.y > 34", SPEARS)
    moved = placement_when(p1, SPEARS, "p.y > 34")
    assert abs(moved["y"] - 35) < 0.3 and abs(moved["x"] - 20) < 0.3, moved
    spectator.wait_for_selector(".game-log li:has-text('moved by agreement')")

    # --- Charge: player 2 reacts; Flee! is refused by Fearless, with the rule's reason. ------
    def charge() -> None:
        p1.mouse.click(*at(p1, 20, 33.4))
        p1.wait_for_selector("#charge")
        p1.click("#charge")
        p1.mouse.click(*at(p1, 20, 39))
        p1.click("#declare-charge:not([disabled])")  # after the server's preview (issue 19)
        p2.wait_for_selector("#charge-prompt button[data-reaction=hold]:not([disabled])")

    charge()
    p1.wait_for_selector("#charge-prompt:has-text('Waiting for Player 2')")
    spectator.wait_for_selector(
        "#charge-prompt:has-text('declare a charge on Mageblight Gremlin')")
    flee = p2.locator("#charge-prompt button[data-reaction=flee]")
    expect(flee).to_be_disabled()
    expect(flee).to_have_attribute("title", re.compile("Fearless"))
    expect(p2.locator("#charge-prompt .refused[data-reaction=flee]")).to_contain_text("Fearless")
    expect(p1.locator(".toasts")).not_to_contain_text("Charge failed")
    p2.screenshot(path=str(tmp_path / "player2-reaction.png"))
    p2.click("#charge-prompt button[data-reaction=hold]")
    for page in everyone:
        page.wait_for_selector(".game-log li:has-text('charge succeeded')")
        page.wait_for_selector("#combat-report details.charge:has-text('Hold')")
    expect(p1.locator("#charge-prompt")).to_have_count(0)
    placement_when(p1, SPEARS, f"p.y > {moved['y'] + 1}")
    p1.screenshot(path=str(tmp_path / "player1-charged.png"))

    # --- Undo by agreement: player 2 takes back their own last action, the Hold and the charge
    # it rolled (issue 19: a player undoes only their own actions since the opponent last
    # acted); every page shows the Spears back, the charge waiting for its reaction again.
    expect(p1.locator("#propose-undo")).to_be_disabled()
    p2.wait_for_selector("#propose-undo:not([disabled])")
    expect(p2.locator("#agreement .undo-what")).to_contain_text("Hold")
    p2.click("#propose-undo")
    p1.wait_for_selector("#proposal-banner:has-text('undo')")
    p1.click("#accept-proposal")
    all_pages(everyone,
              "([id, y]) => Math.abs(warfield.store.state.units[id].placement.y - y) < 0.01",
              [SPEARS, moved["y"]])
    all_pages(everyone, "(id) => !warfield.store.state.units[id].engaged_with", SPEARS)
    for page in everyone:
        page.wait_for_selector(".game-log li.undone", state="attached")
        page.wait_for_selector(".game-log li:has-text('Undone by agreement')")
    spectator.screenshot(path=str(tmp_path / "spectator-undone.png"))

    # Hold again (the dice go on from where they were: the charge still reaches 3 in).
    p2.wait_for_selector("#charge-prompt button[data-reaction=hold]:not([disabled])")
    p2.click("#charge-prompt button[data-reaction=hold]")
    p1.wait_for_function("(id) => warfield.store.state.units[id].engaged_with", arg=SPEARS)
    p1.wait_for_selector(".game-log li:has-text('a re-roll')")

    # --- Shooting Phase: the Archers shoot the other Gremlins: Hard Target in the report. ----
    for _ in range(3):
        g["act"](1, {"type": "end_phase"})
    p1.wait_for_function("warfield.store.state.phase === 'Shooting'")
    p1.mouse.click(*at(p1, 52, 8.5))
    p1.wait_for_selector("#shoot")
    p1.click("#shoot")
    p1.mouse.click(*at(p1, 52, 39))
    for page in (p1, spectator):
        page.wait_for_selector("#combat-report details.shooting[open]"
                               " .rule-line:has-text('Hard Target (1): -1 to hit')")
    hit = p1.locator("#combat-report details.shooting .report-line.step-to_hit")
    expect(hit).to_contain_text("needed 6+")
    expect(hit).to_contain_text("Long Range")

    # --- Melee Phase: Fight: Distracting on the Spears' attacks, Poison on the Gremlins'. ----
    g["act"](1, {"type": "end_phase"})
    p1.wait_for_function("warfield.store.state.phase === 'Melee'")
    p1.mouse.click(*at(p1, 20, 36.5))  # the Spears in contact: front edge at 38 in
    p1.wait_for_selector("#fight")
    p1.click("#fight")
    p2.wait_for_selector("#combat-report details.melee[open] .rule-line:has-text('Distracting')")
    melee = p2.locator("#combat-report details.melee")
    expect(melee).to_contain_text("Combat score")
    # A success is marked by a tick and in words, not only by its green (issue 24 item 3).
    assert melee.locator(".die.met").count() > 0
    expect(melee.locator(".die.met:not(:has(.tick:text-is('✓')))")).to_have_count(0)
    expect(melee.locator(".die.met:not(:has(.sr-only:text-is('(success)')))")).to_have_count(0)
    expect(melee.locator(".die:not(.met) .tick")).to_have_count(0)
    gremlin_faces = p2.evaluate("""() => warfield.store.history
        .filter(e => e.type === 'attack_step' && e.payload.step === 'to_hit'
                && e.payload.unit === 'u3')
        .flatMap(e => e.payload.roll ? e.payload.roll.dice.map(d => d.face) : [])""")
    if 6 in gremlin_faces:  # a natural 6 to hit: Poison Attacks (15 attacks: 93.5 %)
        expect(melee).to_contain_text("Poison Attacks")
    p2.screenshot(path=str(tmp_path / "player2-melee.png"))
    p2.locator("#combat-report").screenshot(path=str(tmp_path / "player2-combat-report.png"))
    p1.screenshot(path=str(tmp_path / "player1-melee.png"))

    # --- Player 2's turn: the Gremlins charge the Archers, who are not Fearless: Flee! -------
    g["act"](1, {"type": "end_phase"})
    p2.wait_for_function("warfield.store.state.active_player === 2"
                         " && warfield.store.state.phase === 'Charge'")
    # Agreed over REST: the Archers stand 16 in from the Gremlins, so a flight (2D6) neither
    # leaves the table nor can be caught (3D6 keep 2 + 5 < 16 + 2).
    g["act"](1, {"type": "propose", "kind": "free_move", "unit": ARCHERS, "x": 52, "y": 22,
                 "facing": 0})
    g["act"](2, {"type": "accept_proposal"})
    p2.wait_for_function("(id) => warfield.store.state.units[id].placement.y === 22", arg=ARCHERS)
    p2.mouse.click(*at(p2, 52, 39))
    p2.wait_for_selector("#charge")
    p2.click("#charge")
    p2.mouse.click(*at(p2, 52, 21))
    p2.click("#declare-charge:not([disabled])")
    p1.wait_for_selector("#charge-prompt button[data-reaction=flee]:not([disabled])")
    p1.click("#charge-prompt button[data-reaction=flee]")
    for page in everyone:
        page.wait_for_selector(".game-log li:has-text('Citizen Archers flee')")
        page.wait_for_selector("#combat-report details.charge[open]:has-text('Flee!')")
    p1.wait_for_function("(id) => warfield.store.state.units[id].markers.includes('fleeing')",
                         arg=ARCHERS)
    p1.mouse.click(*at(p1, *p1.evaluate(
        "(id) => warfield.store.state.units[id].footprint.features[0].properties.centre",
        ARCHERS)))
    p1.wait_for_selector(".selected.unit .badge.marker-fleeing")
    p1.screenshot(path=str(tmp_path / "player1-fled.png"))
    assert pages.errors == []
