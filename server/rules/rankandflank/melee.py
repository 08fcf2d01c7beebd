"""Rank-and-flank: one round of close combat, the `fight_combat` action.

`fight_combat {unit}` in the active player's melee phase (the system's `melee_phase`): the whole
combat `unit` is in (server/rules/rankandflank/engagement.py `combat_of`) fights one round, once
per phase. Registered for every system with rank-and-flank rules.

One round (each number or named rule is the system's, `RankAndFlankRules`):

0. **Tests at the start of the round** the system takes (`round_start`: whfb8 Fear); what
   they change in a unit's strikes this round is the system's `strike_in_round`.

1. **Strike order**: every model part of every unit with an enemy to fight is a striker at its
   `strike_step` (t9a Agility, whfb8 Initiative), highest first. Strikers at equal steps strike
   simultaneously (against the state as the step began); models removed in a step do not
   strike in a later one.
2. **Who fights** (`engagement.frontage`): rank-and-file in base contact, plus Supporting
   Attacks against an enemy in the Front arc from `supporting_ranks` ranks behind the first
   (plus the formation's `formation_support`: whfb8 Horde) (files whose first-rank model is in
   contact), each at most `support_limit` attacks;
   attachable models in contact fight with their own profile (alone, they are the unit). The
   "attacks" `attack_step` says who fights, with which weapon (`melee_weapon`) and the rules
   that counted (`attack_notes`).
3. **The attacks** (`attacks.resolve` with the system's steps): to hit, to wound, armour, special
   save, against the guard of the Health Pool they go to (`guard`: rank-and-file while any
   remain, then the first attachable model; Parry may apply to attacks from the front).
4. **Losses** of a step are applied after it (`hp_lost`, rank-and-file then characters).
5. **Combat score** (server/rules/rankandflank/combat_result.py), **Break Tests, fleeing,
   pursuit and Panic Tests** (server/rules/rankandflank/break_test.py): the loser's units still
   fighting test; units destroyed by the strikes make their friends take Panic Tests.
6. `combat_fought`: the units fought this phase; those still Engaged count one more round.

Every roll is recorded with every die, every rule applied is named in the event (`rules`), and
every event carries a `text` the client shows as it is.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any, Literal

import shapely
import shapely.geometry
from pydantic import Field

from server import geometry as geo
from server.data import Datasheet
from server.dice import DiceStream
from server.geometry.arcs import arcs_fought
from server.geometry.kinds import Arc
from server.rules.battle import on_phase_end, other
from server.rules.core import (
    ACTIVE,
    BATTLE,
    ILLEGAL_MOVE,
    OUT_OF_PHASE,
    ActionModel,
    Event,
    GameState,
    RuleError,
    When,
    register_action,
    register_folder,
)
from server.rules.naming import display_name
from server.rules.orders import judge, offer, refused, register_offer
from server.rules.rankandflank.attacks import Roller, plural, times_models
from server.rules.rankandflank.break_test import break_test, panic_tests
from server.rules.rankandflank.combat_result import combat_score, proper_ranks, result, score_text
from server.rules.rankandflank.engagement import (
    active,
    charged_this_round,
    combat_of,
    frontage,
    is_engaged,
    melee_rounds,
    opponent_of,
    rank_and_file_sheet,
    sheet,
    standing,
    with_melee_rounds,
)
from server.rules.rankandflank.events import Log, losses_events, resolve_on_pools, step_events
from server.rules.rankandflank.system import (
    MELEE_PHASE,
    rank_and_flank_of,
    rank_and_flank_systems,
)
from server.rules.resume import refuse_while_suspended, register_frame, suspension
from server.rules.units import Unit, phase_moves, table_of, unit_of, units_of, with_phase_moves


class FightCombat(ActionModel):
    type: Literal["fight_combat"]
    unit: str = Field(min_length=1, max_length=40)


@dataclass(frozen=True)
class Striker:
    """A model part of a unit that strikes at `step` of the strike order."""

    unit: str
    target: str
    step: int  # its strike order value (t9a Agility, whfb8 Initiative)
    part: int
    character: int | None  # index in Unit.characters; None: rank-and-file


def guard(state: GameState, target: Unit, *, parry: bool, charged: bool = False) -> Any:
    """The guard of the Health Pool attacks go to: rank-and-file while any remain, then the
    first attachable model still standing; `parry`: melee attacks from the target's front."""
    if target.models > 0:
        ds = rank_and_file_sheet(state, target)
    else:
        ds = sheet(state, target.characters[0].datasheet)
    return rank_and_flank_of(state).guard(ds, parry=parry, charged=charged)


