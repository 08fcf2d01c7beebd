"""A game of Warhammer Fantasy Battle 8th edition played to its result in the browser (issue 14,
"Show": "Browser: a whfb8 game played to a result in the e2e suite (deployment, Entombed
emergence, a charge, a fight with its report)").

Two players and a spectator, each in their own headless Chromium context at 1280x800. Player 1
creates the game in the lobby; player 2 opens the invite link, the spectator the spectator
link. The armies are written in the army builder: a Tomb Swarm (seed 002,
../shared/seeds/002_20fe50c61f72ab35.txt) against Empire Halberdiers. The Swarm is kept
Entombed Beneath the Sands at deployment (the tray's Keep off the table button), the
Halberdiers are deployed by a click on the table. From Game Turn 2 the Ambushers roll (3+,
FACTS.md whfb8) lets the Swarm emerge in its Movement phase: the Emerge button, a click for the
marker, the server's scatter and artillery dice, the green ghost touching the marker, Enter.
The Halberdiers close in (March and a distance typed in their unit card, Show move, Confirm),
then a charge is declared with Charge… and a click on the target, the other player answers
Hold in the banner, and each Close Combat phase the combat is fought with the Fight button:
its report (the Fear test, the attacks, the combat result) opens on all three pages. The
players end every phase with End phase until Game Turn 6 is over; the result panel (Victory
Points, win or loss) shows on all three pages.

The dice are the game's own: the server makes a secret seed per game and no test can choose
it. So the players decide as people would from what the dice gave: a charge is declared from
within 6 in (M 4 + 2D6 always reaches) or by the Swarm from within 9 in; a Mishap (a Misfire,
1 in 6: the Swarm is destroyed, delayed or walks on from a table edge) starts a new game,
since the story under test is the marker's. Screenshots of each step go to the test's
tmp_path (game-N/…png).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_table import READY, at
from tests.e2e.waits import expect, until, until_equal

pytestmark = pytest.mark.e2e

GAMES = 4  # a Mishap (1 in 6 per emergence) or a Swarm that rose too late: a new game
STATE = "warfield.store.state"
# The Halberdiers stand with their front edge centred on (36, 42), facing player 1's edge. The
# Entombed marker goes 11 in in front of them: the artillery die moves it at most 10 in, so it
# never lands under them (that is an emergence in contact, counting as charging, and leaves no
# charge to declare).
HALBERDIERS_AT = (36.0, 42.0)
MARKER = (36.0, 31.0)
SURE_CHARGE_IN = 6.0  # M 4 + 2D6 reaches 6 in whatever the dice
SWARM_CHARGE_IN = 9.0  # 2D6 >= 5: 5 in 6

# Where the game stands, and what the loop needs of both units, in one read.
SNAPSHOT = f"""(ids) => {{
  const st = {STATE}, u = (id) => st.units[id] || {{}};
  return {{ stage: st.stage, turn: st.turn, phase: st.phase, active: st.active_player,
           units: Object.fromEntries(ids.map((id) => [id, {{ status: u(id).status,
             markers: u(id).markers || [], engaged: u(id).engaged_with || null }}])) }};
}}"""


def shot(page: Any, folder: Path, name: str) -> None:
    page.screenshot(path=str(folder / f"{name}.png"))


def answer_roll_off(seats: dict[int, Any], everyone: tuple[Any, ...], about: str) -> None:
    """The game made in the lobby plays the whfb8 roll-offs (rules/pregame.py): everyone sees
    the roll-off; its winner takes the first option of the Roll-offs panel ("I …")."""
    pending = until(seats[1], f"() => {STATE}.pregame && {STATE}.pregame.pending"
                              f" && {STATE}.pregame.pending.about === '{about}'"
                              f" && {STATE}.pregame.pending")
    for page in everyone:
        page.wait_for_selector("#pregame:not([hidden]) li:has-text('Roll-off')")
    chooser = seats[int(pending["seat"])]
    chooser.click(f"#pregame button[data-first='{pending['seat']}']")
    until(seats[1], f"() => !{STATE}.pregame.pending")


def create_whfb8_game(page: Any, name: str) -> dict[str, str]:
    """The lobby as a person uses it: Warhammer Fantasy Battle 8th edition, a name, Create."""
    page.wait_for_selector("select[name=system] option[value=whfb8]", state="attached")
    page.select_option("select[name=system]", "whfb8")
    page.fill("input[name=name]", name)
    page.click("form.create button[type=submit]")
    page.wait_for_selector("#open-player1")
    for k in ("invite", "spectate"):
        expect(page.locator(f"input[name={k}]")).not_to_have_value("")
    return {k: page.input_value(f"input[name={k}]") for k in ("invite", "spectate")}


def write_army(page: Any, datasheet: str) -> None:
    """The army builder: pick the datasheet, Add (its default size), Submit army."""
    page.wait_for_selector("#setup:not([hidden])")
    page.wait_for_selector(f"select[name=datasheet] option[value={datasheet}]", state="attached")
    page.select_option("select[name=datasheet]", datasheet)
    page.click("form.army-add button[type=submit]")
    page.wait_for_selector(f".army-list li[data-datasheet={datasheet}]")
    page.click("#submit-army")
    page.click("#confirm-submit-army")  # the "Submit your army?" dialog
    page.wait_for_selector("#army-waiting, #deploy-turn")


def unit_of(page: Any, owner: int) -> str:
    uid: str = until(page, f"(o) => Object.values({STATE}.units).find(u => u.owner === o)?.id",
                     owner)
    return uid


def centre(page: Any, uid: str) -> tuple[float, float]:
    c = until(page, f"(id) => {STATE}.units[id].footprint.features[0].properties.centre", uid)
    return float(c[0]), float(c[1])


def end_phase(page: Any, now: dict[str, Any]) -> None:
    """The active player's End phase button; waits for the phase (or the game) to move on."""
    page.click("#end-phase:not([disabled])")
    until(page, f"""(b) => {STATE}.stage !== 'battle' || {STATE}.phase !== b.phase
                      || {STATE}.active_player !== b.active || {STATE}.turn !== b.turn""", now)


