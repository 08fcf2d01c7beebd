"""Random Movement (whfb8; FACTS.md "whfb8": "pivot, roll, move straight ahead; contact with an
enemy is a charge with no charge reactions; coming within 1 in of a friendly unit or
impassable terrain stops the move"; the rule's text on the Fanatic page, seed 003).

1. **No M value, a roll** (`movement_dice`): the datasheet's M is a dice expression ("2D6");
   several model kinds with Random Movement roll once and use the slowest (the lowest
   average); Swiftstride is not used.
2. **No march, no charge declared** (`charge_refusal`, `march_refusal`).
3. **Fanatics cannot be charged** (`charge_target_refusal`, seed 003).
"""

from __future__ import annotations

from collections.abc import Sequence

from server.data import Datasheet, load_catalog
from server.dice import parse_expression
from server.rules.core import GameState
from server.rules.units import units_of

RULE = "Random Movement"


def has_random_movement(sheet: Datasheet) -> bool:
    return sheet.has_rule(RULE)


def _average(expression: str) -> float:
    spec = parse_expression(expression)
    return spec.count * (spec.sides + 1) / 2 + spec.constant


def movement_dice(sheets: Sequence[Datasheet]) -> str | None:
    """The one roll of a unit with Random Movement: the slowest of its models' (FACTS.md;
    the rule: "use the slowest for the entire unit"); None without Random Movement."""
    rolls = []
    for sheet in sheets:
        rule = sheet.rule(RULE)
        if rule is not None:
            line = sheet.profile.models[0]  # type: ignore[union-attr]
            rolls.append(str(rule.param or line.M).strip())
    if not rolls:
        return None
    return min(rolls, key=_average)


def _sheets(state: GameState, unit_id: str) -> list[Datasheet]:
    unit = units_of(state)[unit_id]
    catalog = load_catalog()
    return [catalog.get(state.system, unit.datasheet)] + [
        catalog.get(state.system, c.datasheet) for c in unit.characters
    ]


def random_movement_charge_refusal(state: GameState, unit_id: str) -> tuple[str, str] | None:
    """Models with Random Movement cannot declare charges (seed 003)."""
    if any(has_random_movement(s) for s in _sheets(state, unit_id)):
        name = units_of(state)[unit_id].name
        return RULE, f"{name} has Random Movement: it cannot declare charges"
    return None


def random_movement_march_refusal(
    name: str, sheets: Sequence[Datasheet]
) -> tuple[str, str] | None:
    """Models with Random Movement cannot march (seed 003)."""
    if any(has_random_movement(s) for s in sheets):
        return RULE, f"{name} has Random Movement: it cannot march"
    return None


def charge_target_refusal(state: GameState, target_id: str) -> tuple[str, str] | None:
    """Fanatics cannot be charged (seed 003)."""
    target = units_of(state)[target_id]
    if load_catalog().get(state.system, target.datasheet).has_rule("Fanatic Impacts"):
        return "Fanatic Impacts", f"{target.name} cannot be charged (a Night Goblin Fanatic)"
    return None
