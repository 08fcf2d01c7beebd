"""An accepted undo leaves the whole t9a game as it was before the undone action (by agreement,
server/rules/proposals.py; docs/rules-decisions.md "By agreement": the state becomes the fold
of the log without the undone events, the dice never rewind).

Each case plays a real t9a game (tests/rules/helpers.py `battle`), takes one action (a charge
with its reaction and roll, an Advance, a March, a Wheel, a Pivot, a Reform), has its player(s)
propose to undo it and the opponent accept, then compares every view of the state (the
spectators' `to_json(None)` and each seat's, as folded and as a browser patched from its last
view holds it) and the state itself with the state before the action. Only what records the
log itself may differ: `seq`, the proposal and the undoable history.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from server.games.views import apply_patch, state_patch
from server.rules.core import GameState
from server.rules.state import Proposals
from tests.rules.helpers import Game, battle

SPEARS = {"datasheet": "citizen-spears", "models": 20, "files": 5}
LOG_KEYS = ("seq", "proposal", "undoable")
"""The keys of a view that describe the log, not the game: an undo adds to the log."""


def views(state: GameState) -> dict[str, Any]:
    out = {}
    for viewer in (None, 1, 2):
        view = state.to_json(viewer)
        for key in LOG_KEYS:
            view.pop(key, None)
        out[str(viewer)] = view
    return out


def game_part(state: GameState) -> GameState:
    """The state without its record of the log (seq, undo window, batch, proposals): what the
    rules read. `derived` is a cache and never compared."""
    return state.evolve(seq=0, undoable=(), batch=(0, None), proposals=Proposals())


def facing_spears(gap: float = 14.0) -> Game:
    """Player 1's Citizen Spears (u1) and player 2's (u2) `gap` in apart, front to front, in
    the middle of the table: player 1's first Player Turn, its Charge Phase."""
    game = battle("t9a", [SPEARS], [SPEARS])
    game.put("u1", 36, 16, 0)
    game.put("u2", 36, 16 + gap, 180)
    assert (game.state.battle.active_player, game.state.battle.phase) == (1, "Charge")
    return game


Undo = list[tuple[int, int]]
"""The undos that take the action back, in order: (the seat proposing, the seq undone from)."""


def charge(outcome: str) -> Callable[[Game], Undo]:
    """Declare the charge and let player 2 Hold, which rolls the charge (`outcome`: its event).
    Each player may take back only their own actions since the other last acted: player 2
    undoes the Hold (and the roll and move it made), then player 1 the declaration."""

    def act(game: Game) -> Undo:
        declared = game.act(1, type="declare_charge", unit="u1", target="u2")
        held = game.act(2, type="charge_reaction", reaction="hold")
        assert held[-1].type == outcome
        return [(2, held[0].seq), (1, declared[0].seq)]

    return act


def move(**action: Any) -> Callable[[Game], Undo]:
    def act(game: Game) -> Undo:
        return [(1, game.act(1, type="move_unit", unit="u1", **action)[0].seq)]

    return act


def in_movement(game: Game) -> None:
    game.to_phase(1, "Movement")


CASES: dict[str, tuple[Callable[[Game], None], Callable[[Game], Undo]]] = {
    "failed charge": (lambda game: None, charge("charge_failed")),
    "charge into contact": (lambda game: None, charge("charge_succeeded")),
    "advance": (in_movement, move(manoeuvre="forward", distance=3.5)),
    "march": (in_movement, move(manoeuvre="forward", distance=7.0, mode="march")),
    "wheel": (in_movement, move(manoeuvre="wheel", degrees=30.0)),
    "pivot": (in_movement, move(manoeuvre="pivot", degrees=90.0)),
    "reform": (in_movement, move(manoeuvre="reform", files=4, facing=90.0)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_an_accepted_undo_restores_every_view_and_the_state_before_the_action(case: str) -> None:
    prepare, action = CASES[case]
    game = facing_spears(6.0 if case == "charge into contact" else 14.0)
    prepare(game)
    before_views, before_state = views(game.state), game_part(game.state)
    placement_before = game.unit("u1").placement
    undos = action(game)
    assert views(game.state) != before_views  # the action changed the game
    assert game.unit("u1").placement != placement_before  # a failed charge moves too
    client = {str(v): game.state.to_json(v) for v in (None, 1, 2)}  # what each browser holds
    for seat, seq in undos:
        (made,) = game.act(seat, type="propose", kind="undo", seq=seq)
        before_undo = game.state
        accepted = game.act(3 - seat, type="accept_proposal", id=made.payload["id"])
        assert [e.type for e in accepted] == ["proposal_accepted", "events_undone"]
        for viewer in (None, 1, 2):
            # The browser is patched from the view it had (static/js/store.js applyPatch).
            known = client[str(viewer)] if client[str(viewer)]["seq"] == before_undo.seq \
                else before_undo.to_json(viewer)
            patch = state_patch(known, game.state.to_json(viewer), before_undo.seq,
                                game.state.seq)
            client[str(viewer)] = apply_patch(known, patch)
    assert game.unit("u1").placement == placement_before
    for viewer, view in client.items():
        for key in LOG_KEYS:
            view.pop(key, None)
        assert view == before_views[viewer], f"viewer {viewer}: the patched view differs"
    assert views(game.state) == before_views
    assert dataclasses.asdict(game_part(game.state).battle) == dataclasses.asdict(
        before_state.battle)
    assert game_part(game.state).units == before_state.units
    assert game_part(game.state).charges == before_state.charges
    assert game_part(game.state).moves == before_state.moves
    assert game_part(game.state).parts == before_state.parts
    # The dice never rewind: the undone rolls stay spent (proposals.py).
    assert game.state.dice_position >= before_state.dice_position


def test_an_undone_move_can_be_made_again_the_same_way() -> None:
    """After the undo the unit has its whole allowance again: the same March is legal and ends
    where it ended the first time."""
    game = facing_spears()
    in_movement(game)
    march = {"type": "move_unit", "unit": "u1", "manoeuvre": "forward", "distance": 7.0,
             "mode": "march"}
    events = game.act(1, **march)
    first = game.unit("u1").placement
    (made,) = game.act(1, type="propose", kind="undo", seq=events[0].seq)
    game.act(2, type="accept_proposal", id=made.payload["id"])
    game.act(1, **march)
    assert game.unit("u1").placement == first