def _pool_guard(
    state: GameState, target: Unit, ds: Datasheet, *, parry: bool, charged: bool
) -> Any:
    """The guard of one Health Pool of `target` (its rank-and-file or a joined character,
    `ds`) in this round: `parry` for melee attacks from the front."""
    rules = rank_and_flank_of(state)
    return rules.guard_in_round(state, target, rules.guard(ds, parry=parry, charged=charged))


def strikers(state: GameState, combat: list[str]) -> list[Striker]:
    """Every model part of the combat's units with an enemy to fight (module text, step 1)."""
    rules = rank_and_flank_of(state)
    out: list[Striker] = []
    units = units_of(state)
    for uid in combat:
        target = opponent_of(state, uid, combat)
        if target is None:
            continue
        unit = units[uid]
        if unit.models:
            for k, part in enumerate(rules.melee_parts(rank_and_file_sheet(state, unit))):
                out.append(Striker(uid, target, rules.strike_step(part), k, None))
        for ci, c in enumerate(unit.characters):
            for k, part in enumerate(rules.melee_parts(sheet(state, c.datasheet))):
                out.append(Striker(uid, target, rules.strike_step(part), k, ci))
    return out


def strike_for(
    state: GameState, striker: Striker, dice: Roller
) -> tuple[Any | None, Event | None]:
    """The batch a striker makes now, and the `attack_step` ("attacks") event saying who fights
    and with what; (None, None) when none of its models fight (module text, step 2)."""
    rules = rank_and_flank_of(state)
    unit = units_of(state)[striker.unit]
    target = units_of(state)[striker.target]
    fp, efp = standing(state, unit), standing(state, target)
    if fp is None or efp is None or not active(unit) or target.model_count == 0:
        return None, None
    front = frontage(fp, efp, rules.max_supporting_ranks)
    charged = charged_this_round(state, unit.id)
    if striker.character is None:
        if unit.models == 0:
            return None, None
        ds = rank_and_file_sheet(state, unit)
        name = ds.name
        fighting = front.contact
    else:
        # Attachable models stand in the front rank; alone, they are the unit's only models.
        touching = front.touching if unit.models == 0 else front.characters
        if striker.character >= len(unit.characters) or striker.character not in touching:
            return None, None
        ds = sheet(state, unit.characters[striker.character].datasheet)
        name = unit.characters[striker.character].name
        fighting = 1
    part = rules.melee_parts(ds)[striker.part]
    weapon = rules.melee_weapon(ds, charged)
    support = 0
    formation: dict[str, str] | None = None
    if striker.character is None:
        ranks = rules.supporting_ranks(part, weapon)
        first_rank = sum(1 for r in fp.model_ranks if r == 0)
        extra, formation = rules.formation_support(first_rank)
        support = sum(front.supporting[: ranks + extra])
        if support <= sum(front.supporting[:ranks]):
            formation = None
    if fighting + support == 0:
        return None, None
    limit = rules.support_limit(part)
    per_support = limit if not isinstance(part.attacks, int) else min(part.attacks, limit)
    value = times_models(part.attacks, fighting)
    roll = None
    if isinstance(value, int):
        attacks = value + per_support * support
    else:
        roll = dice.roll(value)
        attacks = (roll.total or 0) + per_support * support
    label = name if part.name == name else f"{name} ({part.name})"
    parts = [f"{plural(fighting, 'model')} in contact x {part.attacks}"]
    if support:
        parts.append(f"{plural(support, 'supporting model')} x {per_support}")
    notes = rules.attack_notes(
        part, weapon, support=support, extra_rank=support > front.supporting[0], limit=limit
    )
    if formation is not None:
        notes.append(formation)
    text = f"{label} fight with {weapon.name}: {' + '.join(parts)} = {plural(attacks, 'attack')}"
    event = Event(
        "attack_step",
        {
            "unit": unit.id,
            "target": target.id,
            "attacks": label,
            rules.strike_order_name.lower(): rules.strike_order_value(striker.step),
            "step": "attacks",
            "needed": None,
            "dice": 0 if roll is None else len(roll.dice),
            "successes": attacks,
            "in_contact": fighting,
            "supporting": support,
            "weapon": weapon.name,
            "roll": None if roll is None else roll.to_payload(),
            "rules": notes,
            "text": text,
        },
    )
    strike = rules.strike_in_round(state, unit, rules.melee_strike(part, weapon, attacks, label))
    return dataclasses.replace(strike, name=label), event


