"""The shared rank-and-flank battle pipeline (issue 13 item 2): it is registered for the
systems that declare rank-and-flank rules, names no system itself, and its attack steps ask the
system for every number and named rule (a toy system shows the shapes t9a never uses: a hit
that cannot wound, a special save that is not t9a's Aegis, a to-hit roll needing more than 6)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

from server.rules.core import ACTIONS
from server.rules.rankandflank.attacks import (
    MELEE,
    AttackSteps,
    Modifier,
    RuleNote,
    SpecialSave,
    resolve,
)
from server.rules.rankandflank.system import RankAndFlankRules, rank_and_flank_systems
from server.rules.systems import SYSTEMS, find_system
from server.rules.t9a.attacks import T9AAttackSteps
from server.rules.t9a.combat import T9A, T9ARankAndFlank
from tests.rules.t9a.scripted import ScriptedDice

PACKAGE = Path(__file__).resolve().parents[3] / "server" / "rules" / "rankandflank"


def test_shared_actions_are_registered_for_the_systems_with_rank_and_flank_rules() -> None:
    """`shoot` and `fight_combat` exist exactly for the systems whose `GameSystem` declares
    `rank_and_flank` (t9a today; whfb8 once it declares its rules)."""
    declaring = {s.id for s in SYSTEMS.values() if s.rank_and_flank is not None}
    assert declaring == set(rank_and_flank_systems()) == {"t9a", "whfb8"}
    for action in ("shoot", "fight_combat"):
        assert ACTIONS[action].systems == declaring
    assert find_system("t9a").rank_and_flank is T9A
    assert isinstance(T9A, RankAndFlankRules)


def test_the_shared_pipeline_names_no_game_system() -> None:
    """Every difference is asked of the system: no module of the package names a system id
    or compares `state.system` (STYLE.md "Game systems as variants")."""
    pattern = re.compile(r"system (==|!=|in) |\"(t9a|whfb8|wh40k10)\"")
    found = [
        f"{path.name}:{n}: {line.strip()}"
        for path in sorted(PACKAGE.glob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []


def test_a_system_missing_a_required_rule_cannot_be_made() -> None:
    """What a system must provide is abstract: The 9th Age's rules without the melee phase's
    name fail when the rules object is made, not mid-game."""
    namespace = {
        k: v
        for k, v in vars(T9ARankAndFlank).items()
        if not k.startswith("_") and k != "melee_phase"
    }
    without = type("WithoutMeleePhase", (T9AAttackSteps, RankAndFlankRules), namespace)
    with pytest.raises(TypeError, match="melee_phase"):
        without()
    assert T9ARankAndFlank().melee_phase == "Melee"


# --- the attack steps with a toy system -----------------------------------------------------------


@dataclass(frozen=True)
class ToyStrike:
    name: str
    attacks: int
    strength: int
    kind: str = MELEE
    hits_per_hit: int = 1


@dataclass(frozen=True)
class ToyGuard:
    name: str
    toughness: int
    save: int | None
    ward: int | None = None


class ToySteps(AttackSteps):
    """A toy system: 4+ to hit plus modifiers, a needed 7 still hits on a 6 (the default), to
    wound impossible when Strength is 4 below Toughness, a plain armour save, a ward save."""

    def to_hit(
        self, strike: ToyStrike, guard: ToyGuard, modifiers: Iterable[Modifier]
    ) -> tuple[int, tuple[RuleNote, ...]]:
        needed, notes = 4, []
        for mod in modifiers:
            needed -= mod.value
            notes.append(RuleNote(mod.rule, f"{mod.rule}: {mod.value:+d} to hit"))
        return needed, tuple(notes)

    def to_wound(self, strike: ToyStrike, guard: ToyGuard) -> tuple[int | None, str]:
        diff = strike.strength - guard.toughness
        needed = None if diff <= -4 else 4
        return needed, f"S{strike.strength} vs T{guard.toughness}"

    def armour_save(self, strike: ToyStrike, guard: ToyGuard) -> tuple[int | None, str]:
        return guard.save, f"save {guard.save}+" if guard.save else "no armour"

    def special_save(self, strike: ToyStrike, guard: ToyGuard) -> SpecialSave | None:
        if guard.ward is None:
            return None
        return SpecialSave("ward", "Ward Save", f"Ward Save ({guard.ward}+)", guard.ward)


def test_a_hit_that_cannot_wound_rolls_but_never_wounds() -> None:
    """A to-wound step the system says is impossible (None) still records its dice, scores no
    wound, and no save is rolled."""
    dice = ScriptedDice([6, 6] + [6, 6])
    out = resolve(ToySteps(), ToyStrike("Goblins", 2, 1), ToyGuard("Giant", 5, 5), dice)
    assert (out.hits, out.wounds, out.unsaved) == (2, 0, 0)
    assert [s.step for s in out.steps] == ["to_hit", "to_wound"]
    assert out.steps[1].needed is None and "cannot wound (S1 vs T5)" in out.steps[1].text
    assert dice.used == 4


def test_the_special_save_step_is_the_systems() -> None:
    """A system's special save (here a ward save) is rolled after armour under its own step
    name and rule; a needed 7 (4+ with -3) still hits on a natural 6 (FACTS.md "Dice")."""
    dice = ScriptedDice([6, 5, 1] + [4] + [2] + [5])
    strike = ToyStrike("Archers", 3, 3)
    out = resolve(ToySteps(), strike, ToyGuard("Knights", 3, 3, ward=5), dice, [Modifier("X", -3)])
    steps = {s.step: s for s in out.steps}
    assert steps["to_hit"].needed == 6 and steps["to_hit"].successes == 1
    assert "6+ (7+ modified)" in steps["to_hit"].text
    assert steps["armour"].successes == 0
    ward = steps["ward"]
    assert (ward.needed, ward.successes, out.unsaved) == (5, 1, 0)
    assert ward.rules[0].to_json() == {"rule": "Ward Save", "text": "Ward Save (5+): 1 saved"}
    assert dice.used == 6
