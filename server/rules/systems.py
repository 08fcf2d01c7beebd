"""The game systems Warfield knows, found by id (like python-chess's `find_variant`).

Each system lives in its own package (`server.rules.<id>`) and registers one `GameSystem` here:
its battlefield, turn structure, phases, the dice tables of its attacks, and every choice in
which it differs from the others. The shared modules (`charge`, `moves`, `flee`, `units`,
`setup`, ...) never ask which system they are in: they ask the system (python-chess's `Board`
asks its variant subclass). A system overrides a method by subclassing `Variant` (and
`RankedRules`) in its own package; see docs/systems.md for the recipe.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from server.data import Datasheet
from server.geometry.frame import Placement
from server.rules.core import Battlefield, Event, GameState, Phases

if TYPE_CHECKING:
    from server.geometry.footprint import Footprint
    from server.rules.endgame import GameResult
    from server.rules.rankandflank.system import RankAndFlankRules
    from server.rules.state import Unit


class AttackTables(Protocol):
    """The three rolls of an attack, as target numbers on a D6 (None: cannot succeed / no save).

    Arguments are the attacker's and the target's characteristics in the system's own terms
    (t9a: Offensive vs Defensive Skill, Strength vs Resilience, Armour and Armour Penetration;
    whfb8: WS vs WS, S vs T, armour save and Strength; wh40k10: BS/WS, S vs T, Sv and AP).
    """

    def to_hit(self, attacker: int, defender: int) -> int: ...

    def to_wound(self, strength: int, toughness: int) -> int | None: ...

    def save(self, armour: int, penetration: int) -> int | None: ...


# --- issue 13 item 1, one place per difference (the variants helper's block) -------------------

REACTION_NAMES = {"hold": "Hold", "flee": "Flee!", "stand_and_shoot": "Stand and Shoot"}
"""Every Charge Reaction the engine knows, in the order they are offered."""


def entirely_with(sheets: Sequence[Datasheet], rule: str) -> bool:
    """"Entirely with <rule>" (seed 000): every model kind of the unit (`sheets`, joined
    characters included) has the rule. The one judgement; `units.entirely` reads a unit's."""
    return bool(sheets) and all(s.has_rule(rule) for s in sheets)


def containing_rule(sheets: Sequence[Datasheet], rule: str) -> bool:
    """"Containing <rule>" (seed 000): some model kind of the unit has the rule."""
    return any(s.has_rule(rule) for s in sheets)


def swiftstride_roll(sheets: Sequence[Datasheet]) -> tuple[str, str | None]:
    """2D6; a unit entirely with Swiftstride rolls Maximised (t9a seed 000; whfb8 3D6 keep the
    highest two, FACTS.md: the same dice expression)."""
    if entirely_with(sheets, "Swiftstride"):
        return "2D6 maximised x1", "Swiftstride"
    return "2D6", None


