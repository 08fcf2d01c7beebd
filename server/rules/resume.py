"""Resolutions that wait for a player part-way, then go on (whfb8: a flee stopped at 8 in of
concealing Night Goblins waits for their owner's `release_fanatic`, seed 003).

A resolution that must stop for a player's choice (a flee as a Charge Reaction, halted so the
Fanatics can be released) records what remains of it in the state, in order, as **frames**:
JSON dicts with a `kind` and everything the rest needs (the dice already rolled, such as the
Flee Distance, are in the frame: the rest never rolls them again). Each enclosing resolution
adds its own frame after the inner ones (`suspend_with`), so one `resolution_suspended` event holds
the whole remainder: e.g. [the rest of the flee, the charge against the fleeing unit]. When the
player's choices are done, `resume` runs the frames front first (`resolution_resumed` takes one
off), each with the state as it then stands and the game's dice stream where it then is; a
frame that stops again puts its own remainder in front of the frames still waiting.

Pure: no I/O; a frame's `kind` names a function registered with `register_frame`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from server.rules.core import Event, GameState, fold_all, register_folder
from server.rules.units import _set

SUSPENDED = "suspended"
"""state.extra key: the frames still to resolve, front first."""

Frame = Mapping[str, Any]
FrameRunner = Callable[[GameState, Frame, Any], list[Event]]
FRAMES: dict[str, FrameRunner] = {}


def register_frame(kind: str) -> Callable[[FrameRunner], FrameRunner]:
    """Register how the rest of a suspended resolution of `kind` is resolved."""

    def deco(fn: FrameRunner) -> FrameRunner:
        FRAMES[kind] = fn
        return fn

    return deco


def suspended_of(state: GameState) -> tuple[Frame, ...]:
    return tuple(state.extra.get(SUSPENDED, ()))


def is_suspended(events: Sequence[Event]) -> bool:
    """Whether `events` (a resolution's) end waiting for a player (`resolution_suspended`)."""
    return bool(events) and events[-1].type == "resolution_suspended"


def suspend_with(events: list[Event], frame: Frame) -> list[Event]:
    """`events` with `frame` (what the enclosing resolution still has to do) added after the
    frames of the `resolution_suspended` they end with, or a new one when they do not."""
    if is_suspended(events):
        frames = [*events[-1].payload["frames"], dict(frame)]
        head = events[:-1]
        actor = events[-1].actor
    else:
        frames, head, actor = [dict(frame)], events, "system"
    text = "Then: " + "; then ".join(str(f["text"]) for f in frames)
    return [*head, Event("resolution_suspended", {"frames": frames, "text": text}, actor=actor)]


def resume(state: GameState, dice: Any, waiting: Callable[[GameState], bool]) -> list[Event]:
    """Run the waiting frames in order while nothing waits for a player (`waiting`), each on
    the state as the previous left it; stops when one of them waits again."""
    events: list[Event] = []
    while suspended_of(state) and not waiting(state):
        frame = suspended_of(state)[0]
        step = [Event("resolution_resumed", {"kind": frame["kind"], "text": frame["text"]})]
        state = fold_all(state, step)
        step += FRAMES[str(frame["kind"])](state, frame, dice)
        state = fold_all(state, step[1:])
        events += step
    return events


@register_folder("resolution_suspended")
def _fold_suspended(state: GameState, event: Event) -> GameState:
    frames = tuple(dict(f) for f in event.payload["frames"])
    return _set(state, **{SUSPENDED: frames + suspended_of(state)})


@register_folder("resolution_resumed")
def _fold_resumed(state: GameState, event: Event) -> GameState:
    rest = suspended_of(state)[1:]
    if rest:
        return _set(state, **{SUSPENDED: rest})
    return _set(state, **{SUSPENDED: ()})


__all__ = ["register_frame", "resume", "suspend_with", "suspended_of"]
