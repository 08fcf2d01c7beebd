"""The 9th Age shooting and melee from hand-worked positions (issue 5 items 4-5): combat score,
Break Test, Steadfast, Supernal, Fearless and Light Troops as the Mageblight Gremlin page says
(../shared/seeds/000_ac64b535f31b5cdf.txt), with scripted dice so every number is worked by
hand."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from server.geometry.frame import Placement
from server.rules import core
from server.rules.charge import contact_placement
from server.rules.core import Event, GameState, RuleError
from server.rules.rankandflank import break_test as breaking
from server.rules.rankandflank import combat_result, melee
from server.rules.rankandflank.engagement import melee_rounds, with_melee_rounds
from server.rules.rankandflank.events import Log
from server.rules.units import Unit, table_of, units_of, with_engaged
from tests.rules.t9a.scripted import ScriptedDice
from tests.rules.test_battle import act, fold, new_game

GREMLINS, SPEARS, ARCHERS = "mageblight-gremlin", "citizen-spears", "citizen-archers"


def position(
    army1: list[dict[str, Any]],
    army2: list[dict[str, Any]],
    places: dict[str, tuple[float, float, float]],
    *,
    phase: str = "Melee",
    active: int = 1,
) -> GameState:
    """Armies as submitted, then units standing where `places` says (x, y, facing of the
    front-edge centre), in `phase` of player `active`'s first turn: a hand-worked position."""
    state = new_game()
    state, _ = act(state, 1, type="submit_army", units=army1)
    state, _ = act(state, 2, type="submit_army", units=army2)
    state = fold(
        state, [Event("battle_started", {"turn": 1, "active_player": active, "phase": phase})]
    )
    units = dict(units_of(state))
    for uid, placement in places.items():
        units[uid] = dataclasses.replace(units[uid], status="on_table", placement=placement)
    return state.evolve(units=units)


def with_units(state: GameState, **changes: dict[str, Any]) -> GameState:
    units = dict(units_of(state))
    for uid, fields in changes.items():
        units[uid] = dataclasses.replace(units[uid], **fields)
    return state.evolve(units=units)


def charged(state: GameState, charger: str, target: str) -> GameState:
    """`charger` moved into contact with `target` as a charge leaves it, and engaged."""
    table = table_of(state)
    place, _ = contact_placement(table.units[charger], table.units[target])
    state = with_units(
        state,
        **{charger: {"placement": (round(place.x, 4), round(place.y, 4), round(place.facing, 4))}},
    )
    engaged = {**state.charges.engaged, charger: target}
    return with_engaged(state, engaged)


def run(
    state: GameState, seat: int, faces: list[int], **action: Any
) -> tuple[GameState, list[Event]]:
    dice = ScriptedDice(faces, state.dice_position)
    events = core.decide(state, seat, action, dice)  # type: ignore[arg-type]
    assert dice.used == len(faces), f"{dice.used} dice used of {len(faces)}"
    return fold(state, events), events


def unit(state: GameState, uid: str) -> Unit:
    return units_of(state)[uid]


def gremlins_charged_spears(gremlins: int = 3) -> GameState:
    """Gremlins (player 1, u1) charged the front of 20 Citizen Spears (player 2, u2, 5 x 4)."""
    state = position(
        [{"datasheet": GREMLINS, "models": gremlins}],
        [{"datasheet": SPEARS, "models": 20, "files": 5}],
        {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)},
    )
    return charged(state, "u1", "u2")


# --- the full melee -------------------------------------------------------------------------------


SPEARS_HIT = [6, 6, 5, 4, 4, 4, 3, 3, 2, 1, 1, 2, 3, 1, 2]  # 15 attacks at 4+: 6 hits
SPEARS_WOUND = [4, 5, 6, 1, 2, 3]  # 4+: 3 wounds
GREMLIN_AEGIS = [5, 1, 2]  # Aegis 5+: 1 saved, 2 Health Points lost
GREMLINS_HIT = [6, 6, 6, 5, 4, 4, 3, 3, 2, 2, 1, 1, 1, 2, 3]  # 15 at 4+: 6 hits, three 6s
GREMLINS_WOUND = [5, 1, 2]  # 3 hits at 5+: 1 wound (+3 Poison Attacks)
SPEARS_ARMOUR = [5, 6, 5, 1]  # Armour 2: 5+: 3 saved, 1 Health Point lost
BREAK_TEST = [4, 3]  # 7 against Discipline 6 - 2 = 4: failed


