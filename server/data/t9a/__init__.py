"""The 9th Age's army-list rules (the datasheets are this folder's YAML files)."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

from server.data.army import SKIRMISH_HEIGHT, SUPERNAL_JOIN
from server.data.schema import Datasheet
from server.data.systems import (
    JoinProblem,
    KnownRule,
    RosterProfile,
    RosterProfileError,
    RosterRead,
    RosterUpgrade,
    RuleKind,
    SystemData,
    UpgradeRead,
    roster_dice,
    roster_int,
    roster_modifier,
    rule_label,
    split_rules,
)

AIM_IN_NAME = re.compile(r"\((\d)\+\)")
"""BSData's T9A catalogues print a weapon's Aim in its name: "Bow (3+)", "Longbow (4+)"."""
ASSUMED_AIM = 4
BASE_SIZE = re.compile(r"(\d+)\s*[x\u00d7X*]\s*(\d+)")
"""BSData's T9A "0 Size" Base, width by depth in millimetres: "20×20", "25x50"."""


def _characteristic(printed: str | None, user: int) -> int | None:
    """A weapon's Str or AP as printed: a number, "+N" on the wielder's, "As User"."""
    if printed is None:
        return None
    read = roster_modifier(printed)
    if read is None:
        return user if "user" in printed.lower() else None
    relative, value = read
    return max(0, min(10, user + value if relative else value))


def shooting_weapon(
    p: RosterProfile, source: str, part: dict[str, Any], known: KnownRule
) -> tuple[dict[str, Any] | None, list[str], list[tuple[str, str]]]:
    """A shooting weapon from BSData's "6 Ranged Weapon" profile (Range, Shots, Str, AP,
    Attributes): the weapon, what was assumed, and its attributes the rule list lacks (text).
    "As User" takes the wielder's (``part``) Strength / Armour Penetration; the Aim comes from
    an Aim characteristic, else the "(N+)" in the weapon's or the selection's name, else 4+
    (assumed, said so). None when the profile has no range."""
    reach = roster_int(p.get("Range"))
    if reach is None or reach <= 0:
        return None, [], []
    assumed: list[str] = []
    aim = roster_int(p.get("Aim"))
    if aim is None:
        found = (AIM_IN_NAME.search(p.name) or AIM_IN_NAME.search(source)
                 or AIM_IN_NAME.search(p.source))
        aim = int(found.group(1)) if found else None
    if aim is None or not 2 <= aim <= 6:
        aim = ASSUMED_AIM
        assumed.append(f"{p.name}: Aim assumed {ASSUMED_AIM}+ (the roster prints none)")
    strength = _characteristic(p.get("Str"), int(part.get("strength") or 0))
    piercing = _characteristic(p.get("AP"), int(part.get("armour_penetration") or 0))
    name = AIM_IN_NAME.sub("", p.name).strip() or p.name
    rules: list[str] = []
    text: list[tuple[str, str]] = []
    for word in split_rules(p.get("Attributes", "Rules")):
        printed = known(word)
        if printed:
            rules.append(printed)
        else:
            text.append((rule_label(name, word), word[:1000]))
    weapon = {"name": name[:80], "range_in": reach, "shots": roster_dice(p.get("Shots")) or 1,
              "aim": aim, "strength": strength if strength is not None else 0,
              "armour_penetration": piercing or 0, "special_rules": rules}
    if strength is None:
        assumed.append(f"{p.name}: Strength unreadable ({p.get('Str')!r}); 0 kept")
    return weapon, assumed, text


