"""Night Goblin Fanatics released by their owner in a flee (issue 15 item 2): the Fanatic page,
../shared/seeds/003_39e99837749f8d9d.txt - "Fanatics must be released when a concealing unit
comes to within 8" of the enemy or vice versa. The moving unit stops immediately ... When a
Fanatic is released, you may choose the direction in which it travels, and the point on the
concealing unit from which it starts." A flee chosen as a Charge Reaction that brings the
enemy within 8 in stops there and waits for the owner's `release_fanatic`s; after the last one
the flee goes on with the Flee Distance rolled before the stop (never rolled again), then the
charge is rolled (server/rules/resume.py). Hand-worked positions: 20 Night Goblins or Empire
Halberdiers 5 x 4 on 20 mm bases (3.94 in wide, 3.15 in deep); a Fanatic's base is 25 mm."""

from __future__ import annotations

from typing import Any

import pytest

from server import geometry as geo
from server.rules import core, resume
from server.rules.core import Event, GameState
from server.rules.resume import suspended_of
from server.rules.units import table_of, units_of
from server.rules.whfb8.fanatics import concealed_of, pending_release
from tests.games.test_replay import assert_every_seq_matches
from tests.rules.helpers import Game, battle
from tests.rules.t9a.scripted import ScriptedDice
from tests.rules.whfb8.positions import GOBLINS, HALBERDIERS, assert_dice_in_order, run
from tests.rules.whfb8.test_fanatics import HIDING
from tests.rules.whfb8.test_fanatics_on_the_way import _flee_towards_hiding_goblins


def _gap(state: GameState, a: str, b: str) -> float:
    table = table_of(state)
    return geo.distance(table.units[a], table.units[b]).distance


def _halted() -> tuple[GameState, list[Event]]:
    """The Halberdiers (player 2, u3, front at (36, 30) facing south) flee 6 + 4 = 10 in from
    the goblins charging their rear (u2) straight at concealing goblins (player 1, u1, front at
    (36, 14) facing north), 16 in away: they stop after 8 in."""
    state = _flee_towards_hiding_goblins(HIDING)
    return run(state, 2, [6, 4], type="charge_reaction", reaction="flee")


def test_a_flee_stops_at_8_in_and_waits_for_the_owner_to_release_the_fanatics() -> None:
    """Seed 003: "The moving unit stops immediately" and "you may choose the direction ... and
    the point on the concealing unit": the flee's events end with the stop, the release and
    what is left to do (the rest of the 10 in flee, then the charge); nothing is rolled but the
    Flee Distance, and nothing else may happen until the owner releases them."""
    state, events = _halted()
    assert [e.type for e in events] == ["charge_reaction", "move_halted", "fanatics_revealed",
                                        "resolution_suspended", "resolution_suspended"]
    assert events[1].payload["moved"] == pytest.approx(8.0, abs=1e-3)
    assert _gap(state, "u1", "u3") == pytest.approx(8.0, abs=1e-3)
    frames = suspended_of(state)
    assert [f["kind"] for f in frames] == ["flee", "charge_after_reaction"]
    assert frames[0]["fled"]["distance"] == 10.0
    assert frames[0]["fled"]["roll"]["end"] == frames[0]["fled"]["roll"]["start"] + 2
    assert [e.payload["text"] for e in events[-2:]] == [
        "Empire Halberdiers flee on to the end of their 10 in",
        "Night Goblins (2) roll their charge against Empire Halberdiers"]
    assert pending_release(state) == ({"unit": "u1", "left": 2, "owner": 1,
                                                "interrupted": "u3"},)
    # Only the owner releases them; nothing else moves or ends meanwhile.
    with pytest.raises(core.RuleError) as err:
        run(state, 2, [], type="release_fanatic", unit="u1", point=[36.0, 14.0], facing=0.0)
    assert err.value.message == "Night Goblins (1) belongs to player 1"
    with pytest.raises(core.RuleError) as err:
        run(state, 1, [], type="end_phase")
    assert err.value.code == core.OUT_OF_PHASE
    with pytest.raises(core.RuleError) as err:
        run(state, 1, [], type="move_unit", unit="u2", manoeuvre="forward", distance=1.0)
    assert err.value.code == core.OUT_OF_PHASE
    assert "wait to be released from Night Goblins (1)" in err.value.message


