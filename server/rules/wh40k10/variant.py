"""What Warhammer 40,000 10th edition decides differently from the shared rules (see
`server.rules.systems`): units move model by model (with an Advance roll), charges are declared
within 12 in and rolled at once on 2D6, Deep Strike keeps a unit in reserve (FACTS.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from server.data import Datasheet
from server.rules.core import GameState
from server.rules.endgame import GameResult
from server.rules.state import Unit
from server.rules.systems import Pregame, Variant
from server.rules.wh40k10.profiles import profile_of

CHARGE_DECLARE_IN = 12.0


@dataclass(frozen=True)
class Warhammer40k(Variant):
    def allowance(self, sheet: Datasheet, mode: str) -> float:
        """M (an Advance adds a D6 rolled by the `advance` action)."""
        return float(profile_of(sheet).models[0].M)

    def charge_roll(self, sheet: Datasheet) -> tuple[str, int]:
        """2D6, nothing added."""
        return "2D6", 0

    def game_result(self, state: GameState, conceded_by: int | None) -> GameResult | None:
        """Victory Points from the objective markers; more VP wins, equal VP draws
        (server/rules/wh40k10/results.py, imported here because it needs the command phase's
        module, which needs this system)."""
        from server.rules.wh40k10.results import game_result

        return game_result(state, conceded_by)

    def model_names(self, state: GameState, unit: Unit) -> list[str]:
        """Each model by its line and number ("Beast Snagga Boy #7"), a Leader by its name."""
        from server.rules.wh40k10.army import model_name, models_of

        return [model_name(m) for m in models_of(state, unit)]

    def advance_refusal(self, state: GameState, unit_id: str) -> tuple[str, str] | None:
        """A unit that starts its Movement phase within Engagement Range of an enemy unit may
        not make a Normal move or Advance: it Falls Back or Remains Stationary (10th-edition
        core rules, Movement phase; docs/rules-decisions.md "Advance out of Engagement
        Range")."""
        from server.rules.units import units_of
        from server.rules.wh40k10.fall_back import started_engaged

        unit = units_of(state)[unit_id]
        if not started_engaged(state, unit):
            return None
        return ("Engagement Range",
                f"{unit.name} started the Movement phase within Engagement Range of an enemy "
                "unit: it may Fall Back or Remain Stationary, not Advance")

    def charge_refusal(self, state: GameState, unit_id: str) -> tuple[str, str] | None:
        """A unit within Engagement Range of an enemy may not declare a charge (10th-edition
        core rules, docs/rules-decisions.md); a unit that Advanced this turn may not charge
        (FACTS.md, the core loop), unless its army's Waaagh! is active and it has the ability
        (seed 004, Waaagh!)."""
        from server.rules.units import turn_moves, units_of
        from server.rules.wh40k10.army import engaged_with, has_waaagh, sheets, waaagh_active
        from server.rules.wh40k10.charging import pending_refusal
        from server.rules.wh40k10.fall_back import fell_back_this_turn

        waiting = pending_refusal(state, unit_id)
        if waiting is not None:
            return waiting
        if engaged_with(state, units_of(state)[unit_id]):
            return (
                "Charge",
                f"{units_of(state)[unit_id].name} is within Engagement Range of an enemy unit "
                "and cannot declare a charge",
            )
        if unit_id in fell_back_this_turn(state):
            return ("Fall Back", f"{units_of(state)[unit_id].name} Fell Back this turn and "
                    "cannot declare a charge")
        if not turn_moves(state).get(unit_id, {}).get("advanced"):
            return None
        unit = units_of(state)[unit_id]
        if waaagh_active(state, unit.owner) and all(has_waaagh(s) for s in sheets(unit)):
            return None
        return (
            "Advance",
            f"{unit.name} Advanced this turn and cannot declare a charge"
            + (" (a Waaagh! would allow it)" if all(has_waaagh(s) for s in sheets(unit)) else ""),
        )

    def finish_model_charge(
        self, state: GameState, unit_id: str, targets: Sequence[str],
        positions: Sequence[tuple[float, float]], reach: float,
    ) -> Sequence[tuple[float, float]]:
        """The straight charge's models, each that can reach base contact with a target's
        model moved into it (10th-edition core rules; server/rules/wh40k10/engage.py), once
        the straight move itself is legal (otherwise the refusal names why)."""
        from server.rules.units import units_of
        from server.rules.wh40k10.engage import charge_move_refusal, into_base_contact

        unit = units_of(state)[unit_id]
        if charge_move_refusal(state, unit, targets, positions, reach,
                               base_contact=False) is not None:
            return positions
        return into_base_contact(state, unit, targets, positions, reach)

    def model_charge_refusal(
        self, state: GameState, unit_id: str, targets: Sequence[str],
        positions: Sequence[tuple[float, float]], reach: float | None = None,
    ) -> tuple[str, str] | None:
        """The Charge move's rules (10th-edition core rules, docs/rules-decisions.md
        "Charges"): within Engagement Range of every target and of no other enemy unit, each
        model closer to a target, in base contact where it can reach one within `reach`, in
        coherency (server/rules/wh40k10/engage.py)."""
        from server.rules.units import units_of
        from server.rules.wh40k10.engage import charge_move_refusal

        err = charge_move_refusal(state, units_of(state)[unit_id], targets, positions, reach)
        if err is None:
            return None
        rule = err.details.get("rule")
        return (rule if isinstance(rule, str) else "Charge", err.message)


VARIANT = Warhammer40k(
    ranked=None,
    reserve_rules=("Deep Strike",),
    reserve_mode="reserve",
    charge_declare_range_in=CHARGE_DECLARE_IN,
    pregame=Pregame(
        deployment="loser_deploys_first",
        deployment_words="is the Attacker; the Defender sets up first, then the players "
                         "alternate",
        first_turn="roll_off_winner_first",
        first_turn_words="The players roll off; the winner takes the first turn",
        source="Warhammer 40,000 10th edition core rules, Only War: Determine Attacker and "
               "Defender, Deploy Armies, Determine First Turn",
    ),
)