def test_full_melee_gremlins_against_spears() -> None:
    """Issue 5's melee, worked by hand:

    Agility 5, Citizen Spears: 5 models in contact + 10 supporting (second rank; third rank by
    Fight in Extra Rank / Spear) = 15 attacks; OS4 vs DS3 is 3+, Distracting makes it 4+
    (seed 000): 6 hits; Strength 3 vs Resilience 3, 4+: 3 wounds; Armour 0: no save; Aegis 5+
    saves 1: the Gremlins lose 2 Health Points (Unit.damage 2 on one HP 4 model).
    Agility 2, Gremlins: 3 in contact x 5 = 15 attacks; OS3 vs DS4, 4+: 6 hits, three on a 6
    wound automatically (Poison Attacks); the other 3 need 5+: 1 wound; 4 wounds against
    Armour 2 (Light Armour, Shield) 5+: 3 saved: the Spears lose 1 model.
    Score: Gremlins 1 + 1 charge = 2 (Light Troops: zero Proper Ranks); Spears 2 + 2 ranks
    (19 models: 5, 5, 5, 4 - three Proper Ranks) = 4. Gremlins lose by 2: Break Test on
    Discipline 6 - 2 = 4, rolled 7: failed, so Supernal: 2 Health Point losses, no saves, on
    the wounded Gremlin (2 + 2 = 4 of 4): one model removed; the unit stays in combat.
    """
    state = gremlins_charged_spears()
    faces = (
        SPEARS_HIT
        + SPEARS_WOUND
        + GREMLIN_AEGIS
        + GREMLINS_HIT
        + GREMLINS_WOUND
        + SPEARS_ARMOUR
        + BREAK_TEST
    )
    start = state.dice_position
    state, events = run(state, 1, faces, type="fight_combat", unit="u2")
    assert [e.type for e in events] == [
        "combat_round",
        "attack_step",
        "attack_step",
        "attack_step",
        "attack_step",
        "attack_step",
        "hp_lost",
        "attack_step",
        "attack_step",
        "attack_step",
        "attack_step",
        "hp_lost",
        "combat_score",
        "break_test",
        "hp_lost",
        "combat_fought",
    ]
    texts = [e.payload["text"] for e in events]
    rules = [r for e in events for r in e.payload.get("rules", [])]
    spears_attacks = events[1].payload
    assert (spears_attacks["in_contact"], spears_attacks["supporting"]) == (5, 10)
    assert spears_attacks["successes"] == 15 and spears_attacks["weapon"] == "Spear"
    assert {"rule": "Distracting", "text": "Distracting: -1 to hit (now 4+)"} in rules
    assert events[2].payload["needed"] == 4 and events[2].payload["successes"] == 6
    assert "no armour save" in texts[4]
    assert events[5].payload["roll"]["dice"] == [{"face": f, "kept": True} for f in GREMLIN_AEGIS]
    assert events[6].payload["losses"] == 2 and events[6].payload["unit_after"]["damage"] == 2
    assert events[7].payload["successes"] == 15 and events[7].payload["in_contact"] == 3
    assert {"rule": "Poison Attacks", "text": "Poison Attacks: 3 automatic wounds"} in rules
    assert events[11].payload["losses"] == 1
    score = events[12].payload
    assert score["scores"]["1"] == {
        "health_points": 1,
        "rank_bonus": 0,
        "standard": 0,
        "charge": 1,
        "flank": 0,
        "rear": 0,
        "total": 2,
        "rules": [
            {
                "rule": "Light Troops",
                "text": "Light Troops: Mageblight Gremlin count zero Proper Ranks",
            }
        ],
    }
    assert score["scores"]["2"]["total"] == 4 and score["scores"]["2"]["rank_bonus"] == 2
    assert (score["winner"], score["difference"]) == (2, 2)
    test = events[13].payload
    assert (test["needed"], test["roll"]["total"], test["passed"]) == (4, 7, False)
    supernal = events[14].payload
    assert (supernal["rule"], supernal["losses"], supernal["saves"]) == ("Supernal", 2, False)
    assert supernal["text"].startswith("Supernal: Mageblight Gremlin lose 2 Health Points")
    g, s = unit(state, "u1"), unit(state, "u2")
    assert (g.models, g.damage, g.markers) == (2, 0, ())
    assert (s.models, s.damage) == (19, 0)
    assert state.dice_position == start + len(faces)
    assert state.charges.engaged == {"u1": "u2"}
    assert melee_rounds(state) == {"u1": 1, "u2": 1}
    err = pytest.raises(
        RuleError,
        core.decide,
        state,
        1,
        {"type": "fight_combat", "unit": "u1"},
        ScriptedDice([], state.dice_position),
    )
    assert "already been fought" in err.value.message