def test_the_owner_releases_two_fanatics_then_the_flee_completes_and_the_charge_resolves() -> None:
    """Seed 003: the owner picks each Fanatic's start point and direction; each moves 2D6 in.
    The first from the goblins' front centre straight north 3 + 3 = 6 in (stops 1.51 in short
    of the halted Halberdiers), the second from the right front corner due east (270 deg),
    1 + 2 = 3 in. Then the flee goes on its last 2 in (the 10 in rolled before the stop) into
    the first Fanatic: "Any unit that does so takes 2D6 S 5 Armour Piercing (1) hits. The
    Fanatic model is then removed": 2 + 3 = 5 hits, 2, 2, 1, 6, 5 to wound = 4 wounds, no
    save; then the charge is rolled: 1 + 1 + M4 = 6 in, short of 16.9 in: it fails."""
    state, halted = _halted()
    rolled = halted[-2].payload["frames"][0]["fled"]["roll"]
    state, first = run(state, 1, [3, 3], type="release_fanatic", unit="u1",
                       point=[36.0, 14.0], facing=0.0)
    assert [e.type for e in first] == ["fanatic_released"]
    one = first[0].payload
    assert (one["start"], one["end"], one["distance"]) == ([36.0, 14.0], [36.0, 20.0], 6.0)
    assert "aimed_by_server" not in one and "aimed by the server" not in one["text"]
    assert pending_release(state)[0]["left"] == 1
    assert units_of(state)["u3"].placement == pytest.approx((36.0, 22.0, 180.0), abs=1e-3)

    state, events = run(state, 1, [1, 2, 2, 3, 2, 2, 1, 6, 5, 1, 1], type="release_fanatic",
                        unit="u1", point=[37.9, 14.0], facing=270.0)
    kinds = [e.type for e in events]
    assert kinds == ["fanatic_released", "resolution_resumed", "unit_fled", "fanatic_hits",
                     "attack_step", "attack_step", "hp_lost", "fanatic_removed",
                     "resolution_resumed", "charge_failed"], kinds
    two = events[0].payload
    assert two["start"] == [37.9, 14.0] and two["end"] == pytest.approx([40.9, 14.0])
    fled = events[2].payload
    assert fled["distance"] == 10.0 and fled["halted_after"] == pytest.approx(8.0, abs=1e-3)
    # The Flee Distance rolled before the stop, recorded where it stopped, not rolled again;
    # the log's rolls stay in the order they were drawn (the dice proof checks that).
    assert fled["distance_roll"] == rolled and "roll" not in fled
    assert halted[1].payload["roll"] == rolled
    assert_dice_in_order([*halted, *first, *events])
    hits = events[3].payload
    assert (hits["unit"], hits["target"], hits["hits"]) == (one["unit"]["id"], "u3", 5)
    assert events[7].payload["unit"] == one["unit"]["id"]
    charge = events[-1].payload
    assert charge["roll"]["total"] == 2 and charge["range"] == 6
    assert units_of(state)["u3"].models == 16
    assert units_of(state)["u3"].placement == pytest.approx((36.0, 20.0, 180.0), abs=1e-3)
    assert _gap(state, "u1", "u3") == pytest.approx(6.0, abs=1e-3)
    assert suspended_of(state) == () and not pending_release(state)
    assert concealed_of(state) == {}


def test_without_fanatics_the_same_flee_and_charge_are_one_step() -> None:
    """No pause ever happens without Fanatics (seed 003 releases only concealed ones): the
    same reaction with goblins hiding nothing flees its 10 in and rolls the charge at once."""
    state = _flee_towards_hiding_goblins(GOBLINS)
    state, events = run(state, 2, [6, 4, 1, 1], type="charge_reaction", reaction="flee")
    assert [e.type for e in events] == ["charge_reaction", "unit_fled", "charge_failed"]
    assert resume.Suspended not in state.parts  # nothing was ever suspended


def _scripted(game: Game, seat: int, faces: list[int], **action: Any) -> list[Event]:
    dice = ScriptedDice(faces, game.state.dice_position)
    made = game.append(core.decide(game.state, seat, action, dice))  # type: ignore[arg-type]
    assert dice.used == len(faces)
    return made


