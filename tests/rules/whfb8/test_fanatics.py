"""Night Goblin Fanatics (issue 15): concealment, release at 8 in mid-move, the whirl, the
hits and the removals, as the Fanatic page (../shared/seeds/003_39e99837749f8d9d.txt) and
FACTS.md ("whfb8": Random Movement; the Fanatic profile; Night Goblins) write them."""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from server.rules import core
from server.rules.core import Event, GameState, RuleError
from server.rules.units import table_of, units_of
from server.rules.whfb8.fanatics import concealed_of, pending_release
from tests.rules.t9a.scripted import ScriptedDice
from tests.rules.test_battle import act, fold, new_game
from tests.rules.whfb8.positions import GOBLINS, HALBERDIERS, position, run

HIDING = {**GOBLINS, "concealed": {"night-goblin-fanatic": 2}}


def _wire(events: list[Event], viewer: int | None) -> str:
    return json.dumps([e.to_wire(viewer) for e in events], sort_keys=True)


def _submitted(goblins: dict[str, Any]) -> tuple[GameState, list[Event]]:
    state = new_game("whfb8")
    log: list[Event] = []
    for seat, army in ((1, [goblins]), (2, [HALBERDIERS])):
        before = state.seq
        state, events = act(state, seat, type="submit_army", units=army)
        log += [e.__class__(e.type, e.payload, e.actor, e.visibility, before + i + 1)
                for i, e in enumerate(events)]
    return state, log


def test_concealment_is_an_owner_only_event_and_the_opponent_sees_a_game_without_fanatics() -> None:
    """Seed 003: "make a written note of any Night Goblin units that include Fanatics". The
    note is an event only its owner sees; the opponent's and a spectator's events and state
    are byte for byte those of a game whose goblins conceal nothing."""
    hiding, hiding_log = _submitted(HIDING)
    plain, plain_log = _submitted(GOBLINS)
    assert [e.type for e in hiding_log] == [e.type for e in plain_log]
    secret = [e for e in hiding_log if e.type == "fanatics_concealed"]
    assert [(e.visibility, e.payload["units"]) for e in secret] == [
        ("player:1", {"u1": 2}), ("player:2", {})
    ]
    assert secret[0].to_wire(1)["payload"]["units"] == {"u1": 2}
    for viewer in (2, None):
        assert _wire(hiding_log, viewer) == _wire(plain_log, viewer)
        assert json.dumps(hiding.to_json(viewer), sort_keys=True) == json.dumps(
            plain.to_json(viewer), sort_keys=True
        )
    assert hiding.to_json(1)["concealed"] == {"u1": 2}
    assert plain.to_json(1)["concealed"] == {}
    assert units_of(hiding)["u1"] == units_of(plain)["u1"]  # models, strength: unchanged


def test_more_than_three_fanatics_are_refused_without_an_event() -> None:
    """FACTS.md: up to 3 Fanatics per Night Goblin unit."""
    state = new_game("whfb8")
    with pytest.raises(RuleError) as err:
        act(state, 1, type="submit_army",
            units=[{**GOBLINS, "concealed": {"night-goblin-fanatic": 4}}])
    assert err.value.code == "bad_request"
    assert err.value.details["errors"][0]["code"] == "too_many_concealed"


def marching() -> GameState:
    """Night Goblins (player 1, u1, 2 Fanatics) 14 in from Empire Halberdiers (u2), player
    1's Movement phase."""
    return position(
        [HIDING], [HALBERDIERS],
        {"u1": (36.0, 10.0, 0.0), "u2": (36.0, 24.0, 180.0)},
        phase="Movement",
    )


def _hiding(state: GameState) -> GameState:
    return fold(state, [Event("fanatics_concealed", {"seat": 1, "units": {"u1": 2}}, 1,
                              core.seat_visibility(1))])


def _gap(state: GameState) -> float:
    table = table_of(state)
    from server import geometry as geo

    return geo.distance(table.units["u1"], table.units["u2"]).distance


