"""Test models and weapons for the wh40k10 attack tests, as FACTS.md (wh40k10) gives them:
Beast Snagga Boyz T 5, Sv 5+, W 1 (the Nob W 2); the Wurrboy T 5, Sv 5+, W 4, Feel No Pain 6+,
Deadly Demise D3, Eyez of Mork 18 in A D6 BS 5+ S 8 AP -3 D 2 [PSYCHIC]. The Intercessors' bolt
rifle is server/data/wh40k10/intercessor-squad.yaml (a Warfield decision)."""

from __future__ import annotations

from typing import Any

from server.rules.wh40k10.profiles import MELEE, RANGED, TargetModel, TargetUnit, Weapon

INFANTRY = frozenset({"Infantry", "Orks", "Beast Snagga"})
ALONE: dict[str, tuple[str, ...]] = {"wurrboy": ()}
"""No unit within 6 in of the Wurrboy (Deadly Demise needs the list, even empty)."""


def boy(i: int, **kw: Any) -> TargetModel:
    return TargetModel(f"b{i}", f"Boy {i}", toughness=5, save=5, wounds=1, **kw)


def nob(**kw: Any) -> TargetModel:
    return TargetModel("nob", "Nob", toughness=5, save=5, wounds=2, **kw)


def wurrboy(**kw: Any) -> TargetModel:
    fields: dict[str, Any] = {
        "toughness": 5,
        "save": 5,
        "wounds": 4,
        "feel_no_pain": 6,
        "deadly_demise": "D3",
        "character": True,
    }
    fields.update(kw)
    return TargetModel("wurrboy", "Wurrboy", **fields)


def intercessor(i: int, **kw: Any) -> TargetModel:
    return TargetModel(f"i{i}", f"Intercessor {i}", toughness=4, save=3, wounds=2, **kw)


def boyz(n: int = 10, *, nob_first: bool = False, **kw: Any) -> TargetUnit:
    models = tuple(boy(i) for i in range(1, n + 1))
    if nob_first:
        models = (nob(), *models[1:])
    return TargetUnit("boyz", "Beast Snagga Boyz", models, INFANTRY, **kw)


def attached(n: int = 10, leader: TargetModel | None = None, **kw: Any) -> TargetUnit:
    """Beast Snagga Boyz led by the Wurrboy (or `leader`): an Attached unit (seed 004)."""
    models = (*(boy(i) for i in range(1, n + 1)), leader or wurrboy())
    return TargetUnit("boyz", "Beast Snagga Boyz", models, INFANTRY, attached=True, **kw)


def intercessors(n: int = 5, **kw: Any) -> TargetUnit:
    models = tuple(intercessor(i) for i in range(1, n + 1))
    return TargetUnit(
        "intercessors", "Intercessor Squad", models, frozenset({"Infantry", "Imperium"}), **kw
    )


def bolt_rifle(*abilities: str) -> Weapon:
    return Weapon.build(
        "Bolt rifle",
        RANGED,
        attacks=2,
        skill=3,
        strength=4,
        ap=-1,
        damage=1,
        range_in=24,
        abilities=("ASSAULT", "HEAVY", *abilities),
    )


def bolt_pistol() -> Weapon:
    return Weapon.build(
        "Bolt pistol",
        RANGED,
        attacks=1,
        skill=3,
        strength=4,
        ap=0,
        damage=1,
        range_in=12,
        abilities=("PISTOL",),
    )


def eyez_of_mork() -> Weapon:
    return Weapon.build(
        "Eyez of Mork",
        RANGED,
        attacks="D6",
        skill=5,
        strength=8,
        ap=-3,
        damage=2,
        range_in=18,
        abilities=("PSYCHIC",),
    )


def choppa() -> Weapon:
    return Weapon.build("Choppa", MELEE, attacks=3, skill=3, strength=4, ap=-1, damage=1)


def gun(
    *abilities: str,
    a: int | str = 1,
    bs: int | None = 3,
    s: int = 4,
    ap: int = 0,
    d: int | str = 1,
    rng: float = 24,
) -> Weapon:
    """A plain test weapon carrying the abilities under test."""
    return Weapon.build(
        "Test gun",
        RANGED,
        attacks=a,
        skill=bs,
        strength=s,
        ap=ap,
        damage=d,
        range_in=rng,
        abilities=abilities,
    )
