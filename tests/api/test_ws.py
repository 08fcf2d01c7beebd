"""The websocket: hello/welcome, two players and a spectator, resume, and every bad input
(issue 2; the wire protocol of ARCHITECTURE.md)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tests.api.helpers import new_game, receive_events, receive_until


def hello(ws: object, token: str | None, since: int | None = None) -> dict:
    ws.send_json({"type": "hello", "token": token, "since": since})  # type: ignore[attr-defined]
    return receive_until(ws, "welcome")


def test_two_players_and_a_spectator_see_every_event_once_in_order(client: TestClient) -> None:
    game = new_game(client)
    url = f"/ws/games/{game['id']}"
    with client.websocket_connect(url) as p1, client.websocket_connect(url) as p2, \
            client.websocket_connect(url) as spectator:
        w1, w2, ws = hello(p1, game["p1"]), hello(p2, game["p2"]), hello(spectator, None)
        assert (w1["seat"], w2["seat"], ws["seat"]) == (1, 2, None)
        assert w1["seq"] == w2["seq"] == ws["seq"] == 3
        assert ws["state"]["seats"] == {"1": True, "2": True}

        p1.send_json({"type": "action", "ref": "c-1", "expected_seq": 3,
                      "action": {"type": "place_token", "x": 10, "y": 10, "label": "A"}})
        assert receive_until(p1, "ack") == {"type": "ack", "ref": "c-1", "seq": 4}
        p2.send_json({"type": "action", "ref": "c-1",
                      "action": {"type": "place_token", "x": 20, "y": 30, "label": "B"}})
        assert receive_until(p2, "ack")["seq"] == 5
        p1.send_json({"type": "action", "ref": "c-2",
                      "action": {"type": "move_token", "id": "t1", "x": 12, "y": 11}})
        assert receive_until(p1, "ack")["seq"] == 6
        p2.send_json({"type": "action", "ref": "c-2",
                      "action": {"type": "roll_dice", "dice": "3D6", "reason": "test"}})
        assert receive_until(p2, "ack")["seq"] == 7

        seen = receive_events(spectator, 4)
        assert [e["seq"] for e in seen] == [4, 5, 6, 7]
        assert [e["type"] for e in seen] == ["token_placed", "token_placed", "token_moved",
                                             "dice_rolled"]
        assert seen[2]["payload"]["x"] == 12
    view = client.get(f"/api/games/{game['id']}").json()
    assert view["state"]["tokens"]["t1"]["x"] == 12 and view["state"]["tokens"]["t2"]["owner"] == 2


def test_the_sender_gets_its_own_events_too(client: TestClient) -> None:
    game = new_game(client)
    with client.websocket_connect(f"/ws/games/{game['id']}") as p1:
        hello(p1, game["p1"])
        p1.send_json({"type": "action", "ref": "r", "action": {"type": "note", "text": "hi"}})
        events = receive_events(p1, 1)
        # (the first event of an action names who took it: `action_by`, issue 19)
        assert events[0]["type"] == "note_added"
        assert events[0]["payload"] == {"text": "hi", "action_by": 1}


def test_resume_since_sends_exactly_the_missed_events(client: TestClient) -> None:
    game = new_game(client)
    url = f"/ws/games/{game['id']}"
    with client.websocket_connect(url) as p1:
        hello(p1, game["p1"])
        for i in range(3):
            p1.send_json({"type": "action", "ref": f"n{i}",
                          "action": {"type": "note", "text": str(i)}})
            receive_until(p1, "ack")
    with client.websocket_connect(url) as again:
        welcome = hello(again, game["p1"], since=4)
        assert welcome["seq"] == 6
        missed = receive_until(again, "events")["events"]
        assert [e["seq"] for e in missed] == [5, 6]
        again.send_json({"type": "action", "ref": "n9", "action": {"type": "note", "text": "x"}})
        assert [e["seq"] for e in receive_events(again, 1)] == [7]


def test_spectators_are_read_only(client: TestClient) -> None:
    game = new_game(client)
    with client.websocket_connect(f"/ws/games/{game['id']}") as spectator:
        hello(spectator, None)
        spectator.send_json({"type": "action", "ref": "s1",
                             "action": {"type": "place_token", "x": 1, "y": 1}})
        error = receive_until(spectator, "error")
        assert (error["ref"], error["code"]) == ("s1", "forbidden")
    assert client.get(f"/api/games/{game['id']}").json()["seq"] == 3


@pytest.mark.parametrize("token", ["forged", "x" * 200])
def test_bad_token_is_unauthorized_and_closed_1008(client: TestClient, token: str) -> None:
    game = new_game(client)
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        ws.send_json({"type": "hello", "token": token, "since": None})
        assert ws.receive_json()["code"] == "unauthorized"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 1008


def test_token_of_another_game_is_unauthorized(client: TestClient) -> None:
    game, other = new_game(client), new_game(client)
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        ws.send_json({"type": "hello", "token": other["p1"], "since": None})
        assert ws.receive_json()["code"] == "unauthorized"


def test_unknown_game(client: TestClient) -> None:
    with client.websocket_connect("/ws/games/doesnotexist") as ws:
        ws.send_json({"type": "hello", "token": None, "since": None})
        assert ws.receive_json()["code"] == "not_found"
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()


def test_first_message_must_be_hello(client: TestClient) -> None:
    game = new_game(client)
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        ws.send_json({"type": "action", "action": {"type": "note", "text": "x"}})
        assert ws.receive_json()["code"] == "bad_request"


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("{not json", "bad_request"),
        ("[1, 2]", "bad_request"),
        ('{"type": "dance"}', "bad_request"),
        ('{"type": "action", "ref": "a"}', "bad_request"),
        ('{"type": "action", "ref": "a", "action": {"type": "warp"}}', "bad_request"),
        ('{"type": "action", "ref": "a", "action": {"type": "place_token", "x": 99, "y": 1}}',
         "illegal_move"),
        ('{"type": "action", "ref": "a", "expected_seq": 1, '
         '"action": {"type": "note", "text": "x"}}', "stale"),
        ('{"type": "action", "ref": 5, "action": {"type": "note", "text": "x"}}', "bad_request"),
        ('{"type": "hello", "token": null}', "bad_request"),
    ],
)
def test_bad_frames_get_an_error_and_change_nothing(
    client: TestClient, frame: str, code: str
) -> None:
    game = new_game(client)
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        hello(ws, game["p1"])
        ws.send_text(frame)
        error = receive_until(ws, "error")
        assert error["code"] == code and error["message"]
        # The connection survives: a good action still works afterwards.
        ws.send_json({"type": "action", "ref": "ok", "action": {"type": "note", "text": "ok"}})
        assert receive_until(ws, "ack")["seq"] == 4
    if code == "stale":
        assert error["details"]["seq"] == 3


def test_frames_over_64_kib_close_with_1009(client: TestClient) -> None:
    game = new_game(client)
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        hello(ws, game["p1"])
        ws.send_text('{"type": "note", "pad": "' + "x" * 70_000 + '"}')
        assert receive_until(ws, "error")["code"] == "too_large"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 1009
    assert client.get(f"/api/games/{game['id']}").json()["seq"] == 3


def test_a_retried_ref_is_applied_once(client: TestClient) -> None:
    game = new_game(client)
    action = {"type": "roll_dice", "dice": "D6"}
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        hello(ws, game["p1"])
        ws.send_json({"type": "action", "ref": "once", "action": action})
        first = receive_until(ws, "ack")
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        hello(ws, game["p1"])
        ws.send_json({"type": "action", "ref": "once", "action": action})
        assert receive_until(ws, "ack") == first
        ws.send_json({"type": "action", "ref": "once", "action": {"type": "note", "text": "x"}})
        assert receive_until(ws, "error")["code"] == "bad_request"
    assert client.get(f"/api/games/{game['id']}").json()["seq"] == first["seq"]


def test_presence_counts_players_and_spectators(client: TestClient) -> None:
    game = new_game(client)
    url = f"/ws/games/{game['id']}"
    with client.websocket_connect(url) as p1:
        hello(p1, game["p1"])
        with client.websocket_connect(url) as spectator:
            hello(spectator, None)
            for _ in range(5):
                presence = receive_until(p1, "presence")
                if presence["spectators"] == 1:
                    break
            assert presence == {"type": "presence", "players": [1], "spectators": 1}


def test_presence_in_a_crowd_is_coalesced_and_ends_with_the_latest_counts(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above PRESENCE_IMMEDIATE_MAX sockets a game's presence changes go out together (a crowd
    of N arriving would otherwise cost N² frames): the players still end up told the counts."""
    from contextlib import ExitStack

    from server.api import ws as ws_module

    monkeypatch.setattr(ws_module, "PRESENCE_IMMEDIATE_MAX", 2)
    monkeypatch.setattr(ws_module, "PRESENCE_COALESCE_S", 0.05)
    game = new_game(client)
    url = f"/ws/games/{game['id']}"
    with client.websocket_connect(url) as p1:
        hello(p1, game["p1"])
        with ExitStack() as crowd:
            for _ in range(6):
                hello(crowd.enter_context(client.websocket_connect(url)), None)
            counts = [receive_until(p1, "presence")["spectators"]]
            while counts[-1] != 6:  # (each frame has the counts when it was sent)
                counts.append(receive_until(p1, "presence")["spectators"])
        while counts[-1] != 0:  # all six left: the last frame says so
            counts.append(receive_until(p1, "presence")["spectators"])
        arriving = counts[: counts.index(6) + 1]
        assert arriving == sorted(arriving)  # (nobody left while the crowd arrived)


