"""Undead and marching (the Tomb Swarm page, ../shared/seeds/002_20fe50c61f72ab35.txt): "All
units with Undead have Animated Construct, Fear, and Unstable. However, they may make march
moves if they are joined by a character with My Will Be Done or Sworn Bodyguard."

`march_refusal` is the rule as a function of the unit's models: None when the unit may march,
else the rule that forbids it and a sentence for the `illegal_move` refusal (the shape of the
ranked rules' `flee_refusal`). The movement code (server/rules/moves.py `move_unit`, mode
"march") is to call it for whfb8 units once the per-system march rules live on the system
object (issue 14 item 2; the call site is the lead's to place).
A unit of characters alone marches when one of them has either rule; a unit without Undead is
not concerned.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.data import Datasheet
from server.rules.whfb8.profiles import MY_WILL_BE_DONE, SWORN_BODYGUARD, UNDEAD

MARCH_ENABLERS = (MY_WILL_BE_DONE, SWORN_BODYGUARD)


def march_refusal(
    name: str, sheets: Sequence[Datasheet], markers: Sequence[str] = ()
) -> tuple[str, str] | None:
    """(rule, why) when the unit called `name` (its models' `sheets`: its own first, then its
    joined characters') is Undead and may not march; None when it may (module text). The shape
    of the ranked rules' `flee_refusal`, so a system object can return it as is."""
    if not any(s.has_rule(UNDEAD) for s in sheets):
        return None
    if any(s.character and s.has_rule(rule) for s in sheets for rule in MARCH_ENABLERS):
        return None
    return (
        UNDEAD,
        f"{name} are Undead and cannot march unless joined by a character with "
        "My Will Be Done or Sworn Bodyguard",
    )
