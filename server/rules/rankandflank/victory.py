"""Victory Points for destroyed units, as the rank-and-flank systems count them at the end of a
game (t9a, whfb8; issue 17 item 6; docs/rules-decisions.md "Results").

Each unit as it was mustered (`state.muster.mustered`: its models and the characters joined
to it in the army list) is costed from the datasheets' `points`. A player scores the full cost
of each enemy unit destroyed (t9a: "Destroyed Units: ... the full Point Cost", the 2nd-edition
rules; whfb8: dead or fled off the table, FACTS.md) — a fled-off unit, and a unit still in
Ambush at the end (removed as a casualty, seed 000), is destroyed. The rank-and-file and each
character count apart: the rank-and-file's cost when none of them remain, a character's when it
is no longer with its unit. A character that joined a unit from Ambush counts with that unit.
Fleeing or damaged units still on the table score nothing (neither source gives them a share).

Pure: reads the state, returns `ScoreLine`s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from server.data import load_catalog
from server.rules.core import GameState
from server.rules.endgame import ScoreLine
from server.rules.state import MusteredUnit
from server.rules.units import Unit, units_of


@dataclass(frozen=True)
class Part:
    """One costed part of a mustered unit: its rank-and-file, or one joined character."""

    unit: Unit
    datasheet: str
    name: str
    cost: int
    destroyed: bool


def mustered(state: GameState) -> Mapping[str, MusteredUnit]:
    """Each unit as it was mustered, by id."""
    return state.muster.mustered


def cost(state: GameState, datasheet: str, models: int) -> int:
    """What `models` models of `datasheet` cost (0 for a datasheet without points)."""
    points = load_catalog().get(state.system, datasheet).points
    return 0 if points is None else points.cost(models)


def _carrying(units: Mapping[str, Unit], name: str) -> Unit | None:
    """The unit a character called `name` rides in (joined from Ambush), if any."""
    return next(
        (u for u in units.values() if u.status != "destroyed" and name in
         [c.name for c in u.characters]),
        None,
    )


def parts(state: GameState, conceded_by: int | None = None) -> list[Part]:
    """Every costed part of every mustered unit, destroyed or not (a conceding player's units
    all count as destroyed: docs/rules-decisions.md "Results")."""
    units = units_of(state)
    catalog = load_catalog()
    out: list[Part] = []
    for uid, raw in mustered(state).items():
        unit = units.get(uid)
        if unit is None:
            continue
        gone_all = unit.status == "destroyed" or unit.owner == conceded_by
        if unit.status == "joined":
            host = _carrying(units, unit.name)
            gone_all = host is None or host.owner == conceded_by
        sheet = catalog.get(state.system, unit.datasheet)
        models = raw.models
        if models > 0:
            rf_gone = gone_all or (unit.status != "joined" and unit.models == 0)
            out.append(Part(unit, unit.datasheet, sheet.name, cost(state, unit.datasheet, models),
                            rf_gone))
        alive = [c.name for c in unit.characters]
        for datasheet in raw.characters:
            char = catalog.get(state.system, datasheet)
            gone = gone_all or char.name not in alive
            if not gone:
                alive.remove(char.name)
            out.append(Part(unit, datasheet, char.name, cost(state, datasheet, 1), gone))
    return out


def army_points(state: GameState, seat: int) -> int:
    """The cost of everything `seat` mustered."""
    return sum(p.cost for p in parts(state) if p.unit.owner == seat)


def casualty_lines(state: GameState, conceded_by: int | None = None) -> list[ScoreLine]:
    """One line per destroyed enemy part: its full cost to the player who destroyed it."""
    lines = []
    for part in parts(state, conceded_by):
        if part.destroyed and part.cost:
            why = "conceded" if part.unit.owner == conceded_by else "destroyed"
            lines.append(
                ScoreLine(3 - part.unit.owner, part.cost, f"{part.name} ({part.unit.name}) {why}")
            )
    return lines


def totals(lines: list[ScoreLine]) -> dict[int, int]:
    out = {1: 0, 2: 0}
    for line in lines:
        out[line.seat] += line.points
    return out
