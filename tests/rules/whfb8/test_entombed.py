"""Ambushers and Entombed Beneath the Sands through the rules engine (seed 002,
../shared/seeds/002_20fe50c61f72ab35.txt, "Entombed Beneath the Sands"; FACTS.md "Dice:
scatter and artillery dice", "whfb8: Ambushers" and "Mishap table")."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import pytest

from server.dice import DiceStream
from server.rules import core
from server.rules.core import Event, RuleError
from server.rules.rankandflank.engagement import charged_this_round
from server.rules.units import units_of
from server.rules.whfb8.entombed import never_arrived_counts_as_fled
from server.rules.whfb8.entombed import pending as entombed_pending
from tests.rules.helpers import SEED, Game

SWARM = {"datasheet": "tomb-swarm", "models": 3, "files": 3}
HALBERDIERS = {"datasheet": "empire-halberdiers", "models": 20, "files": 5}


class Scripted(DiceStream):
    """The game's dice playing back D6 faces and scatter directions (thousandths of a degree)."""

    def __init__(self, faces: Iterable[int], position: int, directions: Iterable[int] = ()):
        super().__init__(SEED, position)
        self._faces = iter(faces)
        self._directions = iter(directions)

    def uniform(self, n: int) -> int:
        self.position += 1
        if n == 6:
            return next(self._faces) - 1
        return next(self._directions)


def act(game: Game, seat: int, faces: Iterable[int] = (), directions: Iterable[int] = (),
        **action: Any) -> list[Event]:
    dice = Scripted(faces, game.state.dice_position, directions)
    return game.append(core.decide(game.state, seat, action, dice))


def refused(game: Game, seat: int, **action: Any) -> RuleError:
    with pytest.raises(RuleError) as err:
        core.decide(game.state, seat, action, Scripted((), game.state.dice_position))
    return err.value


def entombed_game(swarms: int = 1, terrain: Iterable[dict[str, Any]] = (),
                  halberdiers_at: tuple[float, float] = (36.0, 42.0)) -> Game:
    """Player 1: Tomb Swarms kept Entombed; player 2: Empire Halberdiers facing south with
    their front edge at `halberdiers_at`. Game Turn 1, player 1's Start phase."""
    game = Game("whfb8")
    for piece in terrain:
        game.act(1, type="place_terrain", **piece)
    game.act(1, type="submit_army", units=[SWARM] * swarms)
    game.act(2, type="submit_army", units=[HALBERDIERS])
    mine = [u.id for u in units_of(game.state).values() if u.owner == 1]
    hal = next(u.id for u in units_of(game.state).values() if u.owner == 2)
    game.act(1, type="declare_reserve", unit=mine[0])
    game.act(2, type="deploy_unit", unit=hal, x=36, y=42, facing=180)
    for uid in mine[1:]:
        game.act(1, type="declare_reserve", unit=uid)
    assert game.state.battle.stage == "battle"
    if halberdiers_at != (36.0, 42.0):
        game.put(hal, *halberdiers_at, 180.0)
    return game


def until(game: Game, turn: int, seat: int, phase: str, faces: Iterable[int] = ()) -> list[Event]:
    """End phases until `seat`'s `phase` of game turn `turn`; `faces` feed the last change."""
    events: list[Event] = []
    for _ in range(80):
        x = game.state.battle
        if (x.turn, x.active_player, x.phase) == (turn, seat, phase):
            return events
        nxt_is_last = _next(x) == (turn, seat, phase)
        events = act(game, int(x.active_player), faces if nxt_is_last else (),
                     type="end_phase")
    raise AssertionError("never reached")


def _next(x: dict[str, Any]) -> tuple[int, int, str]:
    phases = ("Start", "Movement", "Magic", "Shooting", "Close Combat")
    i = phases.index(x.phase)
    if i + 1 < len(phases):
        return x.turn, x.active_player, phases[i + 1]
    if x.active_player == 1:
        return x.turn, 2, phases[0]
    return x.turn + 1, 1, phases[0]


def swarm(game: Game, n: int = 0) -> Any:
    return [u for u in units_of(game.state).values() if u.datasheet == "tomb-swarm"][n]


