"""The pure rules core: game state, events, actions, `decide` and `fold`.

Nothing here touches a database, a socket, the clock or a global random source. The service
loads a game's events, folds them into a `GameState`, asks `decide` what a player's action
produces, stores those events, and folds them in. Replaying the log reproduces the state
exactly, because every die comes from the game's seeded `DiceStream` at a position that is
itself part of the state.

Actions and event folders are registered by name (`register_action`, `register_folder`), so
each game system adds its own without this module knowing about them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from server.dice import DiceStream
from server.geometry.table import Terrain
from server.rules.state import (
    Battle,
    Charges,
    Moves,
    Muster,
    Outcome,
    PregameState,
    Proposals,
    Unit,
)

if TYPE_CHECKING:
    from server.geometry.table import Table

Seat = Literal[1, 2]
Actor = int | str  # 1, 2 or "system"
PUBLIC = "public"
SEATS: tuple[int, int] = (1, 2)

# Stable error codes, shared by REST and the websocket.
BAD_REQUEST = "bad_request"
UNAUTHORIZED = "unauthorized"
FORBIDDEN = "forbidden"
NOT_FOUND = "not_found"
STALE = "stale"
OUT_OF_PHASE = "out_of_phase"
ILLEGAL_MOVE = "illegal_move"
RATE_LIMITED = "rate_limited"
TOO_LARGE = "too_large"
CONFLICT = "conflict"
# The game's database did not answer (a restart): send the same message again, same ref.
UNAVAILABLE = "unavailable"


def seat_visibility(seat: int) -> str:
    """The visibility class of events only `seat` may see."""
    return f"player:{seat}"


HIDDEN_KINDS: dict[str, dict[str, str]] = {}
"""What a hidden event is, in words every viewer may read, by event type: its `kind` ("concealed
Fanatics") and `about` it ("a hidden note every army writes, Fanatics or none"). Only for an
event whose existence is no secret (one every game writes whatever it hides), so that the
placeholder says what kind of thing is hidden without saying anything of its contents."""


def register_hidden_kind(event_type: str, kind: str, about: str) -> None:
    """Name the kind of a hidden `event_type` for the viewers who may not see it."""
    HIDDEN_KINDS[event_type] = {"kind": kind, "about": about}


class RuleError(Exception):
    """An action refused: a stable `code`, a human `message` and machine `details`."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def to_wire(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "details": self.details}


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened in a game. `seq` is given by the event log when stored."""

    type: str
    payload: Mapping[str, Any]
    actor: Actor = "system"
    visibility: str = PUBLIC
    seq: int = 0

    def visible_to(self, viewer: int | None) -> bool:
        return self.visibility == PUBLIC or (
            viewer is not None and self.visibility == seat_visibility(viewer)
        )

    def to_wire(self, viewer: int | None) -> dict[str, Any]:
        """This event as `viewer` may see it (seat 1, 2 or None for a spectator).

        A hidden event keeps its seq and actor but loses its type and payload, so every viewer
        sees a contiguous log and can tell a gap from a secret; a kind registered as public
        (`register_hidden_kind`) says what sort of thing it is, never what it holds.
        """
        if self.visible_to(viewer):
            return {
                "seq": self.seq,
                "type": self.type,
                "actor": self.actor,
                "payload": self.payload,
            }
        said = HIDDEN_KINDS.get(self.type)
        return {"seq": self.seq, "type": "hidden", "actor": self.actor,
                "payload": dict(said) if said else {}}


@dataclass(frozen=True, slots=True)
class Battlefield:
    width: float
    depth: float

    def contains(self, x: float, y: float) -> bool:
        return 0.0 <= x <= self.width and 0.0 <= y <= self.depth

    def to_json(self) -> dict[str, float]:
        return {"width": self.width, "depth": self.depth}


@dataclass(frozen=True, slots=True)
class Token:
    """A plain marker on the table: a rectangle placed by its centre, with a facing."""

    id: str
    owner: int
    label: str
    x: float
    y: float
    facing: float
    width: float
    depth: float

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "owner": self.owner,
            "label": self.label,
            "x": self.x,
            "y": self.y,
            "facing": self.facing,
            "width": self.width,
            "depth": self.depth,
        }


@dataclass(slots=True)
class Derived:
    """What is computed from a `GameState` and kept with it so that it is computed once: a
    cache, never part of the state's value (not compared, not shown, not copied by
    `dataclasses.replace`: every new state starts with an empty one). The one mutable part of
    a state; only the function that computes an entry writes it."""

    table: Table | None = None
    """The geometry table of the state's units and terrain (`units.table_of`)."""
    orders: dict[int | None, dict[str, Any]] | None = None
    """Each viewer's orders, by seat (None: a spectator) (`orders.orders_for`)."""
    memo: dict[str, dict[Any, Any]] = field(default_factory=dict)
    """Other judgements computed once per state, one table per purpose, keyed by the name of
    the function that owns it (e.g. 40k's models of a unit, `wh40k10.army.models_of`); only
    that function reads and writes its table."""

    def table_for(self, owner: str) -> dict[Any, Any]:
        """The memo table of `owner` (created empty)."""
        table = self.memo.get(owner)
        if table is None:
            table = self.memo[owner] = {}
        return table


