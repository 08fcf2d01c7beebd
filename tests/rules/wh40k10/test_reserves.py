"""Issue 16 item 2: Reserves, Deep Strike and Strategic Reserves (server/rules/wh40k10/reserves.py).

FACTS.md (wh40k10, Deep Strike): set up in the Reinforcements step of your Movement phase,
from battle round 2, more than 9 in horizontally from every enemy model. The 10th-edition core
rules, as recorded in docs/rules-decisions.md ("Reserves"): Strategic Reserves for any unit, at
most 25% of the army's points, arriving wholly within 6 in of a battlefield edge and, in battle
round 2, not in the enemy's deployment zone; Reserves not arrived by the end of the battle are
destroyed. No datasheet of ours has Deep Strike (the Intercessors do not): the tests use a
fixture datasheet, the Intercessor Squad with Deep Strike added."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from server.data import load_catalog
from server.data.schema import SpecialRule
from server.rules.battle import stage
from server.rules.orders import orders_for
from server.rules.units import units_of
from tests.rules.test_battle import act, new_game, refused
from tests.rules.wh40k10.game import place, row, to_phase

DEEP = "deep-striking-squad"


@pytest.fixture(autouse=True)
def deep_strikers() -> Iterator[None]:
    """A datasheet with Deep Strike: the Intercessor Squad's, under another id."""
    sheets = load_catalog().sheets["wh40k10"]
    base = sheets["intercessor-squad"]
    rule = SpecialRule(name="Deep Strike", param=None, printed="Deep Strike")
    sheets[DEEP] = base.model_copy(  # type: ignore[index]
        update={"id": DEEP, "name": "Deep Striking Squad",
                "special_rules": [*base.special_rules, rule]}
    )
    yield
    del sheets[DEEP]  # type: ignore[attr-defined]


SQUAD = {"datasheet": "intercessor-squad", "models": 5}


def _game(reserves: dict[str, str]):  # type: ignore[no-untyped-def]
    """Ten Boyz (u1, player 1) against the Deep Striking Squad (u2) and three Intercessor
    Squads (u3-u5, player 2: 320 points); `reserves` maps unit ids to the action keeping them
    off the table; the others deploy. The battle has begun."""
    state = new_game("wh40k10")
    state, _ = act(state, 1, type="submit_army",
                   units=[{"datasheet": "beast-snagga-boyz", "models": 10}])
    state, _ = act(state, 2, type="submit_army",
                   units=[{"datasheet": DEEP, "models": 5}, SQUAD, SQUAD, SQUAD])
    spots = {"u1": (15.0, 6.0), "u2": (10.0, 38.0), "u3": (22.0, 38.0), "u4": (34.0, 38.0),
             "u5": (46.0, 38.0)}
    while stage(state) == "deployment":
        seat = int(state.battle.deploying)
        uid = next(u.id for u in units_of(state).values()
                   if u.owner == seat and u.status == "undeployed")
        if uid in reserves:
            extra = {"mode": "reserve"} if reserves[uid] == "declare_reserve" else {}
            state, _ = act(state, seat, type=reserves[uid], unit=uid, **extra)
        else:
            x, y = spots[uid]
            state, _ = act(state, seat, type="deploy_unit", unit=uid, x=x, y=y)
    return state


def test_deep_strike_arrives_from_round_2_more_than_9_in_from_every_enemy_model() -> None:
    """FACTS.md, Deep Strike."""
    state = _game({"u2": "declare_reserve"})
    assert units_of(state)["u2"].status == "reserve"
    early = to_phase(state, 2, "Movement", turn=1)
    err = refused(early, 2, type="arrive_from_reserves", unit="u2", x=40.0, y=25.0)
    assert "first battle round" in err.message
    state = to_phase(state, 2, "Movement", turn=2)
    state = place(state, "u1", row(10, 20.0, x0=10.0))
    close = refused(state, 2, type="arrive_from_reserves", unit="u2", x=20.0, y=28.0)
    assert close.details["rule"] == "Deep Strike" and "more than 9 in" in close.message
    assert "Beast Snagga Boyz is closer" in close.message
    state, events = act(state, 2, type="arrive_from_reserves", unit="u2", x=45.0, y=22.0)
    assert events[0].type == "reserves_arrived" and events[0].payload["rule"] == "Deep Strike"
    assert units_of(state)["u2"].status == "on_table"
    moved = refused(state, 2, type="move_models", unit="u2",
                    positions=[(x, y + 1) for x, y in units_of(state)["u2"].positions])
    assert "already moved" in moved.message


def test_an_arrival_out_of_coherency_names_the_model_at_fault() -> None:
    """FACTS.md (Unit coherency): a unit of 5 needs each model within 2 in of another; the
    Sergeant set down 4 in from the rest is named."""
    state = to_phase(_game({"u2": "declare_reserve"}), 2, "Movement", turn=2)
    spread = [(x - (4.0 if i == 0 else 0.0), y) for i, (x, y) in enumerate(row(5, 22.0, 42.0))]
    err = refused(state, 2, type="arrive_from_reserves", unit="u2", positions=spread)
    assert err.details["rule"] == "Unit Coherency"
    assert "Intercessor Sergeant #1 is more than 2 in from any other model" in err.message
    assert err.details["incoherent_models"] == ["Intercessor Sergeant #1"]


