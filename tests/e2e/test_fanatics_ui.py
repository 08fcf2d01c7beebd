"""Night Goblin Fanatics in the browser (issue 15 item 6; seed 003,
../shared/seeds/003_39e99837749f8d9d.txt).

Player 1 writes two Fanatics into Night Goblins; only player 1's page shows the mark (player
2's and the spectator's never do). The goblins march at Empire Halberdiers over REST and stop at
8 in; player 1's page offers the release tool; two Fanatics are released through it (start
point and direction typed in) and everyone's page has the whirls in the log, drawn as overlays,
with the hits in the Fanatics section; each whirl is animated on every page's table: the token
drawn at successive points along its path from the start to the end, one after the other."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.e2e.test_battle_ui import rest
from tests.e2e.test_table import READY
from tests.e2e.waits import until

pytestmark = pytest.mark.e2e


class GoblinsAndHalberdiers:
    """A whfb8 game over REST: player 1's Night Goblins hiding two Fanatics at (36, 11) and
    player 2's Empire Halberdiers at (36, 36), facing each other, deployed."""

    def __init__(self, server: str, name: str) -> None:
        g = rest(f"{server}/api/games", {"system": "whfb8", "name": name})
        seat2 = rest(f"{server}/api/games/{g['id']}/seats", {"invite": g["invite"]})
        self.id = g["id"]
        self.tokens = {1: g["token"], 2: seat2["token"]}
        self.base = f"{server}/api/games/{g['id']}"
        self.act(1, {"type": "submit_army", "units": [
            {"datasheet": "night-goblins", "models": 20, "files": 5,
             "concealed": {"night-goblin-fanatic": 2}}]})
        self.act(2, {"type": "submit_army", "units": [
            {"datasheet": "empire-halberdiers", "models": 20, "files": 5}]})
        units = rest(self.base)["state"]["units"]
        self.gob = next(u for u in units if units[u]["owner"] == 1)
        self.hal = next(u for u in units if units[u]["owner"] == 2)
        self.act(1, {"type": "deploy_unit", "unit": self.gob, "x": 36, "y": 11, "facing": 0})
        self.act(2, {"type": "deploy_unit", "unit": self.hal, "x": 36, "y": 36, "facing": 180})

    def act(self, seat: int, action: dict[str, Any]) -> Any:
        return rest(f"{self.base}/actions", {"action": action}, token=self.tokens[seat])