UndoEntry = tuple[int, str, "Actor", str, int, "int | None", Mapping[str, Any]]
"""An entry of `GameState.undoable` (see there)."""


@dataclass(frozen=True)
class GameState:
    """Everything known about one game, as folded from its events."""

    id: str = ""
    system: str = ""
    name: str = ""
    battlefield: Battlefield = Battlefield(72.0, 48.0)
    seq: int = 0
    seats: frozenset[int] = frozenset()
    dice_commitment: str = ""
    dice_position: int = 0
    next_id: int = 1
    tokens: Mapping[str, Token] = field(default_factory=dict)
    rolls: int = 0
    over: bool = False
    # The events an agreed undo may take back, newest last: (seq, type, actor, visibility,
    # batch, by, payload) of the events since the last barrier (see `UNDO_BARRIERS`), at most
    # `UNDO_WINDOW` of them. `batch` is the seq of the first event of the action that produced
    # it and `by` the seat that took that action (None in logs from before batches were
    # recorded); `payload` the event's payload (`undo_note` reads it for people).
    undoable: tuple[UndoEntry, ...] = ()
    # The action being folded: (seq of its first event, seat that took it).
    batch: tuple[int, int | None] = (0, None)
    # The typed parts of the game (server/rules/state.py), each changed by its own folders.
    battle: Battle = Battle()
    units: Mapping[str, Unit] = field(default_factory=dict)
    terrain: tuple[Terrain, ...] = ()
    terrain_labels: Mapping[str, str] = field(default_factory=dict)
    notes: int = 0
    muster: Muster = Muster()
    charges: Charges = Charges()
    moves: Moves = Moves()
    pregame: PregameState = PregameState()
    proposals: Proposals = Proposals()
    outcome: Outcome = Outcome()
    # Every other module's own part (a game system's), by its class: `part_of`, `with_part`.
    parts: Mapping[type, object] = field(default_factory=dict)
    # The derived cache (see `Derived`): each state object gets its own, empty.
    derived: Derived = field(default_factory=Derived, init=False, compare=False, repr=False)

    def evolve(self, **changes: object) -> GameState:
        """This state with the fields `changes` changed: `dataclasses.replace`, without its
        cost. A fold makes a new state for every change of every event, and the frozen
        dataclass `__init__` sets each of the fields one `object.__setattr__` at a time (its
        cost grows with the fields: 5 us at 14 fields, 9 at 26, the most of a fold's time);
        this fills the new object's `__dict__` at once. The new state is equal to the one
        `dataclasses.replace` makes (tests/rules/test_state.py), with its own empty `derived`
        cache; an unknown field is a TypeError, as there. No state already made is changed.
        (A state holds its fields and nothing else: whatever is derived from it goes in
        `derived`, never in attributes of its own, which this would copy.)"""
        unknown = changes.keys() - _STATE_FIELDS
        if unknown:
            raise TypeError(f"GameState has no field(s) {sorted(unknown)}")
        new = object.__new__(GameState)
        values = new.__dict__
        values.update(self.__dict__)
        values.update(changes)
        values["derived"] = Derived()
        return new

    def new_id(self, prefix: str) -> str:
        """The id the next created piece gets (a fold of `next_id`, so replays agree)."""
        return f"{prefix}{self.next_id}"

    def to_json(self, viewer: int | None = None) -> dict[str, Any]:
        """The state as `viewer` may see it (hidden parts are projected by the systems)."""
        base: dict[str, Any] = {
            "id": self.id,
            "system": self.system,
            "name": self.name,
            "battlefield": self.battlefield.to_json(),
            "seq": self.seq,
            "seats": {str(s): s in self.seats for s in SEATS},
            "dice_commitment": self.dice_commitment,
            "tokens": {tid: t.to_json() for tid, t in self.tokens.items()},
            "over": self.over,
        }
        for project in STATE_PROJECTORS:
            project(self, viewer, base)
        return base


