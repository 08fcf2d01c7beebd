"""Import a roster in the army builder, see the mapping report, export the army and submit it
(issue 18 items 3, 4 and 6's import and export buttons); a roster unit the catalogue lacks comes
in as a unit of your own, deploys and shows its card beside a catalogue unit's (issue 18's
browser Show item)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_battle_ui import rest
from tests.e2e.test_table import READY, at, create_game_in_lobby
from tests.e2e.waits import until, until_equal

pytestmark = pytest.mark.e2e

ROSTERS = Path(__file__).parent.parent / "data" / "fixtures" / "rosters"


def test_import_roster_shows_the_report_exports_and_submits(server: str, pages: Any) -> None:
    p1 = pages.open("player1", server + "/")
    create_game_in_lobby(p1, "Imported")
    p1.click("#open-player1")
    p1.wait_for_function(READY)
    p1.wait_for_selector("#setup:not([hidden])")
    p1.wait_for_selector("select[name=datasheet] option", state="attached")

    # A partly mapping New Recruit export: two units mapped, one skipped with its reason.
    p1.set_input_files("#roster-file", str(ROSTERS / "t9a-daemons-newrecruit.json"))
    p1.wait_for_selector("#roster-report")
    assert "2 mapped, 1 skipped" in p1.inner_text("#roster-report h4")
    assert "Kuulima's Deceivers × 6 (220 pts): not in the catalog" in p1.inner_text(
        "#roster-report .skipped")
    until_equal(p1, "document.querySelectorAll('.army-list li').length", 2)

    # A BattleScribe roster replaces the list: four units, the spears with their standard.
    p1.set_input_files("#roster-file", str(ROSTERS / "t9a-highborn-full.ros"))
    p1.wait_for_selector("#roster-report h4:has-text('4 mapped, 0 skipped')")
    until_equal(p1, "[...document.querySelectorAll('.army-list li')]"
                    ".map(li => li.dataset.datasheet)",
                ["highborn-commander", "citizen-spears", "citizen-archers", "knights-of-ryma"])

    # Export army: our file, the submit_army units with format and version.
    with p1.expect_download() as download:
        p1.click("#export-army")
    exported = json.loads(Path(download.value.path()).read_text())
    assert exported["format"] == "warfield-army" and exported["system"] == "t9a"
    assert exported["units"][1] == {"datasheet": "citizen-spears", "models": 25, "standard": True}

    # A malformed file: a clear error, the list unchanged.
    p1.set_input_files("#roster-file", files=[{"name": "bad.ros", "mimeType": "application/xml",
                                               "buffer": b"<roster><forces>"}])
    p1.wait_for_selector("text=not well-formed XML")
    until_equal(p1, "document.querySelectorAll('.army-list li').length", 4)

    p1.click("#submit-army")
    p1.click("#confirm-submit-army")  # the "Submit your army?" dialog
    p1.wait_for_selector("#army-waiting")
    until_equal(p1, "Object.values(warfield.store.state.units).filter(u => u.owner === 1)"
                    ".map(u => u.datasheet).sort()",
                sorted(["highborn-commander", "citizen-spears", "citizen-archers",
                        "knights-of-ryma"]))


CARD = "document.querySelector('#info .selected.unit')?.textContent || ''"


def test_an_imported_unit_of_your_own_deploys_and_shows_its_card(server: str, pages: Any) -> None:
    p1 = pages.open("player1", server + "/")
    links = create_game_in_lobby(p1, "Imported Sea Guard")
    p1.click("#open-player1")
    p1.wait_for_function(READY)
    game_id = p1.evaluate("warfield.gameId")
    seat2 = rest(f"{server}/api/games/{game_id}/seats",
                 {"invite": links["invite"].split("#join=", 1)[1]})
    p1.wait_for_selector("#setup:not([hidden])")
    p1.wait_for_selector("select[name=datasheet] option", state="attached")

    # The roster's Sea Guard are not in the catalogue: made a unit of your own from the
    # roster's profile, said so in the report with what was assumed.
    p1.set_input_files("#roster-file", str(ROSTERS / "t9a-own-units.ros"))
    p1.wait_for_selector("#roster-report h4:has-text('2 mapped, 1 created as your own, "
                         "0 skipped')")
    created = p1.inner_text("#roster-report .created")
    assert "Sea Guard × 20 (290 pts) → a unit of your own" in created, created
    assert "base assumed 20 x 20 mm" in created, created
    until_equal(p1, "document.querySelectorAll('.army-list li').length", 3)
    # Rosters do not say who joins whom: the Commander joins the Spears in the builder.
    p1.select_option("li[data-datasheet='citizen-spears'] select.join",
                     label="Highborn Commander")
    until_equal(p1, "document.querySelectorAll('.army-list li').length", 2)

    p1.click("#submit-army")
    p1.click("#confirm-submit-army")  # the "Submit your army?" dialog
    p1.wait_for_selector("#army-waiting")
    rest(f"{server}/api/games/{game_id}/actions",
         {"action": {"type": "submit_army",
                     "units": [{"datasheet": "mageblight-gremlin", "models": 3}]}},
         token=seat2["token"])
    p1.wait_for_function("warfield.store.state.stage === 'deployment'")
    own_id = p1.evaluate("Object.keys(warfield.store.state.own_datasheets)[0]")
    units = "Object.values(warfield.store.state.units)"
    sea_guard = p1.evaluate(f"{units}.find(u => u.datasheet === '{own_id}').id")
    spears = p1.evaluate(f"{units}.find(u => u.datasheet === 'citizen-spears').id")

    # Deploy both by the tray's buttons (player 1 deploys while it is their turn to).
    for uid, (x, y) in ((sea_guard, (15, 6)), (spears, (40, 6))):
        until_equal(p1, "warfield.store.state.deploying", 1)
        p1.click(f"li[data-unit='{uid}'] button.deploy")
        until_equal(p1, "warfield.table.mode", "deploy")
        p1.mouse.click(*at(p1, x, y))
        until_equal(p1, f"warfield.store.state.units['{uid}'].status", "on_table")
        if p1.evaluate("warfield.store.state.deploying") == 2:
            gremlins = p1.evaluate(f"{units}.find(u => u.owner === 2).id")
            rest(f"{server}/api/games/{game_id}/actions",
                 {"action": {"type": "deploy_unit", "unit": gremlins, "x": 30, "y": 42,
                             "facing": 180}}, token=seat2["token"])

    # Both cards: the unit of your own with its roster profile and rules, the catalogue's.
    p1.click(f"[data-pick='{sea_guard}']")
    p1.wait_for_selector("#info .selected.unit .profile-table")
    until(p1, f"{CARD}.includes('Unit of your own') && {CARD}.includes('Sea Drill')")
    card = p1.inner_text("#info .selected.unit")
    for words in ("Sea Guard", "Base 20 × 20 mm rectangular", "290 pts", "Fearless",
                  "May re-form before shooting"):
        assert words in card, (words, card)
    assert p1.inner_text("#info .rules li:has-text('Sea Drill') .mark").strip() == (
        "(not automated)")
    p1.click(f"[data-pick='{spears}']")
    until(p1, f"{CARD}.includes('Citizen Spears') && {CARD}.includes('Highborn Elves')")
    card = p1.inner_text("#info .selected.unit")
    for words in ("Offensive", "Defensive", "25 pts + 11 pts per model", "20 models remaining",
                  "With Highborn Commander"):
        assert words in card, (words, card)
    # The joined character's own profile, inside the Spears' card.
    commander = p1.inner_text("#info .selected.unit .characters")
    assert "Defensive" in commander and "130 pts" in commander, commander
    assert not pages.errors, pages.errors


def test_roster_upgrades_show_on_the_card_and_an_own_character_joins(
    server: str, pages: Any
) -> None:
    """Issue 18 items 1-3 in the browser: a BSData-shaped t9a roster whose upgrades change
    catalogue units (the report says what changed and what was not applied, with why), a
    character of your own joined to a catalogue unit in the builder; both cards on the table
    show it (the changes with their source; the joined character with its own profile)."""
    p1 = pages.open("player1", server + "/")
    links = create_game_in_lobby(p1, "Upgraded host")
    p1.click("#open-player1")
    p1.wait_for_function(READY)
    game_id = p1.evaluate("warfield.gameId")
    seat2 = rest(f"{server}/api/games/{game_id}/seats",
                 {"invite": links["invite"].split("#join=", 1)[1]})
    p1.wait_for_selector("#setup:not([hidden])")
    p1.wait_for_selector("select[name=datasheet] option", state="attached")

    p1.set_input_files("#roster-file", str(ROSTERS / "t9a-highborn-bsdata.ros"))
    p1.wait_for_selector("#roster-report h4:has-text('3 mapped, 2 created as your own, "
                         "0 skipped')")
    mapped = p1.inner_text("#roster-report .mapped")
    for words in ("changed: Str (Commander) 4 → 6 (Great Weapon)",
                  "changed: equipment + Shield (Shield)",
                  "not applied: Talisman of the Tides",
                  "not applied: Musician: prints no profile or rule to apply"):
        assert words in mapped, (words, mapped)
    assert "Sea Helm × 1 (125 pts) → a character of your own" in p1.inner_text(
        "#roster-report .created")
    until_equal(p1, "document.querySelectorAll('.army-list > li').length", 5)
    # The Sea Helm, a character of your own, joins the Spears like a catalogue character.
    p1.select_option("li[data-datasheet='citizen-spears'] select.join", label="Sea Helm")
    until_equal(p1, "document.querySelectorAll('.army-list > li').length", 4)

    p1.click("#submit-army")
    p1.click("#confirm-submit-army")  # the "Submit your army?" dialog
    p1.wait_for_selector("#army-waiting")
    rest(f"{server}/api/games/{game_id}/actions",
         {"action": {"type": "submit_army",
                     "units": [{"datasheet": "mageblight-gremlin", "models": 3}]}},
         token=seat2["token"])
    p1.wait_for_function("warfield.store.state.stage === 'deployment'")
    units = "Object.values(warfield.store.state.units)"
    archers = p1.evaluate(f"{units}.find(u => u.name === 'Citizen Archers').id")
    spears = p1.evaluate(f"{units}.find(u => u.datasheet === 'citizen-spears').id")
    for uid, (x, y) in ((archers, (15, 6)), (spears, (40, 6))):
        until_equal(p1, "warfield.store.state.deploying", 1)
        p1.click(f"li[data-unit='{uid}'] button.deploy")
        until_equal(p1, "warfield.table.mode", "deploy")
        p1.mouse.click(*at(p1, x, y))
        until_equal(p1, f"warfield.store.state.units['{uid}'].status", "on_table")
        if p1.evaluate("warfield.store.state.deploying") == 2:
            gremlins = p1.evaluate(f"{units}.find(u => u.owner === 2).id")
            rest(f"{server}/api/games/{game_id}/actions",
                 {"action": {"type": "deploy_unit", "unit": gremlins, "x": 30, "y": 42,
                             "facing": 180}}, token=seat2["token"])

    p1.click(f"[data-pick='{archers}']")
    until(p1, f"{CARD}.includes('Changed by upgrades')")
    changes = p1.inner_text("#info .selected.unit .changes")
    assert "equipment: + Shield (Shield)" in changes, changes
    assert "Highborn Elves Citizen Archers with the roster's upgrades" in p1.inner_text(
        "#info .selected.unit .profile-facts")
    p1.click(f"[data-pick='{spears}']")
    until(p1, f"{CARD}.includes('With Sea Helm')")
    helm = p1.inner_text("#info .selected.unit .characters")
    assert "Unit of your own" in helm and "Defensive" in helm and "125 pts" in helm, helm
    assert not pages.errors, pages.errors
