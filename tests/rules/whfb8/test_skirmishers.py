"""whfb8 Skirmishers (seed 002, ../shared/seeds/002_20fe50c61f72ab35.txt: Skirmish Formation,
Free Reform): the loose formation, and moves measured model by model, around obstacles."""

from __future__ import annotations

from typing import Any

import pytest

from server.rules.units import table_of, units_of
from tests.rules.helpers import Game

BASE_IN = 40 / 25.4
SWARM = {"datasheet": "tomb-swarm", "models": 3, "files": 3}
HALBERDIERS = {"datasheet": "empire-halberdiers", "models": 20, "files": 5}
WALL = {"kind": "impassable", "points": [(30, 7.1), (42, 7.1), (42, 7.3), (30, 7.3)]}


def skirmish_game(terrain: list[dict[str, Any]] = ()) -> tuple[Game, str]:
    """Player 1's Tomb Swarm (M4) with its front edge centred at (36, 6), facing north; the
    Halberdiers far away; player 1's Movement phase of turn 1."""
    game = Game("whfb8")
    for piece in terrain:
        game.act(1, type="place_terrain", **piece)
    game.act(1, type="submit_army", units=[SWARM, {"datasheet": "skeleton-warriors",
                                                   "models": 10, "files": 5}])
    game.act(2, type="submit_army", units=[HALBERDIERS])
    ids = {u.datasheet: u.id for u in units_of(game.state).values()}
    game.act(1, type="deploy_unit", unit=ids["tomb-swarm"], x=36, y=6, facing=0)
    game.act(2, type="deploy_unit", unit=ids["empire-halberdiers"], x=36, y=42, facing=180)
    game.act(1, type="deploy_unit", unit=ids["skeleton-warriors"], x=10, y=6, facing=0)
    game.to_phase(1, "Movement")
    return game, ids["tomb-swarm"]


def test_skirmishers_stand_half_an_inch_apart_facing_the_same_way() -> None:
    """Seed 002: "positioned roughly 1/2" apart. The models in the unit must still face the
    same direction and the unit will still have a front, two flanks and a rear"."""
    game, sid = skirmish_game()
    fp = table_of(game.state).units[sid]
    xs = sorted(x for x, _ in fp.model_centres)
    assert [round(b - a, 6) for a, b in zip(xs, xs[1:], strict=False)] == [
        round(BASE_IN + 0.5, 6)] * 2
    assert fp.width == pytest.approx(3 * BASE_IN + 2 * 0.5)
    assert fp.placement is not None and fp.placement.facing == 0.0 and fp.corners is not None


def test_each_model_moves_up_to_its_m_and_undead_do_not_march() -> None:
    """Seed 002: "place it anywhere within its M Allowance (or double its M Allowance if it is
    marching)": Tomb Swarm M4, every model 4 in forward, not 4.5; and "All units with Undead
    ... may make march moves if they are joined by a character with My Will Be Done or Sworn
    Bodyguard" (none can join the Swarm), so its march is refused."""
    game, sid = skirmish_game()
    err = game.refused(1, type="skirmish_move", unit=sid, x=36, y=10.5, facing=0)
    assert err.code == "illegal_move" and err.details["rule"] == "Move Distance"
    assert err.details["distance"] == pytest.approx(4.5)
    err = game.refused(1, type="skirmish_move", unit=sid, x=36, y=10.5, facing=0, mode="march")
    assert err.code == "illegal_move" and err.details["rule"] == "Undead"
    [event] = game.act(1, type="skirmish_move", unit=sid, x=36, y=10, facing=0)
    assert event.payload["used"] == pytest.approx(4.0) and event.payload["allowance"] == 4
    assert game.unit(sid).placement == (36.0, 10.0, 0.0)
    # The whole move: nothing more this phase.
    assert game.refused(1, type="skirmish_move", unit=sid, x=36, y=11,
                        facing=0).code == "illegal_move"


