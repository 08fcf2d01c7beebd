"""Undead may not march unless joined by a character with My Will Be Done or Sworn Bodyguard
(the Tomb Swarm page, ../shared/seeds/002_20fe50c61f72ab35.txt)."""

from __future__ import annotations

import pytest

from server.data import load_catalog
from server.data.schema import SpecialRule
from server.rules.whfb8.profiles import has
from server.rules.whfb8.undead import march_refusal


@pytest.mark.parametrize(
    ("rank_and_file", "characters", "refused"),
    [
        ("tomb-swarm", [], True),
        ("skeleton-warriors", [], True),
        ("skeleton-warriors", ["tomb-king"], False),  # My Will Be Done
        (None, ["tomb-king"], False),
        ("empire-halberdiers", [], False),  # not Undead
        ("skeleton-warriors", ["bodyguard"], False),  # Sworn Bodyguard
    ],
)
def test_undead_march_only_with_my_will_be_done(
    rank_and_file: str | None, characters: list[str], refused: bool
) -> None:
    """The page: Undead "may make march moves if they are joined by a character with My Will
    Be Done or Sworn Bodyguard" ("bodyguard": the Tomb King with Sworn Bodyguard instead of
    My Will Be Done)."""
    cat = load_catalog()
    king = cat.get("whfb8", "tomb-king")
    bodyguard = king.model_copy(update={"special_rules": [
        SpecialRule(name="Undead"), SpecialRule(name="Sworn Bodyguard")
    ]})
    assert not bodyguard.has_rule("My Will Be Done")
    sheets = [cat.get("whfb8", s) for s in ([rank_and_file] if rank_and_file else [])]
    sheets += [bodyguard if c == "bodyguard" else cat.get("whfb8", c) for c in characters]
    found = march_refusal("Unit", sheets)
    assert (found is not None) == refused
    if found is not None:
        assert found[0] == "Undead" and "My Will Be Done" in found[1]


def test_undead_carries_animated_construct_fear_and_unstable() -> None:
    """The page: all units with Undead have Animated Construct, Fear and Unstable."""
    swarm = load_catalog().get("whfb8", "skeleton-warriors")
    assert all(has(swarm, r) for r in ("Animated Construct", "Fear", "Unstable"))


def test_the_tomb_swarm_card_marks_the_rules_this_battle_automates() -> None:
    """`GET /api/systems/whfb8/datasheets` serves the registry's `automated` flags: the rules
    the whfb8 battle applies (server/rules/whfb8/) are marked, and with issue 14 items 4-5
    (Entombed Beneath the Sands: entombed.py; Skirmishers: skirmish.py, vanguard.py) every rule
    on the Tomb Swarm card is; Undead is wholly automated (its march restriction is enforced
    by movement)."""
    cat = load_catalog()
    automated = {r.name for r in cat.rules("whfb8") if r.automated}
    assert {"Undead", "Unstable", "Animated Construct", "Fear", "Poisoned Attacks",
            "Entombed Beneath the Sands", "Skirmishers"} <= automated
    assert cat.not_automated("whfb8", "tomb-swarm") == []
    assert "Undead" not in cat.partly_automated("whfb8", "tomb-swarm")
    assert cat.get("whfb8", "tomb-swarm").model_dump(mode="json")["rule_texts"]["Poisoned Attacks"]


def test_an_undead_march_move_is_refused_by_the_movement_rules() -> None:
    """The page: Undead units cannot march unless joined by a character with My Will Be Done
    or Sworn Bodyguard. The refusal comes from `move_unit` itself (the system's ranked rules'
    `march_refusal`), naming the rule; an Advance is still allowed, and the Tomb King's My Will
    Be Done lets his Skeletons march."""
    from tests.rules.helpers import battle

    game = battle(
        "whfb8",
        [{"datasheet": "tomb-swarm", "models": 4},
         {"datasheet": "skeleton-warriors", "models": 20, "files": 5,
          "joined_characters": ["tomb-king"]}],
        [{"datasheet": "empire-halberdiers", "models": 20, "files": 5}],
    )
    game.to_phase(1, "Movement")
    swarm, skeletons = "u1", "u2"
    err = game.refused(1, type="move_unit", unit=swarm, manoeuvre="forward", mode="march",
                       distance=6)
    assert err.code == "illegal_move" and err.details["rule"] == "Undead"
    assert "My Will Be Done" in err.message
    game.act(1, type="move_unit", unit=swarm, manoeuvre="forward", mode="advance", distance=3)
    game.act(1, type="move_unit", unit=skeletons, manoeuvre="forward", mode="march", distance=6)
