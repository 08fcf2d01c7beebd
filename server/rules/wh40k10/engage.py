"""Warhammer 40,000 10th edition: the moves that close with the enemy, judged model by model
(issue 16 items 1 and 2): the Charge move, Pile in and Consolidate.

Each is a `move_models` of the geometry core (distance, table edge, terrain, other units,
model overlap, Unit Coherency) and then the rules of the move:

* **Charge move** (FACTS.md, Charge phase; 10th-edition core rules, docs/rules-decisions.md
  "Charges"): each model moves up to the Charge roll and ends closer to one of the targets;
  no model moves within Engagement Range of an enemy unit that was not a target (at any point
  of its move, as the swept bases show) nor through an enemy model; the unit ends within
  Engagement Range of *every* target and in Unit Coherency. Otherwise the charge fails.
* **Pile in** (FACTS.md, Fight phase; core rules): up to 3 in; a model already in base contact
  with an enemy model does not move; each model that moves ends closer to the closest enemy
  model, and in base contact with one if it can (Decision: when the closest enemy model was
  within 3 in of it); the unit ends within Engagement Range of an enemy unit and in coherency.
* **Consolidate**: as Pile in; if the unit cannot end within Engagement Range of an enemy unit
  (Decision: no model within 3 in + Engagement Range of an enemy model), each model that moves
  instead ends closer to the objective marker closest to the unit, and the unit ends within
  range (3 in) of that marker.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import shapely

from server.geometry import ENGAGEMENT_RANGE_IN, contact, movement
from server.geometry.constants import CONTACT_TOLERANCE_IN, EPSILON_IN
from server.geometry.footprint import model_polygons as placed_polygons
from server.geometry.formation import ModelPlacement
from server.geometry.kinds import Rule
from server.geometry.measure import distance, in_base_contact, within
from server.rules.core import BAD_REQUEST, ILLEGAL_MOVE, GameState, RuleError
from server.rules.naming import display_name, possessive, say_inches
from server.rules.units import Unit, base_of, illegal_move_error, table_of, units_of
from server.rules.wh40k10.army import model_polygons, models_of

CLOSE_IN_IN = 3.0
"""Pile in and Consolidate: up to 3 in (FACTS.md, Fight phase)."""


def placements(
    state: GameState, unit: Unit, positions: Sequence[Sequence[float]]
) -> list[ModelPlacement]:
    models = models_of(state, unit)
    return [ModelPlacement(float(x), float(y), base_of(models[i].sheet))
            for i, (x, y) in enumerate(positions)]


def _count(state: GameState, unit: Unit, positions: Sequence[object], field: str) -> None:
    if len(positions) != len(unit.positions):
        raise RuleError(
            BAD_REQUEST,
            f"{display_name(state, unit.id)} has {len(unit.positions)} models; give one position "
            "for each",
            field=field,
        )


def _enemies(state: GameState, unit: Unit) -> list[Unit]:
    table = table_of(state)
    return [
        u for u in units_of(state).values()
        if u.owner != unit.owner and u.id in table.units and u.positions
    ]


def _friends(state: GameState, unit: Unit) -> list[str]:
    return [u.id for u in units_of(state).values() if u.owner == unit.owner and u.id != unit.id]


def _refuse(rule: str, message: str, **details: Any) -> RuleError:
    return RuleError(ILLEGAL_MOVE, message, rule=rule, **details)


def _through_enemy_models(
    state: GameState, result: movement.MoveResult, enemies: Sequence[Unit], what: str
) -> RuleError | None:
    """No model moves through an enemy model (a swept base overlapping one, not touching)."""
    table = table_of(state)
    for e in enemies:
        overlap = shapely.area(shapely.intersection(result.swept, table.units[e.id].boundary))
        if overlap > CONTACT_TOLERANCE_IN**2:
            return _refuse(
                "Moving Through Units",
                f"{what}: a model would move through "
                f"{possessive(display_name(state, e.id))} models",
                obstacle=e.id,
            )
    return None


def moved_models(starts: Sequence[ModelPlacement], ends: Sequence[ModelPlacement]) -> list[int]:
    return [
        i for i, (a, b) in enumerate(zip(starts, ends, strict=True))
        if abs(a.x - b.x) > EPSILON_IN or abs(a.y - b.y) > EPSILON_IN
    ]


# --- the Charge move ----------------------------------------------------------------------------


def charge_move_refusal(
    state: GameState,
    unit: Unit,
    targets: Sequence[str],
    positions: Sequence[Sequence[float]],
    max_distance: float | None = None,
    *,
    base_contact: bool = True,
) -> RuleError | None:
    """Why the Charge move of `unit` to `positions` against `targets` is not allowed (None:
    it is). `max_distance`: the Charge roll (None: judge everything but the distance and
    base contact, which needs the roll). `base_contact` False: leave base contact unjudged (the
    trial moves `base_contact_refusal` makes)."""
    _count(state, unit, positions, "positions")
    what = f"{display_name(state, unit.id)} cannot charge there"
    table = table_of(state)
    starts = placements(state, unit, unit.positions)
    ends = placements(state, unit, positions)
    result = movement.move_models(
        table, unit.id, starts, ends, max_distance=max_distance,
        ignore=_friends(state, unit), charging=list(targets),
    )
    enemies = _enemies(state, unit)
    if not result.legal and result.rule is not Rule.ENGAGEMENT_RANGE:
        return illegal_move_error(state, result, what, unit)
    for e in enemies:
        if e.id not in targets and within(result.swept, table.units[e.id], ENGAGEMENT_RANGE_IN):
            return _refuse(
                "Engagement Range",
                f"{what}: it would move within Engagement Range of "
                f"{display_name(state, e.id)}, which is not a target of the charge",
                obstacle=e.id,
            )
    if not result.legal:
        return illegal_move_error(state, result, what, unit)
    through = _through_enemy_models(state, result, [e for e in enemies if e.id in targets], what)
    if through is not None:
        return through
    end_polys = placed_polygons(ends)
    start_polys = placed_polygons(starts)
    for i in moved_models(starts, ends):
        closer = any(
            distance(end_polys[i], table.units[t]).distance
            < distance(start_polys[i], table.units[t]).distance - EPSILON_IN
            for t in targets
        )
        if not closer:
            return _refuse(
                "Charge",
                f"{what}: model {i + 1} must end its Charge move closer to one of the targets",
                model=i,
            )
    for t in targets:
        fp = table.units[t]
        if not any(within(p, fp, ENGAGEMENT_RANGE_IN) for p in end_polys):
            return _refuse(
                "Charge",
                f"{what}: the charge must end within Engagement Range of every target, and "
                f"{display_name(state, t)} is not",
                target=t,
            )
    if base_contact and max_distance is not None:
        return base_contact_refusal(state, unit, targets, positions, max_distance)
    return None


CONTACT_TRIES = 6
"""Places in base contact tried (with the whole move judged again) per model left short."""


def _short_of_contact(
    state: GameState,
    unit: Unit,
    targets: Sequence[str],
    positions: Sequence[Sequence[float]],
    max_distance: float,
) -> Iterator[tuple[int, ModelPlacement, str]]:
    """Each model of `unit` that `positions` leaves short of base contact with a model of a
    target and that could reach it (in a straight line within the roll, the other models where
    `positions` puts them, the whole Charge move then still legal): (its index, the nearest
    such place, the target it touches there)."""
    table = table_of(state)
    units = units_of(state)
    starts = placements(state, unit, unit.positions)
    ends = placements(state, unit, positions)
    touch: list[Any] = []
    owners: list[str] = []
    for t in targets:
        polys = model_polygons(state, units[t])
        touch += polys
        owners += [t] * len(polys)
    if not touch:
        return
    friends = [p for f in _friends(state, unit) if f in table.units
               for p in model_polygons(state, units[f])]
    for i, poly in enumerate(placed_polygons(ends)):
        if any(in_base_contact(poly, tp) for tp in touch):
            continue
        for tries, (place, k) in enumerate(contact.reach_contact(
            table, unit.id, ends, i, starts[i], touch, max_distance=max_distance,
            ignore=_friends(state, unit), charging=list(targets), blockers=friends,
        ), start=1):
            trial = [(m.x, m.y) for m in ends]
            trial[i] = (place.x, place.y)
            if charge_move_refusal(state, unit, targets, trial, max_distance,
                                   base_contact=False) is None:
                yield i, place, owners[k]
                break
            if tries >= CONTACT_TRIES:
                break


def base_contact_refusal(
    state: GameState,
    unit: Unit,
    targets: Sequence[str],
    positions: Sequence[Sequence[float]],
    max_distance: float,
) -> RuleError | None:
    """The core rules' "each model that can must end its Charge move in base-to-base contact
    with an enemy model in one of the target units" (docs/rules-decisions.md, "Charges: base
    contact"): the first model left short of base contact that could reach it is refused,
    named, with the place it could reach (`geometry.contact.reach_contact` finds the places)."""
    for i, place, target in _short_of_contact(state, unit, targets, positions, max_distance):
        model = models_of(state, unit)[i]
        label = model.name if model.character else f"{model.name} #{i + 1}"
        x0, y0 = unit.positions[i]
        far = ((place.x - x0) ** 2 + (place.y - y0) ** 2) ** 0.5
        return _refuse(
            "Charge: base contact",
            f"{display_name(state, unit.id)} cannot charge there: {label} can reach base "
            f"contact with {display_name(state, target)} ({say_inches(far)}, within the roll of "
            f"{max_distance:g} in), and each model that can must end its Charge move in base "
            "contact with a model of a target",
            model=i, target=target, place=[round(place.x, 3), round(place.y, 3)],
        )
    return None


def into_base_contact(
    state: GameState,
    unit: Unit,
    targets: Sequence[str],
    positions: Sequence[Sequence[float]],
    max_distance: float,
) -> list[tuple[float, float]]:
    """`positions` with each model that could reach base contact moved to the nearest such
    place, one model at a time (a model placed opens or closes places for the others, so the
    models are gone over again after each one placed, until none short can reach). The
    server's straight charge (`declare_charge`) finishes its move so."""
    out = [(float(x), float(y)) for x, y in positions]
    for _ in range(len(out)):
        found = next(iter(_short_of_contact(state, unit, targets, out, max_distance)), None)
        if found is None:
            break
        i, place, _target = found
        out[i] = (round(place.x, 4), round(place.y, 4))
    return out


