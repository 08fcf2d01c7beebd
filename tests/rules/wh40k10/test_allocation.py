"""Issue 16 item 4: the defender's allocation order (server/rules/wh40k10/allocation.py).

FACTS.md (wh40k10, the core loop, Allocation): the defender allocates each successful wound, to
a model that already lost wounds first. Seed 004 (Attached units): no allocation to a Character
while a Bodyguard model lives. Decision (docs/rules-decisions.md, "Allocation"): the defender
sets the order of their Bodyguard model kinds beforehand; the attack follows it."""

from __future__ import annotations

from server.rules.orders import orders_for
from server.rules.units import units_of
from tests.rules.test_battle import act, refused
from tests.rules.wh40k10.game import BASE_IN, deployed, place, row, scripted, steps, to_phase


def _shot_at_intercessors(state, faces):  # type: ignore[no-untyped-def]
    """The Boyz (player 1) fire their Sluggas at the Intercessors 10 in away."""
    state = to_phase(state, 1, "Shooting")
    state = place(state, "u2", row(5, 30.0, x0=24.0))
    state = place(state, "u1", row(10, 20.0, x0=20.0) + [(26.0, 18.6)])
    return scripted(state, 1, faces, type="shoot_weapons", unit="u1",
                    weapons=[{"weapon": "Slugga", "target": "u2"}])


# One Slugga hit that wounds (S 4 vs T 4: 4+) and is not saved; the other nine miss.
ONE_WOUND = [6] + [1] * 9 + [6] + [1]


def _allocated(events):  # type: ignore[no-untyped-def]
    return [s["text"] for s in steps(events) if s["step"] == "allocate"]


def test_by_default_the_last_intercessor_takes_the_wound_and_the_sergeant_stays() -> None:
    """Decision (docs/rules-decisions.md): without an order, the last Bodyguard model first."""
    _, events, _ = _shot_at_intercessors(deployed(), ONE_WOUND)
    words = _allocated(events)
    assert len(words) == 1 and "Intercessor #5" in words[0]


def test_the_defender_orders_the_sergeant_first_and_the_attack_follows_it() -> None:
    """FACTS.md: the defender allocates; the order is theirs to set, before the attack."""
    state, events = act(deployed(), 2, type="set_allocation_order", unit="u2",
                        models=["Intercessor Sergeant", "Intercessor"])
    assert events[0].type == "allocation_order_set"
    assert "Intercessor Sergeant, then Intercessor first" in events[0].payload["text"]
    assert state.to_json()["forty"]["models"]["u2"][0]["name"] == "Intercessor Sergeant"
    assert state.to_json()["forty"]["allocation"] == {
        "u2": ["Intercessor Sergeant", "Intercessor"]}
    state, events, _ = _shot_at_intercessors(state, ONE_WOUND)
    words = _allocated(events)
    assert len(words) == 1 and "Intercessor Sergeant #1" in words[0]
    assert state.to_json()["forty"]["models"]["u2"][0]["lost"] == 1


def test_a_wounded_model_still_goes_first_whatever_the_order() -> None:
    """FACTS.md: a model that already lost wounds is allocated to first."""
    state, _ = act(deployed(), 2, type="set_allocation_order", unit="u2",
                   models=["Intercessor Sergeant", "Intercessor"])
    # the first wound goes to the Sergeant (2 W, 1 lost); the second must follow it.
    two = [6, 6] + [1] * 8 + [6, 6] + [1, 1]
    state, events, _ = _shot_at_intercessors(state, two)
    words = _allocated(events)
    assert len(words) == 2 and all("Intercessor Sergeant #1" in w for w in words)
    assert len(units_of(state)["u2"].positions) == 4


def test_an_order_with_no_choice_a_leader_or_a_wrong_list_is_refused() -> None:
    """Seed 004, Attached units: the Wurrboy takes no attack while a Bodyguard model lives, so
    it is never in the order; the Beast Snagga Boyz have one kind of model: no choice."""
    state = deployed()
    err = refused(state, 1, type="set_allocation_order", unit="u1", models=["Beast Snagga Boy"])
    assert err.code == "illegal_move" and "no allocation choice" in err.message
    err = refused(state, 2, type="set_allocation_order", unit="u2", models=["Intercessor"])
    assert err.code == "bad_request" and err.details["lines"] == [
        "Intercessor", "Intercessor Sergeant"]
    err = refused(state, 1, type="set_allocation_order", unit="u2",
                  models=["Intercessor", "Intercessor Sergeant"])
    assert err.code in ("forbidden", "illegal_move", "not_found")


# --- the owner's order of models ------------------------------------------------------------------

BOYZ = {"datasheet": "beast-snagga-boyz", "models": 10}
SQUAD = {"datasheet": "intercessor-squad", "models": 5}
# One Bolt rifle hit of ten, it wounds (S 4 vs T 5: 5+), the save fails; twice (Boyz: W 2).
TWO_ON_ONE = [6, 6] + [1] * 8 + [6, 6] + [1, 1]


