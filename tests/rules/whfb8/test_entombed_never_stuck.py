"""A Tomb Swarm whose marker is down never holds up the Movement phase (seed 002,
../shared/seeds/002_20fe50c61f72ab35.txt, Entombed Beneath the Sands): the placement the
server suggests is legal on the table as it now stands (found again when units moved after
the marker), every number a player reads is a plain number, and when no placement touching
the marker is legal any more the unit does not emerge: the marker is removed and the Mishap
table rolled, and the phase ends."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from server.rules.resume import suspended_of
from server.rules.units import table_of, units_of
from server.rules.whfb8.entombed import legal_suggestion
from server.rules.whfb8.entombed import pending as entombed_pending
from server.rules.whfb8.fanatics import pending_release
from tests.rules.helpers import Game
from tests.rules.whfb8.positions import GOBLINS
from tests.rules.whfb8.test_entombed import (
    SWARM,
    act,
    entombed_game,
    of,
    ready,
    refused,
    swarm,
)
from tests.rules.whfb8.test_fanatics import HIDING


def _hal(game: Any) -> str:
    return next(u.id for u in units_of(game.state).values() if u.owner == 2)


def _marker_down(y: float = 30.0) -> tuple[Any, str, dict[str, Any]]:
    """Player 1's Tomb Swarm (u1) rolled to arrive and its marker stayed at (36, `y`) (scatter
    HIT): its unit waits to be placed; the Halberdiers far off at the north edge."""
    game = entombed_game()
    ready(game, 4)
    sid = swarm(game).id
    events = act(game, 1, [1, 1], type="place_entombed_marker", unit=sid, x=36, y=y)
    return game, sid, of(events, "entombed_marker")


def test_a_suggestion_made_illegal_by_a_later_move_is_found_again_and_is_legal() -> None:
    """The first suggestion stands south of the marker, front to it (front centre (36, 29.75)
    facing north). Halberdiers then stand with their front 0.7 in behind it: that placement
    breaks Unit Spacing. Ending the phase is refused with another placement touching the
    marker, legal now, in plain numbers; the unit emerges there."""
    game, sid, marker = _marker_down()
    first = marker["suggested"]
    assert (first["x"], first["y"], first["facing"]) == (36.0, 29.75, 0.0)
    game.put(_hal(game), 36.0, 27.5, 0.0)  # front edge 0.68 in from the first's rear
    stale = refused(game, 1, type="emerge", unit=sid, **first)
    assert stale.details["rule"] == "Unit Spacing"
    err = refused(game, 1, type="end_phase")
    assert err.code == "out_of_phase" and "np." not in err.message
    fresh = err.details["suggested"]
    assert (fresh["x"], fresh["y"], fresh["facing"]) != (36.0, 29.75, 0.0)
    assert all(type(v) is float for v in fresh.values())
    assert f"({fresh['x']:.1f}, {fresh['y']:.1f})" in err.message
    # The state every player reads suggests the same legal placement (the client's ghost).
    assert game.state.to_json(1)["entombed"][sid]["suggested"] == fresh
    act(game, 1, type="emerge", unit=sid, **fresh)
    assert swarm(game).status == "on_table"
    act(game, 1, type="end_phase")
    assert game.state.battle.phase == "Magic"


def test_a_suggestion_still_legal_is_kept() -> None:
    game, sid, marker = _marker_down()
    err = refused(game, 1, type="end_phase")
    assert err.details["suggested"] == {"x": 36.0, "y": 29.75, "facing": 0.0}
    assert "front centre at (36.0, 29.8), facing 0" in err.message, err.message


@pytest.mark.parametrize(("face", "result"), [(2, "destroyed"), (3, "delayed")])
def test_no_legal_placement_left_at_the_marker_is_a_mishap_and_the_phase_ends(
    face: int, result: str
) -> None:
    """The Halberdiers then stand over the marker: nothing touching it is legal any more (it
    would overlap them or stand within 1 in). Seed 002: the unit does not emerge, the marker
    is removed and the Mishap table rolled (here 2: destroyed; 3: it tries again next turn);
    the phase ends."""
    game, sid, _ = _marker_down()
    game.put(_hal(game), 36.0, 29.0, 180.0)  # front edge y = 29, the marker (36, 30) under them
    assert legal_suggestion(game.state, sid) is None
    events = act(game, 1, [face], type="end_phase")
    mishap = of(events, "entombed_mishap")
    assert mishap["result"] == result
    assert "cannot be placed touching its marker" in mishap["text"]
    assert sid not in entombed_pending(game.state)
    assert game.state.battle.phase == "Magic"
    assert swarm(game).status == ("destroyed" if result == "destroyed" else "ambush")


def test_a_mishap_5_at_the_phase_end_enters_from_the_rolled_edge_where_legal() -> None:
    """Mishap 5 then edge 1 (south, player 1's edge): the unit enters from that edge at the
    first legal placement along it (nobody can place it once the phase ends), rear edge on
    the edge and facing in; the phase ends."""
    game, sid, _ = _marker_down()
    game.put(_hal(game), 36.0, 29.0, 180.0)
    events = act(game, 1, [5, 1], type="end_phase")
    assert of(events, "entombed_mishap")["result"] == "edge"
    emerged = of(events, "entombed_emerged")
    assert emerged["edge"] == "south" and "np." not in emerged["text"]
    unit = swarm(game)
    assert unit.status == "on_table" and unit.placement[2] == 0.0
    assert table_of(game.state).units[sid].boundary.bounds[1] == pytest.approx(0.0, abs=0.02)
    assert game.state.battle.phase == "Magic"


def test_a_marker_under_an_enemy_that_is_gone_is_refused_in_words_then_a_mishap() -> None:
    """The marker came down under the Halberdiers, who are then destroyed before the unit is
    placed: emerging into them is refused as a rule (not an internal error), and ending the
    phase rolls the Mishap (3: it tries again next turn); the phase ends."""
    game = entombed_game(halberdiers_at=(36.0, 30.0))
    ready(game, 3)
    sid = swarm(game).id
    events = act(game, 1, [5, 4], [0], type="place_entombed_marker", unit=sid, x=36, y=24)
    hal = _hal(game)
    assert of(events, "entombed_marker")["enemy"] == hal
    units = dict(units_of(game.state))
    units[hal] = dataclasses.replace(units[hal], status="destroyed")
    game.state = game.state.evolve(units=units)
    err = refused(game, 1, type="emerge", unit=sid, x=35, y=30, facing=0)
    assert err.code == "illegal_move" and "no longer on the table" in err.message
    assert game.state.to_json(1)["entombed"][sid]["suggested"] is None
    ended = act(game, 1, [3], type="end_phase")
    mishap = of(ended, "entombed_mishap")
    assert mishap["result"] == "delayed" and "no longer on the table" in mishap["text"]
    assert game.state.battle.phase == "Magic"


def test_a_mishap_arrival_at_the_phase_end_that_releases_fanatics_waits_for_them() -> None:
    """Other goblins stand over the marker; the unit the Mishap brings on from the south edge
    as the phase ends stands within 8 in of player 2's goblins hiding 2 Fanatics: they are
    released at once (seed 003), so the phase end stops there, kept, and ends once player 2
    has released both."""
    game = Game("whfb8")
    game.act(1, type="submit_army", units=[SWARM])
    game.act(2, type="submit_army", units=[GOBLINS, HIDING])
    sid = swarm(game).id
    other, gob = sorted((u.id for u in units_of(game.state).values() if u.owner == 2),
                        key=lambda u: int(u[1:]))
    game.act(1, type="declare_reserve", unit=sid)
    game.act(2, type="deploy_unit", unit=other, x=20, y=42, facing=180)
    game.act(2, type="deploy_unit", unit=gob, x=52, y=42, facing=180)
    ready(game, 4)
    act(game, 1, [1, 1], type="place_entombed_marker", unit=sid, x=36, y=30)
    game.put(other, 36.0, 29.0, 180.0)  # over the marker: nothing fits touching it
    game.put(gob, 36.0, 8.0, 180.0)  # front 6.4 in from where the south edge brings it on
    events = act(game, 1, [5, 1], type="end_phase")
    kinds = [e.type for e in events]
    assert kinds[:3] == ["entombed_mishap", "entombed_emerged", "fanatics_revealed"]
    assert kinds[-1] == "resolution_suspended"
    assert game.state.battle.phase == "Movement" and pending_release(game.state)
    assert swarm(game).status == "on_table"
    centre = table_of(game.state).units[gob].boundary.centroid
    for _ in range(2):  # away to the east, 1 + 2 = 3 in each
        act(game, 2, [1, 2], type="release_fanatic", unit=gob, point=[centre.x, centre.y],
            facing=270.0)
    assert not pending_release(game.state) and suspended_of(game.state) == ()
    assert game.state.battle.phase == "Magic"