def test_undo_and_replay_of_a_halted_flee_match_the_fold_at_every_seq() -> None:
    """The halted flee, a release, its undo by agreement (the Fanatic and its dice taken back,
    the flee still waiting), the releases again and the resumed flee and charge: the state at
    every seq is the fold of the log up to it (issue 20's replays), whatever the checkpoints."""
    game = battle("whfb8", [HIDING, GOBLINS], [HALBERDIERS])
    game.put("u1", 36.0, 14.0, 0.0)
    game.put("u2", 36.0, 40.0, 180.0)
    game.put("u3", 36.0, 30.0, 180.0)
    game.to_phase(1, "Movement")
    _scripted(game, 1, [], type="declare_charge", unit="u2", target="u3")
    _scripted(game, 2, [6, 4], type="charge_reaction", reaction="flee")
    waiting = game.state
    released = _scripted(game, 1, [3, 3], type="release_fanatic", unit="u1",
                         point=[36.0, 14.0], facing=0.0)
    # The releasing player proposes taking back their own release (the undo rule:
    # docs/rules-decisions.md "By agreement"); the opponent accepts.
    (made,) = game.act(1, type="propose", kind="undo", seq=released[0].seq)
    game.act(2, type="accept_proposal", id=made.payload["id"])
    assert core.needs_replay(game.log)
    for part in (pending_release, suspended_of, units_of):
        assert part(game.state) == part(waiting)
    _scripted(game, 1, [3, 3], type="release_fanatic", unit="u1", point=[36.0, 14.0],
              facing=0.0)
    done = _scripted(game, 1, [1, 2, 2, 3, 2, 2, 1, 6, 5, 1, 1], type="release_fanatic",
                     unit="u1", point=[37.9, 14.0], facing=270.0)
    assert [e.type for e in done][-1] == "charge_failed"
    assert suspended_of(game.state) == ()
    assert_dice_in_order(game.log, 0)
    n = game.state.seq
    for every in (1, 3, 16):
        assert_every_seq_matches(game.log, every, [*range(n, -1, -1), *range(n + 1)])


# --- a lost combat: the flee and the pursuit ------------------------------------------------------


def _lost_combat(loser: str) -> tuple[GameState, list[Event]]:
    """Night Goblins hiding Fanatics (player 1, u1, front at (44, 14) facing north) stand 4 in
    to the side of a combat between other goblins (u2) and Halberdiers (player 2, u3) whose
    fronts meet at y = 30, the goblins' facing south when `loser` is the Halberdiers and north
    otherwise. The loser fails its Break Test (5 + 5 against Ld - 3), flees 6 + 6 = 12 in
    south, and the winner pursues; then the combat's last step (`combat_fought`). The rest of
    the combat after the Break Test is what `resolve_combat` runs (`_rest_of_combat`)."""
    from server.rules.rankandflank.events import Log
    from server.rules.rankandflank.melee import _rest_of_combat
    from tests.rules.t9a.test_combat import charged
    from tests.rules.whfb8.positions import position

    if loser == "u3":  # the goblins charged the Halberdiers from the north
        places = {"u1": (44.0, 14.0, 0.0), "u2": (36.0, 40.0, 180.0), "u3": (36.0, 30.0, 0.0)}
        charger, winner = "u2", "u2"
    else:  # the Halberdiers charged the goblins from the north
        places = {"u1": (44.0, 14.0, 0.0), "u2": (36.0, 30.0, 0.0), "u3": (36.0, 40.0, 180.0)}
        charger, winner = "u3", "u3"
    state = position([HIDING, GOBLINS], [HALBERDIERS], places)
    state = charged(state, charger, loser)
    log = Log(state, resumable=True)
    dice = ScriptedDice([5, 5, 6, 6] + ([6, 5] if loser == "u2" else []), state.dice_position)
    _rest_of_combat(log, {"kind": "combat", "combat": ["u2", "u3"], "names": "the fight",
                          "difference": 3, "winners": [winner], "enemy_ranks": 4,
                          "losers": [loser], "destroyed": []}, dice)
    return log.state, log.events


def test_a_pursuit_stops_at_8_in_waits_for_the_owner_and_then_the_combat_ends() -> None:
    """Seed 003, "in any move": the Halberdiers pursue the broken goblins 6 + 5 = 11 in south
    and come within 8 in of the concealing goblins 4.06 in to the side after 9.11 in: they stop
    there and the owner (player 1) releases the Fanatics (one due west, 3 + 3 = 6 in, one due
    east, 2 + 1 = 3 in); then the pursuit goes on to the end of its 11 in (10.9 in: short of
    the fled goblins by Unit Spacing; Pursue Distance rolled before the stop) and the combat's
    round ends. Meanwhile no combat may be fought."""
    state, events = _lost_combat("u2")
    log = list(events)
    kinds = [e.type for e in events]
    assert kinds == ["break_test", "unit_broke", "unit_fled", "move_halted",
                     "fanatics_revealed", "resolution_suspended", "resolution_suspended"], kinds
    assert events[3].payload["unit"] == "u3"
    assert events[3].payload["moved"] == pytest.approx(9.1085, abs=1e-3)
    assert [f["kind"] for f in suspended_of(state)] == ["pursuit", "combat"]
    assert suspended_of(state)[0]["pursued"]["distance"] == 11.0
    with pytest.raises(core.RuleError) as err:
        run(state, 1, [], type="fight_combat", unit="u2")
    assert "Empire Halberdiers pursue on to the end of their 11 in" in err.value.message
    state, first = run(state, 1, [3, 3], type="release_fanatic", unit="u1", point=[42.1, 14.0],
                       facing=90.0)
    state, events = run(state, 1, [2, 1], type="release_fanatic", unit="u1",
                        point=[45.9, 14.0], facing=270.0)
    assert [e.type for e in events] == ["fanatic_released", "resolution_resumed",
                                        "unit_pursued", "resolution_resumed", "combat_fought"]
    assert_dice_in_order([*log, *first, *events])
    pursued = events[2].payload
    assert (pursued["distance"], pursued["moved"], pursued["caught"]) == (11.0, 10.9, False)
    assert pursued["halted_after"] == pytest.approx(9.1085, abs=1e-3)
    assert units_of(state)["u3"].placement == pytest.approx((36.0, 19.1, 180.0), abs=1e-3)
    assert suspended_of(state) == () and not pending_release(state)


