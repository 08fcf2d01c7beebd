"""The Wurrboy's own ability that rolls dice: Roar of Mork (FACTS.md, Wurrboy; issue 16 item 4).

In the opponent's Command phase the Wurrboy picks one visible enemy unit within 18 in (the
caller checks visibility and range) and rolls a D6 (a Psychic test): on a 1 the Wurrboy's unit
suffers D3 mortal wounds (allocated like any mortal wounds: in an Attached unit the Bodyguard
first, docs/wh40k10-attacks.md); on 2+ that enemy unit subtracts 2 from its Battle-shock and
Leadership tests until the start of the opponent's next Command phase (the engine keeps that
effect). Unstable Oracle and the Waaagh! are profile changes: `profiles.unstable_oracle`,
`profiles.waaagh_weapon`, `profiles.waaagh_model`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from server.rules.wh40k10.damage import (
    Board,
    Recorder,
    Resolution,
    Roller,
    check_demise_input,
    faces,
    finish,
    inflict_mortal_wounds,
    plural,
    roll_amount,
)
from server.rules.wh40k10.profiles import TargetUnit

ROAR_OF_MORK_RANGE_IN = 18
ROAR_OF_MORK_FAILS_ON = 1
ROAR_OF_MORK_MORTAL_WOUNDS = "D3"
ROAR_OF_MORK_MODIFIER = -2
"""Added to the target's Battle-shock and Leadership tests after a successful roar."""


def roar_of_mork(
    own_unit: TargetUnit,
    roller: Roller,
    *,
    within_6in: Mapping[str, Sequence[str]] | None = None,
) -> Resolution:
    """Roll Roar of Mork for the Wurrboy leading (or being) `own_unit`. `data["succeeded"]`
    says whether the target takes -2; on a 1 the result carries the mortal wounds suffered."""
    check_demise_input(own_unit, within_6in)
    rec = Recorder(roller)
    board = Board(own_unit)
    roll, index = rec.roll("D6")
    face = faces(roll)[0]
    succeeded = face != ROAR_OF_MORK_FAILS_ON
    rec.add(
        "roar_of_mork",
        f"Roar of Mork: rolled {face}: "
        + (
            f"the target subtracts {-ROAR_OF_MORK_MODIFIER} from Battle-shock and Leadership tests"
            if succeeded
            else f"{own_unit.name} suffers {ROAR_OF_MORK_MORTAL_WOUNDS} mortal wounds"
        ),
        roll=index,
        needed=ROAR_OF_MORK_FAILS_ON + 1,
        data={"succeeded": succeeded},
    )
    lost = 0
    inflicted = 0
    if not succeeded:
        inflicted = roll_amount(rec, ROAR_OF_MORK_MORTAL_WOUNDS, "Roar of Mork mortal wounds")
        lost = inflict_mortal_wounds(
            rec, board, inflicted, cause="Roar of Mork", within_6in=within_6in
        )
        rec.add("roar_of_mork", f"Roar of Mork: {plural(lost, 'wound')} lost")
    return finish(rec, board, lost, succeeded=succeeded, mortal_wounds=inflicted)
