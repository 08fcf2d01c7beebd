"""Issue 20 item 1 in the browser: a finished game scrubbed back and forth in
`/games/{id}/replay#seq=N` as a spectator; the table shows the server's state at each seq,
the step's words and dice beside it, the luck charts and the dice proof."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.test_battle_ui import rest
from tests.e2e.waits import expect, until, until_equal

pytestmark = pytest.mark.e2e

SHOWN = "() => warfield.replay.shown"


def finished_game(server: str) -> tuple[str, int]:
    """A t9a game over REST: armies, deployment, two turns with shooting, then a concession."""
    api = f"{server}/api"
    made = rest(f"{api}/games", {"system": "t9a", "name": "Replay me"})
    gid, p1 = made["id"], made["token"]
    p2 = rest(f"{api}/games/{gid}/seats", {"invite": made["invite"]})["token"]
    tokens = {1: p1, 2: p2}

    def act(seat: int, **action: Any) -> None:
        rest(f"{api}/games/{gid}/actions", {"action": action}, tokens[seat])

    act(1, type="submit_army", units=[{"datasheet": "citizen-spears", "models": 20, "files": 5}])
    act(2, type="submit_army", units=[{"datasheet": "citizen-archers", "models": 10, "files": 5}])
    units = rest(f"{api}/games/{gid}")["state"]["units"]
    ids = {u["owner"]: uid for uid, u in units.items()}
    act(1, type="deploy_unit", unit=ids[1], x=30, y=11, facing=0)
    act(2, type="deploy_unit", unit=ids[2], x=30, y=37, facing=180)
    for _ in range(16):
        state = rest(f"{api}/games/{gid}")["state"]
        seat, phase = state["active_player"], state["phase"]
        if seat == 2 and phase == "Shooting":
            act(2, type="shoot", unit=ids[2], target=ids[1])
        act(seat, type="end_phase")
    act(1, type="concede")
    return gid, rest(f"{api}/games/{gid}")["seq"]


def test_scrubbing_a_finished_game_back_and_forth(server: str, pages: Any) -> None:
    gid, last = finished_game(server)
    shot = next(e["seq"] for e in rest(f"{server}/api/games/{gid}/events")["events"]
                if e["type"] == "shots_fired")
    page = pages.open("spectator", f"{server}/games/{gid}/replay#seq={shot}")
    until_equal(page, SHOWN, shot)
    expected = rest(f"{server}/api/games/{gid}/state?at={shot}")["state"]
    until_equal(page, "() => warfield.replay.state", expected)
    expect(page.locator("#replay-text")).to_contain_text("shoot")
    expect(page.locator("#replay-combat")).to_contain_text("Citizen Archers")

    # One event forward: the first attack step, its dice beside the table.
    page.click("#event-forward")
    until_equal(page, SHOWN, shot + 1)
    expect(page.locator("#replay-dice")).to_contain_text("D6")
    assert page.evaluate("location.hash") == f"#seq={shot + 1}"

    # Back by phase: the start of the Shooting phase, then the phase before it.
    page.click("#phase-back")
    until(page, "(s) => warfield.replay.shown < s", shot)
    start = page.evaluate(SHOWN)
    starts = page.evaluate("warfield.replay.starts()")
    assert start in starts
    page.click("#phase-back")
    until(page, "(s) => warfield.replay.shown < s", start)
    earlier = page.evaluate(SHOWN)
    assert earlier in starts

    # The scrubber: to the very start (nothing deployed) and to the end (the game is over).
    page.evaluate("(n) => { const s = document.getElementById('scrubber'); s.value = n;"
                  " s.dispatchEvent(new Event('input')); }", 0)
    until_equal(page, SHOWN, 0)
    until_equal(page, "() => Object.keys(warfield.replay.state.units || {}).length", 0)
    page.evaluate("(n) => { const s = document.getElementById('scrubber'); s.value = n;"
                  " s.dispatchEvent(new Event('input')); }", last)
    until_equal(page, SHOWN, last)
    until_equal(page, "() => warfield.replay.state.over", True)
    expect(page.locator("#replay-where")).to_have_text("The game is over")

    # Back to the shot by its link, then play to the end at the fastest speed.
    page.evaluate("(n) => { location.hash = '#seq=' + n; }", shot)
    until_equal(page, SHOWN, shot)
    until_equal(page, "() => warfield.replay.state",
                rest(f"{server}/api/games/{gid}/state?at={shot}")["state"])
    page.select_option("#replay-speed", "8")
    page.click("#replay-play")
    until_equal(page, "() => warfield.replay.playing", True)
    until_equal(page, "() => [warfield.replay.shown, warfield.replay.playing]", [last, False])

    # The dice luck of both players and the proof that the dice were fair.
    expect(page.locator(".luck-figure")).to_have_count(2)
    expect(page.locator("#dice-proof")).to_contain_text("verified")
    expect(page.locator('.luck-figure[data-seat="2"] circle.rolled').first).to_be_attached()
    assert not pages.errors, pages.errors
