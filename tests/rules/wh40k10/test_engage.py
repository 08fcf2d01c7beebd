"""Issue 16 item 2: Pile in and Consolidate with real geometry (server/rules/wh40k10/engage.py).

FACTS.md (wh40k10, Fight phase): a fighting unit piles in up to 3 in (closer to the nearest
enemy), fights, then consolidates up to 3 in. The 10th-edition core rules, as recorded in
docs/rules-decisions.md ("Pile in and Consolidate"): a model in base contact with an enemy
model does not move; each model that moves ends closer to the closest enemy model and in base
contact with one if it can; the unit ends within Engagement Range of an enemy unit and in
coherency; a Consolidation with no enemy within reach goes to the closest objective marker
instead and ends within its range (3 in)."""

from __future__ import annotations

from server.rules.units import units_of
from server.rules.wh40k10.engage import close_in_refusal
from tests.rules.test_battle import refused
from tests.rules.wh40k10.game import BASE_IN, deployed, place, row, scripted, to_phase

BOYZ = {"datasheet": "beast-snagga-boyz", "models": 10}
SQUAD = {"datasheet": "intercessor-squad", "models": 10}


def _facing(gap: float, boyz_y: float | None = None):  # type: ignore[no-untyped-def]
    """Ten Boyz (u1) in a row facing ten Intercessors (u2) at y 30, `gap` in apart."""
    state = to_phase(deployed([BOYZ], [SQUAD]), 1, "Fight")
    y = 30.0 - BASE_IN - gap if boyz_y is None else boyz_y
    state = place(state, "u1", row(10, y, x0=20.0))
    return place(state, "u2", row(10, 30.0, x0=20.0))


def _ahead(state, dy: float, only: int | None = None):  # type: ignore[no-untyped-def]
    return [(x, y + (dy if only is None or i == only else 0.0))
            for i, (x, y) in enumerate(units_of(state)["u1"].positions)]


def _why(state, positions, what="pile_in"):  # type: ignore[no-untyped-def]
    err, _ = close_in_refusal(state, units_of(state)["u1"], positions, what)
    return None if err is None else err.message


def test_a_model_that_can_reach_an_enemy_piles_into_base_contact() -> None:
    """Core rules: in base contact with an enemy model if possible (Decision: the closest
    enemy model within 3 in)."""
    state = _facing(2.0)
    short = _why(state, _ahead(state, 1.9))
    assert short is not None and "must end in base contact" in short
    assert _why(state, _ahead(state, 1.995)) is None
    assert _why(state, _ahead(state, 3.5)) is not None  # more than 3 in (and through them)


def test_each_moving_model_ends_closer_to_the_closest_enemy_model() -> None:
    """FACTS.md: piling in is moving closer to the nearest enemy."""
    state = _facing(0.5)
    back = _why(state, _ahead(state, -0.3, only=4))
    assert back is not None and "model 5 must end closer to the closest enemy model" in back


def test_a_model_in_base_contact_stays_where_it_is() -> None:
    """Core rules: a model already in base contact with an enemy model does not pile in."""
    state = _facing(0.005)
    moved = [(x + (0.05 if i == 3 else 0.0), y)
             for i, (x, y) in enumerate(units_of(state)["u1"].positions)]
    why = _why(state, moved)
    assert why is not None and "model 4 is in base contact" in why


def test_the_unit_must_end_within_engagement_range_of_an_enemy() -> None:
    """Core rules: a Pile-in ends within Engagement Range of an enemy unit."""
    state = _facing(5.0)
    why = _why(state, _ahead(state, 2.5))
    assert why is not None and "within Engagement Range of an enemy unit" in why


def test_with_no_enemy_in_reach_a_consolidation_goes_to_the_closest_objective() -> None:
    """Core rules (Consolidate): if no enemy unit can be reached, each model ends closer to the
    closest objective marker and the unit within range of it (the centre marker, FACTS.md's
    objective Decision: 30, 22 on the 60 x 44 table)."""
    state = _facing(0.0, boyz_y=17.0)
    state = place(state, "u2", row(10, 40.0, x0=20.0))
    assert _why(state, _ahead(state, 1.5), "consolidate") is None
    away = _why(state, _ahead(state, -1.0), "consolidate")
    assert away is not None and "closest objective marker (obj1)" in away
    near = _facing(2.0)
    toward_enemy = _why(near, _ahead(near, -1.0), "consolidate")
    assert toward_enemy is not None and "closer to the closest enemy model" in toward_enemy


def test_the_fight_action_refuses_a_pile_in_away_from_the_enemy() -> None:
    """The `fight` action judges its pile in with the same rules, before any die is rolled."""
    state = _facing(0.5)
    state, _, _ = scripted(state, 2, [1] * 30, type="fight", unit="u2", target="u1")
    err = refused(state, 1, type="fight", unit="u1", target="u2",
                  pile_in=_ahead(state, -0.4, only=0))
    assert err.details["rule"] == "Pile In" and "closer to the closest enemy model" in err.message
