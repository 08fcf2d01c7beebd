"""Warhammer 40,000 10th edition: losing wounds, allocation, mortal wounds and what rides on
them (issue 16; seed 004, ../shared/seeds/004_dd61c1ce318a3420.txt; FACTS.md wh40k10).

* **Allocation** (FACTS.md): a model that has lost wounds or already had an attack allocated
  this phase takes the next one; otherwise the defender chooses (here: the first eligible model
  in the unit's `allocation_order`, then in model order). **Attached unit** (seed 004): no
  attack is allocated to a Character model while a Bodyguard model lives, even a wounded one;
  once the last Bodyguard model is destroyed, the rest may be. **Precision**: the attacker may
  send the attack to a Character model of its choice (the caller checks it is visible).
* **Feel No Pain X+** (seed 004): one D6 per wound that would be lost, mortal wounds included;
  X or more: that wound is ignored; only one FNP per wound (a model carries one value, the best
  the caller gives it). Rolled in batches: as many dice as wounds the model could still lose,
  again for what is left while the model lives (the same odds as one at a time, fewer rolls).
* **Damage**: excess damage on a destroyed model is lost. **Mortal wounds**: one wound each,
  allocated one at a time (so they carry over to the next model); Decision: in an Attached unit
  they follow the Bodyguard-first order too, unless a rule names the model (Hazardous).
* **Deadly Demise X** (seed 004): roll one D6 when such a model is destroyed, before it is
  removed; on a 6 each unit within 6 in suffers X mortal wounds (X rolled per unit if random).
  The units within 6 in are an input; the mortal wounds are returned for the caller to apply
  (`mortal_wounds` on each unit), as they may fall on other units.
* **Hazardous** (seed 004): after the unit resolved all its attacks, one D6 per Hazardous
  weapon used; each 1 selects a model (a wounded one with a Hazardous weapon, else a
  non-Character with one, else a Character with one) that takes 3 mortal wounds; excess is lost
  (they must go to that model).

Pure: values in, values out; dice come from a `Roller` (the game's `DiceStream`), every roll is
kept in the record in draw order so an event payload can carry them as `rolls`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from server.dice import Roll, Roller
from server.rules.wh40k10.profiles import (
    DiceAmount,
    DiceValue,
    ProfileError,
    TargetModel,
    TargetUnit,
)

HAZARDOUS_MORTAL_WOUNDS = 3
DEADLY_DEMISE_ON = 6
DEADLY_DEMISE_RANGE_IN = 6


@dataclass(frozen=True)
class Step:
    """One step of the sequence, in words, with the index of its roll in the record's rolls.

    `step` is one of: attacks, roll (a random characteristic: A, D, Sustained Hits X, Deadly
    Demise X), toughness, hit, wound, allocate, save, damage, feel_no_pain, destroyed,
    deadly_demise, mortal_wounds, hazardous, separated."""

    step: str
    text: str
    roll: int | None = None
    model: str | None = None
    needed: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.step, "text": self.text}
        if self.roll is not None:
            out["roll"] = self.roll
        if self.model is not None:
            out["model"] = self.model
        if self.needed is not None:
            out["needed"] = self.needed
        if self.data:
            out["data"] = dict(self.data)
        return out


@dataclass(frozen=True)
class DemiseHit:
    """Mortal wounds Deadly Demise inflicts on one unit within 6 in (for the caller to apply)."""

    source_model: str
    unit: str
    mortal_wounds: int


class Recorder:
    """Collects steps and rolls while a sequence runs (internal; the results are frozen)."""

    def __init__(self, roller: Roller) -> None:
        self.roller = roller
        self.steps: list[Step] = []
        self.rolls: list[Roll] = []
        self.demise: list[DemiseHit] = []

    def roll(self, expression: str) -> tuple[Roll, int]:
        roll = self.roller.roll(expression)
        self.rolls.append(roll)
        return roll, len(self.rolls) - 1

    def add(self, step: str, text: str, **kw: Any) -> None:
        self.steps.append(Step(step, text, **kw))


def faces(roll: Roll) -> list[int]:
    """The kept integer faces of a roll, in draw order."""
    return [f for f in roll.kept_faces if isinstance(f, int)]


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def roll_amount(rec: Recorder, value: DiceValue, what: str) -> int:
    """A characteristic that may be random (D, X): fixed, or rolled and recorded."""
    amount = DiceAmount.parse(value)
    if amount.fixed:
        return amount.plus
    roll, index = rec.roll(amount.expression())
    total = roll.total or 0
    rec.add("roll", f"{what}: {amount.printed()} = {total}", roll=index, data={"total": total})
    return total


# --- a unit's models while a sequence runs --------------------------------------------------------


class Board:
    """The mutable wounds of one unit's models during a sequence (internal)."""

    def __init__(self, unit: TargetUnit) -> None:
        self.unit = unit
        self.models: dict[str, TargetModel] = {m.id: m for m in unit.models}
        self.order = list(unit.allocation_order) + [
            m.id for m in unit.models if m.id not in unit.allocation_order
        ]
        self.destroyed: list[str] = []

    def get(self, model_id: str) -> TargetModel:
        return self.models[model_id]

    def living(self) -> list[TargetModel]:
        return [self.models[i] for i in self.order if self.models[i].alive]

    def bodyguard_alive(self) -> bool:
        return any(not m.character for m in self.living())

    def set(self, model: TargetModel) -> None:
        self.models[model.id] = model

    def result(self) -> TargetUnit:
        return self.unit.with_models(self.models)