_STATE_FIELDS: frozenset[str] = frozenset(
    f.name for f in dataclasses.fields(GameState) if f.init
)


# --- registries --------------------------------------------------------------------------------


class ActionModel(BaseModel):
    """Base of every action's schema: unknown fields are refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    type: str


A = TypeVar("A", bound=ActionModel)
Handler = Callable[[GameState, int, Any, DiceStream], list[Event]]
Folder = Callable[[GameState, Event], GameState]
Projector = Callable[[GameState, "int | None", dict[str, Any]], None]
Explainer = Callable[[GameState, "int | None", Any], dict[str, Any]]
BatchHook = Callable[[GameState, int, list[Event]], list[Event]]


SystemFilter = Callable[[str], bool]
"""Which game systems (by id) an action exists in: e.g. `systems.has_model_moves`."""


# --- when an action is legal (issue 23 item 1) --------------------------------------------------

SETUP, DEPLOYMENT, BATTLE, OVER = "setup", "deployment", "battle", "over"
STAGES: tuple[str, ...] = (SETUP, DEPLOYMENT, BATTLE, OVER)
"""A game's stages in order: terrain and armies, alternating deployment, the turns, the end."""
PLAYING: tuple[str, ...] = (SETUP, DEPLOYMENT, BATTLE)
"""The stages in which players act (nothing is done once the game is over)."""

ACTIVE = "active"
"""The player whose move it is: in battle the active player (and not while a Charge Reaction
is awaited from the other one); in deployment the player who deploys now."""
REACTING = "reacting"
"""In battle, the player who is not active, answering the active player's action while it
waits for the answer (the charged player's Charge Reaction to a pending charge)."""
EITHER = "either"
"""Either seated player, whoever's turn it is."""
SYSTEM = "system"
"""Nobody: only the engine produces it; both seats are refused (`forbidden`)."""
ACTORS: tuple[str, ...] = (ACTIVE, REACTING, EITHER, SYSTEM)


@dataclass(frozen=True)
class Phases:
    """The phases of a Player Turn an action belongs to, asked of the game system (never by
    system id): `of(system_id)` gives their names in that system. Make one with `named(...)`
    (a system's own action naming its own phases) or with a predicate asking the system
    (`systems.MOVEMENT_PHASE`, `systems.CHARGE_PHASES`, the rank-and-flank shooting and melee
    phases)."""

    label: str
    """What they are, for people and for the client: "the movement phase", "Magic"."""
    of: Callable[[str], tuple[str, ...]]

    @staticmethod
    def named(*names: str) -> Phases:
        """The phases called `names` (the same in every system the action exists in)."""
        return Phases(" or ".join(names), lambda system: names)