def test_a_march_stops_at_exactly_8_in_and_the_release_is_public() -> None:
    """Seed 003: "Fanatics must be released when a concealing unit comes to within 8" of the
    enemy ... The moving unit stops immediately"; the unit may then carry on."""
    state = marching()
    assert concealed_of(state) == {"u1": 2}
    state, events = run(state, 1, [], type="move_unit", unit="u1", manoeuvre="forward",
                        distance=8.0, mode="march")
    assert [e.type for e in events] == ["unit_moved", "fanatics_revealed"]
    assert events[0].payload["distance"] == pytest.approx(6.0, abs=1e-3)
    assert _gap(state) == pytest.approx(8.0, abs=1e-3)
    assert all(e.visibility == core.PUBLIC for e in events)
    assert state.to_json(2)["fanatic_releases"][0]["left"] == 2
    with pytest.raises(RuleError) as err:
        run(state, 1, [], type="end_phase")
    assert err.value.code == "out_of_phase"
    # The unit carries on only once the Fanatics have moved.
    with pytest.raises(RuleError) as err:
        run(state, 1, [], type="move_unit", unit="u1", manoeuvre="forward", distance=1.0,
            mode="march")
    assert err.value.code == "out_of_phase" and err.value.details["rule"] == "Concealed Fanatic"


def test_an_unconcealed_march_is_not_stopped() -> None:
    """Without Fanatics nothing stops: the same march goes its whole 8 in."""
    state = position([GOBLINS], [HALBERDIERS],
                     {"u1": (36.0, 10.0, 0.0), "u2": (36.0, 24.0, 180.0)}, phase="Movement")
    _, events = run(state, 1, [], type="move_unit", unit="u1", manoeuvre="forward",
                    distance=8.0, mode="march")
    assert [e.type for e in events] == ["unit_moved"]
    assert events[0].payload["distance"] == pytest.approx(8.0)


def test_scripted_game_two_fanatics_whirl_one_bounces_through_one_rolls_a_double() -> None:
    """Issue 15 "Show": Night Goblins march towards Halberdiers, the move stops at 8 in, two
    Fanatics whirl out, one bounces through the Halberdiers and inflicts hits (D6 S5 Armour
    Piercing (1), seed 003), one rolls a double next turn and is removed."""
    state = marching()
    state, _ = run(state, 1, [], type="move_unit", unit="u1", manoeuvre="forward",
                   distance=8.0, mode="march")
    # Fanatic 1: from the middle of the goblins' front edge straight at the Halberdiers,
    # 5 + 4 = 9 in: it would end inside them, so it bounces 1 in beyond their rear.
    # Hits D6 = 4; to wound S5 vs T3 2+: 2, 3, 1, 6 = 3 wounds; light armour 6+ -2 (S5)
    # -1 (Armour Piercing): no save.
    front = 16.0
    state, events = run(state, 1, [5, 4, 4, 2, 3, 1, 6], type="release_fanatic", unit="u1",
                        point=[36.0, front], facing=0.0)
    released = events[0]
    assert released.type == "fanatic_released"
    assert released.payload["through"] == ["u2"]
    rear = table_of(state).units["u2"].boundary.bounds[3]
    radius = 12.5 / 25.4
    assert released.payload["end"][1] == pytest.approx(rear + 1.0 + radius, abs=1e-3)
    hits = next(e for e in events if e.type == "fanatic_hits")
    assert hits.payload["hits"] == 4
    steps = [e.payload for e in events if e.type == "attack_step"]
    assert [s["step"] for s in steps] == ["to_wound", "armour"]
    assert steps[0]["successes"] == 3 and steps[1]["needed"] is None
    lost = next(e for e in events if e.type == "hp_lost")
    assert lost.payload["losses"] == 3 and units_of(state)["u2"].models == 17
    # Fanatic 2: sideways from the goblins' left front corner, 3 + 1 = 4 in, into the open.
    state, events = run(state, 1, [3, 1], type="release_fanatic", unit="u1",
                        point=[34.5, front], facing=90.0)
    assert events[0].payload["through"] == [] and events[0].payload["removed"] is None
    assert state.to_json(2)["fanatic_releases"] == []
    second = events[0].payload["unit"]["id"]
    # Then the goblins may carry on with the 2 in left of their march.
    state, moved = run(state, 1, [], type="move_unit", unit="u1", manoeuvre="forward",
                       distance=2.0, mode="march")
    assert moved[0].payload["used"] == pytest.approx(8.0, abs=1e-3)
    # Not in the turn of release...
    with pytest.raises(RuleError):
        run(state, 1, [], type="random_move", unit=second)
    # ...but in player 1's next turn: scatter HIT (face 1: keeps its direction), 3 + 3.
    state = fold(state, [Event("phase_ended", {"ended": "Close Combat", "turn": 2,
                                               "active_player": 1, "phase": "Movement"})])
    state, events = run(state, 1, [1, 3, 3], type="random_move", unit=second)
    assert [e.type for e in events] == ["fanatic_moved", "fanatic_removed"]
    assert events[1].payload["reason"] == "double"
    assert units_of(state)[second].status == "destroyed"


