"""What Warhammer Fantasy Battle 8th edition decides differently from the shared rules (see
`server.rules.systems`). Sources: seed 002 (Feigned Flight, Unstable, Skirmishers), FACTS.md
(M + 2D6 charges, Swiftstride 3D6 keep the highest two)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from server.data import Datasheet
from server.geometry.constants import SKIRMISH_GAP_WHFB8_IN
from server.geometry.footprint import Footprint
from server.rules.core import Event, GameState
from server.rules.endgame import GameResult
from server.rules.rankandflank.system import RankAndFlankReactions
from server.rules.systems import Pregame, RankedRules, Variant, swiftstride_roll
from server.rules.whfb8.profiles import profile_of, stats

CANNOT_FLEE = ("Undead", "Unstable", "Unbreakable")
"""Rules whose units may only Hold or Stand and Shoot (seed 002: Unstable units are
Unbreakable; in the 8th-edition rules units immune to psychology may only Hold)."""


FLEE_EXCEPTIONS = ("Feigned Flight", "Fire and Flee", "Fire & Flee")


def _immune_to_psychology_flee(sheets: Sequence[Datasheet], feigned: str | None) -> bool:
    """Seed 003: a unit with Immunity (Psychology) (the majority of its models) "may never
    choose Flee! as a charge reaction (except when using Feigned Flight or Fire & Flee, unless
    they also have Frenzy)"."""
    from server.rules.whfb8.combat import immunity

    if immunity(sheets, "Psychology") != "Immunity (Psychology)":
        return False
    may_flee = any(
        s.has_rule(r) for s in sheets for r in (*FLEE_EXCEPTIONS, *((feigned,) if feigned else ()))
    )
    frenzied = any(s.has_rule("Frenzy") for s in sheets)
    return not may_flee or frenzied


def _movement(sheet: Datasheet) -> int:
    m = stats(sheet).M
    return m if isinstance(m, int) else 0


@dataclass(frozen=True)
class WarhammerRanked(RankAndFlankReactions, RankedRules):
    failed_charge_words: str = "the highest single die of the charge roll"

    def failed_charge_distance(self, roll: Mapping[str, Any], reach: float) -> float:
        """A failed charge moves the highest single D6 of its charge roll towards the target
        (FACTS.md, Warhammer Fantasy Battle 8th edition: "Failed charge")."""
        kept = [d["face"] for d in roll.get("dice", ()) if d.get("kept", True)
                and isinstance(d.get("face"), int)]
        return float(max(kept, default=0))

    def discipline(self, sheet: Datasheet) -> int:
        """Rally Tests are taken against Leadership: the highest of the sheet's models."""
        return max(int(m.Ld or 0) for m in profile_of(sheet).models)

    def flee_refusal(
        self, name: str, sheets: Sequence[Datasheet], markers: Sequence[str]
    ) -> tuple[str, str] | None:
        rule = next((r for r in CANNOT_FLEE if any(s.has_rule(r) for s in sheets)), None)
        if rule is None and _immune_to_psychology_flee(sheets, self.feigned_flight_rule):
            rule = "Immunity (Psychology)"
        if rule is None:
            return None
        return (
            rule,
            f"{name} has {rule} (immune to psychology): its only reactions are "
            "Hold and Stand and Shoot",
        )


    def march_refusal(
        self, name: str, sheets: Sequence[Datasheet], markers: Sequence[str]
    ) -> tuple[str, str] | None:
        """Undead units march only when joined by a character with My Will Be Done or Sworn
        Bodyguard (the Tomb Swarm page; server/rules/whfb8/undead.py); models with Random
        Movement never march (seed 003; server/rules/whfb8/random_movement.py)."""
        from server.rules.whfb8.random_movement import random_movement_march_refusal
        from server.rules.whfb8.undead import march_refusal

        return random_movement_march_refusal(name, sheets) or march_refusal(
            name, sheets, markers
        )