def test_a_flee_from_a_lost_combat_stops_at_8_in_then_panic_tests_and_the_pursuit_follow() -> None:
    """Seed 003, "in any move": the Halberdiers break and flee 12 in south; after 5.96 in they
    come within 8 in of the concealing goblins, stop, and wait for the owner's releases. Then
    the rest, in order: the flee to its 12 in, the Panic Tests of friends it fled through (the
    goblins it fled through are enemies: none), the Panic Tests for the unit breaking (no
    friend within 6 in), the winner's pursuit (1 + 1 = 2 in, short of 12 in), the round's
    end."""
    state, events = _lost_combat("u3")
    assert [e.type for e in events][:5] == ["break_test", "unit_broke", "move_halted",
                                            "fanatics_revealed", "resolution_suspended"]
    assert [f["kind"] for f in suspended_of(state)] == [
        "flee", "panic_through", "broke", "combat"]
    state, _ = run(state, 1, [3, 3], type="release_fanatic", unit="u1", point=[42.1, 14.0],
                   facing=90.0)
    state, events = run(state, 1, [2, 1, 1, 1], type="release_fanatic", unit="u1",
                        point=[45.9, 14.0], facing=270.0)
    assert [e.type for e in events] == [
        "fanatic_released", "resolution_resumed", "unit_fled", "resolution_resumed",
        "resolution_resumed", "unit_pursued", "resolution_resumed", "combat_fought"]
    assert events[2].payload["distance"] == 12.0
    assert events[5].payload["distance"] == 2.0 and events[5].payload["flee_distance"] == 12.0
    assert units_of(state)["u3"].placement == pytest.approx((36.0, 14.8504, 180.0), abs=1e-3)
    assert "fleeing" in units_of(state)["u3"].markers
    assert suspended_of(state) == ()


def test_a_panic_flee_after_shooting_stops_at_8_in_and_waits_for_the_owner() -> None:
    """Seed 003, "in any move": Handgunners (player 1) shoot 5 of 20 Halberdiers dead (6s to
    hit and wound, no save), a quarter of them: the Halberdiers take a Panic Test (6 + 6
    against Ld 7), fail and flee 6 + 5 = 11 in away from the shooters, towards concealing
    goblins 9.35 in behind them: they stop within 8 in, the owner releases both Fanatics, and
    only then does the flee go on (11 in, rolled before the stop). No unit shoots meanwhile."""
    from server.data import load_catalog
    from tests.rules.whfb8.positions import HANDGUNNERS, position

    # An army is of one Army Book (issue 18): the goblins' shooters are a unit of your own
    # with the Handgunners' profile (the catalogue has no Night Goblin shooters).
    sheet = load_catalog().get("whfb8", HANDGUNNERS["datasheet"]).model_dump(mode="json")
    writable = ("base", "models", "default_files", "profile", "equipment", "special_rules",
                "keywords", "points")
    shooters = {"ref": "goblin-handgunners", "name": "Goblin Handgunners",
                **{k: sheet[k] for k in writable if sheet.get(k) is not None}}
    shooters["profile"] = {k: v for k, v in shooters["profile"].items() if k != "system"}
    state = position([HIDING, {**HANDGUNNERS, "datasheet": "goblin-handgunners"}], [HALBERDIERS],
                     {"u1": (36.0, 32.5, 180.0), "u2": (36.0, 10.0, 0.0),
                      "u3": (36.0, 20.0, 180.0)}, phase="Shooting", own_units1=[shooters])
    state, events = run(state, 1, [6] * 10 + [6, 6, 6, 5], type="shoot", unit="u2",
                        target="u3")
    kinds = [e.type for e in events]
    assert kinds[-6:] == ["panic_test", "unit_broke", "move_halted", "fanatics_revealed",
                          "resolution_suspended", "resolution_suspended"], kinds
    assert _gap(state, "u1", "u3") == pytest.approx(8.0, abs=1e-3)
    with pytest.raises(core.RuleError):
        run(state, 1, [], type="shoot", unit="u2", target="u3")
    state, _ = run(state, 1, [1, 1], type="release_fanatic", unit="u1", point=[34.1, 32.5],
                   facing=90.0)
    state, events = run(state, 1, [1, 2], type="release_fanatic", unit="u1", point=[37.9, 32.5],
                        facing=270.0)
    assert [e.type for e in events] == ["fanatic_released", "resolution_resumed", "unit_fled",
                                        "resolution_resumed"]
    assert events[2].payload["distance"] == 11.0
    assert suspended_of(state) == () and "fleeing" in units_of(state)["u3"].markers


