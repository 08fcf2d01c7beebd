"""The spectator delay (issue 20 item 4): a game created with `spectator_delay_s` shows its
spectators each event that long after it was committed, over the websocket and REST; players
are unaffected; the delay is stored with the game and survives a restart.

The delay scheduler reads an injected clock (`ManualClock`) that the tests move by hand, so no
test waits the delay out in real seconds (one end-to-end test uses a real 1 s delay).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.api.app import create_app
from tests.api.helpers import auth, new_game, receive_until

DELAY = 60


class ManualClock:
    """The wall clock plus seconds a test adds (`advance`): it never lags the log's real
    commit times, and the delay passes when the test says so, not after real minutes."""

    def __init__(self) -> None:
        self.offset = 0.0

    def now(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds

    async def sleep_until(self, moment: float) -> None:
        # (the test thread moves the clock: look again every few ms, without a timer to race)
        while self.now() < moment:
            await asyncio.sleep(0.005)


def commit_times(client: TestClient, game_id: str) -> dict[int, float]:
    """Each seq's commit time in the log (`events.created_at`)."""
    store = client.app.state.service.store  # type: ignore[attr-defined]
    return {e.seq: at.timestamp() for e, at in store.timed_events(game_id)}


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def delayed_client(settings: Any, clock: ManualClock) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:
        client.app.state.service.hub.delay.clock = clock  # type: ignore[attr-defined]
        yield client


def hello(ws: Any, token: str | None, since: int | None = None) -> dict[str, Any]:
    ws.send_json({"type": "hello", "token": token, "since": since})
    return receive_until(ws, "welcome")


def act(ws: Any, ref: str, action: dict[str, Any]) -> int:
    ws.send_json({"type": "action", "ref": ref, "action": action})
    return int(receive_until(ws, "ack")["seq"])


def frames_until_pong(ws: Any, ref: str) -> list[dict[str, Any]]:
    """Every frame the socket was sent before the answer to a ping sent now (the writer sends
    in order, so whatever was queued before the pong is in this list)."""
    ws.send_json({"type": "ping", "ref": ref})
    frames = []
    while True:
        frame = ws.receive_json()
        if frame["type"] == "pong" and frame.get("ref") == ref:
            return frames
        frames.append(frame)


def events_in(frames: list[dict[str, Any]]) -> list[int]:
    return [e["seq"] for f in frames if f["type"] == "events" for e in f["events"]]


def receive_seqs(ws: Any, clock: ManualClock, count: int) -> dict[int, float]:
    """Read until `count` events arrived: each seq with the clock's time when it arrived."""
    seen: dict[int, float] = {}
    while len(seen) < count:
        frame = ws.receive_json()
        if frame["type"] == "events":
            for e in frame["events"]:
                assert e["seq"] not in seen, f"seq {e['seq']} sent twice"
                seen[e["seq"]] = clock.now()
    return seen


def test_a_delayed_spectator_never_sees_an_event_younger_than_the_delay_on_the_websocket(
    delayed_client: TestClient, clock: ManualClock
) -> None:
    client = delayed_client
    game = new_game(client, spectator_delay_s=DELAY)
    url = f"/ws/games/{game['id']}"
    with client.websocket_connect(url) as p1, client.websocket_connect(url) as p2, \
            client.websocket_connect(url) as spectator:
        assert hello(p1, game["p1"])["seq"] == 3
        welcome = hello(spectator, None)
        # Only the game as created (seat 1): seat 2 was claimed less than the delay ago.
        assert welcome["seq"] == 2 and welcome["spectator_delay_s"] == DELAY
        assert welcome["state"]["seats"] == {"1": True, "2": False}
        hello(p2, game["p2"])

        for i in range(3):
            act(p1, f"n{i}", {"type": "place_token", "x": 10 + i, "y": 10, "label": "A"})
            clock.advance(10)
        # The players had each event at once.
        assert sorted(receive_seqs(p2, clock, 3)) == [4, 5, 6]
        assert events_in(frames_until_pong(spectator, "a")) == []

        clock.advance(DELAY - 30 + 1)  # seat 2's claim and the first token are now old enough
        seen = receive_seqs(spectator, clock, 2)
        clock.advance(20)
        seen |= receive_seqs(spectator, clock, 2)
        assert list(seen) == [3, 4, 5, 6]  # in order, each once
        committed = commit_times(client, game["id"])
        for seq, at in seen.items():
            assert at - committed[seq] >= DELAY, f"seq {seq} reached the spectator early"
        # Nothing newer than what was released was ever sent.
        assert events_in(frames_until_pong(spectator, "b")) == []