def test_a_free_reform_into_a_column_within_the_allowance() -> None:
    """Seed 002 Free Reform: reformed (before and after the move) into one file facing west,
    front at (34.213, 8): the models go from (33.925 | 36 | 38.075, 5.213) to (35 | 37.075 |
    39.150, 8), each sqrt(1.075^2 + 2.787^2) = 2.987 in. To y = 10.5 it would be 5.413 in."""
    game, sid = skirmish_game()
    front = 35.0 - BASE_IN / 2
    err = game.refused(1, type="skirmish_move", unit=sid, x=front, y=10.5, facing=90, files=1)
    assert err.details["rule"] == "Move Distance"
    [event] = game.act(1, type="skirmish_move", unit=sid, x=front, y=8.0, facing=90, files=1)
    assert event.payload["used"] == pytest.approx(((1.075 ** 2) + (8 - (6 - BASE_IN / 2)) ** 2)
                                                  ** 0.5, abs=2e-3)
    unit = game.unit(sid)
    assert unit.files == 1 and unit.placement[2] == 90.0


def test_the_path_around_impassable_terrain_counts() -> None:
    """Seed 002: "when there is a unit or impassable terrain in the way, the distance moved
    must include the distance required to move around these obstacles": 4 in straight ahead
    is fine in the open, but a wall from x 30 to 42 across the way (y 7.1..7.3) makes every
    model walk round it, far more than its 4 in."""
    game, sid = skirmish_game()
    game.act(1, type="skirmish_move", unit=sid, x=36, y=10, facing=0)
    walled, wid = skirmish_game([WALL])
    err = walled.refused(1, type="skirmish_move", unit=wid, x=36, y=10, facing=0)
    assert err.code == "illegal_move" and err.details["rule"] == "Move Distance"
    assert err.details["distance"] > 8


def test_the_end_keeps_unit_spacing_and_only_skirmishers_move_so() -> None:
    """FACTS.md: units stay 1 in apart; a ranked unit moves by manoeuvres (move_unit). The
    Skeletons' front edge is centred at (10, 6), 5 files of 20 mm: x 8.03..11.97; the Swarm
    (5.724 in wide) moved 3.7 in west to x = 15.33 would stand 0.5 in from them."""
    game, sid = skirmish_game()
    skel = next(u.id for u in units_of(game.state).values() if u.datasheet == "skeleton-warriors")
    err = game.refused(1, type="skirmish_move", unit=skel, x=10, y=8, facing=0)
    assert err.code == "bad_request"
    game.put(sid, 19.0, 6.0, 0.0)
    x = 10 + 2.5 * 20 / 25.4 + 0.5 + (3 * BASE_IN + 1) / 2
    err = game.refused(1, type="skirmish_move", unit=sid, x=x, y=6.0, facing=0)
    assert err.details["rule"] == "Unit Spacing" and err.details["obstacle"] == skel
    game.act(1, type="skirmish_move", unit=sid, x=x + 0.6, y=6.0, facing=0)


def test_vanguard_before_the_first_turn_up_to_12_in_not_within_12_in_of_an_enemy() -> None:
    """Seed 002: "Skirmishers (except models with Fly) automatically have Vanguard"; FACTS.md:
    "after deployment, before the first turn, a move of up to 12 in (no march) that does not
    end within 12 in of an enemy" (made in the first player's Start phase of turn 1); "units
    that used it may not charge in the first turn if their side goes first"."""
    game = Game("whfb8")
    game.act(1, type="submit_army", units=[SWARM])
    game.act(2, type="submit_army", units=[HALBERDIERS])
    ids = {u.datasheet: u.id for u in units_of(game.state).values()}
    sid, hal = ids["tomb-swarm"], ids["empire-halberdiers"]
    game.act(1, type="deploy_unit", unit=sid, x=36, y=6, facing=0)
    game.act(2, type="deploy_unit", unit=hal, x=36, y=42, facing=180)
    assert (game.state.battle.turn, game.state.battle.phase) == (1, "Start")
    assert game.refused(2, type="vanguard_move", unit=hal, x=36, y=40,
                        facing=180).details["rule"] == "Vanguard"
    err = game.refused(1, type="vanguard_move", unit=sid, x=36, y=18.5, facing=0)
    assert err.details["rule"] == "Vanguard: 12 in"
    game.put(hal, 36.0, 27.0, 180.0)  # front edge at y = 27
    err = game.refused(1, type="vanguard_move", unit=sid, x=36, y=15.5, facing=0)
    assert err.details["rule"] == "Vanguard: 12 in from enemies"
    assert err.details["distance"] == pytest.approx(11.5)
    [event] = game.act(1, type="vanguard_move", unit=sid, x=36, y=14.5, facing=0)
    assert event.payload["distance"] == pytest.approx(8.5)
    assert "vanguard" in game.unit(sid).markers
    assert game.refused(1, type="vanguard_move", unit=sid, x=36, y=14,
                        facing=0).code == "illegal_move"
    game.act(1, type="end_phase")
    assert game.refused(1, type="vanguard_move", unit=sid, x=36, y=14,
                        facing=0).code == "out_of_phase"
    # FACTS.md: "units that used it may not charge in the first turn if their side goes first".
    err = game.refused(1, type="declare_charge", unit=sid, target=hal)
    assert err.code == "illegal_move" and err.details["rule"] == "Vanguard"
    # It is no move of the first turn: the Swarm still moves in its Movement phase.
    game.act(1, type="skirmish_move", unit=sid, x=36, y=13, facing=0)


