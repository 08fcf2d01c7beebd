"""A random player: whole games of any system played by choosing, at random, among the orders
the server offers (`state.to_json(seat)["orders"]`), the way the browser does, with the
lobby's roll-offs, undo proposals and the other player's answers. Pure (the engine, no I/O):
the log it returns is what a server would have stored, ending with the dice reveal.

An order the server offers but then refuses is no fault (a move's geometry, say, is only
judged once the destination is known); any other exception is, and propagates."""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable
from typing import Any

from server import dice
from server.games import archive
from server.rules import core
from server.rules.core import Event, GameState, RuleError
from server.rules.orders import acting_seats
from tests.rules.helpers import Game
from tests.rules.wh40k10.battle import LED, LONE, SQUAD
from tests.rules.whfb8.positions import GOBLINS, HALBERDIERS, HANDGUNNERS, SWARM

Action = dict[str, Any]

#: Armies with the rules the dice proof has to follow: roll-offs, Ambush, Fanatics hidden in
#: a unit and released, the Entombed Tomb Swarm, Stand and Shoot, Stratagems and the Waaagh!.
ARMIES: dict[str, list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]] = {
    "t9a": [(
        [{"datasheet": "citizen-spears", "models": 20, "files": 5},
         {"datasheet": "citizen-archers", "models": 10, "files": 5}],
        [{"datasheet": "mageblight-gremlin", "models": 3, "files": 3},
         {"datasheet": "mageblight-gremlin", "models": 2, "files": 2}],
    )],
    "whfb8": [
        ([HALBERDIERS, HANDGUNNERS], [{**GOBLINS, "concealed": {"night-goblin-fanatic": 2}}]),
        ([SWARM, SWARM], [{**GOBLINS, "concealed": {"night-goblin-fanatic": 3}}]),
    ],
    "wh40k10": [([LED, LONE], [SQUAD, SQUAD])],
}


@dataclasses.dataclass
class Played:
    system: str
    seed: bytes
    log: list[Event]
    state: GameState
    actions: int
    refused: int
    kinds: dict[str, int]
    ended_by_play: bool  # the game reached its own end (not the concession after the budget)
    longest_stall: int  # most tries in a row in which no offered order was accepted

    @property
    def commitment(self) -> str:
        return dice.commitment(self.seed)


class _Table(Game):
    """A game whose log commits to its real seed (the proof checks the commitment too)."""

    def __init__(self, system: str, seed: bytes) -> None:
        super().__init__(system, seed, pregame="roll_offs", commitment=dice.commitment(seed))

    def act(self, seat: int, action: Action) -> list[Event]:  # type: ignore[override]
        fields = core.ACTIONS[action["type"]].model.model_fields
        return super().act(seat, **{k: v for k, v in action.items() if k in fields})


def _point_near(rng: random.Random, x: float, y: float, reach: float) -> tuple[float, float]:
    angle, r = rng.uniform(0, 2 * math.pi), rng.uniform(0, reach)
    return x + r * math.cos(angle), y + r * math.sin(angle)


def _nearest_enemy(view: dict[str, Any], seat: int, at: tuple[float, float]
                   ) -> tuple[float, float] | None:
    best: tuple[float, tuple[float, float]] | None = None
    for u in view["units"].values():
        if u["owner"] == seat or u["status"] != "on_table":
            continue
        where = _where(u)
        if where is None:
            continue
        d = math.dist(at, where)
        if best is None or d < best[0]:
            best = (d, where)
    return best[1] if best else None


def _where(u: dict[str, Any]) -> tuple[float, float] | None:
    if u.get("placement"):
        return float(u["placement"]["x"]), float(u["placement"]["y"])
    if u.get("positions"):
        xs = [p[0] for p in u["positions"]]
        ys = [p[1] for p in u["positions"]]
        return sum(xs) / len(xs), sum(ys) / len(ys)
    return None