def test_a_shared_measure_reaches_the_spectator_as_an_overlay(client: TestClient) -> None:
    game = new_game(client)
    url = f"/ws/games/{game['id']}"
    with client.websocket_connect(url) as p1, client.websocket_connect(url) as spectator:
        hello(p1, game["p1"])
        hello(spectator, None)
        p1.send_json({"type": "measure", "ref": "m-1", "from": {"x": 10, "y": 10},
                      "to": {"x": 13, "y": 14}, "share": True})
        answer = receive_until(p1, "measure_result")
        assert answer["ref"] == "m-1" and answer["distance"] == 5.0 and answer["shared"] is True
        overlay = receive_until(spectator, "overlay")
        assert overlay["kind"] == "measure" and overlay["seat"] == 1
        assert overlay["distance"] == 5.0 and len(overlay["points"]) == 2
        assert overlay["from"] == {"x": 10, "y": 10}

        # A spectator's measure stays its own; an unshared one is not broadcast either.
        spectator.send_json({"type": "measure", "ref": "m-2", "from": {"x": 0, "y": 0},
                             "to": {"x": 3, "y": 4}, "share": True})
        assert receive_until(spectator, "measure_result")["shared"] is False
        p1.send_json({"type": "measure", "ref": "m-3", "from": {"x": 0, "y": 0},
                      "to": {"x": 0, "y": 1}})
        assert "shared" not in receive_until(p1, "measure_result")
        p1.send_json({"type": "ping", "ref": "x"})
        receive_until(p1, "pong")
        spectator.send_json({"type": "ping", "ref": "y"})
        frames = [spectator.receive_json()]
        while frames[-1]["type"] != "pong":
            frames.append(spectator.receive_json())
        assert not [f for f in frames if f["type"] == "overlay"]


def test_shared_measures_are_rate_limited(client: TestClient) -> None:
    game = new_game(client)
    with client.websocket_connect(f"/ws/games/{game['id']}") as p1:
        hello(p1, game["p1"])
        shared = []
        for i in range(8):
            p1.send_json({"type": "measure", "ref": f"m{i}", "from": {"x": 0, "y": 0},
                          "to": {"x": 1, "y": i}, "share": True})
            shared.append(receive_until(p1, "measure_result")["shared"])
        assert shared[0] is True and shared.count(False) >= 2