def test_second_round_has_no_charge_bonus() -> None:
    """Charge bonus only in the round the unit charged."""
    state = gremlins_charged_spears()
    state = with_melee_rounds(state, {"u1": 1, "u2": 1})
    scores = combat_result.combat_score(state, ["u1", "u2"], {})
    assert scores[1]["charge"] == 0 and scores[2]["rank_bonus"] == 3


def test_extra_support_in_melee() -> None:
    """Seed 000, Extra Support (2): 5 Gremlins in 3 files: 3 in contact x 5 attacks, the 2 in
    the second rank support with 2 attacks each instead of 1: 19 attacks."""
    state = gremlins_charged_spears(gremlins=5)
    strikers = [s for s in melee.strikers(state, ["u1", "u2"]) if s.unit == "u1"]
    strike, event = melee.strike_for(state, strikers[0], ScriptedDice([]))
    assert strike is not None and event is not None
    assert (event.payload["in_contact"], event.payload["supporting"], strike.attacks) == (3, 2, 19)
    assert event.payload["rules"][0]["rule"] == "Extra Support"


# --- combat score ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "flank", "rear"),
    [
        ((36.0, 24.0, 0.0), 0, 0),  # in front of the Spears
        ((30.0, 33.0, 90.0), 1, 0),  # from their flank
        ((36.0, 44.0, 180.0), 0, 2),  # from their rear
    ],
)
def test_combat_score_flank_and_rear(
    start: tuple[float, float, float], flank: int, rear: int
) -> None:
    """Flank +1 and Rear +2 by the arc the Gremlins stand in; charge +1; the Spears' four
    Proper Ranks give +3, the Gremlins' Light Troops none (seed 000)."""
    state = position(
        [{"datasheet": GREMLINS, "models": 3}],
        [{"datasheet": SPEARS, "models": 20, "files": 5}],
        {"u1": start, "u2": (36.0, 30.0, 180.0)},
    )
    state = charged(state, "u1", "u2")
    scores = combat_result.combat_score(state, ["u1", "u2"], {1: 2, 2: 1})
    assert (scores[1]["flank"], scores[1]["rear"], scores[1]["charge"]) == (flank, rear, 1)
    assert scores[1]["total"] == 2 + 1 + flank + rear
    assert scores[2]["rank_bonus"] == 3 and scores[2]["total"] == 1 + 3


def test_standard_and_disrupted() -> None:
    """+1 for a standard; a unit with an enemy of two or more Proper Ranks in its flank loses
    its Rank Bonus (Disrupted)."""
    state = position(
        [{"datasheet": SPEARS, "models": 20, "files": 5}],
        [{"datasheet": SPEARS, "models": 20, "files": 5}],
        {"u1": (28.0, 33.0, 90.0), "u2": (36.0, 30.0, 180.0)},
    )
    state = with_units(charged(state, "u1", "u2"), u2={"markers": ("standard",)})
    scores = combat_result.combat_score(state, ["u1", "u2"], {})
    assert scores[1]["rank_bonus"] == 3 and scores[1]["flank"] == 1
    assert scores[2]["rank_bonus"] == 0 and scores[2]["standard"] == 1
    assert scores[2]["rules"][0]["rule"] == "Disrupted"


