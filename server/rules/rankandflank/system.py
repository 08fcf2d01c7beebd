"""What a rank-and-flank game system declares for the shared battle pipeline.

A system that fights in ranked blocks (The 9th Age now; Warhammer Fantasy Battle 8th edition
next) subclasses `RankAndFlankRules` and puts one instance on its `GameSystem` as
`rank_and_flank` (server/rules/t9a/combat.py is the example). The shared modules
(`shooting`, `melee`, `combat_result`, `break_test`) call only these methods for anything that
differs between systems, like python-chess's `Board` calls the methods a variant overrides.

Must provide (abstract): the melee phase's name; the system's words for wounds and leadership;
its profiles (model parts with their attacks and strike order, the melee weapon, supporting
ranks and the supporting-attack limit, the shooting weapons); the strikes and guards the attack
steps read, with the numbers and named rules of each step (`AttackSteps`: to hit, to wound,
armour save); the shooting modifiers; the ranks that count and the rank bonus; leadership.

May override (defaults are the shape both games share): the shooting phase's name, how many
ranks shoot, how deep supporting ranks reach, the special save, automatic wounds, the combat
score's charge, standard, flank and rear values and any extra parts, Steadfast's words, how a
Break Test is passed, the rule that turns a failed Break Test into losses instead of fleeing,
the rule that passes a Panic Test, the Panic range.

docs/combat-pipeline.md "The rank-and-flank battle pipeline" lists each with its t9a value and
what whfb8 will put there.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from server.data import Datasheet
from server.geometry.kinds import Cover
from server.rules.core import Phases
from server.rules.rankandflank.attacks import AttackSteps, Modifier
from server.rules.systems import SYSTEMS, find_system

if TYPE_CHECKING:
    from server.rules.core import Event, GameState
    from server.rules.rankandflank.events import Log
    from server.rules.units import Unit


class MeleePart(Protocol):
    """A model part that fights (t9a: a `T9AModelPart`; whfb8: a profile line)."""

    @property
    def name(self) -> str: ...

    @property
    def attacks(self) -> int | str: ...


class MeleeWeapon(Protocol):
    """The close combat weapon a model part fights with this round."""

    @property
    def name(self) -> str: ...


class RangedWeapon(Protocol):
    """A shooting weapon: its name, range and shots per model (an int or dice)."""

    @property
    def name(self) -> str: ...

    @property
    def range_in(self) -> float: ...

    @property
    def shots(self) -> int | str: ...


class RankAndFlankRules(AttackSteps):
    """One rank-and-flank system's tables, words and named rules (module text)."""

    # -- phases and words (may override) ----------------------------------------------------------
    shooting_phase: str = "Shooting"
    """The phase `shoot` is taken in."""
    ranks_name: str = "ranks"
    """The ranks Steadfast compares, in words (t9a "Proper Ranks")."""
    score_name: str = "Combat score"
    """What the `combat_score` event's text calls the round's total (whfb8 "Combat result")."""

    # -- who fights and shoots ---------------------------------------------------------------------
    shooting_ranks: int = 1
    """Rank-and-file models in this many front ranks shoot (t9a: 2)."""
    max_supporting_ranks: int = 2
    """How many ranks behind the first the frontage counts for Supporting Attacks."""
    stand_and_shoot_beyond_range: bool = False
    """A Stand and Shoot may shoot a charger beyond the weapon's maximum range, which then
    counts as Long Range (t9a); False: the charger must be within range (whfb8)."""

    # -- combat score ------------------------------------------------------------------------------
    charge_bonus: int = 1
    standard_bonus: int = 1
    flank_bonus: int = 1
    rear_bonus: int = 2
    disrupting_ranks: int = 2
    """An enemy with this many counting ranks in a unit's flank or rear cancels its rank bonus."""

    # -- Panic -------------------------------------------------------------------------------------
    panic_range_in: float = 6.0
    """Friendly units within this distance of a unit that breaks or is destroyed test."""
    heavy_casualties: float | None = None
    """A unit that loses this fraction of the models it had at the start of a phase takes a
    Panic Test (whfb8: 0.25); None: no such test."""
    panic_once_per_phase: bool = False
    """A unit that passed a Panic Test takes no other that phase (whfb8)."""
    panic_through: bool = False
    """A unit that breaks or flees from Panic makes the friendly units it flees through take a
    Panic Test (whfb8)."""
    restraint_rule: str | None = None
    """The rule by which a winner ordered to hold back (`restrain_pursuit`) tests its
    leadership instead of pursuing (whfb8 "Restrain Pursuit"); None: winners always pursue."""

    # -- phases and words (must provide) ---------------------------------------------------------

    @property
    @abstractmethod
    def melee_phase(self) -> str:
        """The phase `fight_combat` is taken in (t9a "Melee")."""

    @property
    @abstractmethod
    def strike_order_name(self) -> str:
        """The characteristic that orders strikes (t9a "Agility"); the `attack_step` payload
        carries its value under the lower-case name."""

    @property
    @abstractmethod
    def wounds_name(self) -> str:
        """What attacks take away, singular (t9a "Health Point"); the combat score counts
        them under the snake-case plural ("health_points")."""

    @property
    @abstractmethod
    def leadership_name(self) -> str:
        """What Break and Panic Tests roll against (t9a "Discipline"); the events carry its
        value under the lower-case name."""

    # -- profiles ----------------------------------------------------------------------------------

    @abstractmethod
    def wounds(self, sheet: Datasheet) -> int:
        """Wounds (Health Points) of one model of this datasheet."""

    @abstractmethod
    def leadership(self, sheets: Iterable[Datasheet]) -> int:
        """What the unit's Break and Panic Tests roll against, from every model's sheet."""

    @abstractmethod
    def melee_parts(self, sheet: Datasheet) -> Sequence[MeleePart]:
        """The model parts that fight, each striking on its own (rider and mount)."""

    @abstractmethod
    def strike_step(self, part: Any) -> int:
        """The strike order of a part: higher strikes first, equal values simultaneously
        (t9a Agility; a system may fold Always Strikes First into the value)."""

    @abstractmethod
    def melee_weapon(self, sheet: Datasheet, charged: bool) -> MeleeWeapon:
        """The weapon the models of `sheet` fight with this round."""

    @abstractmethod
    def supporting_ranks(self, part: Any, weapon: Any) -> int:
        """How many ranks behind the first make Supporting Attacks (1, or 2 for t9a Fight in
        Extra Rank and Spears; at most `max_supporting_ranks`)."""

    @abstractmethod
    def support_limit(self, part: Any) -> int:
        """Most attacks one supporting model part makes."""

    @abstractmethod
    def attack_notes(
        self, part: Any, weapon: Any, *, support: int, extra_rank: bool, limit: int
    ) -> list[dict[str, str]]:
        """The named rules the "attacks" step applied: `support` supporting models, of which
        some in a rank beyond the second when `extra_rank`, each with at most `limit` attacks,
        and the weapon."""

    @abstractmethod
    def melee_strike(self, part: Any, weapon: Any, attacks: int, label: str) -> Any:
        """The strike of `attacks` close combat attacks by `part` with `weapon`."""

    @abstractmethod
    def guard(self, sheet: Datasheet, *, parry: bool, charged: bool) -> Any:
        """The defensive profile attacks against the models of `sheet` use; `parry`: the
        attacks are melee attacks from the front (Parry may apply); `charged`: the defender
        charged this round."""

    def ranks_that_shoot(self, sheet: Datasheet) -> int:
        """How many front ranks of the unit's rank-and-file (`sheet`) shoot when the unit sees
        its target from its front (whfb8 Skirmishers: every rank)."""
        return self.shooting_ranks

    def marched_shooting_rule(self, sheet: Datasheet) -> str | None:
        """The rule letting a unit of `sheet` shoot after a March Move, with the usual penalty
        for moving (whfb8 Skirmishers: Fire on the March); None: a unit that marched may not
        shoot."""
        return None

    @abstractmethod
    def shooting_weapons(self, sheet: Datasheet) -> Sequence[RangedWeapon]:
        """The shooting weapons of `sheet`, the default (first) one first."""

    @abstractmethod
    def shooting_strike(self, weapon: Any, shots: int, label: str) -> Any:
        """The strike of `shots` shots of `weapon`."""

    @abstractmethod
    def shooting_modifiers(
        self, *, moved: bool, distance: float, weapon: Any, cover: Cover
    ) -> list[Modifier]:
        """The to-hit modifiers of a shot: moving, range, cover (the target's own rules,
        such as t9a Hard Target, are the `to_hit` step's)."""

    # -- ranks -------------------------------------------------------------------------------------

    @abstractmethod
    def rank_width(
        self, rank_and_file: Datasheet | None, characters: Sequence[Datasheet]
    ) -> int | None:
        """The fewest files a rank must fill to count (t9a 5, Large 3, Gigantic 1; whfb8 5), or
        None when the unit counts no ranks at all (t9a Light Troops, whfb8 Skirmishers)."""

    def proper_ranks(
        self,
        rank_widths: Iterable[int],
        rank_and_file: Datasheet | None,
        characters: Sequence[Datasheet],
    ) -> int:
        """How many of the unit's ranks count: those filling at least `rank_width` files. The
        one count behind the rank bonus, Steadfast and Disrupted, so a combat result and the
        Break Test after it can never judge the same unit's ranks differently."""
        need = self.rank_width(rank_and_file, characters)
        if need is None:
            return 0
        return sum(1 for width in rank_widths if width >= need)

    def ranks_text(self, ranks: int) -> str:
        """`ranks` counting ranks in the system's word, singular for one ("1 Proper Rank")."""
        word = self.ranks_name
        return f"{ranks} {word[:-1] if ranks == 1 and word.endswith('s') else word}"

    @abstractmethod
    def rank_bonus(self, ranks: int) -> int:
        """The combat score bonus for `ranks` counting ranks."""

    # -- hooks with defaults that change nothing (whfb8 uses them) --------------------------------

    def strike_order_value(self, step: int) -> int:
        """The characteristic shown for a strike order `step` (a system that folds Always
        Strikes First / Last into the step shows the characteristic itself); the step by
        default."""
        return step

    def formation_support(self, front_rank: int) -> tuple[int, dict[str, str] | None]:
        """Extra ranks behind the first that make Supporting Attacks because of the unit's
        formation, from the number of rank-and-file models in its first rank (whfb8 Horde:
        10 or more wide, one more rank), and the note naming the rule; (0, None) by default."""
        return 0, None

    def stand_and_shoot_modifiers(self) -> list[Modifier]:
        """The to-hit modifiers of a Stand and Shoot reaction (t9a and whfb8 -1); none by
        default."""
        return []

    def stand_and_shoot_condition(
        self, state: GameState, unit: Unit, charger: Unit, gap: float
    ) -> tuple[str, str] | None:
        """(rule, why) when a system's own condition refuses `unit` a Stand and Shoot at
        `charger`, `gap` inches away (t9a: the charger in the Front Arc, farther than its
        Advance Rate, once per Player Turn); the shared checks (a weapon, range, line of
        sight) are `shooting.stand_and_shoot_refusal`'s. None by default."""
        return None

    def shooting_target_modifiers(self, sheets: Sequence[Datasheet], models: int) -> list[Modifier]:
        """To-hit modifiers from the target unit as a whole (`models` models, these sheets:
        whfb8 Light Troops, shots at two or more skirmishers); none by default."""
        return []

    def round_start(self, log: Log, combat: Sequence[str], dice: Any) -> None:
        """Tests at the start of a round of close combat (whfb8 Fear), added to `log` before
        anyone strikes; none by default."""
        return None

    def strike_in_round(self, state: GameState, unit: Unit, strike: Any) -> Any:
        """The strike as this round changes it (whfb8: WS 1 after a failed Fear test); the
        strike by default."""
        return strike

    def guard_in_round(self, state: GameState, unit: Unit, guard: Any) -> Any:
        """The guard as this round changes it (whfb8: WS 1 after a failed Fear test); the
        guard by default."""
        return guard

    def rank_notes(
        self, unit_name: str, ranks: int, sheets: Sequence[Datasheet], rank_and_file: bool
    ) -> list[dict[str, str]]:
        """Named rules that shaped the ranks counted (t9a Light Troops); none by default."""
        return []

    def extra_score(
        self, state: GameState, mine: Sequence[str], theirs: Sequence[str]
    ) -> tuple[dict[str, int], list[dict[str, str]]]:
        """Combat score parts beyond wounds, ranks, standard, charge, flank and rear for the
        side with units `mine` against `theirs` (whfb8: battle standard; not overkill, which
        needs challenges, not automated): each part's value by name, and the notes. None by
        default."""
        return {}, []

    # -- Break Tests and Panic ---------------------------------------------------------------------

    def steadfast_note(self, ranks: int, enemy_ranks: int, leadership: int) -> dict[str, str]:
        """The note of a Steadfast unit testing on its unmodified leadership."""
        return {
            "rule": "Steadfast",
            "text": f"Steadfast: {self.ranks_text(ranks)} against {enemy_ranks}: "
            f"tests on {self.leadership_name} {leadership}",
        }

    def test_passes(self, total: int, needed: int) -> bool:
        """A Break or Panic Test of 2D6 totalling `total` against `needed`."""
        return total <= needed

    def test_notes(self, total: int, needed: int) -> list[dict[str, str]]:
        """Named rules that decided a 2D6 test of `total` against `needed` (whfb8 Insane
        Courage: a double 1 passes); none by default."""
        return []

    def unmodified_leadership(self, sheets: Sequence[Datasheet]) -> str | None:
        """The rule by which the unit's Break Test uses its unmodified leadership whatever its
        ranks (whfb8 Stubborn); None by default."""
        return None

    def instead_of_break_test(
        self,
        sheets: Sequence[Datasheet],
        *,
        difference: int,
        steadfast: bool,
        state: GameState | None = None,
        unit: Unit | None = None,
    ) -> tuple[str, int, list[dict[str, str]]] | None:
        """A unit that takes no Break Test (whfb8 Unbreakable; Unstable, which loses wounds
        instead): the rule, the wounds it loses with no saves (rank-and-file first, then
        characters as evenly as possible) and the notes; None (the default): it tests.
        `state` and `unit` (the game and the losing unit, when known) let a rule look at the
        table (whfb8 Animated Construct near its Battle Standard Bearer)."""
        return None

    def losses_instead_of_fleeing(self, sheets: Sequence[Datasheet]) -> str | None:
        """The rule (t9a Supernal) by which a unit that fails its Break Test loses wounds equal
        to the difference, no saves, allocated evenly, instead of fleeing; None: it flees."""
        return None

    def panic_immunity(self, sheets: Sequence[Datasheet]) -> str | None:
        """The rule (t9a Fearless) by which the unit passes Panic Tests without a roll."""
        return None


