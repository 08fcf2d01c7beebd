"""Roster import and army export (issue 18 items 3 and 4): BattleScribe .ros/.rosz, New Recruit
JSON and our own army file, for each system; malformed files are refused with a message.

Fixtures under tests/data/fixtures/rosters/ are hand-made after the shapes of public
BattleScribe rosters (BSData wh40k-10e, The-9th-Age, warhammer-fantasy-8th) and New Recruit's
JSON export, which carries the same selection tree.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.data import load_catalog
from server.data.army import ArmyEntry, validate_army
from server.data.catalog import UnknownSystem
from server.data.own import OwnUnitError, own_datasheet
from server.data.rosters import (
    MAX_INPUT_BYTES,
    MAX_XML_BYTES,
    RosterError,
    export_army,
    import_roster,
    match_datasheet,
    normalize_name,
)
from server.data.schema import SYSTEM_IDS

FIXTURES = Path(__file__).parent / "fixtures" / "rosters"
NO_40K_PROFILE = ("not in the catalog, and the roster prints no Unit profile with M, T, SV, W, "
                  "LD and OC")
"""Why a roster unit the catalogue lacks, printing no profile, is skipped (40k)."""


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def rosz(xml: bytes, name: str = "roster.ros") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, xml)
    return buffer.getvalue()


def entries(result: Any) -> list[dict[str, Any]]:
    return [e.model_dump(exclude_defaults=True) | {"datasheet": e.datasheet, "models": e.models}
            for e in result.army]


# ----------------------------------------------------------------------- rosters that map fully


def test_battlescribe_40k_roster_maps_fully_with_model_counts_and_points() -> None:
    result = import_roster("wh40k10", fixture("wh40k10-orks-full.ros"))
    assert result.format == "battlescribe-ros"
    assert entries(result) == [
        {"datasheet": "boyz", "models": 10},
        {"datasheet": "beast-snagga-boyz", "models": 10},
        {"datasheet": "wurrboy", "models": 1},
        {"datasheet": "boyz", "models": 20},
    ]
    assert result.skipped == []  # the "Battle Size" upgrade is not a unit
    assert [m["points"] for m in result.mapped] == [80, 95, 60, 110]
    assert result.roster_points == 345
    assert result.mapped[0]["faction"] == "Xenos - Orks"
    assert validate_army("wh40k10", result.army) == []


@pytest.mark.parametrize(
    ("system", "name"),
    [("wh40k10", "wh40k10-orks-full.ros"), ("t9a", "t9a-highborn-full.ros"),
     ("whfb8", "whfb8-empire-full.ros"), ("wh40k10", "wh40k10-own-units.ros"),
     ("t9a", "t9a-own-units.ros"), ("t9a", "t9a-highborn-bsdata.ros"),
     ("wh40k10", "wh40k10-marines-bsdata.ros")],
)
def test_zipped_rosz_reads_like_its_ros(system: str, name: str) -> None:
    """Each system's .rosz: the same army, units of your own included, as its .ros."""
    xml = fixture(name)
    zipped = import_roster(system, rosz(xml))
    plain = import_roster(system, xml)
    assert zipped.format == "battlescribe-rosz"
    assert zipped.army == plain.army and zipped.army
    assert zipped.own_units == plain.own_units and zipped.created == plain.created


def test_battlescribe_t9a_roster_maps_fully_with_command_group_standard() -> None:
    result = import_roster("t9a", fixture("t9a-highborn-full.ros"))
    assert entries(result) == [
        {"datasheet": "highborn-commander", "models": 1},
        {"datasheet": "citizen-spears", "models": 25, "standard": True},
        {"datasheet": "citizen-archers", "models": 10},
        {"datasheet": "knights-of-ryma", "models": 5},
    ]
    assert result.skipped == []
    # Points sum the unit and every upgrade under it: 25 + 275 + 10 + 10.
    assert result.mapped[1]["points"] == 320
    assert validate_army("t9a", result.army) == []


