"""Roll-offs before the battle (issue 19 item 6; server/rules/pregame.py): who deploys first and
who takes the first turn, as each system says, every die in the log.

Sources (docs/rules-decisions.md "Roll-offs"):
- t9a, The Ninth Age (2022) Battle Setup: "The player who rolls the highest decides which player
  will be the Defender"; "Starting with the Attacker, players then take turns deploying"; "When
  one player has Deployed their whole army, that player immediately chooses who has the first
  Player Turn."
- whfb8, the 8th-edition rulebook's alternating units: a roll-off decides who sets up the first
  unit; "the players roll off to see who gets the first turn, but the player that finished
  deploying his army first is allowed to add +1 to his dice roll".
- wh40k10, core rules Only War: the roll-off's winner is the Attacker, the Defender sets up
  first; the winner of the first-turn roll-off takes the first turn.
"""

from __future__ import annotations

from typing import Any

from server.dice import DiceStream
from server.rules.core import Event
from server.rules.pregame import FIRST_TURN, roll_off
from server.rules.units import units_of
from tests.rules.helpers import Game

ARMIES: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {
    "t9a": ([{"datasheet": "citizen-spears", "models": 20},
             {"datasheet": "citizen-archers", "models": 10}],
            [{"datasheet": "mageblight-gremlin", "models": 3}]),
    "whfb8": ([{"datasheet": "empire-halberdiers", "models": 20}],
              [{"datasheet": "tomb-swarm", "models": 3},
               {"datasheet": "tomb-swarm", "models": 3}]),
}


def seed_where(check: Any) -> bytes:
    """The first of 200 seeds whose stream satisfies `check(DiceStream)`: the tests pick a
    seed for the case they need instead of assuming a face."""
    for n in range(200):
        seed = n.to_bytes(2, "big") * 16
        if check(DiceStream(seed, 0)):
            return seed
    raise AssertionError("no seed found")


def armies_in(system: str, seed: bytes) -> tuple[Game, list[Event]]:
    game = Game(system, seed=seed, pregame="roll_offs")
    first, second = ARMIES[system]
    game.act(1, type="submit_army", units=first)
    return game, game.act(2, type="submit_army", units=second)


def deploy_next(game: Game) -> list[Event]:
    seat = int(game.state.battle.deploying)
    uid = next(u.id for u in units_of(game.state).values()
               if u.owner == seat and u.status == "undeployed")
    y, facing = (6, 0) if seat == 1 else (40, 180)
    x = 12 + 16 * sum(1 for u in units_of(game.state).values()
                      if u.owner == seat and u.status == "on_table")
    return game.act(seat, type="deploy_unit", unit=uid, x=x, y=y, facing=facing)


def test_a_game_without_roll_offs_keeps_player_one_first() -> None:
    """`pregame: "fixed"` (and every log from before roll-offs): no dice, player 1 first."""
    game = Game("t9a")
    first, second = ARMIES["t9a"]
    game.act(1, type="submit_army", units=first)
    events = game.act(2, type="submit_army", units=second)
    assert [e.type for e in events][-1] == "deployment_started"
    assert not any(e.type == "roll_off" for e in game.log)
    assert game.state.battle.deploying == 1
    assert game.state.to_json(1)["pregame"]["mode"] == "fixed"


def test_t9a_the_roll_off_winner_chooses_and_the_first_to_finish_picks_the_first_turn() -> None:
    """t9a: the winner decides who is the Defender (the Attacker deploys first); Player 2,
    with one unit, finishes first and chooses at once, while Player 1 goes on deploying."""
    game, events = armies_in("t9a", bytes(32))
    rolled = next(e for e in events if e.type == "roll_off")
    winner = rolled.payload["winner"]
    faces = [r["total"] for r in rolled.payload["rolls"]]
    assert len(faces) % 2 == 0 and faces[-2] != faces[-1]
    assert winner == (1 if faces[-2] > faces[-1] else 2)
    assert all(a == b for a, b in zip(faces[:-2:2], faces[1:-2:2], strict=True))  # ties again
    assert "decides which player is the Defender" in rolled.payload["text"]
    assert game.state.battle.deploying is None
    # Nobody deploys until the winner chooses; the loser may not choose.
    assert game.refused(3 - winner, type="choose_first", first=1).code == "out_of_phase"
    offer = game.state.to_json(winner)["orders"]["game"]["choose_first"]
    assert offer["about"] == "deploy_first" and [o["first"] for o in offer["options"]] == [
        winner, 3 - winner]
    game.act(winner, type="choose_first", first=2)
    assert game.state.battle.deploying == 2
    deploy_next(game)  # Player 2's only unit: Player 2 has finished first
    assert game.state.pregame.finished_first == 2
    assert game.state.pregame.pending_choice == {"seat": 2, "about": "first_turn"}
    assert game.state.battle.deploying == 1  # Player 1 goes on deploying meanwhile
    game.act(2, type="choose_first", first=1)
    deploy_next(game)
    assert game.state.battle.stage == "deployment"
    events = deploy_next(game)
    assert any(e.type == "battle_started" for e in events)
    assert game.state.battle.stage == "battle" and game.state.battle.active_player == 1
    assert game.state.battle.first_player == 1