def test_a_release_through_the_ui_and_the_secret_only_on_the_owners_page(
    server: str, pages: Any
) -> None:
    game = GoblinsAndHalberdiers(server, "Fanatics")
    g, tokens, base, act = {"id": game.id}, game.tokens, game.base, game.act
    gob, hal = game.gob, game.hal

    url = f"{server}/games/{g['id']}"
    p1 = pages.open("player1", f"{url}#seat=1&token={tokens[1]}")
    p2 = pages.open("player2", f"{url}#seat=2&token={tokens[2]}")
    spectator = pages.open("spectator", url)
    for page in (p1, p2, spectator):
        page.wait_for_function(READY)
    p1.wait_for_selector(f"#fanatics:not([hidden]) li.fanatic-mark[data-unit='{gob}']")
    for page in (p2, spectator):
        assert page.evaluate("JSON.stringify(warfield.store.state.concealed)") == "{}"
        assert page.locator(".fanatic-mark").count() == 0

    def to_movement(seat: int) -> None:
        for _ in range(12):
            st = rest(base)["state"]
            if st["phase"] == "Movement" and st["active_player"] == seat:
                return
            act(st["active_player"], {"type": "end_phase"})
        raise AssertionError("no Movement phase")

    to_movement(1)
    act(1, {"type": "move_unit", "unit": gob, "manoeuvre": "forward", "distance": 8,
            "mode": "march"})
    to_movement(2)
    act(2, {"type": "move_unit", "unit": hal, "manoeuvre": "forward", "distance": 8,
            "mode": "march"})
    to_movement(1)
    act(1, {"type": "move_unit", "unit": gob, "manoeuvre": "forward", "distance": 4})
    assert rest(base)["state"]["fanatic_releases"][0]["left"] == 2

    form = f"form.release-fanatic[data-unit='{gob}']"
    for x, facing in (("36", "0"), ("34.5", "90")):
        p1.wait_for_selector(form)
        p1.fill(f"{form} input[aria-label='Start x']", x)
        p1.fill(f"{form} input[aria-label='Direction (degrees)']", facing)
        p1.click(f"{form} button[type=submit]")
        p1.wait_for_function(
            "(n) => warfield.store.history.filter(e => e.type === 'fanatic_released').length === n",
            arg=1 if x == "36" else 2,
        )
    p1.wait_for_selector(form, state="detached")
    for page in (p1, p2, spectator):
        released = until(page, """() => { const r = warfield.store.history.filter(
            e => e.type === 'fanatic_released'); return r.length === 2 ? r : null; }""")
        assert [r["payload"]["facing"] for r in released] == [0, 90]
        page.wait_for_selector("#fanatics .whirl")
    assert p2.locator(".fanatic-mark").count() == 0

    # Every page animated both whirls along their paths (view/fanatics.js drawWhirls records
    # each point it drew the token at), and said them in its live region.
    for page in (p1, p2, spectator):
        shown = until(page, """() => { const w = warfield.table.whirlsShown;
            return w.length === 2 && w.every(x => x.finished) ? w : null; }""")
        for whirl, event in zip(shown, released, strict=True):
            start, end, drawn = whirl["start"], whirl["end"], whirl["drawn"]
            assert (start, end) == (event["payload"]["start"], event["payload"]["end"])
            assert len({tuple(round(c, 3) for c in p) for p in drawn}) >= 3, drawn
            assert drawn[-1] == end
            length = math.dist(start, end)
            along = [math.dist(start, p) for p in drawn]
            assert along == sorted(along) and along[-1] == length
            for p in drawn:  # every drawn point on the straight path
                assert abs(math.dist(start, p) + math.dist(p, end) - length) < 1e-6
        # The hits and the removal written at the end are those the server sent.
        # Each release's hits are the `fanatic_hits` events after it and before the next
        # release (two whirls of one unit may both pass through the same target) on the
        # units it passed through; not the 2D6 hits of a unit that later moved into the
        # Fanatic where it stopped (a flee through it, say: seed 003, a move of its own).
        order = page.evaluate("""() => warfield.store.history.filter(e =>
            e.type === 'fanatic_released' || e.type === 'fanatic_hits')
            .map(e => ({type: e.type, payload: e.payload}))""")
        per_release: list[dict[str, int]] = []
        through: list[str] = []
        for e in order:
            if e["type"] == "fanatic_released":
                per_release.append({})
                through = e["payload"]["through"]
            elif per_release and e["payload"]["target"] in through and "move into" not in (
                    e["payload"].get("text") or ""):
                per_release[-1][e["payload"]["target"]] = e["payload"]["hits"]
        assert len(per_release) == 2
        for whirl, event, mine in zip(shown, released, per_release, strict=True):
            assert whirl["hits"] == mine, (whirl, per_release, order)
            assert whirl["removed"] == event["payload"]["removed"]
        assert shown[1]["born"] >= shown[0]["born"] + 1000  # one after the other
        until(page, """() => /released and whirls/.test(
            document.getElementById('announcer')?.textContent || '')""")


