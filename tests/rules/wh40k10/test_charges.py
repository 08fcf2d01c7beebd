"""Issue 16 item 1: 40k charges per the core rules (server/rules/wh40k10/charging.py, engage.py).

FACTS.md (wh40k10, Charge phase): targets within 12 in, 2D6; the move must end within
Engagement Range of every target and of no other enemy unit, and in unit coherency; otherwise
it fails and does not move; chargers gain Fights First. The 10th-edition core rules (recorded
in docs/rules-decisions.md, "Charges"): each model moves up to the roll and ends closer to one
of the targets; no model moves within Engagement Range of a unit that is not a target."""

from __future__ import annotations

from server.rules import core
from server.rules.orders import orders_for
from server.rules.units import units_of
from tests.rules.test_battle import act, refused
from tests.rules.wh40k10.game import BASE_IN, charging, deployed, place, row, scripted, to_phase

BOYZ = {"datasheet": "beast-snagga-boyz", "models": 10}
SQUAD = {"datasheet": "intercessor-squad", "models": 5}


def _two_squads(boyz_y: float = 24.0, squad_x: tuple[float, float] = (20.0, 28.0)):  # type: ignore[no-untyped-def]
    """Ten Boyz (u1) in a row at `boyz_y` from x 20; two Intercessor Squads (u2, u3) in rows at
    y 30 from the given x; player 1's Charge phase of battle round 1."""
    state = to_phase(deployed([BOYZ], [SQUAD, SQUAD]), 1, "Charge")
    state = place(state, "u1", row(10, boyz_y, x0=20.0))
    state = place(state, "u2", row(5, 30.0, x0=squad_x[0]))
    return place(state, "u3", row(5, 30.0, x0=squad_x[1]))


def _ahead(state, dy: float):  # type: ignore[no-untyped-def]
    return [(x, y + dy) for x, y in units_of(state)["u1"].positions]


TO_HALF_AN_INCH = 30.0 - BASE_IN - 0.5 - 24.0
"""How far the Boyz row moves to stand 0.5 in from the squads' row (Engagement Range: 1 in)."""

TO_WITHIN_ER = 30.0 - BASE_IN - 0.9 - 24.0
"""3.84 in: the Boyz row ends 0.9 in from the squads' row, within Engagement Range. On a
Charge roll of 4 no model can reach base contact (4.74 in straight ahead, farther aslant), so
base contact does not bind these moves."""


def test_a_charge_against_two_units_ends_within_engagement_range_of_both() -> None:
    """FACTS.md: within Engagement Range of every target; chargers fight first."""
    state = _two_squads()
    state, events, _ = charging(state, 1, [2, 2], type="charge", unit="u1", targets=["u2", "u3"])
    assert events[0].type == "charge_rolled" and events[0].payload["range"] == 4
    assert "make the Charge move (each model up to 4 in)" in events[0].payload["text"]
    state, events = act(state, 1, type="charge_move", unit="u1",
                        positions=_ahead(state, TO_WITHIN_ER))
    assert "not_automated" not in events[0].payload
    assert events[0].type == "charge_succeeded"
    assert events[0].payload["targets"] == ["u2", "u3"]
    state = to_phase(state, 1, "Fight")
    assert state.to_json()["forty"]["fights_first"] == ["u1"]


def test_the_charge_move_names_the_roll_it_was_drawn_with_so_the_proof_counts_it_once() -> None:
    """The charge roll is recorded on `charge_rolled`; the `charge_succeeded` after the Charge
    move names it as `distance_roll` (a reference the dice proof skips): the log's rolls cover
    the stream once each, and the luck chart still counts the charge."""
    state = _two_squads()
    state, rolled, _ = charging(state, 1, [2, 2], type="charge", unit="u1",
                                targets=["u2", "u3"])
    state, moved = act(state, 1, type="charge_move", unit="u1",
                       positions=_ahead(state, TO_WITHIN_ER))
    done = moved[0].payload
    assert done["distance_roll"] == rolled[0].payload["roll"] and "roll" not in done
    assert core.rolls_of(done) == []
    rolls = [r for e in [*rolled, *moved] for r in core.rolls_of(e.payload)]
    assert [(r["start"], r["end"]) for r in rolls] == sorted({(r["start"], r["end"])
                                                               for r in rolls})