@dataclass(frozen=True)
class When:
    """One window in which an action is legal: a stage, who may act then, and (in battle) in
    which phases (None: any)."""

    stage: str
    actor: str = EITHER
    phases: Phases | None = None

    def __post_init__(self) -> None:
        if self.stage not in STAGES:
            raise ValueError(f"unknown stage {self.stage!r}; stages are {STAGES}")
        if self.actor not in ACTORS:
            raise ValueError(f"unknown actor {self.actor!r}; actors are {ACTORS}")
        if self.phases is not None and self.stage != BATTLE:
            raise ValueError("phases belong to the battle stage")
        if self.actor == REACTING and self.stage != BATTLE:
            raise ValueError("a reacting player exists only in battle")
        if self.actor == ACTIVE and self.stage not in (DEPLOYMENT, BATTLE):
            raise ValueError("an active player exists only in deployment and battle")


ANY_TIME: tuple[When, ...] = tuple(When(s) for s in PLAYING)
"""Either player, in every stage in which players act (tokens, dice, notes, conceding)."""


@dataclass(frozen=True)
class ActionSpec:
    """A registered action: its schema, its handler, where and when it is legal.

    `when` is the windows in which it may be taken, at most one per stage (`When`: stage,
    actor, phases); `decide` checks them before the handler runs, in this order, each with its
    own refusal (`check_when`):

    1. the stage has no window: `out_of_phase`, `details.stage` and `details.allowed` (stages);
    2. `needs_opponent` and a seat is empty: `out_of_phase`, `details.seats`;
    3. the window's actor is `SYSTEM`: `forbidden`; another player: `out_of_phase`, with
       `details.active_player` and `details.phase` (battle) or `details.deploying`
       (deployment);
    4. the phase is not one of the window's: `out_of_phase`, `details.phase` and
       `details.allowed` (the phase names in this game's system);
    5. an `ACTIVE` action while the other player's Charge Reaction is awaited: `out_of_phase`,
       `details.waiting_for` and `details.pending_charge`; a `REACTING` action when nothing
       awaits an answer: `out_of_phase`.

    `doing` says what the action is in those refusals ("moving": "moving happens in the
    Movement phase, not Charge"). `rolls_distance` and `sweeps` tell `preview` what it may show
    of the events (a preview decides on throwaway dice): `rolls_distance`, the `distance` the
    events report is rolled (a Flee! or charge range), so a preview reports none; `sweeps`
    False, the `swept` region is not the acting player's measured move (it comes from dice, or
    from a proposal between the players), so a preview shows none. `declared`: registered with
    an explicit `when` (every action of the engine is; actions registered without one are
    legal `ANY_TIME` for either player and check everything else themselves).
    """

    name: str
    model: type[ActionModel]
    handler: Handler
    systems: frozenset[str] | SystemFilter | None  # None: every system
    when: tuple[When, ...] = ANY_TIME
    doing: str = ""
    needs_opponent: bool = False
    rolls_distance: bool = False
    sweeps: bool = True
    declared: bool = False
    explain: Explainer | None = None

    def available(self, system: str) -> bool:
        """Does this action exist in the game system `system`?"""
        if self.systems is None:
            return True
        if isinstance(self.systems, frozenset):
            return system in self.systems
        return self.systems(system)

    @property
    def stages(self) -> tuple[str, ...]:
        """The stages in which the action may be taken."""
        return tuple(w.stage for w in self.when)

    def window(self, stage: str) -> When | None:
        """The action's window in `stage`, if it has one."""
        return next((w for w in self.when if w.stage == stage), None)


ACTIONS: dict[str, ActionSpec] = {}
FOLDERS: dict[str, Folder] = {}
STATE_PROJECTORS: list[Projector] = []
BATCH_HOOKS: list[BatchHook] = []
FOLD_HOOKS: list[Folder] = []
CARRIED_CACHES: list[Callable[[GameState, GameState], None]] = []
"""`carry(before, after)`, called after each fold: hands an entry of the state's `Derived`
cache on to the next state when what it derives from did not change (the geometry table when
no unit and no terrain changed, `units.table_of`)."""


