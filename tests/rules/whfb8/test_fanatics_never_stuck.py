"""The start of the Movement phase with released Night Goblin Fanatics always resolves (seed
003, ../shared/seeds/003_39e99837749f8d9d.txt: in their owner's later turns they move in the
Compulsory Moves sub-phase, here the start of the owner's Movement phase): a Fanatic removed by
an earlier one's whirl is not moved, and a whirl that releases enemy Fanatics holds the start of
the phase until their owner has released them."""

from __future__ import annotations

import pytest

from server.rules import core
from server.rules.core import Event, GameState, RuleError
from server.rules.resume import suspended_of
from server.rules.units import Unit, table_of, units_of
from server.rules.whfb8.fanatics import FANATIC, _placed, pending_release
from tests.rules.test_battle import fold
from tests.rules.whfb8.positions import GOBLINS, HALBERDIERS, position, run

HIDING = {**GOBLINS, "concealed": {"night-goblin-fanatic": 2}}


def _released(state: GameState, centre: tuple[float, float], facing: float) -> GameState:
    """A Fanatic of player 1's goblins (u1) standing released at `centre`, last whirled
    towards `facing` (the fold of the release event, without its dice)."""
    fanatic = Unit(state.new_id("u"), 1, FANATIC, "Night Goblin Fanatic", 1, 1)
    placed = _placed(state, fanatic, centre, facing)
    return fold(state, [Event("fanatic_released", {"unit": placed.to_json(), "from": "u1"})])


def _next_start_phase(state: GameState) -> GameState:
    """Player 1's Start phase of turn 2: ending it starts their Movement phase."""
    return fold(state, [Event("phase_ended", {"ended": "Close Combat", "turn": 2,
                                              "active_player": 1, "phase": "Start"})])


def _two_fanatics_in_a_line() -> tuple[GameState, str, str]:
    """Player 1's goblins (u1) have released two Fanatics 6 in apart on one line; the first
    last whirled straight at the second (facing 270: +x)."""
    state = position([GOBLINS], [HALBERDIERS],
                     {"u1": (36.0, 6.0, 0.0), "u2": (36.0, 44.0, 180.0)}, phase="Movement")
    first = state.new_id("u")
    state = _released(state, (20.0, 24.0), 270.0)
    second = state.new_id("u")
    state = _released(state, (26.0, 24.0), 270.0)
    return _next_start_phase(state), first, second


def test_a_fanatic_removed_by_an_earlier_compulsory_whirl_is_not_moved_and_the_phase_starts(
) -> None:
    """The Movement phase starts: the first Fanatic keeps its direction (scatter HIT: face 1)
    and whirls 3 + 4 = 7 in into the second: both are removed (seed 003), the second is not
    moved again, and the Movement phase is under way (nothing waits)."""
    state, first, second = _two_fanatics_in_a_line()
    state, events = run(state, 1, [1, 3, 4], type="end_phase")
    assert events[0].type == "phase_ended" and events[0].payload["phase"] == "Movement"
    removed = [e.payload["unit"] for e in events if e.type == "fanatic_removed"]
    assert removed == [first, second]
    assert [e.payload["unit"]["id"] for e in events if e.type == "fanatic_moved"] == [first]
    assert state.battle.phase == "Movement" and not suspended_of(state)
    assert first not in table_of(state).units and second not in table_of(state).units
    assert units_of(state)[second].status == "destroyed"


def test_a_compulsory_whirl_that_releases_enemy_fanatics_waits_for_their_owner() -> None:
    """As player 1's Movement phase starts, their first Fanatic whirls 6 + 5 = 11 in and ends
    within 8 in of player 2's concealing goblins: their Fanatic is released at once, so the
    start of the phase stops there (the second Fanatic of player 1 does not move while the
    release waits, nor does anything else), is committed, and goes on after player 2 has
    released theirs."""
    state = position([GOBLINS], [HIDING],
                     {"u1": (36.0, 6.0, 0.0), "u2": (40.0, 36.0, 180.0)}, phase="Movement")
    state = fold(state, [Event("fanatics_concealed", {"seat": 2, "units": {"u2": 1}}, 2,
                               core.seat_visibility(2))])
    first = state.new_id("u")
    state = _released(state, (36.0, 20.0), 0.0)  # up the table, to 4.7 in of u2
    second = state.new_id("u")
    state = _released(state, (10.0, 20.0), 90.0)
    state = _next_start_phase(state)
    state, events = run(state, 1, [1, 6, 5], type="end_phase")
    assert [e.type for e in events][:3] == ["phase_ended", "fanatic_moved", "fanatics_revealed"]
    assert [e.payload["unit"]["id"] for e in events if e.type == "fanatic_moved"] == [first]
    assert state.battle.phase == "Movement" and pending_release(state)
    assert [f["kind"] for f in suspended_of(state)] == ["fanatic_compulsory", "phase_start"]
    for action in ({"type": "end_phase"},
                   {"type": "move_unit", "unit": "u1", "manoeuvre": "forward", "distance": 1.0}):
        with pytest.raises(RuleError) as err:
            run(state, 1, [], **action)
        assert err.value.code == core.OUT_OF_PHASE
    # Player 2 releases theirs (away from everything, 1 + 2 = 3 in); then the start of the
    # phase goes on: player 1's second Fanatic moves (HIT, 2 + 3 = 5 in), and player 1 moves.
    u2 = table_of(state).units["u2"].boundary.centroid
    state, events = run(state, 2, [1, 2, 1, 2, 3], type="release_fanatic", unit="u2",
                        point=[u2.x, u2.y], facing=270.0)
    assert not pending_release(state)
    moved = [e.payload["unit"]["id"] for e in events if e.type == "fanatic_moved"]
    assert moved == [second]
    assert state.battle.phase == "Movement" and not suspended_of(state)
    run(state, 1, [], type="move_unit", unit="u1", manoeuvre="forward", distance=1.0)


