"""The 9th Age's part of the rank-and-flank battle: shooting, melee, combat score, Break
Tests, Supernal and Panic Tests (issue 5, items 4 and 5; seed 000,
../shared/seeds/000_ac64b535f31b5cdf.txt).

The battle itself is the shared one (server/rules/rankandflank/: `shoot` and `fight_combat`,
shapes in docs/protocol.md "t9a combat"); `T9ARankAndFlank` is what The 9th Age puts in it, and
server/rules/t9a/__init__.py registers it as the system's `rank_and_flank`.

Shooting (**Decisions** for the first three modifiers: the long-standing values):

* Phase "Shooting". Models in the first two ranks shoot (**Decision**).
* Modifiers: Moving and Shooting -1, Long Range (beyond half range) -1, Soft Cover -1, Hard
  Cover -2; Hard Target (X) -X is the target's (server/rules/t9a/attacks.py).
* Stand and Shoot (the Charge Reactions text, docs/rules-decisions.md): only when the charger
  is Located in the charged unit's Front Arc and farther away than its lowest Advance Rate,
  once per Player Turn; a charger beyond the weapon's range is shot at Long Range; -1 to hit
  (**Decision**: the value of the "Stand and Shoot" modifier the text names).

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
   over; **Decision**, issue 5's "rank-and-file first, then characters"). Parry (a Hand Weapon
   with a Shield) against Melee Attacks from the Front.
4. Combat score per side: Health Point losses it caused this round; the best Rank Bonus of its
   units (+1 per Proper Rank after the first, at most +3; none when an enemy with two or more
   Proper Ranks is in its Flank or Rear: Disrupted); +1 Standard (a unit with the marker
   "standard": `standard: true` on its army entry, a Standard Bearer); +1 Charge in the first
   round of a unit that charged; +1 Flank and +2 Rear when one of its units is in an enemy
   unit's flank or rear arc. Light Troops: zero Proper Ranks.
5. The loser's units take Break Tests: 2D6 against Discipline (the unit's highest) minus the
   difference; a Steadfast unit (more Proper Ranks than every enemy unit in the combat) tests
   against its unmodified Discipline. A unit entirely with Supernal that fails suffers Health
   Point losses equal to the difference, no saves, rank-and-file first, then attachable models
   as evenly as possible; any other unit that fails breaks and flees (flee.py).
6. Panic Tests: when a unit breaks or is destroyed, every friendly unit on the table within
   6 in of it that is not Engaged and not fleeing takes a Panic Test (2D6 against Discipline); a
   unit containing Fearless passes automatically (seed 000); a failed test flees.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from server.data import Datasheet
from server.data.schema import T9AModelPart, T9AShootingWeapon
from server.geometry.arcs import arc_of_unit
from server.geometry.kinds import Arc, Cover
from server.rules.core import GameState
from server.rules.naming import display_name, possessive, say_inches
from server.rules.rankandflank.attacks import SHOOTING, Modifier
from server.rules.rankandflank.system import RankAndFlankRules
from server.rules.systems import variant_of
from server.rules.t9a import profiles
from server.rules.t9a.attacks import POISON_ATTACKS, Guard, Strike, T9AAttackSteps
from server.rules.units import Unit, phase_moves, sheets_of, table_of

COVER_MODIFIER = {Cover.SOFT: -1, Cover.HARD: -2}
STAND_AND_SHOOT = Modifier("Stand and Shoot", -1, "Stand and Shoot: -1 to hit")


class T9ARankAndFlank(T9AAttackSteps, RankAndFlankRules):
    """The 9th Age in the shared rank-and-flank battle (module text)."""

    melee_phase = "Melee"
    shooting_phase = "Shooting"
    strike_order_name = "Agility"
    wounds_name = "Health Point"
    leadership_name = "Discipline"
    ranks_name = "Proper Ranks"
    shooting_ranks = 2
    max_supporting_ranks = 2
    stand_and_shoot_beyond_range = True

    # -- profiles ----------------------------------------------------------------------------------

    def wounds(self, sheet: Datasheet) -> int:
        return profiles.profile_of(sheet).defensive.health_points

    def leadership(self, sheets: Iterable[Datasheet]) -> int:
        return profiles.discipline(sheets)

    def melee_parts(self, sheet: Datasheet) -> Sequence[T9AModelPart]:
        return profiles.profile_of(sheet).offensive

    def strike_step(self, part: T9AModelPart) -> int:
        return part.agility

    def melee_weapon(self, sheet: Datasheet, charged: bool) -> profiles.Weapon:
        return profiles.melee_weapon(sheet, charged)

    def supporting_ranks(self, part: T9AModelPart, weapon: profiles.Weapon) -> int:
        return profiles.supporting_ranks(part, weapon)

    def support_limit(self, part: T9AModelPart) -> int:
        return profiles.support_limit(part)

    def attack_notes(
        self,
        part: T9AModelPart,
        weapon: profiles.Weapon,
        *,
        support: int,
        extra_rank: bool,
        limit: int,
    ) -> list[dict[str, str]]:
        """Extra Support, Fight in Extra Rank (or the Spear's) and the weapon, when used."""
        notes: list[dict[str, str]] = []
        if support:
            if profiles.EXTRA_SUPPORT in profiles.part_rules(part):
                notes.append(
                    {
                        "rule": profiles.EXTRA_SUPPORT,
                        "text": f"Extra Support: up to {limit} Supporting Attacks per model",
                    }
                )
            if extra_rank:
                rule = (
                    profiles.FIGHT_IN_EXTRA_RANK
                    if profiles.FIGHT_IN_EXTRA_RANK in profiles.part_rules(part)
                    else weapon.name
                )
                notes.append(
                    {"rule": rule, "text": f"{rule}: the third rank makes Supporting Attacks"}
                )
        if weapon.name != profiles.HAND_WEAPON:
            notes.append({"rule": weapon.name, "text": weapon.describe()})
        return notes

    def melee_strike(
        self, part: T9AModelPart, weapon: profiles.Weapon, attacks: int, label: str
    ) -> Strike:
        return profiles.strike_of(part, weapon, attacks, label)

    def guard(self, sheet: Datasheet, *, parry: bool, charged: bool) -> Guard:
        """Parry: a Hand Weapon with a Shield, against Melee Attacks from the Front."""
        return profiles.guard_of(sheet, parry=parry and profiles.has_parry(sheet, charged))

    def shooting_weapons(self, sheet: Datasheet) -> Sequence[T9AShootingWeapon]:
        return profiles.profile_of(sheet).shooting

    def shooting_strike(self, weapon: T9AShootingWeapon, shots: int, label: str) -> Strike:
        names = [r.name for r in weapon.special_rules]
        return Strike(
            label,
            shots,
            weapon.strength,
            weapon.armour_penetration,
            SHOOTING,
            aim=weapon.aim,
            attributes=frozenset(names),
            poison=names.count(POISON_ATTACKS),
        )

    def shooting_modifiers(
        self, *, moved: bool, distance: float, weapon: T9AShootingWeapon, cover: Cover
    ) -> list[Modifier]:
        """Moving and Shooting, Long Range, Soft or Hard Cover (module text)."""
        modifiers: list[Modifier] = []
        if moved:
            modifiers.append(Modifier("Moving and Shooting", -1, "Moving and Shooting: -1 to hit"))
        if distance > weapon.range_in / 2:
            modifiers.append(Modifier("Long Range", -1, "Long Range: -1 to hit"))
        if cover in COVER_MODIFIER:
            label = f"{cover.label.title()} Cover"
            mod = COVER_MODIFIER[cover]
            modifiers.append(Modifier(label, mod, f"{label}: {mod} to hit"))
        return modifiers

    def stand_and_shoot_modifiers(self) -> list[Modifier]:
        """Stand and Shoot -1 (module text)."""
        return [STAND_AND_SHOOT]

    def stand_and_shoot_condition(
        self, state: GameState, unit: Unit, charger: Unit, gap: float
    ) -> tuple[str, str] | None:
        """The Charge Reactions text: the charger Located in the charged unit's Front Arc (the
        arc holding the centre of its front facing), farther away than its Advance Rate (the
        lowest among its models), and a unit Stands and Shoots once per Player Turn (charges
        are declared only in the Charge Phase, so once in it: the phase's record of shots)."""
        table = table_of(state)
        if Arc.FRONT not in arc_of_unit(table.units[unit.id], table.units[charger.id]):
            return ("Stand and Shoot", f"{display_name(state, charger.id)} is not Located in "
                    f"{possessive(display_name(state, unit.id))} Front Arc")
        rate = min(variant_of(state.system).allowance(s, "advance")
                   for s in sheets_of(state, charger))
        if gap <= rate + 1e-9:
            return ("Stand and Shoot", f"{display_name(state, charger.id)} is "
                                       f"{say_inches(gap, rate)} away, "
                    f"not farther than its Advance Rate {rate:g}: too close to Stand and Shoot")
        if phase_moves(state).get(unit.id, {}).get("shot"):
            return ("Stand and Shoot", f"{display_name(state, unit.id)} has already Stood and "
                                       "Shot this Player "
                    "Turn")
        return None

    # -- ranks -------------------------------------------------------------------------------------

    def rank_width(
        self, rank_and_file: Datasheet | None, characters: Sequence[Datasheet]
    ) -> int | None:
        """A Proper Rank's width by Height; none for a unit containing Light Troops (seed 000)."""
        if profiles.contains_light_troops(rank_and_file, characters):
            return None
        return profiles.proper_rank_width((rank_and_file or characters[0]).height_class)

    def rank_bonus(self, ranks: int) -> int:
        return profiles.rank_bonus(ranks)

    def rank_notes(
        self, unit_name: str, ranks: int, sheets: Sequence[Datasheet], rank_and_file: bool
    ) -> list[dict[str, str]]:
        if ranks == 0 and profiles.containing(profiles.LIGHT_TROOPS, sheets) and rank_and_file:
            return [
                {
                    "rule": profiles.LIGHT_TROOPS,
                    "text": f"Light Troops: {unit_name} count zero Proper Ranks",
                }
            ]
        return []

    # -- Break Tests and Panic ---------------------------------------------------------------------

    def losses_instead_of_fleeing(self, sheets: Sequence[Datasheet]) -> str | None:
        """Supernal (seed 000): a unit entirely with it loses Health Points instead."""
        return profiles.SUPERNAL if profiles.entirely(profiles.SUPERNAL, sheets) else None

    def panic_immunity(self, sheets: Sequence[Datasheet]) -> str | None:
        """Fearless (seed 000): a unit containing it passes Panic Tests automatically."""
        return profiles.FEARLESS if profiles.containing(profiles.FEARLESS, sheets) else None


T9A = T9ARankAndFlank()