@pytest.mark.parametrize(
    ("datasheet", "models", "files", "ranks"),
    [
        (SPEARS, 20, 5, 4),
        (SPEARS, 19, 5, 3),  # the fourth rank has 4 models
        (SPEARS, 10, 10, 1),
        (GREMLINS, 5, 3, 0),  # Light Troops: zero Proper Ranks
        (GREMLINS, 5, 5, 0),
    ],
)
def test_proper_ranks_and_light_troops(datasheet: str, models: int, files: int, ranks: int) -> None:
    """Seed 000, Light Troops: a unit containing Light Troops has zero Proper Ranks."""
    state = position(
        [{"datasheet": datasheet, "models": models, "files": files}],
        [{"datasheet": SPEARS, "models": 10}],
        {"u1": (36.0, 10.0, 0.0)},
    )
    assert combat_result.proper_ranks(state, unit(state, "u1")) == ranks


def test_light_troops_attachable_exception() -> None:
    """Seed 000, Light Troops: attachable models with Light Troops joined to a unit are ignored
    for Proper Ranks unless the unit is only attachable models."""
    from server.rules.t9a import profiles

    spears, gremlin = profiles.sheet("t9a", SPEARS), profiles.sheet("t9a", GREMLINS)
    assert not profiles.contains_light_troops(spears, [gremlin])
    assert profiles.contains_light_troops(None, [gremlin])
    assert profiles.contains_light_troops(gremlin, [])
    assert not profiles.contains_light_troops(None, [spears])


# --- Break Tests, Supernal, fleeing, Panic Tests and Fearless ----------------------------------


def break_test(
    state: GameState, uid: str, difference: int, enemy_ranks: int, faces: list[int]
) -> tuple[GameState, list[Event]]:
    log = Log(state)
    dice = ScriptedDice(faces, state.dice_position)
    breaking.break_test(log, unit(state, uid), difference, enemy_ranks, ["u1"], dice)
    assert dice.used == len(faces)
    return log.state, log.events


@pytest.mark.parametrize(
    ("difference", "enemy_ranks", "faces", "needed", "passed", "steadfast"),
    [
        # 6 against 8 - 3; flees 2 + 3 = 5 in; the Gremlins pursue 2 + 1 (Swiftstride: three
        # dice, the lowest discarded) = 3 in: the Spears escape.
        (3, 4, [3, 3, 2, 3, 1, 1, 2], 5, False, False),
        (3, 4, [2, 3], 5, True, False),
        (3, 0, [4, 4], 8, True, True),  # Steadfast: 4 Proper Ranks against 0
        (3, 3, [4, 4], 8, True, True),
        (6, 4, [1, 1], 2, True, False),
    ],
)
def test_break_test_and_steadfast(
    difference: int, enemy_ranks: int, faces: list[int], needed: int, passed: bool, steadfast: bool
) -> None:
    """Break Test: 2D6 against Discipline (8) minus the difference; Steadfast (more Proper
    Ranks than the enemy) tests against the unmodified Discipline. A failure flees."""
    state = charged(
        position(
            [{"datasheet": GREMLINS, "models": 3}],
            [{"datasheet": SPEARS, "models": 20, "files": 5}],
            {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)},
        ),
        "u1",
        "u2",
    )
    state, events = break_test(state, "u2", difference, enemy_ranks, faces)
    test = events[0].payload
    assert (test["needed"], test["passed"], test["steadfast"]) == (needed, passed, steadfast)
    if passed:
        assert len(events) == 1 and unit(state, "u2").markers == ()
    else:
        assert events[1].type == "unit_broke" and events[1].payload["away_from"] == "u1"
        fled = events[2].payload
        assert events[2].type == "unit_fled" and fled["distance"] == 5.0
        pursued = events[3].payload
        assert events[3].type == "unit_pursued" and pursued["distance"] == 3.0
        assert not pursued["caught"] and pursued["rule"] == "Swiftstride"
        assert fled["facing"] == pytest.approx(0.0)  # turned directly away from the Gremlins
        assert "fleeing" in unit(state, "u2").markers
        assert state.charges.engaged == {}