def _release_outcomes(gap: float) -> Fraction:
    """Over every 2D6, the chance a Fanatic released straight at a unit whose front is `gap`
    in from the edge of the Fanatic's base passes through it (extra faces of 1 feed its
    hits: 1 hit, a 1 to wound)."""
    radius = 12.5 / 25.4
    state = position([HIDING], [HALBERDIERS],
                     {"u1": (36.0, 10.0, 0.0), "u2": (36.0, 10.0 + radius + gap, 180.0)},
                     phase="Movement")
    state = fold(state, [Event("fanatics_revealed", {"unit": "u1", "owner": 1, "count": 2,
                                                     "interrupted": "u2"})])
    reached = 0
    for a, b in product(range(1, 7), repeat=2):
        dice = ScriptedDice([a, b] + [1] * 4, state.dice_position)
        events = core.decide(state, 1, {"type": "release_fanatic", "unit": "u1",
                                        "point": [36.0, 10.0], "facing": 0.0},
                             dice)  # type: ignore[arg-type]
        reached += "u2" in events[0].payload["through"]
    return Fraction(reached, 36)


def test_a_fanatic_reaches_a_unit_8_in_away_with_probability_5_12_by_enumeration() -> None:
    """Seed 003: Fanatics move 2D6 in; a unit 8 in away in a straight line (edge of the
    Fanatic's base to the unit) is reached when 2D6 >= 8: 15/36 = 5/12."""
    assert _release_outcomes(8.0) == Fraction(15, 36) == Fraction(5, 12)


def test_a_fanatic_is_removed_by_a_double_on_its_first_later_move_one_time_in_six() -> None:
    """Seed 003: removed when "it rolls a double for movement" (not in the turn of release):
    6 of the 36 2D6 results, 1/6, enumerated through the action."""
    state = marching()
    state, _ = run(state, 1, [], type="move_unit", unit="u1", manoeuvre="forward",
                   distance=8.0, mode="march")
    state, events = run(state, 1, [3, 1], type="release_fanatic", unit="u1",
                        point=[34.5, 16.0], facing=90.0)
    fanatic = events[0].payload["unit"]["id"]
    state, _ = run(state, 1, [2, 1], type="release_fanatic", unit="u1",
                   point=[37.5, 16.0], facing=270.0)
    state = fold(state, [Event("phase_ended", {"ended": "Close Combat", "turn": 2,
                                               "active_player": 1, "phase": "Movement"})])
    removed = 0
    for a, b in product(range(1, 7), repeat=2):
        dice = ScriptedDice([1, a, b], state.dice_position)
        out = core.decide(state, 1, {"type": "random_move", "unit": fanatic},
                          dice)  # type: ignore[arg-type]
        removed += any(e.type == "fanatic_removed" for e in out)
    assert Fraction(removed, 36) == Fraction(1, 6)


def test_a_fanatic_start_point_must_be_on_its_concealing_unit() -> None:
    """Seed 003: "the point on the concealing unit from which it starts"."""
    state = marching()
    state, _ = run(state, 1, [], type="move_unit", unit="u1", manoeuvre="forward",
                   distance=8.0, mode="march")
    with pytest.raises(RuleError) as err:
        run(state, 1, [], type="release_fanatic", unit="u1", point=[10.0, 10.0], facing=0.0)
    assert err.value.code == "illegal_move"
    with pytest.raises(RuleError) as err:
        run(state, 2, [], type="release_fanatic", unit="u1", point=[36.0, 16.0], facing=0.0)
    assert err.value.code == "forbidden"


