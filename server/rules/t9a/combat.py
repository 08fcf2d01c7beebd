"""The 9th Age: shooting, melee, combat score, Break Tests, Supernal and Panic Tests (issue 5,
items 4 and 5; seed 000, ../shared/seeds/000_ac64b535f31b5cdf.txt).

Actions (t9a only, shapes in docs/protocol.md "t9a combat"):

* `shoot {unit, target, weapon?}` in the active player's Shooting Phase: a unit not Engaged
  and not fleeing, with a shooting weapon, at an enemy on the table, not Engaged, within the
  weapon's range and in line of sight (front arc). Modifiers: Long Range (beyond half range)
  -1, Soft Cover -1, Hard Cover -2, Hard Target (X) -X (**Decision** for the first three: the
  long-standing values). Models in the first two ranks shoot (**Decision**).
* `fight_combat {unit}` in the active player's Melee Phase: the whole combat `unit` is in (the
  units linked through charges, `state.extra["engaged"]`) fights one round.

One round of combat (**Decisions**, simple and documented):

1. Strike order by Agility, highest first; model parts with equal Agility strike
   simultaneously, and models removed in a step do not strike in a later one. Charging gives
   no Agility bonus.
2. Each unit fights the enemy unit it is engaged with. A model fights when its base is in
   contact with the enemy's Unit Boundary (corners count). Against an enemy in its Front arc a
   unit also makes Supporting Attacks: rank-and-file in the second rank (third too with Fight in
   Extra Rank or a Spear) in a file whose first-rank model is in contact, each at most
   `profiles.support_limit` attacks (Extra Support). Joined attachable models fight when their
   own base is in contact.
3. Attacks go to the rank-and-file while any remain, then to attachable models (excess carries
   over; **Decision**, issue 5's "rank-and-file first, then characters").
4. Combat score per side: Health Point losses it caused this round; the best Rank Bonus of its
   units (+1 per Proper Rank after the first, at most +3; none when an enemy with two or more
   Proper Ranks is in its Flank or Rear: Disrupted); +1 Standard (a unit with the marker
   "standard": `standard: true` on its army entry, a Standard Bearer); +1 Charge in the first
   round of a unit that charged; +1 Flank and +2 Rear when one of its units is in an enemy
   unit's flank or rear arc.
5. The loser's units take Break Tests: 2D6 against Discipline (the unit's highest) minus the
   difference; a Steadfast unit (more Proper Ranks than every enemy unit in the combat) tests
   against its unmodified Discipline. A unit entirely with Supernal that fails suffers Health
   Point losses equal to the difference, no saves, rank-and-file first, then attachable models
   as evenly as possible; any other unit that fails breaks and flees (`flee_unit`).
6. Panic Tests: when a unit breaks or is destroyed, every friendly unit on the table within
   6 in of it that is not Engaged and not fleeing takes a Panic Test (2D6 against Discipline); a
   unit containing Fearless passes automatically (seed 000); a failed test flees.

Every roll is recorded with every die, every rule applied is named in the event (`rules`), and
every event carries a `text` the client shows as it is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import shapely
from pydantic import Field

from server.data import Datasheet
from server.dice import DiceStream
from server.geometry.arcs import arc_of_unit
from server.geometry.constants import CONTACT_TOLERANCE_IN
from server.geometry.footprint import Footprint
from server.geometry.kinds import Arc, Cover
from server.geometry.measure import distance
from server.rules.battle import other, require_phase
from server.rules.core import (
    ILLEGAL_MOVE,
    ActionModel,
    Event,
    GameState,
    RuleError,
    fold,
    fold_all,
    register_action,
    register_folder,
)
from server.rules.flee import flee_events, pursue_events
from server.rules.t9a import profiles
from server.rules.t9a.attacks import (
    SHOOTING,
    Guard,
    Modifier,
    Outcome,
    Pool,
    Roller,
    Strike,
    allocate,
    resolve,
)
from server.rules.units import (
    JoinedCharacter,
    Unit,
    _set,
    _unit,
    _with_unit,
    footprint_of,
    phase_moves,
    require_in_sight,
    table_of,
    turn_moves,
    unit_from_json,
    units_of,
)

SYSTEMS = ["t9a"]
PANIC_RANGE_IN = 6.0
"""Panic Tests: friendly units within this distance of a unit that breaks or is destroyed."""
FLEEING = "fleeing"
STANDARD = "standard"
COVER_MODIFIER = {Cover.SOFT: -1, Cover.HARD: -2}


# --- small helpers ------------------------------------------------------------------------------


def engaged_map(state: GameState) -> Mapping[str, str]:
    engaged: Mapping[str, str] = state.extra.get("engaged", {})
    return engaged


def melee_rounds(state: GameState) -> Mapping[str, int]:
    rounds: Mapping[str, int] = state.extra.get("melee_rounds", {})
    return rounds


def _active(unit: Unit) -> bool:
    return unit.status == "on_table" and FLEEING not in unit.markers


def is_engaged(state: GameState, unit_id: str) -> bool:
    units = units_of(state)
    for a, b in engaged_map(state).items():
        if unit_id in (a, b):
            other_id = b if a == unit_id else a
            enemy = units.get(other_id)
            if enemy is not None and _active(enemy):
                return True
    return False


def _sheets(state: GameState, unit: Unit) -> list[Datasheet]:
    """The datasheets of every model of the unit: rank-and-file (if any) then attachable."""
    found = [profiles.sheet(state.system, unit.datasheet)] if unit.models > 0 else []
    return found + [profiles.sheet(state.system, c.datasheet) for c in unit.characters]


def _rf_sheet(state: GameState, unit: Unit) -> Datasheet:
    return profiles.sheet(state.system, unit.datasheet)


def _footprint(state: GameState, unit: Unit) -> Footprint | None:
    """The unit's footprint as it stands now (models removed from the rear; with only
    attachable models left they stand as a unit of their own: units.footprint_of)."""
    return footprint_of(state, unit) if unit.model_count else None


def _pool(state: GameState, unit: Unit) -> Pool:
    hp = profiles.t9a_profile(_rf_sheet(state, unit)).defensive.health_points
    chars = tuple(
        (
            profiles.t9a_profile(profiles.sheet(state.system, c.datasheet)).defensive.health_points,
            c.damage,
        )
        for c in unit.characters
    )
    return Pool(unit.models, hp, unit.damage, chars)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def flee_unit(
    state: GameState, unit_id: str, away_from: str, dice: Roller, reason: str
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
            "text": f"{unit.name} {reason} and flees from {units_of(state)[away_from].name}",
        },
    )
    after = fold_all(state, [broke])
    return [broke, *flee_events(after, unit_id, away_from, dice, reason)]  # type: ignore[arg-type]


class _Log:
    """Events of one action, folded as they are made so later steps see their effects."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.events: list[Event] = []

    def add(self, *events: Event) -> None:
        for event in events:
            self.events.append(event)
            self.state = fold(self.state, event)

    def unit(self, unit_id: str) -> Unit:
        return units_of(self.state)[unit_id]


