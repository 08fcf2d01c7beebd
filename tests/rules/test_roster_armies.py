"""Issue 18 items 1-3 in the rules engine: an army imported from a roster, submitted with its
units of your own (the catalogue units its upgrades changed, and the units and characters the
catalogue lacks), is what the engine plays. A changed unit attacks and saves with its changed
values, a t9a unit of your own shoots with the bow its roster printed, and a character of your
own joins a catalogue unit like a catalogue character."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from server.data import load_catalog
from server.data.rosters import import_roster
from server.rules import core
from server.rules.core import Event, GameState
from server.rules.t9a import profiles as t9a
from server.rules.units import datasheet_of, units_of
from server.rules.whfb8 import profiles as whfb8
from tests.rules.t9a.scripted import ScriptedDice
from tests.rules.test_battle import act, fold, new_game

FIXTURES = Path(__file__).parents[1] / "data" / "fixtures" / "rosters"


def imported(system: str, name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
                                               dict[str, str]]:
    """The army entries and units of your own an import gives the builder, and ref -> name."""
    result = import_roster(system, (FIXTURES / name).read_bytes())
    entries = [e.model_dump(exclude_defaults=True) | {"datasheet": e.datasheet,
                                                       "models": e.models} for e in result.army]
    names = {ref: sheet.name for ref, sheet in result.own_sheets.items()}
    return entries, result.own_units, names


def battle(system: str, army1: list[dict[str, Any]], own1: list[dict[str, Any]],
           army2: list[dict[str, Any]], places: dict[str, tuple[float, float, float]],
           phase: str) -> GameState:
    state = new_game(system)
    state, _ = act(state, 1, type="submit_army", units=army1, own_units=own1)
    state, _ = act(state, 2, type="submit_army", units=army2)
    state = fold(state, [Event("battle_started", {"turn": 1, "active_player": 1,
                                                  "phase": phase})])
    units = dict(units_of(state))
    for uid, placement in places.items():
        units[uid] = dataclasses.replace(units[uid], status="on_table", placement=placement)
    return state.evolve(units=units)


def t9a_army() -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, str]]:
    """The t9a BSData roster's units, the Sea Helm (a character of your own) joined to the
    Citizen Spears as a player joins it in the builder."""
    entries, own, names = imported("t9a", "t9a-highborn-bsdata.ros")
    helm = next(ref for ref, name in names.items() if name == "Sea Helm")
    army = [e for e in entries if e["datasheet"] != helm]
    for entry in army:
        if entry["datasheet"] == "citizen-spears":
            entry["joined_characters"] = [helm]
    return army, own, names


def test_t9a_changed_units_attack_and_save_with_their_changed_values() -> None:
    """Seed 000 (Great Weapon: +2 Strength, +2 Armour Penetration, as BSData prints it; Shield:
    +1 Armour, server/rules/t9a/profiles.py). The Highborn Commander with a Great Weapon
    strikes at Strength 6 and Armour Penetration 3 (catalogue 4 and 1); the Citizen Archers
    with a Shield have Armour 2 (catalogue: Light Armour, 1)."""
    army, own, _ = t9a_army()
    state = battle("t9a", army, own, [{"datasheet": "mageblight-gremlin", "models": 3}], {},
                   "Melee")
    units = units_of(state)
    commander, archers = units["u1"], units["u2"]
    sheet = datasheet_of(state, commander)
    assert (sheet.based_on, sheet.own) == ("highborn-commander", True)
    [part] = t9a.profile_of(sheet).offensive
    strike = t9a.strike_of(part, t9a.melee_weapon(sheet, charged=False), 4, sheet.name)
    assert (strike.strength, strike.armour_penetration) == (6, 3)
    catalogue = t9a.sheet("t9a", "citizen-archers")
    assert t9a.guard_of(catalogue).armour == 1
    assert t9a.guard_of(datasheet_of(state, archers)).armour == 2


def test_t9a_own_character_joins_the_spears() -> None:
    """Seed 000, Characters: a character joins a unit and fights as part of it. The Sea Helm,
    a character of your own from the roster, is in the Citizen Spears as a catalogue
    character would be; the log alone brings it back (replay)."""
    army, own, _ = t9a_army()
    state = new_game("t9a")
    state, events = act(state, 1, type="submit_army", units=army, own_units=own)
    spears = next(u for u in units_of(state).values() if u.datasheet == "citizen-spears")
    [joined] = spears.characters
    assert spears.name == "Citizen Spears + Sea Helm"
    helm = datasheet_of(state, joined)  # type: ignore[arg-type]
    assert (helm.name, helm.own, helm.character) == ("Sea Helm", True, True)
    assert any(s["name"] == "Sea Helm" for s in events[0].payload["own_datasheets"])


def test_t9a_unit_of_your_own_shoots_with_the_bow_its_roster_printed() -> None:
    """Seed 000, shooting: 24" Bow, Aim 4+ (BSData prints the Aim in the selection's name,
    "Bow (4+)"); at 10" (within half range, no Long Range) against Hard Target (1) Gremlins
    it needs 5+. Ten of the 20 models shoot (two ranks of five)."""
    army, own, names = t9a_army()
    guard_ref = next(ref for ref, name in names.items() if name == "Sea Guard")
    guard_id = next(i for i, e in enumerate(army) if e["datasheet"] == guard_ref)
    uid = f"u{guard_id + 1}"
    target = f"u{len(army) + 1}"
    state = battle("t9a", army, own, [{"datasheet": "mageblight-gremlin", "models": 3}],
                   {uid: (36.0, 10.0, 0.0), target: (36.0, 20.0, 180.0)}, "Shooting")
    dice = ScriptedDice([1] * 40, state.dice_position)  # every shot misses
    events = core.decide(state, 1, {"type": "shoot", "unit": uid, "target": target}, dice)
    fired, to_hit = events[0].payload, events[1].payload
    assert (fired["weapon"], fired["distance"], fired["shots"]) == ("Bow", 10.0, 10)
    assert to_hit["needed"] == 5 and to_hit["successes"] == 0


def test_whfb8_shield_improves_the_save_the_engine_takes() -> None:
    """FACTS whfb8 armour: a shield is +1 to the armour save, counted in the profile's save.
    The Halberdiers with the roster's Shield save on 5+ (catalogue: light armour, 6+)."""
    entries, own, _ = imported("whfb8", "whfb8-upgrades-newrecruit.json")
    empire = entries[:2]  # the Tomb King is of another army book
    state = battle("whfb8", empire, own, [{"datasheet": "night-goblins", "models": 20}], {},
                   "Close Combat")
    sheet = datasheet_of(state, units_of(state)["u1"])
    assert sheet.based_on == "empire-halberdiers"
    assert whfb8.armour_save(sheet) == (5, None)
    assert whfb8.armour_save(load_catalog().get("whfb8", "empire-halberdiers")) == (6, None)