def select_unit(page: Any, uid: str) -> None:
    """A click on the unit on the table (Esc first drops any tool or selection)."""
    page.keyboard.press("Escape")
    page.mouse.click(*at(page, *centre(page, uid)))
    until_equal(page, "warfield.table.selected", uid)


def test_a_whfb8_game_to_its_result(server: str, pages: Any, tmp_path: Path) -> None:
    stories = []
    for game in range(GAMES):
        shots = tmp_path / f"game-{game + 1}"
        shots.mkdir()
        story = play(server, pages, shots)
        stories.append(story)
        if story.get("mishap") or not story["fights"]:
            continue  # a Mishap, or the Swarm rose too late to fight: a new game
        assert story["emerged"] and story["charges"], story
        assert pages.errors == []
        return
    pytest.fail(f"no game of {GAMES} had an emergence at the marker and a fight: {stories}")


def play(server: str, pages: Any, shots: Path) -> dict[str, Any]:
    """One game from the lobby to its result; the story of what happened."""
    p1 = pages.open("player1", server + "/")
    links = create_whfb8_game(p1, "Sands of Khemri")
    p1.click("#open-player1")
    p1.wait_for_function(READY)
    p2 = pages.open("player2", links["invite"])
    spectator = pages.open("spectator", links["spectate"])
    everyone = (p1, p2, spectator)
    for page in everyone:
        page.wait_for_function(READY)
    until_equal(p2, "warfield.store.seat", 2)
    seats = {1: p1, 2: p2}

    # --- Armies from the builder ------------------------------------------------------------
    write_army(p1, "tomb-swarm")
    write_army(p2, "empire-halberdiers")
    for page in everyone:
        until_equal(page, f"{STATE}.stage", "deployment")
    swarm, halberdiers = unit_of(p1, 1), unit_of(p1, 2)

    # --- The roll-off for deployment: its winner chooses from the Roll-offs panel. ----------
    answer_roll_off(seats, everyone, "deploy_first")
    # --- Deployment: the Swarm stays Entombed; the Halberdiers are clicked onto the table. ---
    deploying = until(p1, f"{STATE}.deploying")
    for seat in (deploying, 3 - deploying):
        page = seats[seat]
        page.wait_for_selector("#deploy-turn:has-text('Your turn to deploy')")
        if seat == 1:
            keep = page.locator(f"li[data-unit='{swarm}'] button.ambush")
            expect(keep).to_have_text("Keep off the table: Entombed Beneath the Sands")
            shot(page, shots, "01-deploying-player1")
            keep.click()
            until_equal(page, f"(id) => {STATE}.units[id].status", "ambush", swarm)
            expect(page.locator(f"li[data-unit='{swarm}'] .ambush-status")).to_have_text(
                "Entombed Beneath the Sands")
        else:
            page.click(f"li[data-unit='{halberdiers}'] button.deploy")
            until_equal(page, "warfield.table.mode", "deploy")
            page.mouse.move(*at(page, *HALBERDIERS_AT))
            page.mouse.click(*at(page, *HALBERDIERS_AT))
            until_equal(page, f"(id) => {STATE}.units[id].status", "on_table", halberdiers)
    # --- The roll-off for the first turn (+1 for who finished deploying first), chosen. ------
    answer_roll_off(seats, everyone, "first_turn")
    for page in everyone:
        until_equal(page, f"{STATE}.stage", "battle")
    placed = p2.evaluate(f"(id) => {STATE}.units[id].placement", halberdiers)
    assert (placed["x"], placed["y"], placed["facing"]) == pytest.approx(
        (*HALBERDIERS_AT, 180), abs=0.1), placed
    shot(spectator, shots, "01-deployed-spectator")

    # --- The battle: each page acts when it is its player's turn, as a person would. --------
    story: dict[str, Any] = {"emerged": 0, "charges": 0, "fights": 0, "moved": []}
    last = p1  # the page that acted last has waited for the answer: it knows where we are
    for _step in range(300):
        now = last.evaluate(SNAPSHOT, [swarm, halberdiers])
        if now["stage"] == "over":
            break
        seat = now["active"]
        page = seats[seat]
        if page is not last:  # the player about to act sees the same moment first
            until_equal(page, f"[{STATE}.turn, {STATE}.phase, {STATE}.active_player]",
                        [now["turn"], now["phase"], now["active"]])
            last = page
        units = now["units"]
        me, foe = (swarm, halberdiers) if seat == 1 else (halberdiers, swarm)
        both_on = all(units[u]["status"] == "on_table" for u in (swarm, halberdiers))
        # A charge links the charger to its target: either side's link is the combat.
        engaged = bool(units[swarm]["engaged"] or units[halberdiers]["engaged"])
        if (seat == 1 and now["phase"] == "Movement" and units[swarm]["status"] == "ambush"
                and "ambush_ready" in units[swarm]["markers"]):
            if not emerge(p1, swarm, everyone, shots, story):
                story["mishap"] = True  # destroyed, delayed or far away: a new game
                return story
            continue
        if (now["phase"] == "Movement" and both_on and not engaged and not story["fights"]
                and (now["turn"], seat) not in story["moved"]):
            story["moved"].append((now["turn"], seat))
            gap = charge_offered(page, me, foe)
            reach = SURE_CHARGE_IN if seat == 2 else SWARM_CHARGE_IN
            if gap is not None and gap <= reach:
                charge(page, seats[3 - seat], me, foe, everyone, shots, story)
                continue
            if seat == 2 and gap is not None:
                # Closer, to 3 in, typed in the unit card: a march (up to 8 in) only while no
                # enemy is within 8 in (FACTS.md whfb8, Marching), else a move (M 4).
                close_in(page, me, min(gap - 3.0, 8.0 if gap > 8.0 else 4.0), everyone)
                continue
        if now["phase"] == "Close Combat" and both_on and engaged and fight_offered(page, me):
            fight(page, everyone, shots, story)
            continue
        if now["phase"] not in story.setdefault("phases_seen", []):  # each phase once, pictured
            story["phases_seen"].append(now["phase"])
            shot(page, shots, f"00-phase-{now['phase'].replace(' ', '-').lower()}")
        end_phase(page, now)

    # --- The result, on every page ----------------------------------------------------------
    for page in everyone:
        until_equal(page, f"{STATE}.stage", "over")
    for page, name in zip(everyone, ("player1", "player2", "spectator"), strict=True):
        panel = page.locator("section.game-result")
        expect(panel).to_be_visible()
        expect(panel).to_contain_text("Victory Points")
        result = page.evaluate(f"{STATE}.game_result")
        assert result["reason"] and result["text"], result
        shot(page, shots, f"09-result-{name}")
    return story


