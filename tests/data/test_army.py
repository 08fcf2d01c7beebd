"""Army list validation: one test per error code, plus a valid army per system."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.data import ArmyEntry, UnknownSystem, load_catalog_from, validate_army
from server.data.catalog import Catalog

from .helpers import copy_catalog, write


def codes(system: str, entries: list, catalog: Catalog | None = None) -> list[str]:
    return [error.code for error in validate_army(system, entries, catalog)]


# --------------------------------------------------------------------------- valid armies


def test_valid_t9a_army() -> None:
    """Seed 000: a Supernal character of the same Height may join the skirmishing Gremlins."""
    daemons = [
        {"datasheet": "mageblight-gremlin", "models": 3, "joined_characters": ["daemon-herald"]},
    ]
    highborn = [
        {
            "datasheet": "citizen-spears",
            "models": 20,
            "files": 5,
            "joined_characters": [{"datasheet": "highborn-commander"}],
        },
        {"datasheet": "knights-of-ryma", "models": 5},
    ]
    assert validate_army("t9a", daemons) == []
    assert validate_army("t9a", highborn) == []


def test_valid_whfb8_army() -> None:
    tomb_kings = [
        {"datasheet": "tomb-swarm", "models": 4, "files": 2},
        {"datasheet": "skeleton-warriors", "models": 20, "joined_characters": ["tomb-king"]},
    ]
    goblins = [
        {"datasheet": "night-goblins", "models": 30, "concealed": {"night-goblin-fanatic": 3}},
    ]
    assert validate_army("whfb8", tomb_kings) == []
    assert validate_army("whfb8", goblins) == []


def test_valid_wh40k10_army() -> None:
    """Seed 004: the Wurrboy leads Beast Snagga Boyz."""
    army = [
        {"datasheet": "beast-snagga-boyz", "models": 10, "joined_characters": ["wurrboy"]},
        ArmyEntry(datasheet="boyz", models=10),
    ]
    assert validate_army("wh40k10", army) == []
    assert validate_army("wh40k10", [ArmyEntry(datasheet="intercessor-squad", models=5)]) == []


# --------------------------------------------------------------------------- one per code


def test_unknown_system_raises() -> None:
    with pytest.raises(UnknownSystem):
        validate_army("chess", [])


def test_bad_entry() -> None:
    errors = validate_army("t9a", [{"datasheet": "citizen-spears"}])
    assert [e.code for e in errors] == ["bad_entry"]
    assert errors[0].entry == 0 and "models" in errors[0].message


def test_unknown_datasheet() -> None:
    army = [{"datasheet": "citizen-spears", "models": 20}, {"datasheet": "gremlins", "models": 2}]
    errors = validate_army("t9a", army)
    assert [(e.code, e.entry) for e in errors] == [("unknown_datasheet", 1)]
    assert "mageblight-gremlin" in errors[0].details["known"]


def test_unknown_joined_character() -> None:
    army = [{"datasheet": "citizen-spears", "models": 20, "joined_characters": ["general"]}]
    assert codes("t9a", army) == ["unknown_datasheet"]


@pytest.mark.parametrize("models", [1, 6])
def test_model_count(models: int) -> None:
    """FACTS.md: Mageblight Gremlins come 2 to 5 models."""
    errors = validate_army("t9a", [{"datasheet": "mageblight-gremlin", "models": models}])
    assert [e.code for e in errors] == ["model_count"]
    assert errors[0].details == {"min": 2, "max": 5, "models": models}


@pytest.mark.parametrize("files", [0, 21])
def test_files_out_of_range(files: int) -> None:
    army = [{"datasheet": "citizen-spears", "models": 20, "files": files}]
    assert codes("t9a", army) == ["files_out_of_range"]


def test_files_not_applicable_in_40k() -> None:
    assert codes("wh40k10", [{"datasheet": "boyz", "models": 10, "files": 5}]) == [
        "files_not_applicable"
    ]


def test_not_a_character() -> None:
    army = [{"datasheet": "citizen-spears", "models": 20, "joined_characters": ["citizen-archers"]}]
    assert codes("t9a", army) == ["not_a_character"]


def test_host_is_character() -> None:
    army = [
        {"datasheet": "daemon-stalker", "models": 1, "joined_characters": ["daemon-herald"]}
    ]
    assert codes("t9a", army) == ["host_is_character"]


def test_leader_cannot_lead_other_units() -> None:
    """Seed 004 and FACTS.md: the Wurrboy leads Beast Snagga Boyz, not Boyz."""
    errors = validate_army(
        "wh40k10", [{"datasheet": "boyz", "models": 10, "joined_characters": ["wurrboy"]}]
    )
    assert [e.code for e in errors] == ["leader_cannot_lead"]
    assert "Beast Snagga Boyz" in errors[0].message


def test_a_non_leader_cannot_attach() -> None:
    army = [{"datasheet": "boyz", "models": 10, "joined_characters": ["beast-snagga-boyz"]}]
    assert codes("wh40k10", army) == ["not_a_character"]


def test_too_many_leaders() -> None:
    army = [
        {
            "datasheet": "beast-snagga-boyz",
            "models": 10,
            "joined_characters": ["wurrboy", "wurrboy"],
        }
    ]
    assert codes("wh40k10", army) == ["too_many_leaders"]


def test_supernal_unit_refuses_a_plain_character() -> None:
    """Seed 000, Supernal: units containing Supernal only take Supernal attachable models."""
    army = [
        {
            "datasheet": "mageblight-gremlin",
            "models": 3,
            "joined_characters": ["highborn-commander"],
        }
    ]
    errors = validate_army("t9a", army)
    # (the Highborn Commander is of another army book, too)
    assert [e.code for e in errors] == ["supernal_join", "wrong_faction"]
    assert "Mageblight Gremlin contains Supernal" in errors[0].message


def test_supernal_character_refuses_a_plain_unit() -> None:
    """Seed 000, Supernal: attachable models with Supernal only join units containing it."""
    army = [{"datasheet": "citizen-spears", "models": 20, "joined_characters": ["daemon-herald"]}]
    errors = validate_army("t9a", army)
    assert [e.code for e in errors] == ["supernal_join", "wrong_faction"]
    assert "Daemon Herald has Supernal" in errors[0].message


LARGE_SUPERNAL_CHARACTER = """
id: mounted-herald
name: Mounted Herald
base: {shape: rectangular, width_mm: 25, depth_mm: 50}
models: {min: 1, max: 1, default: 1}
profile:
  height: Large
  type: Cavalry
  global_characteristics: {advance_rate: 8, march_rate: 16, discipline: 8}
  defensive: {health_points: 3, defensive_skill: 5, resilience: 4, armour: 0}
  offensive:
    - {name: Herald, attacks: 3, offensive_skill: 5, strength: 4, armour_penetration: 1,
       agility: 6}