def register_action(
    name: str,
    model: type[A],
    *,
    systems: Iterable[str] | SystemFilter | None = None,
    when: Iterable[When] | None = None,
    doing: str | None = None,
    needs_opponent: bool = False,
    rolls_distance: bool = False,
    sweeps: bool = True,
    explain: Explainer | None = None,
) -> Callable[[Callable[[GameState, int, A, DiceStream], list[Event]]], Any]:
    """Register `handler(state, seat, action, dice) -> events` for action type `name`.

    `systems`: None (every system), the ids of a system's own actions (in its package), or a
    filter asking the system registry (shared actions: e.g. only where units move model by
    model), so that a new system gets the shared actions that fit it without a change here.
    `explain(state, seat, action) -> dict`: what a preview adds about the action beyond
    legal or not (a charge's distance, arc, sight and path), judged without dice.
    `when`, `doing`, `needs_opponent`, `rolls_distance`, `sweeps`: see `ActionSpec`; without
    `when` the action is legal for either player in every stage in which players act.
    Registering a name twice is an error, whatever the order of the imports."""
    windows = ANY_TIME if when is None else tuple(when)
    stages = [w.stage for w in windows]
    if not windows or len(set(stages)) != len(stages):
        raise ValueError(f"action {name!r}: give one window per stage, at least one")

    def wrap(handler: Callable[[GameState, int, A, DiceStream], list[Event]]) -> Any:
        if name in ACTIONS:
            raise ValueError(f"action {name!r} registered twice")
        which = systems if systems is None or callable(systems) else frozenset(systems)
        ACTIONS[name] = ActionSpec(
            name,
            model,
            handler,
            which,
            when=windows,
            doing=doing or name.replace("_", " "),
            needs_opponent=needs_opponent,
            rolls_distance=rolls_distance,
            sweeps=sweeps,
            declared=when is not None,
            explain=explain,
        )
        return handler

    return wrap


def register_folder(event_type: str) -> Callable[[Folder], Folder]:
    """Register how an event type changes the state."""

    def wrap(folder: Folder) -> Folder:
        if event_type in FOLDERS:
            raise ValueError(f"folder for {event_type!r} registered twice")
        FOLDERS[event_type] = folder
        return folder

    return wrap


def register_batch_hook(hook: BatchHook) -> BatchHook:
    """Register `hook(state, seat, events) -> events`, run by `decide` on every action's batch
    (proposals.py marks a roll made again after an undo as a re-roll)."""
    BATCH_HOOKS.append(hook)
    return hook


def register_folder_hook(hook: Folder) -> Folder:
    """Register a fold step run for every event, after its type's folder."""
    FOLD_HOOKS.append(hook)
    return hook


def register_projector(projector: Projector) -> Projector:
    """Register a function adding a system's part of the state to a viewer's JSON."""
    STATE_PROJECTORS.append(projector)
    return projector


# --- decide and fold ---------------------------------------------------------------------------


def parse_action(state: GameState, raw: Any) -> tuple[ActionSpec, ActionModel]:
    """Validate a raw action dict against its registered schema, or raise `bad_request`."""
    if not isinstance(raw, Mapping):
        raise RuleError(BAD_REQUEST, "an action must be a JSON object")
    kind = raw.get("type")
    spec = ACTIONS.get(kind) if isinstance(kind, str) else None
    if spec is None or not spec.available(state.system):
        known = sorted(n for n, s in ACTIONS.items() if s.available(state.system))
        raise RuleError(BAD_REQUEST, f"unknown action type {kind!r}", field="type", known=known)
    try:
        return spec, spec.model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "action"
        raise RuleError(
            BAD_REQUEST,
            f"{kind}: {where}: {first['msg']}",
            field=where,
            errors=[
                {"field": ".".join(str(p) for p in e["loc"]), "message": e["msg"]}
                for e in exc.errors()
            ],
        ) from None


@dataclass(frozen=True, slots=True)
class Turn:
    """Where the game stands, as far as who may act is concerned (read from `state.battle`
    and `state.charges`, folded by server/rules/battle.py, setup.py and charge.py)."""

    stage: str
    active_player: int | None
    phase: str | None
    deploying: int | None
    pending_charge: Mapping[str, Any] | None


