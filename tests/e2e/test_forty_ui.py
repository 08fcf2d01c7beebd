"""Issue 16 item 6 ("In the browser") and its Show item: a 40k shooting attack and a fight
through the Shoot and Fight tools, and a Waaagh! through its button.

Beast Snagga Boyz led by a Wurrboy (player 1) against an Intercessor Squad (player 2), set up
and moved over REST so the browser time goes to what is tested. The Intercessors Advance (their
Bolt rifles are Assault) and player 2 shoots at the Boyz from the Shoot panel: the target from
a list with its distance and visibility shown before rolling, the weapons the server offers
ticked and the Pistols refused with the rule's reason. The attack report reaches both players
and a spectator; the models destroyed leave the table. Player 1 calls the Waaagh! with its
button, the Boyz Advance and charge (1.5 in away: any 2D6 brings them in, so the test does not
depend on the dice), and player 1 fights with the Choppas from the Fight panel, by keyboard.
Every step waits for the state it asserts (tests/e2e/waits.py)."""

from __future__ import annotations

import urllib.error
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_accessibility import assert_no_serious_violations
from tests.e2e.test_battle_ui import rest
from tests.e2e.test_table import READY
from tests.e2e.waits import expect, until, until_equal

pytestmark = pytest.mark.e2e

BOYZ = {"datasheet": "beast-snagga-boyz", "models": 10, "joined_characters": ["wurrboy"]}
INTERCESSORS = {"datasheet": "intercessor-squad", "models": 5}
SHOT = "Intercessor Squad shoot Beast Snagga Boyz + Wurrboy"
FOUGHT = "Beast Snagga Boyz + Wurrboy fight Intercessor Squad"


class Game:
    """A 40k game driven over REST by both players."""

    def __init__(self, server: str) -> None:
        g = rest(f"{server}/api/games", {"system": "wh40k10", "name": "Forty UI"})
        seat2 = rest(f"{server}/api/games/{g['id']}/seats", {"invite": g["invite"]})
        self.base = f"{server}/api/games/{g['id']}"
        self.tokens = {1: g["token"], 2: seat2["token"]}
        self.urls = {1: f"{server}/games/{g['id']}#seat=1&token={g['token']}",
                     2: f"{server}/games/{g['id']}#seat=2&token={seat2['token']}",
                     None: f"{server}/games/{g['id']}"}

    def act(self, seat: int, **action: Any) -> Any:
        try:
            return rest(f"{self.base}/actions", {"action": action}, token=self.tokens[seat])
        except urllib.error.HTTPError as err:  # say what the server refused, and why
            raise AssertionError(f"{action['type']} refused: {err.read().decode()}") from None

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = rest(self.base)["state"]
        return state

    def to_phase(self, seat: int, phase: str) -> None:
        for _ in range(12):
            st = self.state()
            if st["active_player"] == seat and st["phase"] == phase:
                return
            self.act(st["active_player"], type="end_phase")
        raise AssertionError(f"never reached player {seat}'s {phase} phase")

    def shift(self, seat: int, unit: str, dy: float, advance: bool = False) -> None:
        positions = [[x, y + dy] for x, y in self.state()["units"][unit]["positions"]]
        self.act(seat, type="move_models", unit=unit, positions=positions, advance=advance)


def deployed(server: str) -> tuple[Game, str, str]:
    """A game with the Boyz (player 1) and the Intercessors (player 2) deployed facing each
    other, the Boyz in two rows in front and the Wurrboy behind them; (game, Boyz, squad)."""
    game = Game(server)
    game.act(1, type="submit_army", units=[BOYZ])
    game.act(2, type="submit_army", units=[INTERCESSORS])
    units = game.state()["units"]
    boyz = next(u for u, v in units.items() if v["owner"] == 1)
    squad = next(u for u, v in units.items() if v["owner"] == 2)
    game.act(1, type="deploy_unit", unit=boyz, x=25, y=9.5, facing=0)
    game.act(2, type="deploy_unit", unit=squad, x=25, y=32.64, facing=180)
    return game, boyz, squad


def formation(deployed: list[list[float]]) -> list[list[float]]:
    """Where the Boyz (deployed facing the enemy: Boyz 1-5 in front, 6-10 behind, the Wurrboy
    last) move 4.5 in to: Boyz 1-4 in front; behind them, from the left, Boyz 6, 9, 8, 7 and 5;
    Boy 10 and the Wurrboy in a third rank. Losing Boyz 10, 9, 8 (in that order) leaves every
    model within 2 in of two others (10th-edition Unit Coherency); every model moves 6 in at
    most."""
    cols = sorted({round(x, 4) for x, _ in deployed[:5]})
    front = max(y for _, y in deployed) + 4.5
    back, third = front - 1.76, front - 3.52
    out = [[cols[i], front] for i in range(4)]          # Boyz 1-4
    out.append([cols[4], back])                           # Boy 5: the rear rank's right
    out += [[cols[0], back], [cols[3], back], [cols[2], back], [cols[1], back]]  # Boyz 6-9
    out.append([(cols[1] + cols[2]) / 2, third])          # Boy 10
    out.append([(cols[3] + cols[4]) / 2, third])          # the Wurrboy
    return out