special_rules: [Supernal]
character: true
sources: {profile: test fixture}
"""


def test_skirmish_height(tmp_path: Path) -> None:
    """Seed 000, Skirmisher: only attachable models of the unit's Height may join."""
    root = copy_catalog(tmp_path)
    write(root, "t9a", "mounted-herald.yaml", LARGE_SUPERNAL_CHARACTER)
    catalog = load_catalog_from(root)
    army = [
        {"datasheet": "mageblight-gremlin", "models": 3, "joined_characters": ["mounted-herald"]}
    ]
    errors = validate_army("t9a", army, catalog)
    assert [e.code for e in errors] == ["skirmish_height"]
    assert "Standard" in errors[0].message and "Large" in errors[0].message


SWARM_CHARACTER = """
id: swarm-lord
name: Swarm Lord
base: {shape: rectangular, width_mm: 40, depth_mm: 40}
models: {min: 1, max: 1, default: 1}
profile:
  troop_type: Swarm
  models:
    - {name: Swarm Lord, M: 4, WS: 4, BS: 0, S: 3, T: 3, W: 5, I: 2, A: 5, Ld: 10}
special_rules: [Undead]
character: true
sources: {profile: test fixture}
"""


def test_entombed_units_take_only_entombed_characters(tmp_path: Path) -> None:
    """Seed 002: only characters with Entombed Beneath the Sands may be deployed in such units."""
    root = copy_catalog(tmp_path)
    write(root, "whfb8", "swarm-lord.yaml", SWARM_CHARACTER)
    catalog = load_catalog_from(root)
    army = [{"datasheet": "tomb-swarm", "models": 3, "joined_characters": ["swarm-lord"]}]
    errors = validate_army("whfb8", army, catalog)
    assert [e.code for e in errors] == ["entombed_join"]


def test_skirmish_troop_type() -> None:
    """Seed 002, Characters: characters only join Skirmishers of their own troop type; the
    Entombed Tomb King passes the Entombed check but is Infantry, the Swarm is a Swarm."""
    army = [{"datasheet": "tomb-swarm", "models": 3, "joined_characters": ["tomb-king"]}]
    errors = validate_army("whfb8", army)
    assert [e.code for e in errors] == ["skirmish_troop_type"]


def test_cannot_conceal() -> None:
    """Seed 003: Fanatics hide in Night Goblin units, not in Skeleton Warriors."""
    army = [
        {"datasheet": "skeleton-warriors", "models": 20, "concealed": {"night-goblin-fanatic": 1}}
    ]
    assert codes("whfb8", army) == ["cannot_conceal"]


def test_too_many_concealed() -> None:
    """FACTS.md: up to 3 Fanatics per Night Goblin unit."""
    army = [{"datasheet": "night-goblins", "models": 20, "concealed": {"night-goblin-fanatic": 4}}]
    errors = validate_army("whfb8", army)
    assert [e.code for e in errors] == ["too_many_concealed"]
    assert errors[0].details["max"] == 3


def test_errors_carry_entry_index_and_serialise() -> None:
    army = [
        {"datasheet": "citizen-spears", "models": 20},
        {"datasheet": "citizen-spears", "models": 50},
    ]
    (error,) = validate_army("t9a", army)
    assert error.model_dump() == {
        "code": "model_count",
        "entry": 1,
        "message": "Citizen Spears fields 10 to 40 models, not 50",
        "rule": None,
        "details": {"min": 10, "max": 40, "models": 50},
    }