def _pick(rng: random.Random, items: list[dict[str, Any]] | None) -> dict[str, Any] | None:
    choices = [i for i in items or () if i.get("available", True)]
    return rng.choice(choices) if choices else None


Builder = Callable[[random.Random, dict[str, Any], int, str | None, dict[str, Any]],
                   "list[Action]"]


def _unit_actions(rng: random.Random, view: dict[str, Any], seat: int, uid: str | None,
                  offer: dict[str, Any]) -> list[Action]:
    """Payloads for one offered order: a few candidates (the first the likeliest to be
    accepted), built from what the offer lists (targets, weapons, reactions, allowances)."""
    kind = offer["action"]
    base: Action = {"type": kind}
    if uid is not None:
        base["unit"] = uid
    unit = view["units"].get(uid) if uid else None
    here = _where(unit) if unit else None
    field = view["battlefield"]
    width, depth = float(field["width"]), float(field["depth"])
    if kind == "deploy_unit":
        zone = view["deployment_zones"].get(str(seat))
        ring = zone["coordinates"][0] if zone else [[0, 0], [width, depth]]
        xs, ys = [p[0] for p in ring], [p[1] for p in ring]
        out = []
        for _ in range(6):
            x = rng.uniform(min(xs) + 4, max(xs) - 4)
            y = rng.uniform(min(ys) + 2, max(ys) - 2)
            out.append({**base, "x": x, "y": y, "facing": 0.0 if seat == 1 else 180.0})
        return out
    if kind == "declare_charge" or kind == "charge":
        # Mostly the charges likely to reach, as a player would declare them.
        target = _pick(rng, [t for t in offer.get("targets") or ()
                             if (t.get("distance") or 0) <= 10 or rng.random() < 0.15])
        if target is None:
            return []
        if kind == "charge":
            return [{**base, "targets": [target["unit"]]}]
        return [{**base, "target": target["unit"]}]
    if kind == "decline_overwatch":
        # The prompt's answers to a declared charge (wh40k10): each sends its own action.
        return [dict(r["action"]) for r in offer.get("reactions") or () if r.get("available")]
    if kind == "charge_reaction":
        reaction = _pick(rng, offer.get("reactions"))
        return [{**base, "reaction": reaction["reaction"]}] if reaction else []
    if kind == "shoot":
        target = _pick(rng, offer.get("targets"))
        if target is None:
            return []
        weapons = target.get("weapons") or [w["name"] for w in offer.get("weapons", ())]
        weapon = rng.choice(weapons) if weapons else None
        name = weapon["name"] if isinstance(weapon, dict) else weapon
        return [{**base, "target": target["unit"], **({"weapon": name} if name else {})}]
    if kind == "shoot_weapons":
        target = _pick(rng, [t for t in offer.get("targets", ()) if t.get("visible", True)])
        weapons = [w for w in offer.get("weapons", ()) if w.get("available", True)]
        if target is None or not weapons:
            return []
        return [{**base, "weapons": [{"weapon": w["name"], "target": target["unit"]}
                                     for w in weapons]}]
    if kind == "fight":
        target = _pick(rng, offer.get("targets"))
        return [{**base, "target": target["unit"]}] if target else [base]
    if kind == "move_unit":
        modes = offer.get("modes") or {}
        out = []
        for mode, m in modes.items():
            if not m.get("available"):
                continue
            left = float(m.get("left") or 0)
            for manoeuvre, how in (m.get("manoeuvres") or {}).items():
                if not how.get("available"):
                    continue
                if manoeuvre == "forward" and left > 0:
                    out.append({**base, "mode": mode, "manoeuvre": "forward",
                                "distance": round(rng.uniform(left / 2, left), 2)})
                elif manoeuvre == "wheel" and rng.random() < 0.1:
                    out.append({**base, "mode": mode, "manoeuvre": "wheel",
                                "degrees": rng.choice([-45.0, -20.0, 20.0, 45.0])})
        rng.shuffle(out)
        return out
    if kind == "move_models" or kind == "advance":
        if kind == "advance":
            return [base]
        allowance = float(offer.get("allowance") or 0)
        if unit is None or not unit.get("positions") or here is None:
            return []
        goal = _nearest_enemy(view, seat, here)
        out = []
        for share in (1.0, 0.6, 0.3):
            if goal is None:
                dx, dy = _point_near(rng, 0, 0, allowance)
            else:
                d = math.dist(here, goal) or 1.0
                step = min(allowance * share, max(d - 2.0, 0.0))
                dx, dy = (goal[0] - here[0]) / d * step, (goal[1] - here[1]) / d * step
            out.append({**base, "positions": [[p[0] + dx, p[1] + dy]
                                              for p in unit["positions"]]})
        return out
    if kind == "charge_move":
        # Straight at the nearest enemy model until the closest pair of models stands about
        # 2 in apart centre to centre (within Engagement Range for the bases here).
        if unit is None or not unit.get("positions"):
            return []
        reach = float(offer.get("range") or 0)
        enemy = [p for t in offer.get("targets") or ()
                 for p in (view["units"].get(t) or {}).get("positions") or ()]
        if not enemy or reach <= 0:
            return []
        mine, theirs = min(((a, b) for a in unit["positions"] for b in enemy),
                           key=lambda ab: math.dist(ab[0], ab[1]))
        gap = math.dist(mine, theirs) or 1.0
        out = []
        for apart in (2.0, 1.8, 2.2):
            step = min(max(gap - apart, 0.0), reach)
            dx, dy = (theirs[0] - mine[0]) / gap * step, (theirs[1] - mine[1]) / gap * step
            out.append({**base, "positions": [[p[0] + dx, p[1] + dy]
                                              for p in unit["positions"]]})
        return out
    if kind == "release_fanatic":
        if here is None:
            return []
        goal = _nearest_enemy(view, seat, here)
        facing = rng.uniform(0, 360) if goal is None else (
            math.degrees(math.atan2(goal[0] - here[0], goal[1] - here[1])) % 360.0)
        return [{**base, "point": [here[0], here[1]], "facing": round(facing, 1)}]
    if kind == "place_entombed_marker":
        goal = _nearest_enemy(view, seat, (width / 2, depth / 2))
        if goal is not None and rng.random() < 0.5:
            x, y = goal  # under an enemy: it emerges charging
        else:
            x, y = rng.uniform(6, width - 6), rng.uniform(8, depth - 8)
        return [{**base, "x": x, "y": y}]
    if kind == "emerge":
        entry = (view.get("entombed") or {}).get(uid) or {}
        marker = entry.get("marker") or [rng.uniform(6, width - 6), rng.uniform(6, depth - 6)]
        if entry.get("mode") == "edge" or not offer.get("entombed"):
            edge = entry.get("edge") or rng.choice(["south", "north", "east", "west"])
            return [{**base, "x": rng.uniform(6, width - 6), "y": 1.0 if seat == 1 else depth - 1,
                     "facing": 0.0 if seat == 1 else 180.0,
                     **({} if entry.get("edge") else {"edge": edge})}]
        out = []
        for _ in range(8):
            x, y = _point_near(rng, float(marker[0]), float(marker[1]), 3.0)
            out.append({**base, "x": x, "y": y, "facing": rng.choice([0.0, 90.0, 180.0, 270.0])})
        return out
    if kind == "arrive_from_ambush":
        suggested = offer.get("suggested") or {}
        out = []
        if suggested:
            out.append({**base, **{k: suggested[k] for k in ("point", "x", "y", "facing", "files")
                                   if k in suggested}})
        return out
    if kind == "random_move":
        return [{**base, "facing": rng.uniform(0, 360)}]
    if kind == "restrain_pursuit":
        return [{**base, "restrain": not offer.get("restrained")}] if rng.random() < 0.02 else []
    if kind in ("fight_combat", "call_waaagh", "end_phase"):
        return [base]
    if kind == "roar_of_mork":
        target = _pick(rng, offer.get("targets"))
        return [{**base, **({"target": target["unit"]} if target else {})}]
    if kind == "use_stratagem":
        out = []
        for s in offer.get("stratagems") or ():
            if not s.get("available", True):
                continue
            action: Action = {"type": kind, "stratagem": s.get("id") or s.get("name")}
            units = [u for u in s.get("units") or () if u.get("available", True)]
            if units:
                action["unit"] = rng.choice(units)["unit"]
            targets = [t for t in s.get("targets") or () if t.get("available", True)]
            if targets:
                action["target"] = rng.choice(targets)["unit"]
            out.append(action)
        rng.shuffle(out)
        return out
    if kind in ("declare_reserve", "declare_strategic_reserves"):
        return [{**base, "mode": offer.get("mode")}] if rng.random() < 0.6 else []
    if kind == "choose_first":
        option = _pick(rng, offer.get("options"))
        return [{**base, "first": option["first"]}] if option else []
    if kind == "choose_secondary_objective":
        option = _pick(rng, offer.get("objectives"))
        return [{**base, "objective": option["id"]}] if option and offer.get(
            "current") is None else []
    if kind == "choose_ambush_host":
        host = _pick(rng, offer.get("hosts"))
        return [{**base, "character": uid, "host": host["unit"]}] if host else []
    return []


