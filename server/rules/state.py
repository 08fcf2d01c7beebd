"""The typed parts of a game's state (issue 23 item 3), as `GameState` (server/rules/core.py)
holds them. Each is a frozen dataclass, changed with `dataclasses.replace` by the folders of
the module that owns it:

- `Battle`: where the game stands (stage, game turn, player turn, active player, phase, the
  player who took the first turn, whose deployment it is, the winner) (battle.py, setup.py);
- the units (`Unit`) and the terrain (units.py, setup.py);
- `Muster`: the armies as submitted (setup.py);
- `Charges`: who is engaged with whom, the charge waiting for its reaction, a charge a flee
  interrupted (charge.py, flee.py, the rank-and-flank battle);
- `Moves`: what each unit did in this phase and this Player Turn (moves.py and the rules that
  act in a phase);
- `PregameState`: roll-offs and choices before the battle (pregame.py);
- `Proposals`: the proposal on the table, how many were made, rolls an undo took back
  (proposals.py);
- `Outcome`: the game's result and a winner a system declared (endgame.py);
- parts: every other module's own state, including each game system's (40k's command points,
  whfb8's concealed Fanatics, t9a's Ambush hosts...), one frozen dataclass per owner, found by
  its class (`core.part_of`, `core.with_part`). This module names no game system.

Records that go to the client as they are (a pending charge, a unit's moves of the phase, a
pending roll-off choice) stay JSON-shaped mappings inside their typed part, so the wire does not
change.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from server.data import Datasheet

JsonRecord = Mapping[str, Any]
"""A record kept as the JSON the client is sent (a pending charge, a move record)."""

T = TypeVar("T")


@cache
def _init_fields(kind: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(kind) if f.init)


def changed(part: T, **changes: object) -> T:
    """`dataclasses.replace(part, **changes)` for a frozen part of the state, without its cost:
    a fold changes a part for most events, and a frozen dataclass's `__init__` sets each field
    with one `object.__setattr__` (10 us for 40k's 27 fields); this fills the new object's
    `__dict__` at once. The result is equal to `replace`'s (tests/rules/test_state.py); an
    unknown field is a TypeError, as there; `part` is not changed. For the parts that keep
    their fields in a `__dict__` (not `slots`), with no `__post_init__` and no `init=False`
    field: every part here, and the systems' parts that use it."""
    kind: type = type(part)
    unknown = changes.keys() - _init_fields(kind)
    if unknown:
        raise TypeError(f"{kind.__name__} has no field(s) {sorted(unknown)}")
    new: T = object.__new__(kind)
    values = new.__dict__
    values.update(part.__dict__)
    values.update(changes)
    return new


@dataclass(frozen=True)
class JoinedCharacter:
    """An attachable model joined to a unit: a t9a/whfb8 character in the front rank, a 40k
    Leader leading its Bodyguard. `damage` is the Health Points / wounds it has lost."""

    datasheet: str
    name: str
    damage: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"datasheet": self.datasheet, "name": self.name, "damage": self.damage}


@dataclass(frozen=True)
class Unit:
    """A unit in the game. Ranked units stand by `placement`; 40k units by `positions`."""

    id: str
    owner: int
    datasheet: str
    name: str
    models: int
    files: int | None
    status: str = "undeployed"  # undeployed | reserve | ambush | on_table | destroyed
    placement: tuple[float, float, float] | None = None
    positions: tuple[tuple[float, float], ...] = ()
    characters: tuple[JoinedCharacter, ...] = ()
    # Health Points / wounds lost by the one wounded rank-and-file model (0: none is wounded).
    damage: int = 0
    # States the rules set and read: "fleeing", "shaken", "lost_scoring", "arrived", ...
    markers: tuple[str, ...] = ()

    @property
    def model_count(self) -> int:
        """Every model of the unit: rank-and-file and joined characters."""
        return self.models + len(self.characters)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "owner": self.owner,
            "datasheet": self.datasheet,
            "name": self.name,
            "models": self.models,
            "files": self.files,
            "status": self.status,
            "placement": None
            if self.placement is None
            else dict(zip(("x", "y", "facing"), self.placement, strict=True)),
            "positions": [list(p) for p in self.positions],
            "characters": [c.to_json() for c in self.characters],
            "damage": self.damage,
            "markers": list(self.markers),
        }


@dataclass(frozen=True)
class Battle:
    """Where the game stands. `turn` and `player_turn` are None until the battle starts
    (`player_turn` counts both players' turns from 1); `active_player` and `phase` are None
    outside the battle (and once the last turn is played); `deploying` is the seat that
    deploys now (None when nobody does); `first_player` took the first turn (1 until the
    battle says otherwise)."""

    stage: str = "setup"  # core.STAGES
    turn: int | None = None
    player_turn: int | None = None
    active_player: int | None = None
    phase: str | None = None
    first_player: int = 1
    deploying: int | None = None
    winner: int | None = None
    end_reason: str | None = None

    @property
    def active_seat(self) -> int:
        """The active player, where the rules need one (a phase of the battle): a ValueError
        when there is none (before the battle, after its last turn)."""
        if self.active_player is None:
            raise ValueError(f"no active player in stage {self.stage}")
        return self.active_player


@dataclass(frozen=True)
class MusteredUnit:
    """A unit as it was mustered: its rank-and-file and the datasheets of the characters joined
    to it (Victory Points are counted from it)."""

    models: int
    characters: tuple[str, ...] = ()


@dataclass(frozen=True)
class Muster:
    """The armies as submitted: the seats that did (in order), each army list's facts (faction,
    game size, points), the units of one's own datasheets, and each unit as mustered."""

    armies: tuple[int, ...] = ()
    army_lists: Mapping[int, JsonRecord] = field(default_factory=dict)
    own_sheets: Mapping[str, Datasheet] = field(default_factory=dict)
    mustered: Mapping[str, MusteredUnit] = field(default_factory=dict)


@dataclass(frozen=True)
class Charges:
    """Who is engaged with whom (charger -> target), the declared charge awaiting its Charge
    Reaction (None when none does), and a charge interrupted by its target's flee."""

    engaged: Mapping[str, str] = field(default_factory=dict)
    pending: JsonRecord | None = None
    interrupted: JsonRecord | None = None


@dataclass(frozen=True)
class Moves:
    """What each unit did in the current phase (projected as its `moved`), and how each unit
    moved in the Player Turn `turn_of` (`marched`, `march_rules`)."""

    phase: Mapping[str, JsonRecord] = field(default_factory=dict)
    turn_of: int | None = None
    turn: Mapping[str, Mapping[str, bool]] = field(default_factory=dict)


@dataclass(frozen=True)
class PregameState:
    """The way the pregame goes (`mode`: fixed or roll-offs), the roll-offs won (about ->
    seat), the choice a player must make (None when none waits), the choices made (about ->
    seat) and the seat that finished deploying first."""

    mode: str = "fixed"
    roll_offs_won: Mapping[str, int] = field(default_factory=dict)
    pending_choice: JsonRecord | None = None
    first_chosen: Mapping[str, int] = field(default_factory=dict)
    finished_first: int | None = None


@dataclass(frozen=True)
class Proposals:
    """The proposal waiting for an answer (None: none), how many were made in the game, and
    the rolls an undo took back that wait to be marked when rolled again."""

    current: JsonRecord | None = None
    made: int = 0
    discarded_rolls: tuple[JsonRecord, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """The game's result as `game_result` recorded it, and a winner a game-end rule declared
    before it (40k logs stored before its games ended with `game_result`)."""

    result: JsonRecord | None = None
    declared_winner: int | None = None
