"""Every move is judged for the release at 8 in (seed 003, ../shared/seeds/
003_39e99837749f8d9d.txt: Fanatics "must be released when a concealing unit comes to within 8"
of the enemy or vice versa"), not only marches, charges and flees: a Skirmishers move, a
Vanguard move and a free move agreed by both players ask the same judgement (the system's
`move_stop`), and the owner then releases the Fanatics with the dice in the stream's order."""

from __future__ import annotations

import pytest

from server import geometry as geo
from server.rules import core
from server.rules.core import Event, GameState
from server.rules.orders import acting_seats
from server.rules.units import table_of, units_of
from server.rules.whfb8.fanatics import concealed_of, pending_release
from server.rules.whfb8.skirmish import _offer_skirmish as skirmish_offer
from tests.rules.helpers import Game
from tests.rules.whfb8.positions import (
    GOBLINS,
    SWARM,
    assert_dice_in_order,
    position,
    run,
    with_units,
)

HIDING = {**GOBLINS, "concealed": {"night-goblin-fanatic": 2}}
GOBLINS_FRONT_Y = 30.0
"""The concealing goblins (player 2, u2) stand facing south with their front edge here."""


def _gap(state: GameState) -> float:
    table = table_of(state)
    return geo.distance(table.units["u1"], table.units["u2"]).distance


def _swarm_facing_goblins(phase: str = "Movement", hiding: bool = True) -> GameState:
    """A Tomb Swarm (player 1, u1, Skirmishers, M4) 11.5 in south of Night Goblins (player 2,
    u2) that conceal two Fanatics, front edges facing each other."""
    state = position(
        [SWARM], [HIDING if hiding else GOBLINS],
        {"u1": (36.0, GOBLINS_FRONT_Y - 11.5, 0.0), "u2": (36.0, GOBLINS_FRONT_Y, 180.0)},
        phase=phase,
    )
    assert _gap(state) == pytest.approx(11.5)
    return state


def _released_in_order(state: GameState) -> tuple[GameState, list[Event]]:
    """The owner (player 2) releases both Fanatics away from everything (backwards, 1 + 2 and
    2 + 1 in): every die where the one before ended."""
    start = state.dice_position
    events: list[Event] = []
    for x, faces in ((35.0, [1, 2]), (37.0, [2, 1])):
        state, made = run(state, 2, faces, type="release_fanatic", unit="u2",
                          point=[x, GOBLINS_FRONT_Y + 1.0], facing=0.0)
        events += made
    assert [e.type for e in events] == ["fanatic_released", "fanatic_released"]
    assert_dice_in_order(events, start)
    assert not pending_release(state) and "u2" not in concealed_of(state)
    return state, events


def test_a_skirmishers_move_from_11_5_to_7_5_in_stops_at_8_in_and_releases() -> None:
    """Seed 002 Skirmishers move model by model (`skirmish_move`); the unit still comes within
    8 in of the concealing goblins: it stops at 8 in (after 3.5 of its 4 in), the release waits
    for player 2, then the Swarm may carry on with the rest of its allowance."""
    state = _swarm_facing_goblins()
    state, events = run(state, 1, [], type="skirmish_move", unit="u1", x=36.0,
                        y=GOBLINS_FRONT_Y - 7.5, facing=0.0)
    assert [e.type for e in events] == ["unit_moved", "fanatics_revealed"]
    assert events[0].payload["stopped"] is True
    assert events[0].payload["used"] == pytest.approx(3.5, abs=1e-3)
    assert _gap(state) == pytest.approx(8.0, abs=1e-3)
    assert pending_release(state)[0] == {"unit": "u2", "left": 2, "owner": 2, "interrupted": "u1"}
    assert 2 in acting_seats(state)
    state, _ = _released_in_order(state)
    # The rest of the move: 0.5 in left of the 4 in, no more (the order says so).
    order = skirmish_offer(state, 1, units_of(state)["u1"])
    assert order is not None and order["available"]
    assert order["carry_on"] == {"mode": "advance", "used": 3.5, "left": 0.5}
    with pytest.raises(core.RuleError) as err:
        run(state, 1, [], type="skirmish_move", unit="u1", x=36.0, y=GOBLINS_FRONT_Y - 7.4,
            facing=0.0)
    assert err.value.details["rule"] == "Move Distance"
    state, rest = run(state, 1, [], type="skirmish_move", unit="u1", x=36.0,
                      y=GOBLINS_FRONT_Y - 7.5, facing=0.0)
    assert [e.type for e in rest] == ["unit_moved"]
    assert rest[0].payload["used"] == pytest.approx(4.0, abs=1e-3)
    assert _gap(state) == pytest.approx(7.5, abs=1e-3)
    with pytest.raises(core.RuleError) as err:
        run(state, 1, [], type="skirmish_move", unit="u1", x=36.0, y=GOBLINS_FRONT_Y - 7.4,
            facing=0.0)
    assert err.value.details["rule"] == "One Move per Phase"


def test_a_skirmishers_move_past_goblins_hiding_nothing_is_not_stopped() -> None:
    """Without Fanatics the same move goes its whole 4 in: one event."""
    state = _swarm_facing_goblins(hiding=False)
    state, events = run(state, 1, [], type="skirmish_move", unit="u1", x=36.0,
                        y=GOBLINS_FRONT_Y - 7.5, facing=0.0)
    assert [e.type for e in events] == ["unit_moved"]
    assert "stopped" not in events[0].payload
    assert _gap(state) == pytest.approx(7.5)


