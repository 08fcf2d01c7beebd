"""By agreement (issue 4 item 7, server/rules/proposals.py): a free move or an undo happens only
when the opponent accepts; undo appends `events_undone` and the state becomes the fold of the
log without the undone events (`core.replay`), while the dice never rewind.

Set-up as in test_charge_reactions: player 1's Citizen Spears u1 at (36, 27) facing 0, player
2's Citizen Spears u2 at (36, 30) facing 180 (3.937 in wide, 3.1496 in deep).
"""

from __future__ import annotations

from typing import Any

import pytest

from server import dice
from server.rules import core
from tests.rules.helpers import SEED, Game, battle

SPEARS = {"datasheet": "citizen-spears", "models": 20, "files": 5}


def close() -> Game:
    game = battle("t9a", [SPEARS], [SPEARS])
    game.put("u1", 36, 27, 0)
    game.put("u2", 36, 30, 180)
    return game


def view(game: Game) -> dict[str, Any]:
    """What a player sees, less the seq and the proposal bookkeeping."""
    out = game.state.to_json(1)
    for key in ("seq", "proposal", "undoable"):
        out.pop(key)
    return out


def test_undo_of_the_last_action_restores_the_state_but_not_the_dice() -> None:
    """Player 2 reacts (Hold) and the charge is rolled; player 2 proposes to undo that whole
    action (from the seq of its first event), player 1 accepts: the charge waits for its
    reaction again, and the next roll starts where the undone one ended."""
    game = close()
    game.act(1, type="declare_charge", unit="u1", target="u2")
    before, position = view(game), game.state.dice_position
    events = game.act(2, type="charge_reaction", reaction="hold")
    rolled_to = game.state.dice_position
    assert rolled_to > position
    (made,) = game.act(2, type="propose", kind="undo", seq=events[0].seq)
    assert [{k: e[k] for k in ("seq", "type")} for e in made.payload["undo"]["events"]] == [
        {"seq": e.seq, "type": e.type} for e in events
    ]
    assert made.payload["undo"]["events"][0]["text"] == "Citizen Spears (2): Hold"
    assert game.refused(2, type="accept_proposal").code == "out_of_phase"  # not your own
    accepted = game.act(1, type="accept_proposal", id=made.payload["id"])
    assert [e.type for e in accepted] == ["proposal_accepted", "events_undone"]
    assert accepted[1].payload["seqs"] == [e.seq for e in events]
    assert view(game) == before
    assert game.state.dice_position == rolled_to  # never rewound
    assert game.state.to_json()["pending_charge"]["target"] == "u2"
    # The events stay in the log; a new reaction rolls fresh dice.
    assert [e.seq for e in game.log[-5:-3]] == [e.seq for e in events]
    again = game.act(2, type="charge_reaction", reaction="hold")
    assert again[-1].payload["roll"]["start"] == rolled_to


def test_every_roll_of_a_log_with_an_undo_still_verifies() -> None:
    """`warfield verify-dice` checks every roll of the log, undone ones included, from position
    0 without gaps: an undo rewinds nothing, so the stream stays contiguous."""
    game = close()
    game.act(1, type="declare_charge", unit="u1", target="u2")
    events = game.act(2, type="charge_reaction", reaction="flee")
    game.act(2, type="propose", kind="undo", seq=events[0].seq)
    game.act(1, type="accept_proposal")
    game.act(2, type="charge_reaction", reaction="hold")
    rolls = [r for e in game.log for r in core.rolls_of(e.payload)]
    # Flee 2D6 and charge 2D6 (undone, still in the log), then the new charge 2D6.
    assert [r["start"] for r in rolls] == [0, 2, 4]
    report = dice.verify(SEED, dice.commitment(SEED), rolls)
    assert report, report.first_failure()