def test_charging_skirmishers_close_up_around_the_centremost_front_model_in_contact() -> None:
    """Seed 002, Skirmishers and Charging: "The unit immediately forms up in base contact
    around the centremost model in the front rank ... that is also in base contact with the
    enemy. The number of ranks, files and the formation's facing do not alter". A Swarm of 3
    in 2 files bursts from the sands into the Halberdiers' front (x 34.03..37.97) at x = 37.5:
    its front models stand at x 36.463 and 38.537, both touching; of the two equally central,
    the one nearer the enemy's centre (36.463) stays, so the front centre moves to 37.25."""
    from tests.rules.whfb8.test_entombed import act, entombed_game, of, ready, swarm

    game = entombed_game(halberdiers_at=(36.0, 30.0))
    ready(game, 3)
    sid = swarm(game).id
    act(game, 1, [5, 4], [0], type="place_entombed_marker", unit=sid, x=36, y=24)
    act(game, 1, type="emerge", unit=sid, x=37.5, y=30, facing=0, files=2)
    loose = table_of(game.state).units[sid]
    assert loose.width == pytest.approx(2 * BASE_IN + 0.5)
    events = act(game, 1, type="end_phase")
    tightened = of(events, "skirmishers_tightened")
    assert tightened["anchor"] == {"rank": 0, "file": 0}
    unit = game.unit(sid)
    assert "tightened" in unit.markers and unit.files == 2
    assert unit.placement == pytest.approx((37.25, 30.0, 0.0))
    tight = table_of(game.state).units[sid]
    assert tight.width == pytest.approx(2 * BASE_IN) and tight.depth == pytest.approx(2 * BASE_IN)
    left = min(tight.model_centres[:, 0])
    assert left == pytest.approx(min(loose.model_centres[:, 0]))


def test_out_of_contact_they_spread_out_again_in_remaining_moves() -> None:
    """Seed 002: "If the Skirmishers are not in base contact with an enemy in the Remaining
    Moves sub-phase, the controlling player must move them apart so that they readopt their
    loose formation" (around the centremost front-rank model: a 3-file unit keeps its centre)."""
    game, sid = skirmish_game()
    game.put(sid, 20.0, 10.0, 0.0, markers=("tightened",))
    assert table_of(game.state).units[sid].width == pytest.approx(3 * BASE_IN)
    [event] = [e for e in game.act(1, type="end_phase") if e.type == "skirmishers_loosened"]
    assert "blocked" not in event.payload
    unit = game.unit(sid)
    assert "tightened" not in unit.markers and unit.placement == (20.0, 10.0, 0.0)
    assert table_of(game.state).units[sid].width == pytest.approx(3 * BASE_IN + 1.0)