def test_an_enemy_march_towards_a_concealing_unit_is_stopped_too() -> None:
    """Seed 003: "... or vice versa": the enemy's move stops at 8 in, and the release is the
    owner's (player 1) although it is player 2's turn."""
    state = position([HIDING], [HALBERDIERS],
                     {"u1": (36.0, 10.0, 0.0), "u2": (36.0, 24.0, 180.0)},
                     phase="Movement", active=2)
    state, events = run(state, 2, [], type="move_unit", unit="u2", manoeuvre="forward",
                        distance=8.0, mode="march")
    assert [e.type for e in events] == ["unit_moved", "fanatics_revealed"]
    assert _gap(state) == pytest.approx(8.0, abs=1e-3)
    state, events = run(state, 1, [2, 1], type="release_fanatic", unit="u1",
                        point=[34.5, 10.0], facing=90.0)
    assert events[0].type == "fanatic_released"


Release = tuple[list[int], list[float], float]
"""One Fanatic's release: its 2D6 faces, the point on the goblins it starts from, its facing."""


def released_pair(first: Release, second: Release) -> tuple[GameState, str, str]:
    """The goblins march 8 in, are stopped 8 in from the Halberdiers, and release both their
    Fanatics as given; returns the state and the two Fanatics' ids, in release order."""
    state = marching()
    state, _ = run(state, 1, [], type="move_unit", unit="u1", manoeuvre="forward",
                   distance=8.0, mode="march")
    ids = []
    for faces, point, facing in (first, second):
        state, events = run(state, 1, faces, type="release_fanatic", unit="u1", point=point,
                            facing=facing)
        ids.append(events[0].payload["unit"]["id"])
    return state, ids[0], ids[1]


def _released() -> tuple[GameState, str]:
    """Both Fanatics released to the sides of the goblins (3 + 1 to the left, 2 + 1 to the
    right); returns the left one."""
    state, left, _ = released_pair(([3, 1], [34.5, 16.0], 90.0), ([2, 1], [37.5, 16.0], 270.0))
    return state, left


def test_a_random_movement_unit_cannot_declare_a_charge_or_march() -> None:
    """Seed 003 (Random Movement): "Models with Random Movement cannot declare charges" and
    "they cannot march"."""
    state, fanatic = _released()
    state = fold(state, [Event("phase_ended", {"ended": "Close Combat", "turn": 2,
                                               "active_player": 1, "phase": "Movement"})])
    with pytest.raises(RuleError) as err:
        run(state, 1, [], type="declare_charge", unit=fanatic, target="u2")
    assert err.value.code == "illegal_move" and err.value.details["rule"] == "Random Movement"
    with pytest.raises(RuleError) as err:
        run(state, 1, [], type="move_unit", unit=fanatic, manoeuvre="forward", distance=1.0,
            mode="march")
    assert err.value.details["rule"] == "Random Movement"


def test_fanatics_cannot_be_charged() -> None:
    """Seed 003: "Fanatics cannot be charged"."""
    state, fanatic = _released()
    state = fold(state, [Event("phase_ended", {"ended": "Close Combat", "turn": 1,
                                               "active_player": 2, "phase": "Movement"})])
    with pytest.raises(RuleError) as err:
        run(state, 2, [], type="declare_charge", unit="u2", target=fanatic)
    assert err.value.code == "illegal_move" and err.value.details["rule"] == "Fanatic Impacts"


def test_several_random_movement_rolls_use_the_slowest() -> None:
    """FACTS.md / seed 003: "If models in the unit have a different Random Movement value,
    use the slowest for the entire unit"."""
    from server.data import load_catalog
    from server.data.schema import Datasheet
    from server.rules.whfb8.random_movement import movement_dice

    fanatic = load_catalog().get("whfb8", "night-goblin-fanatic")
    faster = Datasheet.model_validate(
        {**fanatic.model_dump(mode="json"),
         "special_rules": ["Random Movement (3D6)"]}
    )
    assert movement_dice([fanatic]) == "2D6"
    assert movement_dice([faster, fanatic]) == "2D6"
    assert movement_dice([load_catalog().get("whfb8", "night-goblins")]) is None


