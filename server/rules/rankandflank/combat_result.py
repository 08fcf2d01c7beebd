"""Rank-and-flank: the combat score (t9a) or combat result (whfb8) of one round.

Per side, the parts both games share, each value the system's (`RankAndFlankRules`):

1. **Wounds caused** this round (t9a Health Point losses), counted under the system's word
   ("health_points").
2. **Ranks**: the best rank bonus of the side's units (`rank_bonus` of the ranks that count,
   `proper_ranks`), counted as the units stand after the strikes. **Disrupted**: a unit with an
   enemy unit of `disrupting_ranks` or more counting ranks outside its Front arc (in its flank
   or rear) has no rank bonus.
3. **Standard**: `standard_bonus` when one of the side's units has the "standard" marker (a
   Standard Bearer: `standard: true` on its army entry).
4. **Charge**: `charge_bonus` when one of the side's units charged this round.
5. **Flank / Rear**: `flank_bonus` / `rear_bonus` when one of its units stands outside an enemy
   unit's Front arc, in its Rear arc for the rear.
6. **Extra parts** the system adds (`extra_score`; whfb8's battle standard; not overkill,
   which needs challenges, not automated).

The side with the higher total wins by the difference; equal totals are a draw.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from server.geometry.arcs import arcs_fought
from server.geometry.kinds import Arc
from server.rules.core import GameState
from server.rules.rankandflank.attacks import plural
from server.rules.rankandflank.engagement import (
    STANDARD,
    charged_this_round,
    sheet,
    sheets_of,
    standing,
)
from server.rules.rankandflank.system import RankAndFlankRules, rank_and_flank_of
from server.rules.units import Unit, table_of, units_of


def wounds_key(rules: RankAndFlankRules) -> str:
    """The combat score key of wounds caused: "health_points" for "Health Point"."""
    return rules.wounds_name.lower().replace(" ", "_") + "s"


def proper_ranks(state: GameState, unit: Unit) -> int:
    """The unit's ranks that count, as it stands now: the one judgement the rank bonus, the
    Disrupted check, Steadfast and the Break Test's note all read. A rank counts by the files it
    fills (`Footprint.rank_widths`: a character on a larger base fills every file and rank of its
    block), against the system's `rank_width` (docs/rules-decisions.md, "Ranks that count")."""
    fp = standing(state, unit)
    if fp is None:
        return 0
    rf = sheet(state, unit.datasheet) if unit.models else None
    chars = [sheet(state, c.datasheet) for c in unit.characters]
    return rank_and_flank_of(state).proper_ranks(fp.rank_widths, rf, chars)


def combat_score(
    state: GameState,
    combat: list[str],
    caused: Mapping[int, int],
    chargers: Iterable[str] | None = None,
) -> dict[int, dict[str, Any]]:
    """Each side's combat score and its parts (module text). `chargers`: the units that
    charged this round, as the round began (default: as `state` says)."""
    rules = rank_and_flank_of(state)
    if chargers is None:
        chargers = [u for u in combat if charged_this_round(state, u)]
    charging = set(chargers)
    units = units_of(state)
    table = table_of(state)
    out: dict[int, dict[str, Any]] = {}
    owners = sorted({units[u].owner for u in combat})
    for side in owners:
        mine = [u for u in combat if units[u].owner == side and units[u].status == "on_table"]
        theirs = [u for u in combat if units[u].owner != side and units[u].status == "on_table"]
        notes: list[dict[str, str]] = []
        best_rank, flank, rear, charge = 0, 0, 0, 0
        standard = 0
        for uid in mine:
            unit = units[uid]
            ranks = proper_ranks(state, unit)
            disrupted = False
            fp = table.units.get(uid)
            for eid in theirs:
                efp = table.units.get(eid)
                if fp is None or efp is None:
                    continue
                arcs = arcs_fought(fp, efp)
                if (
                    Arc.FRONT not in arcs
                    and proper_ranks(state, units[eid]) >= rules.disrupting_ranks
                ):
                    disrupted = True
                e_arcs = arcs_fought(efp, fp)
                if Arc.FRONT not in e_arcs:
                    if Arc.REAR in e_arcs:
                        rear = rules.rear_bonus
                    else:
                        flank = rules.flank_bonus
            bonus = 0 if disrupted else rules.rank_bonus(ranks)
            if disrupted and rules.rank_bonus(ranks):
                notes.append(
                    {"rule": "Disrupted", "text": f"Disrupted: {unit.name} lose the Rank Bonus"}
                )
            notes += rules.rank_notes(unit.name, ranks, sheets_of(state, unit), unit.models > 0)
            best_rank = max(best_rank, bonus)
            if STANDARD in unit.markers:
                standard = rules.standard_bonus
            if uid in charging:
                charge = rules.charge_bonus
        extra, extra_notes = rules.extra_score(state, mine, theirs)
        notes += extra_notes
        total = caused.get(side, 0) + best_rank + standard + charge + flank + rear
        total += sum(extra.values())
        out[side] = {
            wounds_key(rules): caused.get(side, 0),
            "rank_bonus": best_rank,
            "standard": standard,
            "charge": charge,
            "flank": flank,
            "rear": rear,
            **extra,
            "total": total,
            "rules": notes,
        }
    return out


def score_text(rules: RankAndFlankRules, side: int, score: Mapping[str, Any]) -> str:
    """"Player 1: 2 (1 Health Point, +1 charge)"."""
    parts = [plural(score[wounds_key(rules)], rules.wounds_name)]
    labels = {"rank_bonus": "ranks", "standard": "standard", "charge": "charge"}
    labels |= {"flank": "flank", "rear": "rear"}
    for key, value in score.items():
        if key in (wounds_key(rules), "total", "rules") or not value:
            continue
        parts.append(f"+{value} {labels.get(key, key.replace('_', ' '))}")
    return f"Player {side}: {score['total']} ({', '.join(parts)})"


def result(scores: Mapping[int, Mapping[str, Any]]) -> tuple[int | None, int]:
    """The winning side and the difference; (None, 0) for a draw."""
    owners = sorted(scores)
    if len(owners) != 2:
        return None, 0
    a, b = owners
    ta, tb = scores[a]["total"], scores[b]["total"]
    if ta == tb:
        return None, 0
    return (a if ta > tb else b), abs(ta - tb)