def test_battlescribe_whfb8_roster_maps_fully_through_aliases() -> None:
    result = import_roster("whfb8", fixture("whfb8-empire-full.ros"))
    assert entries(result) == [
        {"datasheet": "empire-halberdiers", "models": 30, "standard": True},
        {"datasheet": "empire-handgunners", "models": 15},
    ]
    assert result.mapped[0]["name"] == "Halberdiers"
    assert result.skipped == []


def test_new_recruit_40k_export_maps_fully() -> None:
    result = import_roster("wh40k10", fixture("wh40k10-orks-newrecruit.json"))
    assert result.format == "newrecruit-json"
    assert entries(result) == [
        {"datasheet": "boyz", "models": 10},
        {"datasheet": "wurrboy", "models": 1},
    ]
    assert result.skipped == [] and result.roster_points == 140


# ----------------------------------------------------------------------- rosters that map partly


def test_battlescribe_40k_roster_maps_partly_and_reports_what_it_skipped() -> None:
    result = import_roster("wh40k10", fixture("wh40k10-mixed-partial.ros"))
    assert entries(result) == [
        {"datasheet": "intercessor-squad", "models": 5},
        {"datasheet": "intercessor-squad", "models": 5},  # "INTERCESSOR SQUAD": case folded
    ]
    assert [(s["name"], s["reason"], s["points"]) for s in result.skipped] == [
        ("Captain in Terminator Armour", NO_40K_PROFILE, 95),
        ("Redemptor Dreadnought", NO_40K_PROFILE, 210),
    ]


def test_new_recruit_t9a_export_maps_partly() -> None:
    result = import_roster("t9a", fixture("t9a-daemons-newrecruit.json"))
    assert entries(result) == [
        {"datasheet": "daemon-herald", "models": 1},
        {"datasheet": "mageblight-gremlin", "models": 4},  # "Mageblight Gremlins": plural
    ]
    assert [(s["name"], s["models"], s["reason"]) for s in result.skipped] == [
        ("Kuulima's Deceivers", 6, "not in the catalog, and the roster prints no Global (Adv, "
         "Mar, Dis), Defensive (HP, Def, Res, Arm), Offensive (Att, Off, Str, AP, Agi)")
    ]


def test_new_recruit_whfb8_fanatics_in_the_unit_become_concealed_models() -> None:
    """Night Goblin Fanatics hide in their unit (seed 003): roster model children under the
    unit are its concealed models, not rank-and-file."""
    result = import_roster("whfb8", fixture("whfb8-goblins-newrecruit.json"))
    assert entries(result) == [
        {"datasheet": "night-goblins", "models": 30, "standard": True,
         "concealed": {"night-goblin-fanatic": 2}},
    ]
    assert [s["name"] for s in result.skipped] == ["Orc Warboss"]
    assert validate_army("whfb8", result.army) == []


def test_report_lists_what_submit_army_would_refuse() -> None:
    roster = fixture("t9a-daemons-newrecruit.json").replace(b'"number": 4', b'"number": 9')
    body = import_roster("t9a", roster).to_json("t9a")
    assert [p["code"] for p in body["report"]["problems"]] == ["model_count"]


def test_names_fold_case_punctuation_plurals_and_aliases() -> None:
    assert normalize_name("  Knights-of  RYMA! ") == "knights of ryma"
    assert match_datasheet("t9a", "knights of ryma") == "knights-of-ryma"
    assert match_datasheet("t9a", "Citizen Spearmen") == "citizen-spears"
    assert match_datasheet("wh40k10", "Intercessors") == "intercessor-squad"
    assert match_datasheet("whfb8", "Tomb Swarms") == "tomb-swarm"
    assert match_datasheet("whfb8", "Orc Warboss") is None


def test_roster_for_another_system_is_refused() -> None:
    with pytest.raises(RosterError, match="not t9a"):
        import_roster("t9a", fixture("wh40k10-orks-full.ros"))


def test_unknown_system_raises() -> None:
    with pytest.raises(UnknownSystem):
        import_roster("chess", fixture("wh40k10-orks-full.ros"))


