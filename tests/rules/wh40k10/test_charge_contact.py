"""Issue 16: the Charge move's base contact (server/rules/wh40k10/engage.py
`base_contact_refusal`, server/geometry/contact.py).

10th-edition core rules, Charge phase (docs/rules-decisions.md "Charges: base contact"): "each
model that can must end its Charge move in base-to-base contact with an enemy model in one of
the target units" — a model that could reach such a place (in a straight line within the
Charge roll, the rest of the move still legal: coherency, Engagement Range of no other enemy,
not through other models or Impassable Terrain) and is left short has its move refused, named;
a model that cannot reach ends anywhere the other charge rules allow."""

from __future__ import annotations

from server.geometry import in_base_contact
from server.rules.units import units_of
from server.rules.wh40k10.army import model_polygons
from tests.rules.test_battle import act, refused
from tests.rules.wh40k10.game import BASE_IN, charging, deployed, place, row, to_phase

SQUAD = {"datasheet": "intercessor-squad", "models": 5}
BOYZ = {"datasheet": "beast-snagga-boyz", "models": 10}
TOUCH = 30.0 - BASE_IN - 0.003
"""The y where an Intercessor straight in front of a Boy at y 30 touches it (32 mm bases)."""


def _charge(rolls: list[int], back: bool = False):  # type: ignore[no-untyped-def]
    """Five Intercessors (u1, player 1) in a row at y 24 from x 20 (the fifth at y 22.5 when
    `back`), ten Boyz (u2) in a row at y 30 from x 20; the charge against the Boyz rolled."""
    state = to_phase(deployed([SQUAD], [BOYZ]), 1, "Charge")
    squad = row(5, 24.0)
    if back:
        squad[4] = (squad[4][0], 22.5)
    state = place(state, "u1", squad)
    state = place(state, "u2", row(10, 30.0))
    state, events, _ = charging(state, 1, rolls, type="charge", unit="u1", targets=["u2"])
    assert events[0].type == "charge_rolled"
    return state


def _in_contact(state) -> list[bool]:  # type: ignore[no-untyped-def]
    units = units_of(state)
    theirs = model_polygons(state, units["u2"])
    return [any(in_base_contact(p, t) for t in theirs) for p in model_polygons(state, units["u1"])]


def test_every_model_in_base_contact_makes_the_charge() -> None:
    """Core rules: the models that can end in base contact; the event no longer says the rule
    is left to the players."""
    state = _charge([4, 4])
    state, events = act(state, 1, type="charge_move", unit="u1",
                        positions=[(x, TOUCH) for x, _ in units_of(state)["u1"].positions])
    assert events[0].type == "charge_succeeded"
    assert "not_automated" not in events[0].payload
    assert _in_contact(state) == [True] * 5


def test_a_model_left_short_that_could_reach_is_refused_by_name() -> None:
    """Core rules: each model that can must end in base contact. The third Intercessor stops
    0.5 in short on a roll of 8: refused, named, with the place it could reach; moved there,
    the charge stands."""
    state = _charge([4, 4])
    ends = [(x, TOUCH) for x, _ in units_of(state)["u1"].positions]
    ends[2] = (ends[2][0], TOUCH - 0.5)
    err = refused(state, 1, type="charge_move", unit="u1", positions=ends)
    assert err.code == "illegal_move"
    assert err.details["rule"] == "Charge: base contact"
    assert err.details["model"] == 2 and err.details["target"] == "u2"
    assert "#3 can reach base contact with" in err.message and "within the roll of 8" in err.message
    ends[2] = tuple(err.details["place"])
    state, events = act(state, 1, type="charge_move", unit="u1", positions=ends)
    assert events[0].type == "charge_succeeded"
    assert _in_contact(state) == [True] * 5


def test_a_model_that_cannot_reach_ends_anywhere_legal() -> None:
    """Core rules: only the models that can must reach base contact. On a roll of 5 the
    fifth Intercessor, 6.2 in from the nearest Boy, cannot; it ends 4 in forward, short."""
    state = _charge([2, 3], back=True)
    ends = [(x, TOUCH) for x, _ in units_of(state)["u1"].positions]
    ends[4] = (ends[4][0], 22.5 + 4.0)
    state, events = act(state, 1, type="charge_move", unit="u1", positions=ends)
    assert events[0].type == "charge_succeeded"
    assert _in_contact(state) == [True, True, True, True, False]


def test_the_server_s_straight_charge_brings_every_model_that_can_into_contact() -> None:
    """The straight charge (`declare_charge`) moves the unit in until its nearest model
    touches, then each model that can reach base contact into it (core rules): the fifth
    Intercessor, 1.5 in behind, reaches on a roll of 8."""
    state = to_phase(deployed([SQUAD], [BOYZ]), 1, "Charge")
    squad = row(5, 24.0)
    squad[4] = (squad[4][0], 22.5)
    state = place(state, "u1", squad)
    state = place(state, "u2", row(10, 30.0))
    state, events, _ = charging(state, 1, [4, 4], type="declare_charge", unit="u1", target="u2")
    assert events[0].type == "charge_succeeded"
    assert _in_contact(state) == [True] * 5
