"""Night Goblin Fanatics in flee, pursuit and charge moves (issue 15 items 2 and 3): the release
at 8 in during a flee and a pursuit, and units moving into a released Fanatic while charging,
fleeing or pursuing - as the Fanatic page (../shared/seeds/003_39e99837749f8d9d.txt) writes
them (a flee chosen as a Charge Reaction, which waits for the owner's releases:
test_fanatics_resumed.py). Hand-worked positions: 20 Night Goblins or Empire Halberdiers
5 x 4 on 20 mm bases (3.94 in wide, 3.15 in deep); a Fanatic's base is 25 mm (radius 0.49 in)."""

from __future__ import annotations

import json

import pytest

from server import geometry as geo
from server.rules import core
from server.rules.charge import charge_preview
from server.rules.core import Event, GameState
from server.rules.flee import pursue_events
from server.rules.naming import display_name
from server.rules.units import table_of, units_of
from server.rules.whfb8.fanatics import concealed_of
from tests.rules.t9a.scripted import ScriptedDice
from tests.rules.test_battle import fold
from tests.rules.whfb8.positions import (
    GOBLINS,
    HALBERDIERS,
    assert_dice_in_order,
    position,
    run,
    with_units,
)
from tests.rules.whfb8.test_fanatics import HIDING, marching, released_pair


def _gap(state: GameState, a: str, b: str) -> float:
    table = table_of(state)
    return geo.distance(table.units[a], table.units[b]).distance


def _flee_towards_hiding_goblins(goblins: dict[str, object]) -> GameState:
    """Night Goblins (player 1, u1) front 14 in up the table facing the Halberdiers (player 2,
    u3, front at 30 in facing them); other goblins (u2) about to charge the Halberdiers' rear
    from the north, 6.85 in away: fleeing from them, the Halberdiers run at u1."""
    state = position([goblins, GOBLINS], [HALBERDIERS],
                     {"u1": (36.0, 14.0, 0.0), "u2": (36.0, 40.0, 180.0),
                      "u3": (36.0, 30.0, 180.0)}, phase="Movement")
    state, _ = run(state, 1, [], type="declare_charge", unit="u2", target="u3")
    return state


def test_a_flee_that_cannot_wait_is_refused_rather_than_aimed_by_the_server() -> None:
    """Seed 003: "When a Fanatic is released, you may choose the direction in which it
    travels, and the point on the concealing unit from which it starts" - the owner, never the
    server (docs/rules-decisions.md, Night Goblin Fanatics). Every flee in play can wait for
    the owner (a Panic flee caused by Stand and Shoot too: test_fanatics_resumed.py); a flee
    made by a caller that cannot (`flee_events` without `suspend`, none in play) is refused
    when it would stop at 8 in: the Halberdiers' 6 + 4 = 10 in towards goblins 16 in away."""
    from server.rules.flee import flee_events

    state = _flee_towards_hiding_goblins(HIDING)
    dice = ScriptedDice([6, 4], state.dice_position)
    with pytest.raises(core.RuleError) as err:
        flee_events(state, "u3", "u2", dice, "failed a Panic Test")
    assert err.value.code == core.OUT_OF_PHASE
    assert err.value.message == ("Empire Halberdiers cannot stop part-way fleeing here: this "
                                 "resolution cannot wait")
    # Without Fanatics nothing stops, and the same flee needs no waiting.
    plain = _flee_towards_hiding_goblins(GOBLINS)
    events = flee_events(plain, "u3", "u2", ScriptedDice([6, 4], plain.dice_position),
                         "failed a Panic Test")
    assert [e.type for e in events] == ["unit_fled"]


def test_a_flee_past_goblins_hiding_nothing_is_not_stopped() -> None:
    """Without Fanatics nothing stops: the same flee goes its whole 10 in in one event."""
    state = _flee_towards_hiding_goblins(GOBLINS)
    state, events = run(state, 2, [6, 4, 1, 1], type="charge_reaction", reaction="flee")
    assert [e.type for e in events] == ["charge_reaction", "unit_fled", "charge_failed"]
    assert units_of(state)["u3"].placement == pytest.approx((36.0, 20.0, 180.0), abs=1e-3)


def _concealing_goblins_flee(goblins: dict[str, object]) -> tuple[GameState, list[Event]]:
    """Night Goblins (player 1, u1, front at 30 in facing north) charged by Halberdiers (u2)
    10 in to the north flee 6 + 4 = 10 in south, to 6.85 in of other Halberdiers (u3)."""
    state = position([goblins], [HALBERDIERS, HALBERDIERS],
                     {"u1": (36.0, 30.0, 0.0), "u2": (36.0, 40.0, 180.0),
                      "u3": (36.0, 10.0, 0.0)}, phase="Movement", active=2)
    state, _ = run(state, 2, [], type="declare_charge", unit="u2", target="u1")
    return run(state, 1, [6, 4, 1, 1], type="charge_reaction", reaction="flee")


