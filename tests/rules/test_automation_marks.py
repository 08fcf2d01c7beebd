"""The card tells the truth (issue 17 item 4): "automated / partly / not" comes from the
handlers the code declares (server/rules/automation.py, server/rules/<id>/automated.py), and
each system's rules.yaml `automated` / `notes` is an expectation compared against them."""

from __future__ import annotations

import pytest

import server.rules  # noqa: F401  (every system's declarations)
from server.data import load_catalog
from server.rules import automation
from server.rules.automation import card_note, handled_by, mark
from server.rules.core import GameState
from server.rules.systems import SYSTEMS
from server.rules.units import unit_view, units_of
from tests.rules.test_battle import act, new_game


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_every_yaml_mark_agrees_with_the_code(system: str) -> None:
    """A rule marked `automated: true` in rules.yaml has a handler naming it, and one marked
    false has none; a rule with `notes` (partly automated) has a handler saying what it lacks,
    and only such a rule has notes."""
    disagree = []
    for info in load_catalog().rules(system):
        code = mark(system, info.name)
        if info.automated != (code != "not"):
            disagree.append(f"{info.name}: yaml automated={info.automated}, code {code}")
        elif info.automated and bool(info.notes) != (code == "partly"):
            disagree.append(f"{info.name}: yaml notes={bool(info.notes)}, code {code}")
    assert not disagree, f"{system} rules.yaml and the code disagree:\n" + "\n".join(disagree)


def test_the_fearless_card_says_panic_tests_are_automated() -> None:
    """Seed 000, Fearless: "A unit containing Fearless automatically passes Panic Tests" —
    the engine does (t9a combat.panic_immunity), so the card must not list it as not
    automated; only Horror is left."""
    note = card_note("t9a", "Fearless")
    assert note is not None
    automated, missing = note.split("Not automated:")
    assert "Panic Tests" in automated and "Panic" not in missing and "Horror" in missing
    state = new_game()
    state, _ = act(state, 1, type="submit_army", units=[
        {"datasheet": "mageblight-gremlin", "models": 3, "joined_characters": ["daemon-herald"]}
    ])
    view = unit_view(state, units_of(state)["u1"])
    assert view["partly_automated"]["Fearless"] == note
    assert "Fearless" not in view["not_automated"]


def test_a_rule_no_handler_names_is_not_automated_whatever_the_yaml_says() -> None:
    """The mark is the code's: a rule flagged automated in YAML without a handler is caught."""
    assert mark("whfb8", "Hatred") == "not"
    assert mark("wh40k10", "Oath of Moment") == "not"


def test_declaring_a_handler_marks_the_rule_and_checks_the_name() -> None:
    def handler(state: GameState) -> None: ...

    with pytest.raises(ValueError):
        handled_by("t9a", "No Such Rule", handler, "nothing")
    before = dict(automation._HANDLED)
    try:
        handled_by("whfb8", "Hatred", handler, "re-rolls in the first round", lacks="nothing else")
        assert mark("whfb8", "Hatred") == "partly"
        assert card_note("whfb8", "Hatred") == (
            "Automated: re-rolls in the first round. Not automated: nothing else."
        )
    finally:
        automation._HANDLED.clear()
        automation._HANDLED.update(before)