def ready(game: Game, *faces: int) -> None:
    """Game turn 2, player 1's Movement phase, after Ambushers rolls of `faces`."""
    until(game, 2, 1, "Start", faces=faces)
    until(game, 2, 1, "Movement")


def of(events: list[Event], kind: str) -> dict[str, Any]:
    return next(e.payload for e in events if e.type == kind)


# --- the Ambushers roll ---------------------------------------------------------------------------


def test_ambushers_roll_from_turn_2_a_3_arrives_and_a_2_is_delayed() -> None:
    """FACTS.md whfb8 Ambushers: "from game turn 2, D6 per unit at the start of the turn:
    1-2 delayed, 3+ arrives in Remaining Moves"."""
    game = entombed_game(swarms=2)
    first = until(game, 1, 1, "Movement")
    assert not [e for e in first if e.type == "ambush_rolled"]
    events = until(game, 2, 1, "Start", faces=[3, 2])
    rolls = [e.payload for e in events if e.type == "ambush_rolled"]
    assert [(r["roll"]["total"], r["arrives"]) for r in rolls] == [(3, True), (2, False)]
    assert rolls[0]["rule"] == "Entombed Beneath the Sands"
    assert "ambush_ready" in swarm(game, 0).markers
    assert "ambush_ready" not in swarm(game, 1).markers


def test_the_marker_is_not_placed_in_impassable_terrain_or_within_1_in_of_a_unit() -> None:
    """Seed 002: "place a small marker ... anywhere on the battlefield, but not in impassable
    terrain or within 1" of a deployed unit"."""
    rock = {"kind": "impassable", "points": [(10, 20), (14, 20), (14, 24), (10, 24)]}
    game = entombed_game(terrain=[rock])
    ready(game, 4)
    sid = swarm(game).id
    err = refused(game, 1, type="place_entombed_marker", unit=sid, x=12, y=22)
    assert err.code == "illegal_move" and "Impassable" in err.message
    # The Halberdiers' front edge is at y = 42: 1 in is still too close, 1.1 in is not.
    err = refused(game, 1, type="place_entombed_marker", unit=sid, x=36, y=41)
    assert err.code == "illegal_move" and "within 1 in" in err.message
    act(game, 1, [1, 1], type="place_entombed_marker", unit=sid, x=36, y=40.9)
    assert refused(game, 2, type="place_entombed_marker", unit=sid, x=30, y=20).code == (
        "out_of_phase"
    )


def test_a_hit_leaves_the_marker_and_the_unit_emerges_touching_it_and_may_act() -> None:
    """Seed 002: "If you roll a Hit on the scatter dice, the marker stays in place" ... "place
    the emerging unit in a legal formation such that it touches the marker, facing any
    direction" ... "If a unit emerges successfully, it may act normally this turn"."""
    game = entombed_game()
    ready(game, 3)
    sid = swarm(game).id
    events = act(game, 1, [1, 2], type="place_entombed_marker", unit=sid, x=36, y=24)
    marker = of(events, "entombed_marker")
    assert marker["hit"] and not marker["misfire"] and marker["marker"] == [36.0, 24.0]
    assert [r["expression"] for r in marker["rolls"]] == ["scatter", "artillery"]
    assert entombed_pending(game.state)[sid]["mode"] == "marker"
    # Too far from the marker: refused, nothing changes.
    err = refused(game, 1, type="emerge", unit=sid, x=36, y=20, facing=0)
    assert err.code == "illegal_move" and err.details["rule"].startswith("Entombed: the unit")
    pl = marker["suggested"]
    act(game, 1, type="emerge", unit=sid, **pl)
    unit = swarm(game)
    assert unit.status == "on_table" and "ambush_ready" not in unit.markers
    assert sid not in entombed_pending(game.state)
    # It may act normally: it still moves (its Remaining Move), but it declares no charge.
    hal = next(u.id for u in units_of(game.state).values() if u.owner == 2)
    assert refused(game, 1, type="declare_charge", unit=sid, target=hal).code == "illegal_move"
    act(game, 1, type="move_unit", unit=sid, manoeuvre="forward", distance=2)


