"""Issue 18 item 3, "weapons and upgrades that change characteristics": a roster unit mapped to
one of our datasheets keeps what its upgrades change. The unit becomes a unit of your own
``based_on`` the datasheet, with the changed profile and each change named with the selection it
comes from; anything the table cannot apply is in the mapping report with why. Items 2 and 4: a
roster's characters the catalogue lacks come in as characters that join units (a 40k Leader
with the units its Leader ability names), and t9a rosters' shooting weapons are read.

Fixtures follow the real BSData shapes: tests/data/fixtures/rosters/t9a-highborn-bsdata.ros
(BSData/The-9th-Age 2nd edition: "0 Size", "1 Global", "2 Defensive", "3 Offensive", "4 Armour",
"5 Melee Weapon", "6 Ranged Weapon", "7 Artefact"), wh40k10-marines-bsdata.ros (BSData/wh40k-10e:
"Unit" M T SV W LD OC, "Ranged Weapons" / "Melee Weapons", "Abilities", categories) and
whfb8-upgrades-newrecruit.json (BSData/whfb 8th edition as New Recruit exports it: "Weapon"
Range Strength "'+2", "Armour" "Saving Throw modifier", "Model").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from server.data import load_catalog, validate_army
from server.data.own import OwnUnitError, own_datasheet
from server.data.rosters import export_army, import_roster
from server.data.schema import T9AProfile, Wh40kProfile, WHFB8Profile

FIXTURES = Path(__file__).parent / "fixtures" / "rosters"


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def by_name(result: Any) -> dict[str, dict[str, Any]]:
    return {m["name"]: m for m in result.mapped}


def changes(mapped: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [(c["what"], c["was"], c["now"], c["source"]) for c in mapped.get("changes", [])]


# ----------------------------------------------------------------------------------- t9a


def test_t9a_great_weapon_bow_and_shield_change_the_catalogue_units() -> None:
    result = import_roster("t9a", fixture("t9a-highborn-bsdata.ros"))
    mapped = by_name(result)
    commander = mapped["Highborn Commander"]
    assert changes(commander) == [
        ("Str (Commander)", "4", "6", "Great Weapon"),
        ("AP (Commander)", "1", "3", "Great Weapon"),
        ("shooting weapon", "", 'Bow 24" Str 3 AP 0 Aim 3+', "Bow (3+)"),
        ("points", "130", "180", "the roster's upgrades"),
    ]
    assert commander["on_datasheet"] == ["Heavy Armour"]  # its own kit: nothing to change
    # An artefact prints words only: reported, its words kept as text on the card.
    assert commander["not_applied"] == [{"name": "Talisman of the Tides",
                                         "reason": "prints no characteristic this table applies"}]
    sheet = result.own_sheets[commander["ref"]]
    assert (sheet.own, sheet.based_on, sheet.faction, sheet.character) == (
        True, "highborn-commander", "Highborn Elves", True)
    assert isinstance(sheet.profile, T9AProfile)
    assert (sheet.profile.offensive[0].strength, sheet.profile.offensive[0].armour_penetration) \
        == (6, 3)
    [bow] = sheet.profile.shooting
    assert (bow.name, bow.range_in, bow.aim, bow.strength) == ("Bow", 24, 3, 3)
    assert [r.name for r in sheet.other_rules] == [
        "Great Weapon", "Bow: Volley Fire", "Talisman of the Tides"]
    assert sheet.other_rules[2].text.startswith("The bearer may reroll")  # on the card, as text
    assert [c.source for c in sheet.changes][:2] == ["Great Weapon", "Great Weapon"]
    # The Shield is on the system's equipment list: the engine's armour counts it.
    archers = mapped["Citizen Archers"]
    assert changes(archers) == [("equipment", "", "Shield", "Shield")]
    assert [e.printed for e in result.own_sheets[archers["ref"]].equipment] == [
        "Hand Weapon", "Longbow", "Light Armour", "Shield"]
    # A Musician prints nothing: the unit stays the catalogue's, the report says so.
    spears = mapped["Citizen Spears"]
    assert "ref" not in spears
    assert spears["not_applied"] == [{"name": "Musician",
                                      "reason": "prints no profile or rule to apply"}]
    assert [e.datasheet for e in result.army] == [
        commander["ref"], archers["ref"], "citizen-spears", *[c["ref"] for c in result.created]]
    assert result.to_json("t9a")["report"]["problems"] == []


def test_t9a_units_of_your_own_read_shooting_weapons_and_characters() -> None:
    """Item 3 (t9a shooting weapons) and item 2 (a character of your own)."""
    result = import_roster("t9a", fixture("t9a-highborn-bsdata.ros"))
    guard, helm = result.created
    sea_guard = result.own_sheets[guard["ref"]]
    assert isinstance(sea_guard.profile, T9AProfile)
    [bow] = sea_guard.profile.shooting
    assert bow.model_dump(exclude={"special_rules"}) == {
        "name": "Bow", "range_in": 24, "shots": 1, "aim": 4, "strength": 3,
        "armour_penetration": 0}  # Aim from the selection's name "Bow (4+)"
    assert "Bow: Volley Fire" in guard["rules_as_text"]
    assert not any("Aim assumed" in note for note in guard["assumed"])
    # Its base from BSData's "0 Size" Base "20×20", not assumed; the Sea Helm prints none.
    assert sea_guard.base.size_mm == (20, 20) and sea_guard.base.shape == "rectangular"
    assert not any("base" in note for note in guard["assumed"])
    assert "base assumed 20 x 20 mm (the roster gives none)" in helm["assumed"]
    assert (helm["name"], helm["character"]) == ("Sea Helm", True)
    sheet = result.own_sheets[helm["ref"]]
    assert sheet.character and sheet.can_join


def test_t9a_shooting_weapon_without_aim_is_assumed_and_said() -> None:
    body = fixture("t9a-highborn-bsdata.ros").replace(b'name="Bow (4+)"', b'name="Bow"')
    guard = import_roster("t9a", body).created[0]
    assert "Bow: Aim assumed 4+ (the roster prints none)" in guard["assumed"]


def test_an_own_character_from_a_roster_joins_a_catalogue_unit_and_the_join_survives_export(
) -> None:
    """Item 2: the Sea Helm (a character of your own) joins Citizen Spears like a catalogue
    character (server/data/army.py); our army file keeps the join, naming it by its ref."""
    result = import_roster("t9a", fixture("t9a-highborn-bsdata.ros"))
    helm = result.created[1]["ref"]
    army = [e for e in result.army if e.datasheet not in {helm}]
    army = [e.model_copy(update={"joined_characters": [helm]}) if e.datasheet == "citizen-spears"
            else e for e in army]
    catalog = load_catalog().with_own("t9a", result.own_sheets.values())
    ids = {ref: s.id for ref, s in result.own_sheets.items()}
    named = [e.model_copy(update={"datasheet": ids.get(e.datasheet, e.datasheet),
                                  "joined_characters": [ids[c] for c in e.joined_characters]})
             for e in army]
    assert validate_army("t9a", named, catalog) == []
    again = import_roster("t9a", export_army("t9a", army, result.own_units))
    assert again.army == army
    assert again.to_json("t9a")["report"]["problems"] == []
    spears = next(e for e in again.army if e.datasheet == "citizen-spears")
    assert spears.joined_characters == [helm]


# ----------------------------------------------------------------------------------- 40k


def test_40k_power_fist_goes_to_the_sergeant_and_one_grenade_launcher_is_reported() -> None:
    result = import_roster("wh40k10", fixture("wh40k10-marines-bsdata.ros"))
    squad = by_name(result)["Intercessor Squad"]
    assert changes(squad) == [("melee weapon", "", "Power fist Melee WS 3+ A 3 S 8 AP -2 D 2",
                               "Power fist")]
    assert squad["on_datasheet"] == ["Bolt pistol", "Bolt rifle"]
    assert squad["not_applied"] == [{
        "name": "Astartes grenade launcher",
        "reason": "carried by 1 of 4 Intercessor; a change applies to every model of a model "
                  "line"}]
    sheet = result.own_sheets[squad["ref"]]
    assert isinstance(sheet.profile, Wh40kProfile)
    fist = next(w for w in sheet.profile.weapons if w.name == "Power fist")
    assert (fist.type, fist.S, fist.AP, fist.D, fist.carried_by) == (
        "melee", 8, -2, 2, "Intercessor Sergeant")
    assert sheet.points is not None and sheet.points.cost(5) == 80  # tiers kept


def test_40k_leader_of_your_own_leads_what_its_leader_ability_names() -> None:
    """Item 2: BSData's "Leader" ability ("can be attached to the following units: ■ Assault
    Intercessor Squad ■ Intercessor Squad") gives the Lieutenant of your own its `leads`; it
    leads the Intercessor Squad, even changed by its upgrades (based on that datasheet)."""
    result = import_roster("wh40k10", fixture("wh40k10-marines-bsdata.ros"))
    [lieutenant] = result.created
    assert (lieutenant["character"], lieutenant["leads"]) == (True, ["intercessor-squad"])
    sheet = result.own_sheets[lieutenant["ref"]]
    assert sheet.can_join and sheet.leads == ["intercessor-squad"]
    squad_ref = by_name(result)["Intercessor Squad"]["ref"]
    body = json.loads(export_army("wh40k10", [
        {"datasheet": squad_ref, "models": 5, "joined_characters": [lieutenant["ref"]]}],
        result.own_units))
    again = import_roster("wh40k10", json.dumps(body).encode())
    assert again.to_json("wh40k10")["report"]["problems"] == []
    # A Leader of your own leads only what it names.
    catalog = load_catalog().with_own("wh40k10", again.own_sheets.values())
    boyz = [{"datasheet": "boyz", "models": 10, "joined_characters": [sheet.id]}]
    [problem] = validate_army("wh40k10", boyz, catalog)
    assert problem.code == "leader_cannot_lead"


def test_a_leader_of_your_own_names_catalogue_units_only() -> None:
    raw = {"ref": "lt", "name": "Lieutenant", "base": {"shape": "round", "diameter_mm": 40},
           "models": {"min": 1, "max": 1, "default": 1}, "character": True,
           "leads": ["dragon-squad"],
           "profile": {"models": [{"name": "Lieutenant", "M": 6, "T": 4, "Sv": 3, "W": 4,
                                   "Ld": 6, "OC": 1}]}}
    with pytest.raises(OwnUnitError, match="leads.0: 'dragon-squad' is not a datasheet"):
        own_datasheet("wh40k10", raw, load_catalog())


def test_a_unit_based_on_a_datasheet_cannot_choose_its_own_faction_or_joins() -> None:
    catalog = load_catalog()
    boyz = catalog.get("wh40k10", "boyz").model_dump(mode="json")
    raw = {"ref": "b", "name": "Boyz", "base": boyz["base"], "models": boyz["models"],
           "profile": {k: v for k, v in boyz["profile"].items() if k != "system"},
           "based_on": "boyz",
           "changes": [{"what": "T (Boy)", "was": "5", "now": "6", "source": "test"}]}
    sheet = own_datasheet("wh40k10", raw, catalog)
    assert (sheet.faction, sheet.led_by) == (catalog.get("wh40k10", "boyz").faction,
                                             catalog.get("wh40k10", "boyz").led_by)
    with pytest.raises(OwnUnitError, match="based_on: 'gretchin'"):
        own_datasheet("wh40k10", {**raw, "based_on": "gretchin"}, catalog)
    with pytest.raises(OwnUnitError, match="leads: a unit based on a datasheet"):
        own_datasheet("wh40k10", {**raw, "leads": ["boyz"]}, catalog)
    without = {k: v for k, v in raw.items() if k != "based_on"}
    with pytest.raises(OwnUnitError, match="changes"):
        own_datasheet("wh40k10", without, catalog)


# ----------------------------------------------------------------------------------- whfb8


def test_whfb8_shield_great_weapon_and_steed_and_a_marksmans_rifle_reported() -> None:
    result = import_roster("whfb8", fixture("whfb8-upgrades-newrecruit.json"))
    assert result.format == "newrecruit-json"
    mapped = by_name(result)
    halberdiers = mapped["Halberdiers"]
    assert changes(halberdiers)[:2] == [("equipment", "", "Shield", "Shield"),
                                        ("armour save", "6+", "5+", "Shield")]
    assert halberdiers["on_datasheet"] == ["Halberd"]
    sheet = result.own_sheets[halberdiers["ref"]]
    assert isinstance(sheet.profile, WHFB8Profile) and sheet.profile.save == 5
    # One Marksman's rifle would arm all ten: not applied, said so.
    gunners = mapped["Handgunners"]
    assert "ref" not in gunners
    assert gunners["not_applied"] == [{
        "name": "Hochland Long Rifle",
        "reason": "carried by Marksman only; a change here would apply to every model of the "
                  "unit"}]
    king = mapped["Tomb King"]
    assert changes(king)[:3] == [
        ("equipment", "", "Great Weapon", "Great Weapon"),
        ("model", "", "Skeletal Steed M 8 WS 2 S 3 T 3 A 1", "Skeletal Steed"),
        ("troop type", "Infantry", "Cavalry", "Skeletal Steed")]
    king_sheet = result.own_sheets[king["ref"]]
    assert isinstance(king_sheet.profile, WHFB8Profile)
    assert [m.name for m in king_sheet.profile.models] == ["Tomb King", "Skeletal Steed"]
    assert king_sheet.profile.models[0].S == 5  # the engine adds the Great Weapon's +2
    # A changed unit keeps its army book: the Tomb King is refused in an Empire army.
    [problem] = result.to_json("whfb8")["report"]["problems"]
    assert (problem["code"], problem["details"]["faction"]) == ("wrong_faction", "Tomb Kings")