# ----------------------------------------------------------------------- malformed files


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"<roster><forces><force>", "not well-formed XML"),
        (b"<army/>", "XML root is <army>"),
        (b"", "empty"),
        (b"hello", "not a roster"),
        (b"{not json", "not valid JSON"),
        (b'{"something": 1}', "neither a Warfield army file"),
        (b"[" * 100_000 + b"]" * 100_000, "too deeply"),
    ],
    ids=["bad-xml", "wrong-root", "empty", "garbage", "bad-json", "unknown-json", "deep-json"],
)
def test_malformed_file_is_refused_with_a_message(data: bytes, message: str) -> None:
    with pytest.raises(RosterError, match=message) as caught:
        import_roster("wh40k10", data)
    assert caught.value.code == "bad_request"


def test_bad_zip_is_refused() -> None:
    with pytest.raises(RosterError, match="not a readable .rosz"):
        import_roster("wh40k10", b"PK\x03\x04" + b"\x00" * 200)


def test_zip_without_a_roster_is_refused() -> None:
    with pytest.raises(RosterError, match="no .ros roster"):
        import_roster("wh40k10", rosz(b"hello", name="readme.txt"))


def test_file_over_the_size_cap_is_refused_before_reading() -> None:
    big = b"<roster>" + b" " * (50 * 1024 * 1024) + b"</roster>"  # a 50 MB file
    with pytest.raises(RosterError, match="at most"):
        import_roster("wh40k10", big)
    assert len(fixture("wh40k10-orks-full.ros")) < MAX_INPUT_BYTES


def test_zip_bomb_is_refused_while_inflating() -> None:
    """A small .rosz whose roster inflates past the cap: refused, whatever its header says."""
    bomb = rosz(b"<roster>" + b" " * (MAX_XML_BYTES + 1) + b"</roster>")
    assert len(bomb) < MAX_INPUT_BYTES
    with pytest.raises(RosterError, match="bytes"):
        import_roster("wh40k10", bomb)


