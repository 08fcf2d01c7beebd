"""The 9th Age: Secondary Objectives, Victory Points and the result of a game (issue 17 item 6;
docs/rules-decisions.md "Results").

Sources: the 2nd-edition rules as published on New Recruit's T9A wiki ("The Ninth Age (2022)":
*Secondary Objectives*, *Battle Points*, *Optional Simplified Rules for Determining the Winner*)
and seed 000 (Ambush: "A unit arriving on the Battlefield in Game Turn 6 loses Scoring").

- **Secondary Objective**, set in the pre-game (`choose_secondary_objective`, either player,
  before the battle starts; the last choice stands): *Hold the Ground* (at the end of each
  Game Turn after the first, the player with more Scoring Units within 6 in of the centre gains
  a counter; most counters wins) or *Breakthrough* (at the end of the game, the player with more
  Scoring Units inside the opponent's Deployment Zone, at most 3 counted, wins).
- **Scoring Units** (decision): on the table, not Fleeing, and without `lost_scoring` (an Ambush
  arrival in Game Turn 6). "Within 6 in" is the Unit Boundary's distance to the centre; "inside
  the Deployment Zone" is the unit's centre inside it.
- **Victory Points**: each destroyed enemy unit's full Point Cost (rankandflank/victory.py);
  the Secondary Objective's winner gains 20% of the Army Points (the simplified rules).
- **The result** (the simplified rules): a Victory Point difference under 10% of the Army
  Points is a Draw; from 10% to 50% a Win; over 50% a Massacre. Army Points (decision): the
  larger army's cost. A concession (decision): the conceding player's units all count as
  destroyed and the opponent wins.
- The 20-Battle-Point split (10-10 a draw, 20-0 a decisive victory) is not given: its table of
  Victory Point differences was not found, so no Battle Points are reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import shapely

from server.dice import DiceStream
from server.rules.battle import on_phase_end
from server.rules.core import (
    DEPLOYMENT,
    SETUP,
    ActionModel,
    Event,
    GameState,
    When,
    part_of,
    register_action,
    register_folder,
    register_projector,
    with_part,
)
from server.rules.endgame import GameResult, Objective, ScoreLine
from server.rules.markers import FLEEING
from server.rules.orders import Offer, in_window, offer, register_game_offer
from server.rules.rankandflank import victory
from server.rules.state import changed
from server.rules.systems import find_system
from server.rules.t9a.ambush import LOST_SCORING
from server.rules.units import Unit, deployment_zone, footprint_of, units_of

HOLD_THE_GROUND = "hold_the_ground"
BREAKTHROUGH = "breakthrough"
OBJECTIVE_NAMES = {HOLD_THE_GROUND: "Hold the Ground", BREAKTHROUGH: "Breakthrough"}
OBJECTIVE_TEXTS = {
    HOLD_THE_GROUND: "At the end of each Game Turn after the first, the player with more Scoring "
                     "Units within 6 in of the centre gains a counter; most counters wins.",
    BREAKTHROUGH: "At the end of the game, the player with more Scoring Units inside the "
                  "opponent's Deployment Zone (at most 3 counted) wins.",
}
CENTRE_RANGE_IN = 6.0
BREAKTHROUGH_MOST = 3
SECONDARY_SHARE = 0.20
DRAW_BELOW = 0.10
MASSACRE_OVER = 0.50


# --- choosing the Secondary Objective (pre-game) ---------------------------------------------
class ChooseSecondaryObjective(ActionModel):
    type: Literal["choose_secondary_objective"]
    objective: Literal["hold_the_ground", "breakthrough"]


@register_action(
    "choose_secondary_objective",
    ChooseSecondaryObjective,
    systems=["t9a"],
    when=[When(SETUP), When(DEPLOYMENT)],
    doing="choosing the Secondary Objective",
)
def choose_secondary_objective(
    state: GameState, seat: int, action: ChooseSecondaryObjective, dice: DiceStream
) -> list[Event]:
    """Either player sets the game's Secondary Objective before the battle begins (the players
    agree on it; the last choice stands): setup and deployment (`when`)."""
    name = OBJECTIVE_NAMES[action.objective]
    return [
        Event(
            "secondary_objective_chosen",
            {
                "objective": action.objective,
                "name": name,
                "rule": "Secondary Objectives",
                "text": f"Player {seat} sets the Secondary Objective: {name}",
            },
            actor=seat,
        )
    ]


@register_folder("secondary_objective_chosen")
def _fold_chosen(state: GameState, event: Event) -> GameState:
    objectives = changed(_objectives(state), chosen=event.payload["objective"])
    return with_part(state, objectives)


@dataclass(frozen=True)
class Objectives:
    """This system's part of the state for the Secondary Objective: the one chosen (None until
    it is) and the Hold the Ground counters each player gained ("1", "2")."""

    chosen: str | None = None
    counters: Mapping[str, int] = field(default_factory=lambda: {"1": 0, "2": 0})


def _objectives(state: GameState) -> Objectives:
    return part_of(state, Objectives)


def secondary_objective(state: GameState) -> str | None:
    return _objectives(state).chosen


@register_game_offer("choose_secondary_objective")
def _offer_secondary_objective(state: GameState, seat: int) -> Offer | None:
    """Either player, before the battle: the Secondary Objectives to choose from (with their
    words) and the one set now (None until a player sets one)."""
    if not in_window(state, seat, "choose_secondary_objective"):
        return None
    return offer(
        "choose_secondary_objective",
        current=secondary_objective(state),
        objectives=[{"id": key, "name": name, "text": OBJECTIVE_TEXTS[key]}
                    for key, name in OBJECTIVE_NAMES.items()],
        rule="Secondary Objectives",
    )


# --- Scoring Units -------------------------------------------------------------------------------
def scoring(unit: Unit) -> bool:
    """On the table, not Fleeing, not having lost Scoring (seed 000, Ambush in Game Turn 6)."""
    return (
        unit.status == "on_table"
        and unit.model_count > 0
        and FLEEING not in unit.markers
        and LOST_SCORING not in unit.markers
    )


def _lost_scoring_note(units: list[Unit]) -> str:
    late = [u.name for u in units if LOST_SCORING in u.markers]
    if not late:
        return ""
    return "; not Scoring (arrived from Ambush in Game Turn 6): " + ", ".join(late)


def near_centre(state: GameState) -> dict[int, list[Unit]]:
    """Each player's units within 6 in of the centre (Unit Boundary to the centre point)."""
    centre = shapely.Point(state.battlefield.width / 2, state.battlefield.depth / 2)
    out: dict[int, list[Unit]] = {1: [], 2: []}
    for unit in units_of(state).values():
        fp = footprint_of(state, unit)
        if fp is not None and fp.boundary.distance(centre) <= CENTRE_RANGE_IN + 1e-9:
            out[unit.owner].append(unit)
    return out