def test_a_failed_rally_tests_flee_at_the_turns_start_waits_for_the_owner() -> None:
    """Seed 003, "in any move": as player 2's turn begins, fleeing Halberdiers fail their
    Rally Test (6 + 6 against Ld 7) and flee 5 + 4 = 9 in away from the nearest enemy (goblins
    1.35 in behind them), straight at concealing goblins 8.5 in ahead: they stop after 0.5 in.
    The turn's start waits (the other Rally Tests, the other start-of-turn rules, the phase's
    start) until the owner (player 1, in player 2's turn) has released both Fanatics; then the
    flee goes on (the 9 in rolled before the stop, through the goblins and clear of them)."""
    from tests.rules.whfb8.positions import position, with_units

    state = position([HIDING, GOBLINS], [HALBERDIERS],
                     {"u1": (36.0, 14.0, 0.0), "u2": (36.0, 27.0, 180.0),
                      "u3": (36.0, 22.5, 180.0)}, phase="Close Combat")
    state = with_units(state, u3={"markers": ("fleeing",)})
    state, events = run(state, 1, [6, 6, 5, 4], type="end_phase")
    assert [e.type for e in events] == [
        "phase_ended", "rally_failed", "move_halted", "fanatics_revealed",
        "resolution_suspended", "resolution_suspended", "resolution_suspended"]
    assert (state.battle.active_player, state.battle.phase) == (2, "Start")
    assert [f["kind"] for f in suspended_of(state)] == ["flee", "rally", "turn_start"]
    with pytest.raises(core.RuleError):
        run(state, 2, [], type="end_phase")
    state, _ = run(state, 1, [1, 1], type="release_fanatic", unit="u1", point=[34.1, 14.0],
                   facing=90.0)
    state, events = run(state, 1, [1, 2], type="release_fanatic", unit="u1",
                        point=[37.9, 14.0], facing=270.0)
    assert [e.type for e in events] == ["fanatic_released", "resolution_resumed", "unit_fled",
                                        "resolution_resumed", "resolution_resumed"]
    assert events[2].payload["distance"] == 9.0 and events[2].payload["reason"] == (
        "failed Rally Test")
    assert units_of(state)["u3"].placement == pytest.approx((36.0, 6.7, 180.0), abs=1e-3)
    assert suspended_of(state) == ()
    state, _ = run(state, 2, [], type="end_phase")  # the turn goes on