def test_a_concealing_unit_that_flees_past_the_enemy_releases_nothing_and_loses_them() -> None:
    """Seed 003: "If a concealing unit flees ... any Fanatics yet to be released are lost": its
    flee is not stopped at 8 in (nothing is released), and the loss is told to everyone when
    the phase ends. Until then the opponent's and a spectator's wire is that of a game whose
    goblins hide nothing."""
    state, events = _concealing_goblins_flee(HIDING)
    plain, plain_events = _concealing_goblins_flee(GOBLINS)
    assert [e.type for e in events] == ["charge_reaction", "unit_fled", "charge_failed"]
    assert _gap(state, "u1", "u3") < 8.0
    for viewer in (2, None):
        assert json.dumps([e.to_wire(viewer) for e in events], sort_keys=True) == json.dumps(
            [e.to_wire(viewer) for e in plain_events], sort_keys=True)
        assert json.dumps(state.to_json(viewer), sort_keys=True) == json.dumps(
            plain.to_json(viewer), sort_keys=True)
    state, ended = run(state, 2, [], type="end_phase")
    lost = [e for e in ended if e.type == "fanatics_lost"]
    assert [(e.payload["unit"], e.payload["count"], e.visibility) for e in lost] == [
        ("u1", 2, core.PUBLIC)]
    assert "Night Goblins flees" in lost[0].payload["text"]


def test_a_pursuit_stops_at_8_in_then_goes_on() -> None:
    """Seed 003: "in any move" - a pursuit too. The Halberdiers (u3) pursue fleeing goblins
    (u2) off to the side, straight at concealing goblins (u1) 16 in away: 6 + 4 = 10 in, short
    of the Flee Distance 12. They stop after 8 in and wait for the owner (server/rules/
    resume.py): the first Fanatic, sent from the goblins' front centre straight at them, whirls
    6 + 5 = 11 in through them and bounces 1 in beyond (D6 = 1 hit, a 1 to wound), the second
    goes 1 + 1 = 2 in; the pursuit then goes on the last 2 in."""
    state = position([HIDING, GOBLINS], [HALBERDIERS],
                     {"u1": (36.0, 14.0, 0.0), "u2": (60.0, 30.0, 180.0),
                      "u3": (36.0, 30.0, 180.0)}, phase="Close Combat")
    state = with_units(state, u2={"markers": ("fleeing",)})
    dice = ScriptedDice([6, 4], state.dice_position)
    halted = pursue_events(state, "u3", "u2", 12.0, dice, suspend=True)
    assert [e.type for e in halted] == ["move_halted", "fanatics_revealed",
                                        "resolution_suspended"]
    assert halted[0].payload["moved"] == pytest.approx(8.0, abs=1e-3)
    state = fold(state, halted)
    state, first = run(state, 1, [6, 5, 1, 1], type="release_fanatic", unit="u1",
                       point=[36.0, 14.0], facing=0.0)
    assert [e.type for e in first] == ["fanatic_released", "fanatic_hits", "attack_step"]
    assert first[0].payload["through"] == ["u3"]
    state, events = run(state, 1, [1, 1], type="release_fanatic", unit="u1",
                        point=[35.0, 14.0], facing=0.0)
    assert [e.type for e in events] == ["fanatic_released", "resolution_resumed",
                                        "unit_pursued"]
    pursued = events[-1].payload
    assert pursued["moved"] == 10.0 and pursued["caught"] is False
    assert pursued["halted_after"] == pytest.approx(8.0, abs=1e-3)
    assert _gap(state, "u1", "u3") == pytest.approx(6.0, abs=1e-3)


def _player_2s_movement(state: GameState) -> GameState:
    return fold(state, [Event("phase_ended", {"ended": "Close Combat", "turn": 1,
                                              "active_player": 2, "phase": "Movement"})])


def _one_ahead_one_aside() -> tuple[GameState, str, str]:
    """The goblins march 8 in and stop at 8 in from the Halberdiers; one Fanatic goes 1 + 2 = 3
    in straight ahead (it stands in the Halberdiers' path), the other 3 + 1 = 4 in aside; then
    player 2's Movement phase. Returns the state and the two Fanatics' ids."""
    state, ahead, aside = released_pair(([1, 2], [36.0, 16.0], 0.0),
                                        ([3, 1], [34.5, 16.0], 90.0))
    return _player_2s_movement(state), ahead, aside


