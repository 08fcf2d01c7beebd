"""Issue 16 item 6 and issue 23 item 2: the server tells a 40k player what each unit may do
(`server/rules/wh40k10/offers.py`): Shoot with its weapons and, per enemy unit, distance,
visibility and the weapons that may fire at it with the reason when one may not; Fight with
the enemy units in Engagement Range for the player who chooses next; Fall Back for a unit that
began the Movement phase engaged. Every verdict is the action's own (each offered pair is
accepted by `decide`, each refused one is refused with the same words). Sources: FACTS.md
(wh40k10, the core loop: Shooting: Visibility, Range, Advanced units fire Assault weapons only,
Fell Back units do not shoot, an engaged unit fires Pistols at a unit it is engaged with;
Fight phase order), the Intercessor and Beast Snagga datasheets (server/data/wh40k10).
"""

from __future__ import annotations

from typing import Any

from server.dice import DiceStream
from server.rules import core
from server.rules.core import GameState, RuleError
from server.rules.orders import orders_for
from server.rules.units import units_of
from tests.rules.test_battle import SEED, act, new_game
from tests.rules.wh40k10.game import (
    BASE_IN,
    INTERCESSORS,
    LED_BOYZ,
    block,
    deployed,
    place,
    row,
    to_phase,
    with_forty,
)

BOYZ_FRONT = 33.0 - BASE_IN - 0.2
"""The y of a Boyz row in Engagement Range of Intercessors standing at y 33."""


def unit_orders(state: GameState, seat: int | None, uid: str) -> dict[str, Any]:
    orders: dict[str, Any] = orders_for(state, seat)["units"].get(uid, {})
    return orders


def target_of(order: dict[str, Any], uid: str) -> dict[str, Any]:
    return next(t for t in order["targets"] if t["unit"] == uid)


def check(target: dict[str, Any], weapon: str) -> dict[str, Any]:
    return next(c for c in target["checks"] if c["weapon"] == weapon)


def verdict(state: GameState, seat: int, action: dict[str, Any]) -> RuleError | None:
    try:
        core.decide(state, seat, action, DiceStream(SEED, state.dice_position))
    except RuleError as err:
        return err
    return None


def agrees(state: GameState, seat: int) -> int:
    """Every weapon at every target of every Shoot order offered to `seat`: `decide` accepts
    it alone iff the offer says it may fire, and refuses it with the offer's words otherwise
    (issue 23 item 2: the two agree both ways). Returns how many pairs were asked."""
    asked = 0
    for uid, orders in orders_for(state, seat)["units"].items():
        shoot = orders.get("shoot_weapons")
        if shoot is None:
            continue
        for target in shoot["targets"]:
            for c in target["checks"]:
                err = verdict(state, seat, {"type": "shoot_weapons", "unit": uid, "weapons": [
                    {"weapon": c["weapon"], "target": target["unit"]}]})
                ok = shoot["available"] and c["available"]
                assert (err is None) == ok, (uid, target["unit"], c, err)
                if err is not None and shoot["available"]:
                    assert err.message == c["reason"]
                asked += 1
    return asked


def shooting(state: GameState, boyz_y: float = 20.0) -> GameState:
    """Player 2's Shooting phase; the Boyz 10 ranks at `boyz_y` (the front row), the
    Intercessors at y 35."""
    state = to_phase(state, 2, "Shooting")
    return place(state, "u1", block(11, boyz_y, x0=10.0, dy=-1.4))


