"""Issue 18 item 2: a unit of your own validates like a datasheet (pydantic, the system's rule
list), with errors naming the field path; its id is a hash of what it is; a game's state keeps
it findable by the catalogue (the rules engine's look-ups) for as long as the game holds it."""

from __future__ import annotations

import gc
import json
from typing import Any

import pytest

from server.data import load_catalog, validate_army
from server.data.catalog import UnknownDatasheet, register_own
from server.data.own import OwnUnitError, own_datasheet, own_id, read_own_sheet


def sea_guard(**changes: Any) -> dict[str, Any]:
    unit: dict[str, Any] = {
        "ref": "my-sea-guard",
        "name": "Sea Guard",
        "base": {"shape": "rectangular", "width_mm": 20, "depth_mm": 20},
        "models": {"min": 10, "max": 40, "default": 20},
        "default_files": 5,
        "profile": {
            "height": "Standard", "type": "Infantry",
            "global_characteristics": {"advance_rate": 5, "march_rate": 10, "discipline": 8},
            "defensive": {"health_points": 1, "defensive_skill": 4, "resilience": 3,
                          "armour": 1},
            "offensive": [{"name": "Sea Guard", "attacks": 1, "offensive_skill": 4,
                           "strength": 3, "armour_penetration": 0, "agility": 5}],
            "shooting": [{"name": "Bow", "range_in": 24, "aim": 4, "strength": 3,
                          "armour_penetration": 0}],
        },
        "special_rules": ["Fearless", "Hard Target (1)"],
        "other_rules": [{"name": "Sea Drill", "text": "may re-form before shooting"}],
        "points": {"unit": 50, "per_model": 12},
    }
    unit.update(changes)
    return unit


def test_a_unit_of_your_own_is_a_datasheet_of_its_system() -> None:
    sheet = own_datasheet("t9a", sea_guard(), load_catalog())
    assert sheet.own and sheet.system == "t9a" and sheet.faction is None
    assert sheet.id == own_id(sheet) and sheet.id.startswith("own-")
    assert [r.printed for r in sheet.special_rules] == ["Fearless", "Hard Target (1)"]
    assert [r.name for r in sheet.other_rules] == ["Sea Drill"]
    assert sheet.points is not None and sheet.points.cost(20) == 290
    # The same unit is the same id; another is another.
    assert own_datasheet("t9a", sea_guard(ref="other"), load_catalog()).id == sheet.id
    assert own_datasheet("t9a", sea_guard(name="Sea Guard II"), load_catalog()).id != sheet.id


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"profile": {**sea_guard()["profile"], "defensive": {"health_points": 0,
          "defensive_skill": 4, "resilience": 3, "armour": 1}}},
         "profile.defensive.health_points: Input should be greater than or equal to 1"),
        ({"special_rules": ["Flying Pigs"]}, "special_rules.0: unknown special rule 'Flying Pigs'"),
        ({"special_rules": ["Hard Target"]}, "special_rules.0: 'Hard Target' needs a parameter"),
        ({"base": {"shape": "round", "width_mm": 20, "depth_mm": 20}},
         "base: a round base needs diameter_mm"),
        ({"models": {"min": 10, "max": 5, "default": 20}}, "models: model count needs min"),
        ({"id": "citizen-spears"}, "id: not a field of a unit of your own"),
        ({"other_rules": [{"name": "", "text": "x"}]}, "other_rules.0.name: String should have"),
    ],
)
def test_bad_units_are_refused_naming_the_field(changes: dict[str, Any], problem: str) -> None:
    with pytest.raises(OwnUnitError) as caught:
        own_datasheet("t9a", sea_guard(**changes), load_catalog())
    assert any(p.startswith(problem) for p in caught.value.problems), caught.value.problems


def test_a_huge_unit_is_refused() -> None:
    with pytest.raises(OwnUnitError, match="bytes"):
        own_datasheet("t9a", sea_guard(other_rules=[{"name": "x", "text": "y" * 999}] * 20),
                      load_catalog())