def history_has(page: Any, kind: str, text: str) -> None:
    until(page, "([kind, text]) => warfield.store.history.some((e) => e.type === 'attacks_resolved'"
                " && e.payload.kind === kind && e.payload.text === text)", [kind, text])


def test_shoot_and_fight_through_the_tools_and_the_waaagh_button(
    server: str, pages: Any, tmp_path: Path
) -> None:
    game, boyz, squad = deployed(server)

    p1 = pages.open("player1", game.urls[1])
    p2 = pages.open("player2", game.urls[2])
    spectator = pages.open("spectator", game.urls[None])
    for page in (p1, p2, spectator):
        page.wait_for_function(READY)

    # CP and VP in the turn bar, in words for each seat; the five objectives drawn with who
    # holds them written beside them.
    expect(p1.locator(".phase .score").first).to_have_text("You: 1 CP · 0 VP")
    expect(spectator.locator(".phase .score").nth(1)).to_have_text("Player 2: 1 CP · 0 VP")
    marks = until(p1, "warfield.table.scene && warfield.table.scene.objectives.length === 5"
                      " && warfield.table.scene.objectives")
    assert marks[0]["name"] == "Objective 1" and marks[0]["label"] == "no one holds · OC 0:0"

    # Battle round 1: the Boyz move up 4.5 in, four in front, the rest behind them in an order
    # that keeps the unit in coherency whichever models the Intercessors' shots take (the
    # defender's order: the last Bodyguard model first, docs/rules-decisions.md); the
    # Intercessors Advance 6.9 in.
    game.to_phase(1, "Movement")
    game.act(1, type="move_models", unit=boyz, positions=formation(
        game.state()["units"][boyz]["positions"]))
    game.to_phase(2, "Movement")
    game.act(2, type="advance", unit=squad)
    game.shift(2, squad, -6.9, advance=True)
    game.to_phase(2, "Shooting")

    # Player 2 picks the Intercessors from the units list (keyboard) and sees their Shoot
    # panel: the Boyz as the target, how far and how well seen, the Bolt rifle ticked, the
    # pistols refused with the reason (they Advanced: Assault weapons only).
    pick = p2.locator(f"button[data-pick='{squad}']")
    pick.focus()
    p2.keyboard.press("Enter")
    panel = p2.locator("#forty-shoot")
    expect(panel).to_be_visible()
    expect(p2.locator("#shoot-target")).to_have_value(boyz)
    expect(p2.locator("#shoot-target-seen")).to_contain_text("in away · visible (")
    # ... and on the table, a line to it labelled the same way.
    until(p2, "/^\\d+\\.\\d in · visible$/.test(warfield.table.tools.shoot.layers().aim.label)")
    rifle = p2.locator("input[name=forty-weapon][value='Bolt rifle']")
    expect(rifle).to_be_checked()
    expect(p2.locator("input[name=forty-weapon][value='Bolt pistol']")).to_be_disabled()
    expect(panel).to_contain_text(
        "Cannot fire: Bolt pistol is not an Assault weapon and the unit Advanced")
    expect(panel).to_contain_text("Bolt rifle ×5 · 24 in · A 2 · BS 3+ · S 4 · AP -1 · D 1")
    p2.screenshot(path=str(tmp_path / "forty-shoot-panel-1280.png"))
    assert_no_serious_violations(p2, "the 40k Shoot panel")
    fire = p2.locator("#forty-fire")
    expect(fire).to_have_text("Shoot Beast Snagga Boyz + Wurrboy")
    fire.focus()
    p2.keyboard.press("Enter")

    # The attack report reaches both players and the spectator; the models destroyed leave
    # the table (the state's positions, which the table draws).
    for page in (p1, p2, spectator):
        history_has(page, "shooting", SHOT)
        expect(page.locator("#combat-report")).to_contain_text(SHOT)
    shot = p1.evaluate("(t) => warfield.store.history.find((e) => e.type === 'attacks_resolved'"
                       " && e.payload.text === t).payload", SHOT)
    assert any(s["step"] == "hit" for s in shot["steps"]) and shot["rolls"]
    left = 11 - len(shot["destroyed"])
    for page in (p1, spectator):
        until_equal(page, "(id) => warfield.store.state.units[id].positions.length", left, boyz)
    expect(spectator.locator("#combat-report .report-group").first).to_contain_text("Bolt rifle")
    spectator.screenshot(path=str(tmp_path / "forty-report-spectator-1280.png"))
    # The unit has shot: its panel now says why it may not again.
    expect(p2.locator("#shoot-refused")).to_contain_text("has already shot this phase")

    # Battle round 2: player 1 calls the Waaagh! with its button in their Command phase.
    game.to_phase(1, "Command")
    waaagh = p1.locator("#call-waaagh")
    expect(waaagh).to_be_enabled()
    expect(p2.locator("#call-waaagh")).to_have_count(0)
    waaagh.click()
    until(spectator, "warfield.store.state.forty.waaagh.active.includes(1)")
    expect(p1.locator("#call-waaagh")).to_have_count(0)
    expect(spectator.locator(".phase .waaagh")).to_have_text("Waaagh! (Player 1)")

    # The Boyz Advance 6.9 in (the Waaagh! lets them charge after it) to 1.8 in away, and
    # charge: any 2D6 brings them in.
    game.to_phase(1, "Movement")
    game.act(1, type="advance", unit=boyz)
    game.shift(1, boyz, 6.9, advance=True)
    game.to_phase(1, "Charge")
    game.act(1, type="declare_charge", unit=boyz, target=squad)
    if (game.state().get("pending_charge") or {}).get("answer"):
        game.act(2, type="decline_overwatch")  # asked before the roll; this test is the fight
    game.to_phase(1, "Fight")

    # Player 1 selects the Boyz and fights from the Fight panel with the Choppas (keyboard).
    pick = p1.locator(f"button[data-pick='{boyz}']")
    pick.focus()
    p1.keyboard.press("Enter")
    fight = p1.locator("#forty-fight")
    expect(fight).to_be_visible()
    expect(p1.locator("#fight-target")).to_have_value(squad)
    expect(fight).to_contain_text("Choppa ×")
    expect(fight).to_contain_text("A 4 · WS 3+ · S 5 · AP -1 · D 1")  # the Waaagh!: +1 A, +1 S
    p1.locator("#fight-weapon").select_option("Choppa")
    expect(p1.locator("#fight-weapon")).to_have_value("Choppa")
    go = p1.locator("#forty-fight-go")
    expect(go).to_have_text("Fight Intercessor Squad with Choppa")
    p1.screenshot(path=str(tmp_path / "forty-fight-panel-1280.png"))
    assert_no_serious_violations(p1, "the 40k Fight panel")
    go.focus()
    p1.keyboard.press("Enter")
    for page in (p1, p2, spectator):
        history_has(page, "fight", FOUGHT)
        expect(page.locator("#combat-report")).to_contain_text(FOUGHT)
    fought = p2.evaluate("(t) => warfield.store.history.find((e) => e.type === 'attacks_resolved'"
                         " && e.payload.text === t).payload", FOUGHT)
    assert any("Choppa" in s["text"] and "S 5 vs T 4" in s["text"] for s in fought["steps"])
    left = 5 - len(fought["destroyed"])
    until_equal(p2, "(id) => (warfield.store.state.units[id].positions || []).length", left,
                squad)
    p2.screenshot(path=str(tmp_path / "forty-fight-report-p2-1280.png"))
    assert pages.errors == []