def test_undo_without_seq_takes_back_the_last_event() -> None:
    game = close()
    game.act(1, type="end_phase")
    before = view(game)
    game.act(1, type="move_unit", unit="u1", manoeuvre="backward", distance=2)
    (made,) = game.act(1, type="propose", kind="undo")
    assert made.payload["description"] == "undo 1 event (Unit moved: Citizen Spears (1))"
    game.act(2, type="accept_proposal")
    assert view(game) == before
    assert game.state.to_json()["units"]["u1"]["moved"] == {}


def test_replay_without_undo_is_the_fold() -> None:
    game = close()
    game.act(1, type="declare_charge", unit="u1", target="u2")
    game.act(2, type="charge_reaction", reaction="flee")
    folded = core.fold_all(core.GameState(), game.log)
    assert core.replay(game.log) == folded


@pytest.mark.parametrize(
    ("seq", "rule"),
    [
        (1, "Undo"),  # game_created / seat claims: never undone
        (10_000, "Undo"),  # past the end of the log
    ],
)
def test_undo_limits(seq: int, rule: str) -> None:
    game = close()
    game.act(1, type="end_phase")
    err = game.refused(1, type="propose", kind="undo", seq=seq)
    assert (err.code, err.details["rule"]) == ("illegal_move", rule)


def test_nothing_to_undo_after_the_seats() -> None:
    game = Game()
    err = game.refused(1, type="propose", kind="undo")
    assert err.code == "illegal_move" and "nothing to undo" in err.message


def test_one_open_proposal_decline_and_withdraw() -> None:
    game = close()
    game.act(1, type="end_phase")
    (made,) = game.act(1, type="propose", kind="undo")
    err = game.refused(2, type="propose", kind="undo")
    assert err.details["rule"] == "One Proposal at a Time"
    (declined,) = game.act(2, type="decline_proposal")
    assert declined.payload == {"id": made.payload["id"], "by": 2, "withdrawn": False,
                                "action_by": 2}
    assert game.state.to_json()["proposal"] is None
    assert game.state.battle.phase == "Movement"  # nothing happened
    game.act(1, type="propose", kind="undo")
    (withdrawn,) = game.act(1, type="decline_proposal")
    assert withdrawn.payload["withdrawn"] is True
    assert game.refused(2, type="accept_proposal").code == "out_of_phase"


def test_a_proposal_lapses_when_the_game_moves_on() -> None:
    game = close()
    game.act(1, type="end_phase")
    (made,) = game.act(1, type="propose", kind="undo")
    game.act(1, type="end_phase")  # the game moved on
    assert game.state.to_json()["proposal"]["open"] is False
    (lapsed,) = game.act(2, type="accept_proposal")
    assert lapsed.type == "proposal_lapsed" and lapsed.payload["id"] == made.payload["id"]
    assert game.state.battle.phase == "Magic"
    # A stale proposal does not block a new one: it lapses first.
    game.act(1, type="propose", kind="undo")
    game.act(1, type="end_phase")
    kinds = [e.type for e in game.act(1, type="propose", kind="undo")]
    assert kinds == ["proposal_lapsed", "proposal_made"]


def test_free_move_by_agreement() -> None:
    """A free move puts u1 anywhere on the table, not counting as its move; only the table
    edge, Impassable Terrain and overlap are checked, so base contact is allowed."""
    game = close()
    (made,) = game.act(1, type="propose", kind="free_move", unit="u1", x=50, y=20, facing=90)
    assert made.payload["free_move"]["unit_after"]["placement"] == {"x": 50, "y": 20,
                                                                     "facing": 90}
    assert game.unit("u1").placement == (36, 27, 0)  # not before it is accepted
    events = game.act(2, type="accept_proposal")
    assert [e.type for e in events] == ["proposal_accepted", "free_move"]
    assert game.unit("u1").placement == (50, 20, 90)
    assert game.state.to_json()["units"]["u1"]["moved"] == {}
    # Fronts touching (u2's front edge at y = 30): allowed by agreement.
    game.act(1, type="propose", kind="free_move", unit="u1", x=36, y=30, facing=0)
    game.act(2, type="accept_proposal")
    assert game.unit("u1").placement == (36, 30, 0)