def _step_events(outcome: Outcome, unit: Unit, target: Unit, **extra: Any) -> list[Event]:
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


def _losses_events(
    state: GameState,
    unit: Unit,
    losses: int,
    *,
    evenly: bool = False,
    rule: str | None = None,
    cause: str = "",
) -> tuple[list[Event], int]:
    """`hp_lost` (and `unit_destroyed`) for `losses` Health Point losses on `unit`; the losses
    actually applied (none beyond the unit's last Health Point)."""
    if losses <= 0:
        return [], 0
    new_pool, alloc = allocate(_pool(state, unit), losses, evenly=evenly)
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
    parts = [f"{unit.name} lose {_plural(alloc.applied, 'Health Point')}"]
    if alloc.models_removed:
        parts.append(f"{_plural(alloc.models_removed, 'model')} removed")
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
            Event("unit_destroyed", {"unit": unit.id, "text": f"{unit.name} is destroyed"})
        )
    return events, alloc.applied


# --- Panic Tests --------------------------------------------------------------------------------


def panic_tests(
    log: _Log,
    source_id: str,
    where: Footprint | None,
    enemy_id: str,
    dice: Roller,
    cause: str,
) -> None:
    """Panic Tests for friendly units within 6 in of `source_id`, which broke or was destroyed
    standing at `where` (its footprint before it fled or was removed). Fearless (seed 000): a
    unit containing Fearless passes automatically."""
    state = log.state
    source = units_of(state)[source_id]
    table = table_of(state)
    if where is None:
        return
    for unit in list(units_of(state).values()):
        if unit.owner != source.owner or unit.id == source_id or not _active(unit):
            continue
        if is_engaged(log.state, unit.id) or unit.id not in table.units:
            continue
        gap = distance(where, table.units[unit.id]).distance
        if gap > PANIC_RANGE_IN + 1e-9:
            continue
        sheets = _sheets(log.state, unit)
        if profiles.containing(profiles.FEARLESS, sheets):
            text = f"Fearless: {unit.name} pass the Panic Test automatically ({cause})"
            log.add(
                Event(
                    "panic_test",
                    {
                        "unit": unit.id,
                        "cause": source_id,
                        "passed": True,
                        "rule": profiles.FEARLESS,
                        "rules": [{"rule": profiles.FEARLESS, "text": text}],
                        "text": text,
                    },
                )
            )
            continue
        disc = profiles.discipline(sheets)
        roll = dice.roll("2D6")
        total = roll.total or 0
        passed = total <= disc
        text = (
            f"{unit.name} take a Panic Test ({cause}): rolled {total} against Discipline "
            f"{disc}: {'passed' if passed else 'failed'}"
        )
        log.add(
            Event(
                "panic_test",
                {
                    "unit": unit.id,
                    "cause": source_id,
                    "discipline": disc,
                    "roll": roll.to_payload(),
                    "passed": passed,
                    "rule": None,
                    "rules": [],
                    "text": text,
                },
            )
        )
        if not passed:
            log.add(*flee_unit(log.state, unit.id, enemy_id, dice, "failed a Panic Test"))