@register_action(
    "fight_combat",
    FightCombat,
    systems=rank_and_flank_systems(),
    when=[When(BATTLE, ACTIVE, MELEE_PHASE)],
    doing="fighting a combat",
)
def fight_combat(state: GameState, seat: int, action: FightCombat, dice: DiceStream) -> list[Event]:
    """Fight one round of the combat `action.unit` is in (module text)."""
    unit = unit_of(state, action.unit)
    return resolve_combat(state, _check_fight(state, unit), dice, actor=seat)


def _check_fight(state: GameState, unit: Unit) -> list[str]:
    """The combat `unit` is in, not yet fought this phase, or the rule that refuses it."""
    rule = rank_and_flank_of(state).melee_phase
    refuse_while_suspended(state, "Fighting a combat")
    combat = combat_of(state, unit.id)
    if not combat:
        raise RuleError(ILLEGAL_MOVE, f"{display_name(state, unit.id)} is not Engaged in Combat",
                                      rule=rule)
    if any(phase_moves(state).get(u, {}).get("fought") for u in combat):
        raise RuleError(ILLEGAL_MOVE, "this combat has already been fought this phase", rule=rule)
    return combat


def every_combat_fought(state: GameState, dice: DiceStream) -> list[Event]:
    """For `on_phase_end(system, melee phase)`: the phase ends only once every combat on the
    table has been fought (each is fought once per Melee / Close Combat phase; the browser let a
    player end the phase and skip a combat). Refuses with the first unfought combat's units."""
    seen: set[str] = set()
    for unit_id in sorted(units_of(state)):
        if unit_id in seen:
            continue
        combat = combat_of(state, unit_id)
        seen.update(combat)
        if combat and not any(phase_moves(state).get(u, {}).get("fought") for u in combat):
            names = " and ".join(display_name(state, u) for u in combat)
            rule = rank_and_flank_of(state).melee_phase
            raise RuleError(
                OUT_OF_PHASE,
                f"the combat of {names} has not been fought: fight it (Fight) before ending "
                f"the {rule} phase",
                rule=rule,
                unit=combat[0],
            )
    return []


for _system_id in rank_and_flank_systems():
    (_melee,) = MELEE_PHASE.of(_system_id)
    on_phase_end(_system_id, _melee)(every_combat_fought)


@register_offer("fight_combat")
def _offer_fight(state: GameState, seat: int, unit: Unit) -> dict[str, Any] | None:
    """Fight: in the active player's Melee phase, for every unit in a combat (either side's),
    with the units of that combat; refused once the combat was fought this phase."""
    combat = combat_of(state, unit.id)
    if not combat:
        return None
    err = judge(lambda: _check_fight(state, unit))
    if err is not None:
        return refused("fight_combat", err, combat=combat)
    return offer("fight_combat", combat=combat)