def test_a_vanguard_move_that_comes_within_8_in_releases_the_fanatics() -> None:
    """FACTS.md: a Vanguard move may not end within 12 in of an enemy, so the move from 11.5
    to 7.5 in is refused by that rule (the same refusal with or without Fanatics: nothing is
    learnt). A Vanguard move whose way comes within 8 in does release them: the Swarm, its
    back 11.5 in from the goblins, reforms into a column (its Free Reform, seed 002) that
    reaches 4.15 in further back, then walks away (south): the reform brings it within 8 in, so
    it stops there, reformed, and player 2 releases."""
    plain = _swarm_facing_goblins("Start", hiding=False)
    state = _swarm_facing_goblins("Start")
    refusals = []
    for s in (plain, state):
        with pytest.raises(core.RuleError) as err:
            run(s, 1, [], type="vanguard_move", unit="u1", x=36.0, y=GOBLINS_FRONT_Y - 7.5,
                facing=0.0)
        assert err.value.details["rule"] == "Vanguard: 12 in from enemies"
        refusals.append((err.value.code, err.value.message, err.value.details))
    assert refusals[0] == refusals[1]
    # Backs to the goblins: the Swarm faces south, its rear edge 11.5 in from their front edge;
    # as a column (one file) it reaches back 3 bases and 2 gaps of 0.5 in instead of 1 base.
    away = (36.0, GOBLINS_FRONT_Y - 11.5 - 40 / 25.4, 180.0)
    column = {"type": "vanguard_move", "unit": "u1", "x": 36.0, "y": 10.0, "facing": 180.0,
              "files": 1}
    results = []
    for s in (plain, state):
        s = with_units(s, u1={"placement": away})
        assert _gap(s) == pytest.approx(11.5)
        results.append(run(s, 1, [], **column))
    (plain_after, plain_events), (state, events) = results
    assert [e.type for e in plain_events] == ["vanguard_moved"]
    assert _gap(plain_after) > 12.0
    assert [e.type for e in events] == ["vanguard_moved", "fanatics_revealed"]
    assert events[0].payload["stopped"] is True
    assert _gap(state) == pytest.approx(11.5 - (3 * 40 + 2 * 12.7 - 40) / 25.4, abs=1e-2)
    assert _gap(state) < 8.0
    assert "vanguard" in units_of(state)["u1"].markers
    assert 2 in acting_seats(state)
    _released_in_order(state)


def _free_move_game(hiding: bool = True) -> Game:
    """The Swarm (u1) and the goblins (u2) standing 11.5 in apart in player 1's Movement
    phase, played through the log (proposals need a real game)."""
    game = Game("whfb8")
    game.act(1, type="submit_army", units=[SWARM])
    game.act(2, type="submit_army", units=[HIDING if hiding else GOBLINS])
    game.act(1, type="deploy_unit", unit="u1", x=36, y=6, facing=0)
    game.act(2, type="deploy_unit", unit="u2", x=36, y=42, facing=180)
    game.to_phase(1, "Movement")
    game.put("u1", 36.0, GOBLINS_FRONT_Y - 11.5, 0.0)
    game.put("u2", 36.0, GOBLINS_FRONT_Y, 180.0)
    assert _gap(game.state) == pytest.approx(11.5)
    return game


def _agree_free_move(game: Game) -> list[Event]:
    (made,) = game.act(1, type="propose", kind="free_move", unit="u1", x=36.0,
                       y=GOBLINS_FRONT_Y - 7.5, facing=0.0)
    # The proposal shows nothing of the secret: no stop, no release, in anyone's view.
    assert made.payload["free_move"]["unit_after"]["placement"]["y"] == GOBLINS_FRONT_Y - 7.5
    return game.act(2, type="accept_proposal")


def test_a_free_move_from_11_5_to_7_5_in_releases_the_fanatics_where_it_is_put() -> None:
    """A free move agreed by both players puts the unit down (it has no way to stop on): put
    7.5 in from the concealing goblins, it came within 8 in, so their Fanatics are released
    with the unit where the players agreed; player 2 then releases them."""
    game = _free_move_game()
    events = _agree_free_move(game)
    assert [e.type for e in events] == ["proposal_accepted", "free_move", "fanatics_revealed"]
    assert _gap(game.state) == pytest.approx(7.5)
    assert pending_release(game.state)[0] == {
        "unit": "u2", "left": 2, "owner": 2, "interrupted": "u1"
    }
    _released_in_order(game.state)


def test_a_free_move_near_goblins_hiding_nothing_releases_nothing() -> None:
    game = _free_move_game(hiding=False)
    events = _agree_free_move(game)
    assert [e.type for e in events] == ["proposal_accepted", "free_move"]


def test_a_free_move_while_deploying_releases_nothing() -> None:
    """Before the battle a unit put right by agreement is being set up, not moving: nothing is
    judged (no release could be made yet: releasing is a battle action)."""
    game = Game("whfb8")
    game.act(1, type="submit_army", units=[SWARM, SWARM])
    game.act(2, type="submit_army", units=[HIDING])
    game.act(1, type="deploy_unit", unit="u1", x=36, y=6, facing=0)
    game.act(2, type="deploy_unit", unit="u3", x=36, y=GOBLINS_FRONT_Y + 12, facing=180)
    assert game.state.battle.stage == core.DEPLOYMENT
    game.act(1, type="propose", kind="free_move", unit="u1", x=36.0,
             y=GOBLINS_FRONT_Y + 12 - 7.5, facing=0.0)
    events = game.act(2, type="accept_proposal")
    assert [e.type for e in events] == ["proposal_accepted", "free_move"]
    assert not pending_release(game.state)