def test_t9a_the_battle_waits_for_a_first_turn_choice_not_yet_made() -> None:
    game, events = armies_in("t9a", bytes(32))
    winner = next(e for e in events if e.type == "roll_off").payload["winner"]
    game.act(winner, type="choose_first", first=1)
    deploy_next(game)  # Player 1: Spears
    deploy_next(game)  # Player 2: Gremlins, finished first
    deploy_next(game)  # Player 1: Archers, the last unit
    assert game.state.battle.stage == "deployment" and game.state.battle.deploying is None
    events = game.act(2, type="choose_first", first=2)
    assert [e.type for e in events][:2] == ["first_chosen", "battle_started"]
    assert game.state.battle.active_player == 2 and game.state.battle.first_player == 2


def test_whfb8_the_first_turn_roll_off_gives_plus_one_to_the_first_to_finish() -> None:
    """whfb8: +1 to the roll of the player who finished deploying first; the winner chooses."""
    game, events = armies_in("whfb8", bytes(32))
    winner = next(e for e in events if e.type == "roll_off").payload["winner"]
    game.act(winner, type="choose_first", first=1)
    deploy_next(game)  # Player 1: the Halberdiers, finished first
    assert game.state.pregame.finished_first == 1
    deploy_next(game)  # Player 2: the first Tomb Swarm
    events = deploy_next(game)  # Player 2: the last unit
    rolled = next(e for e in events if e.type == "roll_off")
    assert rolled.payload["about"] == "first_turn" and rolled.payload["bonus"] == {"1": 1}
    for scores, pair in zip(rolled.payload["rounds"], zip(*[iter(rolled.payload["rolls"])] * 2,
                                                        strict=True), strict=True):
        assert scores == {"1": pair[0]["total"] + 1, "2": pair[1]["total"]}
    last = rolled.payload["rounds"][-1]
    assert rolled.payload["winner"] == (1 if last["1"] > last["2"] else 2)
    assert game.state.pregame.pending_choice["seat"] == rolled.payload["winner"]
    game.act(rolled.payload["winner"], type="choose_first", first=2)
    assert game.state.battle.stage == "battle" and game.state.battle.active_player == 2


def test_a_tie_is_rolled_again_and_the_bonus_breaks_it() -> None:
    """A roll-off tied on the dice is won by the +1 (whfb8); without it, rolled again."""
    seed = seed_where(lambda s: s.d6() == s.d6())
    won, event = roll_off(FIRST_TURN, DiceStream(seed, 0), lambda w: "", {2: 1})
    assert won == 2 and len(event.payload["rounds"]) == 1
    won, event = roll_off(FIRST_TURN, DiceStream(seed, 0), lambda w: "")
    assert len(event.payload["rounds"]) >= 2 and "tie" in event.payload["text"]
    assert event.payload["rolls"][0]["total"] == event.payload["rolls"][1]["total"]


def test_wh40k10_the_defender_sets_up_first_and_the_roll_off_winner_goes_first() -> None:
    """40k (Only War): the winner is the Attacker, the Defender (the loser) sets up first; at
    the end a roll-off whose winner takes the first turn, and its first Command phase starts."""
    game = Game("wh40k10", seed=bytes(32), pregame="roll_offs")
    game.act(1, type="submit_army", units=[{"datasheet": "intercessor-squad", "models": 5}])
    events = game.act(2, type="submit_army", units=[{"datasheet": "boyz", "models": 10}])
    rolled = next(e for e in events if e.type == "roll_off")
    attacker = rolled.payload["winner"]
    assert "is the Attacker" in rolled.payload["text"]
    assert game.state.battle.deploying == 3 - attacker
    for _ in range(2):
        seat = int(game.state.battle.deploying)
        uid = next(u.id for u in units_of(game.state).values() if u.owner == seat)
        events = game.act(seat, type="deploy_unit", unit=uid, x=30, y=5 if seat == 1 else 39)
    rolled = next(e for e in events if e.type == "roll_off")
    assert rolled.payload["about"] == "first_turn" and rolled.payload["bonus"] == {}
    assert [e.type for e in events].index("battle_started") > [e.type for e in events].index(
        "roll_off")
    assert game.state.battle.active_player == rolled.payload["winner"]
    assert game.state.battle.phase == "Command"