P = TypeVar("P")


def part_of(state: GameState, kind: type[P]) -> P:
    """The part of the state of type `kind` (a frozen dataclass a module owns: a game
    system's), or a new one (`kind()`, its empty value) when nothing has set it yet."""
    found = state.parts.get(kind)
    return found if isinstance(found, kind) else kind()


def with_part(state: GameState, part: object) -> GameState:
    """`state` with `part` as its part of `part`'s type."""
    return state.evolve(parts={**state.parts, type(part): part})


def turn_of(state: GameState) -> Turn:
    """The stage, the active player and phase, the deploying player and any charge waiting
    for its reaction."""
    battle = state.battle
    return Turn(
        OVER if state.over else battle.stage,
        battle.active_player,
        battle.phase,
        battle.deploying,
        state.charges.pending or None,
    )


def check_when(spec: ActionSpec, state: GameState, seat: int) -> None:
    """Refuse `seat`'s `spec` action unless the game is in one of its windows: the checks of
    `ActionSpec`, in that order, one error each. Changes nothing."""
    turn = turn_of(state)
    window = spec.window(turn.stage)
    what = spec.doing
    if window is None:
        allowed = list(spec.stages)
        raise RuleError(
            OUT_OF_PHASE,
            f"{what}: this is done during {' or '.join(allowed)}, and the game is in "
            f"{turn.stage}",
            stage=turn.stage,
            allowed=allowed,
        )
    if spec.needs_opponent and len(state.seats) < 2:
        raise RuleError(
            OUT_OF_PHASE,
            f"{what} needs an opponent: both seats must be taken",
            seats=sorted(state.seats),
        )
    active, phase = turn.active_player, turn.phase
    if window.actor == SYSTEM:
        raise RuleError(FORBIDDEN, f"{what} is done by the game, not by a player")
    if window.actor == ACTIVE and turn.stage == DEPLOYMENT and turn.deploying != seat:
        raise RuleError(
            OUT_OF_PHASE,
            f"player {turn.deploying} deploys now",
            deploying=turn.deploying,
        )
    if window.actor == ACTIVE and turn.stage == BATTLE and active != seat:
        raise RuleError(
            OUT_OF_PHASE,
            f"it is player {active}'s turn; {what} waits for yours",
            active_player=active,
            phase=phase,
        )
    if window.actor == REACTING and active == seat:
        raise RuleError(
            OUT_OF_PHASE,
            f"{what} is your opponent's answer to your action, not yours",
            active_player=active,
            phase=phase,
        )
    if window.phases is not None:
        wanted = list(window.phases.of(state.system))
        if phase not in wanted:
            raise RuleError(
                OUT_OF_PHASE,
                f"{what} happens in the {' or '.join(wanted)} phase, not {phase}",
                active_player=active,
                phase=phase,
                allowed=wanted,
            )
    pending = turn.pending_charge
    if window.actor == ACTIVE and turn.stage == BATTLE and pending:
        raise RuleError(
            OUT_OF_PHASE,
            f"waiting for player {pending['reacting_player']} to answer the charge of "
            f"{pending['unit']} on {pending['target']} ({pending['answer']})"
            if pending.get("answer") else
            f"waiting for player {pending['reacting_player']}'s Charge Reaction to the charge "
            f"of {pending['unit']} on {pending['target']}",
            waiting_for=pending["reacting_player"],
            pending_charge=dict(pending),
        )
    if window.actor == REACTING and not pending:
        raise RuleError(OUT_OF_PHASE, f"no charge is waiting for {what}")


def allowed_now(spec: ActionSpec, state: GameState, seat: int) -> bool:
    """May `seat` take the `spec` action now, as far as stage, turn and phase go? (Whether
    the action's own rules then allow it is the handler's judgement.)"""
    if state.over or seat not in SEATS or not spec.available(state.system):
        return False
    try:
        check_when(spec, state, seat)
    except RuleError:
        return False
    return True