def test_an_army_with_a_unit_of_your_own_validates_with_it_and_keeps_one_faction() -> None:
    catalog = load_catalog()
    sheet = own_datasheet("t9a", sea_guard(), catalog)
    mine = catalog.with_own("t9a", [sheet])
    army = [{"datasheet": sheet.id, "models": 20, "joined_characters": ["highborn-commander"]},
            {"datasheet": "citizen-spears", "models": 20}]
    assert validate_army("t9a", army, mine, faction="Highborn Elves") == []
    assert validate_army("t9a", army, mine, faction="Highborn Elves", game_size="Standard") == []
    # Out of range like any datasheet; unknown to the plain catalogue.
    bad = validate_army("t9a", [{"datasheet": sheet.id, "models": 50}], mine)
    assert [e.code for e in bad] == ["model_count"]
    # An army's catalogue knows its own units, not those other games hold.
    alone = catalog.with_own("t9a", [])
    assert [e.code for e in validate_army("t9a", army, alone)] == ["unknown_datasheet"]


def test_the_catalogue_finds_a_registered_unit_while_a_game_holds_it() -> None:
    catalog = load_catalog()
    sheet = register_own(own_datasheet("t9a", sea_guard(name="Held Guard"), catalog))
    assert catalog.get("t9a", sheet.id) is sheet
    # What the game's log holds reads back to the same unit; a tampered one is refused.
    dumped = json.loads(json.dumps(sheet.model_dump(mode="json")))
    assert read_own_sheet("t9a", dumped, catalog) == sheet
    with pytest.raises(ValueError, match="not a unit of your own"):
        read_own_sheet("t9a", {**dumped, "name": "Changed"}, catalog)
    sheet_id = sheet.id
    del sheet
    gc.collect()
    with pytest.raises(UnknownDatasheet):
        catalog.get("t9a", sheet_id)


@pytest.mark.parametrize("system", ["t9a", "whfb8", "wh40k10"])
def test_every_catalogue_unit_rewritten_as_your_own_validates(system: str) -> None:
    """The builder starts a unit of your own from a catalogue unit's shape: in every system,
    that shape (the fields a player may write) validates as a unit of your own."""
    catalog = load_catalog()
    writable = {"name", "base", "models", "default_files", "profile", "equipment",
                "special_rules", "keywords", "character", "points", "notes"}
    for sheet in catalog.datasheets(system):
        dumped = sheet.model_dump(mode="json")
        raw = {key: dumped[key] for key in writable if dumped.get(key) is not None}
        raw["profile"] = {k: v for k, v in raw["profile"].items() if k != "system"}
        own = own_datasheet(system, {"ref": "mine", **raw}, catalog)
        assert own.profile == sheet.profile and own.own, sheet.id


def test_an_army_file_keeps_its_units_of_your_own() -> None:
    """Our army file (issue 18 item 4) carries the units of your own its entries name, so the
    list survives between games; a bad one is refused naming the field."""
    from server.data.rosters import RosterError, export_army, import_roster

    units = [{"datasheet": "my-sea-guard", "models": 20,
              "joined_characters": ["highborn-commander"]}]
    data = export_army("t9a", units, [sea_guard()])
    result = import_roster("t9a", data)
    assert [e.model_dump(exclude_defaults=True) for e in result.army] == units
    answer = result.to_json("t9a")
    assert answer["own_units"] == [sea_guard()]
    assert answer["own_datasheets"]["my-sea-guard"]["name"] == "Sea Guard"
    assert answer["report"]["problems"] == [] and answer["report"]["skipped"] == []
    bad = export_army("t9a", units, [sea_guard(special_rules=["Flying Pigs"])])
    with pytest.raises(RosterError, match="own_units.0: special_rules.0: unknown special rule"):
        import_roster("t9a", bad)
    # Without its unit of your own, the entry is skipped as before.
    assert import_roster("t9a", export_army("t9a", units)).skipped[0]["reason"] == (
        "not in the catalog")