@dataclass(frozen=True)
class NinthAgeData(SystemData):
    def join_problems(self, unit: Datasheet, character: Datasheet) -> list[JoinProblem]:
        """Supernal both ways and Skirmisher height (seed 000: Supernal, Skirmisher)."""
        found = []
        unit_supernal = unit.has_rule("Supernal")
        char_supernal = character.has_rule("Supernal")
        if char_supernal and not unit_supernal:
            found.append(
                (
                    SUPERNAL_JOIN,
                    f"{character.name} has Supernal and can only join units containing "
                    f"Supernal; {unit.name} has none",
                )
            )
        if unit_supernal and not char_supernal:
            found.append(
                (
                    SUPERNAL_JOIN,
                    f"{unit.name} contains Supernal and can only be joined by Supernal "
                    f"characters; {character.name} is not",
                )
            )
        if unit.has_rule("Skirmisher") and character.height_class != unit.height_class:
            found.append(
                (
                    SKIRMISH_HEIGHT,
                    f"{unit.name} is in Skirmish Formation and can only be joined by models of "
                    f"its Height ({unit.height_class}); {character.name} is "
                    f"{character.height_class}",
                )
            )
        return found

    def profile_from_roster(
        self, profiles: list[RosterProfile], known: KnownRule
    ) -> RosterRead:
        """The 2nd-edition characteristics as the army books print them, in whichever
        profiles a roster holds them: Global (Adv, Mar, Dis), Defensive (HP, Def, Res, Arm,
        Aeg) and Offensive (Att, Off, Str, AP, Agi), one model part per Offensive line.
        Height, Type and Base from characteristics of those names (BSData's "0 Size"), else
        assumed and said so. Shooting weapons from "6 Ranged Weapon" profiles
        (:func:`shooting_weapon`). BSData's profile type names carry a number ("1 Global",
        "2 Defensive"...); they are read by their characteristics, whatever the type is
        called."""
        glob: dict[str, int | None] = {}
        defensive: dict[str, int | None] = {}
        offensive: list[dict[str, Any]] = []
        height, kind = None, None
        read = RosterRead({})
        shooters: list[RosterProfile] = []
        for p in profiles:
            if not glob and p.get("Adv") is not None:
                glob = {"advance_rate": roster_int(p.get("Adv")),
                        "march_rate": roster_int(p.get("Mar")),
                        "discipline": roster_int(p.get("Dis"))}
            if not defensive and p.get("HP") is not None:
                defensive = {"health_points": roster_int(p.get("HP")),
                             "defensive_skill": roster_int(p.get("Def")),
                             "resilience": roster_int(p.get("Res")),
                             "armour": roster_int(p.get("Arm")) or 0}
                aegis = roster_int(p.get("Aeg", "Aegis"))
                if aegis is not None:
                    defensive["aegis"] = aegis
            if p.get("Att") is not None and p.get("Off") is not None:
                offensive.append({"name": p.name, "attacks": roster_dice(p.get("Att")),
                                  "offensive_skill": roster_int(p.get("Off")),
                                  "strength": roster_int(p.get("Str")),
                                  "armour_penetration": roster_int(p.get("AP")) or 0,
                                  "agility": roster_int(p.get("Agi"))})
            height = height or p.get("Height")
            kind = kind or p.get("Type")
            size = BASE_SIZE.search(p.get("Base") or "")
            if size and read.base is None:
                read.base = {"shape": "rectangular", "width_mm": int(size.group(1)),
                             "depth_mm": int(size.group(2))}
            if p.get("Range") is not None:
                shooters.append(p)
        lacking = [name for name, part in (("Global (Adv, Mar, Dis)", glob),
                                           ("Defensive (HP, Def, Res, Arm)", defensive),
                                           ("Offensive (Att, Off, Str, AP, Agi)", offensive))
                   if not part]
        if lacking:
            raise RosterProfileError("the roster prints no " + ", ".join(lacking))
        heights = {"Standard", "Large", "Gigantic"}
        kinds = {"Infantry", "Beast", "Cavalry", "Construct", "Swarm"}
        height_read, kind_read = (height or "").title(), (kind or "").title()
        if height_read not in heights:
            height_read = "Standard"
            read.assumed.append("height assumed Standard (the roster names none)")
        if kind_read not in kinds:
            kind_read = "Infantry"
            read.assumed.append("type assumed Infantry (the roster names none)")
        shooting: list[dict[str, Any]] = []
        for p in shooters:
            weapon, assumed, text = shooting_weapon(p, p.name, offensive[0], known)
            if weapon is None or any(w["name"] == weapon["name"] for w in shooting):
                continue
            shooting.append(weapon)
            read.assumed += assumed
            read.text_rules += text
        read.profile = {"height": height_read, "type": kind_read,
                        "global_characteristics": glob, "defensive": defensive,
                        "offensive": offensive, "shooting": shooting}
        return read

    def apply_upgrades(
        self,
        profile: dict[str, Any],
        equipment: list[str],
        upgrades: list[RosterUpgrade],
        known: KnownRule,
        kind: RuleKind,
    ) -> UpgradeRead:
        """BSData's T9A upgrades: equipment on the rule list (Shield, Heavy Armour, Spear,
        Lance...) joins the unit's equipment, which the engine applies (server/rules/t9a/
        profiles.py), so its profile is not added again; otherwise "6 Ranged Weapon" adds a
        shooting weapon, "5 Melee Weapon" Str/AP ("+2") change the wielding model part's
        Strength / Armour Penetration, "4 Armour" Save ("+1") the Armour, "3 Offensive" adds a
        model part (a mount), "2 Defensive" / "1 Global" / "0 Size" set the values they print.
        The wielder is the model part named like the model selection the upgrade sits under,
        else the first."""
        read = UpgradeRead(copy.deepcopy(profile), list(equipment))
        p = read.profile
        parts: list[dict[str, Any]] = p["offensive"]
        for up in upgrades:
            before = len(read.changes)
            carrier = up.carrier.lower()
            part = next((x for x in parts if carrier and carrier in x["name"].lower()), None)
            if up.only_some():  # a profile holds no weapon per model: all or nothing
                read.skip(up.name, up.only_some())
                continue
            part = part or parts[0]
            if kind(up.name) == "equipment":
                printed = known(up.name) or up.name
                if printed not in read.equipment:
                    read.equipment.append(printed)
                    read.change("equipment", None, printed, up.name)
                continue
            for prof in up.profiles:
                self._apply_profile(read, prof, up, part, known)
            for name, _text in up.rules:
                read.rules_from(up.name, name, known)
            if len(read.changes) == before:
                read.skip(up.name, "prints no characteristic this table applies")
        return read

    def _apply_profile(
        self, read: UpgradeRead, prof: RosterProfile, up: RosterUpgrade,
        part: dict[str, Any], known: KnownRule,
    ) -> None:
        p = read.profile
        if prof.get("Range") is not None:
            weapon, assumed, text = shooting_weapon(prof, up.name, part, known)
            if weapon is None:
                return
            if any(w["name"] == weapon["name"] for w in p["shooting"]):
                return
            p["shooting"].append(weapon)
            read.change("shooting weapon", None,
                        f"{weapon['name']} {weapon['range_in']}\" Str {weapon['strength']} "
                        f"AP {weapon['armour_penetration']} Aim {weapon['aim']}+", up.name)
            read.text_rules += text
            read.not_applied += [{"name": up.name, "reason": note} for note in assumed]
            return
        if prof.get("Att") is not None and prof.get("Off") is not None:
            mount = {"name": prof.name[:80], "attacks": roster_dice(prof.get("Att")),
                     "offensive_skill": roster_int(prof.get("Off")),
                     "strength": roster_int(prof.get("Str")),
                     "armour_penetration": roster_int(prof.get("AP")) or 0,
                     "agility": roster_int(prof.get("Agi"))}
            if any(v is None for v in mount.values()):
                read.skip(up.name, f"{prof.name}: its Offensive profile is incomplete")
                return
            p["offensive"].append(mount)
            read.change("model part", None, f"{mount['name']} Att {mount['attacks']} Off "
                        f"{mount['offensive_skill']} Str {mount['strength']} AP "
                        f"{mount['armour_penetration']} Agi {mount['agility']}", up.name)
            return
        sets = (("defensive", (("HP", "health_points"), ("Def", "defensive_skill"),
                               ("Res", "resilience"), ("Arm", "armour"))),
                ("global_characteristics", (("Adv", "advance_rate"), ("Mar", "march_rate"),
                                            ("Dis", "discipline"))))
        for group, names in sets:
            if prof.get(names[0][0]) is not None:
                for printed, key in names:
                    value = roster_int(prof.get(printed))
                    if value is not None and value != p[group].get(key):
                        read.change(printed, p[group].get(key), value, up.name)
                        p[group][key] = value
                return
        if prof.get("Save") is not None:
            mod = roster_modifier(prof.get("Save"))
            if mod is None:
                read.skip(up.name, f"Save {prof.get('Save')!r} is not a number or +N")
                return
            was = p["defensive"]["armour"]
            now = max(0, min(6, was + mod[1] if mod[0] else mod[1]))
            p["defensive"]["armour"] = now
            read.change("Arm", was, now, up.name)
            read.rules_from(up.name, prof.get("Rules"), known)
            return
        if prof.get("Str") is not None or prof.get("AP") is not None:
            for printed, key in (("Str", "strength"), ("AP", "armour_penetration")):
                value = _characteristic(prof.get(printed), int(part[key]))
                if value is not None and value != part[key]:
                    read.change(f"{printed} ({part['name']})", part[key], value, up.name)
                    part[key] = value
            read.rules_from(up.name, prof.get("Attributes"), known)
            return
        words = prof.get("Effect")  # "7 Artefact": words only, kept as text on the unit
        if words:
            read.text_rules.append((up.name[:80], words[:1000]))
            return
        height, kind_ = (prof.get("Height") or "").title(), (prof.get("Type") or "").title()
        if height in {"Standard", "Large", "Gigantic"} and height != p["height"]:
            read.change("Height", p["height"], height, up.name)
            p["height"] = height
        if kind_ in {"Infantry", "Beast", "Cavalry", "Construct", "Swarm"} and kind_ != p["type"]:
            read.change("Type", p["type"], kind_, up.name)
            p["type"] = kind_


SYSTEM = NinthAgeData(
    name="The 9th Age",
    # An army is drawn from one Army Book; T9A's usual game is 4,500 points
    # (docs/rules-decisions.md "Army lists").
    faction_rule="Army Book",
    game_sizes=(("Standard", 4500),),
    points_rule="Army Points",
    wound_name="Health Point",
    roster_words=("9th age", "ninth age", "t9a"),
)
