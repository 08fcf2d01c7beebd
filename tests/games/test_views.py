"""State patches in `events` frames (server/games/views.py): a client in step applies the patch
and holds exactly the state the server would send it over REST, without asking for it."""

from __future__ import annotations

import copy
import json
from typing import Any

from fastapi.testclient import TestClient

from server.games.views import Projections, apply_patch, state_patch
from server.hub import PATCH_HEAD, events_frame, frame_patch
from server.rules.core import Event, GameState
from tests.api.helpers import new_game
from tests.api.test_scripted_game import Player


def apply(state: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """What the browser's store does with a patch (static/js/store.js applyPatch)."""
    out = {**state, **patch["state"]}
    for key in patch.get("dropped", []):
        out.pop(key, None)
    for key, tail in patch.get("tails", {}).items():
        out[key] = state[key][tail["drop"]:] + tail["push"]
    for key, changed in patch["items"].items():
        things = dict(state.get(key) or {})
        things.update(changed)
        for thing in patch["removed"][key]:
            things.pop(thing, None)
        out[key] = things
    return out


def test_a_patch_holds_only_what_changed() -> None:
    before = {"turn": 1, "phase": "Charge", "units": {"u1": {"x": 1}, "u2": {"x": 2}}, "gone": 1,
              "tokens": {"t1": {"x": 1}, "t2": {"x": 2}}}
    after = {"turn": 1, "phase": "Movement", "units": {"u1": {"x": 5}, "u3": {"x": 3}},
             "tokens": {"t1": {"x": 1}, "t2": {"x": 9}}}
    patch = state_patch(before, after, 7, 9)
    assert patch == {
        "base": 7, "seq": 9, "state": {"phase": "Movement"},
        "items": {"units": {"u1": {"x": 5}, "u3": {"x": 3}}, "tokens": {"t2": {"x": 9}}},
        "removed": {"units": ["u2"], "tokens": []}, "dropped": ["gone"],
    }
    assert apply(before, patch) == after


def test_a_sliding_list_travels_by_its_ends() -> None:
    window = [{"seq": s} for s in range(1, 21)]
    before = {"undoable": window, "units": {}, "tokens": {}}
    after = {"undoable": window[1:] + [{"seq": 21}], "units": {}, "tokens": {}}
    patch = state_patch(before, after, 20, 21)
    assert patch["tails"] == {"undoable": {"drop": 1, "push": [{"seq": 21}]}}
    assert "undoable" not in patch["state"] and apply(before, patch) == after
    reset = {"undoable": [{"seq": 99}], "units": {}, "tokens": {}}
    assert state_patch(before, reset, 20, 21)["state"] == {"undoable": [{"seq": 99}]}


def test_frames_patch_every_viewer_to_the_rest_state(client: TestClient) -> None:
    game = new_game(client, "t9a")
    url = f"/ws/games/{game['id']}"
    with client.websocket_connect(url) as w1, client.websocket_connect(url) as w2, \
            client.websocket_connect(url) as ws:
        p1, p2, spectator = Player(w1, game["p1"]), Player(w2, game["p2"]), Player(ws, None)
        held = {name: copy.deepcopy(p.welcome["state"]) for name, p in
                (("p1", p1), ("p2", p2), ("spectator", spectator))}
        seq = {name: p.welcome["seq"] for name, p in (("p1", p1), ("p2", p2),
                                                      ("spectator", spectator))}
        def ids() -> dict[str, str]:
            units = client.get(f"/api/games/{game['id']}").json()["state"]["units"]
            return {u["datasheet"]: uid for uid, u in units.items()}

        steps = [
            (p1, lambda: {"type": "use_preset_table", "preset": "village"}),
            (p1, lambda: {"type": "submit_army", "units": [
                {"datasheet": "mageblight-gremlin", "models": 3}]}),
            (p2, lambda: {"type": "submit_army", "units": [
                {"datasheet": "citizen-spears", "models": 20, "files": 5}]}),
            (p1, lambda: {"type": "deploy_unit", "unit": ids()["mageblight-gremlin"], "x": 20,
                          "y": 8}),
            (p2, lambda: {"type": "deploy_unit", "unit": ids()["citizen-spears"], "x": 20,
                          "y": 40, "facing": 180}),
            (p1, lambda: {"type": "end_phase"}),
            (p1, lambda: {"type": "move_unit", "unit": ids()["mageblight-gremlin"],
                          "manoeuvre": "forward", "distance": 3}),
        ]
        for player, make in steps:
            action = make()
            answer = player.act(**action)
            assert answer["type"] == "ack", (action, answer)
        final = client.get(f"/api/games/{game['id']}").json()
        patched = 0
        for name, player in (("p1", p1), ("p2", p2), ("spectator", spectator)):
            frames = [f for f in _frames(player, final["seq"]) if f["type"] == "events"]
            for frame in frames:
                patch = frame["patch"]
                assert patch["base"] == seq[name], (name, patch["base"], seq[name])
                held[name] = apply(held[name], patch)
                seq[name] = patch["seq"]
                patched += 1
            token = {"p1": game["p1"], "p2": game["p2"], "spectator": None}[name]
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            rest = client.get(f"/api/games/{game['id']}", headers=headers).json()
            assert seq[name] == rest["seq"]
            assert held[name] == rest["state"], name
        assert patched >= 3 * len(steps)
        unit = held["spectator"]["units"][ids()["mageblight-gremlin"]]
        assert unit["status"] == "on_table" and unit["footprint"]["type"] == "FeatureCollection"


def _frames(player: Player, upto: int) -> list[dict[str, Any]]:
    """Frames the player received (already read by `act`, then the rest up to `upto`)."""
    frames = list(player.log)
    last = max((e["seq"] for f in frames if f["type"] == "events" for e in f["events"]),
               default=0)
    while last < upto:
        frame = player.receive()
        frames.append(frame)
        player.log.pop()
        if frame["type"] == "events":
            last = max(last, *(e["seq"] for e in frame["events"]))
    return frames


def test_a_projection_advanced_by_patches_makes_the_same_next_patch() -> None:
    """A process that did not fold a batch (another process committed it) keeps its
    projections current by applying the batch's patch (`Projections.advance`): the patch of
    its own next batch is then the one it would make from the projection itself (issue 22).
    A collection missing from the projection comes out empty, which patches alike."""
    first = {"seq": 4, "turn": 1, "phase": "Charge", "undoable": [{"seq": 3}, {"seq": 4}],
             "tokens": {"t1": {"x": 1}}, "gone": True}
    second = {"seq": 5, "turn": 1, "phase": "Movement", "undoable": [{"seq": 3}, {"seq": 4},
              {"seq": 5}], "tokens": {"t1": {"x": 2}, "t2": {"x": 3}}}
    third = {"seq": 6, "turn": 2, "phase": "Movement", "undoable": [{"seq": 6}],
             "tokens": {"t2": {"x": 4}}, "units": {"u1": {"x": 1}}}
    advanced = apply_patch(first, state_patch(first, second, 4, 5))
    assert {k: v for k, v in advanced.items() if k != "units"} == second
    assert advanced.get("units", {}) == {}
    assert state_patch(advanced, third, 5, 6) == state_patch(second, third, 5, 6)


def test_projections_advance_only_from_the_seq_they_hold() -> None:
    """`advance` takes a frame's patch only onto a projection at the patch's base; the next
    `patches` starts from it instead of projecting the state before the batch."""
    state = GameState(id="g", system="t9a", seq=4)
    after = GameState(id="g", system="t9a", seq=5, over=True)
    projections = Projections()
    held = projections.of(state, None)
    frame = events_frame([], None, state_patch(held, after.to_json(None), 4, 5))
    projections.advance(3, 5, {None: frame})  # (not from the seq held: ignored)
    assert projections._advanced == {}
    projections.advance(4, 5, {None: frame, 1: frame})  # (no projection of seat 1 held)
    assert list(projections._advanced) == [None]
    later = GameState(id="g", system="t9a", seq=6, over=True, name="renamed")
    patch = projections.patches(after, later)(None)
    assert patch == state_patch(after.to_json(None), later.to_json(None), 5, 6)
    assert projections._advanced == {}


def test_a_frame_carries_its_patch_first_and_reads_it_alone() -> None:
    """An `events` frame with a state patch starts with the patch (server/hub `PATCH_HEAD`), so
    a process that only advances its projections (`Projections.advance`) parses the patch and
    not the events; a frame from an older process (events first) is read whole (issue 22)."""
    events = [Event(type="note", payload={"text": '"patch":{"x":1}}'}, actor=1, seq=5)]
    patch = {"base": 4, "seq": 5, "state": {"seq": 5}, "items": {"tokens": {}, "units": {}},
             "removed": {"tokens": [], "units": []}}
    frame = events_frame(events, 1, patch)
    assert frame.startswith(PATCH_HEAD)
    assert json.loads(frame) == {"type": "events", "patch": patch,
                                 "events": [e.to_wire(1) for e in events]}
    assert frame_patch(frame) == patch
    older = json.dumps({"type": "events", "events": [e.to_wire(1) for e in events],
                        "patch": patch}, separators=(",", ":"))
    assert frame_patch(older) == patch
    assert frame_patch(events_frame(events, 1)) is None
    assert json.loads(events_frame(events, None)) == {
        "type": "events", "events": [e.to_wire(None) for e in events]}
