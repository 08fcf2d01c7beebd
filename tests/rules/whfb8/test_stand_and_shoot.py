"""whfb8 Stand and Shoot, the Charge Reaction that shoots (FACTS.md "whfb8: the battle": Stand
and Shoot -1 to hit; docs/rules-decisions.md "whfb8: the battle": the charger must be within
range and in the front arc and line of sight; the volley is the shooting phase's, with its
Panic Tests), and the Failed Charge move (FACTS.md: "the charger moves the highest single D6
of its charge roll toward the target").

Hand-worked position: 10 Empire Halberdiers (player 1, u1, 5 x 2 on 20 mm bases: 3.94 in wide)
with their front edge centred at (36, 20) facing up the table; 10 Empire Handgunners (player 2,
u2, 5 x 2, Handgun 24 in, S4, Armour Piercing (1), BS 3) at (36, 30) facing them: fronts 10 in
apart. Player 1's Movement phase, where whfb8 charges are declared.
"""

from __future__ import annotations

import math

import pytest

from server.rules import core
from server.rules.core import Event, GameState, RuleError
from tests.rules.t9a.scripted import ScriptedDice
from tests.rules.whfb8.positions import position, run, unit

HALBERDIERS = {"datasheet": "empire-halberdiers", "models": 10, "files": 5}
HANDGUNNERS = {"datasheet": "empire-handgunners", "models": 10, "files": 5}
WIDTH = 5 * 20 / 25.4
"""Five 20 mm bases, in inches."""


def charge(gap: float = 10.0, army2: dict[str, object] = HANDGUNNERS,
           places: dict[str, tuple[float, float, float]] | None = None,
           army1: list[dict[str, object]] | None = None) -> GameState:
    """The Halberdiers declare a charge on u2, `gap` in away."""
    state = position(
        army1 or [HALBERDIERS], [army2],
        places or {"u1": (36.0, 30.0 - gap, 0.0), "u2": (36.0, 30.0, 180.0)},
        phase="Movement",
    )
    state, _ = run(state, 1, [], type="declare_charge", unit="u1", target="u2")
    return state


def react(state: GameState, faces: list[int]) -> tuple[GameState, list[Event]]:
    return run(state, 2, faces, type="charge_reaction", reaction="stand_and_shoot")


def test_the_handgunners_shoot_before_the_charge_is_rolled() -> None:
    """FACTS: BS 3 hits on 4+, Stand and Shoot -1: 5+ (10 in is within half of 24: no Long
    Range; the charged unit did not move). The front rank's 5 shots: 5, 5, 5, 6, 4 hit four
    times; S4 vs T3 wounds on 3+: 3, 2, 1, 1 one wound; the light armour 6+ is lost to S4 (-1)
    and Armour Piercing (-1): one Halberdier removed. 1 of 10 is under 25 %: no Panic. The
    charge: M4 + 2D6 = 4 + 1 + 3 = 8 < 10: it fails and the Halberdiers move the highest die,
    3 in, straight towards the Handgunners (their front edge from y 20 to y 23)."""
    state = charge()
    state, events = react(state, [5, 5, 5, 6, 4] + [3, 2, 1, 1] + [1, 3])
    assert [e.type for e in events] == [
        "charge_reaction", "shots_fired", "attack_step", "attack_step", "attack_step",
        "hp_lost", "charge_failed",
    ]
    fired = events[1].payload
    assert events[1].actor == 2 and fired["shots"] == 5 and fired["weapon"] == "Handgun"
    assert fired["modifiers"] == [{"rule": "Stand and Shoot", "value": -1}]
    to_hit = events[2].payload
    assert (to_hit["needed"], to_hit["successes"]) == (5, 4)
    assert to_hit["rules"] == [{"rule": "Stand and Shoot", "text": "Stand and Shoot: -1 to hit"}]
    assert [d["face"] for d in to_hit["roll"]["dice"]] == [5, 5, 5, 6, 4]
    assert events[3].payload["successes"] == 1 and events[4].payload["needed"] is None
    failed = events[-1].payload
    assert failed["range"] == 8 and failed["failed_move"]["allowed"] == 3
    assert failed["failed_move"]["distance"] == pytest.approx(3.0)
    assert "move 3.0 in towards Empire Handgunners" in failed["text"]
    halberdiers = unit(state, "u1")
    assert halberdiers.models == 9
    assert halberdiers.placement == pytest.approx((36.0, 23.0, 0.0))
    assert state.charges.pending is None


