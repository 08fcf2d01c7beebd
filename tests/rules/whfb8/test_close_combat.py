"""whfb8 close combat details (issue 14 item 1; ../shared/rules/FACTS.md "whfb8: the battle"):
Fear tests at the start of a round and who is immune, Initiative order with great weapons and
Always Strikes First / Last, supporting ranks (spears, Hordes, Monstrous support)."""

from __future__ import annotations

import pytest

from server.data import Datasheet, load_catalog
from server.data.schema import SpecialRule
from server.rules.rankandflank.events import Log
from server.rules.whfb8 import profiles
from server.rules.whfb8.combat import WHFB8, fear_tests
from tests.rules.t9a.scripted import ScriptedDice
from tests.rules.t9a.test_combat import charged
from tests.rules.whfb8.positions import HALBERDIERS, SKELETONS, SWARM, position, run, unit


def sheet(datasheet: str, **changes: object) -> Datasheet:
    return load_catalog().get("whfb8", datasheet).model_copy(update=changes)


def kit(*names: str) -> list[SpecialRule]:
    return [SpecialRule(name=n) for n in names]


@pytest.mark.parametrize(
    ("army2", "faces", "tests"),
    [
        (HALBERDIERS, [3, 3], [("u2", True)]),  # 6 against Ld 7: passed
        (HALBERDIERS, [6, 5], [("u2", False)]),  # 11: failed, WS 1
        (HALBERDIERS, [1, 1], [("u2", True)]),  # a double 1 always passes
        (SKELETONS, [], []),  # Undead cause Fear: immune to it
    ],
)
def test_fear_at_the_start_of_the_round(
    army2: dict[str, object], faces: list[int], tests: list[tuple[str, bool]]
) -> None:
    """FACTS Fear: a unit in base contact with an enemy that causes Fear tests Leadership at
    the start of each round; failing, its models have WS 1 that round; Fear-causers (the
    Undead Tomb Swarm, Skeleton Warriors) are immune."""
    state = charged(
        position([SWARM], [army2], {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)}),
        "u1",
        "u2",
    )
    log = Log(state)
    dice = ScriptedDice(faces, state.dice_position)
    fear_tests(WHFB8, log, ["u1", "u2"], dice)
    assert dice.used == len(faces)
    assert [(e.payload["unit"], e.payload["passed"]) for e in log.events] == tests
    failed = [u for u, ok in tests if not ok]
    assert [u for u in ("u1", "u2") if log.state.moves.phase.get(u, {}).get(
        "fear_failed")] == failed


def test_a_units_fear_is_forgotten_in_the_next_phase() -> None:
    """FACTS Fear: WS 1 "that round": the failure is kept in the phase's moves, which the
    next phase starts without."""
    state = charged(
        position([SWARM], [HALBERDIERS], {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)}),
        "u1",
        "u2",
    )
    faces = [6, 5] + [1] * 10 + [1] * 15  # Fear failed; everyone misses
    state, events = run(state, 1, faces, type="fight_combat", unit="u1")
    assert state.moves.phase["u2"]["fear_failed"] is True
    to_hit = [e.payload for e in events if e.payload.get("step") == "to_hit"]
    assert [t["needed"] for t in to_hit] == [5, 3]  # WS 1 against 3; WS 3 against 1
    state, _ = run(state, 1, [], type="end_phase")
    assert "u2" not in state.moves.phase
    assert unit(state, "u2").models == 20