def test_shoot_offers_each_weapon_per_target_with_distance_visibility_and_range() -> None:
    """FACTS.md, Shooting: a weapon fires at a visible enemy within its range. At about 13 in
    the Bolt rifle (24 in) may fire at the Boyz, the pistols (12 in) are out of range, with
    the rule's words; distance and visibility are shown; the offered weapons are accepted."""
    state = shooting(deployed(), boyz_y=20.0)
    shoot = unit_orders(state, 2, "u2")["shoot_weapons"]
    assert shoot["available"] and shoot["action"] == "shoot_weapons"
    names = [w["name"] for w in shoot["weapons"]]
    assert names == ["Bolt rifle", "Bolt pistol", "Plasma pistol - standard",
                     "Plasma pistol - supercharge"]
    rifle = shoot["weapons"][0]
    assert (rifle["range"], rifle["A"], rifle["skill"], rifle["S"], rifle["AP"], rifle["D"]) == (
        24, 2, 3, 4, -1, 1)
    assert rifle["models"] == 5 and shoot["weapons"][2]["models"] == 1  # the Sergeant's
    boyz = target_of(shoot, "u1")
    assert boyz["name"] == "Beast Snagga Boyz + Wurrboy" and boyz["visible"] is True
    assert 12.0 < boyz["distance"] < 24.0 and boyz["cover"] is False
    (x0, y0), (x1, y1) = boyz["line"]  # the closest points, as far apart as the distance
    assert abs(((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5 - boyz["distance"]) < 0.01
    assert boyz["weapons"] == ["Bolt rifle"] and boyz["suggested"] == ["Bolt rifle"]
    assert check(boyz, "Bolt rifle")["models_in_range"] == 5
    pistol = check(boyz, "Bolt pistol")
    assert not pistol["available"] and pistol["rule"] == "Shooting: Range"
    assert pistol["reason"] == "Beast Snagga Boyz + Wurrboy is out of Bolt pistol's range (12 in)"
    # The two agree: the offered weapon is accepted, the refused one refused in those words.
    fire = {"type": "shoot_weapons", "unit": "u2"}
    assert verdict(state, 2, {**fire, "weapons": [{"weapon": "Bolt rifle", "target": "u1"}]}) \
        is None
    err = verdict(state, 2, {**fire, "weapons": [{"weapon": "Bolt pistol", "target": "u1"}]})
    assert err is not None and err.message == pistol["reason"]
    assert agrees(state, 2) == 4


def test_out_of_every_range_the_order_is_shown_refused_with_the_reason() -> None:
    """FACTS.md, Shooting: Range. The Boyz at about 25 in: beyond the Bolt rifle's 24 in."""
    state = shooting(deployed(), boyz_y=8.6)
    shoot = unit_orders(state, 2, "u2")["shoot_weapons"]
    assert not shoot["available"]
    assert shoot["reason"] == "no enemy unit is in range and sight of Intercessor Squad"
    boyz = target_of(shoot, "u1")
    assert boyz["distance"] > 24 and boyz["visible"] and boyz["weapons"] == []
    assert boyz["reason"] == "Beast Snagga Boyz + Wurrboy is out of Bolt rifle's range (24 in)"
    assert agrees(state, 2) == 4


def test_a_target_behind_a_wall_is_not_visible_and_cannot_be_shot() -> None:
    """FACTS.md, Shooting: Visibility (the line-of-sight core). A wall that blocks sight stands
    between the Intercessors and the Boyz: the target is listed not visible, refused."""
    state = new_game("wh40k10")
    state, _ = act(state, 1, type="place_terrain", kind="blocks_los", label="Wall",
                   points=[(5, 24), (40, 24), (40, 25), (5, 25)])
    state, _ = act(state, 1, type="submit_army", units=[LED_BOYZ])
    state, _ = act(state, 2, type="submit_army", units=[INTERCESSORS])
    # the wall took the first piece id: the Boyz and the Intercessors come after it
    boyz_id, squad_id = (next(u for u, v in units_of(state).items() if v.owner == s)
                         for s in (1, 2))
    state, _ = act(state, 1, type="deploy_unit", unit=boyz_id, x=15, y=9.5, facing=180)
    state, _ = act(state, 2, type="deploy_unit", unit=squad_id, x=15, y=35, facing=180)
    state = to_phase(state, 2, "Shooting")
    state = place(state, boyz_id, block(11, 20.0, x0=10.0, dy=-1.4))
    shoot = unit_orders(state, 2, squad_id)["shoot_weapons"]
    boyz = target_of(shoot, boyz_id)
    assert boyz["visible"] is False and boyz["weapons"] == [] and not shoot["available"]
    rifle = check(boyz, "Bolt rifle")
    assert rifle["rule"] == "Shooting: Visibility"
    assert rifle["reason"] == "Beast Snagga Boyz + Wurrboy is not visible to Intercessor Squad"
    err = verdict(state, 2, {"type": "shoot_weapons", "unit": squad_id,
                             "weapons": [{"weapon": "Bolt rifle", "target": boyz_id}]})
    assert err is not None and err.message == rifle["reason"]
    assert agrees(state, 2) == 4


def test_after_an_advance_only_assault_weapons_are_offered() -> None:
    """FACTS.md, the core loop: a unit that Advanced shoots only [ASSAULT] weapons. The Boyz'
    Slugga and the Wurrboy's Eyez of Mork are not Assault: both refused, with the reason."""
    state = to_phase(deployed(), 1, "Movement")
    state = place(state, "u2", row(5, 25.0, x0=10.0))
    state, _ = act(state, 1, type="advance", unit="u1")
    state = to_phase(state, 1, "Shooting")
    shoot = unit_orders(state, 1, "u1")["shoot_weapons"]
    assert not shoot["available"]
    reasons = {w["name"]: w["reason"] for w in shoot["weapons"]}
    assert reasons == {
        "Slugga": "Slugga is not an Assault weapon and the unit Advanced",
        "Eyez of Mork": "Eyez of Mork is not an Assault weapon and the unit Advanced",
    }
    assert shoot["reason"] == reasons["Slugga"]
    assert agrees(state, 1) == 2


def test_a_unit_that_fell_back_is_offered_no_shot_and_its_move_is_called_fall_back() -> None:
    """FACTS.md, the core loop: a unit that starts its Movement phase in Engagement Range and
    moves out of it Falls Back; it cannot shoot (or charge) that turn."""
    state = deployed()
    state = place(state, "u1", block(11, BOYZ_FRONT, x0=24.0, dy=-(BASE_IN + 0.005)))
    state = place(state, "u2", row(5, 33.0, x0=24.0))
    state = to_phase(state, 2, "Movement")
    fall_back = unit_orders(state, 2, "u2")["fall_back"]
    assert fall_back["available"] and fall_back["action"] == "move_models"
    assert fall_back["cost"] == "it cannot shoot or declare a charge this turn"
    away = [(x, y + 3.0) for x, y in units_of(state)["u2"].positions]
    state, _ = act(state, 2, type="move_models", unit="u2", positions=away)
    assert unit_orders(state, 2, "u2")["fall_back"]["available"] is False
    state = to_phase(state, 2, "Shooting")
    shoot = unit_orders(state, 2, "u2")["shoot_weapons"]
    assert not shoot["available"]
    assert shoot["reason"] == "a unit that Fell Back cannot shoot this turn"
    assert agrees(state, 2) == 4


def test_a_unit_that_starts_its_movement_engaged_is_not_offered_an_advance() -> None:
    """10th-edition core rules, Movement phase (docs/rules-decisions.md "Advance out of
    Engagement Range"): a unit that starts its Movement phase within Engagement Range may
    Fall Back or Remain Stationary, not make a Normal move or Advance. The offer says why, and
    the `advance` action is refused with the same words, rolling nothing; the Intercessors'
    foes out of Engagement Range may still Advance."""
    state = deployed()
    state = place(state, "u1", block(11, BOYZ_FRONT, x0=24.0, dy=-(BASE_IN + 0.005)))
    state = place(state, "u2", row(5, 33.0, x0=24.0))
    state = to_phase(state, 2, "Movement")
    advance = unit_orders(state, 2, "u2")["advance"]
    assert advance["available"] is False
    why = ("Intercessor Squad started the Movement phase within Engagement Range of an enemy "
           "unit: it may Fall Back or Remain Stationary, not Advance")
    assert advance["reason"] == why
    try:
        act(state, 2, type="advance", unit="u2")
    except RuleError as err:
        assert err.message == why and err.details["rule"] == "Engagement Range"
    else:
        raise AssertionError("an engaged unit Advanced")
    assert unit_orders(state, 2, "u2")["fall_back"]["available"]
    state = place(state, "u2", row(5, 40.0, x0=24.0))
    state = to_phase(state, 2, "Movement", turn=2)
    assert unit_orders(state, 2, "u2")["advance"]["available"]


def test_in_engagement_range_only_pistols_at_the_engaged_unit() -> None:
    """FACTS.md, the core loop: a unit in Engagement Range fires Pistols only, at a unit it is
    engaged with; the Bolt rifle is refused with the reason, the Bolt pistol is suggested."""
    state = deployed()
    state = to_phase(state, 2, "Shooting")
    state = place(state, "u1", block(11, BOYZ_FRONT, x0=24.0, dy=-(BASE_IN + 0.005)))
    state = place(state, "u2", row(5, 33.0, x0=24.0))
    shoot = unit_orders(state, 2, "u2")["shoot_weapons"]
    reasons = {w["name"]: w["reason"] for w in shoot["weapons"]}
    assert reasons["Bolt rifle"] == "Bolt rifle is not a Pistol and the unit is in Engagement Range"
    assert reasons["Bolt pistol"] is None
    boyz = target_of(shoot, "u1")
    assert boyz["engaged"] is True
    assert boyz["weapons"] == ["Bolt pistol", "Plasma pistol - standard",
                               "Plasma pistol - supercharge"]
    # One profile of the plasma pistol, never both (FACTS.md: one profile per shot).
    assert boyz["suggested"] == ["Bolt pistol", "Plasma pistol - standard"]
    assert verdict(state, 2, {"type": "shoot_weapons", "unit": "u2", "weapons": [
        {"weapon": w, "target": "u1"} for w in boyz["suggested"]]}) is None
    assert agrees(state, 2) == 4


def test_fight_is_offered_to_the_player_who_chooses_next_with_the_engaged_enemy() -> None:
    """FACTS.md, Fight phase: with no charger, the player whose turn it is not picks first; the
    players alternate. Player 2 is offered Fight (and acts in player 1's Fight phase), player
    1 sees its Boyz' Fight refused until then; after player 2 fights, player 1 is offered it."""
    state = deployed()
    state = place(state, "u1", block(11, BOYZ_FRONT, x0=24.0, dy=-(BASE_IN + 0.005)))
    state = place(state, "u2", row(5, 33.0, x0=24.0))
    state = to_phase(state, 1, "Fight")
    fight2 = unit_orders(state, 2, "u2")["fight"]
    assert fight2["available"] and fight2["action"] == "fight"
    assert [t["unit"] for t in fight2["targets"]] == ["u1"]
    assert fight2["targets"][0]["name"] == "Beast Snagga Boyz + Wurrboy"
    assert [w["name"] for w in fight2["weapons"]] == ["Close combat weapon"]
    fight1 = unit_orders(state, 1, "u1")["fight"]
    assert not fight1["available"] and fight1["reason"] == "player 2 chooses the next unit to fight"
    assert verdict(state, 1, {"type": "fight", "unit": "u1", "target": "u2"}) is not None
    state, _ = act(state, 2, type="fight", unit="u2", target="u1")
    assert "u2" not in orders_for(state, 2)["units"] or not unit_orders(state, 2, "u2")[
        "fight"]["available"]
    fight1 = unit_orders(state, 1, "u1")["fight"]
    assert fight1["available"] and [t["unit"] for t in fight1["targets"]] == ["u2"]
    assert [w["name"] for w in fight1["weapons"]] == ["Choppa", "Close combat weapon"]
    assert verdict(state, 1, {"type": "fight", "unit": "u1", "target": "u2"}) is None


def test_waaagh_shows_in_the_fight_offer_as_plus_one_strength_and_attacks() -> None:
    """Seed 004, Waaagh!: +1 S and +1 A on melee weapons while active: the offer shows the
    Choppa as the models use it now."""
    state = deployed()
    state = place(state, "u1", block(11, BOYZ_FRONT, x0=24.0, dy=-(BASE_IN + 0.005)))
    state = place(state, "u2", row(5, 33.0, x0=24.0))
    state = to_phase(state, 1, "Fight")
    state = with_forty(state, waaagh_active=[1])
    state, _ = act(state, 2, type="fight", unit="u2", target="u1")
    choppa = unit_orders(state, 1, "u1")["fight"]["weapons"][0]
    assert (choppa["name"], choppa["A"], choppa["S"]) == ("Choppa", 4, 5)


def test_units_out_of_combat_get_no_fight_order_and_spectators_no_orders() -> None:
    """Only units within Engagement Range are offered Fight; a spectator is offered nothing."""
    state = to_phase(deployed(), 1, "Fight")
    assert "fight" not in unit_orders(state, 1, "u1")
    state = to_phase(state, 2, "Shooting")
    assert orders_for(state, None)["units"] == {}


def test_the_fight_offer_says_how_many_models_fight_each_target_as_the_fight_counts_them() -> None:
    """FACTS.md, Fight phase: the models that fight are those within Engagement Range of the
    target and those in base contact with one that is. The offer says how many, before the
    Fight is given (a playtest read "Choppa x18" for a fight of 7 models), and the Fight counts
    the same models (`fighting_models`, one judgement)."""
    state = deployed()
    # The Boyz in rows of 4: the first in Engagement Range, the second in base contact with
    # it, the third (3 models) in contact only with the second: 8 of 11 fight.
    state = place(state, "u1", block(11, BOYZ_FRONT, x0=24.0, per_row=4,
                                     dy=-(BASE_IN + 0.005)))
    state = place(state, "u2", row(5, 33.0, x0=24.0))
    state = to_phase(state, 1, "Fight")
    target = unit_orders(state, 2, "u2")["fight"]["targets"][0]
    assert target["models"] == len(units_of(state)["u2"].positions)
    assert 0 < target["fighting"] <= target["models"]
    state, events = act(state, 2, type="fight", unit="u2", target="u1")
    started = next(e for e in events if e.type == "fight_started")
    assert started.payload["models"] == target["fighting"]
    boyz = unit_orders(state, 1, "u1")["fight"]["targets"][0]
    assert (boyz["fighting"], boyz["models"]) == (8, 11), boyz
    state, events = act(state, 1, type="fight", unit="u1", target="u2")
    started = next(e for e in events if e.type == "fight_started")
    assert started.payload["models"] == boyz["fighting"]