def emerge(p1: Any, swarm: str, everyone: tuple[Any, ...], shots: Path,
           story: dict[str, Any]) -> bool:
    """The tray's Emerge button, a click for the marker, the server's scatter, the green ghost
    touching the marker, Enter. False on a Mishap (a Misfire): the log says so on every page."""
    p1.click(f"li[data-unit='{swarm}'] button.emerge")
    until_equal(p1, "warfield.table.mode", "entombed")
    p1.mouse.move(*at(p1, *MARKER))
    until(p1, "warfield.table.tools.entombed.entombed?.point")
    shot(p1, shots, "02-marker-player1")
    p1.mouse.click(*at(p1, *MARKER))
    until(p1, "warfield.table.mode === 'idle' || (warfield.table.tools.entombed.entombed?.fixed"
              " && warfield.table.ghost?.verdict === 'legal')")
    edge = p1.evaluate(f"(id) => {STATE}.entombed?.[id]?.mode === 'edge'", swarm)
    if edge or p1.evaluate("warfield.table.mode") == "idle":
        for page in everyone:
            page.wait_for_selector(".game-log li:has-text('Mishap roll')")
        shot(p1, shots, "02-mishap-player1")
        return False
    # The marker drawn where the dice put it, the ghost green; the dice in every page's log.
    pending = p1.evaluate(f"(id) => {STATE}.entombed[id]", swarm)
    assert p1.evaluate("warfield.table.tools.entombed.entombed.point") == {
        "x": pending["marker"][0], "y": pending["marker"][1]}
    hit = p1.evaluate("warfield.store.history.filter(e => e.type === 'entombed_marker')"
                      ".at(-1).payload.hit")
    dice = "a Hit: the marker stays" if hit else "an arrow and"
    for page in everyone:
        expect(page.locator(".game-log li", has_text="stir beneath the sands").first
               ).to_contain_text(dice)
    shot(p1, shots, "03-scatter-player1")
    p1.keyboard.press("Enter")
    for page in everyone:
        until(page, f"(id) => {STATE}.units[id].status === 'on_table'"
                    " && warfield.table.currentScene().pieces.some(p => p.id === id)", swarm)
        page.wait_for_selector(".game-log li:has-text('emerge from the sands at the marker')")
    story["emerged"] += 1
    shot(everyone[2], shots, "04-emerged-spectator")
    return True


