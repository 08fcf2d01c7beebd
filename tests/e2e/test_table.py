"""The table in a real browser: two players and a spectator in one game.

Each page exposes `window.warfield` (store, connection, table) so the tests read the state the
page holds and turn battlefield inches into screen points, then drive it with a real mouse.
Every assertion about a page waits for the state it names (tests/e2e/waits.py).
"""

from __future__ import annotations

import json
import os
import re
import statistics
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from server.rules.table import MAX_TOKENS
from tests.e2e.waits import expect, next_frame, until, until_equal

pytestmark = pytest.mark.e2e

READY = "window.warfield && window.warfield.store.state && window.warfield.conn.status === 'online'"


def create_game_in_lobby(
    page: Any, name: str = "Borderlands", pregame: str = "fixed", system: str = "t9a"
) -> dict[str, str]:
    """Create a game from the lobby's form; `pregame` "fixed" (player 1 deploys and plays
    first, what these tests script) or "roll_offs" (the lobby's default)."""
    page.select_option("select[name=system]", system)
    page.fill("input[name=name]", name)
    page.select_option("select[name=pregame]", pregame)
    page.click("form.create button[type=submit]")
    page.wait_for_selector("#open-player1")
    for k in ("invite", "spectate", "player1"):
        expect(page.locator(f"input[name={k}]")).not_to_have_value("")
    links = {k: page.input_value(f"input[name={k}]") for k in ("invite", "spectate", "player1")}
    return links


def at(page: Any, x: float, y: float) -> tuple[float, float]:
    """Battlefield inches to the page's pixels."""
    pt = page.evaluate("([x, y]) => warfield.table.clientPoint(x, y)", [x, y])
    return pt["x"], pt["y"]


def drag(page: Any, start: tuple[float, float], end: tuple[float, float], steps: int = 12,
         release: bool = True) -> None:
    page.mouse.move(*at(page, *start))
    page.mouse.down()
    (x0, y0), (x1, y1) = at(page, *start), at(page, *end)
    for i in range(1, steps + 1):
        page.mouse.move(x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps)
        next_frame(page)  # one pointer position a frame, as a hand drags
    if release:
        page.mouse.up()


def place_token(
    page: Any, label: str, x: float, y: float, width: float = 4, depth: float = 2
) -> str:
    page.fill("input[name=label]", label)
    page.fill("input[name=width]", str(width))
    page.fill("input[name=depth]", str(depth))
    page.click("button[data-cmd=place]")
    page.mouse.move(*at(page, x, y))
    page.mouse.click(*at(page, x, y))
    placed = until(
        page,
        "(label) => Object.values(warfield.store.state.tokens).find(t => t.label === label)",
        label,
    )
    return str(placed["id"])


def token(page: Any, tid: str) -> dict[str, Any] | None:
    return page.evaluate("(id) => warfield.store.state.tokens[id] || null", tid)


# The canvas colour at the ghost's centre (device pixels), as [r, g, b, a].
GHOST_PIXEL = """() => {
  const t = warfield.table, g = t.ghost;
  const r = t.canvas.getBoundingClientRect();
  const p = t.clientPoint(g.x, g.y);
  const d = t.dpr;
  return [...t.ctx.getImageData((p.x - r.left) * d, (p.y - r.top) * d, 1, 1).data];
}"""


@pytest.fixture
def game(server: str, pages: Any) -> dict[str, Any]:
    """A game with player 1 (who created it in the lobby), player 2 (by the invite link) and a
    spectator on a phone-sized screen."""
    p1 = pages.open("player1", server + "/")
    links = create_game_in_lobby(p1)
    assert "token=" not in links["invite"] and "token=" not in links["spectate"]
    p1.click("#open-player1")
    p1.wait_for_function(READY)
    p2 = pages.open("player2", links["invite"])
    p2.wait_for_function(READY)
    spectator = pages.open("spectator", links["spectate"], width=390, height=844)
    spectator.wait_for_function(READY)
    return {"p1": p1, "p2": p2, "spectator": spectator, "links": links}