@pytest.mark.parametrize(
    ("placement", "rule"),
    [
        ({"x": 1, "y": 20, "facing": 0}, "Battlefield Edge"),  # 3.937 wide: x from -0.97
        ({"x": 36, "y": 31, "facing": 0}, "Unit Overlap"),  # 1 in into u2
    ],
)
def test_free_move_checks(placement: dict[str, float], rule: str) -> None:
    game = close()
    err = game.refused(1, type="propose", kind="free_move", unit="u1", **placement)
    assert (err.code, err.details["rule"]) == ("illegal_move", rule)


def test_free_move_for_40k_models() -> None:
    game = battle("wh40k10", [{"datasheet": "boyz", "models": 10}],
                  [{"datasheet": "intercessor-squad", "models": 5}])
    start = game.unit("u1").positions
    moved = [[x + 10, y + 5] for x, y in start]
    game.act(2, type="propose", kind="free_move", unit="u1", positions=moved)
    game.act(1, type="accept_proposal")
    assert game.unit("u1").positions[0] == pytest.approx((start[0][0] + 10, start[0][1] + 5))
    err = game.refused(1, type="propose", kind="free_move", unit="u1", positions=[[5, 5]])
    assert err.code == "bad_request"


def test_undo_of_a_free_move_and_spectators() -> None:
    game = close()
    before = view(game)
    game.act(1, type="propose", kind="free_move", unit="u1", x=50, y=20, facing=90)
    done = game.act(2, type="accept_proposal")
    game.act(2, type="propose", kind="undo", seq=done[1].seq)
    game.act(1, type="accept_proposal")
    assert view(game) == before
    assert game.refused(None, type="propose", kind="undo").code == "forbidden"  # type: ignore[arg-type]


# --- issue 19 item 2: what an undo may take back, in words, and the dice it discards ---------


def undo_offer(game: Game, seat: int, state: core.GameState | None = None) -> dict[str, Any]:
    from server.rules.orders import orders_for

    return dict(orders_for(state or game.state, seat)["game"]["undo"])


def test_a_player_undoes_only_their_own_actions_since_the_opponent_last_acted() -> None:
    """Decision (README "Playing", docs/rules-decisions.md "By agreement"): at the start of
    player 2's turn the last action is player 1's end of their turn, so player 2 has nothing
    to take back (the issue's "Propose undo offered all of player 1's turn"); player 1 may
    propose undoing it. Once player 2 acts, player 1's actions are out of reach."""
    game = close()
    game.to_phase(2, "Charge")
    offer = undo_offer(game, 2)
    assert offer["available"] is False and "player 1 has acted" in offer["reason"]
    err = game.refused(2, type="propose", kind="undo")
    assert err.details["rule"] == "Undo"
    mine = undo_offer(game, 1)
    assert mine["available"] is True
    assert mine["undo"]["events"][0]["text"] == "End of the Melee phase (player 1)"
    game.act(2, type="end_phase")
    assert undo_offer(game, 1)["available"] is False
    assert undo_offer(game, 2)["available"] is True


def test_an_undo_starts_at_an_action_never_inside_one() -> None:
    """A Charge Reaction's batch (reaction, charge roll) is one action: an undo from its second
    event is refused, naming where the actions start."""
    game = close()
    game.act(1, type="declare_charge", unit="u1", target="u2")
    events = game.act(2, type="charge_reaction", reaction="hold")
    err = game.refused(2, type="propose", kind="undo", seq=events[1].seq)
    assert err.details["rule"] == "Undo" and err.details["starts"] == [events[0].seq]
    # Player 1's charge declaration came before player 2 acted: not player 1's to take back.
    assert game.refused(1, type="propose", kind="undo").details["rule"] == "Undo"