# --- shooting -----------------------------------------------------------------------------------


class Shoot(ActionModel):
    type: Literal["shoot"]
    unit: str = Field(min_length=1, max_length=40)
    target: str = Field(min_length=1, max_length=40)
    weapon: str | None = Field(default=None, max_length=80)


def _shooters(fp: Footprint, unit: Unit) -> int:
    """Rank-and-file models in the first two ranks (module decision)."""
    return (
        sum(
            1
            for rank, char in zip(fp.model_ranks, fp.model_characters, strict=True)
            if char is None and rank is not None and rank <= 1
        )
        if unit.models
        else 0
    )


@register_action("shoot", Shoot, systems=SYSTEMS)
def shoot(state: GameState, seat: int, action: Shoot, dice: DiceStream) -> list[Event]:
    """Shoot with a unit's weapon at an enemy unit in range and line of sight (module text)."""
    require_phase(state, seat, ("Shooting",), "shooting")
    unit = _unit(state, action.unit, seat)
    target = _unit(state, action.target)
    if target.owner == seat:
        raise RuleError(ILLEGAL_MOVE, "shooting targets an enemy unit", rule="Shooting")
    if not _active(unit) or unit.models == 0:
        raise RuleError(
            ILLEGAL_MOVE, f"{unit.name} cannot shoot (not on the table or fleeing)", rule="Shooting"
        )
    if target.status != "on_table":
        raise RuleError(ILLEGAL_MOVE, f"{target.name} is not on the table", rule="Shooting")
    if phase_moves(state).get(unit.id, {}).get("shot"):
        raise RuleError(ILLEGAL_MOVE, f"{unit.name} has already shot this phase", rule="Shooting")
    if is_engaged(state, unit.id):
        raise RuleError(ILLEGAL_MOVE, f"{unit.name} is Engaged in Combat", rule="Shooting")
    moved = turn_moves(state).get(unit.id, {})
    if moved.get("marched"):
        # A Light Troops Reform beyond Mobility counts as a March only for march-triggered
        # rules; "for the purpose of shooting, this is still a Reform Move" (seed 000).
        raise RuleError(
            ILLEGAL_MOVE, f"{unit.name} made a March Move this turn and cannot shoot",
            rule="Shooting: Marched",
        )
    if is_engaged(state, target.id):
        raise RuleError(
            ILLEGAL_MOVE, f"{target.name} is Engaged in Combat: no shooting at it", rule="Shooting"
        )
    sheet = _rf_sheet(state, unit)
    weapons = profiles.t9a_profile(sheet).shooting
    if not weapons:
        raise RuleError(ILLEGAL_MOVE, f"{unit.name} has no shooting weapon", rule="Shooting")
    weapon = (
        next((w for w in weapons if w.name == action.weapon), None)
        if action.weapon
        else (weapons[0])
    )
    if weapon is None:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{unit.name} has no {action.weapon!r}; it has {', '.join(w.name for w in weapons)}",
            rule="Shooting",
        )
    table = table_of(state)
    gap = distance(table.units[unit.id], table.units[target.id]).distance
    if gap > weapon.range_in + 1e-9:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{target.name} is {gap:.1f} in away; {weapon.name} reaches {weapon.range_in} in",
            rule="Shooting: Range",
            distance=round(gap, 3),
        )
    sight = require_in_sight(state, unit, target, "Shooting: Line of Sight")
    modifiers: list[Modifier] = []
    if moved.get("moved"):
        modifiers.append(Modifier("Moving and Shooting", -1, "Moving and Shooting: -1 to hit"))
    if gap > weapon.range_in / 2:
        modifiers.append(Modifier("Long Range", -1, "Long Range: -1 to hit"))
    if sight.cover in COVER_MODIFIER:
        label = f"{sight.cover.label.title()} Cover"
        mod = COVER_MODIFIER[sight.cover]
        modifiers.append(Modifier(label, mod, f"{label}: {mod} to hit"))

    log = _Log(state)
    models = _shooters(table.units[unit.id], unit)
    shots_value = profiles.times_models(weapon.shots, models)
    shots_roll = None
    if isinstance(shots_value, int):
        shots = shots_value
    else:
        shots_roll = dice.roll(shots_value)
        shots = shots_roll.total or 0
    names = [r.name for r in weapon.special_rules]
    strike = Strike(
        f"{unit.name} ({weapon.name})",
        shots,
        weapon.strength,
        weapon.armour_penetration,
        SHOOTING,
        aim=weapon.aim,
        attributes=frozenset(names),
        poison=names.count("Poison Attacks"),
    )
    text = (
        f"{unit.name} shoot {weapon.name} at {target.name} ({gap:.1f} in): {_plural(shots, 'shot')}"
    )
    log.add(
        Event(
            "shots_fired",
            {
                "unit": unit.id,
                "target": target.id,
                "weapon": weapon.name,
                "distance": round(gap, 3),
                "shots": shots,
                "cover": sight.cover.label,
                "modifiers": [{"rule": m.rule, "value": m.value} for m in modifiers],
                "roll": None if shots_roll is None else shots_roll.to_payload(),
                "text": text,
                "rules": [],
            },
            actor=seat,
        )
    )
    guard = _guard(state, target, parry=False)
    outcome = resolve(strike, guard, dice, modifiers)
    log.add(*_step_events(outcome, unit, target))
    events, _ = _losses_events(log.state, log.unit(target.id), outcome.unsaved, cause="shooting")
    log.add(*events)
    if log.unit(target.id).status == "destroyed":
        where = table.units[target.id]
        panic_tests(log, target.id, where, unit.id, dice, f"{target.name} destroyed")
    return log.events


