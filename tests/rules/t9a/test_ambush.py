"""Ambush and the Mageblight Gremlins' own rule, through the rules engine (seed 000,
../shared/seeds/000_ac64b535f31b5cdf.txt: Ambush, its figure, and "For every successfully cast
spell in the opponent's previous Magic Phase, this unit's Ambush rolls gain one instance of
Maximised")."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from server.dice import DiceStream
from server.rules import core
from server.rules.core import Event, GameState, RuleError
from server.rules.orders import orders_for
from server.rules.units import units_of
from tests.rules.test_battle import SEED, new_game

GREMLINS = {"datasheet": "mageblight-gremlin", "models": 3, "files": 3}


class ScriptedDice(DiceStream):
    """The game's dice interface playing back fixed D6 faces (for enumerating outcomes)."""

    def __init__(self, faces: Iterable[int], position: int = 0) -> None:
        super().__init__(SEED, position)
        self._faces: Iterator[int] = iter(faces)

    def uniform(self, n: int) -> int:
        assert n == 6, "only D6 faces are scripted"
        self.position += 1
        return next(self._faces) - 1


def apply(state: GameState, events: list[Event]) -> GameState:
    for e in events:
        state = core.fold(state, dataclasses.replace(e, seq=state.seq + 1))
    return state


def act(
    state: GameState, seat: int, faces: Iterable[int] | None = None, **action: Any
) -> tuple[GameState, list[Event]]:
    dice = (
        DiceStream(SEED, state.dice_position)
        if faces is None
        else ScriptedDice(faces, state.dice_position)
    )
    events = core.decide(state, seat, action, dice)
    return apply(state, events), events


def refused(state: GameState, seat: int, **action: Any) -> RuleError:
    with pytest.raises(RuleError) as err:
        core.decide(state, seat, action, DiceStream(SEED, state.dice_position))
    return err.value


def ambush_game(*, stalker: bool = False, terrain: list[dict[str, Any]] = (),
                gremlins: dict[str, Any] = GREMLINS) -> GameState:
    """Player 1: Mageblight Gremlins in Ambush (and a Daemon Stalker); player 2: Citizen
    Spears in the middle of the table. The battle starts: Game Turn 1, player 1's Charge."""
    state = new_game()
    for piece in terrain:
        state, _ = act(state, 1, type="place_terrain", **piece)
    army = [gremlins] + ([{"datasheet": "daemon-stalker", "models": 1}] if stalker else [])
    state, _ = act(state, 1, type="submit_army", units=army)
    state, _ = act(state, 2, type="submit_army",
                   units=[{"datasheet": "citizen-spears", "models": 20, "files": 5}])
    ids = {u.datasheet: u.id for u in units_of(state).values()}
    state, _ = act(state, 1, type="declare_reserve", unit=ids["mageblight-gremlin"])
    state, _ = act(state, 2, type="deploy_unit", unit=ids["citizen-spears"], x=36, y=36.5,
                   facing=180)
    if stalker:
        state, _ = act(state, 1, type="declare_reserve", unit=ids["daemon-stalker"])
    assert state.battle.stage == "battle"
    return state


def gremlins(state: GameState) -> Any:
    return next(u for u in units_of(state).values() if u.datasheet == "mageblight-gremlin")


def end_phases_until(
    state: GameState, turn: int, seat: int, phase: str, faces: Iterable[int] = ()
) -> tuple[GameState, list[Event]]:
    """End phases until `seat`'s `phase` of Game Turn `turn`; `faces` feed the dice of the
    last phase change (the ambush rolls happen as the Movement Phase starts)."""
    events: list[Event] = []
    while (state.battle.turn, state.battle.active_player, state.battle.phase) != (
        turn, seat, phase
    ):
        last = state.battle.phase == _before(phase) and state.battle.active_player == seat \
            and state.battle.turn == turn
        state, events = act(state, state.battle.active_player, list(faces) if last else None,
                            type="end_phase")
    return state, events


def _before(phase: str) -> str:
    phases = ("Charge", "Movement", "Magic", "Shooting", "Melee")
    return phases[phases.index(phase) - 1]


