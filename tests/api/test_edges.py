"""One way in and out at the edges (issue 23 item 5): websocket messages are validated by
pydantic models, the same ones as the REST bodies, at one point, and refused with
`bad_request` naming the field; every game route learns its viewer from one dependency
(`ViewerDep`); the websocket's limits come from `Settings` and reach the client in `welcome`.

Before: ws.py checked each envelope by hand (`data.get(...)`), raw values reached
`rules/questions.py`, six routes called `service.authenticate` inline, the frame limit and the
other socket limits were constants of ws.py, and the client guessed the message rate.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from server.api import messages
from server.api.app import create_app
from server.api.routes import archive as archive_routes
from server.api.routes import games as games_routes
from server.api.routes import questions as question_routes
from server.config import Settings
from tests.api.helpers import auth, new_game, receive_until


def _hello(ws: Any, token: str | None) -> dict[str, Any]:
    ws.send_json({"type": "hello", "token": token, "since": None})
    return receive_until(ws, "welcome")


def _answer(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    """Send `message` with ref "q" and read until the frame that answers it."""
    ws.send_json({**message, "ref": "q"})
    for _ in range(20):
        frame: dict[str, Any] = ws.receive_json()
        if frame.get("ref") == "q":
            return frame
    raise AssertionError("no answer")


@pytest.mark.parametrize(
    ("message", "field"),
    [
        ({"type": "action"}, "action"),
        ({"type": "action", "action": [1, 2]}, "action"),
        ({"type": "action", "action": {"type": "note", "text": "x"}, "expected_seq": "3"},
         "expected_seq"),
        ({"type": "action", "action": {"type": "note", "text": "x"}, "expected_seq": True},
         "expected_seq"),
        ({"type": "action", "action": {"type": "note", "text": "x"}, "expected_seq": -1},
         "expected_seq"),
        ({"type": "preview", "action": "note"}, "action"),
        ({"type": "measure", "from": {"x": 1}, "to": "u1"}, "from.point.y"),
        ({"type": "measure", "from": {"x": 1, "y": 2, "z": 3}, "to": "u1"}, "from.point.z"),
        ({"type": "measure", "from": "u1", "to": {"x": 1e300, "y": 2}}, "to.point.x"),
        ({"type": "measure", "from": "u1", "to": "u2", "share": "yes"}, "share"),
        ({"type": "line_of_sight", "viewer": 5, "target": "u2"}, "viewer"),
        ({"type": "line_of_sight", "viewer": "u1"}, "target"),
        ({"type": "ambush_options", "unit": "u1"}, "point"),
        ({"type": "ambush_options", "unit": "u1", "point": {"x": 0, "y": 0},
          "placement": {"x": 0, "y": 0, "facing": "north"}}, "placement.facing"),
        ({"type": "hello", "token": 5}, "token"),
    ],
)
def test_each_websocket_message_is_refused_by_its_model_naming_the_field(
    client: TestClient, message: dict[str, Any], field: str
) -> None:
    game = new_game(client)
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        _hello(ws, game["p1"])
        error = _answer(ws, message)
        assert (error["type"], error["code"]) == ("error", "bad_request"), error
        assert error["details"]["field"] == field, error
        assert error["message"].startswith(f"{field}: "), error
        assert error["details"]["errors"][0]["field"] == field
        assert _answer(ws, {"type": "ping"})["type"] == "pong"  # the socket is fine
    assert client.get(f"/api/games/{game['id']}").json()["seq"] == 3  # nothing changed


@pytest.mark.parametrize(
    "hello",
    [
        {"type": "hello", "token": 5, "since": None},
        {"type": "hello", "token": None, "since": -1},
        {"type": "hello", "token": None, "since": "4"},
        {"type": "hello", "token": None, "since": True},
    ],
)
def test_a_malformed_hello_is_refused_naming_the_field_and_closed(
    client: TestClient, hello: dict[str, Any]
) -> None:
    game = new_game(client)
    field = "token" if hello["token"] is not None else "since"
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        ws.send_json(hello)
        error = ws.receive_json()
        assert (error["code"], error["details"]["field"]) == ("bad_request", field), error
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 1008


def test_an_unknown_message_type_is_refused_naming_the_known_ones(client: TestClient) -> None:
    game = new_game(client)
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        _hello(ws, None)
        error = _answer(ws, {"type": "dance"})
        assert (error["code"], error["details"]["field"]) == ("bad_request", "type")
        assert error["message"] == "unknown message type 'dance'"
        assert error["details"]["known"] == sorted(
            ["action", "ping", "preview", "measure", "line_of_sight", "ambush_options"]
        )


@pytest.mark.parametrize("ref", ["NaN", "Infinity", "1e400", "[1, {}]", "{\"a\": 1}"])
def test_a_ref_that_is_not_a_string_is_refused_and_never_echoed(
    client: TestClient, ref: str
) -> None:
    """A `ref` the JSON decoder reads as a non-finite number, a list or an object is refused
    with `bad_request` naming `ref`, and the answer does not echo it (the encoder writes no
    NaN); the socket carries on."""
    game = new_game(client)
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        _hello(ws, game["token"])
        ws.send_text('{"type": "ping", "ref": ' + ref + '}')
        error = receive_until(ws, "error")
        assert error["code"] == "bad_request" and error["details"]["field"] == "ref"
        assert error["ref"] is None
        assert _answer(ws, {"type": "ping"})["type"] == "pong"


@pytest.mark.parametrize(
    ("question", "body"),
    [
        ("measure", {"from": {"x": 1}, "to": "u1"}),
        ("measure", {"from": {"x": 1, "y": 2, "z": 0}, "to": {"x": 1e300, "y": "a"}}),
        ("measure", {"from": "", "to": "u1"}),
        ("line_of_sight", {"viewer": 5, "target": "x" * 65}),
        ("ambush_options", {"unit": "u1", "point": {"x": 0},
                            "placement": {"x": 0, "y": 0, "facing": "north"}}),
    ],
)
def test_rest_and_the_websocket_refuse_a_question_with_the_same_errors(
    client: TestClient, question: str, body: dict[str, Any]
) -> None:
    """One definition per body: a REST question and its websocket message fail alike, field
    for field and message for message."""
    game = new_game(client)
    rest = client.post(f"/api/games/{game['id']}/{question.replace('_', '-')}", json=body)
    assert (rest.status_code, rest.json()["code"]) == (400, "bad_request")
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        _hello(ws, None)
        error = _answer(ws, {"type": question, **body})
    assert error["code"] == "bad_request"
    assert error["details"]["errors"] == rest.json()["details"]["errors"]
    assert error["message"] == rest.json()["message"]


def test_the_question_bodies_have_one_definition() -> None:
    """The REST routes take the very classes the websocket messages extend."""
    pairs = {
        messages.PreviewMessage: question_routes.PreviewIn,
        messages.MeasureMessage: question_routes.MeasureIn,
        messages.LineOfSightMessage: question_routes.LineOfSightIn,
        messages.AmbushOptionsMessage: question_routes.AmbushOptionsIn,
        messages.ActionMessage: games_routes.ActionIn,
    }
    for ws_model, rest_model in pairs.items():
        assert issubclass(ws_model, rest_model), ws_model
        assert set(rest_model.model_fields) < set(ws_model.model_fields)


ROUTES = [
    ("GET", "/api/games/{id}", None),
    ("GET", "/api/games/{id}/events", None),
    ("POST", "/api/games/{id}/actions", {"action": {"type": "note", "text": "x"}}),
    ("POST", "/api/games/{id}/preview", {"action": {"type": "note", "text": "x"}}),
    ("GET", "/api/games/{id}/dice-proof", None),
    ("GET", "/api/games/{id}/export", None),
]


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
def test_every_game_route_knows_its_viewer_from_one_dependency(
    client: TestClient, method: str, path: str, body: dict[str, Any] | None
) -> None:
    """A token of another game is `unauthorized`, a malformed header too, on each route that
    reads a viewer; an unknown game is `not_found`; and no route asks the service itself."""
    game, other = new_game(client), new_game(client)
    url = path.format(id=game["id"])
    foreign = client.request(method, url, json=body, headers=auth(other["p1"]))
    assert (foreign.status_code, foreign.json()["code"]) == (401, "unauthorized")
    garbled = client.request(method, url, json=body, headers={"Authorization": "Basic x"})
    assert (garbled.status_code, garbled.json()["code"]) == (401, "unauthorized")
    missing = client.request(method, path.format(id="nosuchgame"), json=body,
                             headers=auth(game["p1"]))
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")
    for module in (games_routes, archive_routes, question_routes):
        assert "authenticate(" not in inspect.getsource(module)


def test_the_websocket_limits_come_from_settings_and_reach_the_client(tmp_path: Any) -> None:
    settings = Settings(DATABASE_URL=f"sqlite:///{tmp_path}/w.db", WARFIELD_DATA_DIR=str(tmp_path),
                        WARFIELD_MAX_FRAME_BYTES=2048, WARFIELD_RATE_LIMIT_PER_S=7,
                        WARFIELD_RATE_LIMIT_BURST=9)
    with TestClient(create_app(settings)) as client:
        game = new_game(client)
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            welcome = _hello(ws, game["p1"])
            assert welcome["limits"] == {"max_frame_bytes": 2048, "messages_per_s": 7,
                                         "burst": 9}
            ws.send_text(json.dumps({"type": "ping", "pad": "x" * 2048}))
            error = receive_until(ws, "error")
            assert error["code"] == "too_large" and "2 KiB" in error["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 1009