def test_players_and_spectator_share_one_table(game: dict[str, Any], pages: Any,
                                               tmp_path: Path) -> None:
    p1, p2, spectator = game["p1"], game["p2"], game["spectator"]
    until_equal(p1, "warfield.store.seat", 1)
    until_equal(p2, "warfield.store.seat", 2)
    until_equal(spectator, "warfield.store.seat", None)
    # The token never stays in the address bar, and never goes in a query string.
    for page in (p1, p2):
        expect(page).not_to_have_url(re.compile(r"token|\?"))

    tid = place_token(p1, "Knights", 20, 10)
    until(spectator, "(id) => !!warfield.store.state.tokens[id]", tid)

    # Dragged to (31, 22): the spectator sees it there (how soon is bench/ws_fanout.py's to say).
    drag(p1, (20, 10), (31, 22))
    moved = until(
        spectator,
        "(id) => { const t = warfield.store.state.tokens[id];"
        " return t && Math.abs(t.x - 31) < 0.2 && Math.abs(t.y - 22) < 0.2 && t; }",
        tid,
    )
    until_equal(p2, "(id) => warfield.store.state.tokens[id]", moved, tid)

    # Dice and notes reach everyone; every face is shown.
    p2.fill("input[name=dice]", "3D6")
    p2.fill("input[name=reason]", "Panic test")
    p2.click("form.roll button")
    expect(spectator.locator(".dice-log .roll").first.locator(".die")).to_have_count(3)
    p1.fill("input[name=note]", "Knights advance")
    p1.click("form.note button")
    p2.wait_for_selector(".note-log li:has-text('Knights advance')")
    spectator.wait_for_function(
        "() => warfield.store.presence && warfield.store.presence.players.length === 2"
    )
    expect(p1.locator("#presence")).to_contain_text("1 watching")

    for name, page in (("player1", p1), ("player2", p2), ("spectator", spectator)):
        page.screenshot(path=str(tmp_path / f"{name}.png"))
    target = os.environ.get("WARFIELD_SCREENSHOT")
    if target:
        p1.click("body")
        p1.screenshot(path=target)
    assert pages.errors == []


def test_illegal_drag_shows_red_ghost_and_rule(game: dict[str, Any], pages: Any,
                                               tmp_path: Path) -> None:
    p1 = game["p1"]
    tid = place_token(p1, "Scouts", 30, 4, width=2, depth=2)
    is_red = "() => warfield.table.ghost && warfield.table.ghost.verdict === 'illegal'"
    # While the mouse is still down, the server's preview paints the ghost red with the rule.
    drag(p1, (30, 4), (30, -3), release=False)
    until(p1, f"({is_red})() && /Battlefield Edge/.test(warfield.table.ghost.text)")
    expect(p1.locator(".info .verdict")).to_contain_text("Battlefield Edge")
    # ... and the frame drawn with that verdict shows it red.
    until(p1, f"() => {{ const [r, g, b] = ({GHOST_PIXEL})(); return r > g + 40 && r > b + 40; }}")
    p1.screenshot(path=str(tmp_path / "illegal-drag.png"))
    # Released there anyway: the server refuses the move and says why.
    p1.mouse.up()
    p1.wait_for_selector(".toasts .toast.error:has-text('Battlefield Edge')")
    until(p1, f"({is_red})() && /Battlefield Edge/.test(warfield.table.ghost.text)")
    p1.screenshot(path=str(tmp_path / "illegal-release.png"))
    # Nothing moved.
    moved = token(p1, tid)
    assert moved is not None and moved["y"] == 4
    assert pages.errors == []


def test_reload_keeps_the_seat(game: dict[str, Any], pages: Any) -> None:
    for page, seat in ((game["p1"], 1), (game["p2"], 2)):
        page.reload()
        page.wait_for_function(READY)
        until_equal(page, "warfield.store.seat", seat)
        expect(page.locator("#seat")).to_have_text(f"Player {seat}")
    game["spectator"].reload()
    game["spectator"].wait_for_function(READY)
    until_equal(game["spectator"], "warfield.store.seat", None)
    assert pages.errors == []


def test_rotate_and_reconnect_resume(game: dict[str, Any], pages: Any) -> None:
    p1, spectator = game["p1"], game["spectator"]
    tid = place_token(p1, "Archers", 40, 10)
    p1.keyboard.press("r")
    until(spectator, "(id) => warfield.store.state.tokens[id].facing === 45", tid)
    # Drop the spectator's socket; it reconnects by itself and catches up on what it missed.
    spectator.evaluate("warfield.conn.ws.close()")
    spectator.wait_for_function("warfield.conn.status !== 'online'")
    p1.keyboard.press("r")
    until(p1, "(id) => warfield.store.state.tokens[id].facing === 90", tid)  # the server took it
    until(spectator, "() => warfield.conn.status === 'online'")
    until(spectator, "(id) => warfield.store.state.tokens[id].facing === 90", tid)
    # R twice in one go (the second before the first can be back): the second waits for the
    # first turn's event and goes after it, so the token ends up turned twice, not once.
    p1.evaluate(
        "() => { for (let i = 0; i < 2; i++) document.body.dispatchEvent("
        "new KeyboardEvent('keydown', {key: 'r', bubbles: true})); }"
    )
    until(p1, "(id) => warfield.store.state.tokens[id].facing === 180", tid)
    until(spectator, "(id) => warfield.store.state.tokens[id].facing === 180", tid)
    assert pages.errors == []


