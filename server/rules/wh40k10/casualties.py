"""Warhammer 40,000 10th edition: which model goes when the defender's choice is free.

FACTS.md (the core loop, Allocation): a model that has lost wounds (or had an attack allocated
this phase) takes the next attack; otherwise the defending player chooses. The Wurrboy page
(seed 004, Attached units): no Character takes one while a Bodyguard model lives. The attack
sequence keeps those two rules (`damage.allocation_target`); this module gives it the order
of the free choices, as a player would make them (docs/rules-decisions.md, "Allocation"):

1. the owner's own order of models, when set (allocation.py `set_allocation_order`), exactly;
2. otherwise, model by model, as if each went in turn (the wounded ones first, as they will):
   a. the model kind the owner put first, when they ordered the kinds;
   b. a model whose removal leaves the unit in Unit Coherency (FACTS.md: each model within
      2 in of one other, two others in a unit of 7 or more) before one that breaks it, and
      of two that break it the one leaving fewer models out;
   c. not the Sergeant or Nob line (the first model) while another kind is left;
   d. the model farthest from every enemy model (to the 0.01 in), so models in base contact
      and within Engagement Range stay in the fight;
   e. of models equal in all that, the highest-numbered.
3. the Leaders last, in model order.

Removing the highest-numbered model instead (the old default) could leave the unit out of
coherency, so that every later move was refused, and took the models in base contact first.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely

from server.geometry.constants import COHERENCY_IN, COHERENCY_LARGE_UNIT, EPSILON_IN
from server.geometry.footprint import model_gaps
from server.geometry.formation import ModelPlacement
from server.rules.core import GameState
from server.rules.units import Unit, base_of, footprint_of, units_of
from server.rules.wh40k10.army import (
    Model,
    allocation_preference,
    model_polygons,
    models_of,
)
from server.rules.wh40k10.profiles import profile_of

DISTANCE_STEP_IN = 0.01
"""Distances to the enemy are compared to this step, so rounding noise never decides."""


def placements(models: Sequence[Model]) -> list[ModelPlacement]:
    return [ModelPlacement(m.position[0], m.position[1], base_of(m.sheet)) for m in models]


def left_out(near: np.ndarray, alive: np.ndarray) -> int:
    """How many of the `alive` models break Unit Coherency (`near`: which models stand within
    2 in of which)."""
    k = int(alive.sum())
    if k <= 1:
        return 0
    need = 2 if k >= COHERENCY_LARGE_UNIT else 1
    counts = near[np.ix_(alive, alive)].sum(axis=1)
    return int((counts < need).sum())


def enemy_distances(state: GameState, unit: Unit) -> list[float]:
    """Each model's distance to the closest enemy model on the table (inf: none)."""
    polys = model_polygons(state, unit)
    out = np.full(len(polys), np.inf)
    if not polys:
        return []
    for other in units_of(state).values():
        if other.owner == unit.owner or not other.positions:
            continue
        fp = footprint_of(state, other)
        if fp is None:
            continue
        out = np.minimum(out, shapely.distance(np.array(polys, dtype=object), fp.boundary))
    return [float(d) for d in out]


def _sergeant_line(model: Model) -> bool:
    """Is `model` on its datasheet's last line of several (the Sergeant, the Nob: the line of
    the unit's first model, army.default_line)?"""
    lines = len(profile_of(model.sheet).models)
    return lines > 1 and model.line == lines - 1


def chosen_order(state: GameState, unit: Unit) -> list[str] | None:
    """The owner's own order of the unit's models (ids), when it still names every Bodyguard
    model the unit has; None otherwise."""
    from server.rules.wh40k10.army import forty

    order = list(forty(state).model_order.get(unit.id, ()))
    guards = [m.id for m in models_of(state, unit) if not m.character]
    if not order or sorted(order) != sorted(guards):
        return None
    return order


def sensible_order(state: GameState, unit: Unit) -> list[str]:
    """The Bodyguard models (ids), first to go first, by the module's steps 2a to 2e (the
    wounded models first, as the attack takes them)."""
    models = models_of(state, unit)
    guards = [m for m in models if not m.character]
    if not guards:
        return []
    near = model_gaps(placements(models)) <= COHERENCY_IN + EPSILON_IN
    far = enemy_distances(state, unit)
    kinds = allocation_preference(state, unit.id)
    alive = np.ones(len(models), dtype=bool)
    order: list[str] = []
    for m in guards:
        if m.lost > 0:
            order.append(m.id)
            alive[m.index] = False
    pool = [m for m in guards if m.lost == 0]

    def cost(m: Model) -> tuple[int, int, int, float, int]:
        after = alive.copy()
        after[m.index] = False
        kind = kinds.index(m.name) if m.name in kinds else len(kinds)
        step = -round(far[m.index] / DISTANCE_STEP_IN) if far[m.index] != np.inf else 0
        return (kind, left_out(near, after), int(_sergeant_line(m)), step, -m.index)

    while pool:
        best = min(pool, key=cost)
        order.append(best.id)
        alive[best.index] = False
        pool.remove(best)
    return order


def casualty_order(state: GameState, unit: Unit) -> list[str]:
    """The order the attack sequence allocates free choices in: the owner's, or the sensible
    one, then the Leaders."""
    leaders = [m.id for m in models_of(state, unit) if m.character]
    return (chosen_order(state, unit) or sensible_order(state, unit)) + leaders