def _boyz_in_contact():  # type: ignore[no-untyped-def]
    """Ten Boyz (u1) in a row, their right-hand four in base contact with the Intercessors
    (u2), in player 1's Shooting phase (the Boyz' owner acts: their orders are shown)."""
    state = to_phase(deployed([BOYZ], [SQUAD]), 1, "Shooting")
    state = place(state, "u1", row(10, 20.0, x0=20.0))
    return place(state, "u2", row(5, 20.0 + BASE_IN, x0=20.0 + 6 * (BASE_IN + 0.1)))


def test_the_owner_is_offered_the_sensible_order_and_takes_it_in_one_action() -> None:
    """The order offered is the server's own default (the far end of the row first, the Boyz
    in base contact last): sending `suggested` as it is sets it."""
    state = _boyz_in_contact()
    offer = orders_for(state, 1)["units"]["u1"]["set_allocation_order"]
    assert offer["available"] and not offer["chosen"]
    ids = [m["id"] for m in offer["casualties"]]
    assert ids == offer["suggested"]["order"][:10]
    assert ids[0] == "u1.0" and offer["casualties"][0]["name"] == "Beast Snagga Boy #1"
    assert set(ids[-4:]) == {"u1.6", "u1.7", "u1.8", "u1.9"}
    state, events = act(state, 1, **offer["suggested"])
    assert events[0].type == "allocation_order_set"
    assert "will lose Beast Snagga Boy #1 first" in events[0].payload["text"]
    assert orders_for(state, 1)["units"]["u1"]["set_allocation_order"]["chosen"]


def test_the_owner_may_choose_a_model_in_base_contact_to_go_first() -> None:
    """A real choice: the owner puts Boy 10 (in base contact) first; the attack takes it."""
    state = _boyz_in_contact()
    order = ["u1.9"] + [f"u1.{i}" for i in range(9)]
    state, _ = act(state, 1, type="set_allocation_order", unit="u1", order=order)
    first = orders_for(state, 1)["units"]["u1"]["set_allocation_order"]["casualties"][0]
    assert first == {"id": "u1.9", "name": "Beast Snagga Boy #10", "wounded": False}
    # Five Bolt pistols (the squad is engaged): one hits, wounds (5+) and is not saved.
    state = to_phase(state, 2, "Shooting")
    state, events, _ = scripted(state, 2, [6, 1, 1, 1, 1, 6, 1], type="shoot_weapons",
                                unit="u2", weapons=[{"weapon": "Bolt pistol", "target": "u1"}])
    words = _allocated(events)
    assert len(words) == 1 and "Beast Snagga Boy #10" in words[0]
    assert state.to_json()["forty"]["models"]["u1"][9]["lost"] == 1


def test_the_order_follows_the_models_as_casualties_are_removed() -> None:
    """Model ids are places in the unit; when Boy 3 goes, Boy 8 (u1.7) becomes u1.6, and the
    owner's order follows it: the next casualty is still the Boy they chose."""
    state = to_phase(deployed([BOYZ], [SQUAD]), 2, "Shooting")
    state = place(state, "u1", row(10, 20.0, x0=20.0))
    state = place(state, "u2", row(5, 30.0, x0=24.0))
    order = ["u1.2", "u1.7"] + [f"u1.{i}" for i in (0, 1, 3, 4, 5, 6, 8, 9)]
    state, _ = act(state, 1, type="set_allocation_order", unit="u1", order=order)
    state, events, _ = scripted(state, 2, TWO_ON_ONE, type="shoot_weapons", unit="u2",
                                weapons=[{"weapon": "Bolt rifle", "target": "u1"}])
    assert [s["text"] for s in steps(events) if s["step"] == "destroyed"] == [
        "Beast Snagga Boy #3 is destroyed"]
    assert state.to_json()["forty"]["model_order"]["u1"][0] == "u1.6"
    state = to_phase(state, 1, "Movement")
    offer = orders_for(state, 1)["units"]["u1"]["set_allocation_order"]
    assert offer["chosen"] and offer["casualties"][0]["name"] == "Beast Snagga Boy #7"


def test_a_model_order_naming_a_leader_or_not_every_model_is_refused() -> None:
    """Seed 004: the Wurrboy is never in the order; every Bodyguard model is named once."""
    state = deployed()
    boyz = [f"u1.{i}" for i in range(10)]
    err = refused(state, 1, type="set_allocation_order", unit="u1", order=["u1.10"] + boyz)
    assert err.code == "illegal_move" and "Wurrboy leads" in err.message
    err = refused(state, 1, type="set_allocation_order", unit="u1", order=boyz[:9])
    assert err.code == "bad_request" and "once" in err.message
    err = refused(state, 1, type="set_allocation_order", unit="u1", order=boyz,
                  models=["Beast Snagga Boy"])
    assert err.code == "bad_request"