def test_a_charge_that_reaches_keeps_the_losses_of_the_shots() -> None:
    """The same volley, then 4 + 5 + 3 = 12 >= 10: the Halberdiers charge home with the 9
    models the shots left them."""
    state = charge()
    state, events = react(state, [5, 5, 5, 6, 4] + [3, 2, 1, 1] + [5, 3])
    assert events[-1].type == "charge_succeeded"
    assert unit(state, "u1").models == 9
    assert state.charges.engaged == {"u1": "u2"}


@pytest.mark.parametrize(("panic", "flees"), [([3, 3], False), ([5, 4], True)])
def test_a_charger_that_panics_does_not_charge(panic: list[int], flees: bool) -> None:
    """FACTS Panic: 25 % of the models lost in a phase from any cause. Five hits (5+), three
    wounds (3+): 3 of 10 Halberdiers fall, a Panic Test on Ld 7. Passed (6), the charge is
    rolled (4 + 6 + 6 = 16: it reaches); failed (9), the Halberdiers flee 2D6 and do not
    charge (`charge_abandoned`), no charge dice rolled."""
    state = charge()
    charge_dice = [] if flees else [6, 6]
    flee_dice = [3, 3] if flees else []
    state, events = react(state, [5, 5, 6, 6, 5] + [3, 3, 6, 2, 1] + panic + flee_dice
                          + charge_dice)
    kinds = [e.type for e in events]
    assert "heavy_casualties" in kinds and unit(state, "u1").models == 7
    if flees:
        assert kinds[-2:] == ["unit_fled", "charge_abandoned"]
        assert events[-1].payload["text"] == (
            "Empire Halberdiers do not charge: they flee after Empire Handgunners' Stand and "
            "Shoot"
        )
        assert "fleeing" in unit(state, "u1").markers
        assert "u1" not in state.charges.engaged
    else:
        assert kinds[-1] == "charge_succeeded"


def test_a_charger_shot_to_pieces_does_not_charge() -> None:
    """Ten Handgunners in one rank of 10: ten hits on 5+, ten wounds on 3+, no saves: the 10
    Halberdiers are destroyed and there is no charge to roll."""
    state = charge(army2={**HANDGUNNERS, "files": 10})
    state, events = react(state, [5] * 10 + [3] * 10)
    assert events[-1].type == "charge_abandoned"
    assert unit(state, "u1").status == "destroyed"
    assert events[-1].payload["reason"] == "destroyed by Empire Handgunners' Stand and Shoot"


def _refused(state: GameState) -> RuleError:
    with pytest.raises(RuleError) as err:
        core.decide(state, 2, {"type": "charge_reaction", "reaction": "stand_and_shoot"},
                    ScriptedDice([], state.dice_position))  # type: ignore[arg-type]
    return err.value


def test_a_charger_beyond_range_cannot_be_shot() -> None:
    """The charger must be within range (docs/rules-decisions.md): 26 in away, the Handguns
    reach 24 in. The refusal is in the declaration and in the answer to the reaction."""
    state = charge(gap=26.0)
    declared = state.charges.pending
    assert declared["reactions"] == ["hold", "flee"]
    err = _refused(state)
    assert err.code == "illegal_move" and err.details["rule"] == "Shooting: Range"
    assert err.message == "Empire Halberdiers is 26.0 in away; Handgun reaches 24.0 in"


def test_a_unit_without_a_shooting_weapon_cannot_stand_and_shoot() -> None:
    state = charge(army2={"datasheet": "empire-halberdiers", "models": 10, "files": 5})
    err = _refused(state)
    assert err.details["rule"] == "Stand and Shoot"
    assert err.message == "Empire Halberdiers (2) has no shooting weapon to Stand and Shoot with"


def test_a_charger_outside_the_front_arc_cannot_be_shot() -> None:
    """Shooting needs the target in the front arc and line of sight: the Halberdiers charge
    the Handgunners' flank from 12 in to their left (facing +x at x = 22), outside the
    Handgunners' front arc."""
    state = charge(places={"u1": (22.0, 31.0, 270.0), "u2": (36.0, 30.0, 180.0)})
    err = _refused(state)
    assert err.details["rule"] == "Shooting: Line of Sight"