def test_a_charge_through_a_fanatic_takes_2d6_hits_removes_it_and_goes_on() -> None:
    """Seed 003: "Fanatics cannot be charged, but models can move into contact with them. Any
    unit that does so takes 2D6 S 5 Armour Piercing (1) hits. The Fanatic model is then
    removed, and the unit may carry on with its move." A Fanatic stands 3 in in front of the
    goblins; the Halberdiers charge the goblins 8 in away through it (3 + 3 + M4 = 10 in):
    3 + 2 = 5 hits, 2, 2, 1, 6, 5 to wound = 4 wounds, and the charge ends in contact."""
    state, fanatic, _ = _one_ahead_one_aside()
    state, _ = run(state, 2, [], type="declare_charge", unit="u2", target="u1")
    state, events = run(state, 1, [3, 3, 3, 2, 2, 2, 1, 6, 5], type="charge_reaction",
                        reaction="hold")
    kinds = [e.type for e in events]
    assert kinds[:3] == ["charge_reaction", "charge_succeeded", "fanatic_hits"], kinds
    assert events[2].payload["hits"] == 5 and events[2].payload["target"] == "u2"
    assert kinds[-1] == "fanatic_removed" and events[-1].payload["unit"] == fanatic
    assert units_of(state)["u2"].models == 16
    assert state.charges.engaged["u2"] == "u1"
    assert _gap(state, "u1", "u2") == pytest.approx(0.0, abs=0.02)


def test_a_fanatic_is_never_offered_as_a_charge_target() -> None:
    """Seed 003: "Fanatics cannot be charged": the charge order lists a released Fanatic as
    unavailable, with the reason in words, and declaring it is refused."""
    from tests.rules.whfb8.test_fanatics import _released

    state, fanatic = _released()
    state = fold(state, [Event("phase_ended", {"ended": "Close Combat", "turn": 1,
                                               "active_player": 2, "phase": "Movement"})])
    from server.rules.charge import _offer_charge

    order = _offer_charge(state, 2, units_of(state)["u2"])
    assert order is not None
    target = next(t for t in order["targets"] if t["unit"] == fanatic)
    assert target["available"] is False
    assert "cannot be charged (a Night Goblin Fanatic" in target["reason"]
    assert fanatic not in target["reason"]
    with pytest.raises(core.RuleError) as err:
        run(state, 2, [], type="declare_charge", unit="u2", target=fanatic)
    assert err.value.details["rule"] == "Fanatic Impacts"


def test_an_interrupted_charge_completes_into_a_fanatic_released_on_its_way() -> None:
    """Seed 003: "chargers must complete their charge", and a unit moving into a Fanatic
    "takes 2D6 S 5 Armour Piercing (1) hits. The Fanatic model is then removed, and the unit
    may carry on with its move". The Halberdiers charge goblins 11 in away (4 + 4 + M4), stop
    8 in away; the first Fanatic goes 1 + 2 = 3 in straight at them and stops in their way,
    the second 2 + 1 in to the side; the charge then completes through the first: 3 + 2 = 5
    hits, 2, 2, 1, 6, 5 to wound = 4 wounds, no save."""
    state = position([HIDING], [HALBERDIERS],
                     {"u1": (36.0, 10.0, 0.0), "u2": (36.0, 21.0, 180.0)},
                     phase="Movement", active=2)
    state, _ = run(state, 2, [], type="declare_charge", unit="u2", target="u1")
    state, reacted = run(state, 1, [4, 4], type="charge_reaction", reaction="hold")
    state, events = run(state, 1, [1, 2], type="release_fanatic", unit="u1",
                        point=[36.0, 10.0], facing=0.0)
    fanatic = events[0].payload["unit"]["id"]
    assert events[0].payload["through"] == []
    first = events
    state, events = run(state, 1, [2, 1, 3, 2, 2, 2, 1, 6, 5], type="release_fanatic",
                        unit="u1", point=[37.5, 10.0], facing=270.0)
    # The charge's roll is recorded where it was drawn (`charge_interrupted`), so the log's
    # rolls stay in order for the dice proof; its completion names it `distance_roll`.
    interrupted = next(e.payload for e in reacted if e.type == "charge_interrupted")
    done = next(e.payload for e in events if e.type == "charge_succeeded")
    assert done["distance_roll"] == interrupted["roll"] and "roll" not in done
    assert_dice_in_order([*reacted, *first, *events])
    kinds = [e.type for e in events]
    assert kinds[0] == "fanatic_released" and "charge_succeeded" in kinds, kinds
    after = kinds[kinds.index("charge_succeeded"):]
    assert after[1] == "fanatic_hits" and after[-1] == "fanatic_removed", after
    hits = next(e.payload for e in events if e.type == "fanatic_hits")
    assert (hits["unit"], hits["target"], hits["hits"]) == (fanatic, "u2", 5)
    assert units_of(state)["u2"].models == 16 and units_of(state)[fanatic].status == "destroyed"
    assert state.charges.engaged["u2"] == "u1"
    assert _gap(state, "u1", "u2") == pytest.approx(0.0, abs=0.02)


