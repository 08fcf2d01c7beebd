"""Issue 19 items 8 and 9 in the browser: an honest connection state (a dropped socket shows a
banner, disables the controls and tells the opponent the player is offline; all comes back by
itself on reconnect) and the game's own buttons (dice proof, concede, export)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.test_battle_ui import rest
from tests.e2e.waits import expect, until, until_equal

pytestmark = pytest.mark.e2e

READY = "window.warfield && window.warfield.store.state && window.warfield.conn.status === 'online'"


def two_players(server: str, pages: Any) -> tuple[str, Any, Any]:
    api = f"{server}/api"
    made = rest(f"{api}/games", {"system": "t9a", "name": "Connection"})
    gid = made["id"]
    p2 = rest(f"{api}/games/{gid}/seats", {"invite": made["invite"]})["token"]
    one = pages.open("player1", f"{server}/games/{gid}#seat=1&token={made['token']}")
    two = pages.open("player2", f"{server}/games/{gid}#seat=2&token={p2}")
    for page in (one, two):
        page.wait_for_function(READY)
    return gid, one, two


def test_a_dropped_socket_shows_a_banner_disables_controls_and_comes_back(
    server: str, pages: Any
) -> None:
    _gid, one, two = two_players(server, pages)
    expect(two.locator("#presence")).to_contain_text("Player 1 online")
    expect(one.locator("#concede")).to_be_enabled()
    one.wait_for_selector("#preset-village")
    expect(one.locator("#offline-banner")).to_be_hidden()

    # The network goes away and the socket with it; reconnects fail while offline.
    one.context.set_offline(True)
    one.evaluate("() => warfield.conn.ws && warfield.conn.ws.close()")
    expect(one.locator("#offline-banner")).to_be_visible()
    expect(one.locator("#offline-banner")).to_contain_text("reconnecting")
    expect(one.locator("#concede")).to_be_disabled()
    expect(one.locator("#preset-village")).to_be_disabled()
    expect(one.locator("#presence")).to_contain_text("You are offline")
    # The opponent's presence line shows player 1 offline.
    expect(two.locator("#presence")).to_contain_text("Player 1 offline")

    # The network comes back: the client reconnects by itself and gives the controls back.
    one.context.set_offline(False)
    one.wait_for_function(READY)
    expect(one.locator("#offline-banner")).to_be_hidden()
    expect(one.locator("#concede")).to_be_enabled()
    expect(one.locator("#preset-village")).to_be_enabled()
    expect(two.locator("#presence")).to_contain_text("Player 1 online")


def test_dice_proof_concede_and_export_have_buttons(server: str, pages: Any) -> None:
    gid, one, two = two_players(server, pages)
    # Dice proof: the commitment while the game runs.
    one.click("#dice-proof-button")
    expect(one.locator(".toasts")).to_contain_text("Dice commitment")
    # Export waits for the end; concede is a player's button (with a confirmation).
    expect(one.locator("#export")).to_be_disabled()
    one.once("dialog", lambda dialog: dialog.accept())
    one.click("#concede")
    until(one, "() => warfield.store.state.over === true")
    until_equal(two, "() => warfield.store.state.over", True)
    expect(one.locator("#concede")).to_be_hidden()
    expect(one.locator("#export")).to_be_enabled()
    with one.expect_download() as download:
        one.click("#export")
    path = download.value.path()
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert "warfield-game/1" in text and gid in text
    # After the end the proof verifies every roll against the revealed seed.
    one.click("#dice-proof-button")
    expect(one.locator(".toasts")).to_contain_text("verified against the revealed seed")
