"""The army builder in a browser (issue 18 items 1, 2, 5 and 6): faction first, then that
faction's units with points against the game size; a unit of your own defined, refused with the
field named, then checked, saved in the browser and submitted; its whole card on the table, and
the opponent's Citizen Archers' card with their profile (it used to list nothing)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_battle_ui import rest
from tests.e2e.test_table import READY, at, create_game_in_lobby
from tests.e2e.waits import until, until_equal

pytestmark = pytest.mark.e2e

OPTIONS = "[...document.querySelectorAll('select[name=datasheet] option')].map(o => o.value)"
POINTS = "document.querySelector('#army-points').textContent"
CARD = "document.querySelector('#info .selected.unit')?.textContent || ''"


def test_build_an_army_with_points_and_a_unit_of_your_own(server: str, pages: Any) -> None:
    p1 = pages.open("player1", server + "/")
    links = create_game_in_lobby(p1, "Army lists")
    p1.click("#open-player1")
    p1.wait_for_function(READY)
    game_id = p1.evaluate("warfield.gameId")
    seat2 = rest(f"{server}/api/games/{game_id}/seats",
                 {"invite": links["invite"].split("#join=", 1)[1]})
    p1.wait_for_selector("#setup:not([hidden])")
    p1.wait_for_selector("select[name=faction] option[value='Highborn Elves']", state="attached")

    # Faction first: the picker then offers the Highborn Elves' units only (Archers first).
    p1.select_option("select[name=faction]", "Highborn Elves")
    until_equal(p1, OPTIONS, ["citizen-archers", "citizen-spears", "highborn-commander",
                              "knights-of-ryma"])
    until(p1, "document.querySelector('#model-limits').textContent.includes('10–30 models')")
    p1.select_option("select[name=datasheet]", "citizen-spears")
    p1.fill("input[name=models]", "20")
    p1.click("form.army-add button[type=submit]")
    # Citizen Spears: 25 + 20 x 11 = 245 of the Standard game's 4,500.
    until_equal(p1, POINTS, "Total: 245 of 4,500 points (Standard)")

    # A unit of your own from the Archers' shape: a bad value is refused naming the field.
    p1.click("#own-unit summary")
    p1.select_option("select[name=own-from]", "citizen-archers")
    p1.fill("input[name=own-name]", "Sea Guard")
    hp = "[data-path='profile.defensive.health_points']"
    p1.fill(hp, "0")
    p1.click("#own-check")
    p1.wait_for_selector("#own-problems li:has-text('profile.defensive.health_points')")
    p1.fill(hp, "1")
    p1.check("input[name=own-rule][value='Fearless']")
    p1.fill("textarea[name=own-other-rules]", "Sea Drill: may re-form before shooting")
    p1.fill("input[name=own-points-per-model]", "12")
    p1.click("#own-check")
    p1.wait_for_selector("#own-preview h5:has-text('Sea Guard: checked')")
    until_equal(p1, "[...document.querySelectorAll('.army-list > li')]"
                    ".map(li => li.dataset.datasheet)", ["citizen-spears", "my-sea-guard"])
    # Archers' unit cost 25 + 10 models x 12 = 145: the total follows.
    until_equal(p1, POINTS, "Total: 390 of 4,500 points (Standard)")
    saved = p1.evaluate("JSON.parse(localStorage.getItem('warfield.own-units.t9a'))")
    assert [u["name"] for u in saved] == ["Sea Guard"]
    assert saved[0]["other_rules"] == [{"name": "Sea Drill", "text": "may re-form before shooting"}]

    # Export army: the file carries the unit of your own; imported back, the same list.
    with p1.expect_download() as download:
        p1.click("#export-army")
    exported = Path(download.value.path())
    body = json.loads(exported.read_text())
    assert [u["name"] for u in body["own_units"]] == ["Sea Guard"]
    assert [u["datasheet"] for u in body["units"]] == ["citizen-spears", "my-sea-guard"]
    p1.set_input_files("#roster-file", str(exported))
    p1.wait_for_selector("#roster-report h4:has-text('2 mapped, 0 skipped')")
    until_equal(p1, "[...document.querySelectorAll('.army-list > li')]"
                    ".map(li => li.dataset.datasheet)", ["citizen-spears", "my-sea-guard"])
    until_equal(p1, POINTS, "Total: 390 of 4,500 points (Standard)")

    p1.click("#submit-army")
    p1.click("#confirm-submit-army")  # the "Submit your army?" dialog
    p1.wait_for_selector("#army-waiting")
    own_id = p1.evaluate("Object.keys(warfield.store.state.own_datasheets)[0]")
    assert own_id.startswith("own-")
    rest(f"{server}/api/games/{game_id}/actions",
         {"action": {"type": "submit_army",
                     "units": [{"datasheet": "citizen-archers", "models": 10}]}},
         token=seat2["token"])
    p1.wait_for_function("warfield.store.state.stage === 'deployment'")

    # Deploy the unit of your own and open its card: the whole profile, marks and points.
    uid = p1.evaluate("Object.values(warfield.store.state.units)"
                      f".find(u => u.datasheet === '{own_id}').id")
    p1.click(f"li[data-unit='{uid}'] button.deploy")
    until_equal(p1, "warfield.table.mode", "deploy")
    p1.mouse.click(*at(p1, 20, 6))
    until_equal(p1, f"warfield.store.state.units['{uid}'].status", "on_table")
    p1.click(f"[data-pick='{uid}']")
    p1.wait_for_selector("#info .selected.unit .profile-table")
    until(p1, f"{CARD}.includes('Unit of your own') && {CARD}.includes('Longbow')")
    card = p1.inner_text("#info .selected.unit")
    for words in ("Sea Guard", "Base 20 × 20 mm rectangular", "10–30 models", "Light Armour",
                  "25 pts + 12 pts per model", "Range", "30″", "Sea Drill", "may re-form",
                  "Fearless"):
        assert words in card, (words, card)
    assert p1.inner_text("#info .rules li:has-text('Sea Drill') .mark").strip() == "(not automated)"

    # The opponent's Citizen Archers: their card shows the profile too (public information).
    archers = p1.evaluate("Object.values(warfield.store.state.units).find(u => u.owner === 2).id")
    p1.evaluate(f"warfield.table.select('{archers}')")
    until(p1, f"{CARD}.includes('Citizen Archers') && {CARD}.includes('Longbow')")
    card = p1.inner_text("#info .selected.unit")
    for words in ("Highborn Elves", "Offensive", "Defensive", "Light Armour", "Hand Weapon",
                  "25 pts + 14 pts per model"):
        assert words in card, (words, card)


def test_a_leader_of_your_own_from_the_form_leads_a_catalogue_unit(
    server: str, pages: Any
) -> None:
    """Issue 18 item 2 (40k): a character of your own defined in the builder's form, ticked to
    lead Boyz, is offered to join the Boyz like a catalogue Leader; submitted, the Boyz carry
    it (the server's join rules, server/data/wh40k10: a Leader leads what it lists)."""
    p1 = pages.open("player1", server + "/")
    create_game_in_lobby(p1, "Leader of your own", system="wh40k10")
    p1.click("#open-player1")
    p1.wait_for_function(READY)
    p1.wait_for_selector("#setup:not([hidden])")
    p1.wait_for_selector("select[name=faction] option[value='Orks']", state="attached")
    p1.select_option("select[name=faction]", "Orks")
    p1.select_option("select[name=datasheet]", "boyz")
    p1.fill("input[name=models]", "10")
    p1.click("form.army-add button[type=submit]")
    until_equal(p1, "document.querySelectorAll('.army-list > li').length", 1)

    p1.click("#own-unit summary")
    p1.select_option("select[name=own-from]", "wurrboy")
    p1.fill("input[name=own-name]", "Big Mek")
    # 40k costs go by unit size (the datasheets' tiers): the form takes them as printed.
    p1.fill("input[name=own-points-tiers]", "1: 75")
    p1.check("input[name=own-character]")
    p1.check("input[name=own-leads][value='boyz']")
    p1.click("#own-check")
    p1.wait_for_selector("#own-preview h5:has-text('Big Mek: checked')")
    until_equal(p1, "document.querySelectorAll('.army-list > li').length", 2)
    p1.select_option("li[data-datasheet='boyz'] select.join", label="Big Mek")
    until_equal(p1, "document.querySelectorAll('.army-list > li').length", 1)
    until(p1, "document.getElementById('army-points').textContent.startsWith('Total: 155')")
    p1.click("#submit-army")
    p1.click("#confirm-submit-army")  # the "Submit your army?" dialog
    p1.wait_for_selector("#army-waiting")
    until_equal(p1, "Object.values(warfield.store.state.units).filter(u => u.owner === 1)"
                    ".map(u => u.name)", ["Boyz + Big Mek"])
    assert not pages.errors, pages.errors
