"""Issue 19 item 4, terrain you can fix: in setup a terrain piece is moved, rotated, resized,
given another height or removed (`move_terrain`, `remove_terrain`), a preset replaces the
table's terrain, and a player alone at the table takes back their own setup actions
(`take_back`) — docs/protocol.md "Setting up, deploying and moving". The checks are
place_terrain's: a simple outline, on the battlefield, overlapping no other piece.
"""

from __future__ import annotations

import dataclasses

import pytest

from server.dice import DiceStream
from server.rules import core, table
from server.rules.core import Battlefield, GameState
from server.rules.orders import orders_for
from server.rules.setup import moved_outline
from server.rules.units import terrain_of
from tests.rules.helpers import SEED, Game

SQUARE = [[10, 10], [14, 10], [14, 14], [10, 14]]


def points(game: Game, terrain_id: str) -> list[tuple[float, float]]:
    (piece,) = [t for t in terrain_of(game.state) if t.id == terrain_id]
    return [(round(x, 3), round(y, 3)) for x, y in piece.points]


def alone(system: str = "t9a") -> Game:
    """A game with only player 1 seated (player 2 has not joined)."""
    game = Game.__new__(Game)
    game.seed, game.log, game.state = SEED, [], GameState()
    game.append(table.genesis("g", system, "Test", Battlefield(72, 48), "c", "fixed"))
    game.append([table.seat_claimed(1)])
    return game


def test_a_piece_moves_turns_and_resizes_about_its_centre() -> None:
    """dx/dy shift it; rotate 90 turns the 4 x 4 in square about its centre (12, 12) onto
    itself, corner (10, 10) landing on (14, 10); scale 2 doubles it about the centre."""
    game = Game()
    game.act(1, type="place_terrain", kind="cover", points=SQUARE, height="standard")
    (moved,) = game.act(2, type="move_terrain", terrain="ter1", dx=5, dy=-2)
    assert moved.type == "terrain_moved"
    assert points(game, "ter1") == [(15, 8), (19, 8), (19, 12), (15, 12)]
    game.act(1, type="move_terrain", terrain="ter1", rotate=90)
    assert points(game, "ter1")[0] == (19, 8)
    game.act(1, type="move_terrain", terrain="ter1", scale=2, height="large")
    assert sorted(points(game, "ter1")) == [(13, 6), (13, 14), (21, 6), (21, 14)]
    assert game.state.to_json()["terrain"][0]["height"] == "large"
    assert core.replay(game.log).to_json()["terrain"] == game.state.to_json()["terrain"]


def test_a_moved_piece_stays_on_the_table_and_clear_of_the_others() -> None:
    """Moving off the edge is refused (Battlefield Edge), onto another piece too (Terrain
    Overlap, naming it by name, not id); a refused move changes nothing. A piece may move
    over where it stood (it does not overlap itself)."""
    game = Game()
    game.act(1, type="place_terrain", kind="cover", points=SQUARE, label="Wood")
    game.act(1, type="place_terrain", kind="impassable",
             points=[[17, 10], [21, 10], [21, 14], [17, 14]], label="Farmhouse")
    before = game.state
    err = game.refused(1, type="move_terrain", terrain="ter1", dx=-12)
    assert (err.code, err.details) == ("illegal_move", {"rule": "Battlefield Edge"})
    err = game.refused(1, type="move_terrain", terrain="ter1", dx=8)
    assert (err.code, err.details["rule"]) == ("illegal_move", "Terrain Overlap")
    assert "Farmhouse" in err.message and "ter2" not in err.message
    err = game.refused(2, type="move_terrain", terrain="ter1", scale=3)
    assert err.details["rule"] == "Terrain Overlap"
    err = game.refused(1, type="move_terrain", terrain="ter9", dx=1)
    assert (err.code, err.details) == ("bad_request", {"field": "terrain"})
    err = game.refused(1, type="move_terrain", terrain="ter1", scale=10)
    assert err.code == "bad_request"
    assert game.state == before
    game.act(1, type="move_terrain", terrain="ter1", dx=1)
    assert points(game, "ter1")[0] == (11, 10)


def test_a_piece_is_removed_and_a_preset_replaces_the_table() -> None:
    """remove_terrain takes the piece and its name off; a preset on a table with terrain is
    refused unless it replaces it (the old pieces are removed, the preset's get new ids)."""
    game = Game()
    game.act(1, type="place_terrain", kind="cover", points=SQUARE, label="Wood")
    game.act(1, type="place_terrain", kind="cover",
             points=[[30, 30], [34, 30], [34, 34]], label="Copse")
    (removed,) = game.act(2, type="remove_terrain", terrain="ter1")
    assert removed.payload["text"] == "Wood removed"
    assert [t["label"] for t in game.state.to_json()["terrain"]] == ["Copse"]
    err = game.refused(1, type="use_preset_table", preset="village")
    assert err.details == {"rule": "Preset Table"}
    events = game.act(1, type="use_preset_table", preset="village", replace=True)
    assert [e.type for e in events] == ["terrain_removed"] + ["terrain_placed"] * 4
    view = game.state.to_json()["terrain"]
    assert [t["label"] for t in view] == ["Farmhouse", "Orchard", "Hill", "Marsh"]
    assert len({t["id"] for t in view}) == 4 and "ter2" not in {t["id"] for t in view}