def _post_json(url: str, body: dict[str, Any], token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.loads(res.read())


def test_pan_frame_time_with_a_full_table_of_tokens(
    server: str, pages: Any, tmp_path: Path
) -> None:
    """Measures (does not assert) the frame time while panning a table holding as many tokens
    as a game may have (`MAX_TOKENS`, 400; 600 models are the next test)."""
    created = _post_json(server + "/api/games", {"system": "t9a", "name": "Full table"})
    gid, tok = created["id"], created["token"]
    for i in range(MAX_TOKENS):
        x, y = 1.5 + (i % 40) * 1.75, 3 + (i // 40) * 2.8
        _post_json(
            f"{server}/api/games/{gid}/actions",
            {"action": {"type": "place_token", "label": f"m{i}", "x": x, "y": y,
                        "facing": (i * 15) % 360, "width": 1.0, "depth": 1.0}},
            tok,
        )
    page = pages.open("bench", f"{server}/games/{gid}")
    page.wait_for_function(READY)
    page.wait_for_function(
        f"Object.keys(warfield.store.state.tokens).length === {MAX_TOKENS}")
    report: dict[str, Any] = {"tokens": MAX_TOKENS}
    report.update(_pan_frame_times(page))
    print("\nPAN_FRAME_TIME " + json.dumps(report))
    (tmp_path / "frame_time.json").write_text(json.dumps(report))
    page.screenshot(path=str(tmp_path / "tokens.png"))
    assert pages.errors == []


def test_pan_frame_time_with_600_models(server: str, pages: Any, tmp_path: Path) -> None:
    """Measures (does not assert) the frame time while panning a battle of 40 units of 15
    Citizen Spears each, 600 models drawn base by base, deployed through the rules."""
    created = _post_json(server + "/api/games", {"system": "t9a", "name": "Six hundred models"})
    gid, tok1 = created["id"], created["token"]
    tok2 = _post_json(f"{server}/api/games/{gid}/seats",
                      {"invite": created["invite"]})["token"]
    army = [{"datasheet": "citizen-spears", "models": 15, "files": 5}] * 20
    for tok in (tok1, tok2):
        _post_json(f"{server}/api/games/{gid}/actions",
                   {"action": {"type": "submit_army", "units": army}}, tok)
    for i in range(20):
        x = 4.0 + (i % 10) * 7.0
        near, far = (5.0, 43.0) if i < 10 else (10.5, 37.5)
        for tok, y, facing, uid in ((tok1, near, 0, i + 1), (tok2, far, 180, i + 21)):
            _post_json(f"{server}/api/games/{gid}/actions",
                       {"action": {"type": "deploy_unit", "unit": f"u{uid}", "x": x, "y": y,
                                   "facing": facing}}, tok)
    page = pages.open("bench-models", f"{server}/games/{gid}")
    page.wait_for_function(READY)
    page.wait_for_function(
        "Object.values(warfield.store.state.units || {})"
        ".filter((u) => u.status === 'on_table').length === 40"
    )
    models = 600
    until_equal(
        page, "Object.values(warfield.store.state.units).reduce((n, u) => n + u.models, 0)", models
    )
    report: dict[str, Any] = {"models": models, "units": 40}
    report.update(_pan_frame_times(page))
    print("\nPAN_FRAME_TIME_MODELS " + json.dumps(report))
    (tmp_path / "frame_time_models.json").write_text(json.dumps(report))
    page.evaluate("warfield.table.fitView()")
    next_frame(page)
    page.screenshot(path=str(tmp_path / "600-models.png"))
    assert pages.errors == []


def _pan_frame_times(page: Any) -> dict[str, Any]:
    """Frame gaps and draw times (median, p95 ms) of a scripted pan, at fit and at 2.5x."""
    report: dict[str, Any] = {}
    for name, zoom in (("fit", 1.0), ("zoom2.5", 2.5)):
        stats = page.evaluate(PAN_SCRIPT, zoom)
        stamps = stats["stamps"]
        deltas = [b - a for a, b in zip(stamps, stamps[1:], strict=False)][5:]
        draws = stats["draw"][5:]
        report[name] = {
            "frames": len(deltas),
            "frame_ms_median": round(statistics.median(deltas), 2),
            "frame_ms_p95": round(_pct(deltas, 0.95), 2),
            "draw_ms_median": round(statistics.median(draws), 2),
            "draw_ms_p95": round(_pct(draws, 0.95), 2),
        }
        assert len(deltas) > 100
    return report


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


# A scripted pan: one panBy per animation frame for 240 frames, recording each frame's
# requestAnimationFrame timestamp and the time spent drawing it.
PAN_SCRIPT = """(zoom) => new Promise((done) => {
  const t = warfield.table;
  t.fitView();
  if (zoom !== 1) t.zoomBy(zoom, {x: t.vw / 2, y: t.vh / 2});
  let n = 0;
  const FRAMES = 240;
  t.frameStats = {stamps: [], draw: []};
  const step = () => {
    const dx = Math.sin(n / 20) * 12;
    t.panBy(dx, dx / 2);
    if (++n < FRAMES) requestAnimationFrame(step);
    else requestAnimationFrame(() => {
      const s = t.frameStats;
      t.frameStats = null;
      done(s);
    });
  };
  requestAnimationFrame(step);
})"""
