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
from dataclasses import dataclass
from typing import Any

from server.rules.core import (
    OUT_OF_PHASE,
    Event,
    GameState,
    RuleError,
    fold_all,
    part_of,
    register_folder,
    register_projector,
    with_part,
)

Frame = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Suspended:
    """This module's part of the state: the frames still to resolve, front first, and where
    the next suspended frames go (`at`, see `_fold_suspended`)."""

    frames: tuple[Frame, ...] = ()
    at: int = 0


FrameRunner = Callable[[GameState, Frame, Any], list[Event]]
FRAMES: dict[str, FrameRunner] = {}


def register_frame(kind: str) -> Callable[[FrameRunner], FrameRunner]:
    """Register how the rest of a suspended resolution of `kind` is resolved."""

    def deco(fn: FrameRunner) -> FrameRunner:
        FRAMES[kind] = fn
        return fn

    return deco


def suspended_of(state: GameState) -> tuple[Frame, ...]:
    return part_of(state, Suspended).frames


def is_suspended(events: Sequence[Event]) -> bool:
    """Whether `events` (a resolution's) end waiting for a player (`resolution_suspended`)."""
    return bool(events) and events[-1].type == "resolution_suspended"


def suspension(frame: Frame) -> Event:
    """What a resolution that waits for a player still has to do once the player has acted.
    An enclosing resolution adds its own after it (folded after the inner ones)."""
    return Event("resolution_suspended", {"frames": [dict(frame)], "text": str(frame["text"])})


def suspend_with(events: list[Event], frame: Frame) -> list[Event]:
    """`events` (ending suspended) and then `frame`, the enclosing resolution's rest."""
    return [*events, suspension(frame)]


def refuse_while_suspended(state: GameState, doing: str) -> None:
    """`out_of_phase` while a resolution waits for a player (nothing else starts meanwhile)."""
    frames = suspended_of(state)
    if frames:
        raise RuleError(
            OUT_OF_PHASE,
            f"{doing} waits: a resolution is under way; first {frames[0]['text']}",
            rule="Resolution under way",
        )


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


@register_projector
def _project(state: GameState, viewer: int | None, out: dict[str, Any]) -> None:
    """Everyone sees what waits (`resolution_waiting`, words), only while something does: a
    resolution is suspended only after a public event stopped it (whfb8: the Fanatics'
    release), so a game with nothing to wait for has no such key."""
    frames = suspended_of(state)
    if frames:
        out["resolution_waiting"] = [str(f["text"]) for f in frames]


@register_folder("resolution_suspended")
def _fold_suspended(state: GameState, event: Event) -> GameState:
    """The frames go in at the cursor: after the frames suspended earlier in the same
    resolution (inner ones first), before those still waiting from before it (a frame that
    stops again while resumed puts its rest in front of them)."""
    frames = suspended_of(state)
    at = part_of(state, Suspended).at if frames else 0
    new = tuple(dict(f) for f in event.payload["frames"])
    return with_part(state, Suspended(frames[:at] + new + frames[at:], at + len(new)))


@register_folder("resolution_resumed")
def _fold_resumed(state: GameState, event: Event) -> GameState:
    return with_part(state, Suspended(suspended_of(state)[1:], 0))


__all__ = ["refuse_while_suspended", "register_frame", "resume", "suspend_with", "suspended_of",
           "suspension"]
