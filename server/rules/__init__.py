"""The pure rules engine. Importing it registers every action, folder and game system."""

# Registration side effects; `battle` before `endgame`, whose registrations are fallbacks.
from server.rules import t9a, wh40k10, whfb8  # noqa: F401, I001  (systems register first)
from server.rules import battle, systems, table, units  # noqa: F401, I001
from server.rules import charge, flee, moves, proposals, setup  # noqa: F401, I001
from server.rules.rankandflank import melee, shooting  # noqa: F401, I001  (after the systems)
from server.rules.t9a import ambush, magic  # noqa: F401, I001
from server.rules import endgame  # noqa: F401
from server.rules.core import (
    Event,
    GameState,
    RuleError,
    decide,
    fold,
    fold_all,
    replay,
)

__all__ = ["Event", "GameState", "RuleError", "decide", "fold", "fold_all", "replay"]