def test_supernal_losses_instead_of_breaking() -> None:
    """Seed 000, Supernal: a unit entirely with Supernal that fails a Break Test suffers Health
    Point losses equal to the combat lost by, no saves (no dice beyond the test), rank-and-file
    first and then attachable models as evenly as possible; it does not flee. The Daemon Herald
    (Supernal) joined to the Gremlins keeps the unit entirely Supernal."""
    state = charged(
        position(
            [{"datasheet": SPEARS, "models": 20, "files": 5}],
            [{"datasheet": GREMLINS, "models": 2, "joined_characters": ["daemon-herald"]}],
            {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)},
        ),
        "u1",
        "u2",
    )
    state = with_units(state, u2={"damage": 3})  # one Gremlin has 1 of 4 Health Points left
    state, events = break_test(state, "u2", 7, 4, [6, 6])
    assert [e.type for e in events] == ["break_test", "hp_lost"]
    lost = events[1].payload
    # 7 losses: 1 + 4 remove both Gremlins, the last 2 go to the Herald (HP 3).
    assert (lost["rule"], lost["losses"], lost["models_removed"]) == ("Supernal", 7, 2)
    assert lost["character_losses"] == [2]
    g = unit(state, "u2")
    assert (g.models, g.characters[0].damage, g.markers, g.status) == (0, 2, (), "on_table")


def test_supernal_destroys_and_fearless_passes_panic() -> None:
    """Seed 000, Supernal and Fearless: the last Gremlin is killed by Supernal losses; the
    other Gremlins within 6 in contain Fearless and pass their Panic Test without a roll."""
    state = charged(
        position(
            [{"datasheet": SPEARS, "models": 20, "files": 5}],
            [{"datasheet": GREMLINS, "models": 2}, {"datasheet": GREMLINS, "models": 2}],
            {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0), "u3": (42.0, 33.0, 180.0)},
        ),
        "u1",
        "u2",
    )
    state = with_units(state, u2={"models": 1, "damage": 3})
    state, events = break_test(state, "u2", 2, 4, [6, 6])
    assert [e.type for e in events] == ["break_test", "hp_lost", "unit_destroyed", "panic_test"]
    assert unit(state, "u2").status == "destroyed" and state.charges.engaged == {}
    panic = events[3].payload
    assert (panic["unit"], panic["passed"], panic["rule"]) == ("u3", True, "Fearless")
    assert panic["text"].startswith("Fearless: Mageblight Gremlin (2) pass the Panic Test")


def test_panic_test_without_fearless_flees() -> None:
    """A unit that breaks makes friendly units within 6 in take a Panic Test (2D6 against
    Discipline); the Archers roll 11 against 8 and flee through the flee call site. Units
    farther than 6 in test nothing."""
    state = charged(
        position(
            [{"datasheet": GREMLINS, "models": 3}],
            [
                {"datasheet": SPEARS, "models": 20, "files": 5},
                {"datasheet": ARCHERS, "models": 10},
                {"datasheet": ARCHERS, "models": 10},
            ],
            {
                "u1": (36.0, 24.0, 0.0),
                "u2": (36.0, 30.0, 180.0),
                "u3": (44.0, 30.0, 180.0),
                "u4": (60.0, 30.0, 180.0),
            },
        ),
        "u1",
        "u2",
    )
    state, events = break_test(state, "u2", 5, 0, [6, 6, 2, 3, 5, 6, 1, 2, 1, 1, 1])
    assert [e.type for e in events] == [
        "break_test", "unit_broke", "unit_fled", "panic_test", "unit_broke", "unit_fled",
        "unit_pursued",
    ]
    assert events[3].payload["unit"] == "u3" and events[3].payload["passed"] is False
    assert events[5].payload["distance"] == 3.0
    assert "fleeing" in unit(state, "u3").markers and unit(state, "u4").markers == ()


# --- shooting -------------------------------------------------------------------------------------


