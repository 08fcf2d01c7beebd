"""Which special rules the engine automates, as the code declares it (issue 17 item 4).

A rule is automated because a handler names it, not because a data file says so: each system
lists, in `server/rules/<id>/automated.py`, the rules its code applies with `handled_by(system,
rule, handler, does, lacks=...)`, where `handler` is the function object that applies it
(an import, so a handler that is renamed or removed breaks the declaration, not the card).
`does` says in players' words what the handler does; `lacks` what part of the rule it leaves
to the players, if any.

From these declarations, and only from them, the unit card's marks are made:

* **automated**: at least one handler names the rule and none leaves a part out;
* **partly**: handlers name the rule and one of them says what it lacks ("Automated: ...;
  Not automated: ...");
* **not**: no handler names it.

`server/data/<id>/rules.yaml` keeps its `automated` field (and `notes` for a partly automated
rule) as the declared expectation: tests/rules/test_automation_marks.py fails when a mark there
and the code disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from server.data import load_catalog

Mark = Literal["automated", "partly", "not"]


@dataclass(frozen=True)
class Handling:
    """One handler applying (part of) one rule of one system."""

    system: str
    rule: str
    handler: str
    """`module.function` of the code that applies it."""
    does: str
    lacks: str | None = None


_HANDLED: dict[tuple[str, str], list[Handling]] = {}


def handled_by(
    system: str, rule: str, handler: Callable[..., Any] | type, does: str, lacks: str | None = None
) -> None:
    """Declare that `handler` applies the rule called `rule` of `system` (`does`), leaving
    `lacks` to the players. Raises ValueError for a rule the system's rules.yaml does not know."""
    names = {r.name for r in load_catalog().rules(system)}
    if rule not in names:
        raise ValueError(f"{system}: {rule!r} is not in its rules.yaml")
    where = f"{handler.__module__}.{handler.__qualname__}"
    entry = Handling(system, rule, where, does, lacks)
    found = _HANDLED.setdefault((system, rule), [])
    if entry not in found:
        found.append(entry)


def handlings(system: str, rule: str) -> list[Handling]:
    """The handlers that name `rule` of `system`, in declaration order."""
    return list(_HANDLED.get((system, rule), ()))


def mark(system: str, rule: str) -> Mark:
    """automated / partly / not, from the handlers that name the rule."""
    found = handlings(system, rule)
    if not found:
        return "not"
    return "partly" if any(h.lacks for h in found) else "automated"


def card_note(system: str, rule: str) -> str | None:
    """What a partly automated rule's card says: the parts automated and the parts not."""
    found = handlings(system, rule)
    lacking = [h.lacks for h in found if h.lacks]
    if not lacking:
        return None
    does = "; ".join(dict.fromkeys(h.does for h in found))
    return f"Automated: {does}. Not automated: {'; '.join(dict.fromkeys(lacking))}."


def not_automated(system: str, datasheet_id: str) -> list[str]:
    """Printed forms of the datasheet's rules no handler names (the card's "not automated")."""
    sheet = load_catalog().get(system, datasheet_id)
    printed = (r.printed for r in sheet.all_rules() if mark(system, r.name) == "not")
    return list(dict.fromkeys(printed))


def partly_automated(system: str, datasheet_id: str) -> dict[str, str]:
    """Printed forms of the datasheet's partly automated rules, with what is and is not."""
    sheet = load_catalog().get(system, datasheet_id)
    out: dict[str, str] = {}
    for r in sheet.all_rules():
        note = card_note(system, r.name)
        if note is not None:
            out.setdefault(r.printed, note)
    return out


def rule_marks(system: str) -> Mapping[str, dict[str, Any]]:
    """Every rule of `system` by name: its mark, the card note and the handlers naming it."""
    return {
        r.name: {
            "automation": mark(system, r.name),
            "automated": mark(system, r.name) != "not",
            "notes": card_note(system, r.name),
            "handlers": [h.handler for h in handlings(system, r.name)],
        }
        for r in load_catalog().rules(system)
    }