def test_a_40k_unit_moves_by_typed_direction_and_distance_from_the_keyboard(
    server: str, pages: Any
) -> None:
    """Keyboard play (PLAYTEST.md): a unit placed model by model moves without a mouse. Player 2
    (seat 2 sees the table turned) picks the Intercessors in the units list, types "away from
    you", 3 in, Show move, then Enter: every model is 3 in further up the table from player 2,
    on every page."""
    game, _, squad = deployed(server)
    game.to_phase(2, "Movement")
    before = game.state()["units"][squad]["positions"]

    p2 = pages.open("player2", game.urls[2])
    spectator = pages.open("spectator", game.urls[None])
    for page in (p2, spectator):
        page.wait_for_function(READY)
    pick = p2.locator(f"button[data-pick='{squad}']")
    pick.focus()
    p2.keyboard.press("Enter")
    form = p2.locator("#model-move-form")
    expect(form).to_be_visible()
    form.locator("select").select_option("away")
    form.locator("input[name=typed-modelDistance]").fill("3")
    form.locator("#stage-model-move").press("Enter")
    until(p2, "warfield.table.moves.ghost && warfield.table.moves.ghost.phase === 'staged'"
              " && warfield.table.moves.ghost.verdict === 'legal'")
    p2.locator("#confirm-move").focus()
    p2.keyboard.press("Enter")
    expected = [[round(x, 2), round(y - 3, 2)] for x, y in before]
    for page in (p2, spectator):
        until_equal(page, f"warfield.store.state.units['{squad}'].positions.map("
                          "([x, y]) => [Math.round(x * 100) / 100, Math.round(y * 100) / 100])",
                    expected)
    assert pages.errors == []
