"""Issue 18 item 1: every datasheet names its faction (army book / codex) and points, with
sources; an army is of one faction (the system's `faction_rule`), and its points fit the chosen
game size (the system's `points_rule`). Refusals name the rule."""

from __future__ import annotations

import pytest

from server.data import load_catalog, validate_army
from server.data.army import OVER_POINTS, UNKNOWN_GAME_SIZE, WRONG_FACTION, army_points
from server.data.schema import SYSTEM_IDS
from server.data.systems import system_data


@pytest.mark.parametrize("system", SYSTEM_IDS)
def test_every_datasheet_names_its_faction_and_points_with_sources(system: str) -> None:
    for sheet in load_catalog().datasheets(system):
        assert sheet.faction, sheet.id
        assert sheet.sources.get("faction"), f"{sheet.id}: sources.faction"
        assert sheet.points is not None and sheet.sources.get("points"), sheet.id


def test_game_sizes_per_system() -> None:
    """Issue 18: t9a 4,500, whfb8 2,400, 40k Strike Force 2,000 (the 10th-edition Battle
    Sizes: Incursion 1,000, Onslaught 3,000)."""
    assert dict(system_data("t9a").game_sizes) == {"Standard": 4500}
    assert dict(system_data("whfb8").game_sizes) == {"Standard": 2400}
    assert dict(system_data("wh40k10").game_sizes) == {
        "Strike Force": 2000, "Incursion": 1000, "Onslaught": 3000}


def test_a_daemon_herald_cannot_join_a_highborn_army() -> None:
    """The issue's example: a Daemon Legions Herald among Highborn Spears is refused, naming
    the Army Book rule; the first catalogue unit sets the faction when none is named."""
    army = [{"datasheet": "citizen-spears", "models": 20},
            {"datasheet": "daemon-herald", "models": 1}]
    errors = validate_army("t9a", army)
    assert [(e.code, e.entry, e.rule) for e in errors] == [(WRONG_FACTION, 1, "Army Book")]
    assert "Daemon Herald is from Daemon Legions" in errors[0].message
    assert "Highborn Elves" in errors[0].message


def test_the_named_faction_rules_even_the_first_unit() -> None:
    errors = validate_army("wh40k10", [{"datasheet": "intercessor-squad", "models": 5}],
                           faction="Orks")
    assert [(e.code, e.rule) for e in errors] == [(WRONG_FACTION, "Faction keyword")]


def test_joined_characters_and_hidden_models_count_for_the_faction() -> None:
    army = [{"datasheet": "skeleton-warriors", "models": 20, "joined_characters": ["tomb-king"]}]
    assert validate_army("whfb8", army, faction="Tomb Kings") == []
    assert [e.code for e in validate_army("whfb8", army, faction="The Empire")] == [
        WRONG_FACTION, WRONG_FACTION]


def test_points_add_up_units_characters_and_hidden_models() -> None:
    """Points from the datasheets (sources in each file): Citizen Spears 25 + 11 per model,
    Highborn Commander 130; Night Goblins 3 per model, Fanatics 25 each."""
    assert army_points("t9a", [{"datasheet": "citizen-spears", "models": 20,
                                "joined_characters": ["highborn-commander"]}]) == 25 + 220 + 130
    assert army_points("whfb8", [{"datasheet": "night-goblins", "models": 30,
                                  "concealed": {"night-goblin-fanatic": 2}}]) == 90 + 50
    assert army_points("wh40k10", [{"datasheet": "boyz", "models": 20}]) == 170


def test_an_army_over_the_game_size_is_refused_naming_the_rule() -> None:
    """40k Strike Force: 2,000 points; 12 units of 20 Boyz cost 12 x 170 = 2,040."""
    army = [{"datasheet": "boyz", "models": 20}] * 12
    errors = validate_army("wh40k10", army, game_size="Strike Force")
    assert [(e.code, e.rule) for e in errors] == [(OVER_POINTS, "Battle Size")]
    assert errors[0].message == (
        "the army costs 2,040 points, over the 2,000 of Strike Force (Battle Size)")
    assert validate_army("wh40k10", army[:11], game_size="Strike Force") == []
    assert validate_army("wh40k10", army, game_size="Onslaught") == []


def test_an_unknown_game_size_is_refused() -> None:
    errors = validate_army("t9a", [{"datasheet": "citizen-spears", "models": 20}],
                           game_size="Strike Force")
    assert [(e.code, e.rule) for e in errors] == [(UNKNOWN_GAME_SIZE, "Army Points")]
    assert "Standard (4,500 points)" in errors[0].message
