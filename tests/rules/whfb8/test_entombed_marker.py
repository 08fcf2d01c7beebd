"""whfb8 Entombed Beneath the Sands: a marker under a friendly unit or a building (seed 002:
"If the marker is under a friendly unit, impassable terrain or a building, place it 1" away
from the closest edge of the unit/terrain"); impassable terrain and the other steps:
tests/rules/whfb8/test_entombed.py."""

from __future__ import annotations

import pytest

from server.rules.units import units_of
from tests.rules.whfb8.test_entombed import act, entombed_game, of, ready, swarm


def test_a_marker_landing_in_a_building_is_put_1_in_from_its_closest_edge() -> None:
    """(36, 24) + 4 in north = (36, 28), inside a Farmhouse (30..40, 26..29: cover terrain
    whose label names a building), whose closest edge is y = 29: the marker goes to (36, 30)."""
    house = {"kind": "cover", "label": "Farmhouse",
             "points": [(30, 26), (40, 26), (40, 29), (30, 29)]}
    game = entombed_game(terrain=[house])
    ready(game, 6)
    events = act(game, 1, [4, 2], [0], type="place_entombed_marker", unit=swarm(game).id,
                 x=36, y=24)
    marker = of(events, "entombed_marker")
    assert marker["landed"] == pytest.approx([36.0, 28.0])
    assert marker["moved_off"] == ["ter1"] and marker["marker"] == pytest.approx([36.0, 30.0])


def test_a_marker_landing_under_a_friendly_unit_is_put_1_in_from_its_closest_edge() -> None:
    """A second Tomb Swarm of player 1 stands with its front edge at y = 29 facing north (one
    loose rank of 40 mm bases: rear edge 29 - 1.5748 = 27.4252; sides 2.86 in from x = 36).
    The marker lands at (36, 28): the rear edge is the closest (0.5748 in), so it goes to
    y = 26.4252."""
    game = entombed_game(swarms=2)
    ready(game, 6, 1)
    mine = sorted(u.id for u in units_of(game.state).values() if u.owner == 1)
    game.put(mine[1], 36.0, 29.0, 0.0)
    events = act(game, 1, [4, 2], [0], type="place_entombed_marker", unit=mine[0], x=36, y=24)
    marker = of(events, "entombed_marker")
    assert marker["landed"] == pytest.approx([36.0, 28.0])
    assert marker["moved_off"] == [mine[1]]
    assert marker["marker"] == pytest.approx([36.0, 29.0 - 40 / 25.4 - 1.0], abs=1e-3)