@dataclass(frozen=True)
class Warhammer(Variant):
    def allowance(self, sheet: Datasheet, mode: str) -> float:
        """M, doubled for a March."""
        rate = float(_movement(sheet))
        return rate * 2 if mode == "march" else rate

    def charge_roll(self, sheet: Datasheet) -> tuple[str, int]:
        """M + 2D6 (FACTS.md); Swiftstride: 3D6 keep the highest two."""
        swift = sheet.has_rule("Swiftstride")
        return ("2D6 maximised x1" if swift else "2D6"), _movement(sheet)

    def unit_charge_roll(self, sheets: Sequence[Datasheet]) -> tuple[str, int]:
        """M + 2D6; Swiftstride only when every model of the unit has it (as its flee roll)."""
        return swiftstride_roll(sheets)[0], _movement(sheets[0])

    def game_result(self, state: GameState, conceded_by: int | None) -> GameResult | None:
        """Victory Points for units dead or fled (FACTS.md) and the winner by 100 or more
        (server/rules/whfb8/results.py)."""
        from server.rules.whfb8.results import game_result

        return game_result(state, conceded_by)

    def army_secrets(
        self, state: GameState, seat: int, concealed: Mapping[str, Mapping[str, int]]
    ) -> list[Event]:
        """The Night Goblin Fanatics' written note (seed 003; server/rules/whfb8/fanatics.py):
        one owner-only event with every army, empty when it conceals none."""
        from server.rules.whfb8.fanatics import army_secrets

        return army_secrets(state, seat, concealed)

    def without_secrets(self, state: GameState, seat: int | None) -> GameState:
        """The other seat's concealed Fanatics taken out (server/rules/whfb8/fanatics.py)."""
        from server.rules.whfb8.fanatics import without_secrets

        return without_secrets(state, seat)

    def move_stop(
        self, state: GameState, unit_id: str, path: Callable[[float], Footprint]
    ) -> tuple[float, list[Event]] | None:
        """Fanatics are released when a concealing unit and an enemy come within 8 in: the
        move stops there (seed 003; server/rules/whfb8/fanatics.py)."""
        from server.rules.whfb8.fanatics import move_stop

        return move_stop(state, unit_id, path)

    def passable(self, state: GameState, unit_id: str) -> tuple[str, ...]:
        """Released Fanatics: units may move into them (seed 003; whfb8/fanatics.py)."""
        from server.rules.whfb8.fanatics import passable

        return passable(state, unit_id)

    def move_contacts(
        self, state: GameState, unit_id: str, swept: Any, dice: Any
    ) -> list[Event]:
        """A unit that moved into a Fanatic takes 2D6 S5 Armour Piercing (1) hits and the
        Fanatic is removed (seed 003; whfb8/fanatics.py)."""
        from server.rules.whfb8.fanatics import move_contacts

        return move_contacts(state, unit_id, swept, dice)

    def charge_contact(self, state: GameState, charger_id: str, target_id: str) -> list[Event]:
        """Skirmishers tighten "at the moment both units move into base contact" (seed 002;
        server/rules/whfb8/skirmish.py)."""
        from server.rules.whfb8.skirmish import tighten_at_contact

        return tighten_at_contact(state, charger_id, target_id)

    def move_hazards(self, state: GameState, unit_id: str, swept: Any) -> list[str]:
        """A Fanatic in the path: 2D6 S5 Armour Piercing (1) hits if the move is made (seed
        003; whfb8/fanatics.py)."""
        from server.rules.whfb8.fanatics import move_hazards

        return move_hazards(state, unit_id, swept)

    def charge_target_refusal(self, state: GameState, target_id: str) -> tuple[str, str] | None:
        """Fanatics cannot be charged (seed 003; server/rules/whfb8/random_movement.py)."""
        from server.rules.whfb8.random_movement import charge_target_refusal

        return charge_target_refusal(state, target_id)

    def charge_refusal(self, state: GameState, unit_id: str) -> tuple[str, str] | None:
        """Random Movement (FACTS.md, seed 003): such units never declare charges; Vanguard
        (FACTS.md): units that made a Vanguard move may not charge in the first turn if their
        side goes first (server/rules/whfb8/vanguard.py)."""
        from server.rules.whfb8.fanatics import releasing_charge_refusal
        from server.rules.whfb8.random_movement import random_movement_charge_refusal
        from server.rules.whfb8.vanguard import vanguard_charge_refusal

        return (
            releasing_charge_refusal(state)
            or random_movement_charge_refusal(state, unit_id)
            or vanguard_charge_refusal(state, unit_id)
        )


VARIANT = Warhammer(
    ranked=WarhammerRanked(
        skirmish_gap_in=SKIRMISH_GAP_WHFB8_IN,
        feigned_flight_rule="Skirmishers",
    ),
    reserve_rules=("Ambushers", "Entombed Beneath the Sands"),
    pregame=Pregame(
        deployment="winner_chooses",
        deployment_words="chooses which player sets up the first unit",
        first_turn="roll_off_winner_chooses",
        first_turn_words="The players roll off, the player who finished deploying first adding "
                         "+1; the winner chooses who takes the first turn",
        finished_first_bonus=1,
        source="Warhammer 8th edition rulebook, Fighting a Battle: alternating units "
               "(8th.whfb.app/fighting-a-warhammer-battle/alternating-units)",
    ),
)