def archers_and_gremlins(gap: float = 20.0, phase: str = "Shooting") -> GameState:
    """10 Citizen Archers (player 1, 5 x 2, Longbow 30 in, Aim 4+) face 3 Gremlins `gap` in
    away."""
    return position(
        [{"datasheet": ARCHERS, "models": 10, "files": 5}, {"datasheet": SPEARS, "models": 10}],
        [{"datasheet": GREMLINS, "models": 3}],
        {"u1": (36.0, 10.0, 0.0), "u2": (10.0, 10.0, 0.0), "u3": (36.0, 10.0 + gap, 180.0)},
        phase=phase,
    )


def test_shooting_hard_target_and_long_range() -> None:
    """Seed 000, Hard Target (1): 10 Longbow shots at 20 in (beyond half of 30: Long Range -1)
    need 4+ +1 +1 = 6+: two 6s hit; Strength 3 vs Resilience 3, 4+: one wound; Armour 0;
    Aegis 5+ fails on a 2: one Gremlin loses a Health Point (Unit.damage 1)."""
    state = archers_and_gremlins()
    faces = [6, 6, 5, 5, 4, 3, 2, 1, 1, 2] + [4, 1] + [2]
    state, events = run(state, 1, faces, type="shoot", unit="u1", target="u3")
    assert [e.type for e in events] == [
        "shots_fired",
        "attack_step",
        "attack_step",
        "attack_step",
        "attack_step",
        "hp_lost",
    ]
    assert events[0].payload["shots"] == 10
    to_hit = events[1].payload
    assert to_hit["needed"] == 6 and to_hit["successes"] == 2
    assert [r["rule"] for r in to_hit["rules"]] == ["Long Range", "Hard Target"]
    assert to_hit["rules"][1]["text"] == "Hard Target (1): -1 to hit"
    assert (unit(state, "u3").models, unit(state, "u3").damage) == (3, 1)
    err = pytest.raises(
        RuleError,
        core.decide,
        state,
        1,
        {"type": "shoot", "unit": "u1", "target": "u3"},
        ScriptedDice([], state.dice_position),
    )
    assert "already shot" in err.value.message


def test_shooting_at_short_range_needs_five() -> None:
    state = archers_and_gremlins(gap=10.0)
    state, events = run(
        state, 1, [5] * 10 + [6] * 10 + [1] * 10, type="shoot", unit="u1", target="u3"
    )
    assert events[1].payload["needed"] == 5 and events[1].payload["successes"] == 10
    # 10 wounds, no armour, Aegis fails all: 10 Health Points -> 2 Gremlins dead, 2 lost on one.
    assert (unit(state, "u3").models, unit(state, "u3").damage) == (1, 2)


@pytest.mark.parametrize(
    ("gap", "phase", "shooter", "code", "rule"),
    [
        (20.0, "Melee", "u1", "out_of_phase", None),
        (31.0, "Shooting", "u1", "illegal_move", "Shooting: Range"),
        (20.0, "Shooting", "u2", "illegal_move", "Shooting"),  # Spears: no shooting weapon
    ],
)
def test_shooting_refusals(
    gap: float, phase: str, shooter: str, code: str, rule: str | None
) -> None:
    state = archers_and_gremlins(gap, phase)
    with pytest.raises(RuleError) as err:
        core.decide(
            state,
            1,
            {"type": "shoot", "unit": shooter, "target": "u3"},
            ScriptedDice([], state.dice_position),
        )  # type: ignore[arg-type]
    assert err.value.code == code and err.value.details.get("rule") == rule


def test_no_shooting_into_combat() -> None:
    state = archers_and_gremlins()
    state = with_engaged(state, {"u2": "u3"})
    state = with_units(state, u2={"placement": (36.0, 40.0, 180.0)})
    with pytest.raises(RuleError) as err:
        core.decide(
            state,
            1,
            {"type": "shoot", "unit": "u1", "target": "u3"},
            ScriptedDice([], state.dice_position),
        )  # type: ignore[arg-type]
    assert "Engaged" in err.value.message


def test_combat_needs_an_engaged_unit() -> None:
    state = archers_and_gremlins(phase="Melee")
    with pytest.raises(RuleError) as err:
        core.decide(
            state, 1, {"type": "fight_combat", "unit": "u1"}, ScriptedDice([], state.dice_position)
        )  # type: ignore[arg-type]
    assert err.value.details["rule"] == "Melee"