def _guard(state: GameState, target: Unit, *, parry: bool, charged: bool = False) -> Guard:
    """The Health Pool attacks go to: rank-and-file while any remain, then the first attachable
    model still standing."""
    if target.models > 0:
        ds = _rf_sheet(state, target)
    else:
        ds = profiles.sheet(state.system, target.characters[0].datasheet)
    use_parry = parry and profiles.has_parry(ds, charged)
    return profiles.guard_of(ds, parry=use_parry)


@register_folder("shots_fired")
def _fold_shots_fired(state: GameState, event: Event) -> GameState:
    p = event.payload
    record = {**phase_moves(state).get(p["unit"], {}), "shot": p["target"]}
    return _set(state, phase_moves={**phase_moves(state), p["unit"]: record})


@register_folder("hp_lost")
def _fold_hp_lost(state: GameState, event: Event) -> GameState:
    return _with_unit(state, unit_from_json(event.payload["unit_after"]))


def _drop_engagements(state: GameState, unit_id: str) -> GameState:
    engaged = {a: b for a, b in engaged_map(state).items() if unit_id not in (a, b)}
    rounds = {u: n for u, n in melee_rounds(state).items() if u != unit_id}
    return _set(state, engaged=engaged, melee_rounds=rounds)


@register_folder("unit_destroyed")
def _fold_unit_destroyed(state: GameState, event: Event) -> GameState:
    unit = units_of(state)[event.payload["unit"]]
    state = _with_unit(state, dataclasses.replace(unit, status="destroyed"))
    return _drop_engagements(state, unit.id)


@register_folder("unit_broke")
def _fold_unit_broke(state: GameState, event: Event) -> GameState:
    unit = units_of(state)[event.payload["unit"]]
    markers = unit.markers if FLEEING in unit.markers else (*unit.markers, FLEEING)
    state = _with_unit(state, dataclasses.replace(unit, markers=markers))
    return _drop_engagements(state, unit.id)


# --- melee --------------------------------------------------------------------------------------


class FightCombat(ActionModel):
    type: Literal["fight_combat"]
    unit: str = Field(min_length=1, max_length=40)


