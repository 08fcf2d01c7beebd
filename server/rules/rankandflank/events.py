"""Rank-and-flank: the events every step of the battle shares, and how they change the state.

1. **One log per action** (`Log`): events are folded as they are made, so a later step (the
   combat score after the strikes, a Panic Test after a unit broke) sees the earlier ones.
2. **`attack_step`**: one per step of a batch (server/rules/rankandflank/attacks.py), with the
   unit, its target, the batch's name and the step's roll and rules.
3. **`hp_lost`** (`losses_events`): wounds allocated rank-and-file first, then attachable models
   (`attacks.allocate`), with the unit as it is afterwards; `unit_destroyed` when nothing is
   left. A rule that causes losses with no saves (t9a Supernal) is named in `rule`.
4. **`unit_broke`** (`flee_unit`): the one place a unit that broke or failed a Panic Test
   flees: it leaves the combat, marked "fleeing", then makes the flee move of
   server/rules/flee.py (its dice and Swiftstride are flee.py's).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from server.data import Datasheet
from server.rules.core import Event, GameState, fold, fold_all, register_folder
from server.rules.flee import flee_events
from server.rules.naming import display_name
from server.rules.rankandflank.attacks import (
    Modifier,
    Outcome,
    Pool,
    Roller,
    allocate,
    plural,
    resolve,
)
from server.rules.rankandflank.engagement import (
    FLEEING,
    engaged_map,
    melee_rounds,
    rank_and_file_sheet,
    sheet,
    with_melee_rounds,
)
from server.rules.rankandflank.system import RankAndFlankRules, rank_and_flank_of
from server.rules.resume import is_suspended
from server.rules.systems import find_system
from server.rules.units import (
    JoinedCharacter,
    Unit,
    phase_moves,
    unit_from_json,
    units_of,
    with_engaged,
    with_phase_move,
    with_unit,
)


class Log:
    """Events of one action, folded as they are made so later steps see their effects."""

    def __init__(self, state: GameState, *, resumable: bool = False) -> None:
        self.state = state
        self.events: list[Event] = []
        # Whether a flee or pursuit of this action may wait for a player part-way (whfb8:
        # Fanatics released at 8 in) and the rest be resumed later (server/rules/resume.py).
        self.resumable = resumable

    def add(self, *events: Event) -> None:
        for event in events:
            self.events.append(event)
            self.state = fold(self.state, event)

    def unit(self, unit_id: str) -> Unit:
        return units_of(self.state)[unit_id]

    @property
    def suspended(self) -> bool:
        """The action waits for a player: what is left is suspended (the caller adds its own
        rest with `suspension` and returns)."""
        return is_suspended(self.events)


def step_events(outcome: Outcome, unit: Unit, target: Unit, **extra: Any) -> list[Event]:
    """One `attack_step` per step of a resolved batch."""
    return [
        Event(
            "attack_step",
            {
                "unit": unit.id,
                "target": target.id,
                "attacks": outcome.strike.name,
                **extra,
                **step.to_json(),
            },
        )
        for step in outcome.steps
    ]


def health_pools(state: GameState, unit: Unit) -> list[tuple[Datasheet, int]]:
    """The Health Pools attacks on `unit` go to, in order, each with the Health Points it has
    left: the rank-and-file (while any remain), then each attachable model."""
    rules = rank_and_flank_of(state)
    out: list[tuple[Datasheet, int]] = []
    if unit.models > 0:
        rf = rank_and_file_sheet(state, unit)
        out.append((rf, unit.models * rules.wounds(rf) - unit.damage))
    for c in unit.characters:
        ds = sheet(state, c.datasheet)
        out.append((ds, rules.wounds(ds) - c.damage))
    return out


def resolve_on_pools(
    state: GameState,
    target: Unit,
    strike: Any,
    guard_for: Callable[[Datasheet], Any],
    dice: Roller,
    modifiers: Iterable[Modifier] = (),
    taken: int = 0,
) -> tuple[list[Outcome], int]:
    """Roll `strike` against the first Health Pool of `target` (its rank-and-file) with that
    pool's own profile (`guard_for(sheet)`); the attacks whose unsaved wounds the pool cannot
    take (less `taken`, losses already due this step) spill onto the next pool, a joined
    character, and are rolled against that character's own profile (Defensive Skill,
    Resilience, armour, Aegis, Health Points), and so on (issue 17 item 5; seed 000,
    Supernal: losses go to the rank-and-file until none remain, then to Attachable Models;
    docs/rules-decisions.md "Attacks spilling onto a joined character"). Returns the outcomes
    and the losses they cause on the unit."""
    mods = list(modifiers)
    pools = health_pools(state, target)
    outcomes: list[Outcome] = []
    losses = 0
    for i, (ds, left) in enumerate(pools):
        if taken >= left and i < len(pools) - 1:
            taken -= left
            continue
        left = max(0, left - taken)
        taken = 0
        outcome = resolve(rank_and_flank_of(state), strike, guard_for(ds), dice, mods)
        outcomes.append(outcome)
        last = i == len(pools) - 1
        spill = outcome.unsaved - left
        if spill <= 0 or last:
            losses += outcome.unsaved
            break
        losses += left
        strike = dataclasses.replace(strike, attacks=min(spill, strike.attacks))
    return outcomes, losses


def pool_of(state: GameState, unit: Unit, rules: RankAndFlankRules) -> Pool:
    """The unit's wounds: rank-and-file and each attachable model's."""
    hp = rules.wounds(rank_and_file_sheet(state, unit))
    chars = tuple((rules.wounds(sheet(state, c.datasheet)), c.damage) for c in unit.characters)
    return Pool(unit.models, hp, unit.damage, chars)


def losses_events(
    state: GameState,
    unit: Unit,
    losses: int,
    *,
    evenly: bool = False,
    rule: str | None = None,
    cause: str = "",
) -> tuple[list[Event], int]:
    """`hp_lost` (and `unit_destroyed`) for `losses` wounds on `unit`; the losses actually
    applied (none beyond the unit's last wound)."""
    if losses <= 0:
        return [], 0
    rules_of = rank_and_flank_of(state)
    new_pool, alloc = allocate(pool_of(state, unit, rules_of), losses, evenly=evenly)
    chars: list[JoinedCharacter] = []
    removed_names: list[str] = []
    for i, c in enumerate(unit.characters):
        if i in alloc.characters_removed:
            removed_names.append(c.name)
        else:
            chars.append(dataclasses.replace(c, damage=new_pool.characters[i][1]))
    after = dataclasses.replace(
        unit, models=new_pool.models, damage=new_pool.damage, characters=tuple(chars)
    )
    destroyed = after.models == 0 and not after.characters
    parts = [f"{display_name(state, unit.id)} lose {plural(alloc.applied, rules_of.wounds_name)}"]
    if alloc.models_removed:
        parts.append(f"{plural(alloc.models_removed, 'model')} removed")
    if removed_names:
        parts.append(f"{', '.join(removed_names)} removed")
    lead = f"{rule}: " if rule else ""
    text = lead + ", ".join(parts) + (f" ({cause})" if cause else "")
    rules = [{"rule": rule, "text": text}] if rule else []
    events = [
        Event(
            "hp_lost",
            {
                "unit": unit.id,
                "losses": alloc.applied,
                "models_removed": alloc.models_removed,
                "characters_removed": removed_names,
                "character_losses": list(alloc.character_losses),
                "rule": rule,
                "rules": rules,
                "saves": rule is None,
                "text": text,
                "unit_after": dataclasses.replace(
                    after, status="destroyed" if destroyed else after.status
                ).to_json(),
            },
        )
    ]
    if destroyed:
        events.append(
            Event("unit_destroyed", {"unit": unit.id, "text": f"{display_name(state, unit.id)} "
                                                              "destroyed"})
        )
    return events, alloc.applied


def flee_unit(
    state: GameState, unit_id: str, away_from: str, dice: Roller, reason: str,
    *, suspend: bool = False,
) -> list[Event]:
    """The one place a unit that broke or failed a Panic Test flees: `unit_broke` (it leaves
    the combat, marked "fleeing"), then the flee move of server/rules/flee.py (Flee Distance
    2D6, Maximised with Swiftstride; off the table it is destroyed)."""
    unit = units_of(state)[unit_id]
    broke = Event(
        "unit_broke",
        {
            "unit": unit_id,
            "away_from": away_from,
            "reason": reason,
            "text": f"{display_name(state, unit.id)} {reason} and flee from "
                    f"{units_of(state)[away_from].name}",
        },
    )
    after = fold_all(state, [broke])
    return [broke, *flee_events(after, unit_id, away_from, dice, reason,
                                suspend=suspend)]


MODELS_AT_START = "models_at_start"
MODELS_LOST = "models_lost"


@register_folder("hp_lost")
def _fold_hp_lost(state: GameState, event: Event) -> GameState:
    """The unit as it now stands; for a system that Panics on heavy casualties (whfb8), the
    models it had when this phase's first loss came and the models lost since (phase_moves)."""
    after = unit_from_json(event.payload["unit_after"])
    rules = find_system(state.system).rank_and_flank
    if rules is not None and rules.heavy_casualties is not None:
        before = units_of(state)[after.id]
        record = dict(phase_moves(state).get(after.id, {}))
        record.setdefault(MODELS_AT_START, before.model_count)
        lost = before.model_count - (0 if after.status == "destroyed" else after.model_count)
        record[MODELS_LOST] = record.get(MODELS_LOST, 0) + max(0, lost)
        state = with_phase_move(state, after.id, record)
    return with_unit(state, after)


def _drop_engagements(state: GameState, unit_id: str) -> GameState:
    engaged = {a: b for a, b in engaged_map(state).items() if unit_id not in (a, b)}
    rounds = {u: n for u, n in melee_rounds(state).items() if u != unit_id}
    return with_melee_rounds(with_engaged(state, engaged), rounds)


@register_folder("unit_destroyed")
def _fold_unit_destroyed(state: GameState, event: Event) -> GameState:
    unit = units_of(state)[event.payload["unit"]]
    state = with_unit(state, dataclasses.replace(unit, status="destroyed"))
    return _drop_engagements(state, unit.id)


@register_folder("unit_broke")
def _fold_unit_broke(state: GameState, event: Event) -> GameState:
    unit = units_of(state)[event.payload["unit"]]
    markers = unit.markers if FLEEING in unit.markers else (*unit.markers, FLEEING)
    state = with_unit(state, dataclasses.replace(unit, markers=markers))
    return _drop_engagements(state, unit.id)