def test_only_a_unit_entirely_with_deep_strike_may_deep_strike() -> None:
    """FACTS.md / core rules: Deep Strike is the unit's own ability."""
    state = new_game("wh40k10")
    state, _ = act(state, 1, type="submit_army",
                   units=[{"datasheet": "beast-snagga-boyz", "models": 10}])
    state, _ = act(state, 2, type="submit_army", units=[SQUAD])
    err = refused(state, 1, type="declare_reserve", unit="u1", mode="reserve")
    assert err.code == "illegal_move"


def test_strategic_reserves_hold_at_most_a_quarter_of_the_army() -> None:
    """Core rules (docs/rules-decisions.md): at most 25% of the army's points."""
    state = _game({"u3": "declare_strategic_reserves"})
    assert units_of(state)["u3"].status == "reserve"
    state = new_game("wh40k10")
    state, _ = act(state, 1, type="submit_army",
                   units=[{"datasheet": "beast-snagga-boyz", "models": 10}])
    state, _ = act(state, 2, type="submit_army",
                   units=[{"datasheet": DEEP, "models": 5}, SQUAD, SQUAD, SQUAD])
    state, _ = act(state, 1, type="deploy_unit", unit="u1", x=15.0, y=6.0)
    state, _ = act(state, 2, type="declare_strategic_reserves", unit="u2")
    err = refused(state, 2, type="declare_strategic_reserves", unit="u3")
    assert err.details["rule"] == "Strategic Reserves"
    assert "at most a quarter of the army's 320 points (80 already there)" in err.message


def test_strategic_reserves_arrive_near_an_edge_and_not_in_the_enemy_zone_in_round_2() -> None:
    """Core rules (docs/rules-decisions.md): wholly within 6 in of a battlefield edge, more
    than 9 in from every enemy model, not in the enemy deployment zone in battle round 2."""
    state = _game({"u3": "declare_strategic_reserves"})
    state = to_phase(state, 2, "Movement", turn=2)
    state = place(state, "u1", row(10, 9.5, x0=35.0))
    middle = refused(state, 2, type="arrive_from_reserves", unit="u3", x=30.0, y=24.0)
    assert "wholly within 6 in of a battlefield edge" in middle.message
    column = [(2.5, 3.0 + i * 1.4) for i in range(5)]
    zone = refused(state, 2, type="arrive_from_reserves", unit="u3", positions=column)
    assert "enemy's deployment zone in battle round 2" in zone.message
    column = [(2.5, 18.0 + i * 1.4) for i in range(5)]
    state, events = act(state, 2, type="arrive_from_reserves", unit="u3", positions=column)
    assert events[0].payload["rule"] == "Strategic Reserves"
    assert "arrive from Reserves" in events[0].payload["text"]


def test_reserves_that_never_arrived_are_destroyed_at_the_end_of_the_battle() -> None:
    """Core rules (docs/rules-decisions.md): Reserves not arrived by the end of the battle are
    destroyed."""
    state = _game({"u2": "declare_reserve"})
    ended = []
    while stage(state) != "over":
        state, events = act(state, int(state.battle.active_player), type="end_phase")
        ended += [e for e in events if e.type == "reserves_destroyed"]
    assert [e.payload["unit"] for e in ended] == ["u2"]
    assert units_of(state)["u2"].status == "destroyed"
    assert ended[0].payload["text"] == "Deep Striking Squad never arrived from Reserves: destroyed"


def test_the_deployment_orders_offer_deep_strike_and_strategic_reserves() -> None:
    """The orders agree with the rules above: Deep Strike kept in Reserves (mode "reserve"),
    Strategic Reserves offered to any unit while the 25% allows it."""
    state = new_game("wh40k10")
    state, _ = act(state, 1, type="submit_army",
                   units=[{"datasheet": "beast-snagga-boyz", "models": 10}])
    state, _ = act(state, 2, type="submit_army",
                   units=[{"datasheet": DEEP, "models": 5}, SQUAD, SQUAD, SQUAD])
    state, _ = act(state, 1, type="deploy_unit", unit="u1", x=15.0, y=6.0)
    orders = orders_for(state, 2)["units"]
    assert orders["u2"]["declare_reserve"]["rule"] == "Deep Strike"
    assert orders["u2"]["declare_reserve"]["mode"] == "reserve"
    assert "declare_reserve" not in orders["u3"]
    assert orders["u3"]["declare_strategic_reserves"]["available"]


def test_the_arrive_order_says_why_not_in_battle_round_1() -> None:
    """FACTS.md, Deep Strike (from battle round 2): in round 1 the Arrive order of a unit in
    Reserves is shown refused with the reason, naming how it arrives (the projection of the
    orders used to fail here)."""
    state = _game({"u2": "declare_reserve", "u3": "declare_strategic_reserves"})
    early = to_phase(state, 2, "Movement", turn=1)
    orders = orders_for(early, 2)["units"]
    deep, strategic = orders["u2"]["arrive_from_reserves"], orders["u3"]["arrive_from_reserves"]
    assert deep["available"] is False and "first battle round" in deep["reason"]
    assert deep["rule"] == "Deep Strike" and strategic["rule"] == "Strategic Reserves"
    later = orders_for(to_phase(state, 2, "Movement", turn=2), 2)["units"]
    assert later["u2"]["arrive_from_reserves"]["available"] is True