@dataclass(frozen=True)
class RankedRules(ABC):
    """How a system's units move as ranked blocks, and how they flee, pursue, rally and react
    to a charge (t9a, whfb8). A system whose units move model by model has none.

    `sheets` below are the datasheets of every model kind in the unit (its own first, then its
    joined characters'); `markers` the unit's markers.
    """

    skirmish_gap_in: float
    """The gap between the bases of a skirmishing unit, in inches."""
    reactions: tuple[str, ...] = ("hold", "flee", "stand_and_shoot")
    """The Charge Reactions offered (keys of `REACTION_NAMES`)."""
    shaken_after_rally: bool = False
    """A unit that passes its Rally Test is Shaken until the end of that Player Turn (t9a)."""
    feigned_flight_rule: str | None = None
    """A unit entirely with this rule that flees as a Charge Reaction rallies automatically in
    its next turn (whfb8: Skirmishers, seed 002 Feigned Flight)."""
    centre_reform_rule: str | None = None
    """Units with this rule may Reform around a new centre (t9a Light Troops, seed 000)."""
    march_forbids: tuple[str, ...] = ("backward", "sideways", "reform")
    """The manoeuvres a March Move does not allow (only forward moves, wheels and pivots)."""

    failed_charge_words: str = "the Charge Range"
    """How far a failed charge moves, in words (`failed_charge_distance`)."""

    @abstractmethod
    def discipline(self, sheet: Datasheet) -> int:
        """The value a Rally Test (2D6, equal or under) is taken against for one model kind."""

    @abstractmethod
    def failed_charge_distance(self, roll: Mapping[str, Any], reach: float) -> float:
        """How far a failed charge moves towards its target (server/rules/charge.py), from the
        charge `roll` (its payload) and the Charge Range `reach` it gave."""

    def flee_roll(self, sheets: Sequence[Datasheet]) -> tuple[str, str | None]:
        """The Flee Distance dice and the rule that changed them."""
        return swiftstride_roll(sheets)

    def pursue_roll(self, sheets: Sequence[Datasheet]) -> tuple[str, str | None]:
        """The Pursue Distance dice and the rule that changed them."""
        return swiftstride_roll(sheets)

    def flee_refusal(
        self, name: str, sheets: Sequence[Datasheet], markers: Sequence[str]
    ) -> tuple[str, str] | None:
        """(rule, why) when the unit called `name` may not choose Flee! as a Charge
        Reaction, else None."""
        return None

    def march_refusal(
        self, name: str, sheets: Sequence[Datasheet], markers: Sequence[str]
    ) -> tuple[str, str] | None:
        """(rule, why) when the unit called `name` (its models' `sheets`) may not make a March
        Move at all, else None (whfb8: Undead without My Will Be Done or Sworn Bodyguard)."""
        return None

    def manoeuvre_cost(self, manoeuvre: str) -> float:
        """How many inches of the allowance one inch of `manoeuvre` costs: backward and
        sideways moves double, for every unit (t9a seed 000, Light Troops: "this rule has no
        effect on other Move Manoeuvres"; the page wins over FACTS.md's older summary)."""
        return 2.0 if manoeuvre in ("backward", "sideways") else 1.0

    def light_reform(self, sheets: Sequence[Datasheet]) -> bool:
        """Does the unit (every model kind, `sheets`) reform as `centre_reform_rule` says? Only
        a unit entirely with the rule (seed 000, Light Troops)."""
        rule = self.centre_reform_rule
        return rule is not None and entirely_with(sheets, rule)

    def reform_allowance(self, allowance: float, light: bool) -> float:
        """How far any one model of a Reform may move, from the unit's move allowance."""
        return allowance

    def reform_centre_limit(self, allowance: float, light: bool) -> float | None:
        """How far the unit's centre may travel in a Reform (None: it stays where it is, unless
        the unit is `light`, when it may go as far as `reform_allowance`)."""
        return None

    def reform_files_change(self) -> int | None:
        """How many files a Reform may add or remove (None: any number)."""
        return None

    def stand_and_shoot_refusal(
        self, state: GameState, unit_id: str, charger_id: str
    ) -> tuple[str, str] | None:
        """(rule, why) when the charged unit `unit_id` may not choose Stand and Shoot against
        `charger_id`; None: it may, and `stand_and_shoot` shoots. By default refused (a
        system with shooting overrides both: t9a and whfb8 call the rank-and-flank volley,
        server/rules/rankandflank/shooting.py)."""
        return ("Stand and Shoot", "this game's units have no Stand and Shoot")

    def stand_and_shoot(
        self, state: GameState, unit_id: str, charger_id: str, dice: Any
    ) -> list[Event]:
        """The shots of a Stand and Shoot the charged unit chose (allowed by
        `stand_and_shoot_refusal`), as events; none by default. The events may end suspended
        (`resolution_suspended`: a Panic flee waiting for a player, server/rules/resume.py);
        the charge is then suspended after them."""
        return []

    def reaction_flight(
        self, state: GameState, unit_id: str, charger_id: str, fled: list[Event], dice: Any
    ) -> list[Event]:
        """What a Flee! Charge Reaction causes after the flight (`fled`, already folded into
        `state`): whfb8 Panic Tests of the friends it fled through (FACTS Panic); none by
        default. The events may end suspended, as `stand_and_shoot`'s may."""
        return []