@pytest.mark.parametrize(
    ("equipment", "rules", "initiative", "step"),
    [
        ((), (), 3, 103),
        (("Great Weapon",), (), 3, 3),  # strikes last, Initiative order among those
        ((), ("Always Strikes First",), 3, 203),
        (("Great Weapon",), ("Always Strikes First",), 3, 103),  # they cancel out
    ],
)
def test_strike_order_initiative_great_weapons_and_always_strikes(
    equipment: tuple[str, ...], rules: tuple[str, ...], initiative: int, step: int
) -> None:
    """FACTS: Initiative order, highest first; Always Strikes First / Last adjust it; a great
    weapon strikes last. The event shows the Initiative itself."""
    ds = sheet(
        "empire-halberdiers",
        equipment=kit("Hand Weapon", *equipment),
        special_rules=kit(*rules),
    )
    part = WHFB8.melee_parts(ds)[0]
    assert WHFB8.strike_step(part) == step
    assert WHFB8.strike_order_value(step) == initiative


@pytest.mark.parametrize(
    ("equipment", "charged_now", "weapon", "strength", "ranks"),
    [
        (("Hand Weapon", "Halberd"), False, "Halberd", 1, 1),
        (("Hand Weapon", "Spear"), False, "Spear", 0, 2),  # on foot: one more rank
        (("Hand Weapon", "Spear"), True, "Spear", 0, 1),  # not in the turn it charged
        (("Hand Weapon", "Great Weapon"), False, "Great Weapon", 2, 1),
        (("Hand Weapon", "Shield"), False, "Hand Weapon", 0, 1),
    ],
)
def test_weapons_and_supporting_ranks(
    equipment: tuple[str, ...], charged_now: bool, weapon: str, strength: int, ranks: int
) -> None:
    """FACTS: the second rank supports; spears add a rank on foot when not charging; halberd
    +1 S; great weapon +2 S; hand weapon and shield: Parry."""
    ds = sheet("empire-halberdiers", equipment=kit(*equipment))
    got = WHFB8.melee_weapon(ds, charged_now)
    part = WHFB8.melee_parts(ds)[0]
    assert (got.name, got.strength, WHFB8.supporting_ranks(part, got)) == (
        weapon, strength, ranks
    )
    assert got.parry is (weapon == "Hand Weapon" and "Shield" in equipment)


def test_hordes_support_with_a_third_rank_and_monstrous_models_with_three_attacks() -> None:
    """FACTS: a Horde (10+ models wide) supports with a third rank; Monstrous troop types up
    to 3 Supporting Attacks each."""
    assert WHFB8.formation_support(9) == (0, None)
    extra, note = WHFB8.formation_support(10)
    assert extra == 1 and note is not None and note["rule"] == "Horde"
    monstrous = sheet(
        "empire-halberdiers",
        profile=profiles.profile_of(sheet("empire-halberdiers")).model_copy(
            update={"troop_type": "Monstrous Infantry"}
        ),
    )
    assert WHFB8.support_limit(WHFB8.melee_parts(monstrous)[0]) == 3
    assert WHFB8.support_limit(WHFB8.melee_parts(sheet("empire-halberdiers"))[0]) == 1


def test_a_horde_of_halberdiers_fights_with_its_third_rank() -> None:
    """FACTS Horde: 30 Halberdiers 10 wide (3 ranks) charged in the front by a Tomb Swarm:
    the files behind the models in contact support from the second and the third rank; the
    "attacks" step names Horde."""
    horde = {"datasheet": "empire-halberdiers", "models": 30, "files": 10}
    state = charged(
        position([SWARM], [horde], {"u1": (36.0, 24.0, 0.0), "u2": (36.0, 30.0, 180.0)}),
        "u1",
        "u2",
    )
    faces = [3, 3] + [1] * 40  # Fear passed; the rest misses (more faces than needed)
    dice = ScriptedDice(faces, state.dice_position)
    from server.rules import core

    events = core.decide(state, 1, {"type": "fight_combat", "unit": "u1"}, dice)  # type: ignore[arg-type]
    attacks = next(e.payload for e in events if e.payload.get("step") == "attacks"
                   and e.payload["unit"] == "u2")
    contact = attacks["in_contact"]
    assert attacks["supporting"] == 2 * contact  # second and third rank behind each
    assert attacks["successes"] == 3 * contact
    assert "Horde" in [r["rule"] for r in attacks["rules"]]