def test_a_concealing_unit_that_flees_loses_its_fanatics_publicly() -> None:
    """Seed 003: "If a concealing unit flees or is destroyed, any Fanatics yet to be released
    are lost" - announced to everyone when the phase ends."""
    import dataclasses

    state = marching()
    units = dict(units_of(state))
    units["u1"] = dataclasses.replace(units["u1"], markers=("fleeing",))
    state = state.evolve(units=units)
    state, events = run(state, 1, [], type="end_phase")
    lost = [e for e in events if e.type == "fanatics_lost"]
    assert [e.payload["count"] for e in lost] == [2] and lost[0].visibility == core.PUBLIC
    assert concealed_of(state) == {}


def test_the_fanatic_page_rules_are_marked_automated() -> None:
    """GET /api/systems/whfb8/datasheets: the page's rules this module applies are marked
    automated (each proved by a test in this module: the test_immunity_* ones for Immunity)."""
    from server.data import load_catalog

    catalog = load_catalog()
    for rule in ("Random Movement", "Concealed Fanatic", "Fanatic Impacts", "Armour Piercing",
                 "Ball and Chain", "Immunity"):
        assert catalog.rule("whfb8", rule).automated, rule
    assert catalog.not_automated("whfb8", "night-goblin-fanatic") == []


def _sheet(base: str, rules: list[str]) -> Any:
    from server.data import load_catalog
    from server.data.schema import Datasheet

    raw = load_catalog().get("whfb8", base).model_dump(mode="json")
    return Datasheet.model_validate({**raw, "special_rules": rules})


def test_immunity_panic_fear_follows_the_majority_of_the_models() -> None:
    """Seed 003: "If the majority of the models in a unit have the Immunity (Panic, Fear or
    Terror) rule, the unit ignores the effects of Panic, Fear or Terror"; Immunity
    (Psychology) covers all three; Immunity (X) ignores only X."""
    from server.rules.whfb8.combat import immunity

    fanatic = _sheet("night-goblin-fanatic", ["Immunity (Psychology)"])
    goblins = _sheet("night-goblins", [])
    fearless = _sheet("night-goblins", ["Immunity (Fear)"])
    assert immunity([fanatic], "Panic") == "Immunity (Psychology)"
    assert immunity([fanatic], "Fear") == "Immunity (Psychology)"
    assert immunity([goblins, fanatic], "Panic", [20, 1]) is None
    assert immunity([goblins, fanatic], "Panic", [1, 2]) == "Immunity (Psychology)"
    assert immunity([fearless], "Fear") == "Immunity (Fear)"
    assert immunity([fearless], "Panic") is None


def test_immunity_psychology_forbids_flee_except_feigned_flight_unless_frenzied() -> None:
    """Seed 003: Immunity (Psychology) "may never choose Flee! as a charge reaction (except when
    using Feigned Flight or Fire & Flee, unless they also have Frenzy)"."""
    from server.rules.whfb8.variant import VARIANT

    ranked = VARIANT.ranked
    assert ranked is not None
    immune = _sheet("night-goblins", ["Immunity (Psychology)"])
    feigning = _sheet("night-goblins", ["Immunity (Psychology)", "Feigned Flight"])
    frenzied = _sheet("night-goblins", ["Immunity (Psychology)", "Feigned Flight", "Frenzy"])
    refusal = ranked.flee_refusal("Goblins", [immune], [])
    assert refusal is not None and refusal[0] == "Immunity (Psychology)"
    assert ranked.flee_refusal("Goblins", [feigning], []) is None
    assert ranked.flee_refusal("Goblins", [frenzied], []) is not None
    assert ranked.flee_refusal("Goblins", [_sheet("night-goblins", [])], []) is None