def test_an_arrow_moves_the_marker_the_artillery_inches_in_its_direction() -> None:
    """Seed 002: "If you roll an arrow, move the marker the number, in inches, indicated by the
    artillery dice in the direction shown": arrow at 90 degrees (-x), artillery 6."""
    game = entombed_game()
    ready(game, 5)
    events = act(game, 1, [3, 3], [90_000], type="place_entombed_marker", unit=swarm(game).id,
                 x=36, y=24)
    marker = of(events, "entombed_marker")
    assert marker["direction"] == 90.0 and marker["scattered"] == 6.0
    assert marker["marker"] == pytest.approx([30.0, 24.0])


def test_a_marker_landing_on_impassable_terrain_is_put_1_in_from_its_closest_edge() -> None:
    """Seed 002: "If the marker is under a friendly unit, impassable terrain or a building,
    place it 1" away from the closest edge": (36, 24) + 4 in north = (36, 28), in the rock
    (30..40, 26..29), whose closest edge is y = 29: the marker goes to (36, 30)."""
    rock = {"kind": "impassable", "points": [(30, 26), (40, 26), (40, 29), (30, 29)]}
    game = entombed_game(terrain=[rock])
    ready(game, 6)
    events = act(game, 1, [4, 2], [0], type="place_entombed_marker", unit=swarm(game).id,
                 x=36, y=24)
    marker = of(events, "entombed_marker")
    assert marker["landed"] == pytest.approx([36.0, 28.0])
    assert marker["moved_off"] == ["ter1"] and marker["marker"] == pytest.approx([36.0, 30.0])
    # The log names the terrain in words, not by its id.
    assert "under Impassable terrain" in marker["text"] and "ter1" not in marker["text"]


def test_a_marker_under_an_enemy_lets_the_unit_emerge_in_its_front_charging() -> None:
    """Seed 002: "If the marker is under an enemy unit, you may place your unit into base
    contact with the enemy unit in their front arc; your unit will counts as charging"."""
    game = entombed_game(halberdiers_at=(36.0, 30.0))
    ready(game, 3)
    sid = swarm(game).id
    # (36, 24) + 8 in north = (36, 32): under the Halberdiers (front edge y = 30).
    events = act(game, 1, [5, 4], [0], type="place_entombed_marker", unit=sid, x=36, y=24)
    marker = of(events, "entombed_marker")
    hal = next(u.id for u in units_of(game.state).values() if u.owner == 2)
    assert marker["outcome"] == "enemy" and marker["enemy"] == hal
    err = refused(game, 1, type="emerge", unit=sid, x=36, y=30, facing=20)
    assert err.details["rule"].startswith("Entombed: base contact")
    act(game, 1, type="emerge", unit=sid, x=35, y=30, facing=0)
    assert game.state.charges.engaged[sid] == hal
    assert charged_this_round(game.state, sid)


@pytest.mark.parametrize(("face", "result"), [(1, "destroyed"), (2, "destroyed"),
                                              (3, "delayed"), (4, "delayed")])
def test_a_misfire_rolls_on_the_mishap_table(face: int, result: str) -> None:
    """Seed 002: "If you roll a misfire ... the unit does not emerge. Instead, remove the
    marker and roll on the Mishap table"; FACTS.md: 1-2 destroyed, 3-4 tries again next turn."""
    game = entombed_game()
    ready(game, 3)
    sid = swarm(game).id
    events = act(game, 1, [1, 6, face], type="place_entombed_marker", unit=sid, x=36, y=24)
    assert of(events, "entombed_marker")["misfire"]
    mishap = of(events, "entombed_mishap")
    assert mishap["result"] == result and mishap["roll"]["total"] == face
    assert sid not in entombed_pending(game.state)
    if result == "destroyed":
        assert swarm(game).status == "destroyed"
        return
    assert swarm(game).status == "ambush" and "ambush_ready" not in swarm(game).markers
    act(game, 1, type="end_phase")  # nothing left to place
    rolled = until(game, 3, 1, "Start", faces=[3])
    assert of(rolled, "ambush_rolled")["unit"] == sid  # it tries again next turn