def rolled(events: list[Event]) -> list[dict[str, Any]]:
    return [e.payload for e in events if e.type == "ambush_rolled"]


# --- the rolls ----------------------------------------------------------------------------------


def test_no_roll_in_player_turn_1_then_one_d6_from_player_turn_2() -> None:
    """Seed 000: "From your Player Turn 2 and onwards, roll a D6 for each unit placed in Ambush
    at the start of the Movement Phase"."""
    state = ambush_game()
    state, events = end_phases_until(state, 1, 1, "Movement")
    assert rolled(events) == []
    state, _ = end_phases_until(state, 1, 1, "Melee")
    state, events = end_phases_until(state, 2, 1, "Movement", faces=[3])
    [roll] = rolled(events)
    assert roll["arrives"] and roll["roll"]["expression"] == "D6" and roll["maximised"] == 0
    assert [d["face"] for d in roll["roll"]["dice"]] == [3]
    assert "ambush_ready" in gremlins(state).markers


def test_a_2_stays_in_ambush_and_the_phase_may_end() -> None:
    state, events = end_phases_until(ambush_game(), 2, 1, "Movement", faces=[2])
    assert not rolled(events)[0]["arrives"]
    state, _ = act(state, 1, type="end_phase")
    assert gremlins(state).status == "ambush" and state.battle.phase == "Magic"


def _roll_with_spells(spells: int, faces: tuple[int, ...]) -> dict[str, Any]:
    state = ambush_game()
    state, _ = end_phases_until(state, 1, 2, "Magic")
    for i in range(spells):
        state, _ = act(state, 2, type="cast_spell", spell=f"Spell {i}", outcome="success")
    state, _ = act(state, 2, type="cast_spell", spell="Fizzle", outcome="failure")
    _, events = end_phases_until(state, 2, 1, "Movement", faces=faces)
    return rolled(events)[0]


@pytest.mark.parametrize(
    ("spells", "expected"),
    [(0, Fraction(2, 3)), (1, Fraction(8, 9)), (2, Fraction(26, 27)), (3, Fraction(80, 81))],
)
def test_spells_cast_by_the_opponent_maximise_the_roll_exactly(
    spells: int, expected: Fraction
) -> None:
    """Seed 000 (the Gremlins' rule) and FACTS.md (Maximised: one extra D6 per instance, keep
    the highest): enumerate every face of the 1 + k dice through the engine. P(3+) = 2/3,
    8/9, 26/27, 80/81; failed casts add nothing."""
    state = ambush_game()
    state, _ = end_phases_until(state, 1, 2, "Magic")
    for i in range(spells):
        state, _ = act(state, 2, type="cast_spell", spell=f"Spell {i}", outcome="success")
    state, _ = act(state, 2, type="cast_spell", spell="Fizzle", outcome="failure")
    state, _ = end_phases_until(state, 2, 1, "Charge")
    hits = 0
    for faces in product(range(1, 7), repeat=1 + spells):
        _, events = act(state, 1, faces, type="end_phase")
        [roll] = rolled(events)
        assert roll["maximised"] == spells and len(roll["roll"]["dice"]) == 1 + spells
        hits += roll["arrives"]
    assert Fraction(hits, 6 ** (1 + spells)) == expected


def test_only_the_previous_magic_phase_counts() -> None:
    """Spells of the opponent's Magic Phase two player turns ago do not count."""
    state = ambush_game()
    state, _ = end_phases_until(state, 1, 2, "Magic")
    state, _ = act(state, 2, type="cast_spell", spell="Old", outcome="success")
    state, events = end_phases_until(state, 2, 1, "Movement", faces=[1, 1])
    assert rolled(events)[0]["maximised"] == 1
    state, _ = end_phases_until(state, 2, 2, "Magic")  # player 2 casts nothing this time
    state, events = end_phases_until(state, 3, 1, "Movement", faces=[1])
    assert rolled(events)[0]["maximised"] == 0


