"""Each game system's own choices about army lists, found by id.

The system's data package `server.data.<id>` (the folder that also holds its datasheets)
declares ``SYSTEM = SystemData(...)``, a subclass overriding what differs: which characters may
join which units, whether units are ranked (have files), take Standard Bearers, name a Battle
Standard Bearer, and are led by Leaders. The shared army validation (:mod:`server.data.army`)
asks it and never compares ids. The rules engine's registry is :mod:`server.rules.systems`;
this one serves the data layer, which the rules depend on, not the other way round.
"""

from __future__ import annotations

import functools
import importlib
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from server.data.schema import Datasheet

JoinProblem = tuple[str, str]
"""(stable code, human message) of one reason a character may not join a unit."""


@dataclass(frozen=True)
class RosterProfile:
    """One profile a BattleScribe / New Recruit roster prints for a unit: its type ("Unit",
    "Ranged Weapons", "Model", "Defensive"...), its name and its characteristics as printed
    ("M": '6"', "SV": "3+")."""

    type_name: str
    name: str
    characteristics: Mapping[str, str] = field(default_factory=dict)
    source: str = ""
    """The name of the selection that prints it ("Bow (3+)" for the profile "Bow")."""

    def get(self, *names: str) -> str | None:
        """The first characteristic printed under one of ``names`` (case folded)."""
        folded = {key.strip().lower(): value for key, value in self.characteristics.items()}
        for name in names:
            value = folded.get(name.lower())
            if value is not None and value.strip() not in {"", "-", "\u2013", "*"}:
                return value.strip()
        return None


KnownRule = Callable[[str], str | None]
"""The system's printed form of a rule a roster names ("Rapid Fire 1"), or None when the
system's rule list lacks it."""

_INT = re.compile(r"[-+]?\d+")
_DICE = re.compile(r"^(\d*)D(3|6)(?:\s*\+\s*(\d+))?$", re.IGNORECASE)


def roster_int(text: str | None) -> int | None:
    """The number a roster prints: '6"' -> 6, "3+" -> 3, "-1" -> -1; None for "-" or none."""
    if text is None:
        return None
    found = _INT.search(text)
    return int(found.group()) if found else None


def roster_dice(text: str | None) -> int | str | None:
    """A number or a dice roll as the datasheets write it: "2", "D6", "2D6", "D3+1"."""
    if text is None:
        return None
    compact = text.replace(" ", "")
    found = _DICE.match(compact)
    if found:
        count, sides, plus = found.groups()
        return f"{count}D{sides}" + (f"+{plus}" if plus else "")
    return roster_int(text)


@dataclass
class RosterRead:
    """What a system reads from a roster unit's profiles: its datasheet ``profile``, what was
    ``assumed`` because the roster does not say it, and rules kept as text (``(name, text)``,
    not automated) such as weapon keywords the system's rule list lacks."""

    profile: dict[str, Any]
    assumed: list[str] = field(default_factory=list)
    text_rules: list[tuple[str, str]] = field(default_factory=list)
    base: dict[str, Any] | None = None
    """The base, when the roster prints one (BSData's T9A "0 Size" Base "20×20"); else the
    system's :meth:`SystemData.roster_base` is assumed."""


@dataclass(frozen=True)
class RosterUpgrade:
    """One upgrade selection of a roster unit (a weapon, armour, a mount, a magic item): its
    name, the profiles and rules it prints, and the model selection it sits under ("" when the
    unit's own)."""

    name: str
    profiles: tuple[RosterProfile, ...] = ()
    rules: tuple[tuple[str, str], ...] = ()
    carrier: str = ""
    whole_unit: bool = True
    """Every model of the unit carries it (the unit's own, or its carrier selection is all the
    unit's models); else only the ``carrier`` models do."""

    def only_some(self) -> str:
        """Why a change for the whole profile is not made, or "" when every model has it."""
        return "" if self.whole_unit else (f"carried by {self.carrier} only; a change here "
                                           "would apply to every model of the unit")


RuleKind = Callable[[str], str | None]
"""The kind ("equipment", "rule", ...) of a rule on the system's list, or None when the list
lacks it."""


@dataclass
class UpgradeRead:
    """What a system made of a mapped unit's upgrades (issue 18 item 3): the changed
    ``profile`` and ``equipment``, rules gained (printed, on the system's list) or kept as text,
    every change with its source, and every upgrade it could not apply with why."""

    profile: dict[str, Any]
    equipment: list[str]
    special_rules: list[str] = field(default_factory=list)
    text_rules: list[tuple[str, str]] = field(default_factory=list)
    changes: list[dict[str, str]] = field(default_factory=list)
    not_applied: list[dict[str, str]] = field(default_factory=list)
    on_datasheet: list[str] = field(default_factory=list)
    """Upgrades that are the datasheet's own kit already (nothing to change)."""

    def change(self, what: str, was: Any, now: Any, source: str) -> None:
        self.changes.append({"what": what[:120], "was": "" if was is None else str(was)[:200],
                             "now": str(now)[:200], "source": source[:120] or "?"})

    def skip(self, name: str, reason: str) -> None:
        self.not_applied.append({"name": name[:120], "reason": reason})

    def rules_from(self, source: str, words: str | None, known: KnownRule) -> bool:
        """The rules an upgrade prints ("Volley Fire, Unwieldy"): those on the system's list
        join the unit's rules, the others are kept as text. True when any was found."""
        found = False
        for word in split_rules(words):
            printed = known(word)
            if printed:
                if printed not in self.special_rules:
                    self.special_rules.append(printed)
                    self.change("special rule", None, printed, source)
            else:
                self.text_rules.append((rule_label(source, word), word[:1000]))
            found = True
        return found