def test_mishap_5_6_enters_from_a_random_table_edge_5_6_rolled_again() -> None:
    """FACTS.md Mishap 5-6: "it enters from a random table edge" (docs/rules-decisions.md: a
    D6, 1 south, 2 east, 3 north, 4 west, 5-6 again; rear edge on it, facing in, counts as
    moved)."""
    game = entombed_game()
    ready(game, 3)
    sid = swarm(game).id
    events = act(game, 1, [1, 6, 5, 6, 5, 2], type="place_entombed_marker", unit=sid,
                 x=36, y=24)
    mishap = of(events, "entombed_mishap")
    assert mishap["result"] == "edge" and mishap["edge"] == "east"
    assert [r["total"] for r in mishap["rolls"]] == [6, 5, 2]
    assert refused(game, 1, type="emerge", unit=sid, x=36, y=24, facing=0).code == (
        "illegal_move"
    )
    assert refused(game, 1, type="emerge", unit=sid, edge="west", **mishap["suggested"]).code \
        == "bad_request"
    act(game, 1, type="emerge", unit=sid, **mishap["suggested"])
    unit = swarm(game)
    assert unit.status == "on_table" and unit.placement[2] == 90.0
    assert refused(game, 1, type="move_unit", unit=sid, manoeuvre="forward",
                   distance=1).code == "illegal_move"


def test_no_room_at_the_marker_is_a_mishap() -> None:
    """Seed 002: "if for any reason some of the models in the unit cannot be placed, then the
    unit does not emerge": a marker in a 2 in corridor between impassable terrain."""
    walls = [{"kind": "impassable", "points": [(0, 13), (72, 13), (72, 23), (0, 23)]},
             {"kind": "impassable", "points": [(0, 25), (72, 25), (72, 34), (0, 34)]}]
    game = entombed_game(terrain=walls)
    ready(game, 3)
    events = act(game, 1, [1, 1, 3], type="place_entombed_marker", unit=swarm(game).id,
                 x=36, y=24)
    mishap = of(events, "entombed_mishap")
    assert mishap["reason"] == "no model of the unit can be placed there"
    assert mishap["result"] == "delayed"


def test_the_movement_phase_waits_for_the_units_that_can_emerge_one_at_a_time() -> None:
    """Seed 002: "If you have several units Entombed Beneath the Sands, then repeat this
    process, one unit at a time"; a unit that rolled to arrive arrives if it can."""
    game = entombed_game(swarms=2)
    ready(game, 3, 3)
    a, b = swarm(game, 0).id, swarm(game, 1).id
    assert refused(game, 1, type="end_phase").code == "out_of_phase"
    events = act(game, 1, [1, 1], type="place_entombed_marker", unit=a, x=20, y=24)
    err = refused(game, 1, type="place_entombed_marker", unit=b, x=50, y=24)
    assert err.code == "out_of_phase" and "one at a time" in err.message
    err = refused(game, 1, type="place_entombed_marker", unit=a, x=50, y=24)
    assert err.code == "out_of_phase" and "marker is down" in err.message
    assert refused(game, 1, type="end_phase").code == "out_of_phase"
    act(game, 1, type="emerge", unit=a, **of(events, "entombed_marker")["suggested"])
    events = act(game, 1, [2, 1], type="place_entombed_marker", unit=b, x=50, y=24)
    act(game, 1, type="emerge", unit=b, **of(events, "entombed_marker")["suggested"])
    act(game, 1, type="end_phase")
    assert game.state.battle.phase == "Magic"


def test_a_unit_that_never_arrives_counts_as_fled() -> None:
    """FACTS.md whfb8 Ambushers: "never arriving counts as fled"."""
    game = entombed_game()
    events = never_arrived_counts_as_fled(game.state, game.dice())
    game.append(events)
    unit = swarm(game)
    assert unit.status == "destroyed" and "fled_off_table" in unit.markers


# --- exact probabilities, by enumerating the dice through the engine ------------------------------


