"""Warhammer 40,000 10th edition: what each unit may do now, as the server judges it (issue 16
item 6, issue 23 item 2; `server/rules/orders.py`).

* **Shoot** (`shoot_weapons`): in your Shooting phase, for each of your units with a ranged
  weapon, its weapons (the profile each model uses now: Unstable Oracle and the Waaagh! as
  `combat.model_weapon` applies them) and, per enemy unit on the table, how far it is (the
  geometry core's distance between the units), whether it is visible and in cover (the
  line-of-sight core; `line`: the closest points, which the table draws) and, per weapon,
  whether it may fire at it with the reason when not
  (Fell Back, Advanced, in Engagement Range, not visible, out of range). The verdicts are
  `combat.check_shooter` and `combat.aim_weapon`, the very checks `shoot_weapons` makes
  before it rolls; nothing is judged twice. `suggested` names the weapons a Shoot at that
  target fires unless the player picks others: every weapon that may fire, the Pistols only
  when no other weapon may (a model shoots either its Pistols or its other weapons, FACTS.md),
  one profile of a weapon with several ("Plasma pistol - standard" / "- supercharge").
* **Fight** (`fight`): in the Fight phase, for each of your units eligible to fight (within
  Engagement Range of an enemy, or that charged this turn), whether it may fight now
  (`combat.check_fighter`: Fights First, whose turn it is to choose, fought already) with its
  melee weapons and the enemy units within Engagement Range it may fight. The player who
  chooses the next unit to fight acts (`register_acting`), even when it is not their turn.
* **Fall Back** (`fall_back`, sent as `move_models`): in your Movement phase, for each of your
  units that began it within Engagement Range of an enemy: the move that takes it out, with
  what it costs (no shooting and no charge this turn; Desperate Escape tests when
  Battle-shocked). Advance and Charge are offered by the shared modules (`moves.py`,
  `charge.py`) with this system's refusals (`variant.Warhammer40k.charge_refusal`).
"""

from __future__ import annotations

from typing import Any

from server.geometry.kinds import Cover
from server.geometry.los import line_of_sight
from server.geometry.measure import Measurement, distance
from server.rules.battle import BATTLE, stage
from server.rules.core import GameState, RuleError
from server.rules.naming import display_name
from server.rules.orders import judge, offer, refused, register_acting, register_offer
from server.rules.units import Unit, phase_moves, table_of, units_of
from server.rules.wh40k10.army import engaged_with, forty, is_forty, models_of
from server.rules.wh40k10.combat import (
    aim_weapon,
    check_fighter,
    check_shooter,
    eligible_to_fight,
    fight_chooser,
    fighting_models,
    model_weapon,
    shooter_of,
)
from server.rules.wh40k10.damage_events import done_this_phase
from server.rules.wh40k10.profiles import MELEE, RANGED, Weapon, shooting_restriction

Offer = dict[str, Any]


def _profile(weapon: Weapon) -> dict[str, Any]:
    """A weapon's characteristics as the player reads them on the card."""
    return {
        "range": weapon.range_in,
        "A": weapon.attacks,
        "skill": weapon.skill,
        "S": weapon.strength,
        "AP": weapon.ap,
        "D": weapon.damage,
        "abilities": list(weapon.abilities),
    }


def unit_weapons(state: GameState, unit: Unit, kind: str) -> list[tuple[Weapon, int]]:
    """The unit's weapons of `kind` ("ranged"/"melee") as its models use them now, once per
    name, with how many models carry each."""
    out: dict[str, tuple[Weapon, int]] = {}
    for model in models_of(state, unit):
        for printed in model.weapons():
            if printed.type != kind:
                continue
            weapon = model_weapon(state, unit, model, printed.name)
            if weapon is None:
                continue
            held = out.get(weapon.name)
            out[weapon.name] = (held[0] if held else weapon, (held[1] if held else 0) + 1)
    return list(out.values())