def rule_label(source: str, word: str) -> str:
    """The name a rule kept as text goes by: "Bow: Volley Fire"; the source alone when the
    roster prints the rule's words rather than its name."""
    return (f"{source}: {word}" if len(word) <= 60 else source)[:80]


def split_rules(words: str | None) -> list[str]:
    """A printed list of rules, comma separated; a sentence (the rule's words, not its name)
    stays whole."""
    text = (words or "").strip()
    if not text or text in {"-", "\u2013"}:
        return []
    if len(text) > 60 or "." in text.rstrip("."):
        return [text]
    return [w.strip() for w in text.split(",") if w.strip()]


def roster_modifier(text: str | None) -> tuple[bool, int] | None:
    """A characteristic an upgrade prints: ``"+2"`` / ``"'+2"`` (BSData/whfb quotes it) ->
    (relative, 2), ``"-1"`` -> (relative, -1), ``"4"`` -> (absolute, 4); None for "As User"
    and the like."""
    if text is None:
        return None
    compact = text.strip().strip("'\u2019\"").replace(" ", "")
    if re.fullmatch(r"[+-]\d+", compact):
        return True, int(compact)
    if re.fullmatch(r"\d+\+?\"?", compact):
        return False, int(re.sub(r"\D", "", compact))
    return None


class RosterProfileError(ValueError):
    """The roster's profiles do not make the system's profile; the message says what lacks."""


@dataclass(frozen=True)
class SystemData(ABC):
    """What a game system's army lists allow, beyond its datasheets."""

    name: str
    """The system's name, as the catalogue lists it."""
    ranked: bool = True
    """Units stand in a ranked formation and may be given `files`."""
    standards: bool = True
    """Units may take a Standard Bearer in their command group."""
    battle_standards: bool = False
    """An army may name one Battle Standard Bearer: a character unit, or a unit with a joined
    character (whfb8)."""
    leaders: bool = False
    """Characters join a unit by leading it (a 40k Leader and its Bodyguard): one per unit."""
    faction_rule: str = "Army Book"
    """The army rule that keeps an army to one faction, as players name it (issue 18 item 1)."""
    allies: bool = False
    """Units of another faction may join the army (allied contingents). When False, every
    catalogue unit of an army shares one faction, refused naming :attr:`faction_rule`."""
    game_sizes: tuple[tuple[str, int], ...] = ()
    """The game sizes an army may be chosen for: (name, points limit), the usual one first."""
    points_rule: str = "Points Limit"
    """The army rule that caps an army's points at the game size, as players name it."""
    wound_name: str = "Wound"
    """What an attack takes from a model, singular, as the rulebook says it (t9a "Health
    Point"; 40k and whfb8 "Wound"): the unit card's words for a wounded model."""
    roster_words: tuple[str, ...] = ()
    """Words in a BattleScribe / New Recruit roster's game system name that say a roster is
    for this system (server/data/rosters.py), lower case."""

    @abstractmethod
    def join_problems(self, unit: Datasheet, character: Datasheet) -> list[JoinProblem]:
        """Why `character` may not join `unit`; [] when it may."""

    @abstractmethod
    def profile_from_roster(
        self, profiles: list[RosterProfile], known: KnownRule
    ) -> RosterRead:
        """The system's datasheet profile from a roster unit's printed profiles (issue 18
        item 3: an unmapped roster unit becomes a unit of your own), what was assumed
        because the roster does not say it, and rules kept as text. Raises
        :class:`RosterProfileError` naming what the roster lacks."""

    @abstractmethod
    def apply_upgrades(
        self,
        profile: dict[str, Any],
        equipment: list[str],
        upgrades: list[RosterUpgrade],
        known: KnownRule,
        kind: RuleKind,
    ) -> UpgradeRead:
        """A catalogue datasheet's ``profile`` (``model_dump``, without ``system``) and
        ``equipment`` (printed) changed by a roster's upgrades: weapons added, characteristics
        set or modified, mounts, armour. ``known`` and ``kind`` ask the system's rule list.
        Anything not applied is in ``not_applied`` with why (issue 18 item 3)."""

    def roster_base(self) -> tuple[dict[str, Any], str]:
        """The base a roster unit of your own is given (rosters print none), and the words
        that tell the player so: a 20 x 20 mm square, the rank-and-flank infantry base."""
        return ({"shape": "rectangular", "width_mm": 20, "depth_mm": 20},
                "base assumed 20 x 20 mm (the roster gives none)")


@functools.cache
def system_data(system: str) -> SystemData:
    """The army-list rules of the system `system` (its package `server.data.<system>`)."""
    module = importlib.import_module(f"{__package__}.{system}")
    found: SystemData = module.SYSTEM
    return found


__all__ = [
    "JoinProblem",
    "KnownRule",
    "RosterProfile",
    "RosterProfileError",
    "RosterRead",
    "RosterUpgrade",
    "RuleKind",
    "UpgradeRead",
    "SystemData",
    "roster_dice",
    "roster_int",
    "roster_modifier",
    "rule_label",
    "split_rules",
    "system_data",
]