def decide(state: GameState, seat: int | None, raw_action: Any, dice: DiceStream) -> list[Event]:
    """The events `seat`'s action produces in `state`, or a `RuleError`. Changes nothing.

    In order: a spectator is refused (`forbidden`), an ended game refuses everything
    (`out_of_phase`), the action is parsed (`bad_request`), its stage, actor and phase are
    checked (`check_when`), and only then does its handler judge it.
    `dice` must be the game's stream at `state.dice_position`; it is advanced by any roll.
    """
    if seat not in SEATS:
        raise RuleError(FORBIDDEN, "spectators cannot act; join a seat to play")
    if state.over:
        raise RuleError(OUT_OF_PHASE, "the game is over")
    spec, action = parse_action(state, raw_action)
    check_when(spec, state, seat)
    if dice.position != state.dice_position:
        raise ValueError("dice stream is not at the state's position")
    events = spec.handler(state, seat, action, dice)
    if events:  # the action's batch starts here, taken by `seat` (what an undo takes back)
        first = events[0]
        events = [dataclasses.replace(first, payload={**first.payload, BATCH_KEY: seat}),
                  *events[1:]]
        for hook in BATCH_HOOKS:
            events = hook(state, seat, events)
    return events


def fold(state: GameState, event: Event) -> GameState:
    """The state after `event`. Unknown event types only advance `seq`.

    An `events_undone` event cannot be folded onto a state that holds the events it takes
    back: a log with one is folded by `replay`, which leaves those events out.
    """
    after = _fold(state, event)
    for carry in CARRIED_CACHES:
        carry(state, after)
    return after


def _fold(state: GameState, event: Event) -> GameState:
    folder = FOLDERS.get(event.type)
    if folder is not None:
        state = folder(state, event)
    for hook in FOLD_HOOKS:
        state = hook(state, event)
    end = dice_end(event.payload)
    if end is not None and end > state.dice_position:
        state = state.evolve(dice_position=end, rolls=state.rolls + 1)
    if not event.seq:
        return state
    undoable = state.undoable
    by = event.payload.get(BATCH_KEY)
    batch = (event.seq, by if isinstance(by, int) else None) if BATCH_KEY in event.payload \
        else state.batch
    if event.type in UNDO_BARRIERS:
        undoable = ()
    elif event.type not in BOOKKEEPING_EVENTS:
        entry = (event.seq, event.type, event.actor, event.visibility, batch[0], batch[1],
                 event.payload)
        undoable = (*undoable[-(UNDO_WINDOW - 1) :], entry)
    return state.evolve(seq=event.seq, undoable=undoable, batch=batch)


def undo_note(p: Mapping[str, Any], visibility: str, actor: Actor) -> dict[str, Any]:
    """What a person may read of an event (payload `p`) an undo would take back: its text, the
    units it names (ids, for the words of server/rules/naming.py) and its rolls (expression,
    total, faces). Nothing of an event hidden from either player."""
    if visibility != PUBLIC:
        return {}
    text = p.get("text")
    if not isinstance(text, str) and isinstance(p.get("ended"), str):
        text = f"End of the {p['ended']} phase" + (
            f" (player {actor})" if isinstance(actor, int) else "")
    units = [p[k] for k in ("unit", "target", "charger", "by") if isinstance(p.get(k), str)]
    if isinstance(p.get("unit"), Mapping) and isinstance(p["unit"].get("id"), str):
        units.append(p["unit"]["id"])  # a free move carries the unit itself
    rolls = [
        {"expression": r.get("expression"), "total": r.get("total"),
         "faces": [d.get("face") for d in r.get("dice", ()) if isinstance(d, Mapping)]}
        for r in rolls_of(p)
    ]
    return {"text": text if isinstance(text, str) else None, "units": units, "rolls": rolls}


def fold_all(state: GameState, events: Iterable[Event]) -> GameState:
    """Fold `events` in order (for a log that may hold `events_undone`, use `replay`)."""
    for event in events:
        state = fold(state, event)
    return state


# --- undo by agreement -------------------------------------------------------------------------

