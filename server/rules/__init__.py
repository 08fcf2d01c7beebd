"""The pure rules engine. Importing it registers every action, folder and game system."""

from server.rules import systems, table  # noqa: F401  (registration side effects)
from server.rules.core import (
    Event,
    GameState,
    RuleError,
    decide,
    fold,
    fold_all,
)

__all__ = ["Event", "GameState", "RuleError", "decide", "fold", "fold_all"]