def test_no_compulsory_whirl_is_rolled_while_a_release_waits() -> None:
    """A release waiting for its owner refuses the end of the Start phase before any Fanatic is
    moved (no die is rolled for the compulsory moves: the release comes first, seed 003)."""
    state, first, _ = _two_fanatics_in_a_line()
    state = fold(state, [Event("fanatics_revealed", {"unit": "u1", "owner": 1, "count": 1,
                                                     "interrupted": "u2"})])
    with pytest.raises(RuleError) as err:
        run(state, 1, [], type="end_phase")
    assert err.value.code == core.OUT_OF_PHASE and err.value.details["rule"] == (
        "Concealed Fanatic"
    )
    assert units_of(state)[first].status == "on_table"


def test_a_released_fanatic_moves_as_its_owners_movement_phase_starts_before_any_move() -> None:
    """Seed 003: "In your subsequent turns they move in the Compulsory Moves subphase": at the
    start of the owner's Movement phase, before the owner's other moves and charges (WFB 8th:
    compulsory moves come before the chargers and the remaining moves; docs/rules-decisions.md).
    Played through the log: a Fanatic released in turn 1 has moved (HIT: 1, 2 + 3 = 5 in up the
    table) in the events that start player 1's turn-2 Movement phase, seen by its owner, and the
    owner's first move of the turn is then accepted with the Fanatic already moved."""
    from tests.rules.helpers import battle
    from tests.rules.t9a.scripted import ScriptedDice

    game = battle("whfb8", [GOBLINS], [HALBERDIERS])
    game.put("u1", 36.0, 6.0, 0.0)
    game.put("u2", 36.0, 44.0, 180.0)
    game.to_phase(1, "Movement")
    fanatic = Unit(game.state.new_id("u"), 1, FANATIC, "Night Goblin Fanatic", 1, 1)
    placed = _placed(game.state, fanatic, (20.0, 20.0), 0.0)
    game.append([Event("fanatic_released", {"unit": placed.to_json(), "from": "u1"})])
    game.to_phase(1, "Start")  # player 1's turn 2: the Fanatic has not moved since
    assert game.state.battle.turn == 2
    assert table_of(game.state).units[fanatic.id].centre == pytest.approx((20.0, 20.0), abs=1e-3)
    dice = ScriptedDice([1, 2, 3], game.state.dice_position)
    started = game.append(core.decide(game.state, 1, {"type": "end_phase"},  # type: ignore[arg-type]
                                      dice))
    assert dice.used == 3
    kinds = [e.type for e in started]
    assert kinds[0] == "phase_ended" and started[0].payload["phase"] == "Movement"
    assert "fanatic_moved" in kinds
    seen = [e.to_wire(1) for e in started]
    moved = next(w for w in seen if w["type"] == "fanatic_moved")
    assert moved["payload"]["unit"]["id"] == fanatic.id
    assert table_of(game.state).units[fanatic.id].centre == pytest.approx((20.0, 25.0), abs=1e-3)
    # Its move is the turn's compulsory move: it does not move again, and the owner's own
    # moves follow it.
    with pytest.raises(RuleError) as err:
        run(game.state, 1, [], type="random_move", unit=fanatic.id)
    assert err.value.details["rule"] == "Random Movement"
    made = game.act(1, type="move_unit", unit="u1", manoeuvre="forward", distance=2.0)
    assert [e.type for e in made] == ["unit_moved"]
    assert table_of(game.state).units[fanatic.id].centre == pytest.approx((20.0, 25.0), abs=1e-3)