def test_first_arrival_turn_distribution_is_exact() -> None:
    """Seed 000: rolls in Player Turns 2, 3, 4 on 3+, automatic in Player Turn 5: the first
    arrival is at Player Turn 2/3/4/5 with probability 2/3, 2/9, 2/27, 1/27 (enumerated
    through the engine, branch by branch)."""
    found: dict[int, Fraction] = {}

    def explore(state: GameState, turn: int, weight: Fraction) -> None:
        state, _ = end_phases_until(state, turn, 1, "Charge")
        if turn >= 5:
            _, events = act(state, 1, type="end_phase")
            assert rolled(events)[0]["automatic"] and rolled(events)[0]["arrives"]
            found[turn] = found.get(turn, Fraction(0)) + weight
            return
        for face in range(1, 7):
            after, events = act(state, 1, [face], type="end_phase")
            if rolled(events)[0]["arrives"]:
                found[turn] = found.get(turn, Fraction(0)) + weight / 6
            else:
                explore(after, turn + 1, weight / 6)

    explore(ambush_game(), 2, Fraction(1))
    assert found == {2: Fraction(2, 3), 3: Fraction(2, 9), 4: Fraction(2, 27), 5: Fraction(1, 27)}


# --- arriving -----------------------------------------------------------------------------------


def ready(state: GameState, turn: int = 2) -> GameState:
    state, events = end_phases_until(state, turn, 1, "Movement", faces=[6])
    assert gremlins(state).status == "ambush" and "ambush_ready" in gremlins(state).markers
    return state


def arrive(state: GameState, point: tuple[float, float], x: float, y: float,
           facing: float = 0.0) -> tuple[GameState, list[Event]]:
    return act(state, 1, type="arrive_from_ambush", unit=gremlins(state).id, point=point, x=x,
               y=y, facing=facing)


def test_the_figures_valid_arrival_counts_as_an_advance_move() -> None:
    """Seed 000 figure, the valid unit: 3 of 4 corners within 6 in of the edge point, nothing
    between; "count as having performed an Advance Move ... cannot perform any Move in the
    same Phase"."""
    state = ready(ambush_game())
    state, events = arrive(state, (36.0, 0.0), 36.0, 4.0)
    unit = gremlins(state)
    assert unit.status == "on_table" and unit.placement == (36.0, 4.0, 0.0)
    assert "arrive from Ambush" in events[0].payload["text"]
    err = refused(state, 1, type="move_unit", unit=unit.id, manoeuvre="forward", distance=1)
    assert err.code == "illegal_move" and "cannot move again" in err.message


def test_the_figures_arrival_too_far_from_the_point() -> None:
    """Seed 000 figure, right-hand unit: parts more than 6 in from the chosen point."""
    state = ready(ambush_game())
    err = refused(state, 1, type="arrive_from_ambush", unit=gremlins(state).id,
                  point=(36.0, 0.0), x=36.0, y=9.0, facing=0.0)
    assert err.code == "illegal_move"
    assert err.details["rule"] == "Ambush: 3 of 4 corners within 6 in"


def test_the_figures_arrival_behind_impassable_terrain() -> None:
    """Seed 000 figure, left-hand unit: Impassable Terrain between the Unit Boundary and the
    chosen point."""
    rock = {"kind": "impassable", "points": [[33, 1], [39, 1], [39, 2.2], [33, 2.2]]}
    state = ready(ambush_game(terrain=[rock]))
    err = refused(state, 1, type="arrive_from_ambush", unit=gremlins(state).id,
                  point=(36.0, 0.0), x=36.0, y=5.0, facing=0.0)
    assert err.details["rule"] == (
        "Ambush: nothing between the Unit Boundary and the chosen point"
    )
    assert err.details["obstacle"] is not None


def test_the_point_must_be_on_a_battlefield_edge() -> None:
    state = ready(ambush_game())
    err = refused(state, 1, type="arrive_from_ambush", unit=gremlins(state).id,
                  point=(36.0, 0.5), x=36.0, y=4.0, facing=0.0)
    assert err.details["rule"] == "Ambush: Battlefield Edge"