def test_a_charge_move_short_of_one_target_is_refused_and_can_be_given_up() -> None:
    """FACTS.md: the move must end within Engagement Range of every target; otherwise the
    charge fails and the unit does not move."""
    state = _two_squads(squad_x=(20.0, 36.0))
    state, _, _ = charging(state, 1, [4, 4], type="charge", unit="u1", targets=["u2", "u3"])
    # Only the left half of the row moves in: the right squad is out of reach of the end.
    moved = [(x, y + (TO_WITHIN_ER if x < 27 else 0.0))
             for x, y in units_of(state)["u1"].positions]
    err = refused(state, 1, type="charge_move", unit="u1", positions=moved)
    assert err.details["rule"] in ("Charge", "Unit Coherency")
    whole = refused(state, 1, type="charge_move", unit="u1",
                    positions=_ahead(state, TO_WITHIN_ER))
    assert whole.details["rule"] == "Charge" and "every target" in whole.message
    assert "Intercessor Squad" in whole.message
    before = units_of(state)["u1"].positions
    state, events = act(state, 1, type="charge_move", unit="u1")
    assert events[0].type == "charge_failed" and events[0].payload["reason"] == (
        "no Charge move made")
    assert units_of(state)["u1"].positions == before


def test_no_model_moves_within_engagement_range_of_a_unit_that_is_not_a_target() -> None:
    """FACTS.md: the move ends within Engagement Range of no other enemy unit (core rules: at
    no point of the move)."""
    state = _two_squads()
    state, _, _ = charging(state, 1, [2, 2], type="charge", unit="u1", targets=["u2"])
    err = refused(state, 1, type="charge_move", unit="u1",
                  positions=_ahead(state, TO_WITHIN_ER))
    assert err.details["rule"] == "Engagement Range" and err.details["obstacle"] == "u3"
    assert "not a target of the charge" in err.message


def test_each_model_ends_closer_to_a_target_and_within_the_roll() -> None:
    """Core rules: each model moves up to the Charge roll and ends closer to one of the
    targets."""
    state = _two_squads(squad_x=(20.0, 45.0))
    state, _, _ = charging(state, 1, [2, 2], type="charge", unit="u1", targets=["u2"])
    ahead = _ahead(state, TO_HALF_AN_INCH)
    assert refused(state, 1, type="charge_move", unit="u1",
                   positions=ahead).details["rule"] == "Move Distance"  # 4.24 in on a 4
    state = _two_squads(squad_x=(20.0, 45.0))
    state, _, _ = charging(state, 1, [4, 4], type="charge", unit="u1", targets=["u2"])
    away = list(units_of(state)["u1"].positions)
    away[9] = (away[9][0] + 0.5, away[9][1])  # sideways, away from the squad on the left
    err = refused(state, 1, type="charge_move", unit="u1", positions=away)
    assert "must end its Charge move closer to one of the targets" in err.message
    assert err.details["model"] == 9


def test_a_roll_short_of_the_distance_fails_at_once_and_the_phase_end_fails_an_unmade_move() -> (
    None
):
    """FACTS.md: a charge that cannot reach fails and does not move. Decision: a rolled charge
    whose move is not made by the end of the Charge phase fails."""
    state = _two_squads(boyz_y=18.0, squad_x=(20.0, 45.0))
    state, events, _ = charging(state, 1, [1, 2], type="charge", unit="u1", targets=["u2"])
    assert events[0].type == "charge_failed" and "needs at least" in events[0].payload["reason"]
    state = _two_squads(squad_x=(20.0, 45.0))
    state, _, _ = charging(state, 1, [4, 4], type="charge", unit="u1", targets=["u2"])
    err = refused(state, 1, type="charge", unit="u1", targets=["u2"])
    assert err.code == "illegal_move"
    state, events = act(state, 1, type="end_phase")
    failed = [e for e in events if e.type == "charge_failed"]
    assert failed and failed[0].payload["reason"] == (
        "the Charge phase ended before the Charge move")