@dataclass(frozen=True)
class Pregame:
    """How a system decides with dice who deploys first and who takes the first turn (issue 19
    item 6; server/rules/pregame.py plays it in games created with `pregame: "roll_offs"`).

    `deployment`: after both armies are written down the players roll off; "winner_chooses":
    the winner picks which player deploys first; "loser_deploys_first": no choice, the loser
    starts (40k: the winner is the Attacker, the Defender deploys first).
    `first_turn`: "first_to_finish_chooses": the player who finishes deploying first chooses
    at once who has the first turn (t9a); "roll_off_winner_chooses": a roll-off, the player who
    finished first adding `finished_first_bonus`, whose winner chooses (whfb8);
    "roll_off_winner_first": a roll-off whose winner takes the first turn (40k).
    The `*_words` say it in the system's own terms in the log and the client."""

    deployment: str
    deployment_words: str
    first_turn: str
    first_turn_words: str
    finished_first_bonus: int = 0
    source: str = ""


@dataclass(frozen=True)
class Variant(ABC):
    """A system's own choices (subclass it in the system's package to override a method)."""

    ranked: RankedRules | None
    """None: the units move model by model (`move_models`, `advance`), not as ranked blocks."""
    reserve_rules: tuple[str, ...] = ()
    """The special rules that let a unit be kept off the table at deployment."""
    reserve_mode: str = "ambush"
    """The `declare_reserve` mode its offer suggests: "ambush" (t9a, whfb8) or "reserve" (40k
    Reserves, server/rules/wh40k10/reserves.py)."""
    charge_declare_range_in: float | None = None
    """None: a charge is declared against an enemy in the front arc and line of sight;
    otherwise against one within this many inches."""
    pregame: Pregame | None = None
    """The roll-offs that decide who deploys first and who takes the first turn (None: player
    1 both, which is also every game created with `pregame: "fixed"`)."""
    edge_arrival_rule: str | None = None
    """The rule under which a unit kept off the table arrives at a table-edge point its player
    chooses (t9a Ambush); the system then answers `ambush_options`. How the other reserves
    arrive is the system's own phase hooks' business."""

    @abstractmethod
    def allowance(self, sheet: Datasheet, mode: str) -> float:
        """How far a unit moves in `mode` ("advance" or "march"), from its profile."""

    @abstractmethod
    def charge_roll(self, sheet: Datasheet) -> tuple[str, int]:
        """The dice of a charge range and what is added to them, for one model kind."""

    def unit_charge_roll(self, sheets: Sequence[Datasheet]) -> tuple[str, int]:
        """The charge roll of a unit whose model kinds are `sheets` (rank-and-file first):
        by default its first model kind's."""
        return self.charge_roll(sheets[0])

    def game_result(self, state: GameState, conceded_by: int | None) -> GameResult | None:
        """The finished game's result (Victory Points, objectives, winner), or None when the
        system does not score its games (server/rules/endgame.py); `conceded_by`: the seat
        that conceded, if the game ends that way."""
        return None

    def army_secrets(
        self, state: GameState, seat: int, concealed: Mapping[str, Mapping[str, int]]
    ) -> list[Event]:
        """Events only `seat` sees, written down with its army (`concealed`: unit id to the
        hidden models it holds, validated by the army list). A system that keeps a secret
        emits the same number of events of the same wire form whether or not there is one
        (whfb8: the Night Goblin Fanatics' written note, seed 003). Default: none."""
        return []

    def without_secrets(self, state: GameState, seat: int | None) -> GameState:
        """`state` as `seat` knows it: the other seat's secrets taken out (a preview is judged
        on this, so its answer cannot depend on what `seat` may not know). Default: no
        secrets."""
        return state

    def move_stop(
        self, state: GameState, unit_id: str, path: Callable[[float], Footprint]
    ) -> tuple[float, list[Event]] | None:
        """Whether a rule stops a legal move part-way: `path(t)` is the unit's footprint a
        fraction `t` (0..1) along the move. Returns the fraction where it stops and the events
        that stopping makes (after the truncated move), or None (whfb8: Fanatics released at
        8 in, seed 003). Default: never stopped."""
        return None

    def passable(self, state: GameState, unit_id: str) -> tuple[str, ...]:
        """Units the moving unit's move may run into instead of being refused by Moving
        Through Units (whfb8: released Fanatics, seed 003; what then happens is
        `move_contacts`). Default: none."""
        return ()

    def move_contacts(
        self, state: GameState, unit_id: str, swept: Any, dice: Any
    ) -> list[Event]:
        """Events when a move (already folded into `state`) swept `swept` into `passable`
        units (whfb8: 2D6 S5 Armour Piercing (1) hits on the mover, the Fanatic removed).
        Default: none."""
        return []

    def charge_contact(self, state: GameState, charger_id: str, target_id: str) -> list[Event]:
        """Events at the moment a charger and its target move into base contact (the charge
        already folded into `state`; whfb8: Skirmishers tighten up). Default: none."""
        return []

    def move_hazards(self, state: GameState, unit_id: str, swept: Any) -> list[str]:
        """What a move sweeping `swept` would run into, in words, before it is made (the
        charge preview; whfb8: a Fanatic in the path and its 2D6 hits). Pure, no dice; the
        same contacts as `move_contacts`. Default: none."""
        return []

    def charge_refusal(self, state: GameState, unit_id: str) -> tuple[str, str] | None:
        """(rule, why) when the unit may not declare a charge now for a rule of the system's
        own (whfb8: a Vanguard move before a first turn its side takes; 40k: it Advanced without
        a rule letting it charge, or it is in Engagement Range); None: it may."""
        return None

    def model_names(self, state: GameState, unit: Unit) -> list[str]:
        """What a player calls each model of a model-by-model unit, in `positions` order (a
        refusal names the models at fault: Unit Coherency)."""
        return [f"model {i + 1}" for i in range(len(unit.positions))]

    def advance_refusal(self, state: GameState, unit_id: str) -> tuple[str, str] | None:
        """(rule, why) when a model-by-model unit may not Advance now for a rule of the
        system's own (40k: it started the Movement phase within Engagement Range); None: it
        may."""
        return None

    def charge_target_refusal(self, state: GameState, target_id: str) -> tuple[str, str] | None:
        """(rule, why) when the unit may not be charged at all (whfb8: Night Goblin Fanatics,
        seed 003); None: it may."""
        return None

    def finish_model_charge(
        self, state: GameState, unit_id: str, targets: Sequence[str],
        positions: Sequence[tuple[float, float]], reach: float,
    ) -> Sequence[tuple[float, float]]:
        """A model-by-model charger's end positions after the server's straight charge, as the
        system's charge move finishes them (40k: each model that can into base contact);
        default: as they are."""
        return positions

    def model_charge_refusal(
        self, state: GameState, unit_id: str, targets: Sequence[str],
        positions: Sequence[tuple[float, float]], reach: float | None = None,
    ) -> tuple[str, str] | None:
        """(rule, why) when a model-by-model charger's end `positions` (after a roll of
        `reach` in) break a rule of the system's charge move, so the charge fails (40k: within
        Engagement Range of every target and of no other enemy unit, each model closer to a
        target, in base contact where it can reach); None: it stands."""
        return None

    def ambush_options(
        self,
        state: GameState,
        unit_id: str,
        point: tuple[float, float],
        requested: Placement | None,
    ) -> dict[str, Any] | None:
        """The client's ambush tool (systems with an `edge_arrival_rule`): the arrival zone
        around a table-edge point, the verdict on a requested placement and the nearest valid
        one; None when the system's units do not arrive at a chosen edge point."""
        return None