def test_a_unit_that_can_arrive_must_before_the_phase_ends() -> None:
    """Seed 000: "every unit that rolls a 3+ will arrive on the Battlefield if possible"."""
    state = ready(ambush_game())
    err = refused(state, 1, type="end_phase")
    assert err.code == "out_of_phase" and "can" in err.message and err.details["point"]


def test_no_suitable_point_means_no_arrival_this_turn() -> None:
    """Seed 000: "If no suitable point is available ... the unit cannot arrive on the
    Battlefield this turn." Impassable Terrain rings the table 7 in deep."""
    ring = [
        [[0, 0], [72, 0], [72, 7], [0, 7]],
        [[0, 41], [72, 41], [72, 48], [0, 48]],
        [[0, 7.5], [7, 7.5], [7, 40.5], [0, 40.5]],
        [[65, 7.5], [72, 7.5], [72, 40.5], [65, 40.5]],
    ]
    state = ready(ambush_game(terrain=[{"kind": "impassable", "points": p} for p in ring]))
    state, events = act(state, 1, type="end_phase")
    assert [e.type for e in events][:1] == ["ambush_delayed"]
    assert gremlins(state).status == "ambush" and "ambush_ready" not in gremlins(state).markers


POCKET = [
    # Impassable Terrain rings the table 7 in deep but for a pocket on the south edge, x 33.1 to
    # 38.9 and y 0 to 4.8: with 1 in of Unit Spacing, a box 3.8 by 3.8 in.
    [[0, 0], [33.1, 0], [33.1, 7], [0, 7]],
    [[38.9, 0], [72, 0], [72, 7], [38.9, 7]],
    [[33.1, 4.8], [38.9, 4.8], [38.9, 7], [33.1, 7]],
    [[0, 41], [72, 41], [72, 48], [0, 48]],
    [[0, 7.5], [7, 7.5], [7, 40.5], [0, 40.5]],
    [[65, 7.5], [72, 7.5], [72, 40.5], [65, 40.5]],
]


def test_a_forced_arrival_tries_every_formation_before_no_suitable_point() -> None:
    """Seed 000: a unit that rolled to arrive "will arrive on the Battlefield if possible".
    Four Gremlins (40 mm, Skirmishers 12.5 mm apart) four wide are 7.8 by 1.6 in, three wide
    5.7 by 3.6, one wide 1.6 by 7.8: none fits the pocket in any facing; two files of two
    (3.6 in square) fit at the edge point (36, 0). So the Movement Phase may not end, the
    offer suggests that formation, and arriving in it is legal."""
    four = {**GREMLINS, "models": 4, "files": 4}
    state = ready(ambush_game(terrain=[{"kind": "impassable", "points": p} for p in POCKET],
                              gremlins=four))
    err = refused(state, 1, type="end_phase")
    assert err.code == "out_of_phase" and err.details["files"] == 2
    assert err.details["point"] == [36.0, 0.0] and "2 files wide" in err.message
    unit = gremlins(state)
    offer = orders_for(state, 1)["units"][unit.id]["arrive_from_ambush"]
    suggested = offer["suggested"]
    assert offer["available"] and suggested["files"] == 2
    state, events = act(state, 1, type="arrive_from_ambush", unit=unit.id,
                        **{k: suggested[k] for k in ("point", "x", "y", "facing", "files")})
    assert events[0].type == "unit_arrived"
    assert (gremlins(state).status, gremlins(state).files) == ("on_table", 2)


def test_player_turn_5_counts_as_a_3_and_keeps_scoring() -> None:
    """Seed 000: "A unit arriving on the Battlefield in Game Turn 6 loses Scoring"; Player
    Turns 5 and 6 count as a 3+, so this also shows the automatic roll."""
    state = ambush_game()
    for turn in (2, 3, 4):
        state, _ = end_phases_until(state, turn, 1, "Movement", faces=[1])
    state, events = end_phases_until(state, 5, 1, "Movement")
    assert rolled(events)[0]["automatic"]
    state, _ = arrive(state, (0.0, 24.0), 1.6, 24.0, facing=270.0)
    assert "lost_scoring" not in gremlins(state).markers