def allocation_target(board: Board, precision_model: str | None = None) -> TargetModel | None:
    """The model the next attack (or mortal wound) goes to, per the module's rules; None when
    the unit has no model left."""
    living = board.living()
    if not living:
        return None
    if precision_model is not None:
        chosen = board.models.get(precision_model)
        if chosen is not None and chosen.alive and chosen.character:
            return chosen
    eligible = living
    if board.unit.attached and board.bodyguard_alive():
        eligible = [m for m in living if not m.character]
    for model in eligible:
        if model.wounded or model.allocated:
            return model
    return eligible[0]


def lose_wounds(
    rec: Recorder,
    board: Board,
    model_id: str,
    amount: int,
    *,
    cause: str,
    within_6in: Mapping[str, Sequence[str]] | None,
) -> int:
    """`model_id` suffers `amount` damage (or mortal wounds to it alone): Feel No Pain rolls,
    wounds lost, destruction and Deadly Demise. Excess is lost. Returns wounds lost."""
    model = board.get(model_id)
    lost = 0
    remaining = amount
    while remaining > 0 and model.alive:
        batch = min(remaining, model.left)
        failed = batch
        if model.feel_no_pain is not None:
            roll, index = rec.roll(f"{batch}D6")
            ignored = sum(1 for f in faces(roll) if f >= model.feel_no_pain)
            failed = batch - ignored
            rec.add(
                "feel_no_pain",
                f"{model.name}: Feel No Pain {model.feel_no_pain}+ against "
                f"{plural(batch, 'wound')}: {ignored} ignored",
                roll=index,
                model=model.id,
                needed=model.feel_no_pain,
                data={"wounds": batch, "ignored": ignored},
            )
        remaining -= batch
        if failed:
            model = replace(model, wounds_left=model.left - failed)
            board.set(model)
            lost += failed
    excess = remaining
    rec.add(
        "damage",
        f"{model.name} loses {plural(lost, 'wound')} ({cause})"
        + (f", {model.left} left" if model.alive else "")
        + (f"; {excess} excess lost" if excess else ""),
        model=model.id,
        data={"lost": lost, "left": model.left, "excess": excess},
    )
    if not model.alive:
        destroyed(rec, board, model, within_6in)
    return lost


def check_demise_input(unit: TargetUnit, within_6in: Mapping[str, Sequence[str]] | None) -> None:
    """Every living model with Deadly Demise needs its units within 6 in, given before any die
    is rolled (so a bad call rolls nothing)."""
    missing = [
        m.id
        for m in unit.models
        if m.alive
        and m.deadly_demise is not None
        and (within_6in is None or m.id not in within_6in)
    ]
    if missing:
        raise ProfileError(
            f"Deadly Demise: the units within 6 in of {', '.join(missing)} are needed"
        )


def destroyed(
    rec: Recorder,
    board: Board,
    model: TargetModel,
    within_6in: Mapping[str, Sequence[str]] | None,
) -> None:
    board.destroyed.append(model.id)
    rec.add("destroyed", f"{model.name} is destroyed", model=model.id)
    if model.deadly_demise is not None:
        assert within_6in is not None  # check_demise_input ran first
        rec.demise.extend(deadly_demise(rec, model, within_6in[model.id]))


