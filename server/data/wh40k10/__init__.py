"""Warhammer 40,000 10th edition's army-list rules (the datasheets are this folder's YAML
files): units are placed model by model (no files), have no command groups (no Standard
Bearers), and a Leader attaches to one of the Bodyguard units its datasheet lists (seed 004)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from server.data.army import LEADER_CANNOT_LEAD
from server.data.schema import Datasheet
from server.data.systems import (
    JoinProblem,
    KnownRule,
    RosterProfile,
    RosterProfileError,
    RosterRead,
    SystemData,
    roster_dice,
    roster_int,
)

KEYWORD_AS_TEXT = "a weapon keyword from the roster, not on this system's rule list"


@dataclass(frozen=True)
class Warhammer40kData(SystemData):
    def join_problems(self, unit: Datasheet, character: Datasheet) -> list[JoinProblem]:
        """A Leader attaches only to a Bodyguard unit its datasheet lists (seed 004)."""
        if unit.id in character.leads:
            return []
        return [
            (
                LEADER_CANNOT_LEAD,
                f"{character.name} can lead {', '.join(character.leads)}; not {unit.name}",
            )
        ]

    def profile_from_roster(
        self, profiles: list[RosterProfile], known: KnownRule
    ) -> RosterRead:
        """BSData's 10th-edition profiles: "Unit" (M, T, SV, W, LD, OC), "Ranged Weapons"
        (Range, A, BS, S, AP, D, Keywords), "Melee Weapons" (the same with WS). Weapon
        keywords the rule list lacks are left out and said so."""
        models: list[dict[str, Any]] = []
        weapons: dict[str, dict[str, Any]] = {}
        read = RosterRead({})
        for p in profiles:
            kind = p.type_name.strip().lower()
            if kind in {"unit", "model"}:
                stats = {key: roster_int(p.get(key)) for key in ("M", "T", "SV", "W", "LD", "OC")}
                if any(value is None for value in stats.values()):
                    continue
                models.append({"name": p.name, "M": stats["M"], "T": stats["T"],
                               "Sv": stats["SV"], "W": stats["W"], "Ld": stats["LD"],
                               "OC": stats["OC"]})
            elif kind in {"ranged weapons", "melee weapons"} and p.name not in weapons:
                ranged = kind.startswith("ranged")
                skill = roster_int(p.get("BS" if ranged else "WS"))
                weapon: dict[str, Any] = {
                    "name": p.name, "type": "ranged" if ranged else "melee",
                    "A": roster_dice(p.get("A")), "S": roster_int(p.get("S")),
                    "AP": roster_int(p.get("AP")) or 0, "D": roster_dice(p.get("D")),
                }
                if ranged:
                    weapon.update(range_in=roster_int(p.get("Range")), BS=skill)
                else:
                    weapon["WS"] = skill
                if any(weapon[k] is None for k in weapon):
                    read.assumed.append(f"{p.name} left out: its profile is incomplete")
                    continue
                keywords: list[str] = []
                unknown: list[str] = []
                for word in (p.get("Keywords") or "").split(","):
                    if word.strip():
                        printed = known(word.strip())
                        (keywords if printed else unknown).append(printed or word.strip())
                weapon["keywords"] = keywords
                read.text_rules += [(f"{p.name}: {word}", KEYWORD_AS_TEXT) for word in unknown]
                weapons[p.name] = weapon
        if not models:
            raise RosterProfileError(
                "the roster prints no Unit profile with M, T, SV, W, LD and OC")
        read.profile = {"models": models, "weapons": list(weapons.values())}
        return read

    def roster_base(self) -> tuple[dict[str, Any], str]:
        return ({"shape": "round", "diameter_mm": 32},
                "base assumed 32 mm round (the roster gives none)")


SYSTEM = Warhammer40kData(
    name="Warhammer 40,000 (10th edition)",
    ranked=False,
    standards=False,
    leaders=True,
    # Muster Your Army: every unit shares the army's Faction keyword; the Battle Size sets the
    # points (Incursion 1,000, Strike Force 2,000, Onslaught 3,000).
    faction_rule="Faction keyword",
    game_sizes=(("Strike Force", 2000), ("Incursion", 1000), ("Onslaught", 3000)),
    points_rule="Battle Size",
    roster_words=("40,000", "40000", "40k"),
)