def rank_and_flank_of(state: GameState) -> RankAndFlankRules:
    """The rank-and-flank rules of the game's system (the shared actions are registered only
    for systems that have them, so this finds them)."""
    return _of(state.system)


def rank_and_flank_systems() -> list[str]:
    """The registered systems with rank-and-flank rules; the shared actions register for
    these, so every system package registers before they are imported (server/rules/
    __init__.py imports the system packages first)."""
    return sorted(s.id for s in SYSTEMS.values() if s.rank_and_flank is not None)


def _of(system_id: str) -> RankAndFlankRules:
    rules = find_system(system_id).rank_and_flank
    if rules is None:
        raise LookupError(f"{system_id!r} declares no rank-and-flank rules")
    return rules


SHOOTING_PHASE = Phases(
    "the shooting phase of a rank-and-flank system",
    lambda system_id: (_of(system_id).shooting_phase,),
)
"""For `register_action(when=...)`: the phase in which the system's units shoot."""
MELEE_PHASE = Phases(
    "the melee phase of a rank-and-flank system",
    lambda system_id: (_of(system_id).melee_phase,),
)
"""For `register_action(when=...)`: the phase in which the system's combats are fought."""


class RankAndFlankReactions:
    """Mixed into a system's `RankedRules` (before it): the Charge Reactions as the shared
    battle plays them (t9a, whfb8): Stand and Shoot is the shooting phase's volley
    (server/rules/rankandflank/shooting.py, with the system's `RankAndFlankRules` conditions
    and modifiers), and a Flee! makes the friends it passes through test for Panic when the
    system has `panic_through` (break_test.py)."""

    def reaction_flight(
        self, state: GameState, unit_id: str, charger_id: str, fled: list[Event], dice: Any
    ) -> list[Event]:
        from server.rules.rankandflank.break_test import reaction_flight_panic

        return reaction_flight_panic(state, unit_id, charger_id, fled, dice)

    def stand_and_shoot_refusal(
        self, state: GameState, unit_id: str, charger_id: str
    ) -> tuple[str, str] | None:
        from server.rules.rankandflank.shooting import stand_and_shoot_refusal

        return stand_and_shoot_refusal(state, unit_id, charger_id)

    def stand_and_shoot(
        self, state: GameState, unit_id: str, charger_id: str, dice: Any
    ) -> list[Event]:
        from server.rules.rankandflank.shooting import stand_and_shoot

        return stand_and_shoot(state, unit_id, charger_id, dice)
