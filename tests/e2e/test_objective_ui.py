"""The Secondary Objective in the browser (issue 17 item 6): set in the pre-game by either
player from the panel the server's offer fills (the 2nd-edition Secondary Objectives: Hold the
Ground, Breakthrough), seen by the other player as it changes, and shown to everyone, the
spectator included, once the battle is on.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.test_battle_ui import rest
from tests.e2e.test_table import READY
from tests.e2e.waits import until

pytestmark = pytest.mark.e2e


def test_players_set_the_secondary_objective_and_everyone_sees_it(server: str, pages: Any) -> None:
    g = rest(f"{server}/api/games", {"system": "t9a", "name": "Objectives"})
    seat2 = rest(f"{server}/api/games/{g['id']}/seats", {"invite": g["invite"]})
    tokens = {1: g["token"], 2: seat2["token"]}

    def act(seat: int, action: dict[str, Any]) -> Any:
        return rest(f"{server}/api/games/{g['id']}/actions", {"action": action},
                    token=tokens[seat])

    base = f"{server}/games/{g['id']}"
    p1 = pages.open("player1", f"{base}#seat=1&token={tokens[1]}")
    p2 = pages.open("player2", f"{base}#seat=2&token={tokens[2]}")
    for page in (p1, p2):
        page.wait_for_function(READY)
        page.wait_for_selector("#objective:not([hidden]) #secondary-objective")
        until(page, "() => document.querySelector('#secondary-objective-current')"
                    ".textContent.includes('Not set yet')")

    # Player 1 reads what Breakthrough asks and sets it; player 2 sees it set.
    p1.select_option("#secondary-objective", "breakthrough")
    until(p1, "() => document.querySelector('#secondary-objective-text').textContent"
              ".includes(\"opponent's Deployment Zone\")")
    p1.click("#secondary-objective-set")
    until(p2, "() => document.querySelector('#secondary-objective-current').textContent"
              ".includes('Set for this game: Breakthrough')")
    until(p2, "() => document.querySelector('#secondary-objective').value === 'breakthrough'")
    p2.wait_for_selector(".game-log li:has-text('sets the Secondary Objective: Breakthrough')")

    # Player 2 changes it by keyboard: the last choice stands.
    p2.focus("#secondary-objective")
    p2.select_option("#secondary-objective", "hold_the_ground")
    p2.keyboard.press("Tab")
    p2.keyboard.press("Enter")
    until(p1, "() => document.querySelector('#secondary-objective-current').textContent"
              ".includes('Set for this game: Hold the Ground')")

    # The battle starts: the choice is gone, the objective and its counters are shown to all.
    act(1, {"type": "submit_army", "units": [{"datasheet": "citizen-spears", "models": 20}]})
    act(2, {"type": "submit_army", "units": [{"datasheet": "mageblight-gremlin", "models": 3}]})
    places = {1: (30.0, 10.0, 0.0), 2: (30.0, 38.0, 180.0)}
    for _ in range(2):
        state = rest(f"{server}/api/games/{g['id']}")["state"]
        seat = state["deploying"]
        uid = next(u["id"] for u in state["units"].values()
                   if u["owner"] == seat and u["status"] == "undeployed")
        x, y, facing = places[seat]
        act(seat, {"type": "deploy_unit", "unit": uid, "x": x, "y": y, "facing": facing})
    spectator = pages.open("spectator", base, width=390, height=844)
    spectator.wait_for_function(READY)
    for page in (p1, p2, spectator):
        until(page, "() => warfield.store.state.stage === 'battle'")
        until(page, "() => { const el = document.querySelector('#objective');"
                    " return el && !el.hidden && el.textContent.includes("
                    "'Hold the Ground: counters Player 1 0 – Player 2 0'); }")
        assert page.locator("#secondary-objective-set").is_hidden()
    assert not pages.errors, pages.errors


def test_a_t9a_game_ends_with_its_result_on_every_page(server: str, pages: Any) -> None:
    """Issue 17 item 6 in the browser for t9a: the game's end shows both scores and the
    result to both players and a spectator, on the end panel and in the log. Player 2
    concedes (docs/rules-decisions.md "Results": the conceding army counts as destroyed):
    the Gremlins' 100 + 3 x 25 = 175 Victory Points to player 1, more than 50% of the Army
    Points (245, the larger army): a Massacre (the simplified rules)."""
    g = rest(f"{server}/api/games", {"system": "t9a", "name": "The end"})
    seat2 = rest(f"{server}/api/games/{g['id']}/seats", {"invite": g["invite"]})
    tokens = {1: g["token"], 2: seat2["token"]}

    def act(seat: int, action: dict[str, Any]) -> Any:
        return rest(f"{server}/api/games/{g['id']}/actions", {"action": action},
                    token=tokens[seat])

    act(1, {"type": "choose_secondary_objective", "objective": "breakthrough"})
    act(1, {"type": "submit_army", "units": [{"datasheet": "citizen-spears", "models": 20}]})
    act(2, {"type": "submit_army", "units": [{"datasheet": "mageblight-gremlin", "models": 3}]})
    places = {1: (30.0, 10.0, 0.0), 2: (30.0, 38.0, 180.0)}
    for _ in range(2):
        state = rest(f"{server}/api/games/{g['id']}")["state"]
        seat = state["deploying"]
        uid = next(u["id"] for u in state["units"].values()
                   if u["owner"] == seat and u["status"] == "undeployed")
        x, y, facing = places[seat]
        act(seat, {"type": "deploy_unit", "unit": uid, "x": x, "y": y, "facing": facing})
    base = f"{server}/games/{g['id']}"
    p1 = pages.open("player1", f"{base}#seat=1&token={tokens[1]}")
    p2 = pages.open("player2", f"{base}#seat=2&token={tokens[2]}")
    spectator = pages.open("spectator", base, width=390, height=844)
    for page in (p1, p2, spectator):
        page.wait_for_function(READY)
        until(page, "() => warfield.store.state.stage === 'battle'")

    act(2, {"type": "concede"})
    headings = {p1: "You win (Massacre)", p2: "You lose: Player 1 wins (Massacre)",
                spectator: "Player 1 wins (Massacre)"}
    for page, heading in headings.items():
        until(page, "() => warfield.store.state.stage === 'over'")
        page.wait_for_selector("section.game-result")
        panel = page.inner_text("section.game-result")
        for words in (heading, "Victory Points", "175", "Win", "Loss", "Player 2 conceded"):
            assert words in panel, (words, panel)
        page.wait_for_selector(".game-log li:has-text('Player 1 wins (Massacre): 175 - 0 "
                               "Victory Points')")
    assert not pages.errors, pages.errors