def test_a_flee_that_comes_within_8_in_of_a_second_concealing_unit_stops_again() -> None:
    """Seed 003, "when a concealing unit comes to within 8" of the enemy": the Halberdiers flee
    6 + 6 = 12 in south; after 4.71 in they come within 8 in of goblins off to the side (u1)
    and stop; after those two Fanatics, the rest of the flee comes within 8 in of goblins
    straight ahead (u2) after 5.29 in more (10 in in all) and stops again; after those two,
    the flee ends its 12 in and the charge is rolled (1 + 1 + M4 = 6 in: it fails)."""
    from tests.rules.whfb8.positions import position

    state = position([HIDING, HIDING, GOBLINS], [HALBERDIERS],
                     {"u1": (45.94, 20.0, 0.0), "u2": (36.0, 12.0, 0.0),
                      "u3": (36.0, 40.0, 180.0), "u4": (36.0, 30.0, 180.0)}, phase="Movement")
    state, _ = run(state, 1, [], type="declare_charge", unit="u3", target="u4")
    state, events = run(state, 2, [6, 6], type="charge_reaction", reaction="flee")
    assert events[1].payload["moved"] == pytest.approx(4.71, abs=0.01)
    assert events[2].payload["unit"] == "u1"
    state, _ = run(state, 1, [1, 1], type="release_fanatic", unit="u1", point=[47.84, 20.0],
                   facing=270.0)
    state, events = run(state, 1, [1, 2], type="release_fanatic", unit="u1",
                        point=[47.84, 18.0], facing=270.0)
    assert [e.type for e in events] == ["fanatic_released", "resolution_resumed", "move_halted",
                                        "fanatics_revealed", "resolution_suspended"]
    assert events[2].payload["moved"] == pytest.approx(5.29, abs=0.01)
    assert events[3].payload["unit"] == "u2"
    assert [f["kind"] for f in suspended_of(state)] == ["flee", "charge_after_reaction"]
    assert _gap(state, "u2", "u4") == pytest.approx(8.0, abs=1e-3)
    state, _ = run(state, 1, [1, 1], type="release_fanatic", unit="u2", point=[34.1, 12.0],
                   facing=90.0)
    state, events = run(state, 1, [1, 2, 1, 1], type="release_fanatic", unit="u2",
                        point=[37.9, 12.0], facing=270.0)
    assert [e.type for e in events] == ["fanatic_released", "resolution_resumed", "unit_fled",
                                        "resolution_resumed", "charge_failed"]
    assert events[2].payload["distance"] == 12.0
    assert events[2].payload["halted_after"] == pytest.approx(10.0, abs=1e-3)
    assert events[2].payload["distance_roll"]["total"] == 12
    assert units_of(state)["u4"].placement == pytest.approx((36.0, 18.0, 180.0), abs=1e-3)
    assert suspended_of(state) == ()


def test_undo_and_replay_of_a_combat_waiting_for_fanatics_match_the_fold_at_every_seq() -> None:
    """A real charge (goblins 3 in from the Halberdiers' front, 1 + 1 + M4 in), then the rest
    of the combat after its strikes (`_rest_of_combat`, as `fight_combat` runs it): the
    Halberdiers break, flee and stop at 8 in of the concealing goblins; the owner's releases,
    the last one undone by agreement and made again, then the flee, the pursuit and the
    round's end: the state at every seq is the fold of the log up to it."""
    from server.rules.rankandflank.events import Log
    from server.rules.rankandflank.melee import _rest_of_combat

    game = battle("whfb8", [HIDING, GOBLINS], [HALBERDIERS])
    game.put("u1", 44.0, 14.0, 0.0)
    game.put("u2", 36.0, 33.0, 180.0)
    game.put("u3", 36.0, 30.0, 0.0)
    game.to_phase(1, "Movement")
    _scripted(game, 1, [], type="declare_charge", unit="u2", target="u3")
    charged = _scripted(game, 2, [1, 1], type="charge_reaction", reaction="hold")
    assert charged[-1].type == "charge_succeeded"
    game.to_phase(1, "Close Combat")
    log = Log(game.state, resumable=True)
    _rest_of_combat(log, {"kind": "combat", "combat": ["u2", "u3"], "names": "the fight",
                          "difference": 3, "winners": ["u2"], "enemy_ranks": 4,
                          "losers": ["u3"], "destroyed": []},
                    ScriptedDice([5, 5, 6, 6], game.state.dice_position))
    game.append(log.events)
    assert [f["kind"] for f in suspended_of(game.state)] == [
        "flee", "panic_through", "broke", "combat"]
    _scripted(game, 1, [3, 3], type="release_fanatic", unit="u1", point=[42.1, 14.0],
              facing=90.0)
    waiting = game.state
    last = _scripted(game, 1, [2, 1, 1, 1], type="release_fanatic", unit="u1",
                     point=[45.9, 14.0], facing=270.0)
    assert last[-1].type == "combat_fought"
    # The releasing player proposes taking back their own release (the undo rule:
    # docs/rules-decisions.md "By agreement"); the opponent accepts.
    (made,) = game.act(1, type="propose", kind="undo", seq=last[0].seq)
    game.act(2, type="accept_proposal", id=made.payload["id"])
    for part in (pending_release, suspended_of, units_of):
        assert part(game.state) == part(waiting)
    again = _scripted(game, 1, [2, 1, 1, 1], type="release_fanatic", unit="u1",
                      point=[45.9, 14.0], facing=270.0)
    assert [e.type for e in again] == [e.type for e in last]
    assert_dice_in_order(game.log, 0)
    n = game.state.seq
    for every in (1, 5, 16):
        assert_every_seq_matches(game.log, every, [*range(n, -1, -1), *range(n + 1)])