XML_BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<roster name="&lol4;"><forces/></roster>"""

XXE = b"""<?xml version="1.0"?>
<!DOCTYPE roster [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<roster name="&x;"><forces/></roster>"""


@pytest.mark.parametrize("data", [XML_BOMB, XXE], ids=["entity-expansion", "external-entity"])
def test_xml_bomb_and_external_entities_are_refused(data: bytes) -> None:
    with pytest.raises(RosterError, match="DTD or entities"):
        import_roster("wh40k10", data)
    with pytest.raises(RosterError, match="DTD or entities"):
        import_roster("wh40k10", rosz(data))


def test_selections_nested_too_deep_are_refused() -> None:
    deep = b"<roster><forces><force>" + b"<selections><selection>" * 60
    deep += b"</selection></selections>" * 60 + b"</force></forces></roster>"
    with pytest.raises(RosterError, match="nest more than"):
        import_roster("wh40k10", deep)


# ----------------------------------------------------------------------- our army file


def test_export_then_import_keeps_joins_and_concealed_models() -> None:
    army = [
        {"datasheet": "night-goblins", "models": 30, "concealed": {"night-goblin-fanatic": 2},
         "standard": True},
        {"datasheet": "skeleton-warriors", "models": 20, "joined_characters": ["tomb-king"],
         "battle_standard": True},
    ]
    data = export_army("whfb8", army)
    assert json.loads(data)["format"] == "warfield-army" and json.loads(data)["version"] == 1
    result = import_roster("whfb8", data)
    assert result.format == "warfield-army"
    assert result.army == [ArmyEntry.model_validate(u) for u in army]


def test_army_file_for_another_system_or_version_is_refused() -> None:
    data = export_army("t9a", [{"datasheet": "citizen-spears", "models": 20}])
    with pytest.raises(RosterError, match="for t9a, not whfb8"):
        import_roster("whfb8", data)
    body = json.loads(data) | {"version": 99}
    with pytest.raises(RosterError, match="version 99"):
        import_roster("t9a", json.dumps(body).encode())


def test_army_file_unit_not_in_the_catalog_is_skipped() -> None:
    body = {"format": "warfield-army", "version": 1, "system": "t9a",
            "units": [{"datasheet": "citizen-spears", "models": 20},
                      {"datasheet": "dragon", "models": 1}]}
    result = import_roster("t9a", json.dumps(body).encode())
    assert [e.datasheet for e in result.army] == ["citizen-spears"]
    assert result.skipped == [{"name": "dragon", "models": 1, "reason": "not in the catalog",
                               "datasheets": ["dragon"]}]


def test_army_file_with_a_malformed_unit_is_refused() -> None:
    body = {"format": "warfield-army", "version": 1, "system": "t9a",
            "units": [{"datasheet": "citizen-spears", "models": "many"}]}
    with pytest.raises(RosterError, match="unit 0: models"):
        import_roster("t9a", json.dumps(body).encode())


@st.composite
def valid_armies(draw: st.DrawFn) -> tuple[str, list[ArmyEntry]]:
    """Armies that pass validate_army: random units of a system, each with a legal model
    count, a joinable character where the datasheets allow one, a standard where allowed."""
    system = draw(st.sampled_from(SYSTEM_IDS))
    catalog = load_catalog()
    faction = draw(st.sampled_from(catalog.factions(system)))  # one army book / codex
    sheets = [s for s in catalog.datasheets(system) if s.faction == faction]
    army: list[ArmyEntry] = []
    for _ in range(draw(st.integers(0, 5))):
        sheet = draw(st.sampled_from(sheets))
        models = draw(st.integers(sheet.models.min, sheet.models.max))
        fields: dict[str, Any] = {"datasheet": sheet.id, "models": models}
        if system != "wh40k10" and not sheet.character and draw(st.booleans()):
            fields["standard"] = True
        if sheet.conceals and draw(st.booleans()):
            hidden = sheet.conceals[0]
            fields["concealed"] = {hidden.datasheet: draw(st.integers(0, hidden.max))}
        candidates = [c for c in sheets if c.can_join and c.id != sheet.id]
        if candidates and not sheet.character and draw(st.booleans()):
            fields["joined_characters"] = [draw(st.sampled_from(candidates)).id]
        entry = ArmyEntry.model_validate(fields)
        if not validate_army(system, [*army, entry], catalog):
            army.append(entry)
    return system, army


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_armies())
def test_any_valid_army_exported_and_imported_is_the_same_army(
    case: tuple[str, list[ArmyEntry]],
) -> None:
    system, army = case
    assert validate_army(system, army) == []
    result = import_roster(system, export_army(system, army))
    assert result.army == army
    assert result.skipped == []


WRITABLE = ("name", "base", "models", "default_files", "profile", "equipment", "special_rules",
            "keywords", "character", "points")


@st.composite
def armies_with_units_of_your_own(
    draw: st.DrawFn,
) -> tuple[str, list[ArmyEntry], list[dict[str, Any]]]:
    """Valid armies with units of your own (issue 18 item 2): catalogue units rewritten as a
    player's own, some ``based_on`` their datasheet with a change (a roster's upgrades, item
    3), characters of your own joined to a unit."""
    system, army = draw(valid_armies())
    catalog = load_catalog()
    faction = next((catalog.get(system, e.datasheet).faction for e in army), None)
    own: list[dict[str, Any]] = []
    sheets: dict[str, Any] = {}
    for k in range(draw(st.integers(1, 3))):
        base = draw(st.sampled_from(catalog.datasheets(system)))
        dumped = base.model_dump(mode="json")
        raw: dict[str, Any] = {key: dumped[key] for key in WRITABLE if dumped.get(key) is not None}
        raw["profile"] = {k2: v for k2, v in raw["profile"].items() if k2 != "system"}
        raw["ref"] = f"mine-{k}"
        if (faction is None or base.faction == faction) and draw(st.booleans()):
            faction = faction or base.faction
            raw.update(based_on=base.id, changes=[{"what": "Points", "was": "",
                                                   "now": str(k), "source": "upgrade"}])
        elif base.leads:
            raw["leads"] = list(base.leads)
        try:
            sheet = own_datasheet(system, raw, catalog)
        except OwnUnitError:
            continue
        entry = ArmyEntry(datasheet=raw["ref"], models=base.models.default)
        hosts = [i for i, e in enumerate(army) if not e.joined_characters and not (
            sheets.get(e.datasheet) or catalog.get(system, e.datasheet)).character]
        if sheet.can_join and hosts and draw(st.integers(0, 3)):
            at = draw(st.sampled_from(hosts))
            trial = [*army]
            trial[at] = army[at].model_copy(update={"joined_characters": [raw["ref"]]})
        else:
            trial = [*army, entry]
        ids = {**{r: s.id for r, s in sheets.items()}, raw["ref"]: sheet.id}
        named = [e.model_copy(update={"datasheet": ids.get(e.datasheet, e.datasheet),
                                      "joined_characters": [ids.get(c, c)
                                                            for c in e.joined_characters]})
                 for e in trial]
        mine = catalog.with_own(system, [*sheets.values(), sheet])
        if not validate_army(system, named, mine):
            army, sheets[raw["ref"]] = trial, sheet
            own.append(raw)
    return system, army, own


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(armies_with_units_of_your_own())
def test_any_valid_army_with_units_of_your_own_exports_and_imports_the_same(
    case: tuple[str, list[ArmyEntry], list[dict[str, Any]]],
) -> None:
    system, army, own = case
    result = import_roster(system, export_army(system, army, own))
    assert result.army == army
    assert result.own_units == own
    assert result.skipped == []
    assert result.to_json(system)["report"]["problems"] == []


@pytest.mark.parametrize("system", SYSTEM_IDS)
def test_every_alias_names_a_datasheet_of_its_system(system: str) -> None:
    from server.data.rosters import aliases

    known = {sheet.id for sheet in load_catalog().datasheets(system)}
    table = aliases(system)
    assert table, f"{system} has an alias table"
    assert set(table.values()) <= known, set(table.values()) - known


# ------------------------------------------- units the catalogue lacks become units of your own


def test_an_unmapped_40k_unit_with_its_profile_becomes_a_unit_of_your_own() -> None:
    """Issue 18 item 3: "anything unmapped becomes a unit of your own with what the roster
    gives (profile, rules text, points)". The Redemptor Dreadnought prints BSData's Unit and
    weapon profiles: its characteristics, weapons and points come over; Deadly Demise D6 is
    on the system's list (automated), Duty Eternal and the weapon keywords the list lacks are
    kept as text; the base, which rosters never give, is assumed and said so. The Captain
    prints no profile: skipped, saying why."""
    result = import_roster("wh40k10", fixture("wh40k10-own-units.ros"))
    [ref] = result.own_sheets
    assert entries(result) == [{"datasheet": "intercessor-squad", "models": 5},
                               {"datasheet": ref, "models": 1}]
    sheet = result.own_sheets[ref]
    assert sheet.own and sheet.name == "Redemptor Dreadnought"
    assert sheet.profile.model_dump(exclude={"system", "weapons"}) == {
        "models": [{"name": "Redemptor Dreadnought", "M": 8, "T": 10, "Sv": 2, "W": 12,
                    "Ld": 6, "OC": 4}],
        "invulnerable_save": None,
    }
    weapons = {w.name: w for w in sheet.profile.weapons}  # type: ignore[union-attr]
    assert (weapons["Icarus rocket pod"].A, weapons["Icarus rocket pod"].range_in) == ("D3", 24)
    assert [k.printed for k in weapons["Icarus rocket pod"].keywords] == ["HEAVY"]
    assert (weapons["Redemptor fist"].type, weapons["Redemptor fist"].WS,
            weapons["Redemptor fist"].AP) == ("melee", 3, -2)
    assert [r.printed for r in sheet.special_rules] == ["Deadly Demise D6"]
    assert [r.name for r in sheet.other_rules] == [
        "Duty Eternal", "Heavy onslaught gatling cannon: Devastating Wounds",
        "Icarus rocket pod: Anti-fly 2+"]
    assert sheet.points is not None and sheet.points.cost(1) == 210
    assert sheet.base.diameter_mm == 32
    [created] = result.created
    assert created["name"] == "Redemptor Dreadnought" and created["points"] == 210
    assert "base assumed 32 mm round (the roster gives none)" in created["assumed"]
    assert [(s["name"], s["reason"]) for s in result.skipped] == [
        ("Captain in Terminator Armour", NO_40K_PROFILE)]
    body = result.to_json("wh40k10")
    assert body["report"]["problems"] == []
    assert body["own_units"][0]["ref"] == ref and body["own_datasheets"][ref]["id"] == sheet.id


WHFB8_GREATSWORDS = {
    "roster": {
        "gameSystemName": "Warhammer Fantasy 8th ed",
        "forces": [{"catalogueName": "The Empire", "selections": [
            {"name": "Halberdiers", "type": "unit", "number": 1,
             "costs": [{"name": "pts", "value": 120}],
             "selections": [{"name": "Halberdier", "type": "model", "number": 20}]},
            {"name": "Greatswords", "type": "unit", "number": 1,
             "costs": [{"name": "pts", "value": 110}],
             "rules": [{"name": "Stubborn", "description": "Never give ground."},
                       {"name": "Detachment", "description": "May support a parent unit."}],
             "selections": [
                 {"name": "Greatsword", "type": "model", "number": 10,
                  "profiles": [{"name": "Greatsword", "typeName": "Model", "characteristics": [
                      {"name": "M", "$text": "4"}, {"name": "WS", "$text": "4"},
                      {"name": "BS", "$text": "3"}, {"name": "S", "$text": "3"},
                      {"name": "T", "$text": "3"}, {"name": "W", "$text": "1"},
                      {"name": "I", "$text": "3"}, {"name": "A", "$text": "1"},
                      {"name": "LD", "$text": "8"}, {"name": "ArmourSave", "$text": "4+"},
                      {"name": "Type", "$text": "In"}]}]}]},
        ]}],
    }
}
"""A New Recruit export (BattleScribe's JSON shape) after BSData/whfb's 8th-edition profile
types: "Model" with M WS BS S T W I A LD ArmourSave WardSave Type."""


def test_an_unmapped_whfb8_unit_from_new_recruit_becomes_a_unit_of_your_own() -> None:
    result = import_roster("whfb8", json.dumps(WHFB8_GREATSWORDS).encode())
    assert [m["datasheet"] for m in result.mapped] == ["empire-halberdiers"]
    [sheet] = result.own_sheets.values()
    assert sheet.name == "Greatswords" and sheet.models.default == 10
    [line] = sheet.profile.models  # type: ignore[union-attr]
    assert (line.WS, line.T, line.Ld) == (4, 3, 8)
    assert sheet.profile.save == 4 and sheet.profile.troop_type == "Infantry"  # type: ignore[union-attr]
    assert [r.printed for r in sheet.special_rules] == ["Stubborn"]
    assert [(r.name, r.text) for r in sheet.other_rules] == [
        ("Detachment", "May support a parent unit.")]
    [created] = result.created  # "In": the army books' abbreviation of Infantry
    assert not any("troop type" in note for note in created["assumed"])
    halberdiers = [e for e in result.army if e.datasheet == "empire-halberdiers"]
    assert validate_army("whfb8", halberdiers) == []


def test_an_unmapped_t9a_unit_with_its_characteristics_becomes_a_unit_of_your_own() -> None:
    """A t9a roster printing the 2nd-edition characteristics by their army-book names."""
    result = import_roster("t9a", fixture("t9a-own-units.ros"))
    assert [m["datasheet"] for m in result.mapped] == ["highborn-commander", "citizen-spears"]
    [sheet] = result.own_sheets.values()
    profile = sheet.profile
    assert profile.global_characteristics.model_dump() == {  # type: ignore[union-attr]
        "advance_rate": 5, "march_rate": 10, "discipline": 8}
    assert profile.defensive.resilience == 3  # type: ignore[union-attr]
    assert profile.offensive[0].agility == 5  # type: ignore[union-attr]
    assert [r.printed for r in sheet.special_rules] == ["Fearless"]
    assert [r.name for r in sheet.other_rules] == ["Sea Drill"]
    assert sheet.points is not None and sheet.points.cost(20) == 290
    assert sheet.base.size_mm == (20, 20) and sheet.models.default == 20
    assert result.skipped == [] and result.to_json("t9a")["report"]["problems"] == []