#: Orders the random player leaves alone: conceding ends the game (it concedes at the end),
#: a free move and a spell are agreed by hand, and bookkeeping orders only change the log.
SKIPPED = frozenset({"concede", "free_move", "cast_spell", "note", "roll_dice",
                     "set_allocation_order"})


def _candidates(rng: random.Random, view: dict[str, Any], seat: int) -> list[Action]:
    orders = view["orders"]
    out: list[Action] = []
    for key, offer in (orders.get("game") or {}).items():
        if not offer or not offer.get("available") or key in SKIPPED:
            continue
        if key == "undo":
            if rng.random() < 0.08:
                starts = offer.get("starts") or []
                if starts:
                    out.append({"type": "propose", "kind": "undo", "seq": rng.choice(starts)})
            continue
        if key == "end_phase":
            continue  # the fallback, below
        out.extend(_unit_actions(rng, view, seat, None, offer))
    for uid, unit_orders in (orders.get("units") or {}).items():
        for key, offer in unit_orders.items():
            if offer and offer.get("available") and key not in SKIPPED:
                out.extend(_unit_actions(rng, view, seat, uid, offer))
    out.extend(_asked_of(rng, view, seat))
    rng.shuffle(out)
    # A unit that may be held back (Ambush, Entombed) is mostly held back, as its player would.
    out.sort(key=lambda a: a["type"] not in ("declare_reserve", "declare_strategic_reserves"))
    end = (orders.get("game") or {}).get("end_phase")
    if end and end.get("available"):
        # Ending the phase comes after the units' orders, but now and then first.
        out.insert(0 if rng.random() < 0.1 else len(out), {"type": "end_phase"})
    return out


