"""Roll-offs in the browser (issue 19 item 6): a t9a game made in the lobby with its default,
"Roll-offs, as the rules say". The deployment roll-off's dice and outcome reach both players
and a spectator; its winner decides from the Roll-offs panel who deploys first (The Ninth Age
2022: the winner decides who is the Defender, the Attacker deploys first); the player who
deploys their whole army first chooses at once who has the first Player Turn, and the battle
begins with that player.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.test_battle_ui import rest
from tests.e2e.test_table import READY, create_game_in_lobby
from tests.e2e.waits import until

pytestmark = pytest.mark.e2e


def test_the_roll_off_winner_chooses_and_the_first_to_deploy_picks_the_first_turn(
    server: str, pages: Any
) -> None:
    p1 = pages.open("player1", server + "/")
    links = create_game_in_lobby(p1, "Roll-offs", pregame="roll_offs")
    p1.click("#open-player1")
    p1.wait_for_function(READY)
    game_id = p1.evaluate("warfield.gameId")
    invite = re.search(r"#join=([^&]+)", links["invite"])
    assert invite, links["invite"]
    seat2 = rest(f"{server}/api/games/{game_id}/seats", {"invite": invite.group(1)})
    tokens = {1: p1.evaluate("warfield.conn.token"), 2: seat2["token"]}
    base = f"{server}/games/{game_id}"
    p2 = pages.open("player2", f"{base}#seat=2&token={tokens[2]}")
    spectator = pages.open("spectator", base, width=390, height=844)
    everyone = [p1, p2, spectator]
    for page in everyone:
        page.wait_for_function(READY)

    def act(seat: int, action: dict[str, Any]) -> Any:
        return rest(f"{server}/api/games/{game_id}/actions", {"action": action},
                    token=tokens[seat])

    act(1, {"type": "submit_army", "units": [{"datasheet": "citizen-spears", "models": 20},
                                             {"datasheet": "citizen-archers", "models": 10}]})
    act(2, {"type": "submit_army", "units": [{"datasheet": "mageblight-gremlin", "models": 3}]})

    # Everyone reads the roll-off; the winner alone has the choice.
    for page in everyone:
        page.wait_for_selector("#pregame:not([hidden]) li:has-text('Roll-off for deployment')")
        page.wait_for_selector(".game-log li:has-text('Roll-off for deployment')")
    state = rest(f"{server}/api/games/{game_id}")["state"]
    winner = state["pregame"]["pending"]["seat"]
    pages_of = {1: p1, 2: p2}
    chooser, other = pages_of[winner], pages_of[3 - winner]
    chooser.wait_for_selector("#pregame li:has-text('decides which player is the Defender')")
    chooser.wait_for_selector("#pregame-question:has-text('Who deploys first?')")
    other.wait_for_selector(f"#pregame-waiting:has-text('Waiting for Player {winner}')")
    spectator.wait_for_selector(f"#pregame-waiting:has-text('Waiting for Player {winner}')")
    assert other.locator("#pregame button[data-first]").count() == 0
    # The winner makes Player 2 deploy first (the keyboard: focus the button, Enter).
    chooser.focus("#pregame button[data-first='2']")
    chooser.keyboard.press("Enter")
    for page in everyone:
        until(page, "() => warfield.store.state.deploying === 2")
    # Player 2 deploys the Gremlins, their whole army: they choose the first turn at once.
    act(2, {"type": "deploy_unit", "unit": "u3", "x": 30, "y": 40, "facing": 180})
    p2.wait_for_selector("#pregame-question:has-text('Who takes the first turn?')")
    p1.wait_for_selector("#pregame-waiting:has-text('Waiting for Player 2 to choose who takes')")
    p2.click("#pregame button[data-first='1']")
    for page in everyone:
        page.wait_for_selector(".game-log li:has-text('Player 2 chooses Player 1 to take the first"
                               " turn')")
    act(1, {"type": "deploy_unit", "unit": "u1", "x": 20, "y": 6})
    act(1, {"type": "deploy_unit", "unit": "u2", "x": 50, "y": 6})
    for page in everyone:
        until(page, "() => warfield.store.state.stage === 'battle'"
                    " && warfield.store.state.active_player === 1")
        until(page, "() => document.querySelector('#pregame').hidden")
    # The roll-off's dice are in the dice log with their reason.
    p1.wait_for_selector(".dice-log li:has-text('Roll-off')")
    assert not pages.errors, pages.errors
