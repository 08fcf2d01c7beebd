"""What Warhammer 40,000 10th edition decides differently from the shared rules (see
`server.rules.systems`): units move model by model (with an Advance roll), charges are declared
within 12 in and rolled at once on 2D6, Deep Strike keeps a unit in reserve (FACTS.md)."""

from __future__ import annotations

from dataclasses import dataclass

from server.data import Datasheet
from server.rules.systems import Variant

CHARGE_DECLARE_IN = 12.0


@dataclass(frozen=True)
class Warhammer40k(Variant):
    def allowance(self, sheet: Datasheet, mode: str) -> float:
        """M (an Advance adds a D6 rolled by the `advance` action)."""
        return float(sheet.profile.models[0].M)  # type: ignore[union-attr, arg-type]

    def charge_roll(self, sheet: Datasheet) -> tuple[str, int]:
        """2D6, nothing added."""
        return "2D6", 0


VARIANT = Warhammer40k(
    ranked=None,
    reserve_rules=("Deep Strike",),
    charge_declare_range_in=CHARGE_DECLARE_IN,
)