def _asked_of(rng: random.Random, view: dict[str, Any], seat: int) -> list[Action]:
    """What the table asks of `seat` outside the orders: releasing the Fanatics a unit hides
    (whfb8, `fanatic_releases`) and placing a ready Entombed marker."""
    out: list[Action] = []
    for release in view.get("fanatic_releases") or ():
        unit = view["units"].get(release.get("unit"))
        if unit and unit["owner"] == seat:
            out.extend(_unit_actions(rng, view, seat, unit["id"], {"action": "release_fanatic"}))
    for uid, unit in view["units"].items():
        if ("entombed" in view and unit["owner"] == seat and unit["status"] == "ambush"
                and "ambush_ready" in unit.get("markers", ())
                and uid not in (view.get("entombed") or {})):
            out.extend(_unit_actions(rng, view, seat, uid, {"action": "place_entombed_marker"}))
    return out


def _answer_proposal(rng: random.Random, game: _Table) -> bool:
    """The other player answers a pending proposal (mostly yes): True if one was answered."""
    proposal = game.state.to_json(1).get("proposal")
    if not proposal:
        return False
    by = int(proposal.get("by") or proposal.get("seat") or 0)
    other = 3 - by if by in (1, 2) else 2
    kind = "accept_proposal" if rng.random() < 0.8 else "decline_proposal"
    try:
        game.act(other, {"type": kind, "id": proposal["id"]})
    except RuleError:
        game.act(by if by in (1, 2) else 1, {"type": "decline_proposal", "id": proposal["id"]})
    return True


