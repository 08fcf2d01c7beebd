"""Warhammer 40,000 10th edition: engagement follows the table.

A unit is engaged while one of its models is within Engagement Range (1 in, FACTS.md) of an
enemy model, and only then (`army.engaged_with` measures it). The shared charge code links a
charger to its target when the charge succeeds (`state.charges.engaged`: the "Engaged with ..."
a player reads, and what `charge.check_charger` refuses a charge for). In the rank-and-flank
games that link lasts until a combat ends; here nothing ends a combat but the geometry, so the
link is judged again after every event: it is kept only while both units are on the table and
within Engagement Range of each other. A casualty removed, a Fall Back, a pile-in or a
consolidation that breaks the contact, or the enemy unit destroyed, ends it at once.
"""

from __future__ import annotations

from server.geometry import ENGAGEMENT_RANGE_IN
from server.geometry.measure import within
from server.rules.core import Event, GameState, register_folder_hook
from server.rules.units import footprint_of, units_of, with_engaged
from server.rules.wh40k10.army import SYSTEM_ID


def still_engaged(state: GameState, a: str, b: str) -> bool:
    """Are units `a` and `b` both on the table, with models within Engagement Range?"""
    units = units_of(state)
    ua, ub = units.get(a), units.get(b)
    if ua is None or ub is None or not ua.positions or not ub.positions:
        return False
    fa, fb = footprint_of(state, ua), footprint_of(state, ub)
    return fa is not None and fb is not None and within(fa, fb, ENGAGEMENT_RANGE_IN)


@register_folder_hook
def _links_follow_the_table(state: GameState, event: Event) -> GameState:
    links = state.charges.engaged
    if state.system != SYSTEM_ID or not links:
        return state
    kept = {a: b for a, b in links.items() if still_engaged(state, a, b)}
    return state if len(kept) == len(links) else with_engaged(state, kept)