def test_a_unit_moving_into_a_fanatic_takes_2d6_hits_and_removes_it() -> None:
    """Seed 003: "models can move into contact with them. Any unit that does so takes 2D6 S 5
    Armour Piercing (1) hits. The Fanatic model is then removed, and the unit may carry on with
    its move." The Halberdiers step back 2 in into the Fanatic that bounced out behind them:
    2D6 = 3 + 2 = 5 hits; to wound S5 vs T3 2+: 2, 2, 1, 6, 5 = 4 wounds; no armour save."""
    state = marching()
    state, _ = run(state, 1, [], type="move_unit", unit="u1", manoeuvre="forward",
                   distance=8.0, mode="march")
    state, events = run(state, 1, [5, 4, 1, 1], type="release_fanatic", unit="u1",
                        point=[36.0, 16.0], facing=0.0)
    fanatic = events[0].payload["unit"]["id"]
    state, _ = run(state, 1, [3, 1], type="release_fanatic", unit="u1",
                   point=[34.5, 16.0], facing=90.0)
    state = fold(state, [Event("phase_ended", {"ended": "Close Combat", "turn": 1,
                                               "active_player": 2, "phase": "Movement"})])
    before = units_of(state)["u2"].models
    state, events = run(state, 2, [3, 2, 2, 2, 1, 6, 5], type="move_unit", unit="u2",
                        manoeuvre="backward", distance=2.0)
    kinds = [e.type for e in events]
    assert kinds[0] == "unit_moved" and "fanatic_removed" in kinds
    hits = next(e for e in events if e.type == "fanatic_hits")
    assert (hits.payload["target"], hits.payload["hits"]) == ("u2", 5)
    assert units_of(state)["u2"].models == before - 4
    assert units_of(state)[fanatic].status == "destroyed"
    assert units_of(state)["u2"].placement is not None
    assert units_of(state)["u2"].placement[1] == pytest.approx(24.0 + 2.0, abs=1e-3)


def test_an_enemy_charge_stops_at_8_in_for_the_release_then_completes() -> None:
    """Seed 003: the moving unit stops when it comes within 8 in of a concealing unit; "Once
    the Fanatic's movement has been resolved ... chargers must complete their charge". The
    Halberdiers (M4) charge the goblins 11 in away with 4 + 4: they stop 8 in away, the two
    Fanatics whirl off to the side, and the charge then ends in contact."""
    state = position([HIDING], [HALBERDIERS],
                     {"u1": (36.0, 10.0, 0.0), "u2": (36.0, 21.0, 180.0)},
                     phase="Movement", active=2)
    state, _ = run(state, 2, [], type="declare_charge", unit="u2", target="u1")
    state, events = run(state, 1, [4, 4], type="charge_reaction", reaction="hold")
    kinds = [e.type for e in events]
    assert kinds[-2:] == ["charge_interrupted", "fanatics_revealed"], kinds
    assert _gap(state) == pytest.approx(8.0, abs=1e-3)
    with pytest.raises(RuleError):
        run(state, 2, [], type="end_phase")
    state, events = run(state, 1, [1, 2], type="release_fanatic", unit="u1",
                        point=[34.5, 10.0], facing=90.0)
    assert "charge_succeeded" not in [e.type for e in events]
    state, events = run(state, 1, [2, 1], type="release_fanatic", unit="u1",
                        point=[37.5, 10.0], facing=270.0)
    assert [e.type for e in events][-1] == "charge_succeeded"
    assert _gap(state) == pytest.approx(0.0, abs=0.02)
    assert state.charges.engaged["u2"] == "u1"


@pytest.fixture
def random_goblins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Night Goblins given Random Movement (2D6) for these tests (no such unit in the
    catalogue besides the Fanatic, which always moves in a random direction)."""
    from server.data.catalog import Catalog

    real = Catalog.get
    changed = _sheet("night-goblins", ["Random Movement (2D6)"])

    def get(self: Catalog, system: str, datasheet: str) -> Any:
        if (system, datasheet) == ("whfb8", "night-goblins"):
            return changed
        return real(self, system, datasheet)

    monkeypatch.setattr(Catalog, "get", get)


@pytest.mark.usefixtures("random_goblins")
def test_a_random_move_goes_straight_the_rolled_distance() -> None:
    """FACTS.md / seed 003: pivot about its centre, roll, move straight ahead: 5 + 4 = 9 in."""
    state = position([GOBLINS], [HALBERDIERS],
                     {"u1": (36.0, 10.0, 0.0), "u2": (36.0, 21.0, 180.0)}, phase="Movement")
    state, events = run(state, 1, [5, 4], type="random_move", unit="u1", facing=0.0)
    assert events[0].type == "unit_moved" and events[0].payload["distance"] == pytest.approx(9.0)
    assert units_of(state)["u1"].placement[1] == pytest.approx(19.0, abs=1e-3)


@pytest.mark.usefixtures("random_goblins")
def test_a_random_move_reaching_an_enemy_is_a_charge_without_reaction() -> None:
    """Seed 003: "If the move is found to take the unit's front arc into contact with an enemy,
    then it counts as charging ... using the distance rolled as its charge range. Charge
    reactions cannot be declared": 6 + 6 = 12 in against 11 in."""
    state = position([GOBLINS], [HALBERDIERS],
                     {"u1": (36.0, 10.0, 0.0), "u2": (36.0, 21.0, 180.0)}, phase="Movement")
    state, events = run(state, 1, [6, 6], type="random_move", unit="u1", facing=0.0)
    assert [e.type for e in events] == ["charge_succeeded"]
    assert state.charges.engaged["u1"] == "u2" and not state.charges.pending
    assert _gap(state) == pytest.approx(0.0, abs=0.02)


