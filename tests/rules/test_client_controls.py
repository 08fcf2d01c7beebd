"""A rule is done when a player can trigger it in the client (docs: STYLE.md, "engine features
players cannot reach"). Every registered action that applies an automated rule — its handler,
or a function its handler calls by name, is declared with `handled_by` in a system's
automated.py (server/rules/automation.py) — must be named by the browser client in static/js,
which sends it as `{type: '<action>'}`. The few the client never sends are listed with the reason.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import server.rules  # noqa: F401  (every system's declarations)
from server.rules.automation import rule_marks
from server.rules.core import ACTIONS
from server.rules.systems import SYSTEMS

CLIENT = Path(__file__).resolve().parents[2] / "static" / "js"

NOT_SENT_BY_THE_CLIENT: dict[str, str] = {
    "random_move": "a released Fanatic (the only whfb8 unit with Random Movement) makes its "
    "compulsory move by itself in its player's Movement phase (whfb8/fanatics.py, Compulsory "
    "Moves); the action only lets a player choose when, which the client leaves to the server",
}
"""Automated actions the client does not send, each with why (a stale entry fails the test)."""


def _declared() -> set[str]:
    """`module.qualname` of every function declared as applying an automated rule."""
    return {handler for system in SYSTEMS for marks in rule_marks(system).values()
            for handler in marks["handlers"]}


def automated_actions() -> dict[str, list[str]]:
    """Action type -> the declared handlers it runs (itself, or called from its body)."""
    declared = _declared()
    found: dict[str, list[str]] = {}
    for name, spec in ACTIONS.items():
        fn = inspect.unwrap(spec.handler)
        names = [f"{fn.__module__}.{fn.__qualname__}"]
        for called in fn.__code__.co_names:
            obj = fn.__globals__.get(called)
            if callable(obj) and hasattr(obj, "__qualname__"):
                names.append(f"{getattr(obj, '__module__', '')}.{obj.__qualname__}")
        hits = [n for n in names if n in declared]
        if hits:
            found[name] = hits
    return found


def client_source() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(CLIENT.rglob("*.js")))


def _named(source: str, action: str) -> bool:
    return re.search(rf"""['"]{re.escape(action)}['"]""", source) is not None


def test_the_walk_finds_the_automated_actions_of_every_system() -> None:
    found = automated_actions()
    # one of each system's, so an empty walk (a broken import) cannot pass
    assert {"arrive_from_ambush", "release_fanatic", "roar_of_mork"} <= set(found)


def test_every_automated_action_has_a_control_in_the_client() -> None:
    source = client_source()
    missing = sorted(a for a in automated_actions()
                     if a not in NOT_SENT_BY_THE_CLIENT and not _named(source, a))
    assert missing == [], f"automated actions no client control sends: {missing}"


def test_the_actions_the_client_does_not_send_are_automated_and_really_unsent() -> None:
    found = automated_actions()
    source = client_source()
    for action, why in NOT_SENT_BY_THE_CLIENT.items():
        assert action in found, f"{action} is not an automated action: drop it from the list"
        assert not _named(source, action), f"the client sends {action} now: drop it from the list"
        assert why