def variant_of(system_id: str) -> Variant:
    """The per-system choices of the system called `system_id`."""
    return find_system(system_id).variant


def has_model_moves(system_id: str) -> bool:
    """For `register_action(systems=...)`: actions of systems moving units model by model."""
    return find_system(system_id).variant.ranked is None


def has_charge_reactions(system_id: str) -> bool:
    """For `register_action(systems=...)`: systems where the charged unit reacts."""
    ranked = find_system(system_id).variant.ranked
    return ranked is not None and bool(ranked.reactions)


MOVEMENT_PHASE = Phases(
    "the movement phase", lambda system_id: (find_system(system_id).movement_phase,)
)
"""For `register_action(when=...)`: the phase in which the system's units move."""
CHARGE_PHASES = Phases("a charge phase", lambda system_id: find_system(system_id).charge_phases)
"""For `register_action(when=...)`: the phases in which the system's charges are declared."""


def has_magic_phase(system_id: str) -> bool:
    """For `register_action(systems=...)`: systems with a Magic Phase (the spell log,
    server/rules/magic.py)."""
    return find_system(system_id).magic_phase is not None


MAGIC_PHASE = Phases(
    "the magic phase",
    lambda system_id: tuple(p for p in (find_system(system_id).magic_phase,) if p is not None),
)
"""For `register_action(when=...)`: the system's Magic Phase."""