def test_targets_are_within_12_in_and_named_once() -> None:
    """FACTS.md: charge targets within 12 in."""
    state = _two_squads(squad_x=(20.0, 45.0))
    state = place(state, "u3", row(5, 40.0, x0=45.0))
    far = refused(state, 1, type="charge", unit="u1", targets=["u2", "u3"])
    assert "charges are declared within 12 in" in far.message
    twice = refused(state, 1, type="charge", unit="u1", targets=["u2", "u2"])
    assert twice.code == "bad_request"


def test_the_straight_charge_fails_when_it_would_end_near_another_unit() -> None:
    """FACTS.md: the move ends within Engagement Range of no enemy unit but its targets; the
    server's straight charge (`declare_charge`) fails when it would."""
    state = _two_squads()
    state, events, _ = charging(state, 1, [6, 6], type="declare_charge", unit="u1", target="u2")
    assert events[0].type == "charge_failed"
    assert "not a target of the charge" in events[0].payload["reason"]
    state = _two_squads(squad_x=(20.0, 45.0))
    state, events, _ = charging(state, 1, [6, 6], type="declare_charge", unit="u1", target="u2")
    assert events[0].type == "charge_succeeded"


def test_the_charge_and_charge_move_orders_follow_the_roll() -> None:
    """The orders the client shows agree with the rules above: the targets within 12 in with
    why not, then the Charge move with its roll."""
    state = _two_squads(squad_x=(20.0, 45.0))
    state = place(state, "u3", row(5, 40.0, x0=45.0))
    offered = orders_for(state, 1)["units"]["u1"]["charge"]
    by_unit = {t["unit"]: t for t in offered["targets"]}
    assert by_unit["u2"]["available"] and not by_unit["u3"]["available"]
    assert "within 12 in" in by_unit["u3"]["reason"]
    state, _, _ = charging(state, 1, [3, 4], type="charge", unit="u1", targets=["u2"])
    orders = orders_for(state, 1)["units"]["u1"]
    assert "charge" not in orders and orders["charge_move"]["range"] == 7
    assert orders["charge_move"]["targets"] == ["u2"]


def test_a_failed_charge_re_rolled_to_a_reach_leaves_the_charge_move_to_the_player() -> None:
    """Core rules, Command Re-roll (docs/rules-decisions.md, Stratagems): the charge roll is
    rolled again; when it now reaches, the Charge move is the player's to make, model by model,
    as after a first roll that reached (a playtest was never offered the move: the server
    judged a straight move of its own and called the charge failed). The Boyz 6 in from two
    squads roll 1 + 1 = 2 (short), re-roll 2 + 2 = 4, and move in as the first test does."""
    state = _two_squads()
    state, events, _ = charging(state, 1, [1, 1], type="charge", unit="u1", targets=["u2", "u3"])
    assert events[0].type == "charge_failed"
    before = units_of(state)["u1"].positions
    state, events, _ = scripted(state, 1, [2, 2], type="use_stratagem",
                                stratagem="Command Re-roll", roll="charge")
    assert [e.type for e in events] == ["stratagem_used", "command_reroll", "charge_rolled"]
    assert "2 becomes 4: make the Charge move" in events[1].payload["text"]
    assert events[2].payload["targets"] == ["u2", "u3"] and events[2].payload["range"] == 4
    assert units_of(state)["u1"].positions == before  # nobody moved for the player
    state, events = act(state, 1, type="charge_move", unit="u1",
                        positions=_ahead(state, TO_WITHIN_ER))
    assert events[0].type == "charge_succeeded" and events[0].payload["targets"] == ["u2", "u3"]
    # A re-roll that is still short fails the charge again.
    state = _two_squads()
    state, _, _ = charging(state, 1, [1, 1], type="charge", unit="u1", targets=["u2"])
    state, events, _ = scripted(state, 1, [1, 2], type="use_stratagem",
                                stratagem="Command Re-roll", roll="charge")
    assert [e.type for e in events] == ["stratagem_used", "command_reroll", "charge_failed"]
    assert "the charge fails" in events[1].payload["text"]
