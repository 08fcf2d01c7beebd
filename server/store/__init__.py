"""Persistence: the event log and games/seats tables (SQLite by default, PostgreSQL too)."""

from server.store.repository import (
    ActionRecord,
    ConcurrentAppend,
    DuplicateRef,
    EventStore,
    GameExists,
    GameRecord,
    SeatTaken,
    make_engine,
)

__all__ = [
    "ActionRecord",
    "ConcurrentAppend",
    "DuplicateRef",
    "EventStore",
    "GameExists",
    "GameRecord",
    "SeatTaken",
    "make_engine",
]