# --- end of the variants block -----------------------------------------------------------------


@dataclass(frozen=True)
class GameSystem:
    """What every game system declares about itself."""

    id: str
    name: str
    battlefield: Battlefield
    turns: int
    turn_name: str
    phases: tuple[str, ...]
    charge_phases: tuple[str, ...]
    movement_phase: str
    tables: AttackTables
    magic_phase: str | None = None
    """The phase in which spells are cast and logged (server/rules/magic.py: t9a and whfb8
    "Magic"); None: the system has none."""
    rank_and_flank: RankAndFlankRules | None = None
    """The tables and named rules of the shared rank-and-flank battle (shooting, melee, combat
    score, Break and Panic Tests: server/rules/rankandflank/); None: the system fights otherwise."""
    # issue 13 item 1 (variants helper): every other per-system choice, see `Variant`.
    variant: Variant = field(kw_only=True)


SYSTEMS: dict[str, GameSystem] = {}


def register_system(system: GameSystem) -> GameSystem:
    if system.id in SYSTEMS:
        raise ValueError(f"game system {system.id!r} registered twice")
    if not set(system.charge_phases) <= set(system.phases):
        raise ValueError(f"{system.id}: charge phases must be phases of the turn")
    if system.magic_phase is not None and system.magic_phase not in system.phases:
        raise ValueError(f"{system.id}: the magic phase must be a phase of the turn")
    ranked = system.variant.ranked
    if ranked is not None and not set(ranked.reactions) <= set(REACTION_NAMES):
        raise ValueError(f"{system.id}: unknown charge reactions {ranked.reactions}")
    SYSTEMS[system.id] = system
    return system


def find_system(system_id: str) -> GameSystem:
    """The system called `system_id`, or KeyError naming the known ones."""
    try:
        return SYSTEMS[system_id]
    except KeyError:
        raise KeyError(f"unknown game system {system_id!r}; known: {sorted(SYSTEMS)}") from None


def roll_succeeds(face: int, target: int | None) -> bool:
    """A D6 against a target number where a natural 1 always fails and a natural 6 always
    succeeds (to-hit and to-wound in all three systems, FACTS.md "Dice"); None never succeeds."""
    if target is None or face == 1:
        return False
    return face == 6 or face >= target