def test_game_turn_6_arrival_marks_lost_scoring() -> None:
    state = ambush_game()
    for turn in (2, 3, 4):
        state, _ = end_phases_until(state, turn, 1, "Movement", faces=[1])
    state, _ = end_phases_until(state, 5, 1, "Movement")
    state = _refuse_arrival_by_undoing_ready(state)
    state, events = end_phases_until(state, 6, 1, "Movement")
    state, events = arrive(state, (36.0, 0.0), 36.0, 4.0)
    assert "lost_scoring" in gremlins(state).markers
    assert "loses Scoring" in events[0].payload["text"]


def _refuse_arrival_by_undoing_ready(state: GameState) -> GameState:
    """Simulate a unit that could not arrive in turn 5 (no suitable point) by folding the
    engine's own `ambush_delayed` event."""
    return apply(state, [Event("ambush_delayed", {"unit": gremlins(state).id, "rule": "Ambush",
                                                  "text": "test"})])


def test_units_still_in_ambush_at_the_end_are_casualties() -> None:
    """Seed 000: "If an Ambushing unit does not arrive on the Battlefield by the end of the
    game, it is removed as a casualty"."""
    state = ambush_game()
    for turn in (2, 3, 4):
        state, _ = end_phases_until(state, turn, 1, "Movement", faces=[1])
    for turn in (5, 6):
        state, _ = end_phases_until(state, turn, 1, "Movement")
        state = _refuse_arrival_by_undoing_ready(state)
    events: list[Event] = []
    while not state.over:
        state, events = act(state, state.battle.active_player, type="end_phase")
    types = [e.type for e in events]
    assert types.index("ambush_casualties") < types.index("game_ended")
    assert gremlins(state).status == "destroyed"


# --- a character joining an ambushing unit --------------------------------------------------------


def test_a_character_in_ambush_joins_and_arrives_with_one_roll() -> None:
    """Seed 000: an Attachable Model in Ambush may join a unit in Ambush with the same X; one
    roll for the combined unit; the choice may change each turn before the rolls."""
    state = ambush_game(stalker=True)
    ids = {u.datasheet: u.id for u in units_of(state).values()}
    stalker, host = ids["daemon-stalker"], ids["mageblight-gremlin"]
    state, _ = act(state, 1, type="choose_ambush_host", character=stalker, host=host)
    state, events = end_phases_until(state, 2, 1, "Movement", faces=[4])
    assert len(rolled(events)) == 1 and rolled(events)[0]["riders"] == ["Daemon Stalker"]
    state, events = arrive(state, (36.0, 0.0), 36.0, 4.0)
    unit = units_of(state)[host]
    assert [c.datasheet for c in unit.characters] == ["daemon-stalker"]
    assert units_of(state)[stalker].status == "joined"


def test_a_character_may_change_its_mind_only_before_the_rolls() -> None:
    state = ambush_game(stalker=True)
    ids = {u.datasheet: u.id for u in units_of(state).values()}
    stalker, host = ids["daemon-stalker"], ids["mageblight-gremlin"]
    state, _ = act(state, 1, type="choose_ambush_host", character=stalker, host=host)
    state, _ = end_phases_until(state, 2, 1, "Charge")
    state, _ = act(state, 1, type="choose_ambush_host", character=stalker, host=None)
    state, events = act(state, 1, [1, 5], type="end_phase")
    assert len(rolled(events)) == 2
    err = refused(state, 1, type="choose_ambush_host", character=stalker, host=host)
    assert err.code == "out_of_phase"


def test_joining_needs_the_same_ambush_value_and_supernal_both_ways() -> None:
    """Seed 000 (Ambush: the same X value; Supernal: joining restrictions both ways)."""
    state = ambush_game(stalker=True)
    ids = {u.datasheet: u.id for u in units_of(state).values()}
    err = refused(state, 1, type="choose_ambush_host", character=ids["mageblight-gremlin"],
                  host=ids["daemon-stalker"])
    assert err.code == "illegal_move"
