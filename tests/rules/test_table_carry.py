"""Issue 21: the geometry table of a state (`units.table_of`) is handed on by `core.fold` to
the next state when the event changed no unit and no terrain (a phase ending), and built anew
when one did (a move); the lines of sight it answered go with it, and are the ones the line
of sight core computes."""

from __future__ import annotations

from server.geometry.los import line_of_sight
from server.rules.units import table_of, units_of
from tests.rules.helpers import Game


def _battle() -> Game:
    game = Game("wh40k10")
    game.act(1, type="submit_army", units=[{"datasheet": "boyz", "models": 10}])
    game.act(2, type="submit_army", units=[{"datasheet": "intercessor-squad", "models": 5}])
    boyz = next(u.id for u in units_of(game.state).values() if u.owner == 1)
    marines = next(u.id for u in units_of(game.state).values() if u.owner == 2)
    game.act(1, type="deploy_unit", unit=boyz, x=30, y=8, facing=0)
    game.act(2, type="deploy_unit", unit=marines, x=30, y=36, facing=180)
    return game


def test_a_move_builds_a_new_table_and_a_phase_end_keeps_it() -> None:
    game = _battle()
    while game.state.battle.phase != "Movement":
        game.act(int(game.state.battle.active_player), type="end_phase")
    seat = int(game.state.battle.active_player)
    uid = next(u.id for u in units_of(game.state).values() if u.owner == seat)
    enemy = next(u.id for u in units_of(game.state).values() if u.owner != seat)
    before = table_of(game.state)
    # A move: a new table, with the unit where it moved to.
    step = 3.0 if seat == 1 else -3.0
    moved = [[x, y + step] for x, y in units_of(game.state)[uid].positions]
    game.act(seat, type="move_models", unit=uid, positions=moved)
    table = table_of(game.state)
    assert table is not before
    shift = table.units[uid].boundary.centroid.y - before.units[uid].boundary.centroid.y
    assert abs(shift - step) < 1e-6
    sight = line_of_sight(table, uid, enemy)
    # Nothing moved: the next state answers from the same table and the same sight.
    game.act(seat, type="end_phase")
    assert game.state.battle.phase == "Shooting"
    assert table_of(game.state) is table
    assert line_of_sight(table_of(game.state), uid, enemy) is sight


def test_a_kept_line_of_sight_is_the_one_the_core_computes() -> None:
    game = _battle()
    table = table_of(game.state)
    for viewer, target in (("u1", "u2"), ("u2", "u1")):
        kept = line_of_sight(table, viewer, target)
        assert line_of_sight(table, viewer, target) is kept
        # the same question with the footprints given: computed, not kept
        computed = line_of_sight(table, viewer, target, viewer=table.units[viewer],
                                 target=table.units[target])
        assert computed is not kept and computed == kept