def test_players_of_a_delayed_game_see_events_at_once(
    delayed_client: TestClient, clock: ManualClock
) -> None:
    client = delayed_client
    game = new_game(client, spectator_delay_s=DELAY)
    url = f"/ws/games/{game['id']}"
    with client.websocket_connect(url) as p1, client.websocket_connect(url) as p2:
        assert hello(p1, game["p1"])["seq"] == hello(p2, game["p2"])["seq"] == 3
        seq = act(p1, "r", {"type": "note", "text": "now"})
        assert list(receive_seqs(p2, clock, 1)) == [seq]
        assert clock.offset == 0  # (no delay had to pass)
    view = client.get(f"/api/games/{game['id']}", headers=auth(game["p2"])).json()
    assert view["seq"] == seq and view["spectator_delay_s"] == DELAY


def test_a_delayed_spectator_cannot_read_anything_newer_over_rest(
    delayed_client: TestClient, clock: ManualClock
) -> None:
    client = delayed_client
    game = new_game(client, spectator_delay_s=DELAY)
    gid, p1 = game["id"], auth(game["p1"])
    placed = client.post(f"/api/games/{gid}/actions", headers=p1, json={
        "action": {"type": "place_token", "x": 10, "y": 10, "label": "A"}})
    rolled = client.post(f"/api/games/{gid}/actions", headers=p1, json={
        "action": {"type": "roll_dice", "dice": "2D6", "reason": "test"}})
    assert placed.status_code == rolled.status_code == 200
    last = rolled.json()["seq"]

    view = client.get(f"/api/games/{gid}").json()
    assert view["seq"] == 2 and view["state"]["tokens"] == {} and view["spectator_delay_s"] == 60
    assert [e["seq"] for e in client.get(f"/api/games/{gid}/events").json()["events"]] == [1, 2]
    assert client.get(f"/api/games/{gid}/events?since=2").json()["events"] == []
    assert client.get(f"/api/games/{gid}/dice-proof").json()["rolls"] == 0
    for path in ("state?at=1", "timeline", "report", "luck"):
        refused = client.get(f"/api/games/{gid}/{path}")
        assert refused.status_code == 403, path
    # Questions: a measure to the token is answered on the spectator's table (no token yet),
    # a preview is for players only.
    to_token = {"from": {"x": 1, "y": 1}, "to": "t1"}
    unseen = client.post(f"/api/games/{gid}/measure", json=to_token)
    assert unseen.status_code == 404 and unseen.json()["code"] == "not_found"
    assert client.post(f"/api/games/{gid}/measure", headers=p1, json=to_token).status_code == 200
    preview = {"action": {"type": "move_token", "id": "t1", "x": 12, "y": 12}}
    refused = client.post(f"/api/games/{gid}/preview", json=preview)
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    # The players read as ever.
    assert client.get(f"/api/games/{gid}", headers=p1).json()["seq"] == last

    clock.advance(DELAY + 5)
    view = client.get(f"/api/games/{gid}").json()
    assert view["seq"] == last and view["state"]["tokens"]["t1"]["x"] == 10
    assert [e["seq"] for e in client.get(f"/api/games/{gid}/events?since=2").json()["events"]] \
        == [3, 4, 5]
    assert client.get(f"/api/games/{gid}/dice-proof").json()["rolls"] == 1
    assert client.post(f"/api/games/{gid}/measure", json=to_token).json()["distance"] == \
        client.post(f"/api/games/{gid}/measure", headers=p1, json=to_token).json()["distance"]


def test_a_delayed_spectator_replays_a_finished_game_only_once_its_end_is_older_than_the_delay(
    delayed_client: TestClient, clock: ManualClock
) -> None:
    client = delayed_client
    game = new_game(client, spectator_delay_s=DELAY)
    gid = game["id"]
    ended = client.post(f"/api/games/{gid}/actions", headers=auth(game["p1"]),
                        json={"action": {"type": "concede"}})
    assert ended.status_code == 200
    assert client.get(f"/api/games/{gid}/timeline", headers=auth(game["p2"])).status_code == 200
    for path in ("timeline", "report", "luck", "export", f"state?at={ended.json()['seq']}"):
        assert client.get(f"/api/games/{gid}/{path}").status_code in (403, 409), path
    assert client.get(f"/api/games/{gid}/dice-proof").json()["revealed"] is False
    clock.advance(DELAY + 1)
    timeline = client.get(f"/api/games/{gid}/timeline")
    assert timeline.status_code == 200 and timeline.json()["over"] is True
    assert client.get(f"/api/games/{gid}/report").status_code == 200
    assert client.get(f"/api/games/{gid}/dice-proof").json()["revealed"] is True