def test_placement_helper_is_flush() -> None:
    """The hand-worked positions put the charger's front edge on the target's facing."""
    state = gremlins_charged_spears()
    assert unit(state, "u1").placement == (36.0, 30.0, 0.0)
    assert Placement(*unit(state, "u1").placement).facing == 0.0


def test_unit_destroyed_in_melee_panics_friends_fearless_pass() -> None:
    """Citizen Spears charge a lone Gremlin with 1 Health Point left: 3 Spears in contact (the
    Gremlin's 40 mm base touches three 20 mm files) + 6 supporting = 9 attacks at 4+
    (Distracting); one hit, one wound, no armour, Aegis fails: the Gremlin is destroyed before
    it strikes. No Break Test is left to take; the other Gremlins within 6 in contain Fearless
    and pass their Panic Test without a roll (seed 000)."""
    state = position(
        [{"datasheet": SPEARS, "models": 20, "files": 5}],
        [{"datasheet": GREMLINS, "models": 2}, {"datasheet": GREMLINS, "models": 2}],
        {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0), "u3": (40.0, 31.0, 180.0)},
    )
    state = with_units(charged(state, "u1", "u2"), u2={"models": 1, "damage": 3})
    faces = [6, 1, 1, 1, 1, 1, 1, 1, 1] + [6] + [1]
    state, events = run(state, 1, faces, type="fight_combat", unit="u1")
    assert [e.type for e in events] == [
        "combat_round",
        "attack_step",
        "attack_step",
        "attack_step",
        "attack_step",
        "attack_step",
        "hp_lost",
        "unit_destroyed",
        "combat_score",
        "panic_test",
        "combat_fought",
    ]
    assert (events[1].payload["in_contact"], events[1].payload["supporting"]) == (3, 6)
    assert events[8].payload["winner"] == 1
    assert events[8].payload["scores"]["1"]["total"] == 1 + 3 + 1
    assert events[9].payload["rule"] == "Fearless" and events[9].payload["unit"] == "u3"
    assert unit(state, "u2").status == "destroyed" and state.charges.engaged == {}
    assert "u1" not in melee_rounds(state)


def test_attachable_models_alone_still_fight() -> None:
    """When the rank-and-file are gone, the joined Daemon Herald (Magical Attacks) is the unit
    and fights with its own profile; attacks then go to it."""
    state = position(
        [{"datasheet": SPEARS, "models": 20, "files": 5}],
        [{"datasheet": GREMLINS, "models": 2, "joined_characters": ["daemon-herald"]}],
        {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)},
    )
    state = with_units(charged(state, "u1", "u2"), u2={"models": 0})
    herald = [s for s in melee.strikers(state, ["u1", "u2"]) if s.unit == "u2"]
    assert [(s.character, s.step) for s in herald] == [(0, 6)]
    strike, _ = melee.strike_for(state, herald[0], ScriptedDice([]))
    assert strike is not None and strike.attacks == 4 and "Magical Attacks" in strike.attributes
    guard = melee.guard(state, unit(state, "u2"), parry=True)
    assert (guard.name, guard.defensive_skill, guard.parry) == ("Daemon Herald", 5, False)


def test_seeded_battle_charge_fight_and_every_roll_verifies() -> None:
    """With the game's own seeded stream: the Gremlins charge (Swiftstride), the phases run to
    the Melee Phase and the combat is fought; every roll of the log recomputes from the seed,
    contiguously from the charge on (the dice stream is the only source of chance)."""
    from server.dice import commitment, verify
    from server.rules.core import rolls_of
    from tests.rules.test_battle import SEED

    state = position(
        [{"datasheet": GREMLINS, "models": 3}],
        [{"datasheet": SPEARS, "models": 20, "files": 5}],
        {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)},
        phase="Charge",
    )
    log: list[Event] = []
    state, events = act(state, 1, type="declare_charge", unit="u1", target="u2")
    log += events
    assert events[0].type == "charge_declared"  # the Spears answer: Hold
    state, events = act(state, 2, type="charge_reaction", reaction="hold")
    log += events
    assert [e.type for e in events][-1] == "charge_succeeded"
    for _ in range(4):
        state, events = act(state, 1, type="end_phase")
    state, events = act(state, 1, type="fight_combat", unit="u1")
    log += events
    kinds = {e.type for e in events}
    assert {"combat_round", "attack_step", "combat_score", "combat_fought"} <= kinds
    rolls = [r for e in log for r in rolls_of(e.payload)]
    report = verify(SEED, commitment(SEED), rolls)
    assert report.ok, report
    assert rolls[0]["start"] == 0 and rolls[-1]["end"] == state.dice_position