def test_a_failed_charge_stops_short_of_a_friend() -> None:
    """FACTS Failed charge, and Unit Spacing (1 in): 4 + 2 + 5 = 11 < 16, so the Halberdiers
    (front y 14, left edge x 36 - 1.97 = 34.03) would move 5 in, but friendly Halberdiers
    (u2) stand ahead to their left, right edge x 33.5 and rear edge y 19.5. The move stops
    where the charger's front-left corner is 1 in from the friend's rear-right corner: the
    side gap g = 0.53 in, so the front edge ends at 19.5 - sqrt(1 - g^2) = 18.65 in: 4.65 in
    moved."""
    depth = 2 * 20 / 25.4
    friend_x = 33.5 - WIDTH / 2
    state = position(
        [HALBERDIERS, HALBERDIERS], [HANDGUNNERS],
        {"u1": (36.0, 14.0, 0.0), "u2": (friend_x, 19.5 + depth, 0.0), "u3": (36.0, 30.0, 180.0)},
        phase="Movement",
    )
    state, _ = run(state, 1, [], type="declare_charge", unit="u1", target="u3")
    state, events = run(state, 2, [2, 5], type="charge_reaction", reaction="hold")
    failed = events[-1].payload
    gap = (36.0 - WIDTH / 2) - 33.5
    front = 19.5 - math.sqrt(1.0 - gap**2)
    assert failed["failed_move"]["allowed"] == 5
    assert failed["failed_move"]["distance"] == pytest.approx(front - 14.0, abs=1e-3)
    assert failed["failed_move"]["stopped_by"] == (
        "Unit Spacing (Empire Halberdiers (2) is in the way)"
    )
    assert unit(state, "u1").placement[1] == pytest.approx(front, abs=1e-3)


def test_swiftstride_failed_charge_moves_the_highest_of_its_three_dice() -> None:
    """FACTS: Swiftstride rolls 3D6 keeping the highest two; the Failed Charge moves "the
    highest single D6 of its charge roll": of 1, 2, 3 (kept 2 + 3 = 5), 3 in."""
    from server.dice import Roll, parse_expression, resolve
    from server.rules.systems import variant_of

    spec = parse_expression("2D6 maximised x1")
    dice = ScriptedDice([1, 2, 3])
    faces, total, extra = resolve(spec, dice)
    roll = Roll(spec.canonical(), faces, total, 0, 3, extra)
    assert roll.total == 5
    whfb8, t9a = variant_of("whfb8").ranked, variant_of("t9a").ranked
    assert whfb8 is not None and t9a is not None
    assert whfb8.failed_charge_distance(roll.to_payload(), 5 + 4) == 3.0
    # t9a (a Decision, docs/rules-decisions.md "Charges"): the Charge Range rolled.
    assert t9a.failed_charge_distance(roll.to_payload(), 5 + 4) == 9.0


def test_a_failed_charge_move_that_comes_within_8_in_of_concealed_fanatics_stops_there() -> None:
    """Seed 003 (a move stops where the mover comes within 8 in of a unit concealing
    Fanatics, which are then released) and FACTS Failed charge: Empire Halberdiers (player 2)
    charge Night Goblins hiding two Fanatics 9.5 in away; 4 + 2 + 1 = 7 fails, and the Failed
    Charge move of 2 in stops after 1.5 in, 8 in from the Goblins: the Fanatics are revealed."""
    from server import geometry as geo
    from server.rules.units import table_of

    hiding = {"datasheet": "night-goblins", "models": 20, "files": 5,
              "concealed": {"night-goblin-fanatic": 2}}
    state = position([hiding], [HALBERDIERS], {"u1": (36.0, 10.0, 0.0), "u2": (36.0, 19.5, 180.0)},
                     phase="Movement", active=2)
    state, _ = run(state, 2, [], type="declare_charge", unit="u2", target="u1")
    state, events = run(state, 1, [2, 1], type="charge_reaction", reaction="hold")
    kinds = [e.type for e in events]
    assert kinds[:2] == ["charge_reaction", "charge_failed"] and "fanatics_revealed" in kinds
    failed = events[1].payload["failed_move"]
    assert failed["allowed"] == 2 and failed["distance"] == pytest.approx(1.5, abs=1e-3)
    table = table_of(state)
    assert geo.distance(table.units["u1"], table.units["u2"]).distance == pytest.approx(
        8.0, abs=1e-3
    )


def test_a_charger_destroyed_as_it_flees_is_said_to_flee_and_be_destroyed() -> None:
    """A charger that fled after the Stand and Shoot and was destroyed on its flee path (whfb8
    Fanatics' hits, seed page of the Night Goblins) is not said to be shot to pieces: the reason
    names the flight and the destruction."""
    import dataclasses

    from server.rules.charge import _abandoned
    from server.rules.units import with_unit

    state = charge()
    gone = dataclasses.replace(unit(state, "u1"), status="destroyed",
                               markers=(*unit(state, "u1").markers, "fleeing"))
    event = _abandoned(with_unit(state, gone), "u1", "u2", "stand_and_shoot")
    assert event is not None
    assert event.payload["reason"] == (
        "they flee after Empire Handgunners' Stand and Shoot and are destroyed as they flee")
