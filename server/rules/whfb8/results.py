"""Warhammer Fantasy Battle 8th edition: Victory Points and the result of a game (issue 17
item 6; docs/rules-decisions.md "Results").

- **Victory Points** (FACTS.md, 8th edition): the full points value of every enemy unit
  destroyed or fled off the table (rankandflank/victory.py); units still fleeing on the table
  and damaged units score nothing; no half points. A joined character counts as its own unit.
- **The result** (the Warhammer Armies Project's *Victory Points*, wap.whfb.app, for the
  8th-edition rule not found): a player who scores at least 100 Victory Points more than the
  opponent wins, a *crushing victory* with at least twice as many; anything else is a draw.
- **Concession** (the same source): the opponent scores a *Massacre*: the conceding player's
  units count as destroyed and the opponent wins.
- Not automated: +100 for the enemy General and for the Battle Standard Bearer, +25 for other
  standards taken in close combat (FACTS.md): armies name no General yet and standards are not
  captured by the engine.
"""

from __future__ import annotations

from server.rules.core import GameState
from server.rules.endgame import GameResult
from server.rules.rankandflank import victory

WIN_BY = 100
RESULT_RULE = (f"A player wins with at least {WIN_BY} Victory Points more than the opponent "
               "(a Crushing Victory with at least twice as many); anything closer is a draw.")


def game_result(state: GameState, conceded_by: int | None) -> GameResult | None:
    """Victory Points and the winner (module text); None before any army is mustered."""
    if not victory.mustered(state):
        return None  # no army mustered yet: nothing to score (the game ends with game_ended)
    lines = victory.casualty_lines(state, conceded_by)
    scores = victory.totals(lines)
    high = max(scores, key=lambda s: scores[s])
    low = 3 - high
    winner: int | None = None
    margin: str | None = None
    if scores[high] - scores[low] >= WIN_BY:
        winner = high
        margin = "Crushing Victory" if scores[high] >= 2 * scores[low] else "Victory"
    if conceded_by is not None:
        winner, margin = 3 - conceded_by, "Massacre"
    return GameResult(scores=scores, winner=winner, margin=margin, lines=tuple(lines),
                      conceded_by=conceded_by, rule=RESULT_RULE)
