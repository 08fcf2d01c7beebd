"""Issue 16 item 4: the defender's allocation order (server/rules/wh40k10/allocation.py).

FACTS.md (wh40k10, the core loop, Allocation): the defender allocates each successful wound, to
a model that already lost wounds first. Seed 004 (Attached units): no allocation to a Character
while a Bodyguard model lives. Decision (docs/rules-decisions.md, "Allocation"): the defender
sets the order of their Bodyguard model kinds beforehand; the attack follows it."""

from __future__ import annotations

from server.rules.units import units_of
from tests.rules.test_battle import act, refused
from tests.rules.wh40k10.game import deployed, place, row, scripted, steps, to_phase


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
