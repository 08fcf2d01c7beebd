"""Printed special rules <-> structured ``{name, param}`` (issue 4, item 3)."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from server.data import SpecialRule, format_rule, load_catalog, parse_rule

# Printed forms from the seed pages (seeds/README.md) and the datasheets built on them.
SEED_RULES = [
    # seed 000, Mageblight Gremlin (The 9th Age)
    ("Ambush (Battlefield Edge)", "Ambush", "Battlefield Edge", "brackets"),
    ("Hard Target (1)", "Hard Target", 1, "brackets"),
    ("Extra Support (2)", "Extra Support", 2, "brackets"),
    ("Extra Support (+1)", "Extra Support", "+1", "brackets"),
    ("Poison Attacks", "Poison Attacks", None, "plain"),
    ("Spell-Eater Ambush", "Spell-Eater Ambush", None, "plain"),
    # seeds 002 and 003 (Warhammer Fantasy Battle)
    ("Entombed Beneath the Sands", "Entombed Beneath the Sands", None, "plain"),
    ("Random Movement (2D6)", "Random Movement", "2D6", "brackets"),
    ("Immunity (Psychology)", "Immunity", "Psychology", "brackets"),
    ("Armour Piercing (1)", "Armour Piercing", 1, "brackets"),
    # seed 004, Wurrboy (Warhammer 40,000)
    ("Feel No Pain 6+", "Feel No Pain", 6, "plus"),
    ("Deadly Demise D3", "Deadly Demise", "D3", "suffix"),
    ("Deadly Demise 1", "Deadly Demise", 1, "suffix"),
    ("Waaagh!", "Waaagh!", None, "plain"),
    ("HAZARDOUS", "HAZARDOUS", None, "plain"),
]


@pytest.mark.parametrize(("printed", "name", "param", "form"), SEED_RULES)
def test_parse_and_print_round_trip(printed: str, name: str, param: object, form: str) -> None:
    assert parse_rule(printed) == (name, param, form)
    rule = SpecialRule.parse(printed)
    assert (rule.name, rule.param) == (name, param)
    assert rule.printed == printed
    assert format_rule(name, param, form) == printed  # type: ignore[arg-type]
    assert rule.model_dump() == {"name": name, "param": param, "printed": printed}


def test_parse_tidies_spaces() -> None:
    assert SpecialRule.parse("  Hard   Target (1) ").printed == "Hard Target (1)"


def test_structured_form_takes_the_registry_print_form() -> None:
    """A file may write ``{name, param}``; the system's registry decides how it is printed."""
    registry = {r.name: r for r in load_catalog().rules("wh40k10")}
    rule = SpecialRule.model_validate(
        {"name": "Feel No Pain", "param": 6}, context={"rules": registry}
    )
    assert rule.printed == "Feel No Pain 6+"


@pytest.mark.parametrize(
    ("system", "text", "message"),
    [
        ("t9a", "Hard Target (one)", "whole number"),
        ("t9a", "Hard Target", "needs a parameter"),
        ("t9a", "Fearless (2)", "takes no parameter"),
        ("t9a", "Extra Support (x2)", "a number or '+N'"),
        ("t9a", "Feel No Pain 6+", "unknown special rule"),
        ("wh40k10", "Deadly Demise (D3)", "is printed 'Deadly Demise D3'"),
        ("wh40k10", "Deadly Demise D7", "unknown special rule 'Deadly Demise D7'"),
        ("whfb8", "Random Movement (2D7)", "dice expression"),
    ],
)
def test_malformed_params_are_refused(system: str, text: str, message: str) -> None:
    registry = {r.name: r for r in load_catalog().rules(system)}
    with pytest.raises(ValidationError, match=re.escape(message)):
        SpecialRule.model_validate(text, context={"rules": registry})


def test_unbalanced_brackets() -> None:
    with pytest.raises(ValidationError, match="unbalanced"):
        SpecialRule.parse("Hard Target (1")