def in_enemy_zone(state: GameState) -> dict[int, list[Unit]]:
    """Each player's units whose centre is inside the opponent's Deployment Zone."""
    out: dict[int, list[Unit]] = {1: [], 2: []}
    for unit in units_of(state).values():
        fp = footprint_of(state, unit)
        zone = deployment_zone(state, 3 - unit.owner)
        if fp is not None and zone.covers(shapely.Point(*fp.centre)):
            out[unit.owner].append(unit)
    return out


def _most(counts: dict[int, int]) -> int | None:
    if counts[1] == counts[2]:
        return None
    return 1 if counts[1] > counts[2] else 2


# --- Hold the Ground: a counter at the end of each Game Turn after the first ---------------------
@on_phase_end("t9a")
def hold_the_ground_counter(state: GameState, dice: DiceStream) -> list[Event]:
    """At the end of each Game Turn after the first (the second player's last phase), the player
    with more Scoring Units within 6 in of the centre gains a counter."""
    if secondary_objective(state) != HOLD_THE_GROUND:
        return []
    phases = find_system(state.system).phases
    first = state.battle.first_player
    turn = (state.battle.turn or 1)
    if state.battle.phase != phases[-1] or state.battle.active_player == first:
        return []
    if turn < 2:
        return []
    near = near_centre(state)
    counts = {s: sum(1 for u in near[s] if scoring(u)) for s in (1, 2)}
    gained = _most(counts)
    text = (
        f"Hold the Ground, end of Game Turn {turn}: Scoring Units within 6 in of the centre "
        f"{counts[1]} - {counts[2]}; "
        + ("no counter" if gained is None else f"Player {gained} gains a counter")
        + _lost_scoring_note(near[1] + near[2])
    )
    return [
        Event(
            "objective_counter",
            {
                "objective": HOLD_THE_GROUND,
                "turn": turn,
                "counts": {"1": counts[1], "2": counts[2]},
                "gained": gained,
                "rule": "Hold the Ground",
                "text": text,
            },
        )
    ]