def combat_of(state: GameState, unit_id: str) -> list[str]:
    """The units of the combat `unit_id` is in (linked through charges), in a stable order."""
    units = units_of(state)
    links: dict[str, set[str]] = {}
    for a, b in engaged_map(state).items():
        ua, ub = units.get(a), units.get(b)
        if ua is None or ub is None or not (_active(ua) and _active(ub)):
            continue
        links.setdefault(a, set()).add(b)
        links.setdefault(b, set()).add(a)
    if unit_id not in links:
        return []
    seen, todo = {unit_id}, [unit_id]
    while todo:
        for nxt in links[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return sorted(seen, key=lambda u: (units[u].owner, u))


def opponent_of(state: GameState, unit_id: str, combat: Iterable[str]) -> str | None:
    """The enemy unit `unit_id` fights: the one it charged, else the first that charged it."""
    units = units_of(state)
    members = set(combat)
    engaged = engaged_map(state)
    target = engaged.get(unit_id)
    if target in members and _active(units[target]):
        return target
    for a, b in engaged.items():
        if b == unit_id and a in members and _active(units[a]):
            return a
    return None


@dataclass(frozen=True)
class Frontage:
    """Who of a unit fights an enemy: rank-and-file in contact, supporting rank-and-file by rank
    behind the first (1: second rank), attachable models in contact, and where the enemy is."""

    contact: int
    supporting: tuple[int, ...]
    characters: tuple[int, ...]
    enemy_in_front: bool
    touching: tuple[int, ...] = ()


def frontage(fp: Footprint, enemy: Footprint) -> Frontage:
    """Base contact by geometry (corners count), Supporting Attacks only to the Front."""
    touching = np.asarray(
        shapely.dwithin(fp.model_polygons, enemy.boundary, CONTACT_TOLERANCE_IN), dtype=bool
    )
    ranks, files, chars = fp.model_ranks, fp.model_files, fp.model_characters
    front_files: set[int] = set()
    contact = 0
    in_contact_chars: list[int] = []
    for i, touch in enumerate(touching):
        if not touch:
            continue
        if chars[i] is not None:
            in_contact_chars.append(int(chars[i]))  # type: ignore[arg-type]
        else:
            contact += 1
        if ranks[i] == 0 and files[i] is not None:
            front_files.add(int(files[i]))  # type: ignore[arg-type]
    in_front = Arc.FRONT in arc_of_unit(fp, enemy)
    supporting = [0, 0]
    if in_front:
        for i in range(len(ranks)):
            r, f = ranks[i], files[i]
            if chars[i] is None and not touching[i] and r in (1, 2) and f in front_files:
                supporting[int(r) - 1] += 1  # type: ignore[arg-type]
    return Frontage(
        contact,
        tuple(supporting),
        tuple(sorted(set(in_contact_chars))),
        in_front,
        tuple(int(i) for i in np.flatnonzero(touching)),
    )


@dataclass(frozen=True)
class _Striker:
    unit: str
    target: str
    agility: int
    part: int
    character: int | None  # index in Unit.characters; None: rank-and-file


def _charged_this_round(state: GameState, unit_id: str) -> bool:
    """A unit charged in this round of combat: it charged (it is a key of `engaged`) and has
    fought no round since."""
    return unit_id in engaged_map(state) and melee_rounds(state).get(unit_id, 0) == 0


def _strike_for(
    state: GameState, striker: _Striker, dice: Roller
) -> tuple[Strike | None, Event | None]:
    """The batch a striker makes now, and the `attack_step` ("attacks") event saying who fights
    and with what; (None, None) when none of its models fight."""
    unit = units_of(state)[striker.unit]
    target = units_of(state)[striker.target]
    fp, efp = _footprint(state, unit), _footprint(state, target)
    if fp is None or efp is None or not _active(unit) or target.model_count == 0:
        return None, None
    front = frontage(fp, efp)
    charged = _charged_this_round(state, unit.id)
    if striker.character is None:
        if unit.models == 0:
            return None, None
        ds = _rf_sheet(state, unit)
        name = ds.name
        fighting = front.contact
    else:
        # Attachable models stand in the front rank; alone, they are the unit's only models.
        touching = front.touching if unit.models == 0 else front.characters
        if striker.character >= len(unit.characters) or striker.character not in touching:
            return None, None
        ds = profiles.sheet(state.system, unit.characters[striker.character].datasheet)
        name = unit.characters[striker.character].name
        fighting = 1
    part = profiles.t9a_profile(ds).offensive[striker.part]
    weapon = profiles.melee_weapon(ds, charged)
    support = 0
    if striker.character is None:
        support = sum(front.supporting[: profiles.supporting_ranks(part, weapon)])
    if fighting + support == 0:
        return None, None
    limit = profiles.support_limit(part)
    per_support = limit if not isinstance(part.attacks, int) else min(part.attacks, limit)
    rules: list[dict[str, str]] = []
    value = profiles.times_models(part.attacks, fighting)
    roll = None
    if isinstance(value, int):
        attacks = value + per_support * support
    else:
        roll = dice.roll(value)
        attacks = (roll.total or 0) + per_support * support
    label = name if part.name == name else f"{name} ({part.name})"
    parts = [f"{_plural(fighting, 'model')} in contact x {part.attacks}"]
    if support:
        parts.append(f"{_plural(support, 'supporting model')} x {per_support}")
        if profiles.EXTRA_SUPPORT in profiles.part_rules(part):
            rules.append(
                {
                    "rule": profiles.EXTRA_SUPPORT,
                    "text": f"Extra Support: up to {limit} Supporting Attacks per model",
                }
            )
        if support > front.supporting[0]:
            rule = (
                profiles.FIGHT_IN_EXTRA_RANK
                if profiles.FIGHT_IN_EXTRA_RANK in profiles.part_rules(part)
                else weapon.name
            )
            rules.append({"rule": rule, "text": f"{rule}: the third rank makes Supporting Attacks"})
    if weapon.name != profiles.HAND_WEAPON:
        rules.append({"rule": weapon.name, "text": weapon.describe()})
    text = f"{label} fight with {weapon.name}: {' + '.join(parts)} = {_plural(attacks, 'attack')}"
    event = Event(
        "attack_step",
        {
            "unit": unit.id,
            "target": target.id,
            "attacks": label,
            "agility": striker.agility,
            "step": "attacks",
            "needed": None,
            "dice": 0 if roll is None else len(roll.dice),
            "successes": attacks,
            "in_contact": fighting,
            "supporting": support,
            "weapon": weapon.name,
            "roll": None if roll is None else roll.to_payload(),
            "rules": rules,
            "text": text,
        },
    )
    strike = profiles.strike_of(part, weapon, attacks, label)
    return dataclasses.replace(strike, name=label), event


def _strikers(state: GameState, combat: list[str]) -> list[_Striker]:
    out: list[_Striker] = []
    units = units_of(state)
    for uid in combat:
        target = opponent_of(state, uid, combat)
        if target is None:
            continue
        unit = units[uid]
        ds = _rf_sheet(state, unit)
        if unit.models:
            for k, part in enumerate(profiles.t9a_profile(ds).offensive):
                out.append(_Striker(uid, target, part.agility, k, None))
        for ci, c in enumerate(unit.characters):
            cds = profiles.sheet(state.system, c.datasheet)
            for k, part in enumerate(profiles.t9a_profile(cds).offensive):
                out.append(_Striker(uid, target, part.agility, k, ci))
    return out


def _proper_ranks(state: GameState, unit: Unit) -> int:
    fp = _footprint(state, unit)
    if fp is None:
        return 0
    sizes: dict[int, int] = {}
    for r in fp.model_ranks:
        if r is not None:
            sizes[r] = sizes.get(r, 0) + 1
    rf = _rf_sheet(state, unit) if unit.models else None
    chars = [profiles.sheet(state.system, c.datasheet) for c in unit.characters]
    light = profiles.contains_light_troops(rf, chars)
    height = (rf or chars[0]).height_class
    return profiles.proper_ranks(sizes.values(), height, light)


def combat_score(
    state: GameState,
    combat: list[str],
    caused: Mapping[int, int],
    chargers: Iterable[str] | None = None,
) -> dict[int, dict[str, Any]]:
    """Each side's combat score and its parts (module text, step 4). `chargers`: the units
    that charged this round, as the round began (default: as `state` says)."""
    if chargers is None:
        chargers = [u for u in combat if _charged_this_round(state, u)]
    charging = set(chargers)
    units = units_of(state)
    table = table_of(state)
    out: dict[int, dict[str, Any]] = {}
    owners = sorted({units[u].owner for u in combat})
    for side in owners:
        mine = [u for u in combat if units[u].owner == side and units[u].status == "on_table"]
        theirs = [u for u in combat if units[u].owner != side and units[u].status == "on_table"]
        notes: list[dict[str, str]] = []
        best_rank, flank, rear, charge = 0, 0, 0, 0
        standard = 0
        for uid in mine:
            unit = units[uid]
            ranks = _proper_ranks(state, unit)
            disrupted = False
            fp = table.units.get(uid)
            for eid in theirs:
                efp = table.units.get(eid)
                if fp is None or efp is None:
                    continue
                arcs = arc_of_unit(fp, efp)
                if Arc.FRONT not in arcs and _proper_ranks(state, units[eid]) >= 2:
                    disrupted = True
                e_arcs = arc_of_unit(efp, fp)
                if Arc.FRONT not in e_arcs:
                    if Arc.REAR in e_arcs:
                        rear = 2
                    else:
                        flank = 1
            bonus = 0 if disrupted else profiles.rank_bonus(ranks)
            if disrupted and profiles.rank_bonus(ranks):
                notes.append(
                    {"rule": "Disrupted", "text": f"Disrupted: {unit.name} lose the Rank Bonus"}
                )
            if (
                ranks == 0
                and profiles.containing(profiles.LIGHT_TROOPS, _sheets(state, unit))
                and unit.models
            ):
                notes.append(
                    {
                        "rule": profiles.LIGHT_TROOPS,
                        "text": f"Light Troops: {unit.name} count zero Proper Ranks",
                    }
                )
            best_rank = max(best_rank, bonus)
            if STANDARD in unit.markers:
                standard = 1
            if uid in charging:
                charge = 1
        total = caused.get(side, 0) + best_rank + standard + charge + flank + rear
        out[side] = {
            "health_points": caused.get(side, 0),
            "rank_bonus": best_rank,
            "standard": standard,
            "charge": charge,
            "flank": flank,
            "rear": rear,
            "total": total,
            "rules": notes,
        }
    return out


def _score_text(units: Mapping[str, Unit], side: int, score: Mapping[str, Any]) -> str:
    parts = [_plural(score["health_points"], "Health Point")]
    for key, label in (
        ("rank_bonus", "ranks"),
        ("standard", "standard"),
        ("charge", "charge"),
        ("flank", "flank"),
        ("rear", "rear"),
    ):
        if score[key]:
            parts.append(f"+{score[key]} {label}")
    return f"player {side}: {score['total']} ({', '.join(parts)})"


@register_action("fight_combat", FightCombat, systems=SYSTEMS)
def fight_combat(state: GameState, seat: int, action: FightCombat, dice: DiceStream) -> list[Event]:
    """Fight one round of the combat `action.unit` is in (module text)."""
    require_phase(state, seat, ("Melee",), "fighting a combat")
    unit = _unit(state, action.unit)
    combat = combat_of(state, unit.id)
    if not combat:
        raise RuleError(ILLEGAL_MOVE, f"{unit.name} is not Engaged in Combat", rule="Melee")
    if any(phase_moves(state).get(u, {}).get("fought") for u in combat):
        raise RuleError(
            ILLEGAL_MOVE, "this combat has already been fought this phase", rule="Melee"
        )
    return resolve_combat(state, combat, dice, actor=seat)


def resolve_combat(
    state: GameState, combat: list[str], dice: Roller, actor: int | str = "system"
) -> list[Event]:
    """One round of combat among `combat` (units of both players): strikes by Agility, combat
    score, Break Tests, Supernal losses, fleeing and Panic Tests."""
    log = _Log(state)
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

    caused: dict[int, int] = {}
    standing = {u: fp for u in combat if (fp := table_of(state).units.get(u)) is not None}
    chargers = [u for u in combat if _charged_this_round(state, u)]
    strikers = _strikers(state, combat)
    for agility in sorted({s.agility for s in strikers}, reverse=True):
        snapshot = log.state
        pending: dict[str, int] = {}
        for striker in (s for s in strikers if s.agility == agility):
            strike, count_event = _strike_for(snapshot, striker, dice)
            if count_event is not None:
                log.add(count_event)
            if strike is None or strike.attacks <= 0:
                continue
            attacker = units_of(snapshot)[striker.unit]
            target = units_of(snapshot)[striker.target]
            if target.model_count == 0 or target.status != "on_table":
                continue
            fp, efp = _footprint(snapshot, attacker), _footprint(snapshot, target)
            from_front = fp is not None and efp is not None and Arc.FRONT in arc_of_unit(efp, fp)
            charged = _charged_this_round(snapshot, target.id)
            guard = _guard(snapshot, target, parry=from_front, charged=charged)
            outcome = resolve(strike, guard, dice)
            log.add(*_step_events(outcome, attacker, target, agility=agility))
            if outcome.unsaved:
                pending[target.id] = pending.get(target.id, 0) + outcome.unsaved
        for target_id, losses in pending.items():
            target = log.unit(target_id)
            events, applied = _losses_events(log.state, target, losses, cause=f"Agility {agility}")
            log.add(*events)
            enemy_side = other(target.owner)
            caused[enemy_side] = caused.get(enemy_side, 0) + applied

    # -- combat score
    scores = combat_score(log.state, combat, caused, chargers)
    owners = sorted(scores)
    units_now = units_of(log.state)
    winner: int | None = None
    difference = 0
    if len(owners) == 2:
        a, b = owners
        ta, tb = scores[a]["total"], scores[b]["total"]
        if ta != tb:
            winner = a if ta > tb else b
            difference = abs(ta - tb)
    text = "Combat score: " + "; ".join(_score_text(units_now, s, scores[s]) for s in owners)
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

    # -- Break Tests for the loser's units still standing
    if winner is not None:
        loser = other(winner)
        winners = [u for u in combat if units_now[u].owner == winner and _active(units_now[u])]
        enemy_ranks = max((_proper_ranks(log.state, units_now[u]) for u in winners), default=0)
        for uid in [u for u in combat if units_now[u].owner == loser]:
            unit = log.unit(uid)
            if not _active(unit):
                continue
            break_test(log, unit, difference, enemy_ranks, winners, dice)

    # -- Panic Tests for units destroyed by the strikes (Break Tests did their own)
    for uid in combat:
        if units_now[uid].status == "destroyed":
            enemy = opponent_of(state, uid, combat) or uid
            name = units_now[uid].name
            panic_tests(log, uid, standing.get(uid), enemy, dice, f"{name} destroyed")

    log.add(
        Event(
            "combat_fought",
            {"units": combat, "text": f"Round of combat fought: {names}"},
        )
    )
    return log.events


def break_test(
    log: _Log,
    unit: Unit,
    difference: int,
    enemy_ranks: int,
    winners: list[str],
    dice: Roller,
) -> None:
    """The Break Test of a unit that lost a combat by `difference` (module text, step 5)."""
    state = log.state
    sheets = _sheets(state, unit)
    disc = profiles.discipline(sheets)
    ranks = _proper_ranks(state, unit)
    steadfast = ranks > enemy_ranks
    needed = disc if steadfast else disc - difference
    roll = dice.roll("2D6")
    total = roll.total or 0
    passed = total <= needed
    rules: list[dict[str, str]] = []
    if steadfast:
        rules.append(
            {
                "rule": "Steadfast",
                "text": f"Steadfast: {ranks} Proper Ranks against {enemy_ranks}: "
                f"tests on Discipline {disc}",
            }
        )
    text = (
        f"{unit.name} take a Break Test: rolled {total} against "
        f"{needed} (Discipline {disc}"
        + ("" if steadfast else f" - {difference}")
        + f"): {'passed' if passed else 'failed'}"
    )
    log.add(
        Event(
            "break_test",
            {
                "unit": unit.id,
                "discipline": disc,
                "difference": difference,
                "needed": needed,
                "steadfast": steadfast,
                "roll": roll.to_payload(),
                "passed": passed,
                "rules": rules,
                "text": text,
            },
        )
    )
    if passed:
        return
    enemy = winners[0] if winners else unit.id
    where = table_of(log.state).units.get(unit.id)
    if profiles.entirely(profiles.SUPERNAL, sheets):
        events, _ = _losses_events(
            log.state,
            log.unit(unit.id),
            difference,
            evenly=True,
            rule=profiles.SUPERNAL,
            cause=f"failed Break Test, combat lost by {difference}, no saves",
        )
        log.add(*events)
        if log.unit(unit.id).status == "destroyed":
            panic_tests(log, unit.id, where, enemy, dice, f"{unit.name} destroyed")
        return
    fled = flee_unit(log.state, unit.id, enemy, dice, "failed its Break Test")
    log.add(*fled)
    panic_tests(log, unit.id, where, enemy, dice, f"{unit.name} broke")
    flee_distance = next(
        (float(e.payload["distance"]) for e in fled if e.type == "unit_fled"), 0.0
    )
    for winner in winners:
        # A winner still fighting another enemy stays; the others pursue (flee.py).
        if log.unit(winner).status == "on_table" and not is_engaged(log.state, winner):
            log.add(*pursue_events(log.state, winner, unit.id, flee_distance, dice))  # type: ignore[arg-type]


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
    return _set(state, phase_moves=moves, melee_rounds=rounds)
