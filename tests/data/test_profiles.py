"""Seed units' profiles against ../shared/rules/FACTS.md (a seed page wins for its own unit).

Each row is (field path on the datasheet, value FACTS.md gives).
"""

from __future__ import annotations

from typing import Any

import pytest

from server.data import load_catalog


def lookup(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = obj[int(part)] if part.isdigit() else getattr(obj, part)
    return obj


# FACTS.md, The 9th Age, "Mageblight Gremlin (BSData 2nd-edition data ...)": base 40 x 40 mm,
# Standard height, Beast; Advance 5, March 10, Discipline 6; HP 4, Defensive Skill 3,
# Resilience 3, Armour 0, Aegis 5+, Hard Target (1); Attacks 5, Offensive Skill 3, Strength 2,
# AP 0, Agility 2; Poison Attacks; 2 to 5 models.
MAGEBLIGHT_GREMLIN = [
    ("base.shape", "rectangular"),
    ("base.width_mm", 40),
    ("base.depth_mm", 40),
    ("profile.height", "Standard"),
    ("profile.type", "Beast"),
    ("profile.global_characteristics.advance_rate", 5),
    ("profile.global_characteristics.march_rate", 10),
    ("profile.global_characteristics.discipline", 6),
    ("profile.defensive.health_points", 4),
    ("profile.defensive.defensive_skill", 3),
    ("profile.defensive.resilience", 3),
    ("profile.defensive.armour", 0),
    ("profile.defensive.aegis", 5),
    ("profile.offensive.0.attacks", 5),
    ("profile.offensive.0.offensive_skill", 3),
    ("profile.offensive.0.strength", 2),
    ("profile.offensive.0.armour_penetration", 0),
    ("profile.offensive.0.agility", 2),
    ("models.min", 2),
    ("models.max", 5),
]

# FACTS.md, WFB: "Tomb Swarm: M4 WS3 BS0 S2 T2 W5 I1 A5 Ld10; 40 x 40 mm bases; 2 to 10 models".
TOMB_SWARM = [
    ("base.width_mm", 40),
    ("base.depth_mm", 40),
    ("profile.troop_type", "Swarm"),
    *[
        (f"profile.models.0.{stat}", value)
        for stat, value in zip(
            ["M", "WS", "BS", "S", "T", "W", "I", "A", "Ld"],
            [4, 3, 0, 2, 2, 5, 1, 5, 10],
            strict=True,
        )
    ],
    ("models.min", 2),
    ("models.max", 10),
]

# FACTS.md, WFB: "Night Goblin Fanatic: moves 2D6 (Random Movement); S5 T3 W1 I3; ... 25 mm base.
# Night Goblins: M4 WS2 BS3 S3 T3 W1 I3 A1 Ld5 (the Warhammer Armies Project profile); 20 x 20
# mm bases." (FACTS.md once said I2 Ld6, the common Goblin's line; the datasheet followed it.)
NIGHT_GOBLIN_FANATIC = [
    ("profile.models.0.M", "2D6"),
    ("profile.models.0.S", 5),
    ("profile.models.0.T", 3),
    ("profile.models.0.W", 1),
    ("profile.models.0.I", 3),
    ("base.diameter_mm", 25),
]
NIGHT_GOBLINS = [
    ("base.width_mm", 20),
    ("base.depth_mm", 20),
    *[
        (f"profile.models.0.{stat}", value)
        for stat, value in zip(
            ["M", "WS", "BS", "S", "T", "W", "I", "A", "Ld"],
            [4, 2, 3, 3, 3, 1, 3, 1, 5],
            strict=True,
        )
    ],
]

# FACTS.md, 40k: "Wurrboy: M 6, T 5, Sv 5+, W 4, Ld 7+, OC 1; Eyez of Mork 18 in, A D6, BS 5+,
# S 8, AP -3, D 2 (Psychic); close combat weapon A 3, WS 3+, S 5, AP 0, D 1; ... 32 mm round
# bases" and "Beast Snagga Boyz (M 6, T 5, Sv 5+, W 2, Ld 7+, OC 2, 10 models)".
WURRBOY = [
    *[
        (f"profile.models.0.{stat}", value)
        for stat, value in zip(["M", "T", "Sv", "W", "Ld", "OC"], [6, 5, 5, 4, 7, 1], strict=True)
    ],
    ("profile.weapons.0.name", "Eyez of Mork"),
    ("profile.weapons.0.range_in", 18),
    ("profile.weapons.0.A", "D6"),
    ("profile.weapons.0.BS", 5),
    ("profile.weapons.0.S", 8),
    ("profile.weapons.0.AP", -3),
    ("profile.weapons.0.D", 2),
    ("profile.weapons.0.keywords.0.name", "PSYCHIC"),
    ("profile.weapons.1.name", "Close combat weapon"),
    ("profile.weapons.1.A", 3),
    ("profile.weapons.1.WS", 3),
    ("profile.weapons.1.S", 5),
    ("profile.weapons.1.AP", 0),
    ("profile.weapons.1.D", 1),
    ("base.shape", "round"),
    ("base.diameter_mm", 32),
    ("leads", ["beast-snagga-boyz"]),
]
BEAST_SNAGGA_BOYZ = [
    *[
        (f"profile.models.0.{stat}", value)
        for stat, value in zip(["M", "T", "Sv", "W", "Ld", "OC"], [6, 5, 5, 2, 7, 2], strict=True)
    ],
    ("models.default", 10),
]

CASES = [
    ("t9a", "mageblight-gremlin", MAGEBLIGHT_GREMLIN),
    ("whfb8", "tomb-swarm", TOMB_SWARM),
    ("whfb8", "night-goblin-fanatic", NIGHT_GOBLIN_FANATIC),
    ("whfb8", "night-goblins", NIGHT_GOBLINS),
    ("wh40k10", "wurrboy", WURRBOY),
    ("wh40k10", "beast-snagga-boyz", BEAST_SNAGGA_BOYZ),
]


@pytest.mark.parametrize(
    ("system", "datasheet", "path", "expected"),
    [(s, d, path, value) for s, d, rows in CASES for path, value in rows],
)
def test_profile_matches_facts(system: str, datasheet: str, path: str, expected: Any) -> None:
    sheet = load_catalog().get(system, datasheet)
    assert lookup(sheet, path) == expected


def printed_rules(system: str, datasheet: str) -> list[str]:
    return [rule.printed for rule in load_catalog().get(system, datasheet).all_rules()]


def test_mageblight_gremlin_rules() -> None:
    """Seed 000 names these rules; FACTS.md gives Hard Target (1) and Poison Attacks."""
    assert printed_rules("t9a", "mageblight-gremlin") == [
        "Ambush (Battlefield Edge)",
        "Supernal",
        "Fearless",
        "Skirmisher",
        "Light Troops",
        "Swiftstride",
        "Spell-Eater Ambush",
        "Hard Target (1)",
        "Distracting",
        "Hand Weapon",
        "Poison Attacks",
        "Magical Attacks",
        "Extra Support (2)",
    ]


def test_tomb_swarm_rules() -> None:
    """Seed 002 and FACTS.md: Skirmishers, Poisoned Attacks, Entombed, Undead (and Unstable)."""
    assert set(printed_rules("whfb8", "tomb-swarm")) == {
        "Undead",
        "Unstable",
        "Poisoned Attacks",
        "Entombed Beneath the Sands",
        "Skirmishers",
    }


def test_fanatic_rules() -> None:
    """Seed 003: 2D6 Random Movement, Immunity (Psychology), armour-piercing (1) hits."""
    rules = printed_rules("whfb8", "night-goblin-fanatic")
    assert {"Random Movement (2D6)", "Immunity (Psychology)", "Armour Piercing (1)"} <= set(rules)


def test_wurrboy_rules() -> None:
    """Seed 004 and FACTS.md: Deadly Demise D3, Feel No Pain 6+, Waaagh!, Leader."""
    assert set(printed_rules("wh40k10", "wurrboy")) >= {
        "Deadly Demise D3",
        "Feel No Pain 6+",
        "Waaagh!",
        "Leader",
    }


def test_decisions_are_marked() -> None:
    """Numbers FACTS.md does not give are marked `decision` in the file."""
    catalog = load_catalog()
    gremlin = catalog.get("t9a", "mageblight-gremlin")
    assert gremlin.sources["models.default"] == "decision"
    assert gremlin.sources["profile"] == "FACTS.md"
    assert catalog.get("wh40k10", "wurrboy").sources["base"] == "decision"
    for system in ("t9a", "whfb8", "wh40k10"):
        for sheet in catalog.datasheets(system):
            assert sheet.sources, f"{system}/{sheet.id} says nowhere where its numbers come from"