def charge_offered(page: Any, me: str, foe: str) -> float | None:
    """Selects the unit; the distance to `foe` when the server offers a charge on it."""
    select_unit(page, me)
    gap = page.evaluate(
        "(a) => { const o = warfield.store.state.orders?.units?.[a[0]]?.declare_charge;"
        " const t = o && o.available !== false"
        " && (o.targets || []).find(t => t.unit === a[1] && t.available);"
        " return t ? t.distance : null; }", [me, foe])
    return None if gap is None else float(gap)


def close_in(page: Any, me: str, inches: float, everyone: tuple[Any, ...]) -> None:
    """The selected unit's card: March on beyond 4 in, then the typed orders: forward, the
    distance, Show move (the ghost green), Confirm move."""
    distance = max(0.5, round(inches * 2 - 0.5) / 2)  # in half inches, never more
    before = page.evaluate(f"(id) => {STATE}.units[id].placement", me)
    march = page.locator("#march")
    if (march.get_attribute("aria-pressed") == "true") != (distance > 4):
        march.click()
    expect(march).to_have_attribute("aria-pressed", "true" if distance > 4 else "false")
    if page.locator("#typed-orders").get_attribute("open") is None:
        page.click("#typed-orders > summary")
    page.select_option("select[name=typed-direction]", "forward")
    page.fill("input[name=typed-distance]", f"{distance:g}")
    page.click("#stage-move")
    until(page, "warfield.table.ghost?.verdict === 'legal'")
    page.click("#confirm-move")
    for p in everyone:
        until(p, f"(a) => {{ const q = {STATE}.units[a[0]].placement;"
                 " return q.x !== a[1].x || q.y !== a[1].y; }", [me, before])