def test_a_delayed_spectator_resumes_only_up_to_the_delayed_seq_and_may_not_preview(
    delayed_client: TestClient, clock: ManualClock
) -> None:
    client = delayed_client
    game = new_game(client, spectator_delay_s=DELAY)
    url = f"/ws/games/{game['id']}"
    with client.websocket_connect(url) as p1:
        hello(p1, game["p1"])
        last = act(p1, "n", {"type": "note", "text": "n"})
    with client.websocket_connect(url) as spectator:
        welcome = hello(spectator, None, since=1)
        assert welcome["seq"] == 2  # (seat 2's claim and the note are younger than the delay)
        assert [e["seq"] for e in receive_until(spectator, "events")["events"]] == [2]
        spectator.send_json({"type": "measure", "ref": "m", "from": {"x": 1, "y": 1},
                             "to": {"x": 4, "y": 5}})
        assert receive_until(spectator, "measure_result")["distance"] == pytest.approx(5)
        spectator.send_json({"type": "preview", "ref": "v",
                             "action": {"type": "note", "text": "?"}})
        error = receive_until(spectator, "error")
        assert error["code"] == "forbidden" and error["ref"] == "v"
        assert events_in(frames_until_pong(spectator, "p")) == []
        clock.advance(DELAY + 1)
        assert list(receive_seqs(spectator, clock, last - 2)) == [3, last]


def test_the_spectator_delay_survives_a_restart(settings: Any) -> None:
    clock = ManualClock()
    with TestClient(create_app(settings)) as client:
        client.app.state.service.hub.delay.clock = clock  # type: ignore[attr-defined]
        game = new_game(client, spectator_delay_s=DELAY)
        seq = client.post(f"/api/games/{game['id']}/actions", headers=auth(game["p1"]), json={
            "action": {"type": "note", "text": "before the restart"}}).json()["seq"]
    with TestClient(create_app(settings)) as client:  # the same database, a new process
        client.app.state.service.hub.delay.clock = clock  # type: ignore[attr-defined]
        gid = game["id"]
        view = client.get(f"/api/games/{gid}").json()
        assert view["spectator_delay_s"] == DELAY and view["seq"] == 2
        with client.websocket_connect(f"/ws/games/{gid}") as spectator:
            assert hello(spectator, None)["seq"] == 2
            assert events_in(frames_until_pong(spectator, "a")) == []
            clock.advance(DELAY + 1)  # the queue was rebuilt from the log's commit times
            assert list(receive_seqs(spectator, clock, seq - 2)) == list(range(3, seq + 1))
        assert client.get(f"/api/games/{gid}").json()["seq"] == seq


def test_a_real_one_second_delay_holds_end_to_end(client: TestClient) -> None:
    """The wall clock (no injected one): every event reaches the spectator at least 1 s after
    its commit time in the log."""
    game = new_game(client, spectator_delay_s=1)
    gid = game["id"]
    url = f"/ws/games/{gid}"
    with client.websocket_connect(url) as p1, client.websocket_connect(url) as spectator:
        hello(p1, game["p1"])
        hello(spectator, None)
        last = act(p1, "n", {"type": "note", "text": "x"})
        arrived: dict[int, float] = {}
        while last not in arrived:
            frame = spectator.receive_json()
            if frame["type"] == "events":
                arrived |= {e["seq"]: time.time() for e in frame["events"]}
    commits = commit_times(client, gid)
    for seq, at in arrived.items():
        assert at - commits[seq] >= 1.0, f"seq {seq} arrived {at - commits[seq]:.3f} s after"


@pytest.mark.parametrize("delay", [-1, 3601, "soon"])
def test_a_spectator_delay_out_of_bounds_is_refused(client: TestClient, delay: Any) -> None:
    refused = client.post("/api/games", json={"system": "t9a", "spectator_delay_s": delay})
    assert refused.status_code == 400 and refused.json()["code"] == "bad_request"