def deadly_demise(
    rec: Recorder, model: TargetModel, units_within: Sequence[str]
) -> list[DemiseHit]:
    """Deadly Demise X (seed 004): one D6; on a 6 each unit in `units_within` suffers X mortal
    wounds, X rolled separately for each unit when it is random."""
    x = model.deadly_demise
    if x is None:
        return []
    roll, index = rec.roll("D6")
    face = faces(roll)[0]
    triggered = face >= DEADLY_DEMISE_ON
    rec.add(
        "deadly_demise",
        f"{model.name}: Deadly Demise {DiceAmount.parse(x).printed()}: rolled {face}"
        + ("" if triggered else ", nothing happens"),
        roll=index,
        model=model.id,
        needed=DEADLY_DEMISE_ON,
        data={"triggered": triggered},
    )
    if not triggered:
        return []
    hits: list[DemiseHit] = []
    for unit_id in units_within:
        n = roll_amount(rec, x, f"Deadly Demise mortal wounds on {unit_id}")
        hits.append(DemiseHit(model.id, unit_id, n))
        rec.add(
            "deadly_demise",
            f"{model.name}: Deadly Demise: {plural(n, 'mortal wound')} on {unit_id}",
            model=model.id,
            data={"unit": unit_id, "mortal_wounds": n},
        )
    return hits


def inflict_mortal_wounds(
    rec: Recorder,
    board: Board,
    n: int,
    *,
    cause: str,
    within_6in: Mapping[str, Sequence[str]] | None,
    model_id: str | None = None,
) -> int:
    """`n` mortal wounds on the unit, one model at a time; they carry over to the next model
    (or, with `model_id`, all go to that model and any excess is lost). Returns wounds lost."""
    rec.add(
        "mortal_wounds",
        f"{board.unit.name} suffers {plural(n, 'mortal wound')} ({cause})",
        model=model_id,
        data={"mortal_wounds": n},
    )
    if model_id is not None:
        return lose_wounds(rec, board, model_id, n, cause=cause, within_6in=within_6in)
    lost = 0
    left = n
    while left > 0:
        target = allocation_target(board)
        if target is None:
            rec.add("mortal_wounds", f"{plural(left, 'mortal wound')} lost: no model left")
            break
        # One mortal wound is one wound: give the model as many as it can still lose at once.
        take = min(left, target.left)
        board.set(replace(target, allocated=True))
        lost += lose_wounds(rec, board, target.id, take, cause=cause, within_6in=within_6in)
        left -= take
    return lost


# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Resolution:
    """What a sequence did: the unit afterwards, every step and roll, models destroyed, Deadly
    Demise mortal wounds for the caller to apply, and an Attached unit's split."""

    unit: TargetUnit
    steps: tuple[Step, ...]
    rolls: tuple[Roll, ...]
    destroyed: tuple[str, ...]
    wounds_lost: int
    demise: tuple[DemiseHit, ...] = ()
    separated: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_payload(self) -> dict[str, Any]:
        """JSON-safe: `rolls` in draw order (`server.rules.core.dice_end` reads their ends);
        each step's `roll` is an index into them."""
        return {
            "unit": self.unit.id,
            "steps": [s.to_json() for s in self.steps],
            "rolls": [r.to_payload() for r in self.rolls],
            "destroyed": list(self.destroyed),
            "wounds_lost": self.wounds_lost,
            "demise": [
                {"model": d.source_model, "unit": d.unit, "mortal_wounds": d.mortal_wounds}
                for d in self.demise
            ],
            "separated": self.separated,
            **{k: v for k, v in self.data.items()},
        }


def separation(before: TargetUnit, after: TargetUnit) -> str | None:
    """An Attached unit splits (seed 004) once its last Bodyguard model or its last Character
    model is destroyed while the other part lives: "bodyguard_destroyed" (the Characters become
    a separate unit) or "leader_destroyed" (the Bodyguard does), each with its original Starting
    Strength, after the attacking unit has resolved all of its attacks (the caller's timing)."""
    if not before.attached:
        return None
    guards = [m for m in after.models if not m.character and m.alive]
    leaders = [m for m in after.models if m.character and m.alive]
    if not guards and leaders:
        return "bodyguard_destroyed"
    if guards and not leaders:
        return "leader_destroyed"
    return None