@pytest.mark.parametrize(
    ("flags", "refused_by", "moving_modifier"),
    [
        ({"moved": True, "marched": True, "march_rules": True}, "Shooting: Marched", False),
        # Seed 000, Light Troops: a Reform beyond Mobility counts as a March for
        # march-triggered rules only; "for the purpose of shooting, this is still a Reform".
        ({"moved": True, "marched": False, "march_rules": True}, None, True),
        ({}, None, False),
    ],
)
def test_marching_stops_shooting_but_a_light_troops_reform_does_not(
    flags: dict[str, bool], refused_by: str | None, moving_modifier: bool
) -> None:
    from server.rules.units import record_turn_move

    state = archers_and_gremlins(gap=10.0)
    if flags:
        state = record_turn_move(state, "u1", **flags)
    action = {"type": "shoot", "unit": "u1", "target": "u3"}
    if refused_by is not None:
        with pytest.raises(RuleError) as err:
            core.decide(state, 1, action, ScriptedDice([], state.dice_position))
        assert err.value.details["rule"] == refused_by
        return
    # Fives hit only without the -1 (then ten 1s fail to wound); with it, nothing hits.
    faces = [5] * 10 + ([] if moving_modifier else [1] * 10)
    _, events = run(state, 1, faces, **action)
    rules = [r["rule"] for r in events[1].payload["rules"]]
    assert ("Moving and Shooting" in rules) is moving_modifier
    assert events[1].payload["needed"] == (6 if moving_modifier else 5)


def test_a_swiftstride_pursuit_catches_the_broken_unit() -> None:
    """Seed 000, Swiftstride: Pursue Distance rolls gain Maximised. The Spears break and flee
    2 + 1 = 3 in; the Gremlins pursue with three dice, the lowest discarded: 6 + 5 = 11 in,
    at least the Flee Distance: the Spears are caught and destroyed, and the Gremlins move."""
    state = charged(
        position(
            [{"datasheet": GREMLINS, "models": 3}],
            [{"datasheet": SPEARS, "models": 20, "files": 5}],
            {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)},
        ),
        "u1",
        "u2",
    )
    before = unit(state, "u1").placement
    state, events = break_test(state, "u2", 3, 4, [3, 3, 2, 1, 6, 1, 5])
    assert [e.type for e in events] == [
        "break_test", "unit_broke", "unit_fled", "unit_pursued", "fleeing_unit_caught"
    ]
    pursued = events[3].payload
    assert pursued["caught"] and pursued["distance"] == 11.0 and pursued["flee_distance"] == 3.0
    assert [d["kept"] for d in pursued["roll"]["dice"]] == [True, False, True]
    assert "caught" in pursued["text"]
    assert unit(state, "u2").status == "destroyed"
    assert unit(state, "u1").placement != before and pursued["moved"] > 0


def test_a_standard_bearer_is_taken_in_the_army_list() -> None:
    """Combat score's +1 Standard (issue 5 item 4) needs a Standard Bearer: an army entry with
    `standard: true` (t9a, whfb8) gives the unit the marker the combat score reads."""
    from tests.rules.test_battle import act as battle_act
    from tests.rules.test_battle import new_game, refused

    state, _ = battle_act(new_game(), 1, type="submit_army",
                          units=[{"datasheet": SPEARS, "models": 20, "standard": True}])
    assert unit(state, "u1").markers == ("standard",)
    err = refused(new_game("wh40k10"), 1, type="submit_army",
                  units=[{"datasheet": "boyz", "models": 10, "standard": True}])
    assert err.details["errors"][0]["code"] == "no_standard"