# --- a Panic flee caused by Stand and Shoot ------------------------------------------------------


def _goblin_shooters() -> dict[str, Any]:
    """An army is of one Army Book (issue 18): the goblins' shooters are a unit of your own
    with the Handgunners' profile (the catalogue has no Night Goblin shooters)."""
    from server.data import load_catalog
    from tests.rules.whfb8.positions import HANDGUNNERS

    sheet = load_catalog().get("whfb8", HANDGUNNERS["datasheet"]).model_dump(mode="json")
    writable = ("base", "models", "default_files", "profile", "equipment", "special_rules",
                "keywords", "points")
    shooters = {"ref": "goblin-handgunners", "name": "Goblin Handgunners",
                **{k: sheet[k] for k in writable if sheet.get(k) is not None}}
    shooters["profile"] = {k: v for k, v in shooters["profile"].items() if k != "system"}
    return shooters


def test_a_panic_flee_caused_by_stand_and_shoot_waits_for_the_owner_then_the_charge_is_abandoned(
) -> None:
    """Seed 003, "in any move", and "When a Fanatic is released, you may choose the direction
    in which it travels, and the point on the concealing unit from which it starts": 20 Empire
    Halberdiers (player 2, u3, front at (36, 20) facing south) charge Goblin Handgunners
    (player 1, u2, front at (36, 10) facing north) 10 in away; the Handgunners Stand and Shoot
    (5 shots, 6s to hit and to wound: 5 dead, no save), a quarter of the Halberdiers: they
    take a Panic Test (6 + 6 against Ld 7), fail and flee 6 + 5 = 11 in away from the
    shooters, north towards goblins concealing two Fanatics (u1, front at (36, 32.5) facing
    south) 10.14 in behind them (15 models, three ranks of 0.79 in): they stop after 2.14 in,
    within 8 in. Nothing is aimed by the
    server: the owner (player 1, in player 2's turn) releases one Fanatic west from the
    goblins' left front corner, 1 + 1 = 2 in, and one east from the right, 1 + 2 = 3 in; then
    the flee goes on to the end of its 11 in (rolled before the stop, never again), the Panic
    Tests of friends it fled through (none: the goblins are enemies), and the charge is
    abandoned: the chargers fled. The log's rolls are in the order drawn and the state at
    every seq is the fold of the log up to it."""
    from tests.rules.whfb8.positions import HANDGUNNERS

    game = Game("whfb8")
    game.act(1, type="submit_army", units=[HIDING, {**HANDGUNNERS,
                                                    "datasheet": "goblin-handgunners"}],
             own_units=[_goblin_shooters()])
    game.act(2, type="submit_army", units=[HALBERDIERS])
    game.act(1, type="deploy_unit", unit="u1", x=10, y=6)
    game.act(2, type="deploy_unit", unit="u3", x=10, y=42, facing=180)
    game.act(1, type="deploy_unit", unit="u2", x=25, y=6)
    assert game.state.battle.stage == "battle"
    game.put("u1", 36.0, 32.5, 180.0)
    game.put("u2", 36.0, 10.0, 0.0)
    game.put("u3", 36.0, 20.0, 180.0)
    game.to_phase(2, "Movement")
    _scripted(game, 2, [], type="declare_charge", unit="u3", target="u2")
    halted = _scripted(game, 1, [6] * 10 + [6, 6, 6, 5], type="charge_reaction",
                       reaction="stand_and_shoot")
    kinds = [e.type for e in halted]
    assert kinds[:2] == ["charge_reaction", "shots_fired"], kinds
    assert kinds[-8:] == ["heavy_casualties", "panic_test", "unit_broke", "move_halted",
                          "fanatics_revealed", "resolution_suspended", "resolution_suspended",
                          "resolution_suspended"], kinds
    assert "fanatic_released" not in kinds and "charge_abandoned" not in kinds
    assert halted[-5].payload["moved"] == pytest.approx(2.1378, abs=1e-3)
    assert _gap(game.state, "u1", "u3") == pytest.approx(8.0, abs=1e-3)
    frames = suspended_of(game.state)
    assert [f["kind"] for f in frames] == ["flee", "panic_through", "charge_after_reaction"]
    assert frames[0]["fled"]["distance"] == 11.0
    assert frames[2]["reaction"] == "stand_and_shoot"
    assert pending_release(game.state) == ({"unit": "u1", "left": 2, "owner": 1,
                                                     "interrupted": "u3"},)
    # Nothing else happens until the owner has released them.
    assert game.refused(2, type="end_phase").code == core.OUT_OF_PHASE

    first = _scripted(game, 1, [1, 1], type="release_fanatic", unit="u1", point=[34.1, 32.5],
                      facing=90.0)
    assert [e.type for e in first] == ["fanatic_released"]
    one = first[0].payload
    assert one["start"] == [34.1, 32.5] and one["end"] == pytest.approx([32.1, 32.5])
    assert "aimed_by_server" not in one and "aimed by the server" not in one["text"]
    done = _scripted(game, 1, [1, 2], type="release_fanatic", unit="u1", point=[37.9, 32.5],
                     facing=270.0)
    assert [e.type for e in done] == ["fanatic_released", "resolution_resumed", "unit_fled",
                                      "resolution_resumed", "resolution_resumed",
                                      "charge_abandoned"]
    two = done[0].payload
    assert two["start"] == [37.9, 32.5] and two["end"] == pytest.approx([40.9, 32.5])
    fled = done[2].payload
    assert fled["distance"] == 11.0 and fled["halted_after"] == pytest.approx(2.1378, abs=1e-3)
    assert fled["distance_roll"] == frames[0]["fled"]["roll"] and "roll" not in fled
    abandoned = done[-1].payload
    assert (abandoned["unit"], abandoned["target"]) == ("u3", "u2")
    assert abandoned["text"] == ("Empire Halberdiers do not charge: they flee after Goblin "
                                 "Handgunners' Stand and Shoot")
    assert "fleeing" in units_of(game.state)["u3"].markers
    assert suspended_of(game.state) == () and not pending_release(game.state)
    assert concealed_of(game.state) == {}
    assert "charged" not in game.state.moves.phase.get("u3", {})
    assert_dice_in_order([*halted, *first, *done])
    assert_dice_in_order(game.log, 0)
    n = game.state.seq
    for every in (1, 4, 16):
        assert_every_seq_matches(game.log, every, [*range(n, -1, -1), *range(n + 1)])