# The Tomb Swarm page (../shared/seeds/002_20fe50c61f72ab35.txt, issue 14 "Show":
# `GET /api/systems/whfb8/datasheets` marks every rule on the Tomb Swarm card automated, each
# one true in a test): every rule the page names, and the tests that show the engine apply it.
TOMB_SWARM_PAGE: dict[str, list[str]] = {
    "Undead": ["whfb8.test_undead:test_undead_carries_animated_construct_fear_and_unstable",
               "whfb8.test_undead:test_an_undead_march_move_is_refused_by_the_movement_rules"],
    "Animated Construct": [
        "whfb8.test_battle:test_a_fight_round_by_hand_fear_poison_animated_construct_steadfast",
        "whfb8.test_battle:test_unstable_losses_table"],
    "Fear": ["whfb8.test_close_combat:test_fear_at_the_start_of_the_round"],
    "Unstable": [
        "whfb8.test_battle:test_an_unstable_swarm_that_loses_takes_one_wound_per_point_less_"
        "animated_construct",
        "whfb8.test_battle:test_unstable_wounds_beyond_the_unit_are_split_evenly_among_its_"
        "characters"],
    "Unbreakable": ["whfb8.test_battle:test_unbreakable_units_pass_panic_and_ignore_fear"],
    "My Will Be Done": ["whfb8.test_undead:test_undead_march_only_with_my_will_be_done"],
    "Sworn Bodyguard": ["whfb8.test_undead:test_undead_march_only_with_my_will_be_done"],
    "Poisoned Attacks": [
        "whfb8.test_attacks:test_the_two_poisoned_attacks_are_kept_apart_by_the_units_text",
        "whfb8.test_battle:test_a_fight_round_by_hand_fear_poison_animated_construct_steadfast"],
    "Ambushers": [
        "whfb8.test_entombed:test_ambushers_roll_from_turn_2_a_3_arrives_and_a_2_is_delayed"],
    "Entombed Beneath the Sands": [
        "whfb8.test_entombed:test_exact_probabilities_of_emergence_on_open_ground",
        "whfb8.test_entombed:test_a_marker_under_an_enemy_lets_the_unit_emerge_in_its_front_"
        "charging",
        "whfb8.test_entombed:test_a_misfire_rolls_on_the_mishap_table"],
    "Skirmishers": [
        "whfb8.test_skirmishers:test_skirmishers_stand_half_an_inch_apart_facing_the_same_way",
        "whfb8.test_skirmishers:test_each_model_moves_up_to_its_m_and_undead_do_not_march",
        "whfb8.test_skirmishers:test_charging_skirmishers_close_up_around_the_centremost_front_"
        "model_in_contact",
        "whfb8.test_skirmishers:test_after_a_feigned_flight_they_rally_move_and_count_as_having_"
        "moved",
        "whfb8.test_skirmishers:test_skirmishers_fire_on_the_march_and_shoot_with_every_rank",
        "whfb8.test_attacks:test_light_troops_needs_two_or_more_skirmishers"],
    "Vanguard": [
        "whfb8.test_skirmishers:test_vanguard_before_the_first_turn_up_to_12_in_not_within_12_in_"
        "of_an_enemy"],
    "Stubborn": ["whfb8.test_battle:test_a_stubborn_unit_tests_on_unmodified_leadership"],
}
PAGE_LEFT_OUT = {
    "Animated Construct": "Hierophant",
    "My Will Be Done": "Weapon Skill",
    "Sworn Bodyguard": "other effects",
}
"""Partly automated rules the page names for one purpose: what the engine leaves out is not the
page's (the Hierophant is not on the page; My Will Be Done and Sworn Bodyguard are named for
marching only)."""


def test_the_datasheets_api_marks_every_rule_of_the_tomb_swarm_page_automated() -> None:
    """`GET /api/systems/whfb8/datasheets` (the route function itself): every rule the Tomb
    Swarm page names is marked automated (`automated: true`); the Tomb Swarm card has no rule
    not automated; a partly automated rule lacks only what is not the page's; and each rule
    has tests that exist and show the engine applying it."""
    import asyncio
    import importlib

    from server.api.routes.systems import list_datasheets

    body = asyncio.run(list_datasheets("whfb8"))
    served = {r["name"]: r for r in body["rules"]}
    for rule, tests in TOMB_SWARM_PAGE.items():
        assert served[rule]["automated"] is True, rule
        if served[rule]["automation"] == "partly":
            lacking = served[rule]["notes"].split("Not automated:")[1]
            assert PAGE_LEFT_OUT[rule] in lacking, rule
        else:
            assert served[rule]["automation"] == "automated", rule
        for test in tests:
            module, name = test.split(":")
            assert callable(getattr(importlib.import_module(f"tests.rules.{module}"), name)), test
    swarm = next(d for d in body["datasheets"] if d["id"] == "tomb-swarm")
    on_card = {r["name"] for r in swarm["special_rules"]}
    assert on_card == {"Undead", "Unstable", "Poisoned Attacks", "Entombed Beneath the Sands",
                       "Skirmishers"}
    assert on_card <= set(TOMB_SWARM_PAGE)
    assert load_catalog().not_automated("whfb8", "tomb-swarm") == []
