"""Issue 4: setup, armies from datasheets, deployment, turns and phases, rules-checked moves and
charges — the pure engine driven action by action."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest

from server.dice import DiceStream
from server.rules import core, table
from server.rules.battle import phases_of
from server.rules.core import Battlefield, Event, GameState, RuleError
from server.rules.units import units_of

SEED = bytes(range(32))


def new_game(system: str = "t9a") -> GameState:
    size = Battlefield(60, 44) if system == "wh40k10" else Battlefield(72, 48)
    events = table.genesis("g", system, "Test", size, "c")
    events += [table.seat_claimed(1), table.seat_claimed(2)]
    return fold(GameState(), events)


def fold(state: GameState, events: list[Event]) -> GameState:
    for e in events:
        state = core.fold(state, dataclasses.replace(e, seq=state.seq + 1))
    return state


def act(state: GameState, seat: int, **action: Any) -> tuple[GameState, list[Event]]:
    events = core.decide(state, seat, action, DiceStream(SEED, state.dice_position))
    return fold(state, events), events


def refused(state: GameState, seat: int, **action: Any) -> RuleError:
    with pytest.raises(RuleError) as err:
        core.decide(state, seat, action, DiceStream(SEED, state.dice_position))
    return err.value


def t9a_deployed() -> GameState:
    """Gremlins (player 1) and Citizen Spears (player 2) face each other across the table."""
    state = new_game()
    state, _ = act(state, 1, type="submit_army",
                   units=[{"datasheet": "mageblight-gremlin", "models": 3}])
    state, _ = act(state, 2, type="submit_army",
                   units=[{"datasheet": "citizen-spears", "models": 20, "files": 5}])
    state, _ = act(state, 1, type="deploy_unit", unit="u1", x=36, y=10)
    state, _ = act(state, 2, type="deploy_unit", unit="u2", x=36, y=40, facing=180)
    return state


def test_armies_then_deployment_then_battle() -> None:
    state = new_game()
    assert state.to_json()["stage"] == "setup"
    state, _ = act(state, 1, type="submit_army",
                   units=[{"datasheet": "mageblight-gremlin", "models": 3}])
    assert refused(state, 1, type="submit_army",
                   units=[{"datasheet": "citizen-spears", "models": 20}]).code == "out_of_phase"
    state, events = act(state, 2, type="submit_army",
                        units=[{"datasheet": "citizen-spears", "models": 20, "files": 5}])
    assert [e.type for e in events] == ["army_submitted", "deployment_started"]
    view = state.to_json()
    assert view["stage"] == "deployment" and view["deploying"] == 1
    assert view["units"]["u1"]["status"] == "undeployed"
    assert "Hard Target (1)" in view["units"]["u1"]["rules"]
    assert refused(state, 2, type="deploy_unit", unit="u2", x=36, y=40).code == "out_of_phase"
    state, _ = act(state, 1, type="deploy_unit", unit="u1", x=36, y=10)
    state, events = act(state, 2, type="deploy_unit", unit="u2", x=36, y=40, facing=180)
    assert events[-1].type == "battle_started"
    view = state.to_json()
    assert (view["stage"], view["turn"], view["active_player"], view["phase"]) == (
        "battle", 1, 1, "Charge")
    fp = view["units"]["u2"]["footprint"]
    assert fp["type"] == "FeatureCollection" and len(fp["features"]) == 21  # boundary + 20


@pytest.mark.parametrize(
    ("units", "code"),
    [
        ([{"datasheet": "no-such-unit", "models": 3}], "bad_request"),
        ([{"datasheet": "mageblight-gremlin", "models": 9}], "bad_request"),
        ([{"datasheet": "mageblight-gremlin", "models": 1}], "bad_request"),
    ],
)
def test_bad_armies_are_refused(units: list[dict[str, Any]], code: str) -> None:
    err = refused(new_game(), 1, type="submit_army", units=units)
    assert err.code == code and err.details["errors"]


def test_deployment_zone_and_spacing() -> None:
    state = new_game()
    state, _ = act(state, 1, type="submit_army",
                   units=[{"datasheet": "citizen-spears", "models": 20, "files": 5},
                          {"datasheet": "citizen-spears", "models": 20, "files": 5}])
    state, _ = act(state, 2, type="submit_army",
                   units=[{"datasheet": "citizen-spears", "models": 10, "files": 5}])
    err = refused(state, 1, type="deploy_unit", unit="u1", x=36, y=30)
    assert (err.code, err.details["rule"]) == ("illegal_move", "Deployment Zone")
    state, _ = act(state, 1, type="deploy_unit", unit="u1", x=20, y=10)
    state, _ = act(state, 2, type="deploy_unit", unit="u3", x=36, y=40, facing=180)
    # 5 files of 20 mm = 100 mm = 3.937 in: at x=20 the unit spans 18.03..21.97; another at
    # x=24.5 would start at 22.53, 0.56 in away (Unit Spacing: more than 1 in).
    err = refused(state, 1, type="deploy_unit", unit="u2", x=24.5, y=10)
    assert (err.details["rule"], err.details["obstacle"]) == ("Unit Spacing", "u1")
    state, events = act(state, 1, type="deploy_unit", unit="u2", x=25.0, y=10)  # 1.06 in
    assert events[-1].type == "battle_started"


def test_reserve_needs_a_rule() -> None:
    state = new_game()
    state, _ = act(state, 1, type="submit_army",
                   units=[{"datasheet": "mageblight-gremlin", "models": 3},
                          {"datasheet": "daemon-herald", "models": 1}])
    state, _ = act(state, 2, type="submit_army",
                   units=[{"datasheet": "citizen-spears", "models": 20}])
    state, _ = act(state, 1, type="declare_reserve", unit="u1", mode="ambush")
    assert units_of(state)["u1"].status == "ambush"
    state, _ = act(state, 2, type="deploy_unit", unit="u3", x=36, y=40, facing=180)
    err = refused(state, 1, type="declare_reserve", unit="u2")
    assert err.details["rule"] == "Deployment"


def test_phases_turns_and_the_end_of_the_game() -> None:
    state = t9a_deployed()
    phases = phases_of("t9a")
    assert refused(state, 2, type="end_phase").code == "out_of_phase"
    seen = []
    for _ in range(len(phases) * 2 * 6):
        view = state.to_json()
        seen.append((view["turn"], view["active_player"], view["phase"]))
        state, events = act(state, view["active_player"], type="end_phase")
    assert seen[0] == (1, 1, "Charge") and seen[5] == (1, 2, "Charge")
    assert seen[10] == (2, 1, "Charge") and seen[-1] == (6, 2, "Melee")
    assert events[-1].type == "game_ended" and state.over
    assert refused(state, 1, type="note", text="x").code == "out_of_phase"


def test_moves_are_checked_against_allowance_and_phase() -> None:
    state = t9a_deployed()
    err = refused(state, 1, type="move_unit", unit="u1", manoeuvre="forward", distance=3)
    assert err.code == "out_of_phase"  # Charge phase
    state, _ = act(state, 1, type="end_phase")  # -> Movement
    assert refused(state, 1, type="move_unit", unit="u2", manoeuvre="forward",
                   distance=1).code == "forbidden"
    state, events = act(state, 1, type="move_unit", unit="u1", manoeuvre="forward", distance=3)
    assert events[0].payload["used"] == 3 and events[0].payload["swept"]["type"] == "Polygon"
    assert units_of(state)["u1"].placement == (36, 13, 0)
    err = refused(state, 1, type="move_unit", unit="u1", manoeuvre="forward", distance=2.5)
    assert err.details["rule"] == "Move Distance"  # Advance Rate 5: 3 + 2.5 > 5
    # A wheel of 10 degrees left (FACTS.md "Move Manoeuvres": Wheel) pivots on the inner (left)
    # front corner; the distance is the outer corner's arc, added to the 3 in already moved.
    state, events = act(state, 1, type="move_unit", unit="u1", manoeuvre="wheel", degrees=10)
    gap = 12.5 / 25.4  # Skirmisher (seed 000): 12.5 mm between bases
    frontage = 3 * 40 / 25.4 + 2 * gap  # three 40 mm bases, two gaps
    arc = frontage * math.radians(10)
    assert events[0].payload["distance"] == pytest.approx(arc, abs=1e-3)
    assert state.to_json()["units"]["u1"]["moved"]["used"] == pytest.approx(3 + arc, abs=1e-3)
    half = frontage / 2
    x, y, facing = units_of(state)["u1"].placement
    assert facing == 10
    assert (x, y) == pytest.approx(
        (36 - half + half * math.cos(math.radians(10)), 13 + half * math.sin(math.radians(10))),
        abs=1e-3,
    )


def test_moving_into_another_unit_names_the_rule_and_obstacle() -> None:
    state = t9a_deployed()
    state, _ = act(state, 1, type="end_phase")
    state, _ = act(state, 1, type="end_phase")
    state, _ = act(state, 1, type="end_phase")
    state, _ = act(state, 1, type="end_phase")
    state, _ = act(state, 1, type="end_phase")  # player 2, Charge
    state, _ = act(state, 2, type="end_phase")  # player 2, Movement
    # Spears at y=40 facing 180 (towards y=0); their front is at 40, Gremlins' front at 10.
    state, _ = act(state, 2, type="move_unit", unit="u2", manoeuvre="forward", mode="march",
                   distance=10)
    err = refused(state, 2, type="move_unit", unit="u2", manoeuvre="forward", mode="march",
                  distance=1)
    assert err.details["rule"] == "Move Distance"


def test_charge_rolls_and_moves_into_contact() -> None:
    state = t9a_deployed()
    # Bring the spears close: player 1 passes, player 2 marches 10 in towards the gremlins.
    for _ in range(5):
        state, _ = act(state, 1, type="end_phase")
    state, _ = act(state, 2, type="end_phase")
    state, _ = act(state, 2, type="move_unit", unit="u2", manoeuvre="forward", mode="march",
                   distance=8)
    for _ in range(4):
        state, _ = act(state, 2, type="end_phase")
    # Turn 2, player 1, Charge phase: the spears' front is 32 - 10 - ... away.
    view = state.to_json()
    assert (view["turn"], view["active_player"], view["phase"]) == (2, 1, "Charge")
    state, events = act(state, 1, type="declare_charge", unit="u1", target="u2")
    assert [e.type for e in events] == ["charge_declared"]  # waits for the Charge Reaction
    state, events = act(state, 2, type="charge_reaction", reaction="hold")
    assert events[0].type == "charge_reaction"
    event = events[-1]
    roll = event.payload["roll"]
    assert roll["expression"] == "2D6 maximised x1"  # Swiftstride (seed 000)
    assert len(roll["dice"]) == 3 and sum(d["kept"] for d in roll["dice"]) == 2
    assert event.payload["range"] == roll["total"] + 5  # t9a: 2D6 + Advance Rate
    gap = event.payload["distance"]
    if event.type == "charge_succeeded":
        assert event.payload["range"] >= gap and event.payload["arc"] == "front"
        assert state.to_json()["units"]["u1"]["engaged_with"] == "u2"
    else:
        assert event.type == "charge_failed" and event.payload["range"] < gap
    assert refused(state, 1, type="declare_charge", unit="u1", target="u2").code == \
        "illegal_move"


def test_charge_needs_an_enemy() -> None:
    state = t9a_deployed()
    assert refused(state, 1, type="declare_charge", unit="u1", target="u1").code == \
        "illegal_move"
    assert refused(state, 1, type="declare_charge", unit="u1", target="u9").code == "not_found"


def test_40k_units_move_model_by_model() -> None:
    state = new_game("wh40k10")
    state, _ = act(state, 1, type="submit_army",
                   units=[{"datasheet": "boyz", "models": 10}])
    state, _ = act(state, 2, type="submit_army",
                   units=[{"datasheet": "intercessor-squad", "models": 5}])
    state, _ = act(state, 1, type="deploy_unit", unit="u1", x=30, y=6)
    state, _ = act(state, 2, type="deploy_unit", unit="u2", x=30, y=38, facing=180)
    assert state.to_json()["phase"] == "Command"
    state, _ = act(state, 1, type="end_phase")
    start = units_of(state)["u1"].positions
    ahead = [[x, y + 5] for x, y in start]
    state, events = act(state, 1, type="move_models", unit="u1", positions=ahead)
    assert events[-1].payload["used"] == pytest.approx(5)
    assert units_of(state)["u1"].positions[0][1] == pytest.approx(start[0][1] + 5)
    # Too far (Boyz M 6) and out of coherency are refused.
    state2 = new_game("wh40k10")
    err = refused(state, 1, type="move_models", unit="u1", positions=ahead)
    assert err.details["rule"] == "One Move per Phase"
    assert state2.system == "wh40k10"


def test_joined_characters_stand_in_the_front_rank_and_count_as_models() -> None:
    """Issue 4 item 4 (armies with joined characters): a Highborn Commander joins Citizen
    Spears; the unit's footprint holds 1 + 10 models, the character in the front rank."""
    state = new_game()
    army = [{"datasheet": "citizen-spears", "models": 10, "files": 5,
             "joined_characters": ["highborn-commander"]}]
    state, events = act(state, 1, type="submit_army", units=army)
    unit = next(iter(units_of(state).values()))
    assert [c.datasheet for c in unit.characters] == ["highborn-commander"]
    assert unit.model_count == 11 and "Highborn Commander" in unit.name
    from server.rules.units import footprint_of

    placed = dataclasses.replace(unit, status="on_table", placement=(36.0, 6.0, 0.0))
    fp = footprint_of(state, placed)
    assert fp is not None and len(fp.models) == 11


def test_supernal_units_refuse_a_plain_character() -> None:
    """Seed 000, Supernal: units containing Supernal can only be joined by Supernal models."""
    entry = {"datasheet": "mageblight-gremlin", "models": 3,
             "joined_characters": ["highborn-commander"]}
    error = refused(new_game(), 1, type="submit_army", units=[entry])
    assert error.code == "bad_request" and error.details["errors"][0]["code"] == "supernal_join"


@pytest.mark.parametrize("system", ["t9a", "whfb8", "wh40k10"])
def test_the_ruins_preset_fits_every_table(system: str) -> None:
    """Issue 4 item 4: preset tables per system; the Ruins scale to the system's table."""
    state, events = act(new_game(system), 1, type="use_preset_table", preset="ruins")
    width, depth = (60, 44) if system == "wh40k10" else (72, 48)
    assert len(state.to_json()["terrain"]) == 5
    for piece in state.to_json()["terrain"]:
        assert all(0 <= x <= width and 0 <= y <= depth for x, y in piece["points"])
