"""An agreed undo of a move that released Night Goblin Fanatics (seed 003,
../shared/seeds/003_39e99837749f8d9d.txt) takes the release back with it: the Fanatics are
hidden in their unit again and no release waits; the state is the one before the move, but for
what an undo never rewinds (the dice stream, the id counter, the discarded rolls it lists: the
log keeps the undone events, the fold skips them; docs/rules-decisions.md "By agreement")."""

from __future__ import annotations

import dataclasses
from typing import Any

from server.rules import core
from server.rules.core import Event, GameState
from server.rules.resume import suspended_of
from server.rules.units import Unit, units_of
from server.rules.whfb8.fanatics import FANATIC, _placed, concealed_of, pending_release
from tests.games.test_replay import assert_every_seq_matches
from tests.rules.helpers import Game, battle
from tests.rules.t9a.scripted import ScriptedDice
from tests.rules.whfb8.positions import GOBLINS, HALBERDIERS
from tests.rules.whfb8.test_fanatics import HIDING

NEVER_REWOUND = {"dice_position", "rolls", "next_id"}
"""Counters an undo leaves where they were (server/rules/core.py `UNDO_EVENT`)."""
BOOKKEEPING = {"seq", "batch", "proposals", "undoable", "derived"}
"""The log's own bookkeeping: it grows with the proposal and the undo."""


def _scripted(game: Game, seat: int, faces: list[int], **action: Any) -> list[Event]:
    dice = ScriptedDice(faces, game.state.dice_position)
    made = game.append(core.decide(game.state, seat, action, dice))  # type: ignore[arg-type]
    assert dice.used == len(faces)
    return made


def _undo(game: Game, seat: int, seq: int) -> None:
    (made,) = game.act(seat, type="propose", kind="undo", seq=seq)
    assert made.type == "proposal_made"
    accepted = game.act(3 - seat, type="accept_proposal", id=made.payload["id"])
    assert [e.type for e in accepted] == ["proposal_accepted", "events_undone"]


def _changed_fields(after: GameState, before: GameState) -> set[str]:
    return {
        f.name for f in dataclasses.fields(GameState)
        if f.compare and getattr(after, f.name) != getattr(before, f.name)
    }


def _marching() -> Game:
    """Night Goblins hiding 2 Fanatics (player 1, u1) 14 in from Empire Halberdiers (u2), in
    player 1's Movement phase."""
    game = battle("whfb8", [HIDING], [HALBERDIERS])
    game.put("u1", 36.0, 10.0, 0.0)
    game.put("u2", 36.0, 24.0, 180.0)
    game.to_phase(1, "Movement")
    return game


def test_an_undone_march_that_stopped_to_release_hides_the_fanatics_again() -> None:
    """The march stops at 8 in and the release waits; undone, the state is the one before
    the march, field for field and in every viewer's projection."""
    game = _marching()
    before = game.state
    moved = game.act(1, type="move_unit", unit="u1", manoeuvre="forward", distance=8.0,
                     mode="march")
    assert [e.type for e in moved] == ["unit_moved", "fanatics_revealed"]
    assert pending_release(game.state) and concealed_of(game.state) == {}
    _undo(game, 1, moved[0].seq)
    assert pending_release(game.state) == () and concealed_of(game.state) == {"u1": 2}
    assert _changed_fields(game.state, before) <= BOOKKEEPING
    for viewer in (1, 2, None):
        view, was = game.state.to_json(viewer), before.to_json(viewer)
        assert {k: v for k, v in view.items() if k not in ("seq", "proposal", "undoable")} == {
            k: v for k, v in was.items() if k not in ("seq", "proposal", "undoable")}


