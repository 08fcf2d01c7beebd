"""What The 9th Age decides differently from the shared rules (see `server.rules.systems`).

Sources: seed 000 (Swiftstride, Fearless, Feigned Flight, Light Troops, Skirmisher), FACTS.md
(Advance and March Rates, the charge roll decision) and docs/rules-decisions.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from server.data import Datasheet
from server.geometry.constants import SKIRMISH_GAP_T9A_IN
from server.geometry.frame import Placement
from server.rules.core import GameState
from server.rules.markers import SHAKEN
from server.rules.systems import RankedRules, Variant


def _global(sheet: Datasheet) -> Any:
    return sheet.profile.global_characteristics  # type: ignore[union-attr]


@dataclass(frozen=True)
class NinthAgeRanked(RankedRules):
    def discipline(self, sheet: Datasheet) -> int:
        """Rally Tests are taken against Discipline."""
        return int(_global(sheet).discipline)

    def flee_refusal(
        self, name: str, sheets: Sequence[Datasheet], markers: Sequence[str]
    ) -> tuple[str, str] | None:
        """Fearless (seed 000): a unit containing Fearless cannot choose Flee! unless it is
        already Shaken or the entire unit has Feigned Flight."""
        if (
            any(s.has_rule("Fearless") for s in sheets)
            and SHAKEN not in markers
            and not all(s.has_rule("Feigned Flight") for s in sheets)
        ):
            return (
                "Fearless",
                f"{name} contains Fearless: it cannot choose Flee! as a Charge "
                "Reaction unless it is already Shaken or the entire unit has Feigned Flight",
            )
        return None

    def reform_allowance(self, allowance: float, light: bool) -> float:
        """A Reform moves the models up to half the Advance Rate (Light Troops: twice it)."""
        return allowance * (2.0 if light else 0.5)


@dataclass(frozen=True)
class NinthAge(Variant):
    def allowance(self, sheet: Datasheet, mode: str) -> float:
        """Advance Rate, or March Rate for a March Move."""
        g = _global(sheet)
        return float(g.march_rate if mode == "march" else g.advance_rate)

    def charge_roll(self, sheet: Datasheet) -> tuple[str, int]:
        """2D6 + Advance Rate (FACTS.md decision); Swiftstride rolls Maximised (3D6 keep 2)."""
        swift = sheet.has_rule("Swiftstride")
        return ("2D6 maximised x1" if swift else "2D6"), _global(sheet).advance_rate

    def ambush_options(
        self,
        state: GameState,
        unit_id: str,
        point: tuple[float, float],
        requested: Placement | None,
    ) -> dict[str, Any] | None:
        """Ambush (seed 000): the 6 in zone around the edge point (server/rules/t9a/ambush.py,
        imported here because it needs the units module, which needs this system)."""
        from server.rules.t9a.ambush import ambush_options

        return ambush_options(state, unit_id, point, requested)


VARIANT = NinthAge(
    ranked=NinthAgeRanked(
        skirmish_gap_in=SKIRMISH_GAP_T9A_IN,
        shaken_after_rally=True,
        centre_reform_rule="Light Troops",
    ),
    reserve_rules=("Ambush",),
    edge_arrival_rule="Ambush",
)
