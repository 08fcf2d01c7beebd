"""Undead and marching (the Tomb Swarm page, ../shared/seeds/002_20fe50c61f72ab35.txt): "All
units with Undead have Animated Construct, Fear, and Unstable. However, they may make march
moves if they are joined by a character with My Will Be Done or Sworn Bodyguard."

`march_refusal` is the rule as a function of the unit's models: None when the unit may march,
else the rule that forbids it and a sentence for the `illegal_move` refusal. The movement code
(server/rules/moves.py `move_unit`, mode "march") calls it for whfb8 units once the per-system
march rules live on the system object (issue 14 item 2; the call site is the lead's to place).
A unit of characters alone marches when one of them has either rule; a unit without Undead is
not concerned.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.data import Datasheet
from server.rules.whfb8.profiles import MY_WILL_BE_DONE, SWORN_BODYGUARD, UNDEAD

MARCH_ENABLERS = (MY_WILL_BE_DONE, SWORN_BODYGUARD)


def march_refusal(
    unit_name: str, rank_and_file: Datasheet | None, characters: Sequence[Datasheet]
) -> tuple[str, str] | None:
    """(rule, message) when the Undead unit may not march; None when it may (module text)."""
    models = ([rank_and_file] if rank_and_file is not None else []) + list(characters)
    if not any(m.has_rule(UNDEAD) for m in models):
        return None
    if any(c.has_rule(rule) for c in characters for rule in MARCH_ENABLERS):
        return None
    return (
        UNDEAD,
        f"{unit_name} are Undead and cannot march unless joined by a character with "
        "My Will Be Done or Sworn Bodyguard",
    )
