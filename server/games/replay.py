"""Replays: the state of a game at any seq of its log, folded once forward, with checkpoints.

There is one fold, `core.replay`: the state at seq N is `core.replay(log[:N])` (the events up
to N, an agreed undo among them honoured exactly as it was when it happened). A viewer sees
that state through its projection, `GameState.to_json(viewer)`: the very projection the
viewer was shown live at seq N, so a secret stays a secret until the game revealed it.

`Replay` keeps a game's log and the state every `every` events (a checkpoint); the state at N
is the nearest usable checkpoint at or before N folded forward over at most `every` events. A
checkpoint C is usable for N unless an undo between C and N takes back an event at or before C
(then an earlier checkpoint is used). The checkpoints are made once, by folding the whole log
forward; a running game's newer events extend them.

Pure: values in, values out (the service reads the log and keeps one `Replay` per game).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from server.rules import core
from server.rules.core import UNDO_EVENT, Event, GameState

HOST: Final = "host"
"""The viewer who sees every event, hidden ones included (a host export, the CLI)."""
Viewer = int | None | Literal["host"]
"""Who reads a log: a seat, None for a spectator, or HOST."""

CHECKPOINT_EVERY = 32
"""Events between two checkpoints: a scrub folds at most this many events."""


@dataclass(frozen=True, slots=True)
class Step:
    """Where in the game one event happened: the turn, player and phase after it."""

    seq: int
    stage: str
    turn: int | None
    player: int | None
    phase: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "stage": self.stage,
            "turn": self.turn,
            "player": self.player,
            "phase": self.phase,
        }


def step_of(state: GameState) -> Step:
    """The public turn, active player and phase of `state` (what a scrubber's timeline shows)."""
    battle = state.battle
    return Step(
        state.seq,
        "over" if state.over else battle.stage,
        battle.turn,
        battle.active_player,
        battle.phase,
    )


class Replay:
    """A game's log with its states every `every` events (module text)."""

    def __init__(self, events: Sequence[Event] = (), every: int = CHECKPOINT_EVERY) -> None:
        if every < 1:
            raise ValueError("checkpoints need every >= 1")
        self.every = every
        self.events: list[Event] = []
        self.steps: list[Step] = []
        self._checkpoints: dict[int, GameState] = {0: GameState()}
        self._state = GameState()
        self.folds = 0  # events folded so far (forward pass and scrubs), for the bench
        self.extend(events)

    @property
    def seq(self) -> int:
        """The last seq of the log held."""
        return self.events[-1].seq if self.events else 0

    @property
    def state(self) -> GameState:
        """The state at the last seq (the game's live state)."""
        return self._state

    def extend(self, events: Sequence[Event]) -> None:
        """Fold the log's next events in (they must follow on from `seq`)."""
        for event in events:
            if event.seq != self.seq + 1:
                raise ValueError(f"event seq {event.seq} does not follow seq {self.seq}")
            self.events.append(event)
            if event.type == UNDO_EVENT:
                self._state = self._fold_from_checkpoint(event.seq)
            else:
                self._state = core.fold(self._state, event)
                self.folds += 1
            if event.seq % self.every == 0:
                self._checkpoints[event.seq] = self._state
            self.steps.append(step_of(self._state))

    def state_at(self, seq: int) -> GameState:
        """`core.replay(log[:seq])`, from the nearest usable checkpoint."""
        if not 0 <= seq <= self.seq:
            raise ValueError(f"seq {seq} is outside the log (0..{self.seq})")
        if seq == self.seq:
            return self._state
        return self._fold_from_checkpoint(seq)

    def _fold_from_checkpoint(self, seq: int) -> GameState:
        prefix = self.events[:seq]
        undone = core.undone_seqs(e for e in prefix if e.type == UNDO_EVENT)
        start = self._usable_checkpoint(seq, prefix)
        state = self._checkpoints[start]
        for event in prefix[start:]:
            if event.seq not in undone:
                state = core.fold(state, event)
                self.folds += 1
        return state

    def _usable_checkpoint(self, seq: int, prefix: Sequence[Event]) -> int:
        """The latest checkpoint C <= seq that no undo in (C, seq] reaches back past."""
        start = (seq // self.every) * self.every
        while start > 0:
            if start in self._checkpoints and not any(
                e.type == UNDO_EVENT and any(int(s) <= start for s in e.payload.get("seqs", ()))
                for e in prefix[start:seq]
            ):
                return start
            start -= self.every
        return 0


def timeline(replay: Replay, viewer: int | None) -> list[dict[str, Any]]:
    """Each event of the log as `viewer` may see it, with the turn, player and phase after it
    (a hidden event keeps its seq and place in the game, not its type or payload)."""
    out = []
    for event, step in zip(replay.events, replay.steps, strict=True):
        wire = event.to_wire(viewer)
        out.append({**step.to_json(), "type": wire["type"], "actor": wire["actor"]})
    return out