def test_the_village_hill_has_a_height_line_of_sight_uses() -> None:
    """The preset Hill is Large: units of standard height do not see over it (the height rule
    of server/geometry/los.py, docs/rules-decisions.md)."""
    game = Game()
    game.act(1, type="use_preset_table", preset="village")
    hill = [t for t in game.state.to_json()["terrain"] if t["label"] == "Hill"][0]
    assert (hill["kind"], hill["height"]) == ("blocks_los", "large")


def test_terrain_edits_are_for_setup_only() -> None:
    """Once the armies are in (deployment), terrain stays where it is."""
    game = Game()
    game.act(1, type="place_terrain", kind="cover", points=SQUARE)
    game.act(1, type="submit_army", units=[{"datasheet": "citizen-spears", "models": 10}])
    game.act(2, type="submit_army", units=[{"datasheet": "citizen-spears", "models": 10}])
    for action in ({"type": "move_terrain", "terrain": "ter1", "dx": 1},
                   {"type": "remove_terrain", "terrain": "ter1"}):
        err = game.refused(1, **action)
        assert err.code == "out_of_phase"


def test_a_player_alone_takes_back_their_own_setup_actions() -> None:
    """Before player 2 joins, player 1 takes back the last action at once (no proposal: there
    is nobody to ask) or from an earlier one of theirs; the state is the log without them."""
    game = alone()
    game.act(1, type="place_terrain", kind="cover", points=SQUARE, label="Wood")
    placed = game.act(1, type="use_preset_table", preset="ruins", replace=True)
    game.act(1, type="move_terrain", terrain=placed[1].payload["id"], dx=1)
    (undone,) = game.act(1, type="take_back")
    assert (undone.type, undone.payload["alone"], len(undone.payload["seqs"])) == (
        "events_undone", True, 1)
    assert [t["label"] for t in game.state.to_json()["terrain"]][0] == "Ruined chapel"
    game.act(1, type="take_back", seq=placed[0].seq)
    assert [t["label"] for t in game.state.to_json()["terrain"]] == ["Wood"]
    game.act(1, type="take_back")
    assert game.state.to_json()["terrain"] == []
    err = game.refused(1, type="take_back")
    assert (err.code, err.details) == ("illegal_move", {"rule": "Undo"})


def test_the_take_back_order_says_what_it_takes_back_while_alone() -> None:
    """orders.game.take_back: offered to player 1 alone with the events in words; refused
    with the reason when there is nothing; not offered once player 2 has joined."""
    game = alone()
    offer = orders_for(game.state, 1)["game"]["take_back"]
    assert (offer["available"], "nothing to undo" in offer["reason"]) == (False, True)
    game.act(1, type="place_terrain", kind="cover", points=SQUARE, label="Wood")
    offer = orders_for(game.state, 1)["game"]["take_back"]
    assert offer["available"] and len(offer["undo"]["events"]) == 1
    assert "take_back" not in orders_for(Game().state, 1)["game"]


def test_once_player_2_has_joined_an_undo_is_by_agreement() -> None:
    """With both seats taken, take_back is refused, pointing to a proposal."""
    game = Game()
    game.act(1, type="place_terrain", kind="cover", points=SQUARE)
    err = game.refused(1, type="take_back")
    assert (err.code, err.details["rule"]) == ("out_of_phase", "Undo")
    assert "propose" in err.message


@pytest.mark.parametrize("rotate,scale", [(0, 1), (45, 1), (90, 0.5), (-30, 2)])
def test_moved_outline_keeps_the_centroid(rotate: float, scale: float) -> None:
    """Turning and resizing happen about the centroid: it stays put (then moves by dx, dy)."""
    pts = ((0.0, 0.0), (6.0, 0.0), (6.0, 3.0), (0.0, 3.0))
    out = moved_outline(pts, 1, 2, rotate, scale)
    cx = sum(p[0] for p in out) / 4
    cy = sum(p[1] for p in out) / 4
    assert (round(cx, 2), round(cy, 2)) == (4.0, 3.5)


def test_take_back_replays_like_the_live_state() -> None:
    """The stored log replays to the same terrain (the undone events stay in the log)."""
    game = alone()
    game.act(1, type="place_terrain", kind="cover", points=SQUARE)
    game.act(1, type="take_back")
    again = core.replay(game.log)
    assert again.terrain == () and len(game.log) == 4
    assert dataclasses.replace(again).next_id == game.state.next_id
    assert DiceStream(SEED, again.dice_position).position == game.state.dice_position