def play(system: str, seed: bytes, *, actions: int = 250, armies: int | None = None) -> Played:
    """A game of `system` with `seed`, played at random for about `actions` actions, then
    conceded (the log ends with the dice reveal)."""
    rng = random.Random(seed)
    game = _Table(system, seed)
    choices = ARMIES[system]
    first, second = choices[armies if armies is not None else rng.randrange(len(choices))]
    lists = {1: first, 2: second}
    done = refused = stall = longest = 0
    kinds: dict[str, int] = {}
    for _ in range(actions * 4):
        if game.state.over or done >= actions:
            break
        if _answer_proposal(rng, game):
            done += 1
            continue
        submitted = game.state.to_json(None).get("armies_submitted") or []
        waiting = [seat for seat in (1, 2) if seat not in submitted and str(seat) not in submitted]
        if game.state.battle.stage == "setup" and waiting:
            # The lobby's step (again, if an undo took a submitted army back).
            seat = rng.choice(waiting)
            game.act(seat, {"type": "submit_army", "units": lists[seat]})
            done += 1
            continue
        stall += 1
        longest = max(longest, stall)
        seats = sorted(acting_seats(game.state)) or [1, 2]
        seat = rng.choice(seats)
        view = game.state.to_json(seat)
        for action in _candidates(rng, view, seat)[:12]:
            try:
                game.act(seat, action)
            except RuleError:
                refused += 1
                continue
            done += 1
            stall = 0
            kinds[action["type"]] = kinds.get(action["type"], 0) + 1
            break
    ended = game.state.over
    if not ended:
        game.act(1, {"type": "concede"})
    log = archive.with_dice_reveal(game.log, seed)
    return Played(system, seed, log, game.state, done, refused, kinds, ended, longest)


def main() -> None:
    """`python -m tests.games.random_play [seconds per system]`: as many random games as fit,
    each proof checked; prints one JSON line per system (games, actions, failures)."""
    import hashlib
    import json
    import sys
    import time

    budget = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
    for system in sorted(ARMIES):
        games = actions = unverified = unfinished = errors = 0
        stalls: list[int] = []
        kinds: dict[str, int] = {}
        started = time.monotonic()
        while time.monotonic() - started < budget:
            seed = hashlib.sha256(f"{system}-{games}".encode()).digest()
            games += 1
            try:
                game = play(system, seed, actions=400)
            except Exception:  # noqa: BLE001 - counted and shown: an `internal` in a game
                import traceback

                errors += 1
                print(f"error: {system} {seed.hex()}\n{traceback.format_exc()}", file=sys.stderr)
                continue
            actions += game.actions
            stalls.append(game.longest_stall)
            unfinished += not game.ended_by_play
            if not archive.dice_proof(game.commitment, seed, game.log)["verified"]:
                unverified += 1
                print(f"unverified: {system} {seed.hex()}", file=sys.stderr)
            for e in game.log:
                kinds[e.type] = kinds.get(e.type, 0) + 1
        print(json.dumps({"system": system, "games": games, "actions": actions,
                          "proofs_failed": unverified, "not_ended": unfinished, "errors": errors,
                          "longest_stall": max(stalls, default=0),
                          "events": {k: kinds[k] for k in sorted(kinds)}}))


if __name__ == "__main__":
    main()
