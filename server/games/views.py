"""What a batch of events changed in a viewer's projection of the game state.

Every `events` frame carries, per visibility class, the patch from that class's projection
before the batch to the one after it, so a client that was in step applies it instead of
asking for the whole state again (rules events the client cannot fold itself: unit moves with
their footprints, charges, combat). A client that was not in step (a gap, a refresh in flight)
ignores it and reads the state over REST as before.

Patch: ``{"base": seq before, "seq": seq after, "state": {changed top-level keys}, "items":
{"units": {id: view}, "tokens": {id: token}} (what changed or appeared), "removed": {"units":
[ids], "tokens": [ids]}, "tails": {key: {"drop": n, "push": [...]}}}``; units and tokens are
patched one by one, lists that slide (drop at the head, push at the tail) by their ends, the
rest key by key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from server.hub import frame_patch
from server.rules.core import GameState

COLLECTIONS = ("units", "tokens")
"""Top-level keys holding things by id: patched thing by thing, not as a whole."""


def state_patch(
    before: Mapping[str, Any], after: Mapping[str, Any], base: int, seq: int
) -> dict[str, Any]:
    """The patch that turns projection `before` (at seq `base`) into `after` (at `seq`)."""
    changed: dict[str, Any] = {}
    tails: dict[str, dict[str, Any]] = {}
    for key, value in after.items():
        if key in COLLECTIONS or (key in before and before[key] == value):
            continue
        tail = list_tail(before.get(key), value)
        if tail is not None:
            tails[key] = tail
        else:
            changed[key] = value
    items: dict[str, dict[str, Any]] = {}
    removed: dict[str, list[str]] = {}
    for key in COLLECTIONS:
        old: Mapping[str, Any] = before.get(key) or {}
        new: Mapping[str, Any] = after.get(key) or {}
        items[key] = {k: v for k, v in new.items() if k not in old or old[k] != v}
        removed[key] = [k for k in old if k not in new]
    patch: dict[str, Any] = {"base": base, "seq": seq, "state": changed, "items": items,
                             "removed": removed}
    if tails:
        patch["tails"] = tails
    gone = [key for key in before if key not in after and key not in COLLECTIONS]
    if gone:
        patch["dropped"] = gone
    return patch


def apply_patch(view: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """`view` with `patch` applied, as the browser client does (static/js/store.js applyPatch).

    The result equals the projection the patch was made to, but for a collection that is
    absent there: it comes out empty here. `state_patch` treats an absent collection and an
    empty one alike, so a patch made from the result is the one made from the projection."""
    after = {**view, **patch["state"]}
    for key in patch.get("dropped", ()):
        after.pop(key, None)
    for key, tail in patch.get("tails", {}).items():
        after[key] = [*list(view.get(key) or [])[tail["drop"] :], *tail["push"]]
    for key, changed in patch["items"].items():
        things = {**(view.get(key) or {}), **changed}
        for gone in patch["removed"].get(key, ()):
            things.pop(gone, None)
        after[key] = things
    after["seq"] = patch["seq"]
    return after


def list_tail(before: Any, after: Any) -> dict[str, Any] | None:
    """A list that lost `drop` items at its head and gained `push` at its tail (a sliding
    window such as `undoable`), as {"drop", "push"}; None when that is not smaller."""
    if not isinstance(before, list) or not isinstance(after, list) or not before:
        return None
    for drop in range(len(before)):
        kept = len(before) - drop
        if kept <= len(after) and before[drop:] == after[:kept]:
            push = after[kept:]
            return {"drop": drop, "push": push} if len(push) * 2 < len(after) else None
    return None


class Projections:
    """Each visibility class's projection of a game's state at its latest seq, kept so that a
    batch's patch and a REST read do not project the same state twice.

    A batch another process committed arrives with its frames (server/hub/redis.py) and is not
    folded here; `advance` applies those frames' patches to the projections kept here, so the
    next batch this process commits finds the projections of the state before it ready (they
    serve as the start of its patches only: `of` always projects)."""

    def __init__(self) -> None:
        self._cache: dict[int | None, tuple[GameState, dict[str, Any]]] = {}
        self._advanced: dict[int | None, tuple[int, dict[str, Any]]] = {}

    def of(self, state: GameState, viewer: int | None) -> dict[str, Any]:
        """`state` projected for `viewer` (cached for the latest state object). The dict is
        shared: read it, do not change it."""
        hit = self._cache.get(viewer)
        if hit is not None and hit[0] is state:
            return hit[1]
        view = state.to_json(viewer)
        self._cache[viewer] = (state, view)
        return view

    def patches(self, before: GameState, after: GameState) -> Callable[[int | None], Any]:
        """The patch source of one batch (computed lazily, once per visibility class)."""
        made: dict[int | None, dict[str, Any]] = {}
        old = {viewer: self.of(before, viewer) for viewer in self._known(before)}
        for viewer, (seq, view) in self._advanced.items():
            if seq == before.seq:
                old.setdefault(viewer, view)
        self._advanced.clear()

        def patch(viewer: int | None) -> dict[str, Any]:
            if viewer not in made:
                start = old.get(viewer)
                if start is None:
                    start = before.to_json(viewer)
                made[viewer] = state_patch(start, self.of(after, viewer), before.seq, after.seq)
            return made[viewer]

        return patch

    def advance(self, base: int, seq: int, frames: Mapping[int | None, str]) -> None:
        """Another process's batch from `base` to `seq`, with its `events` frames by class:
        each projection kept here at `base` takes its class's patch (the others are dropped)."""
        advanced: dict[int | None, tuple[int, dict[str, Any]]] = {}
        for viewer, frame in frames.items():
            start = self._at(base, viewer)
            if start is None:
                continue
            patch = frame_patch(frame)
            if isinstance(patch, dict) and patch.get("base") == base and patch.get("seq") == seq:
                advanced[viewer] = (seq, apply_patch(start, patch))
        self._advanced = advanced

    def _at(self, seq: int, viewer: int | None) -> Mapping[str, Any] | None:
        hit = self._cache.get(viewer)
        if hit is not None and hit[0].seq == seq:
            return hit[1]
        moved = self._advanced.get(viewer)
        if moved is not None and moved[0] == seq:
            return moved[1]
        return None

    def _known(self, state: GameState) -> list[int | None]:
        """Viewers whose projection of `state` is already cached (nothing is projected)."""
        return [viewer for viewer, (cached, _) in self._cache.items() if cached is state]