def test_a_concealing_unit_that_pursues_releases_its_fanatics_at_8_in_and_runs_into_one() -> None:
    """Seed 003: released "when a concealing unit comes to within 8" of the enemy" - its own
    pursuit too. The goblins pursue Halberdiers fleeing off to the side (6 + 6 = 12 in, short
    of 20) towards other Halberdiers 16 in ahead: they stop after 8 in; their owner releases
    the Fanatics from the goblins' front centre towards those Halberdiers (3 + 3 = 6 in,
    1 + 1 = 2 in), then they pursue on 4 in into the second: 1 + 1 = 2 hits on the goblins, 1,
    1 to wound (none), and it is removed."""
    state = position([HIDING], [HALBERDIERS, HALBERDIERS],
                     {"u1": (36.0, 30.0, 180.0), "u2": (60.0, 20.0, 180.0),
                      "u3": (36.0, 14.0, 0.0)}, phase="Close Combat")
    state = with_units(state, u2={"markers": ("fleeing",)})
    dice = ScriptedDice([6, 6], state.dice_position)
    halted = pursue_events(state, "u1", "u2", 20.0, dice, suspend=True)
    assert [e.type for e in halted] == ["move_halted", "fanatics_revealed",
                                        "resolution_suspended"]
    state = fold(state, halted)
    state, _ = run(state, 1, [3, 3], type="release_fanatic", unit="u1", point=[36.0, 22.0],
                   facing=180.0)
    state, events = run(state, 1, [1, 1, 1, 1, 1, 1], type="release_fanatic", unit="u1",
                        point=[36.0, 22.0], facing=180.0)
    assert [e.type for e in events] == [
        "fanatic_released", "resolution_resumed", "unit_pursued", "fanatic_hits",
        "attack_step", "fanatic_removed"]
    assert "aimed_by_server" not in events[0].payload
    second = events[0].payload["unit"]["id"]
    assert events[3].payload["target"] == "u1" and events[-1].payload["unit"] == second
    assert _gap(state, "u1", "u3") == pytest.approx(4.0, abs=1e-3)
    assert concealed_of(state) == {}


def test_the_charge_preview_names_a_fanatic_in_the_path_and_its_hits() -> None:
    """Seed 003: a unit moving into a Fanatic "takes 2D6 S 5 Armour Piercing (1) hits"; the
    player learns it before declaring (PLAYTEST.md: "did the player learn it before
    committing?"). The position of the charge-through test above: the Fanatic 3 in in front of
    the goblins is in the Halberdiers' path, the one that went 4 in aside is not; without
    released Fanatics the path has no hazard."""
    plain = _player_2s_movement(marching())
    assert charge_preview(plain, 2, "u2", "u1")["hazards"] == []
    state, ahead, aside = _one_ahead_one_aside()
    preview = charge_preview(state, 2, "u2", "u1")
    ahead_name = display_name(state, ahead)
    aside_name = display_name(state, aside)
    assert ahead_name != aside_name
    assert preview["blocked"] is False
    assert len(preview["hazards"]) == 1, preview["hazards"]
    said = preview["hazards"][0]
    assert said.startswith(f"{ahead_name} is in the path")
    assert "2D6 Strength 5 Armour Piercing (1) hits" in said
    assert "Empire Halberdiers would take" in said


def test_a_move_preview_names_a_fanatic_the_move_runs_into() -> None:
    """Seed 003: a unit that moves into a Fanatic takes 2D6 S5 Armour Piercing (1) hits; a
    legal move's preview says so before the player confirms it (the same words as the charge
    preview), and one that passes no Fanatic says nothing."""
    from server.dice import DiceStream
    from server.rules.questions import preview

    state, ahead, _ = _one_ahead_one_aside()
    def throwaway() -> DiceStream:
        return DiceStream(b"x" * 32, state.dice_position)

    through = preview(state, 2, {"type": "move_unit", "unit": "u2", "manoeuvre": "forward",
                                 "distance": 6.0, "mode": "march"}, throwaway())
    assert through["legal"] is True, through
    assert len(through["hazards"]) == 1
    assert through["hazards"][0].startswith(f"{display_name(state, ahead)} is in the path")
    short = preview(state, 2, {"type": "move_unit", "unit": "u2", "manoeuvre": "forward",
                               "distance": 1.0}, throwaway())
    assert short["legal"] is True and short["hazards"] == []
