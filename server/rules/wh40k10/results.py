"""Warhammer 40,000 10th edition: the result of a game, in the shape every system's result
takes (server/rules/endgame.py `GameResult`, the public `game_result` event).

- **Victory Points**: the VP each player scored from the objective markers (FACTS.md, the
  objective Decision; scored and folded in command.py); one line for each scoring that gained
  points, saying when and how many markers were held.
- **The result** (the same Decision: "most VP wins"): more VP wins, equal VP is a draw. The
  margin is the VP difference; the core rules name no grades of victory.
- **Concession** (command.py): the game ends at once and the opponent wins, whatever the VP;
  the VP scored so far are reported as they stand.
- Units still in Reserves at the end are destroyed first (reserves.py, a game-end hook); that
  scores nothing here, as no VP are given for destroying units.
"""

from __future__ import annotations

from server.rules.core import GameState
from server.rules.endgame import GameResult, ScoreLine
from server.rules.wh40k10.army import forty
from server.rules.wh40k10.command import vp

RESULT_RULE = ("At the end of the battle the player with more Victory Points wins; equal "
               "Victory Points is a draw. A player who concedes loses.")


def score_lines(state: GameState) -> list[ScoreLine]:
    """Where each player's Victory Points came from: one line per scoring that gained any."""
    lines = []
    for record in forty(state).scored:
        points = int(record["vp"])
        if points <= 0:
            continue
        held = len(record.get("markers") or [])
        markers = f"{held} objective marker{'' if held == 1 else 's'}"
        turn = record.get("turn")
        when = str(record.get("when") or "")
        at = (f"battle round {turn}, {when}" if turn else when) or "scored"
        lines.append(ScoreLine(int(record["seat"]), points,
                               f"{markers} controlled ({at})"))
    return lines


def game_result(state: GameState, conceded_by: int | None) -> GameResult | None:
    """The Victory Points, the winner and the margin (module text); None before any army is
    mustered (as in the other systems: the game then ends with `game_ended` alone)."""
    if not state.muster.mustered:
        return None
    points = vp(state)
    scores = {1: points["1"], 2: points["2"]}
    winner: int | None = None
    if scores[1] != scores[2]:
        winner = 1 if scores[1] > scores[2] else 2
    if conceded_by is not None:
        winner = 3 - conceded_by
    difference = scores[winner] - scores[3 - winner] if winner is not None else 0
    margin = f"by {difference} VP" if difference > 0 else None
    return GameResult(scores=scores, winner=winner, margin=margin,
                      lines=tuple(score_lines(state)), conceded_by=conceded_by,
                      rule=RESULT_RULE)