@pytest.mark.usefixtures("random_goblins")
def test_a_random_move_stops_within_1_in_of_a_friend() -> None:
    """FACTS.md: "coming within 1 in of a friendly unit or impassable terrain stops the move":
    5 + 4 = 9 in rolled, a friend 8 in ahead: it stops after 7 in."""
    state = position([GOBLINS, GOBLINS], [HALBERDIERS],
                     {"u1": (36.0, 10.0, 0.0), "u2": (36.0, 18.0, 180.0),
                      "u3": (10.0, 40.0, 180.0)}, phase="Movement")
    state, events = run(state, 1, [5, 4], type="random_move", unit="u1", facing=0.0)
    assert events[0].payload["stopped"] is True
    assert events[0].payload["distance"] == pytest.approx(7.0, abs=1e-3)
    assert _gap(state) == pytest.approx(1.0, abs=1e-3)


def test_an_enemy_already_within_8_in_does_not_hide_another_that_comes_within() -> None:
    """Seed 003: released "when a concealing unit comes to within 8" of the enemy": each
    enemy counts on its own; one already within 8 in when the move began (4 in to the side)
    does not stop it, the Halberdiers ahead (14 in) do, after 6 in."""
    state = position([HIDING], [HALBERDIERS, HALBERDIERS],
                     {"u1": (36.0, 10.0, 0.0), "u2": (28.0, 10.0, 0.0),
                      "u3": (36.0, 24.0, 180.0)}, phase="Movement")
    state, events = run(state, 1, [], type="move_unit", unit="u1", manoeuvre="forward",
                        distance=8.0, mode="march")
    assert [e.type for e in events] == ["unit_moved", "fanatics_revealed"]
    assert events[0].payload["distance"] == pytest.approx(6.0, abs=1e-3)


@pytest.mark.usefixtures("random_goblins")
def test_a_random_move_towards_a_concealing_unit_stops_at_8_in() -> None:
    """Seed 003: "in any move" - a unit with Random Movement (here the Halberdiers' enemy,
    goblins given the rule) that comes within 8 in of concealing goblins stops there:
    5 + 4 = 9 in rolled, 14 in away: it stops after 6 in."""
    state = position([GOBLINS], [GOBLINS],
                     {"u1": (36.0, 10.0, 0.0), "u2": (36.0, 24.0, 180.0)}, phase="Movement")
    state = fold(state, [Event("fanatics_concealed", {"seat": 2, "units": {"u2": 1}}, 2,
                               core.seat_visibility(2))])
    state, events = run(state, 1, [5, 4], type="random_move", unit="u1", facing=0.0)
    assert [e.type for e in events] == ["unit_moved", "fanatics_revealed"]
    assert events[0].payload["distance"] == pytest.approx(6.0, abs=1e-3)


def test_an_arrival_within_8_in_releases_the_fanatics() -> None:
    """Seed 003: released when "a concealing unit comes to within 8" of the enemy or vice
    versa" - in any move, an arrival too: a Tomb Swarm emerging (seed 002, a HIT leaves the
    marker where it was put) within 8 in of concealing goblins releases their Fanatics."""
    from tests.rules.helpers import Game
    from tests.rules.whfb8.test_entombed import SWARM, act, of, ready, swarm

    game = Game("whfb8")
    game.act(1, type="submit_army", units=[SWARM])
    game.act(2, type="submit_army", units=[HIDING])
    mine = next(u.id for u in units_of(game.state).values() if u.owner == 1)
    gob = next(u.id for u in units_of(game.state).values() if u.owner == 2)
    game.act(1, type="declare_reserve", unit=mine)
    game.act(2, type="deploy_unit", unit=gob, x=36, y=40, facing=180)
    ready(game, 3)
    events = act(game, 1, [1, 2], type="place_entombed_marker", unit=mine, x=36, y=34)
    placement = of(events, "entombed_marker")["suggested"]
    events = act(game, 1, type="emerge", unit=swarm(game).id, **placement)
    assert [e.type for e in events] == ["entombed_emerged", "fanatics_revealed"]
    assert pending_release(game.state)[0] == {
        "unit": gob, "left": 2, "owner": 2, "interrupted": mine
    }