def charge(page: Any, other: Any, me: str, foe: str, everyone: tuple[Any, ...], shots: Path,
           story: dict[str, Any]) -> None:
    """Charge… and a click on the target; the other player answers Hold in the banner."""
    page.click("#charge:not([disabled])")
    until_equal(page, "warfield.table.mode", "charge")
    page.mouse.click(*at(page, *centre(page, foe)))
    # The server's preview first (issue 19 item 1), then Declare.
    page.click("#declare-charge:not([disabled])")
    hold = "#charge-prompt button[data-reaction=hold]:not([disabled])"
    other.wait_for_selector(hold)
    everyone[2].wait_for_selector("#charge-prompt")
    page.wait_for_selector("#charge-prompt:has-text('Waiting for')")
    n = story["charges"]
    shot(other, shots, f"05-charge-banner-{n}")
    other.click(hold)
    for p in everyone:
        until(p, "() => ['charge_succeeded', 'charge_failed'].includes("
                 "warfield.store.history.filter(e => e.type.startsWith('charge_')).at(-1)?.type)")
        expect(p.locator("#charge-prompt")).to_have_count(0)
        expect(p.locator("#combat-report details.charge").first).to_contain_text("Hold")
    story["charges"] += 1
    shot(everyone[2], shots, f"06-charged-{n}-spectator")


def fight_offered(page: Any, me: str) -> bool:
    select_unit(page, me)
    return page.locator("#fight:not([disabled])").count() > 0


def fight(page: Any, everyone: tuple[Any, ...], shots: Path, story: dict[str, Any]) -> None:
    """The Fight button; the round's report opens on every page: the Fear test, the attacks
    and the combat result, in words."""
    before = page.evaluate("warfield.store.history.filter(e => e.type === 'combat_score').length")
    page.click("#fight")
    for p in everyone:
        until(p, "(n) => warfield.store.history.filter(e => e.type === 'combat_score').length > n",
              before)
        report = p.locator("#combat-report details[open]").first
        expect(report).to_contain_text("Fear test")
        expect(report).to_contain_text("to hit")
        expect(report).to_contain_text("Combat result")
    n = story["fights"]
    if n < 2:  # the first rounds in pictures
        for p, name in zip(everyone, ("player1", "player2", "spectator"), strict=True):
            shot(p, shots, f"07-fight-{n}-{name}")
        everyone[2].locator("#combat-report").screenshot(path=str(shots / f"08-report-{n}.png"))
    story["fights"] += 1