def test_an_undone_march_whose_fanatics_were_released_takes_the_whirls_back_not_the_dice() -> None:
    """Both Fanatics released (their 2D6 and their hits rolled) and then the march undone:
    no Fanatic is on the table, none waits, both are hidden again; the dice stream stays where
    the whirls left it (the next roll does not repeat them) and the whirls' rolls are listed as
    discarded, so rolling them again is marked a re-roll."""
    game = _marching()
    before = game.state
    moved = game.act(1, type="move_unit", unit="u1", manoeuvre="forward", distance=8.0,
                     mode="march")
    _scripted(game, 1, [5, 4, 4, 2, 3, 1, 6], type="release_fanatic", unit="u1",
              point=[36.0, 16.0], facing=0.0)
    _scripted(game, 1, [3, 1], type="release_fanatic", unit="u1", point=[34.5, 16.0],
              facing=90.0)
    rolled = game.state.dice_position
    assert units_of(game.state)["u2"].models == 17
    _undo(game, 1, moved[0].seq)
    assert pending_release(game.state) == () and concealed_of(game.state) == {"u1": 2}
    assert not [u for u in units_of(game.state).values() if u.datasheet == FANATIC]
    assert units_of(game.state) == units_of(before)
    assert _changed_fields(game.state, before) <= BOOKKEEPING | NEVER_REWOUND
    assert game.state.dice_position == rolled
    assert [r["type"] for r in game.state.proposals.discarded_rolls][:1] == ["fanatic_released"]
    n = game.state.seq
    assert_every_seq_matches(game.log, 4, [*range(n, -1, -1)])


def test_an_undone_charge_reaction_that_stopped_the_charge_at_8_in_restores_the_charge() -> None:
    """The Halberdiers (player 2) charge the goblins; the goblins hold and the charge stops at
    8 in for the release. Player 1 takes back their reaction: the charge waits for its reaction
    again, nothing waits to be released and the Fanatics are hidden."""
    game = battle("whfb8", [HIDING], [HALBERDIERS])
    game.put("u1", 36.0, 10.0, 0.0)
    game.put("u2", 36.0, 21.0, 180.0)
    game.to_phase(2, "Movement")
    game.act(2, type="declare_charge", unit="u2", target="u1")
    before = game.state
    reacted = _scripted(game, 1, [4, 4], type="charge_reaction", reaction="hold")
    assert [e.type for e in reacted][-2:] == ["charge_interrupted", "fanatics_revealed"]
    _undo(game, 1, reacted[0].seq)
    assert pending_release(game.state) == () and concealed_of(game.state) == {"u1": 2}
    assert game.state.charges == before.charges
    assert _changed_fields(game.state, before) <= BOOKKEEPING | NEVER_REWOUND


def test_an_undone_phase_end_that_released_enemy_fanatics_is_wholly_taken_back() -> None:
    """Player 1 ends the Start phase; as their Movement phase starts, their Fanatic's
    compulsory whirl ends within 8 in of player 2's concealing goblins, whose Fanatic must be
    released: the start of the phase waits (suspended). Player 1 takes the phase end back
    before player 2 releases: no release, no suspended phase start, the Fanatic back where it
    stood, and the Start phase again."""
    game = battle("whfb8", [GOBLINS], [HIDING])
    game.put("u1", 36.0, 6.0, 0.0)
    game.put("u2", 40.0, 36.0, 180.0)
    game.to_phase(1, "Movement")
    # A Fanatic of player 1 released in the turn before (folded from its event, as the
    # release would leave it), up the table towards the flank of player 2's goblins.
    fanatic = Unit(game.state.new_id("u"), 1, FANATIC, "Night Goblin Fanatic", 1, 1)
    placed = _placed(game.state, fanatic, (36.0, 20.0), 0.0)
    game.append([Event("fanatic_released", {"unit": placed.to_json(), "from": "u1"})])
    game.act(1, type="end_phase")
    game.to_phase(1, "Start")  # player 1's next turn
    assert game.state.battle.turn == 2
    before = game.state
    ended = _scripted(game, 1, [1, 6, 5], type="end_phase")
    assert [e.type for e in ended][-1] == "resolution_suspended"
    assert pending_release(game.state) and suspended_of(game.state)
    _undo(game, 1, ended[0].seq)
    assert pending_release(game.state) == () and suspended_of(game.state) == ()
    assert concealed_of(game.state) == {"u2": 2}
    assert units_of(game.state) == units_of(before)
    assert _changed_fields(game.state, before) <= BOOKKEEPING | NEVER_REWOUND
