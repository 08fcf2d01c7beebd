"""Issue 23 item 2: the server says what each unit may do (`server/rules/orders.py`).

A scripted game of The 9th Age (seed 000: Mageblight Gremlins in Ambush arrive on a
Battlefield Edge, are shot at by Citizen Archers and charge Citizen Spears; the Spears advance
and march; the Magic Phase logs a spell) is walked step by step. At every step, for both seats
and a spectator, each order the projection offers as available is accepted by `decide` on a
throwaway copy with a representative payload, and each representative action `decide` refuses
was not offered as available (the two agree both ways). A representative move goes 0 in, so
the geometry's verdict on that one destination (which `preview` answers while dragging) is not
the offer's question: such a refusal (it carries the swept area) is not held against an offered
move. Only the seat whose turn or reaction it is gets unit orders (besides those either player
may give any time); spectators get none.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from server.dice import DiceStream
from server.rules import core
from server.rules.core import GameState, RuleError
from server.rules.orders import ANYTIME, acting_seats, orders_for
from server.rules.units import units_of, with_engaged
from tests.rules.helpers import Game

GREMLINS = {"datasheet": "mageblight-gremlin", "models": 2, "files": 2}
SPEARS = {"datasheet": "citizen-spears", "models": 20, "files": 5}
ARCHERS = {"datasheet": "citizen-archers", "models": 10, "files": 5}
OTHER_SEED = bytes(range(1, 33))


def accepted(state: GameState, seat: int, action: dict[str, Any]) -> RuleError | None:
    """None if `decide` accepts the action (on a throwaway stream), else its refusal."""
    try:
        core.decide(state, seat, action, DiceStream(OTHER_SEED, state.dice_position))
    except RuleError as err:
        return err
    return None


def probes(state: GameState, seat: int) -> Iterator[tuple[str, str | None, dict[str, Any], Any]]:
    """Representative actions for `seat`, each with where its offer is found: (order key,
    unit id or None for a game order, the action, a selector of the offer's sub-entry)."""
    units = units_of(state)
    for uid, unit in units.items():
        for mode in ("advance", "march"):
            for m in ("forward", "backward", "sideways", "wheel", "pivot", "reform"):
                action: dict[str, Any] = {"type": "move_unit", "unit": uid, "manoeuvre": m,
                                          "mode": mode}
                if m == "reform":
                    action["files"] = unit.files or 1
                yield "move_unit", uid, action, ("modes", mode, "manoeuvres", m)
        for eid, enemy in units.items():
            if enemy.owner == unit.owner:
                continue
            yield ("declare_charge", uid, {"type": "declare_charge", "unit": uid, "target": eid},
                   ("targets", eid))
            for weapon in ("Longbow", "Bow", None):
                action = {"type": "shoot", "unit": uid, "target": eid}
                if weapon:
                    action["weapon"] = weapon
                yield "shoot", uid, action, ("target_weapon", eid, weapon)
        yield "fight_combat", uid, {"type": "fight_combat", "unit": uid}, ()
        yield "restrain_pursuit", uid, {"type": "restrain_pursuit", "unit": uid}, ()
    pending = state.charges.pending
    if pending:
        for r in ("hold", "flee", "stand_and_shoot"):
            yield ("charge_reaction", pending["target"],
                   {"type": "charge_reaction", "reaction": r}, ("reaction", r))
    yield "end_phase", None, {"type": "end_phase"}, ()
    yield "undo", None, {"type": "propose", "kind": "undo"}, ()
    yield "concede", None, {"type": "concede"}, ()
    yield "cast_spell", None, {"type": "cast_spell", "spell": "Fireball",
                               "outcome": "success"}, ()


def offered(orders: dict[str, Any], key: str, uid: str | None, where: Any) -> bool:
    """Is the probe's order offered as available in `orders`?"""
    entry = (orders["game"] if uid is None else orders["units"].get(uid, {})).get(key)
    if entry is None or not entry["available"]:
        return False
    if not where:
        return True
    if where[0] == "modes":
        _, mode, _, m = where
        return bool(entry["modes"][mode]["available"]
                    and entry["modes"][mode]["manoeuvres"][m]["available"])
    if where[0] == "targets":
        return any(t["unit"] == where[1] and t["available"] for t in entry["targets"])
    if where[0] == "target_weapon":
        _, eid, weapon = where
        target = next((t for t in entry["targets"] if t["unit"] == eid), None)
        if target is None or not target["available"]:
            return False
        return weapon is None or weapon in target["weapons"]
    if where[0] == "reaction":
        return any(r["reaction"] == where[1] and r["available"] for r in entry["reactions"])
    raise AssertionError(where)


def check_orders(state: GameState) -> int:
    """The offers of `state` agree with `decide`, for both seats; spectators get none. Returns
    how many offers were checked."""
    assert orders_for(state, None) == {"seat": None, "units": {}, "game": {}}
    checked = 0
    acting = acting_seats(state)
    for seat in (1, 2):
        orders = orders_for(state, seat)
        if seat not in acting:  # only the orders either player may give any time
            assert all(set(u) <= ANYTIME for u in orders["units"].values()), orders["units"]
        for key, uid, action, where in probes(state, seat):
            if uid is not None and key not in ("declare_charge", "shoot", "move_unit",
                                               "fight_combat", "charge_reaction",
                                               "restrain_pursuit"):
                continue
            err = accepted(state, seat, action)
            shown = offered(orders, key, uid, where)
            if err is not None and "swept" in err.details and shown:
                # The geometry's verdict on this one destination (the representative payload
                # moves 0 in): a question for `preview` while dragging, not for the offer.
                continue
            assert shown == (err is None), (
                f"seat {seat}, {action}: offered={shown}, decide says "
                f"{'yes' if err is None else err.message}"
            )
            checked += 1
        # Orders only probes do not reach: the ambush ones, with their own payloads.
        for uid, unit_orders in orders["units"].items():
            arrive = unit_orders.get("arrive_from_ambush")
            if arrive is not None and arrive["available"]:
                s = arrive["suggested"]
                action = {"type": "arrive_from_ambush", "unit": uid, "point": s["point"],
                          "x": s["x"], "y": s["y"], "facing": s["facing"]}
                assert accepted(state, seat, action) is None, action
                checked += 1
            for key, entry in unit_orders.items():
                if not entry["available"]:
                    assert entry["reason"], (uid, key, entry)
    return checked


def test_every_order_offered_is_accepted_and_every_refused_action_was_not_offered() -> None:
    """The walk: deployment (an ambusher kept off the table), then turns of Movement (an
    Advance, a March, the ambush arrival), Magic (a spell), Shooting, Charge (reaction) and
    Melee until the Gremlins fight or Game Turn 4 ends; orders checked after every action."""
    game = Game("t9a")
    checked = check_orders(game.state)
    # One Army Book per army (issue 18): player 1's second unit is a second Gremlin unit.
    game.act(1, type="submit_army", units=[GREMLINS, {**GREMLINS, "models": 3, "files": 3}])
    game.act(2, type="submit_army", units=[SPEARS, ARCHERS])
    ids = {(u.owner, u.datasheet): u.id for u in units_of(game.state).values()}
    gremlins, spears1 = "u1", "u2"  # spears1: the unit player 1 marches and advances
    spears2, archers = ids[(2, "citizen-spears")], ids[(2, "citizen-archers")]
    checked += check_orders(game.state)
    deploying = orders_for(game.state, 1)["units"]
    assert deploying[gremlins]["declare_reserve"]["rule"] == "Ambush"
    assert "deploy_unit" in deploying[spears1]  # (it may stay in Ambush too; it deploys)
    game.act(1, type="declare_reserve", unit=gremlins)
    checked += check_orders(game.state)
    assert orders_for(game.state, 2)["units"][spears2]["deploy_unit"]["available"]
    game.act(2, type="deploy_unit", unit=spears2, x=30, y=40, facing=180)
    game.act(1, type="deploy_unit", unit=spears1, x=30, y=8)
    game.act(2, type="deploy_unit", unit=archers, x=52, y=40, facing=180)
    assert game.state.battle.stage == "battle"

    marched = fought = cast = False
    seen: set[str] = set()
    for _ in range(200):
        checked += check_orders(game.state)
        st = game.state.battle
        if game.state.over or (st.turn or 0) > 4 or fought:
            break
        seat, phase = int(st.active_player), st.phase
        mine = orders_for(game.state, seat)
        units = mine["units"]
        seen.update(k for u in units.values() for k in u)
        if phase == "Movement" and "arrive_from_ambush" in units.get(gremlins, {}):
            arrive = units[gremlins]["arrive_from_ambush"]
            if arrive["available"]:
                s = arrive["suggested"]
                game.act(seat, type="arrive_from_ambush", unit=gremlins, point=s["point"],
                         x=s["x"], y=s["y"], facing=s["facing"])
                continue
        if phase == "Movement" and seat == 1 and units.get(spears1, {}).get("move_unit"):
            move = units[spears1]["move_unit"]
            if move["available"] and move["mode"] is None:
                mode = "advance" if marched else "march"
                game.act(1, type="move_unit", unit=spears1, manoeuvre="forward", mode=mode,
                         distance=2)
                marched = True
                after = orders_for(game.state, 1)["units"][spears1]["move_unit"]
                other = "advance" if mode == "march" else "march"
                assert not after["modes"][other]["available"]
                assert after["modes"][mode]["used"] == 2
                assert accepted(game.state, 1, {"type": "move_unit", "unit": spears1,
                                                "manoeuvre": "forward", "mode": other}), other
                continue
        if phase == "Magic" and not cast and "cast_spell" in mine["game"]:
            game.act(seat, type="cast_spell", spell="Fireball", outcome="success")
            cast = True
            continue
        shoot = units.get(archers, {}).get("shoot")
        if shoot and shoot["available"]:
            target = next(t for t in shoot["targets"] if t["available"])
            game.act(seat, type="shoot", unit=archers, target=target["unit"],
                     weapon=target["weapons"][0])
            continue
        charge = units.get(gremlins, {}).get("declare_charge")
        if charge and charge["available"]:
            target = next(t for t in charge["targets"] if t["available"])
            game.act(seat, type="declare_charge", unit=gremlins, target=target["unit"])
            checked += check_orders(game.state)
            reacting = int(game.state.charges.pending["reacting_player"])
            react = orders_for(game.state, reacting)["units"][target["unit"]]["charge_reaction"]
            assert orders_for(game.state, seat)["units"] == {}
            choice = next(r for r in react["reactions"] if r["available"])
            game.act(reacting, type="charge_reaction", reaction=choice["reaction"])
            continue
        fight = next((u["fight_combat"] for u in units.values()
                      if u.get("fight_combat", {}).get("available")), None)
        if fight is not None:
            game.act(seat, type="fight_combat", unit=fight["combat"][0])
            fought = True
            continue
        assert mine["game"]["end_phase"]["available"], mine["game"]["end_phase"]
        game.act(seat, type="end_phase")
    assert {"move_unit", "declare_charge", "shoot", "arrive_from_ambush"} <= seen, seen
    assert marched and cast
    assert checked > 500


def deploy(game: Game, where: dict[str, tuple[float, float, float]]) -> None:
    """Deploy every unit where given, each when its player's turn to deploy comes."""
    while game.state.battle.stage == "deployment":
        seat = int(game.state.battle.deploying)
        uid = next(u for u in where if game.unit(u).owner == seat
                   and game.unit(u).status == "undeployed")
        x, y, facing = where[uid]
        game.act(seat, type="deploy_unit", unit=uid, x=x, y=y, facing=facing)


def test_an_engaged_or_fleeing_unit_is_shown_its_move_disabled_with_the_reason() -> None:
    """docs/rules-decisions.md "Who may move": a unit engaged in combat makes no move in the
    Movement Phase and a fleeing unit moves only when it flees; `move_unit` refuses both and
    the order says why. The engagement is set up as `charge_succeeded` leaves it (the
    `engaged` map), the flight as the `fleeing` marker."""
    game = Game("t9a")
    game.act(1, type="submit_army", units=[SPEARS, SPEARS])
    game.act(2, type="submit_army", units=[SPEARS])
    mine = sorted(u.id for u in units_of(game.state).values() if u.owner == 1)
    enemy = next(u.id for u in units_of(game.state).values() if u.owner == 2)
    deploy(game, {enemy: (30, 40, 180), mine[0]: (15, 8, 0), mine[1]: (50, 8, 0)})
    game.to_phase(1, "Movement")
    engaged, fleeing = mine
    game.put(fleeing, 50, 8, 0, markers=("fleeing",))
    state = game.state
    state = with_engaged(state, {engaged: enemy})
    orders = orders_for(state, 1)["units"]
    move = orders[engaged]["move_unit"]
    assert not move["available"] and "engaged in combat" in move["reason"]
    err = accepted(state, 1, {"type": "move_unit", "unit": engaged, "manoeuvre": "forward",
                              "distance": 1})
    assert err is not None and err.details["rule"] == "Engaged in Combat"
    flee = orders[fleeing]["move_unit"]
    assert not flee["available"] and "fleeing" in flee["reason"]
    err = accepted(state, 1, {"type": "move_unit", "unit": fleeing, "manoeuvre": "forward",
                              "distance": 1})
    assert err is not None and err.details["rule"] == "Fleeing"
    check_orders(state)


def test_40k_orders_advance_then_move_models_against_move_plus_the_die() -> None:
    """wh40k10 (FACTS.md, Movement: Advance adds a D6 to Move): the Advance order is offered
    until the die is rolled, then the model move's allowance is Move + the die; after the
    move, it is shown with the reason. Each offer agrees with `decide`."""
    game = Game("wh40k10")
    game.act(1, type="submit_army", units=[{"datasheet": "boyz", "models": 10}])
    game.act(2, type="submit_army", units=[{"datasheet": "intercessor-squad", "models": 5}])
    boyz = next(u.id for u in units_of(game.state).values() if u.owner == 1)
    marines = next(u.id for u in units_of(game.state).values() if u.owner == 2)
    deploy(game, {marines: (30, 36, 180), boyz: (30, 8, 0)})
    game.to_phase(1, "Movement")

    def move_action(advance: bool) -> dict[str, Any]:
        positions = [list(p) for p in units_of(game.state)[boyz].positions]
        return {"type": "move_models", "unit": boyz, "positions": positions, "advance": advance}

    orders = orders_for(game.state, 1)["units"][boyz]
    assert orders["advance"]["available"] and orders["move_models"]["available"]
    assert orders["move_models"]["advance"] is False
    assert orders_for(game.state, 2)["units"] == {}
    assert accepted(game.state, 1, {"type": "advance", "unit": boyz}) is None
    assert accepted(game.state, 1, move_action(False)) is None
    rolled = game.act(1, type="advance", unit=boyz)[0].payload
    orders = orders_for(game.state, 1)["units"][boyz]
    assert "advance" not in orders
    assert orders["move_models"]["allowance"] == rolled["allowance"]
    assert orders["move_models"]["advance"] is True
    assert accepted(game.state, 1, {"type": "advance", "unit": boyz}) is not None
    assert accepted(game.state, 1, move_action(True)) is None
    game.act(1, **move_action(True))
    after = orders_for(game.state, 1)["units"][boyz]["move_models"]
    assert not after["available"] and "already moved" in after["reason"]
    assert accepted(game.state, 1, move_action(False)) is not None
    game.act(1, type="end_phase")
    game.act(1, type="end_phase")
    charge = orders_for(game.state, 1)["units"][boyz].get("declare_charge")
    assert charge is not None and game.state.battle.phase in ("Charge",)
    for target in charge["targets"]:
        err = accepted(game.state, 1, {"type": "declare_charge", "unit": boyz,
                                       "target": target["unit"]})
        assert (err is None) == target["available"], (target, err)


def test_whfb8_orders_agree_with_decide_including_an_order_given_out_of_turn() -> None:
    """whfb8 (docs/combat-pipeline.md, restraint: a winner its owner ordered to hold back tests
    its Leadership before pursuing): either player may give `restrain_pursuit` to their own
    units at any time of the battle, so it is the one unit order the waiting player sees; every
    other order agrees with `decide` as in t9a, through a Game Turn with a move and a charge."""
    game = Game("whfb8")
    game.act(1, type="submit_army", units=[{"datasheet": "empire-halberdiers", "models": 20,
                                            "files": 5}])
    game.act(2, type="submit_army", units=[{"datasheet": "skeleton-warriors", "models": 20,
                                            "files": 5}])
    mine = next(u.id for u in units_of(game.state).values() if u.owner == 1)
    theirs = next(u.id for u in units_of(game.state).values() if u.owner == 2)
    deploy(game, {mine: (30, 10, 0), theirs: (30, 38, 180)})
    checked = 0
    moved = restrained = False
    for _ in range(40):
        checked += check_orders(game.state)
        st = game.state.battle
        if game.state.over or (st.turn or 0) > 1:
            break
        seat = int(st.active_player)
        waiting = 2 if seat == 1 else 1
        out_of_turn = orders_for(game.state, waiting)["units"]
        assert set(out_of_turn) == {theirs if waiting == 2 else mine}
        assert set(next(iter(out_of_turn.values()))) == {"restrain_pursuit"}
        if not restrained:
            game.act(waiting, type="restrain_pursuit", unit=next(iter(out_of_turn)))
            restrained = True
            order = orders_for(game.state, waiting)["units"][next(iter(out_of_turn))]
            assert order["restrain_pursuit"]["restrained"] is True
            continue
        units = orders_for(game.state, seat)["units"]
        move = units.get(mine, {}).get("move_unit")
        if move and move["available"] and move["mode"] is None and not moved:
            game.act(1, type="move_unit", unit=mine, manoeuvre="forward", distance=2)
            moved = True
            continue
        charge = units.get(mine, {}).get("declare_charge")
        if charge and charge["available"]:
            game.act(1, type="declare_charge", unit=mine, target=theirs)
            checked += check_orders(game.state)
            react = orders_for(game.state, 2)["units"][theirs]["charge_reaction"]
            choice = next(r for r in react["reactions"] if r["available"])
            game.act(2, type="charge_reaction", reaction=choice["reaction"])
            continue
        game.act(seat, type="end_phase")
    assert moved and restrained and checked > 100


def test_an_ambushing_character_is_offered_the_units_it_may_arrive_with() -> None:
    """Seed 000, Ambush: an Attachable Model in Ambush may arrive with an ambushing unit of the
    same Ambush value, chosen at deployment (either player for their own, whoever deploys
    next) or in its owner's Charge Phase; the hosts offered are those `decide` accepts."""
    game = Game("t9a")
    game.act(1, type="submit_army", units=[GREMLINS, {"datasheet": "daemon-stalker", "models": 1},
                                           {"datasheet": "daemon-herald", "models": 1}])
    game.act(2, type="submit_army", units=[SPEARS])
    ids = {(u.owner, u.datasheet): u.id for u in units_of(game.state).values()}
    gremlins, stalker = ids[(1, "mageblight-gremlin")], ids[(1, "daemon-stalker")]
    spears = ids[(1, "daemon-herald")]  # a unit without Ambush: no host for the Stalker
    while game.unit(stalker).status == "undeployed" or game.unit(gremlins).status == "undeployed":
        seat = int(game.state.battle.deploying)
        if seat == 2:
            game.act(2, type="deploy_unit", unit=ids[(2, "citizen-spears")], x=30, y=40,
                     facing=180)
            continue
        unit = gremlins if game.unit(gremlins).status == "undeployed" else stalker
        game.act(1, type="declare_reserve", unit=unit)
    for seat in (1, 2):
        offered = orders_for(game.state, seat)["units"]
        if seat == 2:
            assert stalker not in offered
            continue
        host = offered[stalker]["choose_ambush_host"]
        assert host["host"] is None
        hosts = {h["unit"]: h for h in host["hosts"]}
        assert set(hosts) == {gremlins}
        for uid, h in hosts.items():
            err = accepted(game.state, 1, {"type": "choose_ambush_host", "character": stalker,
                                           "host": uid})
            assert (err is None) == h["available"], (h, err)
    assert accepted(game.state, 1, {"type": "choose_ambush_host", "character": stalker,
                                    "host": spears}) is not None
    game.act(1, type="choose_ambush_host", character=stalker, host=gremlins)
    assert orders_for(game.state, 1)["units"][stalker]["choose_ambush_host"]["host"] == gremlins
