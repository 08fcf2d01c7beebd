"""Persistence: the event log and games/seats tables (SQLite by default, PostgreSQL too)."""

from server.store.repository import (
    ActionRecord,
    ConcurrentAppend,
    DuplicateRef,
    EventStore,
    GameExists,
    GameRecord,
    SeatTaken,
    StoreUnavailable,
    make_engine,
    unreachable,
)

__all__ = [
    "ActionRecord",
    "ConcurrentAppend",
    "DuplicateRef",
    "EventStore",
    "GameExists",
    "GameRecord",
    "SeatTaken",
    "StoreUnavailable",
    "make_engine",
    "unreachable",
]
