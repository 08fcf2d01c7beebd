"""What The 9th Age decides differently from the shared rules (see `server.rules.systems`).

Sources: seed 000 (Swiftstride, Fearless, Feigned Flight, Light Troops, Skirmisher), FACTS.md
(Advance and March Rates, the charge roll decision) and docs/rules-decisions.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from server.data import Datasheet
from server.data.schema import T9AGlobal
from server.geometry.constants import SKIRMISH_GAP_T9A_IN
from server.geometry.frame import Placement
from server.rules.core import GameState
from server.rules.endgame import GameResult
from server.rules.markers import SHAKEN
from server.rules.rankandflank.system import RankAndFlankReactions
from server.rules.systems import (
    Pregame,
    RankedRules,
    Variant,
    containing_rule,
    entirely_with,
    swiftstride_roll,
)
from server.rules.t9a.profiles import profile_of


def _global(sheet: Datasheet) -> T9AGlobal:
    return profile_of(sheet).global_characteristics


@dataclass(frozen=True)
class NinthAgeRanked(RankAndFlankReactions, RankedRules):
    failed_charge_words: str = "the Charge Range rolled"

    def failed_charge_distance(self, roll: Mapping[str, Any], reach: float) -> float:
        """A failed charge still moves its whole Charge Range towards the target (the
        Failed Charge Move; docs/rules-decisions.md "Charges")."""
        return float(reach)

    def discipline(self, sheet: Datasheet) -> int:
        """Rally Tests are taken against Discipline."""
        return int(_global(sheet).discipline)

    def flee_refusal(
        self, name: str, sheets: Sequence[Datasheet], markers: Sequence[str]
    ) -> tuple[str, str] | None:
        """Fearless (seed 000): a unit containing Fearless cannot choose Flee! unless it is
        already Shaken or the entire unit has Feigned Flight."""
        if (
            containing_rule(sheets, "Fearless")
            and SHAKEN not in markers
            and not entirely_with(sheets, "Feigned Flight")
        ):
            return (
                "Fearless",
                f"{name} contains Fearless: it cannot choose Flee! as a Charge "
                "Reaction unless it is already Shaken or the entire unit has Feigned Flight",
            )
        return None

    def reform_allowance(self, allowance: float, light: bool) -> float:
        """No single model of a Reform moves further than twice its Mobility (the 2nd-edition
        Reform Move; docs/rules-decisions.md "Reform"). Mobility is the Advance Rate."""
        return allowance * 2.0

    def reform_centre_limit(self, allowance: float, light: bool) -> float | None:
        """The centre of a reforming unit travels at most half its Mobility; a unit entirely
        with Light Troops up to twice its Mobility (seed 000, Light Troops: "instead of the
        normal half Mobility")."""
        return allowance * (2.0 if light else 0.5)

    def reform_files_change(self) -> int | None:
        """A Reform changes the number of files by at most 3 (the 2nd-edition Reform Move)."""
        return 3


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

    def unit_charge_roll(self, sheets: Sequence[Datasheet]) -> tuple[str, int]:
        """2D6 + the rank-and-file's Advance Rate; Maximised only for a unit entirely with
        Swiftstride (seed 000: "units entirely with Swiftstride"), as for its flee roll."""
        return swiftstride_roll(sheets)[0], _global(sheets[0]).advance_rate

    def game_result(self, state: GameState, conceded_by: int | None) -> GameResult | None:
        """Victory Points, the Secondary Objective and Draw / Win / Massacre (the 2nd-edition
        simplified rules for determining the winner: server/rules/t9a/results.py)."""
        from server.rules.t9a.results import game_result

        return game_result(state, conceded_by)

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
    pregame=Pregame(
        deployment="winner_chooses",
        deployment_words="decides which player is the Defender; the Attacker deploys first",
        first_turn="first_to_finish_chooses",
        first_turn_words="The player who deploys their whole army first chooses at once who "
                         "has the first Player Turn",
        source="The Ninth Age (2022), Battle Setup: Roll-off for Attacker or Defender; Deploy "
               "Units (newrecruit.eu/wiki/t9a/the-ninth-age-(2022)/rules/battle-setup)",
    ),
)