def test_a_fanatic_ending_within_8_in_of_enemy_concealing_goblins_releases_theirs() -> None:
    """Seed 003 ("or vice versa"): a released Fanatic is an enemy unit of the other side's
    concealing goblins; 6 + 6 = 12 in brings it within 8 in of them: theirs are released."""
    state = position([HIDING], [GOBLINS],
                     {"u1": (36.0, 10.0, 0.0), "u2": (36.0, 30.0, 180.0)}, phase="Movement")
    state = fold(state, [
        Event("fanatics_concealed", {"seat": 2, "units": {"u2": 1}}, 2, core.seat_visibility(2)),
        Event("fanatics_revealed", {"unit": "u1", "owner": 1, "count": 2, "interrupted": "u2"}),
    ])
    state, events = run(state, 1, [6, 6], type="release_fanatic", unit="u1",
                        point=[36.0, 10.0], facing=0.0)
    assert [e.type for e in events] == ["fanatic_released", "fanatics_revealed"]
    assert events[1].payload["unit"] == "u2" and events[1].payload["owner"] == 2
    pending = {r["unit"]: r["left"] for r in pending_release(state)}
    assert pending == {"u1": 1, "u2": 1}


def _with_dangerous_terrain(state: GameState) -> GameState:

    from server.geometry.kinds import TerrainKind
    from server.geometry.table import Terrain

    marsh = Terrain("t1", ((30.0, 14.0), (42.0, 14.0), (42.0, 16.0), (30.0, 16.0)),
                    TerrainKind.DANGEROUS)
    return state.evolve(terrain=(marsh,))


@pytest.mark.usefixtures("random_goblins")
def test_a_random_move_through_dangerous_terrain_says_its_test_is_not_automated() -> None:
    """Seed 003: "A Random Move counts as a "normal" move for triggering a Dangerous Terrain
    test, unless the model is making a charge, pursuit or flee move". Warfield has no Dangerous
    Terrain test: the move says so, naming the piece and the kind of move, instead of dropping
    it; a move that misses the terrain says nothing."""
    state = _with_dangerous_terrain(position(
        [GOBLINS], [HALBERDIERS], {"u1": (36.0, 10.0, 0.0), "u2": (36.0, 30.0, 180.0)},
        phase="Movement"))
    _, events = run(state, 1, [3, 2], type="random_move", unit="u1", facing=0.0)
    p = events[0].payload
    assert p["dangerous_terrain"] == ["t1"]
    assert p["not_automated"].startswith("Dangerous Terrain: not automated")
    assert "Dangerous terrain" in p["not_automated"] and "normal move" in p["not_automated"]
    assert "Dangerous Terrain: not automated" in p["text"]
    _, events = run(state, 1, [3, 2], type="random_move", unit="u1", facing=180.0)
    assert "not_automated" not in events[0].payload


@pytest.mark.usefixtures("random_goblins")
def test_a_random_move_charge_through_dangerous_terrain_names_the_charge_test() -> None:
    """Seed 003: a random move that reaches an enemy is a charge, and then "it counts as a move
    of the appropriate type" for Dangerous Terrain: the charge says its test is not automated."""
    state = _with_dangerous_terrain(position(
        [GOBLINS], [HALBERDIERS], {"u1": (36.0, 10.0, 0.0), "u2": (36.0, 21.0, 180.0)},
        phase="Movement"))
    _, events = run(state, 1, [6, 6], type="random_move", unit="u1", facing=0.0)
    assert events[0].type == "charge_succeeded"
    assert "for a charge by hand" in events[0].payload["not_automated"]