def resolve_combat(
    state: GameState, combat: list[str], dice: Roller, actor: int | str = "system"
) -> list[Event]:
    """One round of combat among `combat` (units of both players), module text steps 1-6."""
    rules = rank_and_flank_of(state)
    order = rules.strike_order_name
    log = Log(state, resumable=True)
    units = units_of(state)
    names = ", ".join(units[u].name for u in combat)
    sides: dict[str, list[str]] = {}
    for u in combat:
        sides.setdefault(str(units[u].owner), []).append(u)
    log.add(
        Event(
            "combat_round",
            {"units": combat, "sides": sides, "text": f"Combat: {names}"},
            actor=actor,
        )
    )

    # -- 0. tests at the start of the round (whfb8 Fear)
    rules.round_start(log, combat, dice)

    # -- 1-4. strikes, step by step
    caused: dict[int, int] = {}
    where = {u: fp for u in combat if (fp := table_of(state).units.get(u)) is not None}
    chargers = [u for u in combat if charged_this_round(state, u)]
    all_strikers = strikers(state, combat)
    for step in sorted({s.step for s in all_strikers}, reverse=True):
        snapshot = log.state
        pending: dict[str, int] = {}
        for striker in (s for s in all_strikers if s.step == step):
            strike, count_event = strike_for(snapshot, striker, dice)
            if count_event is not None:
                log.add(count_event)
            if strike is None or strike.attacks <= 0:
                continue
            attacker = units_of(snapshot)[striker.unit]
            target = units_of(snapshot)[striker.target]
            if target.model_count == 0 or target.status != "on_table":
                continue
            fp, efp = standing(snapshot, attacker), standing(snapshot, target)
            from_front = fp is not None and efp is not None and Arc.FRONT in arcs_fought(efp, fp)
            charged = charged_this_round(snapshot, target.id)
            outcomes, losses = resolve_on_pools(
                snapshot,
                target,
                strike,
                functools.partial(_pool_guard, snapshot, target, parry=from_front, charged=charged),
                dice,
                taken=pending.get(target.id, 0),
            )
            shown = rules.strike_order_value(step)
            for outcome in outcomes:
                log.add(*step_events(outcome, attacker, target, **{order.lower(): shown}))
            if losses:
                pending[target.id] = pending.get(target.id, 0) + losses
        for target_id, losses in pending.items():
            target = log.unit(target_id)
            events, applied = losses_events(
                log.state, target, losses, cause=f"{order} {rules.strike_order_value(step)}"
            )
            log.add(*events)
            enemy_side = other(target.owner)
            caused[enemy_side] = caused.get(enemy_side, 0) + applied

    # -- 5. combat score
    scores = combat_score(log.state, combat, caused, chargers)
    owners = sorted(scores)
    units_now = units_of(log.state)
    winner, difference = result(scores)
    text = f"{rules.score_name}: " + "; ".join(score_text(rules, s, scores[s]) for s in owners)
    if winner is None:
        text += ". The combat is a draw"
    else:
        text += f". Player {winner} wins by {difference}"
    log.add(
        Event(
            "combat_score",
            {
                "units": combat,
                "scores": {str(s): scores[s] for s in owners},
                "winner": winner,
                "difference": difference,
                "rules": [n for s in owners for n in scores[s]["rules"]],
                "text": text,
            },
        )
    )

    # -- 5. Break Tests for the loser's units still standing
    rest: dict[str, Any] = {"kind": "combat", "combat": combat, "names": names,
                            "difference": difference, "winners": [], "enemy_ranks": 0,
                            "losers": []}
    if winner is not None:
        loser = other(winner)
        winners = [u for u in combat if units_now[u].owner == winner and active(units_now[u])]
        enemy_ranks = max((proper_ranks(log.state, units_now[u]) for u in winners), default=0)
        rest.update(winners=winners, enemy_ranks=enemy_ranks,
                    losers=[u for u in combat if units_now[u].owner == loser])
    # -- 5. Panic Tests for units destroyed by the strikes (Break Tests did their own)
    rest["destroyed"] = [
        {"unit": uid, "enemy": opponent_of(state, uid, combat) or uid,
         "name": display_name(state, uid),
         "where": None if uid not in where else geo.to_geojson(where[uid].boundary, None)}
        for uid in combat if units_now[uid].status == "destroyed"
    ]
    _rest_of_combat(log, rest, dice)
    return log.events


def _rest_of_combat(log: Log, rest: dict[str, Any], dice: Roller) -> None:
    """Steps 5 and 6 from the Break Tests on, for the losers and destroyed units in `rest`
    still to do; a flee or pursuit that waits for a player (whfb8 Fanatics released at 8 in,
    server/rules/resume.py) suspends what is left of them."""
    losers = list(rest["losers"])
    while losers:
        unit = log.unit(losers.pop(0))
        if not active(unit):
            continue
        break_test(log, unit, rest["difference"], rest["enemy_ranks"], list(rest["winners"]),
                   dice)
        if log.suspended:
            log.add(suspension({**rest, "losers": losers, "text": _rest_text(rest)}))
            return
    destroyed = list(rest["destroyed"])
    while destroyed:
        gone = destroyed.pop(0)
        where = None if gone["where"] is None else shapely.geometry.shape(gone["where"])
        panic_tests(log, gone["unit"], where, gone["enemy"], dice, f"{gone['name']} destroyed")
        if log.suspended:
            log.add(suspension({**rest, "losers": [], "destroyed": destroyed,
                                "text": _rest_text(rest)}))
            return
    # -- 6.
    log.add(
        Event(
            "combat_fought",
            {"units": rest["combat"], "text": f"Round of combat fought: {rest['names']}"},
        )
    )


def _rest_text(rest: dict[str, Any]) -> str:
    return f"the rest of the combat ({rest['names']})"


@register_frame("combat")
def _resume_combat(state: GameState, frame: Any, dice: Any) -> list[Event]:
    log = Log(state, resumable=True)
    _rest_of_combat(log, dict(frame), dice)
    return log.events


@register_folder("combat_fought")
def _fold_combat_fought(state: GameState, event: Event) -> GameState:
    """The combat's units have fought this phase; those still engaged count one more round."""
    moves = dict(phase_moves(state))
    rounds = dict(melee_rounds(state))
    for uid in event.payload["units"]:
        moves[uid] = {**moves.get(uid, {}), "fought": True}
        if is_engaged(state, uid):
            rounds[uid] = rounds.get(uid, 0) + 1
        else:
            rounds.pop(uid, None)
    return with_melee_rounds(with_phase_moves(state, moves), rounds)