@register_folder("objective_counter")
def _fold_counter(state: GameState, event: Event) -> GameState:
    counters = dict(_objectives(state).counters)
    gained = event.payload["gained"]
    if gained is not None:
        counters[str(gained)] = counters.get(str(gained), 0) + 1
    return with_part(state, changed(_objectives(state), counters=counters))


@register_projector
def _project_objective(state: GameState, viewer: int | None, out: dict[str, Any]) -> None:
    if state.system != "t9a":
        return
    chosen = secondary_objective(state)
    out["secondary_objective"] = chosen
    out["secondary_objective_name"] = None if chosen is None else OBJECTIVE_NAMES[chosen]
    out["objective_counters"] = dict(_objectives(state).counters)


# --- the end: objectives, Victory Points, the result ---------------------------------------------
def objective_result(state: GameState) -> Objective | None:
    """Who won the game's Secondary Objective (None: none was set)."""
    chosen = secondary_objective(state)
    if chosen == HOLD_THE_GROUND:
        raw = _objectives(state).counters
        counts = {1: int(raw.get("1", 0)), 2: int(raw.get("2", 0))}
        winner = _most(counts)
        text = f"Hold the Ground: counters {counts[1]} - {counts[2]}"
    elif chosen == BREAKTHROUGH:
        inside = in_enemy_zone(state)
        counts = {s: min(BREAKTHROUGH_MOST, sum(1 for u in inside[s] if scoring(u)))
                  for s in (1, 2)}
        winner = _most(counts)
        text = (
            f"Breakthrough: Scoring Units in the opponent's Deployment Zone {counts[1]} - "
            f"{counts[2]}" + _lost_scoring_note(inside[1] + inside[2])
        )
    else:
        return None
    text += ": " + ("nobody wins it" if winner is None else f"Player {winner} wins it")
    return Objective(OBJECTIVE_NAMES[chosen], winner, text, counts)


def game_result(state: GameState, conceded_by: int | None) -> GameResult | None:
    """Victory Points, the Secondary Objective and the result (module text); None before
    any army is mustered."""
    if not victory.mustered(state):
        return None  # no army mustered yet: nothing to score (the game ends with game_ended)
    lines = victory.casualty_lines(state, conceded_by)
    army = max(victory.army_points(state, 1), victory.army_points(state, 2))
    objective = objective_result(state)
    if objective is not None and objective.winner is not None and conceded_by is None:
        share = round(army * SECONDARY_SHARE)
        lines.append(ScoreLine(objective.winner, share,
                               f"{objective.name} won: 20% of {army} Army Points"))
    scores = victory.totals(lines)
    difference = abs(scores[1] - scores[2])
    ahead = None if scores[1] == scores[2] else (1 if scores[1] > scores[2] else 2)
    margin: str | None
    if army <= 0 or difference < DRAW_BELOW * army:
        winner, margin = None, None
    else:
        winner, margin = ahead, ("Massacre" if difference > MASSACRE_OVER * army else "Win")
    if conceded_by is not None:
        winner = 3 - conceded_by
        margin = margin if ahead == winner and margin else "Win"
    return GameResult(
        scores=scores,
        winner=winner,
        margin=margin,
        lines=tuple(lines),
        objectives=() if objective is None else (objective,),
        conceded_by=conceded_by,
    )
