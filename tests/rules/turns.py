"""Walk a deployed game through every phase of every turn (shared by the per-system tests)."""

from __future__ import annotations

from typing import Any

from server.rules.core import Event, GameState
from tests.rules.test_battle import act, new_game


def deployed(system: str, army1: list[dict[str, Any]], army2: list[dict[str, Any]],
             at1: tuple[float, float], at2: tuple[float, float]) -> GameState:
    state = new_game(system)
    state, _ = act(state, 1, type="submit_army", units=army1)
    state, _ = act(state, 2, type="submit_army", units=army2)
    state, _ = act(state, 1, type="deploy_unit", unit="u1", x=at1[0], y=at1[1])
    state, _ = act(state, 2, type="deploy_unit", unit="u2", x=at2[0], y=at2[1], facing=180)
    return state


def walk(state: GameState) -> tuple[GameState, list[tuple[int, int, str]], list[Event]]:
    """End phases until the game is over; (turn, active player, phase) of each phase seen."""
    seen: list[tuple[int, int, str]] = []
    events: list[Event] = []
    while not state.over:
        view = state.to_json()
        seen.append((view["turn"], view["active_player"], view["phase"]))
        state, events = act(state, view["active_player"], type="end_phase")
    return state, seen, events
