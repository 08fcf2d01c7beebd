"""Issue 23 item 6: where the systems differ, one table per question, asked of `variant_of`.

Move allowances (t9a Advance / March Rate, FACTS.md "Move Manoeuvres": March 2x Advance Rate;
whfb8 M / 2M; wh40k10 M, FACTS.md "Movement": an Advance adds a D6 rolled by its own action);
charge rolls (t9a 2D6 + Advance Rate, FACTS.md "Charge range" decision; whfb8 M + 2D6; wh40k10
2D6, FACTS.md "Charge phase"); Flee and Pursue rolls (2D6; Swiftstride: 3D6 keep the highest
two, FACTS.md "Swiftstride in WFB 8th" and seed 000 for t9a). The profile values come from the
datasheets in server/data/<system>/.
"""

from __future__ import annotations

import pytest

from server.data import Datasheet, load_catalog
from server.data.schema import SpecialRule
from server.rules.moves import allowance
from server.rules.systems import SYSTEMS, variant_of
from server.rules.units import units_of
from tests.rules.helpers import Game

ALLOWANCES = [
    # t9a: Advance Rate / March Rate from global_characteristics
    ("t9a", "citizen-spears", "advance", 5.0),
    ("t9a", "citizen-spears", "march", 10.0),
    ("t9a", "knights-of-ryma", "advance", 9.0),
    ("t9a", "knights-of-ryma", "march", 18.0),
    ("t9a", "mageblight-gremlin", "advance", 5.0),  # FACTS.md: Advance 5, March 10
    ("t9a", "mageblight-gremlin", "march", 10.0),
    # whfb8: M, doubled for a march
    ("whfb8", "empire-halberdiers", "advance", 4.0),
    ("whfb8", "empire-halberdiers", "march", 8.0),
    ("whfb8", "skeleton-warriors", "advance", 4.0),
    ("whfb8", "skeleton-warriors", "march", 8.0),
    # Random Movement: no M to move by manoeuvre (its moves are rolled by the players)
    ("whfb8", "night-goblin-fanatic", "advance", 0.0),
    ("whfb8", "night-goblin-fanatic", "march", 0.0),
    # wh40k10: M whatever the mode; there is no march
    ("wh40k10", "boyz", "advance", 6.0),
    ("wh40k10", "boyz", "march", 6.0),
    ("wh40k10", "intercessor-squad", "advance", 6.0),
]

CHARGES = [
    ("t9a", "citizen-spears", (), ("2D6", 5)),
    ("t9a", "knights-of-ryma", (), ("2D6 maximised x1", 9)),  # Swiftstride on the sheet
    ("t9a", "mageblight-gremlin", (), ("2D6 maximised x1", 5)),
    ("whfb8", "empire-halberdiers", (), ("2D6", 4)),
    ("whfb8", "empire-halberdiers", ("Swiftstride",), ("2D6 maximised x1", 4)),
    ("whfb8", "skeleton-warriors", (), ("2D6", 4)),
    ("wh40k10", "boyz", (), ("2D6", 0)),
    ("wh40k10", "intercessor-squad", (), ("2D6", 0)),
]

SWIFT = ("2D6 maximised x1", "Swiftstride")
PLAIN = ("2D6", None)
FLEES = [
    ("t9a", ("citizen-spears",), (), PLAIN),
    ("t9a", ("knights-of-ryma",), (), SWIFT),
    # a unit entirely with Swiftstride rolls Maximised: a joined character without it spoils it
    ("t9a", ("knights-of-ryma", "highborn-commander"), (), PLAIN),
    ("whfb8", ("empire-halberdiers",), (), PLAIN),
    ("whfb8", ("empire-halberdiers",), ("Swiftstride",), SWIFT),
    ("whfb8", ("skeleton-warriors", "tomb-king"), (), PLAIN),
]


def sheet(system: str, datasheet: str, extra_rules: tuple[str, ...] = ()) -> Datasheet:
    """A catalogue datasheet, with `extra_rules` added (to try a rule no sheet of the system
    carries yet)."""
    found = load_catalog().get(system, datasheet)
    if not extra_rules:
        return found
    added = [SpecialRule(name=r) for r in extra_rules]
    return found.model_copy(update={"special_rules": [*found.special_rules, *added]})


def test_the_tables_cover_every_system() -> None:
    for table in (ALLOWANCES, CHARGES):
        assert {row[0] for row in table} == set(SYSTEMS)
    ranked = {s for s in SYSTEMS if variant_of(s).ranked is not None}
    assert {row[0] for row in FLEES} == ranked == {"t9a", "whfb8"}


@pytest.mark.parametrize(("system", "datasheet", "mode", "expected"), ALLOWANCES)
def test_move_allowance_by_system_profile_and_mode(
    system: str, datasheet: str, mode: str, expected: float
) -> None:
    assert variant_of(system).allowance(sheet(system, datasheet), mode) == expected


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_the_engine_moves_a_unit_by_its_systems_allowance(system: str) -> None:
    """`moves.allowance` of a submitted unit is the variant's answer for its datasheet."""
    datasheet = next(row[1] for row in ALLOWANCES if row[0] == system)
    game = Game(system)
    game.act(1, type="submit_army", units=[{"datasheet": datasheet, "models": 10}])
    unit = units_of(game.state)["u1"]
    for mode in ("advance", "march"):
        expected = next(r[3] for r in ALLOWANCES if r[:3] == (system, datasheet, mode))
        assert allowance(game.state, unit, mode) == expected


@pytest.mark.parametrize(("system", "datasheet", "rules", "expected"), CHARGES)
def test_charge_roll_by_system_and_rules(
    system: str, datasheet: str, rules: tuple[str, ...], expected: tuple[str, int]
) -> None:
    assert variant_of(system).charge_roll(sheet(system, datasheet, rules)) == expected


@pytest.mark.parametrize(("system", "datasheets", "rules", "expected"), FLEES)
def test_flee_and_pursue_rolls_by_system_and_rules(
    system: str, datasheets: tuple[str, ...], rules: tuple[str, ...],
    expected: tuple[str, str | None],
) -> None:
    ranked = variant_of(system).ranked
    assert ranked is not None
    sheets = [sheet(system, d, rules) for d in datasheets]
    assert ranked.flee_roll(sheets) == expected
    assert ranked.pursue_roll(sheets) == expected


def test_model_by_model_systems_neither_flee_nor_pursue() -> None:
    """wh40k10 units move model by model: no ranked rules, so no flee or pursuit rolls."""
    assert variant_of("wh40k10").ranked is None