def finish(rec: Recorder, board: Board, lost: int, **data: Any) -> Resolution:
    after = board.result()
    split = separation(board.unit, after)
    if split is not None:
        rec.add(
            "separated",
            f"{board.unit.name}: "
            + (
                "the last Bodyguard model is destroyed: its Characters become a separate unit"
                if split == "bodyguard_destroyed"
                else "the last Character is destroyed: the Bodyguard becomes a separate unit"
            )
            + " (with its original Starting Strength) once the attacks are resolved",
            data={"separated": split},
        )
    return Resolution(
        after,
        tuple(rec.steps),
        tuple(rec.rolls),
        tuple(board.destroyed),
        lost,
        tuple(rec.demise),
        split,
        data,
    )


# --- entry points -------------------------------------------------------------------------------


def mortal_wounds(
    unit: TargetUnit,
    n: int,
    roller: Roller,
    *,
    cause: str = "mortal wounds",
    within_6in: Mapping[str, Sequence[str]] | None = None,
) -> Resolution:
    """`unit` suffers `n` mortal wounds (Deadly Demise, Roar of Mork on a 1, ...)."""
    if n < 0:
        raise ProfileError("mortal wounds cannot be negative")
    check_demise_input(unit, within_6in)
    rec = Recorder(roller)
    board = Board(unit)
    lost = inflict_mortal_wounds(rec, board, n, cause=cause, within_6in=within_6in) if n else 0
    return finish(rec, board, lost, mortal_wounds=n)


def damage_model(
    unit: TargetUnit,
    model_id: str,
    amount: int,
    roller: Roller,
    *,
    cause: str = "damage",
    within_6in: Mapping[str, Sequence[str]] | None = None,
) -> Resolution:
    """One model suffers `amount` damage from one attack (Feel No Pain, excess lost)."""
    if amount < 0:
        raise ProfileError("damage cannot be negative")
    if not unit.model(model_id).alive:
        raise ProfileError(f"model {model_id!r} is already destroyed")
    check_demise_input(unit, within_6in)
    rec = Recorder(roller)
    board = Board(unit)
    lost = lose_wounds(rec, board, model_id, amount, cause=cause, within_6in=within_6in)
    return finish(rec, board, lost)


def deadly_demise_roll(
    model: TargetModel, units_within: Sequence[str], roller: Roller
) -> tuple[tuple[DemiseHit, ...], tuple[Step, ...], tuple[Roll, ...]]:
    """Deadly Demise alone, for a model destroyed outside this module's sequences."""
    rec = Recorder(roller)
    hits = deadly_demise(rec, model, units_within)
    return tuple(hits), tuple(rec.steps), tuple(rec.rolls)


def hazardous_pick(board: Board) -> TargetModel | None:
    """The model a failed Hazardous test selects (seed 004's order; ties: allocation order)."""
    armed = [m for m in board.living() if m.hazardous]
    for model in armed:
        if model.wounded:
            return model
    for model in armed:
        if not model.character:
            return model
    return armed[0] if armed else None


def hazardous_tests(
    unit: TargetUnit,
    tests: int,
    roller: Roller,
    *,
    within_6in: Mapping[str, Sequence[str]] | None = None,
) -> Resolution:
    """Hazardous (seed 004): `tests` = Hazardous weapons the unit used; one D6 each, a 1 fails;
    each failure, one at a time, selects a model (`TargetModel.hazardous` marks those equipped
    with a Hazardous weapon) that suffers 3 mortal wounds allocated to it."""
    if tests < 0:
        raise ProfileError("Hazardous tests cannot be negative")
    check_demise_input(unit, within_6in)
    rec = Recorder(roller)
    board = Board(unit)
    if tests == 0:
        return finish(rec, board, 0, tests=0, failed=0, mortal_wounds=0)
    roll, index = rec.roll(f"{tests}D6")
    failed = sum(1 for f in faces(roll) if f == 1)
    rec.add(
        "hazardous",
        f"{unit.name}: {plural(tests, 'Hazardous test')}: {failed} failed",
        roll=index,
        data={"tests": tests, "failed": failed},
    )
    lost = 0
    inflicted = 0
    for _ in range(failed):
        model = hazardous_pick(board)
        if model is None:
            rec.add("hazardous", f"{unit.name}: no model with a Hazardous weapon left")
            continue
        rec.add(
            "hazardous",
            f"Failed Hazardous test: {model.name} is selected",
            model=model.id,
        )
        inflicted += HAZARDOUS_MORTAL_WOUNDS
        lost += inflict_mortal_wounds(
            rec,
            board,
            HAZARDOUS_MORTAL_WOUNDS,
            cause="Hazardous",
            within_6in=within_6in,
            model_id=model.id,
        )
    return finish(rec, board, lost, tests=tests, failed=failed, mortal_wounds=inflicted)
