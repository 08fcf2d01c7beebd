"""Import a roster in the army builder, see the mapping report, export the army and submit it
(issue 18 items 3, 4 and 6's import and export buttons)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_table import READY, create_game_in_lobby
from tests.e2e.waits import until_equal

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
    p1.wait_for_selector("#army-waiting")
    until_equal(p1, "Object.values(warfield.store.state.units).filter(u => u.owner === 1)"
                    ".map(u => u.datasheet).sort()",
                sorted(["highborn-commander", "citizen-spears", "citizen-archers",
                        "knights-of-ryma"]))