def test_after_a_feigned_flight_they_rally_move_and_count_as_having_moved() -> None:
    """Seed 002, Feigned Flight: "automatically rallies in its next Compulsory Movement Phase.
    In addition, it is then also free to move during the remaining moves ... free to shoot as
    normal (but always counts as having moved)"."""
    from server.rules.units import turn_moves

    game, sid = skirmish_game()
    game.put(sid, 36.0, 10.0, 180.0, markers=("fleeing", "feigned_flight"))
    game.act(1, type="end_phase")
    start = len(game.log)
    game.to_phase(1, "Start")
    kinds = [e.type for e in game.log[start:]]
    assert kinds.index("feigned_flight_moved") < kinds.index("unit_rallied")
    assert game.unit(sid).markers == ()
    assert turn_moves(game.state)[sid]["moved"]
    game.to_phase(1, "Movement")
    game.act(1, type="skirmish_move", unit=sid, x=36, y=7, facing=180)
    assert turn_moves(game.state)[sid]["moved"]


def test_the_tomb_swarm_card_marks_skirmishers_and_vanguard_automated() -> None:
    """GET /api/systems/whfb8/datasheets: Skirmishers (every part of the page's text, each
    tested in this file or, Light Troops, in test_attacks.py) and Vanguard are automated."""
    from server.data import load_catalog

    catalog = load_catalog()
    assert "Skirmishers" not in catalog.not_automated("whfb8", "tomb-swarm")
    assert "Skirmishers" not in catalog.partly_automated("whfb8", "tomb-swarm")
    assert catalog.rule("whfb8", "Vanguard").automated


def test_skirmishers_fire_on_the_march_and_shoot_with_every_rank() -> None:
    """Seed 002: "As long as you can draw a Line of Sight from the front rank to the target,
    the second and subsequent ranks may fire too"; Fire on the March: "Skirmishers can shoot
    even if they marched ... the normal -1 To Hit penalty for moving and shooting still
    applies". The whfb8 battle's judgement for a sheet (no shooting Skirmishers are in the
    catalogue: the Tomb Swarm has BS 0 and no missile weapon); other units: the front rank,
    and no shooting after a march."""
    from server.data import load_catalog
    from server.rules.whfb8.combat import WHFB8RankAndFlank

    catalog = load_catalog()
    rules = WHFB8RankAndFlank()
    swarm, halberdiers = (catalog.get("whfb8", s) for s in ("tomb-swarm", "empire-halberdiers"))
    assert rules.ranks_that_shoot(swarm) >= 10 and rules.ranks_that_shoot(halberdiers) == 1
    assert rules.marched_shooting_rule(swarm) == "Fire on the March"
    assert rules.marched_shooting_rule(halberdiers) is None


def test_charged_skirmishers_that_hold_close_up_too() -> None:
    """Seed 002, Skirmishers and Charging: "If skirmishers declare a charge (or a charge
    reaction that does not involve fleeing) they tighten their loose formation": Empire
    Halberdiers charge a Tomb Swarm 5 in away (M 4 + 2D6 always reaches), the Swarm holds, and
    "at the moment both units move into base contact" (not at the end of the phase) it stands
    in base contact model to model, its 3 files and its facing kept."""
    game = Game("whfb8")
    game.act(1, type="submit_army", units=[SWARM])
    game.act(2, type="submit_army", units=[HALBERDIERS])
    ids = {u.datasheet: u.id for u in units_of(game.state).values()}
    sid, hal = ids["tomb-swarm"], ids["empire-halberdiers"]
    game.act(1, type="deploy_unit", unit=sid, x=36, y=6, facing=0)
    game.act(2, type="deploy_unit", unit=hal, x=36, y=42, facing=180)
    game.to_phase(2, "Movement")
    game.put(sid, 36.0, 30.0, 0.0)
    game.put(hal, 36.0, 35.0, 180.0)
    loose = table_of(game.state).units[sid]
    assert loose.width == pytest.approx(3 * BASE_IN + 2 * 0.5)
    game.act(2, type="declare_charge", unit=hal, target=sid)
    events = game.act(1, type="charge_reaction", reaction="hold")
    assert game.state.charges.engaged[hal] == sid
    kinds = [e.type for e in events]
    assert kinds.index("skirmishers_tightened") == kinds.index("charge_succeeded") + 1, kinds
    assert "skirmishers_tightened" not in [e.type for e in game.act(2, type="end_phase")]
    unit = game.unit(sid)
    assert "tightened" in unit.markers and unit.files == 3 and unit.placement[2] == 0.0
    tight = table_of(game.state).units[sid]
    assert tight.width == pytest.approx(3 * BASE_IN)