def _base_name(name: str) -> str:
    """The weapon a profile belongs to: "Plasma pistol - supercharge" -> "Plasma pistol"."""
    return name.split(" - ")[0]


def suggested(weapons: list[Weapon], may_fire: list[str]) -> list[str]:
    """The weapons a Shoot fires unless the player picks: of those that may fire, the
    non-Pistols, or the Pistols when no other may (FACTS.md: a model shoots its Pistols or its
    other weapons, not both); one profile of each weapon (the first listed)."""
    firing = [w for w in weapons if w.name in may_fire]
    others = [w for w in firing if not w.pistol]
    out: list[str] = []
    seen: set[str] = set()
    for w in others or firing:
        if _base_name(w.name) not in seen:
            seen.add(_base_name(w.name))
            out.append(w.name)
    return out


def _measured(state: GameState, unit_id: str, other_id: str) -> Measurement:
    """The distance between two units on the state's table, kept on the table (which the next
    state shares when nothing moved: `units.table_of`)."""
    table = table_of(state)
    known: dict[tuple[str, str], Measurement] = table.memo.setdefault("wh40k10.distances", {})
    found = known.get((unit_id, other_id))
    if found is None:
        found = known[unit_id, other_id] = distance(table.units[unit_id], table.units[other_id])
    return found


def _mine_on_table(state: GameState, seat: int, unit: Unit) -> bool:
    return (
        is_forty(state)
        and unit.owner == seat
        and unit.status == "on_table"
        and bool(unit.positions)
        and unit.id in table_of(state).units
    )


@register_offer("shoot_weapons")
def _offer_shoot(state: GameState, seat: int, unit: Unit) -> Offer | None:
    """Shoot…: the unit's ranged weapons and, per enemy unit, distance, visibility and the
    weapons that may fire at it (module text)."""
    if not _mine_on_table(state, seat, unit):
        return None
    armed = unit_weapons(state, unit, RANGED)
    if not armed:
        return None
    engaged = engaged_with(state, unit)
    shooter = shooter_of(state, unit, bool(engaged))
    weapons: list[dict[str, Any]] = []
    for weapon, count in armed:
        # What the unit's own state forbids, whatever the target (Fell Back, Advanced, in
        # Engagement Range): the one rule, asked with a target it is engaged with.
        why = shooting_restriction(weapon, shooter, target_engaged_with_shooter=True)
        weapons.append({"name": weapon.name, "models": count, "pistol": weapon.pistol,
                        **_profile(weapon), "available": why is None, "reason": why})
    err = judge(lambda: check_shooter(state, unit))
    if err is not None:
        return refused("shoot_weapons", err, weapons=weapons, targets=[])
    table = table_of(state)
    friends = [u for u in units_of(state).values() if u.owner == seat and u.id in table.units]
    targets: list[dict[str, Any]] = []
    for enemy in units_of(state).values():
        if enemy.owner == seat or enemy.status != "on_table" or enemy.id not in table.units:
            continue
        sight = line_of_sight(table, unit.id, enemy.id)
        measured = _measured(state, unit.id, enemy.id)
        gap = float(measured.distance)
        checks: list[dict[str, Any]] = []
        for weapon, _count in armed:
            try:
                aimed = aim_weapon(state, seat, unit, shooter, engaged, weapon.name, enemy.id,
                                   friends=friends, sight=sight)
            except RuleError as exc:
                checks.append({"weapon": weapon.name, "available": False,
                               "reason": exc.message, "rule": exc.details.get("rule"),
                               "models_in_range": 0})
                continue
            checks.append({"weapon": weapon.name, "available": True, "reason": None,
                           "rule": None, "models_in_range": len(aimed.in_range)})
        may_fire = [c["weapon"] for c in checks if c["available"]]
        first_refusal = next((c["reason"] for c in checks if not c["available"]), None)
        targets.append({
            "unit": enemy.id,
            "name": display_name(state, enemy.id),
            "distance": round(gap, 2),
            "line": [[round(c, 3) for c in measured.from_point],
                     [round(c, 3) for c in measured.to_point]],
            "visible": sight.visible,
            "seen": round(float(sight.fraction), 3),
            "cover": sight.visible and sight.cover != Cover.NONE,
            "engaged": enemy.id in engaged,
            "available": bool(may_fire),
            "reason": None if may_fire else first_refusal,
            "weapons": may_fire,
            "suggested": suggested([w for w, _ in armed], may_fire),
            "checks": checks,
        })
    if not any(t["available"] for t in targets):
        why_not = next((w["reason"] for w in weapons if not w["available"]), None)
        return offer("shoot_weapons", False,
                     why_not or "no enemy unit is in range and sight of "
                                f"{display_name(state, unit.id)}",
                     weapons=weapons, targets=targets)
    return offer("shoot_weapons", weapons=weapons, targets=targets)


