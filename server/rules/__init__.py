"""The pure rules engine. Importing it registers every action, folder and game system.

Every sub-package of `server.rules` is a game system (`server.rules.<id>`, see
docs/systems.md), except the shared pipelines listed in `SHARED_PACKAGES` (the rank-and-flank
battle, docs/combat-pipeline.md): a system's package registers its `GameSystem` when imported,
before the shared modules; its other modules (its own actions, hooks and folders) are imported
after them. A new system is found here without a change to this file.
"""

import importlib
import pkgutil

SHARED_PACKAGES = frozenset({"rankandflank"})
"""Sub-packages that are shared machinery, not game systems."""


def _system_packages() -> list[str]:
    """The game systems' packages, in a fixed (alphabetical) order."""
    return sorted(
        f"{__name__}.{m.name}"
        for m in pkgutil.iter_modules(__path__)
        if m.ispkg and m.name not in SHARED_PACKAGES
    )


# Registration side effects. Every action and folder is registered exactly once (twice is an
# error), so among the modules below the order does not matter, except that the systems
# register first: the shared rank-and-flank actions exist for the systems that declare its
# rules when they are registered.
for _package in _system_packages():
    importlib.import_module(_package)
from server.rules import battle, endgame, systems, table, units  # noqa: E402, F401, I001
from server.rules import charge, flee, magic, moves, proposals, setup  # noqa: E402, F401, I001
from server.rules.rankandflank import melee, shooting  # noqa: E402, F401, I001
for _package in _system_packages():
    _modules = pkgutil.iter_modules(importlib.import_module(_package).__path__)
    for _name in sorted(m.name for m in _modules):
        importlib.import_module(f"{_package}.{_name}")
from server.rules.core import (  # noqa: E402
    Event,
    GameState,
    RuleError,
    decide,
    fold,
    fold_all,
    replay,
)

__all__ = ["Event", "GameState", "RuleError", "decide", "fold", "fold_all", "replay"]