def test_exact_probabilities_of_emergence_on_open_ground() -> None:
    """Seed 002 with FACTS.md's dice (scatter: 2 HIT faces of 6; artillery 2, 4, 6, 8, 10,
    Misfire; Mishap 1-2 destroyed): on open ground the unit emerges exactly at the marker 5/18
    of the time, misfires 1/6, and is destroyed by the Mishap 1/18. The marker moves 0 in
    5/18, each of 2, 4, 6, 8 and 10 in 1/9, and does not come down at all (Misfire) 1/6."""
    base = entombed_game()
    ready(base, 3)
    sid = swarm(base).id
    start = base.state
    at_marker = misfire = destroyed = Fraction(0)
    moved: Counter[str] = Counter()
    for s in range(1, 7):
        for a in range(1, 7):
            for m in range(1, 7) if a == 6 else (None,):
                weight = Fraction(1, 36) * (Fraction(1, 6) if m is not None else 1)
                faces = [s, a] + ([m] if m is not None else []) + [1] * 4
                game = Game.__new__(Game)
                game.__dict__.update(base.__dict__)
                game.state, game.log = start, list(base.log)
                events = act(game, 1, faces, [45_000], type="place_entombed_marker", unit=sid,
                             x=36, y=24)
                marker = of(events, "entombed_marker")
                if marker["misfire"]:
                    misfire += weight
                    moved["misfire"] += weight  # type: ignore[assignment]
                    if swarm(game).status == "destroyed":
                        destroyed += weight
                    continue
                (cx, cy), (mx, my) = marker["chosen"], marker["marker"]
                distance = round(math.hypot(mx - cx, my - cy), 3)  # to 4 decimals
                moved[f"{distance:g}"] += weight  # type: ignore[assignment]
                if distance == 0:
                    at_marker += weight
    assert at_marker == Fraction(5, 18)
    assert misfire == Fraction(1, 6)
    assert destroyed == Fraction(1, 18)
    assert dict(moved) == {"0": Fraction(5, 18), "2": Fraction(1, 9), "4": Fraction(1, 9),
                           "6": Fraction(1, 9), "8": Fraction(1, 9), "10": Fraction(1, 9),
                           "misfire": Fraction(1, 6)}
    assert sum(moved.values()) == 1


def test_the_tomb_swarm_card_marks_entombed_automated() -> None:
    """GET /api/systems/whfb8/datasheets marks the rules this module applies (issue 14)."""
    from server.data import load_catalog

    missing = load_catalog().not_automated("whfb8", "tomb-swarm")
    assert "Entombed Beneath the Sands" not in missing
    catalog = load_catalog()
    assert catalog.rule("whfb8", "Ambushers").automated
    assert catalog.rule("whfb8", "Entombed Beneath the Sands").automated


def test_every_die_of_an_emergence_and_its_mishap_verifies_against_the_seed() -> None:
    """docs/dice.md: every recorded roll recomputes from the revealed seed, contiguously. With
    seed 13 x 32 the Tomb Swarm's marker Misfires and the Mishap sends it to a random edge:
    the scatter, artillery, Mishap and edge dice all sit in the log in the order drawn, and the
    log replays to the same state."""
    from server.dice import commitment, verify

    seed = bytes([13]) * 32
    game = Game("whfb8", seed)
    game.act(1, type="submit_army", units=[SWARM])
    game.act(2, type="submit_army", units=[HALBERDIERS])
    sid = next(u.id for u in units_of(game.state).values() if u.owner == 1)
    hal = next(u.id for u in units_of(game.state).values() if u.owner == 2)
    game.act(1, type="declare_reserve", unit=sid)
    game.act(2, type="deploy_unit", unit=hal, x=36, y=42, facing=180)
    while not (game.state.battle.phase == "Movement" and game.state.battle.active_player == 1
               and "ambush_ready" in game.unit(sid).markers):
        game.act(int(game.state.battle.active_player), type="end_phase")
    events = game.act(1, type="place_entombed_marker", unit=sid, x=20, y=20)
    mishap = of(events, "entombed_mishap")
    assert of(events, "entombed_marker")["misfire"] and mishap["result"] == "edge"
    game.act(1, type="emerge", unit=sid, **mishap["suggested"])
    rolls = [r for e in game.log for r in core.rolls_of(e.payload)]
    assert len(rolls) >= 5
    assert verify(seed, commitment(seed), rolls)
    assert core.replay(game.log) == game.state
    # The battle report tells it (issue 14: "the log reads like a battle report").
    from server.games.replay import Replay
    from server.games.report import build_report, to_markdown

    text = to_markdown(build_report("g", Replay(game.log), None, None))
    assert "marker at (20, 20), scatter and artillery dice: Misfire" in text
    assert "Mishap roll" in text and "enter from the" in text
