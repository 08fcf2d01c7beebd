"""Warhammer Fantasy Battle 8th edition's part of the rank-and-flank battle: shooting, close
combat, combat result, Break Tests, Unstable, Fear and Panic (issue 14 items 1-3;
../shared/rules/FACTS.md "whfb8: the battle"; the Tomb Swarm page,
../shared/seeds/002_20fe50c61f72ab35.txt).

The battle itself is the shared one (server/rules/rankandflank/: `shoot` and `fight_combat`);
`WHFB8RankAndFlank` is what whfb8 puts in it, and server/rules/whfb8/__init__.py registers it
as the system's `rank_and_flank`. docs/rules-decisions.md "whfb8 battle" lists the decisions.

Shooting (Shooting phase; the front rank shoots):

* To hit 7 - BS; long range (beyond half range) -1, moved this turn -1, soft cover -1, hard
  cover -2, Multiple Shots -1 (a Multiple Shots (X) weapon fires X shots per model),
  Stand and Shoot -1 (`STAND_AND_SHOOT`, for the charge reaction's shots), and the page's
  **Light Troops** -1 for shots at two or more Skirmishers of Unit Strength 2 or less (one -1,
  never a second one for "skirmisher target"). 7+, 8+, 9+: a 6 then 4+, 5+, 6+; 10+ cannot hit.

One round of close combat (Close Combat phase):

0. **Fear** (FACTS): at the start of the round each unit in base contact with an enemy unit
   that causes Fear tests Leadership (`fear_test`); on a failure its models have WS 1 this round
   (attacking and attacked). Units that cause Fear, and units Immune to Psychology or
   Unbreakable, do not test.
1. Models strike in Initiative order, highest first, equal Initiative simultaneously; Always
   Strikes First before, Always Strikes Last and **great weapons** after everyone else (each
   in Initiative order among themselves); both cancel out.
2. Models in base contact fight; the second rank makes **Supporting Attacks** (one attack each,
   Monstrous troop types up to 3); a **Horde** (10 or more models in its first rank) supports
   with one more rank; **spears** on foot add a rank when not charging; **halberds** +1
   Strength, great weapons +2; a **hand weapon and shield** gives Parry (a 6+ ward save against
   attacks from the front).
3. **Combat result**: unsaved wounds caused, +1 Charge!, +1 per rank of 5 or more after the
   first (at most +3; Skirmishers count zero ranks: Light Troops; Disrupted by an enemy unit
   with 2+ ranks in its flank or rear), +1 standard, +1 battle standard (the army entry's
   `battle_standard`, while its bearer stands), +1 flank, +2 rear. A draw: nobody tests.
4. **Break Test**: 2D6 at most Leadership (the unit's highest) minus the difference; Steadfast
   (more ranks than the enemy's unit with the most) and **Stubborn** test on unmodified
   Leadership; **Insane Courage**: a double 1 always passes (every Leadership test here: Break,
   Panic, Fear). **Unbreakable** units take no test. **Unstable** (the page): Unbreakable, and
   one extra wound per point the round was lost by, no saves; 1 less when it would have been
   Steadfast; **Animated Construct** (FACTS): 1 less again; wounds go to the unit first, the
   rest as evenly as possible among its characters.
5. A broken unit flees and the winners pursue (server/rules/flee.py); Panic Tests for friends
   within 6 in of a unit that broke or was destroyed (Unbreakable, Unstable and Immunity
   (Psychology) pass).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from server.data import Datasheet
from server.geometry.kinds import Cover
from server.geometry.measure import distance
from server.rules.core import Event, GameState, register_folder
from server.rules.naming import display_name
from server.rules.rankandflank.attacks import MELEE, SHOOTING, Modifier, Roller
from server.rules.rankandflank.engagement import active, frontage, sheet, sheets_of, standing
from server.rules.rankandflank.events import Log
from server.rules.rankandflank.system import RankAndFlankRules
from server.rules.units import Unit, phase_moves, table_of, units_of, with_phase_move
from server.rules.whfb8 import profiles
from server.rules.whfb8.attacks import Guard, Strike, WHFB8AttackSteps

COVER_MODIFIER = {Cover.SOFT: -1, Cover.HARD: -2}
STAND_AND_SHOOT = Modifier("Stand and Shoot", -1, "Stand and Shoot: -1 to hit")
HORDE = "Horde"
BATTLE_STANDARD = "battle_standard"
INSANE_COURAGE = "Insane Courage"
FEAR_FAILED = "fear_failed"
STRIKE_BAND = 100
"""Strike steps: Always Strikes First 2xx, everyone else 1xx, Always Strikes Last 0xx; the
Initiative is the last two digits (`strike_order_value`)."""


@dataclass(frozen=True)
class Missile:
    """A missile weapon as one model of the unit shoots it."""

    name: str
    range_in: float
    shots: int | str
    strength: int
    ballistic_skill: int
    armour_piercing: int
    multiple_shots: int
    poisoned: str | None


def bearer_stands(state: GameState, unit: Unit) -> bool:
    """The Battle Standard Bearer is the unit's first joined character, or the unit itself
    when it is a character: it stands while the unit has a character left (**Decision**: a
    unit's characters are not told apart once one falls)."""
    if unit.characters:
        return True
    return unit.models > 0 and sheet(state, unit.datasheet).character


def insane_courage(total: int) -> bool:
    """A double 1 on 2D6 (total 2) always passes a Leadership test (FACTS)."""
    return total == 2


EVERY_RANK = 1_000
"""More ranks than any unit has: every rank shoots."""
FIRE_ON_THE_MARCH = "Fire on the March"


class WHFB8RankAndFlank(WHFB8AttackSteps, RankAndFlankRules):
    """Warhammer Fantasy Battle 8th edition in the shared rank-and-flank battle (module text)."""

    melee_phase = "Close Combat"
    shooting_phase = "Shooting"
    strike_order_name = "Initiative"
    wounds_name = "Wound"
    leadership_name = "Leadership"
    score_name = "Combat result"
    shooting_ranks = 1
    max_supporting_ranks = 3
    heavy_casualties = 0.25
    panic_once_per_phase = True
    panic_through = True
    restraint_rule = "Restrain Pursuit"

    # -- profiles ----------------------------------------------------------------------------------

    def wounds(self, sheet: Datasheet) -> int:
        return profiles.stats(sheet).W

    def leadership(self, sheets: Iterable[Datasheet]) -> int:
        return profiles.leadership(sheets)

    def melee_parts(self, sheet: Datasheet) -> Sequence[profiles.Part]:
        return profiles.melee_parts(sheet)

    def strike_step(self, part: profiles.Part) -> int:
        band = 1 + int(part.strikes_first) - int(part.strikes_last)
        return band * STRIKE_BAND + part.initiative

    def strike_order_value(self, step: int) -> int:
        return step % STRIKE_BAND

    def melee_weapon(self, sheet: Datasheet, charged: bool) -> profiles.Weapon:
        return profiles.melee_weapon(sheet, charged)

    def supporting_ranks(self, part: profiles.Part, weapon: profiles.Weapon) -> int:
        return 2 if weapon.extra_rank else 1

    def support_limit(self, part: profiles.Part) -> int:
        return profiles.MONSTROUS_SUPPORT if part.troop_type in profiles.MONSTROUS else 1

    def formation_support(self, front_rank: int) -> tuple[int, dict[str, str] | None]:
        if front_rank < profiles.HORDE_WIDTH:
            return 0, None
        return 1, {
            "rule": HORDE,
            "text": f"Horde: {front_rank} models wide: one more rank makes Supporting Attacks",
        }

    def attack_notes(
        self,
        part: profiles.Part,
        weapon: profiles.Weapon,
        *,
        support: int,
        extra_rank: bool,
        limit: int,
    ) -> list[dict[str, str]]:
        """The weapon (when it changes anything), the spear's extra rank, Monstrous support,
        Always Strikes First / Last."""
        notes: list[dict[str, str]] = []
        if weapon.name != profiles.HAND_WEAPON:
            notes.append({"rule": weapon.name, "text": weapon.describe()})
        if support and limit > 1:
            notes.append(
                {
                    "rule": "Supporting Attacks",
                    "text": f"Supporting Attacks: {part.troop_type} support with up to "
                    f"{limit} attacks each",
                }
            )
        if part.strikes_first and not part.strikes_last:
            notes.append({"rule": profiles.ALWAYS_STRIKES_FIRST, "text": "Always Strikes First"})
        if part.strikes_last and not part.strikes_first and not weapon.strikes_last:
            notes.append({"rule": profiles.ALWAYS_STRIKES_LAST, "text": "Always Strikes Last"})
        return notes

    def melee_strike(
        self, part: profiles.Part, weapon: profiles.Weapon, attacks: int, label: str
    ) -> Strike:
        return Strike(
            label,
            attacks,
            part.strength + weapon.strength,
            MELEE,
            weapon_skill=part.weapon_skill,
            armour_piercing=part.armour_piercing,
            poisoned=part.poisoned,
        )

    def guard(self, sheet: Datasheet, *, parry: bool, charged: bool) -> Guard:
        line = profiles.stats(sheet)
        save, rule = profiles.armour_save(sheet)
        return Guard(
            sheet.name,
            line.WS or 0,
            line.T,
            save,
            rule,
            profiles.profile_of(sheet).ward_save,
            parry and profiles.parries(sheet, charged),
        )

    def shooting_weapons(self, sheet: Datasheet) -> Sequence[Missile]:
        line = profiles.stats(sheet)
        out: list[Missile] = []
        for w in profiles.missile_weapons(sheet):
            multiple = profiles.multiple_shots(w)
            out.append(
                Missile(
                    w.name,
                    float(w.range_in),
                    multiple if multiple else w.shots,
                    w.strength,
                    line.BS or 0,
                    profiles.armour_piercing(w.special_rules),
                    multiple,
                    profiles.poisoned(sheet),
                )
            )
        return out

    def shooting_strike(self, weapon: Missile, shots: int, label: str) -> Strike:
        return Strike(
            label,
            shots,
            weapon.strength,
            SHOOTING,
            ballistic_skill=weapon.ballistic_skill,
            armour_piercing=weapon.armour_piercing,
            poisoned=weapon.poisoned,
        )

    def shooting_modifiers(
        self, *, moved: bool, distance: float, weapon: Missile, cover: Cover
    ) -> list[Modifier]:
        """Moved, long range, cover, Multiple Shots (module text)."""
        return shooting_modifiers(moved=moved, distance=distance, weapon=weapon, cover=cover)

    def stand_and_shoot_modifiers(self) -> list[Modifier]:
        """Stand and Shoot -1 (FACTS)."""
        return [STAND_AND_SHOOT]

    def ranks_that_shoot(self, sheet: Datasheet) -> int:
        """Skirmishers (seed 002): "As long as you can draw a Line of Sight from the front rank
        to the target, the second and subsequent ranks may fire too" (line of sight is drawn
        from the front); other units: the front rank."""
        return EVERY_RANK if profiles.skirmishers([sheet]) else self.shooting_ranks

    def marched_shooting_rule(self, sheet: Datasheet) -> str | None:
        """Skirmishers (seed 002), Fire on the March: they "can shoot even if they marched ...
        the normal -1 To Hit penalty for moving and shooting still applies"."""
        return FIRE_ON_THE_MARCH if profiles.skirmishers([sheet]) else None

    def shooting_target_modifiers(self, sheets: Sequence[Datasheet], models: int) -> list[Modifier]:
        """Light Troops (the page): -1 for shots at two or more Skirmishers of individual
        Unit Strength 2 or less."""
        return light_troops(sheets, models)

    # -- ranks -------------------------------------------------------------------------------------

    def rank_width(
        self, rank_and_file: Datasheet | None, characters: Sequence[Datasheet]
    ) -> int | None:
        """Ranks five wide count (FACTS); Skirmishers count none (Light Troops, the page)."""
        if profiles.skirmishers([rank_and_file] if rank_and_file else characters):
            return None
        return profiles.RANK_MODELS

    def rank_bonus(self, ranks: int) -> int:
        return profiles.rank_bonus(ranks)

    def rank_notes(
        self, unit_name: str, ranks: int, sheets: Sequence[Datasheet], rank_and_file: bool
    ) -> list[dict[str, str]]:
        if rank_and_file and sheets and sheets[0].has_rule(profiles.SKIRMISHERS):
            return [
                {
                    "rule": profiles.LIGHT_TROOPS,
                    "text": f"Light Troops: {unit_name} are Skirmishers and count zero ranks",
                }
            ]
        return []

    def extra_score(
        self, state: GameState, mine: Sequence[str], theirs: Sequence[str]
    ) -> tuple[dict[str, int], list[dict[str, str]]]:
        """Battle standard +1 (FACTS): one of the side's units carries the army's battle
        standard (marker "battle_standard") and its bearer still stands."""
        units = units_of(state)
        for uid in mine:
            unit = units[uid]
            if BATTLE_STANDARD in unit.markers and bearer_stands(state, unit):
                return {"battle_standard": 1}, [
                    {"rule": "Battle Standard", "text": "Battle Standard: +1 "
                                                        f"({display_name(state, unit.id)})"}
                ]
        return {"battle_standard": 0}, []

    # -- psychology --------------------------------------------------------------------------------

    def round_start(self, log: Log, combat: Sequence[str], dice: Any) -> None:
        fear_tests(self, log, combat, dice)

    def strike_in_round(self, state: GameState, unit: Unit, strike: Any) -> Any:
        return replace(strike, feared=feared(state, unit.id))

    def guard_in_round(self, state: GameState, unit: Unit, guard: Any) -> Any:
        return replace(guard, feared=feared(state, unit.id))

    # -- Break Tests and Panic ---------------------------------------------------------------------

    def test_passes(self, total: int, needed: int) -> bool:
        return insane_courage(total) or total <= needed

    def test_notes(self, total: int, needed: int) -> list[dict[str, str]]:
        if insane_courage(total) and total > needed:
            return [
                {
                    "rule": INSANE_COURAGE,
                    "text": f"Insane Courage: a double 1 passes (needed {needed} or less)",
                }
            ]
        return []

    def unmodified_leadership(self, sheets: Sequence[Datasheet]) -> str | None:
        """Stubborn: a unit with at least one Stubborn model is Stubborn (the 8th-edition
        rulebook's wording)."""
        return profiles.STUBBORN if any(s.has_rule(profiles.STUBBORN) for s in sheets) else None

    def instead_of_break_test(
        self,
        sheets: Sequence[Datasheet],
        *,
        difference: int,
        steadfast: bool,
        state: GameState | None = None,
        unit: Unit | None = None,
    ) -> tuple[str, int, list[dict[str, str]]] | None:
        near = state is not None and unit is not None and near_battle_standard(state, unit)
        return unstable_losses(sheets, difference, steadfast, near_battle_standard=near)

    def panic_immunity(self, sheets: Sequence[Datasheet]) -> str | None:
        """Immunity (Psychology), Unbreakable and Unstable units pass Panic Tests."""
        return immunity(sheets)


def shooting_modifiers(
    *, moved: bool, distance: float, weapon: Missile, cover: Cover, stand_and_shoot: bool = False
) -> list[Modifier]:
    """The to-hit modifiers of a shot (FACTS): moved -1, long range -1, soft cover -1, hard
    cover -2, Multiple Shots -1 (more than one shot), Stand and Shoot -1."""
    out: list[Modifier] = []
    if moved:
        out.append(Modifier("Moving and Shooting", -1, "Moving and Shooting: -1 to hit"))
    if stand_and_shoot:
        out.append(STAND_AND_SHOOT)
    if distance > weapon.range_in / 2:
        out.append(Modifier("Long Range", -1, "Long Range: -1 to hit (beyond half range)"))
    if cover in COVER_MODIFIER:
        label = f"{cover.label.title()} Cover"
        mod = COVER_MODIFIER[cover]
        out.append(Modifier(label, mod, f"{label}: {mod} to hit"))
    if weapon.multiple_shots > 1:
        out.append(
            Modifier(
                profiles.MULTIPLE_SHOTS,
                -1,
                f"Multiple Shots ({weapon.multiple_shots}): {weapon.multiple_shots} shots "
                "each, -1 to hit",
            )
        )
    return out


def light_troops(sheets: Sequence[Datasheet], models: int) -> list[Modifier]:
    """Light Troops (the page): -1 to hit a unit of two or more Skirmisher models of
    individual Unit Strength 2 or less (one -1 only)."""
    if (
        models >= 2
        and profiles.skirmishers(sheets)
        and all(profiles.unit_strength(s) <= profiles.LIGHT_TROOPS_UNIT_STRENGTH for s in sheets)
    ):
        return [
            Modifier(
                profiles.LIGHT_TROOPS, -1, "Light Troops: -1 to hit shots at Skirmishers"
            )
        ]
    return []


def immunity(
    sheets: Sequence[Datasheet], effect: str = "Panic", models: Sequence[int] | None = None
) -> str | None:
    """The rule that makes the unit ignore `effect` (Panic or Fear): Immunity (`effect`) or
    Immunity (Psychology) on the majority of its models (seed 003: "If the majority of the
    models in a unit have the Immunity (Panic, Fear or Terror) rule, the unit ignores the
    effects"), or Unstable / Unbreakable on every model. `models`: how many models each sheet
    stands for; **Decision** when not given (the shared Panic hook passes sheets only): the
    rank-and-file (the first sheet) are the majority, each joined character one model."""
    weights = list(models) if models is not None else [len(sheets)] + [1] * (len(sheets) - 1)
    immune = [w for s, w in zip(sheets, weights, strict=False) if profiles.immune_to(s, effect)]
    if sheets and 2 * sum(immune) > sum(weights[: len(sheets)]):
        named = [s for s in sheets if profiles.immune_to(s, effect)]
        if all(profiles.immune_to_psychology(s) for s in named):
            return "Immunity (Psychology)"
        return f"Immunity ({effect})"
    found = [profiles.unbreakable_rule(s) for s in sheets]
    if found and all(found):
        return profiles.UNSTABLE if profiles.UNSTABLE in found else profiles.UNBREAKABLE
    return None


BATTLE_STANDARD_RANGE_IN = 12.0
"""Animated Construct (FACTS): two Wounds less from Unstable within this distance of the army's
Battle Standard Bearer."""


def near_battle_standard(state: GameState, unit: Unit) -> bool:
    """Is `unit` within 12 in of its army's Battle Standard Bearer (a unit of its owner on the
    table carrying the battle standard while its bearer stands; the bearer's own unit is)?
    Measured between the closest points of the two units."""
    table = table_of(state)
    here = table.units.get(unit.id)
    for other in units_of(state).values():
        if (
            other.owner != unit.owner
            or other.status != "on_table"
            or BATTLE_STANDARD not in other.markers
            or not bearer_stands(state, other)
        ):
            continue
        if other.id == unit.id:
            return True
        there = table.units.get(other.id)
        if here is not None and there is not None and (
            float(distance(here, there).distance) <= BATTLE_STANDARD_RANGE_IN + 1e-9
        ):
            return True
    return False


def unstable_losses(
    sheets: Sequence[Datasheet], difference: int, steadfast: bool,
    *, near_battle_standard: bool = False,
) -> tuple[str, int, list[dict[str, str]]] | None:
    """Unbreakable: no Break Test, no wounds. Unstable (the page): one wound per point lost by,
    1 less when it would have been Steadfast, 1 less for Animated Construct, 2 less within 12
    in of the army's Battle Standard Bearer (FACTS; `near_battle_standard`)."""
    found = [profiles.unbreakable_rule(s) for s in sheets]
    if not found or not all(found):
        return None
    if profiles.UNSTABLE not in found:
        return profiles.UNBREAKABLE, 0, []
    losses = difference
    notes: list[dict[str, str]] = [
        {
            "rule": profiles.UNSTABLE,
            "text": f"Unstable: lost by {difference}: {difference} extra "
            f"{'Wound' if difference == 1 else 'Wounds'}, no saves",
        }
    ]
    if steadfast:
        losses -= 1
        notes.append(
            {"rule": "Steadfast", "text": "Unstable: would have been Steadfast: 1 Wound less"}
        )
    if profiles.has(sheets[0], profiles.ANIMATED_CONSTRUCT):
        fewer = 2 if near_battle_standard else 1
        losses -= fewer
        notes.append(
            {
                "rule": profiles.ANIMATED_CONSTRUCT,
                "text": "Animated Construct: 2 Wounds less from Unstable (within 12 in of the "
                "Battle Standard Bearer)"
                if near_battle_standard
                else "Animated Construct: 1 Wound less from Unstable",
            }
        )
    return profiles.UNSTABLE, max(0, losses), notes


# --- Fear ----------------------------------------------------------------------------------------


def feared(state: GameState, unit_id: str) -> bool:
    """The unit failed a Fear test this phase (its round of combat)."""
    return bool(phase_moves(state).get(unit_id, {}).get(FEAR_FAILED))


def in_contact(state: GameState, unit: Unit, enemy: Unit) -> bool:
    fp, efp = standing(state, unit), standing(state, enemy)
    if fp is None or efp is None:
        return False
    return bool(frontage(fp, efp, 1).touching)


def fear_tests(rules: RankAndFlankRules, log: Log, combat: Sequence[str], dice: Roller) -> None:
    """Fear (FACTS) at the start of a round: module text, step 0."""
    state = log.state
    units = units_of(state)
    key = rules.leadership_name.lower()
    for uid in combat:
        unit = units[uid]
        if not active(unit):
            continue
        sheets = sheets_of(state, unit)
        if any(profiles.causes_fear(s) for s in sheets):
            continue
        fearsome = [
            units[e]
            for e in combat
            if units[e].owner != unit.owner
            and active(units[e])
            and any(profiles.causes_fear(s) for s in sheets_of(state, units[e]))
            and in_contact(state, unit, units[e])
        ]
        if not fearsome:
            continue
        enemy = fearsome[0]
        immune = immunity(sheets, "Fear", [unit.models] * bool(unit.models)
                          + [1] * len(unit.characters))
        if immune is not None:
            text = (
                f"{immune}: {display_name(state, unit.id)} ignore Fear "
                f"({display_name(state, enemy.id)})"
            )
            log.add(
                Event(
                    "fear_test",
                    {
                        "unit": uid,
                        "cause": enemy.id,
                        "passed": True,
                        "rule": immune,
                        "roll": None,
                        "rules": [{"rule": immune, "text": text}],
                        "text": text,
                    },
                )
            )
            continue
        value = rules.leadership(sheets)
        roll = dice.roll("2D6")
        total = roll.total or 0
        passed = rules.test_passes(total, value)
        outcome = "passed" if passed else "failed: WS 1 this round"
        text = (
            f"{display_name(state, unit.id)} take a Fear test ({display_name(state, enemy.id)} "
            f"cause Fear): rolled {total} against "
            f"{rules.leadership_name} {value}: {outcome}"
        )
        notes = [
            {"rule": profiles.FEAR, "text": f"Fear: {display_name(state, unit.id)} in base "
                                            "contact with "
             f"{display_name(state, enemy.id)}" + ("" if passed else ": WS 1 this round")},
            *rules.test_notes(total, value),
        ]
        log.add(
            Event(
                "fear_test",
                {
                    "unit": uid,
                    "cause": enemy.id,
                    key: value,
                    "roll": roll.to_payload(),
                    "passed": passed,
                    "rule": profiles.FEAR,
                    "rules": notes,
                    "text": text,
                },
            )
        )


@register_folder("fear_test")
def _fold_fear_test(state: GameState, event: Event) -> GameState:
    """A failed Fear test: the unit has WS 1 for the rest of this phase's round."""
    p = event.payload
    if p["passed"]:
        return state
    record = {**phase_moves(state).get(p["unit"], {}), FEAR_FAILED: True}
    return with_phase_move(state, p["unit"], record)


WHFB8 = WHFB8RankAndFlank()
