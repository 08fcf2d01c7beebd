"""Which model is removed when the defender's choice is free (server/rules/wh40k10/
casualties.py).

FACTS.md (wh40k10, the core loop): the defender allocates each wound, a wounded model first;
Unit Coherency: each model within 2 in of one other model of its unit, two others in a unit of
7 or more. Decision (docs/rules-decisions.md, "Allocation"): the default choice keeps the unit
in coherency and, where it can, removes the model farthest from the enemy, so the models in base
contact stay in the fight."""

from __future__ import annotations

import math

from server.geometry.footprint import coherency
from server.rules.units import units_of
from server.rules.wh40k10.army import models_of, set_forty, target_unit
from server.rules.wh40k10.casualties import placements
from tests.rules.test_battle import act, refused
from tests.rules.wh40k10.game import BASE_IN, deployed, place, row, scripted, steps, to_phase

BOYZ = {"datasheet": "beast-snagga-boyz", "models": 10}
SQUAD = {"datasheet": "intercessor-squad", "models": 5}

# One Bolt rifle hit of ten (BS 3+), it wounds (S 4 vs T 5: 5+), the save (5+, AP -1) fails.
ONE_WOUND = [6] + [1] * 9 + [6] + [1]


def _ring() -> list[tuple[float, float]]:
    """Ten Boyz: nine in a ring round (30, 12), 0.7 in apart (each within 2 in of exactly two
    others), and Boy 3 (index 2) outside it, towards the enemy, within 2 in of the two ring
    models either side of it. Only Boy 3 can go without breaking Unit Coherency."""
    gap = BASE_IN + 0.7
    radius = gap / (2 * math.sin(math.pi / 9))
    ring = [(30 + radius * math.cos(math.radians(70 + 40 * k)),
             12 + radius * math.sin(math.radians(70 + 40 * k))) for k in range(9)]
    outside = (30.0, 12 + radius + 1.8)
    return ring[:2] + [outside] + ring[2:]


def _order(state) -> list[str]:  # type: ignore[no-untyped-def]
    return list(target_unit(state, units_of(state)["u1"]).allocation_order)


def test_the_casualty_is_the_model_whose_removal_keeps_the_unit_coherent() -> None:
    """The Intercessors shoot one wound through (Boyz have W 2) twice: the old choice, the
    highest-numbered Boy, breaks the ring (its two neighbours keep one model within 2 in, and a
    unit of 9 needs two), after which every move the Boyz make is refused. The Boy outside the
    ring goes instead, though it stands closest to the enemy: coherency comes first."""
    state = to_phase(deployed([BOYZ], [SQUAD]), 2, "Shooting")
    state = place(state, "u1", _ring())
    state = place(state, "u2", row(5, 30.0, x0=27.3))
    assert coherency(placements(models_of(state, units_of(state)["u1"]))) == ()
    assert _order(state)[0] == "u1.2"
    two = [6, 6] + [1] * 8 + [6, 6] + [1, 1]
    state, events, _ = scripted(state, 2, two, type="shoot_weapons", unit="u2",
                                weapons=[{"weapon": "Bolt rifle", "target": "u1"}])
    destroyed = [s["text"] for s in steps(events) if s["step"] == "destroyed"]
    assert destroyed == ["Beast Snagga Boy #3 is destroyed"]
    boyz = units_of(state)["u1"]
    assert len(boyz.positions) == 9
    assert coherency(placements(models_of(state, boyz))) == ()
    state = to_phase(state, 1, "Movement")
    ahead = [(x, y + 1.0) for x, y in units_of(state)["u1"].positions]
    state, events = act(state, 1, type="move_models", unit="u1", positions=ahead)
    assert events[0].type == "unit_moved"


def test_models_in_base_contact_are_the_last_to_go() -> None:
    """A row of ten Boyz whose right-hand four are in base contact with the Intercessors: the
    farthest Boy that keeps the row coherent goes first (the far end), the four in base contact
    last (the old choice took them first)."""
    state = to_phase(deployed([BOYZ], [SQUAD]), 2, "Shooting")
    state = place(state, "u1", row(10, 20.0, x0=20.0))
    state = place(state, "u2", row(5, 20.0 + BASE_IN, x0=20.0 + 6 * (BASE_IN + 0.1)))
    assert state.to_json()["forty"]["engaged"]["u1"] == ["u2"]
    order = _order(state)
    assert order[:6] == [f"u1.{i}" for i in range(6)]
    assert sorted(order[6:]) == ["u1.6", "u1.7", "u1.8", "u1.9"]


def test_a_wounded_model_still_goes_first() -> None:
    """FACTS.md: a model that lost wounds takes the next attack, wherever it stands."""
    state = to_phase(deployed([BOYZ], [SQUAD]), 2, "Shooting")
    state = place(state, "u1", row(10, 20.0, x0=20.0))
    state = place(state, "u2", row(5, 20.0 + BASE_IN, x0=20.0 + 6 * (BASE_IN + 0.1)))
    state = set_forty(state, wounds={"u1": [0] * 8 + [1, 0]})
    assert _order(state)[0] == "u1.8"


# --- a Unit Coherency refusal names the models -------------------------------------------------


def test_a_move_out_of_coherency_is_refused_naming_the_model_at_fault() -> None:
    """FACTS.md (Unit coherency): a unit of 7 or more needs each model within 2 in of two
    others. Boy 7 left 3 in behind the row is named, in the message and the details."""
    state = to_phase(deployed([BOYZ], [SQUAD]), 1, "Movement")
    state = place(state, "u1", row(10, 12.0, x0=20.0))
    ahead = [(x, y + (1.0 if i != 6 else -3.0))
             for i, (x, y) in enumerate(units_of(state)["u1"].positions)]
    err = refused(state, 1, type="move_models", unit="u1", positions=ahead)
    assert err.details["rule"] == "Unit Coherency"
    assert "Beast Snagga Boy #7 is not within 2 in of two other models" in err.message
    assert err.details["incoherent"] == [6]
    assert err.details["incoherent_models"] == ["Beast Snagga Boy #7"]


def test_a_small_unit_names_the_model_more_than_2_in_from_any_other() -> None:
    """Under 7 models, one other model within 2 in is enough: the Intercessor Sergeant set
    4 in apart is more than 2 in from any other model (the Charge move, Pile in and
    Consolidate use the same words: `illegal_move_error`)."""
    state = to_phase(deployed([BOYZ], [SQUAD]), 2, "Movement")
    state = place(state, "u2", row(5, 35.0, x0=20.0))
    apart = [(x - (4.0 if i == 0 else 0.0), y - 1.0)
             for i, (x, y) in enumerate(units_of(state)["u2"].positions)]
    err = refused(state, 2, type="move_models", unit="u2", positions=apart)
    assert "Intercessor Sergeant #1 is more than 2 in from any other model" in err.message