BATCH_KEY = "action_by"
"""In the payload of the first event of every action's batch: the seat that took the action
(`decide` writes it; `fold` keeps it in `GameState.batch` and the `undoable` entries)."""
UNDO_EVENT = "events_undone"
"""Payload: {"proposal", "seqs": [seq, ...], "dice_position", "rolls", "next_id"}. The events
named in `seqs` stay in the log but no longer count: the state is the fold of the log without
them. Dice are never rewound: the stream position (and the id counter) stay where they were."""
BOOKKEEPING_EVENTS: frozenset[str] = frozenset(
    {"proposal_made", "proposal_accepted", "proposal_declined", "proposal_lapsed", UNDO_EVENT}
)
"""Events about proposals: always kept, never undone, not part of the undoable history."""
UNDO_BARRIERS: frozenset[str] = frozenset(
    {"game_created", "seat_claimed", "dice_revealed", "game_ended"}
)
"""Events no undo reaches back past (seats are held by tokens; an ended game is final)."""
UNDO_WINDOW = 100


def undone_seqs(events: Iterable[Event]) -> frozenset[int]:
    """The seqs that the log's `events_undone` events take back."""
    out: set[int] = set()
    for event in events:
        if event.type == UNDO_EVENT:
            out.update(int(s) for s in event.payload.get("seqs", ()))
    return frozenset(out)


def needs_replay(events: Iterable[Event]) -> bool:
    """True when folding `events` onto a live state is not enough (an undo is among them)."""
    return any(e.type == UNDO_EVENT for e in events)


def replay(events: Iterable[Event], state: GameState | None = None) -> GameState:
    """The state of a whole log, honouring undo: the fold of every event except those an
    `events_undone` event takes back (which stay in the log for everyone to see)."""
    log = list(events)
    undone = undone_seqs(log)
    state = GameState() if state is None else state
    for event in log:
        if event.seq not in undone:
            try:
                state = fold(state, event)
            except Exception as exc:
                exc.add_note(f"event seq {event.seq} ({event.type}) does not fold")
                raise
    return state


#: What makes a value of an event's payload a roll (`Roll.to_payload`): the dice proof counts
#: every such value, at any depth and under any key, so a new kind of event cannot keep its dice
#: where the proof does not look.
ROLL_FIELDS: frozenset[str] = frozenset({"expression", "dice", "start", "end"})

#: The one declaration of payload keys that repeat rolls an earlier event already recorded:
#: a move halted by a Fanatic names its distance roll `distance_roll` when it resumes, and a
#: suspended resolution keeps its `frames` (what it will resume, rolls included). The proof
#: skips them, since those draws are counted where they were rolled.
ROLL_REFERENCES: frozenset[str] = frozenset({"distance_roll", "frames"})


def is_roll(value: Any) -> bool:
    """True for a recorded roll (`Roll.to_payload`'s shape)."""
    return isinstance(value, Mapping) and value.keys() >= ROLL_FIELDS


def rolls_of(payload: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Every roll an event payload records, wherever it keeps it, in draw order, each once (for
    the dice proof, the undo note and the luck chart); keys in `ROLL_REFERENCES` are not
    walked."""
    found: list[Mapping[str, Any]] = []

    def walk(value: Any) -> None:
        if is_roll(value):
            # A payload may repeat one of its own rolls (an interrupted charge keeps its
            # roll with the rest of the charge): the same draws, counted once.
            if value not in found:
                found.append(value)
        elif isinstance(value, Mapping):
            for key, inner in value.items():
                if key not in ROLL_REFERENCES:
                    walk(inner)
        elif isinstance(value, list | tuple):
            for inner in value:
                walk(inner)

    walk(payload)
    return sorted(found, key=lambda r: r["start"] if isinstance(r["start"], int) else -1)


def dice_end(payload: Mapping[str, Any]) -> int | None:
    """The stream position after the rolls an event's payload records, if any."""
    ends = [r["end"] for r in rolls_of(payload) if isinstance(r.get("end"), int)]
    return max(ends) if ends else None
