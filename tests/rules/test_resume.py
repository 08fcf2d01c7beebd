"""Suspended resolutions (server/rules/resume.py; issue 15 item 2, the Fanatic page
../shared/seeds/003_39e99837749f8d9d.txt: "The moving unit stops immediately ... Once the
Fanatic's movement has been resolved, the unit can continue moving"): what is left of a
resolution runs in order once the player has acted, and a part that waits again puts its own
rest before the parts still waiting."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from server.rules import core, resume
from server.rules.core import Event, GameState


@dataclass(frozen=True)
class Steps:
    """The test's own part of the state: the steps done, and whether the last one waits."""

    done: tuple[str, ...] = ()
    wait: bool = False


@pytest.fixture
def steps() -> Iterator[None]:
    """Test-only frames: `t_outer` waits again (a player must act: `wait`) with two inner
    frames; `t_plain` and the inner ones each record their name (`test_step`)."""

    def step(state: GameState, event: Event) -> GameState:
        done = (*core.part_of(state, Steps).done, event.payload["name"])
        return core.with_part(state, Steps(done, event.payload["wait"]))

    def outer(state: GameState, frame: Any, dice: Any) -> list[Event]:
        return [Event("test_step", {"name": "outer", "wait": True}),
                resume.suspension({"kind": "t_plain", "name": "inner 1", "text": "inner 1"}),
                resume.suspension({"kind": "t_plain", "name": "inner 2", "text": "inner 2"})]

    def plain(state: GameState, frame: Any, dice: Any) -> list[Event]:
        return [Event("test_step", {"name": frame["name"], "wait": False})]

    core.FOLDERS["test_step"] = step
    resume.FRAMES["t_outer"], resume.FRAMES["t_plain"] = outer, plain
    try:
        yield
    finally:
        del core.FOLDERS["test_step"], resume.FRAMES["t_outer"], resume.FRAMES["t_plain"]


def test_the_rest_runs_in_order_and_a_part_that_waits_again_goes_first(steps: None) -> None:
    state = core.fold_all(GameState(), [
        resume.suspension({"kind": "t_outer", "text": "outer"}),
        resume.suspension({"kind": "t_plain", "name": "last", "text": "last"}),
    ])
    assert [f["text"] for f in resume.suspended_of(state)] == ["outer", "last"]
    assert state.to_json(None)["resolution_waiting"] == ["outer", "last"]

    def waiting(s: GameState) -> bool:
        return core.part_of(s, Steps).wait

    made = resume.resume(state, None, waiting)
    state = core.fold_all(state, made)
    assert core.part_of(state, Steps).done == ("outer",)
    assert [f["text"] for f in resume.suspended_of(state)] == ["inner 1", "inner 2", "last"]
    state = core.fold_all(state, [Event("test_step", {"name": "acted", "wait": False})])
    made = resume.resume(state, None, waiting)
    state = core.fold_all(state, made)
    assert core.part_of(state, Steps).done == ("outer", "acted", "inner 1", "inner 2", "last")
    assert resume.suspended_of(state) == ()
    assert "resolution_waiting" not in state.to_json(None)
    with pytest.raises(core.RuleError):
        resume.refuse_while_suspended(core.fold_all(state, [
            resume.suspension({"kind": "t_plain", "name": "x", "text": "x"})]), "Shooting")