@register_offer("fight")
def _offer_fight(state: GameState, seat: int, unit: Unit) -> Offer | None:
    """Fight: for a unit eligible to fight this phase (or that has fought: shown, refused),
    its melee weapons and the enemy units within Engagement Range it may fight."""
    if not _mine_on_table(state, seat, unit):
        return None
    fought = unit.id in done_this_phase(state, "fight")
    if not fought and unit.id not in eligible_to_fight(state):
        return None  # not in combat: no Fight order at all
    weapons = [{"name": w.name, "models": n, **_profile(w)}
               for w, n in unit_weapons(state, unit, MELEE)]
    targets = [
        {
            "unit": eid,
            "name": display_name(state, eid),
            "distance": round(float(_measured(state, unit.id, eid).distance), 2),
            # how many of its models would fight this target as they stand (before a Pile-in)
            "fighting": len(fighting_models(state, unit, eid)),
            "models": len(models_of(state, unit)),
            "available": True,
            "reason": None,
        }
        for eid in engaged_with(state, unit)
    ]
    err = judge(lambda: check_fighter(state, seat, unit))
    if err is not None:
        return refused("fight", err, weapons=weapons, targets=targets)
    if not targets:
        return offer("fight", False, "no enemy unit is within Engagement Range of "
                                     f"{display_name(state, unit.id)}",
                     weapons=weapons, targets=targets)
    return offer("fight", weapons=weapons, targets=targets)


@register_offer("move_models", "fall_back")
def _offer_fall_back(state: GameState, seat: int, unit: Unit) -> Offer | None:
    """Fall Back: a unit that began the Movement phase within Engagement Range moves out of it
    (a model-by-model move, judged as any other); then it may neither shoot nor charge this
    turn, and a Battle-shocked unit takes Desperate Escape tests (`fall_back.py`)."""
    if not _mine_on_table(state, seat, unit):
        return None
    record = forty(state).engaged_at_movement
    at = [state.battle.player_turn, state.battle.phase]
    if record.get("at") != at or unit.id not in record.get("units", []):
        return None
    shocked = unit.id in forty(state).battle_shocked
    cost = "it cannot shoot or declare a charge this turn" + (
        "; Battle-shocked: a Desperate Escape test for each model (1-2 destroys it)"
        if shocked else "")
    if phase_moves(state).get(unit.id, {}).get("used") is not None:
        return offer("move_models", False, f"{display_name(state, unit.id)} has already moved "
                                           "this phase",
                     cost=cost, desperate_escape=shocked)
    return offer("move_models", cost=cost, desperate_escape=shocked)


@register_acting
def _fight_chooser(state: GameState) -> frozenset[int]:
    """In the Fight phase the player who chooses the next unit to fight acts (FACTS.md: the
    players alternate, the player whose turn it is not first)."""
    if not is_forty(state) or stage(state) != BATTLE or state.battle.phase != "Fight":
        return frozenset()
    seat, _units = fight_chooser(state)
    return frozenset() if seat is None else frozenset({seat})
