"""Rank-and-flank: who is in which combat, and who of a unit fights (contact and supporting
ranks). Geometry and the charge links only; nothing here differs between systems.

1. **Engaged**: a charge links the charger to its target (`state.charges.engaged`, charger ->
   target, server/rules/charge.py); a unit is Engaged while a linked enemy is on the table and
   not fleeing. `melee_rounds` counts the rounds each unit has fought since its charge.
2. **A combat** is every unit linked through charges (`combat_of`), in a stable order; each
   unit fights the enemy it charged, else the first that charged it (`opponent_of`).
3. **Who fights** (`frontage`): a model fights when its base is in contact with the enemy's Unit
   Boundary (corners count, `CONTACT_TOLERANCE_IN`). Against an enemy in its Front arc a unit
   also counts the rank-and-file of the ranks behind the first (up to the system's
   `max_supporting_ranks`), in a file whose first-rank model is in contact, for Supporting
   Attacks. Joined attachable models fight when their own base is in contact.
4. **Charged this round**: a unit that charged (a key of `engaged`) and has fought no round
   since (the charge bonus, Lances).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import shapely

from server.data import Datasheet, load_catalog
from server.geometry.arcs import arcs_fought
from server.geometry.constants import CONTACT_TOLERANCE_IN
from server.geometry.footprint import Footprint
from server.geometry.kinds import Arc
from server.rules.core import GameState, part_of, with_part
from server.rules.units import Unit, footprint_of, units_of
from server.rules.units import sheets_of as sheets_of  # the one list (units.py), re-exported

FLEEING = "fleeing"
STANDARD = "standard"


@dataclass(frozen=True, slots=True)
class MeleeRounds:
    """This family's own part of the state: the rounds of melee each engaged unit has fought
    in its combat (by unit id; a unit no longer engaged is dropped)."""

    rounds: Mapping[str, int] = field(default_factory=dict)


def engaged_map(state: GameState) -> Mapping[str, str]:
    return state.charges.engaged


def melee_rounds(state: GameState) -> Mapping[str, int]:
    return part_of(state, MeleeRounds).rounds


def with_melee_rounds(state: GameState, rounds: Mapping[str, int]) -> GameState:
    """`state` with `rounds` as the rounds of melee each unit has fought."""
    return with_part(state, MeleeRounds(rounds))


def active(unit: Unit) -> bool:
    """On the table and not fleeing."""
    return unit.status == "on_table" and FLEEING not in unit.markers


def is_engaged(state: GameState, unit_id: str) -> bool:
    units = units_of(state)
    for a, b in engaged_map(state).items():
        if unit_id in (a, b):
            other_id = b if a == unit_id else a
            enemy = units.get(other_id)
            if enemy is not None and active(enemy):
                return True
    return False


def sheet(state: GameState, datasheet: str) -> Datasheet:
    return load_catalog().get(state.system, datasheet)


def rank_and_file_sheet(state: GameState, unit: Unit) -> Datasheet:
    return sheet(state, unit.datasheet)


def standing(state: GameState, unit: Unit) -> Footprint | None:
    """The unit's footprint as it stands now (models removed from the rear; with only
    attachable models left they stand as a unit of their own: units.footprint_of)."""
    return footprint_of(state, unit) if unit.model_count else None


def combat_of(state: GameState, unit_id: str) -> list[str]:
    """The units of the combat `unit_id` is in (linked through charges), in a stable order."""
    units = units_of(state)
    links: dict[str, set[str]] = {}
    for a, b in engaged_map(state).items():
        ua, ub = units.get(a), units.get(b)
        if ua is None or ub is None or not (active(ua) and active(ub)):
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
    if target in members and active(units[target]):
        return target
    for a, b in engaged.items():
        if b == unit_id and a in members and active(units[a]):
            return a
    return None


def charged_this_round(state: GameState, unit_id: str) -> bool:
    """A unit charged in this round of combat: it charged (it is a key of `engaged`) and has
    fought no round since."""
    return unit_id in engaged_map(state) and melee_rounds(state).get(unit_id, 0) == 0


@dataclass(frozen=True)
class Frontage:
    """Who of a unit fights an enemy: rank-and-file in contact, supporting rank-and-file by rank
    behind the first (index 0: second rank), attachable models in contact, and where the enemy
    is."""

    contact: int
    supporting: tuple[int, ...]
    characters: tuple[int, ...]
    enemy_in_front: bool
    touching: tuple[int, ...] = ()


def frontage(fp: Footprint, enemy: Footprint, depth: int = 2) -> Frontage:
    """Base contact by geometry (corners count); Supporting Attacks only to the Front, from
    `depth` ranks behind the first (module text, step 3)."""
    touching = np.asarray(
        shapely.dwithin(fp.model_polygons, enemy.boundary, CONTACT_TOLERANCE_IN), dtype=bool
    )
    ranks, files, chars = fp.model_ranks, fp.model_files, fp.model_characters
    front_files: set[int] = set()
    contact = 0
    in_contact_chars: list[int] = []
    for touch, rank, file, char in zip(touching, ranks, files, chars, strict=True):
        if not touch:
            continue
        if char is not None:
            in_contact_chars.append(int(char))
        else:
            contact += 1
        if rank == 0 and file is not None:
            front_files.add(int(file))
    in_front = Arc.FRONT in arcs_fought(fp, enemy)
    supporting = [0] * depth
    if in_front:
        for i in range(len(ranks)):
            r, f = ranks[i], files[i]
            if (
                chars[i] is None
                and not touching[i]
                and r is not None
                and 1 <= r <= depth
                and f in front_files
            ):
                supporting[int(r) - 1] += 1
    return Frontage(
        contact,
        tuple(supporting),
        tuple(sorted(set(in_contact_chars))),
        in_front,
        tuple(int(i) for i in np.flatnonzero(touching)),
    )