# --- Pile in and Consolidate ---------------------------------------------------------------------


def _enemy_polys(state: GameState, enemies: Sequence[Unit]) -> list[Any]:
    return [p for e in enemies for p in model_polygons(state, e)]


def _nearest(poly: Any, others: Sequence[Any]) -> float:
    return min((distance(poly, o).distance for o in others), default=float("inf"))


def close_in_refusal(
    state: GameState, unit: Unit, positions: Sequence[Sequence[float]], what: str
) -> tuple[RuleError | None, movement.MoveResult | None]:
    """Why the Pile-in (`what` "pile_in") or Consolidation ("consolidate") move of `unit` to
    `positions` is not allowed (None: it is), and the geometry core's verdict."""
    _count(state, unit, positions, what)
    move = "pile in" if what == "pile_in" else "consolidate"
    words = f"{display_name(state, unit.id)} cannot {move} there"
    table = table_of(state)
    enemies = _enemies(state, unit)
    starts = placements(state, unit, unit.positions)
    ends = placements(state, unit, positions)
    result = movement.move_models(
        table, unit.id, starts, ends, max_distance=CLOSE_IN_IN,
        ignore=_friends(state, unit), charging=[e.id for e in enemies],
    )
    if not result.legal:
        return illegal_move_error(state, result, words, unit), result
    through = _through_enemy_models(state, result, enemies, words)
    if through is not None:
        return through, result
    foes = _enemy_polys(state, enemies)
    start_polys = placed_polygons(starts)
    end_polys = placed_polygons(ends)
    moved = moved_models(starts, ends)
    for i in moved:
        if any(in_base_contact(start_polys[i], f) for f in foes):
            return _refuse(
                move.title(),
                f"{words}: model {i + 1} is in base contact with an enemy model and stays",
                model=i,
            ), result
    toward_enemy = what == "pile_in" or any(
        _nearest(p, foes) <= CLOSE_IN_IN + ENGAGEMENT_RANGE_IN + EPSILON_IN for p in start_polys
    )
    if toward_enemy:
        for i in moved:
            before, after = _nearest(start_polys[i], foes), _nearest(end_polys[i], foes)
            if after >= before - EPSILON_IN:
                return _refuse(
                    move.title(),
                    f"{words}: model {i + 1} must end closer to the closest enemy model",
                    model=i,
                ), result
            if before <= CLOSE_IN_IN + EPSILON_IN and after > CONTACT_TOLERANCE_IN:
                return _refuse(
                    move.title(),
                    f"{words}: model {i + 1} can reach an enemy model ({say_inches(before)} away) "
                    "and must end in base contact with it",
                    model=i,
                ), result
        if moved and not any(
            within(end_polys[k], table.units[e.id], ENGAGEMENT_RANGE_IN)
            for k in range(len(end_polys)) for e in enemies
        ):
            return _refuse(
                move.title(),
                f"{words}: the unit must end within Engagement Range of an enemy unit",
            ), result
        return None, result
    # Consolidate onto an objective marker: no enemy within reach.
    from server.rules.wh40k10.command import MARKER_RADIUS_IN, OBJECTIVE_RANGE_IN, objectives

    discs = [
        (m, shapely.Point(m["x"], m["y"]).buffer(MARKER_RADIUS_IN)) for m in objectives(state)
    ]
    unit_fp = table.units[unit.id]
    marker, disc = min(discs, key=lambda md: distance(unit_fp, md[1]).distance)
    for i in moved:
        if distance(end_polys[i], disc).distance >= (
            distance(start_polys[i], disc).distance - EPSILON_IN
        ):
            return _refuse(
                move.title(),
                f"{words}: no enemy is within reach, so model {i + 1} must end closer to the "
                f"closest objective marker ({marker['id']})",
                model=i, objective=marker["id"],
            ), result
    if moved and not any(within(p, disc, OBJECTIVE_RANGE_IN) for p in end_polys):
        return _refuse(
            move.title(),
            f"{words}: the unit must end within range of the objective marker it moves to "
            f"({marker['id']}, {OBJECTIVE_RANGE_IN:g} in)",
            objective=marker["id"],
        ), result
    return None, result