def test_a_flee_reaction_through_friends_that_waits_is_followed_by_their_panic_tests() -> None:
    """FACTS Panic ("when fleeing friends pass through") with seed 003's stop at 8 in: the
    Halberdiers (u3, front at (36, 30) facing south) flee 6 + 4 = 10 in from goblins charging
    their rear (u2), through other Halberdiers (u4, front at (36, 25)), towards concealing
    goblins (u1, front at (36, 14) facing north): they stop after 8 in. After the owner's two
    releases (sideways, 1 + 1 and 1 + 2 in) the flee ends its 10 in, the Halberdiers it fled
    through take their Panic Test (3 + 3 against Ld 7: passed), then the charge is rolled
    (1 + 1 + M4 = 6 in, short of 16.85 in: it fails)."""
    from tests.rules.whfb8.positions import position

    state = position([HIDING, GOBLINS], [HALBERDIERS, HALBERDIERS],
                     {"u1": (36.0, 14.0, 0.0), "u2": (36.0, 40.0, 180.0),
                      "u3": (36.0, 30.0, 180.0), "u4": (36.0, 25.0, 180.0)}, phase="Movement")
    state, _ = run(state, 1, [], type="declare_charge", unit="u2", target="u3")
    state, halted = run(state, 2, [6, 4], type="charge_reaction", reaction="flee")
    assert [e.type for e in halted] == ["charge_reaction", "move_halted", "fanatics_revealed",
                                        "resolution_suspended", "resolution_suspended",
                                        "resolution_suspended"]
    assert halted[1].payload["moved"] == pytest.approx(8.0, abs=1e-3)
    frames = suspended_of(state)
    assert [f["kind"] for f in frames] == ["flee", "panic_through", "charge_after_reaction"]
    assert frames[1]["crossed"] == ["u4"]
    state, first = run(state, 1, [1, 1], type="release_fanatic", unit="u1", point=[34.1, 14.0],
                       facing=90.0)
    state, events = run(state, 1, [1, 2, 3, 3, 1, 1], type="release_fanatic", unit="u1",
                        point=[37.9, 14.0], facing=270.0)
    assert [e.type for e in events] == ["fanatic_released", "resolution_resumed", "unit_fled",
                                        "resolution_resumed", "panic_test", "resolution_resumed",
                                        "charge_failed"]
    assert events[2].payload["passed_through"] == ["u4"]
    panic = events[4].payload
    assert (panic["unit"], panic["cause"], panic["passed"]) == ("u4", "u3", True)
    assert events[-1].payload["range"] == 6
    assert_dice_in_order([*halted, *first, *events])
    assert suspended_of(state) == ()
