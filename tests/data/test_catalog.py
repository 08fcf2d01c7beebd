"""The shipped catalogue: every file loads, every rule is registered, the API behaves."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from server.data import (
    Datasheet,
    UnknownDatasheet,
    UnknownRule,
    UnknownSystem,
    load_catalog,
)
from server.data.schema import T9AProfile, Wh40kProfile

EXPECTED = {
    "t9a": {
        "mageblight-gremlin",
        "citizen-spears",
        "citizen-archers",
        "knights-of-ryma",
        "highborn-commander",
        "daemon-herald",
        "daemon-stalker",
    },
    "whfb8": {
        "tomb-swarm",
        "night-goblins",
        "night-goblin-fanatic",
        "skeleton-warriors",
        "empire-halberdiers",
        "empire-handgunners",
        "tomb-king",
    },
    "wh40k10": {"wurrboy", "beast-snagga-boyz", "boyz", "intercessor-squad"},
}

# The rules each seed page names (seeds/README.md), as this catalogue names them.
SEED_RULES = {
    "t9a": [  # seed 000
        "Ambush",
        "Supernal",
        "Fearless",
        "Skirmisher",
        "Light Troops",
        "Swiftstride",
        "Spell-Eater Ambush",
        "Hard Target",
        "Distracting",
        "Poison Attacks",
        "Magical Attacks",
        "Extra Support",
        "Hand Weapon",
    ],
    "whfb8": [  # seeds 002 and 003
        "Undead",
        "Animated Construct",
        "Fear",
        "Unstable",
        "Poisoned Attacks",
        "Ambushers",
        "Entombed Beneath the Sands",
        "Skirmishers",
        "Vanguard",
        "Immunity",
        "Random Movement",
        "Concealed Fanatic",
        "Fanatic Impacts",
    ],
    "wh40k10": ["Deadly Demise", "Feel No Pain", "Waaagh!", "Leader", "HAZARDOUS"],  # seed 004
}


def test_every_system_loads_with_its_datasheets() -> None:
    catalog = load_catalog()
    assert [s.id for s in catalog.systems()] == ["t9a", "whfb8", "wh40k10"]
    for system, ids in EXPECTED.items():
        assert {sheet.id for sheet in catalog.datasheets(system)} == ids
        assert all(sheet.system == system for sheet in catalog.datasheets(system))


def test_catalog_is_cached() -> None:
    assert load_catalog() is load_catalog()


@pytest.mark.parametrize("system", sorted(EXPECTED))
def test_every_rule_on_a_datasheet_is_in_the_registry(system: str) -> None:
    catalog = load_catalog()
    known = {rule.name for rule in catalog.rules(system)}
    for sheet in catalog.datasheets(system):
        for rule in sheet.all_rules():
            assert rule.name in known, f"{system}/{sheet.id}: {rule.printed} not registered"


@pytest.mark.parametrize("system", sorted(SEED_RULES))
def test_every_seed_rule_is_registered_and_flagged(system: str) -> None:
    catalog = load_catalog()
    for name in SEED_RULES[system]:
        info = catalog.rule(system, name)
        assert info.summary
        assert isinstance(info.automated, bool)


def test_unknown_datasheet_is_a_key_error_listing_known_ids() -> None:
    catalog = load_catalog()
    with pytest.raises(KeyError) as caught:
        catalog.get("t9a", "mageblight-gremlins")
    error = caught.value
    assert isinstance(error, UnknownDatasheet)
    assert "mageblight-gremlin" in error.known
    assert "mageblight-gremlins" in str(error) and "citizen-spears" in str(error)


def test_unknown_system_and_rule() -> None:
    catalog = load_catalog()
    with pytest.raises(UnknownSystem, match="known: t9a"):
        catalog.datasheets("chess")
    with pytest.raises(UnknownRule):
        catalog.rule("t9a", "Feel No Pain")


@pytest.mark.parametrize("system", sorted(EXPECTED))
def test_model_dump_is_json_and_reads_back(system: str) -> None:
    catalog = load_catalog()
    registry = {rule.name: rule for rule in catalog.rules(system)}
    for sheet in catalog.datasheets(system):
        dumped = sheet.model_dump(mode="json")
        assert json.loads(json.dumps(dumped)) == dumped
        assert "printed" in (dumped["special_rules"] or [{"printed": ""}])[0]
        again = Datasheet.model_validate(dumped, context={"rules": registry})
        assert again == sheet


def test_special_rules_are_served_structured_and_printed() -> None:
    """Seed 004: the client shows "Feel No Pain 6+"; the engine reads {name, param}."""
    dumped = load_catalog().get("wh40k10", "wurrboy").model_dump(mode="json")
    assert {"name": "Feel No Pain", "param": 6, "printed": "Feel No Pain 6+"} in dumped[
        "special_rules"
    ]
    assert {"name": "Deadly Demise", "param": "D3", "printed": "Deadly Demise D3"} in dumped[
        "special_rules"
    ]


def test_leader_and_bodyguard() -> None:
    """Seed 004 and FACTS.md: the Wurrboy leads Beast Snagga Boyz."""
    catalog = load_catalog()
    wurrboy = catalog.get("wh40k10", "wurrboy")
    boyz = catalog.get("wh40k10", "beast-snagga-boyz")
    assert wurrboy.leads == ["beast-snagga-boyz"] and wurrboy.can_join
    assert boyz.led_by == ["wurrboy"] and boyz.bodyguard
    assert not catalog.get("wh40k10", "boyz").bodyguard


def test_a_hazardous_weapon_exists() -> None:
    """Seed 004 (Hazardous): a supercharged plasma pistol on the Intercessor Sergeant."""
    sheet = load_catalog().get("wh40k10", "intercessor-squad")
    assert isinstance(sheet.profile, Wh40kProfile)
    hazardous = [w for w in sheet.profile.weapons if any(k.name == "HAZARDOUS" for k in w.keywords)]
    assert [w.carried_by for w in hazardous] == ["Intercessor Sergeant"]


def test_night_goblins_conceal_up_to_three_fanatics() -> None:
    """Seed 003 and FACTS.md: up to 3 Fanatics hide in a Night Goblin unit."""
    sheet = load_catalog().get("whfb8", "night-goblins")
    assert [(c.datasheet, c.max) for c in sheet.conceals] == [("night-goblin-fanatic", 3)]


def test_not_automated_lists_printed_rules() -> None:
    catalog = load_catalog()
    listed = catalog.not_automated("t9a", "mageblight-gremlin")
    registry = catalog.registries["t9a"]
    sheet = catalog.get("t9a", "mageblight-gremlin")
    manual = [r.printed for r in sheet.all_rules() if not registry[r.name].automated]
    assert listed == list(dict.fromkeys(manual)) and len(listed) == len(set(listed))
    # Automated by server/rules/t9a (attacks and combat), so no longer listed.
    assert "Hard Target (1)" not in listed and "Poison Attacks" not in listed
    assert "Ambush (Battlefield Edge)" not in listed and "Light Troops" not in listed


def test_height_classes() -> None:
    catalog = load_catalog()
    assert catalog.get("t9a", "knights-of-ryma").height_class == "Large"
    assert catalog.get("whfb8", "tomb-swarm").height_class == "Swarm"
    assert catalog.get("wh40k10", "wurrboy").height_class == "Infantry"


def test_t9a_model_parts_and_shooting() -> None:
    catalog = load_catalog()
    knights = catalog.get("t9a", "knights-of-ryma").profile
    archers = catalog.get("t9a", "citizen-archers").profile
    assert isinstance(knights, T9AProfile) and isinstance(archers, T9AProfile)
    assert [part.name for part in knights.offensive] == ["Knight", "Elven Horse"]
    assert archers.shooting[0].name == "Longbow"
    assert catalog.get("t9a", "knights-of-ryma").base.size_mm == (25, 50)


def test_loading_is_pure() -> None:
    """The data package pulls in no web framework, database or network client."""
    code = (
        "import sys, server.data as d; d.load_catalog(); "
        "print(sorted({'fastapi', 'starlette', 'sqlalchemy', 'redis', 'httpx'} & set(sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