def test_a_flee_stopped_at_8_in_waits_for_the_release_tool_then_goes_on(
    server: str, pages: Any
) -> None:
    """Seed 003: released "when ... an enemy comes within 8"" in any move - a flee too - and
    "you may choose the direction ... and the point on the concealing unit". Agreed free moves
    stand Halberdiers 8.5 in from concealing goblins, other goblins charge them from behind and
    they flee (2D6, at least 2 in) straight at the goblins: the flee stops at 8 in. Player 1's
    page offers the release tool and says what waits; player 2's page and the spectator's say
    whose release it is; after the two releases through the tool the flee goes on and the
    charge is rolled, on every page."""
    g = rest(f"{server}/api/games", {"system": "whfb8", "name": "Fanatics flee"})
    seat2 = rest(f"{server}/api/games/{g['id']}/seats", {"invite": g["invite"]})
    tokens = {1: g["token"], 2: seat2["token"]}
    base = f"{server}/api/games/{g['id']}"

    def act(seat: int, action: dict[str, Any]) -> Any:
        return rest(f"{base}/actions", {"action": action}, token=tokens[seat])

    goblins = {"datasheet": "night-goblins", "models": 20, "files": 5}
    act(1, {"type": "submit_army", "units": [
        {**goblins, "concealed": {"night-goblin-fanatic": 2}}, goblins]})
    act(2, {"type": "submit_army", "units": [{"datasheet": "empire-halberdiers", "models": 20,
                                              "files": 5}]})
    units = rest(base)["state"]["units"]
    gob, gob2 = sorted((u for u in units if units[u]["owner"] == 1), key=lambda u: int(u[1:]))
    hal = next(u for u in units if units[u]["owner"] == 2)
    act(1, {"type": "deploy_unit", "unit": gob, "x": 20, "y": 11, "facing": 0})
    act(2, {"type": "deploy_unit", "unit": hal, "x": 36, "y": 36, "facing": 180})
    act(1, {"type": "deploy_unit", "unit": gob2, "x": 52, "y": 11, "facing": 0})
    for _ in range(12):
        st = rest(base)["state"]
        if st["phase"] == "Movement" and st["active_player"] == 1:
            break
        act(st["active_player"], {"type": "end_phase"})
    for unit, x, y, facing in ((gob2, 36, 27, 180), (hal, 36, 22.5, 180), (gob, 36, 14, 0)):
        act(1, {"type": "propose", "kind": "free_move", "unit": unit, "x": x, "y": y,
                "facing": facing})
        act(2, {"type": "accept_proposal"})

    url = f"{server}/games/{g['id']}"
    p1 = pages.open("player1", f"{url}#seat=1&token={tokens[1]}")
    p2 = pages.open("player2", f"{url}#seat=2&token={tokens[2]}")
    spectator = pages.open("spectator", url)
    for page in (p1, p2, spectator):
        page.wait_for_function(READY)

    act(1, {"type": "declare_charge", "unit": gob2, "target": hal})
    act(2, {"type": "charge_reaction", "reaction": "flee"})
    st = rest(base)["state"]
    assert st["fanatic_releases"][0]["left"] == 2
    assert st["resolution_waiting"][-1].endswith("roll their charge against Empire Halberdiers")

    form = f"form.release-fanatic[data-unit='{gob}']"
    p1.wait_for_selector(form)
    until(p1, """() => /Then: Empire Halberdiers flee on to the end of their \\d+ in; then/.test(
        document.getElementById('fanatics')?.textContent || '')""")
    for page in (p2, spectator):
        until(page, """() => /Waiting for player 1 to release 2 Fanatics from Night Goblins/.test(
            document.getElementById('fanatics')?.textContent || '')""")
        assert page.locator("form.release-fanatic").count() == 0
    for x, facing in (("34.5", "90"), ("37.5", "270")):
        p1.wait_for_selector(form)
        p1.fill(f"{form} input[aria-label='Start x']", x)
        p1.fill(f"{form} input[aria-label='Direction (degrees)']", facing)
        p1.click(f"{form} button[type=submit]")
        p1.wait_for_function(
            "(n) => warfield.store.history.filter(e => e.type === 'fanatic_released').length === n",
            arg=1 if x == "34.5" else 2,
        )
    p1.wait_for_selector(form, state="detached")
    for page in (p1, p2, spectator):
        kinds = until(page, """() => { const t = warfield.store.history.map(e => e.type);
            return t.some(k => k === 'charge_failed' || k === 'charge_succeeded') ? t : null; }""")
        last_release = len(kinds) - 1 - kinds[::-1].index("fanatic_released")
        after = kinds[last_release:]
        assert after.index("unit_fled") < next(
            i for i, k in enumerate(after) if k in ("charge_failed", "charge_succeeded"))
        released = page.evaluate("""() => warfield.store.history.filter(
            e => e.type === 'fanatic_released').map(e => e.payload)""")
        assert [(r["start"][0], r["facing"]) for r in released] == [(34.5, 90), (37.5, 270)]
        assert all("aimed_by_server" not in r for r in released)
        until(page, """() => !/Waiting for player|Then: /.test(
            document.getElementById('fanatics')?.textContent || '')""")