def test_the_undo_offer_lists_events_in_words_and_is_the_same_after_a_reload() -> None:
    """The offer names what it takes back (the events' own texts, units by name, never ids)
    and is a fold of the log: replaying the log (a reload) gives the same offer."""
    game = close()
    game.act(1, type="declare_charge", unit="u1", target="u2")
    game.act(2, type="charge_reaction", reaction="hold")
    offer = undo_offer(game, 2)
    texts = [e["text"] for e in offer["undo"]["events"]]
    assert texts[0] == "Citizen Spears (2): Hold"
    assert texts[1].startswith("Citizen Spears (1) roll ")
    assert not any(" u1" in t or " u2" in t for t in texts)
    assert offer == undo_offer(game, 2, core.replay(game.log))


def test_an_accepted_undo_shows_the_discarded_dice_and_the_roll_made_again_is_a_reroll() -> None:
    """Player 2 takes back their Hold and the charge roll it led to; the `events_undone`
    event lists the discarded charge roll (its faces) for both players; holding again rolls
    the charge anew, marked as a re-roll of the discarded one."""
    game = close()
    game.act(1, type="declare_charge", unit="u1", target="u2")
    events = game.act(2, type="charge_reaction", reaction="hold")
    rolled = events[-1].payload["roll"]
    (made,) = game.act(2, type="propose", kind="undo")
    assert made.payload["undo"]["rolls"][0]["faces"] == [d["face"] for d in rolled["dice"]]
    _, undone = game.act(1, type="accept_proposal")
    discarded = undone.payload["discarded"]
    assert [r["faces"] for r in discarded] == [[d["face"] for d in rolled["dice"]]]
    assert discarded[0]["unit_name"] == "Citizen Spears (1)"
    again = game.act(2, type="charge_reaction", reaction="hold")[-1]
    assert again.payload["reroll"]["faces"] == discarded[0]["faces"]
    assert "a re-roll: the undone roll was" in again.payload["text"]
    assert game.state.proposals.discarded_rolls == ()
    # A later roll is not a re-roll any more.
    assert core.replay(game.log).proposals.discarded_rolls == ()


def test_a_free_move_proposal_carries_the_outline_to_draw() -> None:
    """The opponent and the spectators draw the proposed position: the proposal carries the
    unit's outline there (GeoJSON), as the geometry core places it."""
    game = close()
    (made,) = game.act(1, type="propose", kind="free_move", unit="u1", x=50, y=20, facing=90)
    outline = made.payload["free_move"]["outline"]
    assert outline["type"] == "Polygon"
    xs = [p[0] for p in outline["coordinates"][0]]
    assert min(xs) == pytest.approx(50) and max(xs) == pytest.approx(50 + 3.1496, abs=0.01)
    assert game.state.to_json(None)["proposal"]["free_move"]["outline"] == outline


def test_a_reroll_is_matched_to_the_same_units_roll() -> None:
    """Player 2's Flee! is taken back (the flee roll of the fleeing Spears and the charge roll of
    the charger are discarded); Hold instead: the new charge roll is the re-roll of the charge
    roll, not of the flee roll."""
    game = close()
    game.act(1, type="declare_charge", unit="u1", target="u2")
    fled = game.act(2, type="charge_reaction", reaction="flee")
    charge = next(e for e in fled if e.type in ("charge_succeeded", "charge_failed"))
    charge_faces = [d["face"] for d in charge.payload["roll"]["dice"]]
    game.act(2, type="propose", kind="undo")
    _, undone = game.act(1, type="accept_proposal")
    assert [r["units"][0] for r in undone.payload["discarded"]] == ["u2", "u1"]
    again = game.act(2, type="charge_reaction", reaction="hold")[-1]
    assert again.payload["reroll"]["faces"] == charge_faces
    # The flee roll stays discarded with no re-roll: nobody fled this time.
    assert [r["units"][0] for r in game.state.proposals.discarded_rolls] == ["u2"]
