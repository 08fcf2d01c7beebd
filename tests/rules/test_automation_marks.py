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
    assert mark("wh40k10", "Deadly Demise") == "not"


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
