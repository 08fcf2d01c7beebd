"""JSON nested thousands deep, over REST and the websocket: Python's parser recurses once a
level, so such input was a RecursionError (own units: a 500). Every parser of outside JSON
refuses anything nested deeper than `MAX_DEPTH` before parsing it, with `bad_request`, the
depth and the limit; the game is unchanged and the socket still answers."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.data.json_input import MAX_DEPTH
from tests.api.helpers import auth, new_game, receive_until


def arrays(n: int) -> str:
    return "[" * n + "]" * n


def objects(n: int) -> str:
    return '{"a":' * n + "1" + "}" * n


DEEP = {"arrays 5000": arrays(5000), "objects 5000": objects(5000),
        "arrays 2000": arrays(2000), "objects 300": objects(300),
        "inside a body": '{"action":{"type":"end_phase","x":' + arrays(2000) + "}}"}
PATHS = ["/api/games", "/api/games/{id}/seats", "/api/games/{id}/actions",
         "/api/games/{id}/preview", "/api/games/{id}/measure", "/api/games/{id}/line-of-sight",
         "/api/games/{id}/ambush-options", "/api/systems/t9a/own-units/check",
         "/api/systems/t9a/rosters/import"]


def assert_too_deep(answer: dict[str, Any], raw: str) -> None:
    assert answer["code"] == "bad_request", answer
    assert "nests too deeply" in answer["message"], answer
    assert answer["details"]["max_depth"] == MAX_DEPTH
    # (every bracket of these inputs opens inside the one before)
    assert answer["details"]["depth"] == raw.count("[") + raw.count("{")


@pytest.mark.parametrize("shape", list(DEEP))
def test_rest_json_nested_thousands_deep_is_bad_request_and_changes_nothing(
    client: TestClient, shape: str
) -> None:
    game = new_game(client)
    before = client.get(f"/api/games/{game['id']}").json()
    raw = DEEP[shape]
    for path in PATHS:
        for kind in ("application/json", "application/merge-patch+json"):
            answer = client.post(path.format(id=game["id"]), content=raw.encode(),
                                 headers={"content-type": kind, **auth(game["p1"])})
            assert answer.status_code == 400, (path, kind, answer.text[:200])
            assert_too_deep(answer.json(), raw)
    after = client.get(f"/api/games/{game['id']}").json()
    assert after["seq"] == before["seq"] and after["state"] == before["state"]


def test_bodies_read_as_json_whatever_their_content_type_have_the_same_limit(
    client: TestClient,
) -> None:
    """The own-unit check and the roster import read their body as JSON themselves (any
    content type, or none)."""
    raw = objects(5000)
    for kind in ("text/plain", "application/octet-stream", None):
        headers = {"content-type": kind} if kind else {}
        answer = client.post("/api/systems/wh40k10/own-units/check", content=raw.encode(),
                             headers=headers)
        assert answer.status_code == 400, answer.text[:200]
        assert_too_deep(answer.json(), raw)
        assert answer.json()["message"].startswith("a unit of your own is a JSON object")
        answer = client.post("/api/systems/wh40k10/rosters/import", content=raw.encode(),
                             headers=headers)
        assert answer.status_code == 400, answer.text[:200]
        assert answer.json()["code"] == "bad_request"
        assert "roster import: the JSON nests too deeply" in answer.json()["message"]


def test_json_as_deep_as_the_limit_is_parsed_and_judged_on_its_content(
    client: TestClient,
) -> None:
    """At the limit the body is read and refused for what it says (an unknown field), not
    for its depth; one level more is refused for its depth."""
    at_limit = client.post("/api/systems/t9a/own-units/check", json={"x": eval_nested(63)})
    assert at_limit.status_code == 400 and "max_depth" not in at_limit.json()["details"]
    over = client.post("/api/systems/t9a/own-units/check", json={"x": eval_nested(64)})
    assert over.status_code == 400 and over.json()["details"]["depth"] == MAX_DEPTH + 1


def eval_nested(n: int) -> Any:
    value: Any = 1
    for _ in range(n):
        value = [value]
    return value


def _ask(ws: Any, raw: str) -> dict[str, Any]:
    """Send one raw frame and read until the answer to it (an error has no ref: the frame
    could not be read, so neither could its ref)."""
    ws.send_text(raw)
    for _ in range(20):
        frame: dict[str, Any] = ws.receive_json()
        if frame["type"] in ("error", "measure_result"):
            return frame
    raise AssertionError("no answer")


def test_websocket_frames_nested_thousands_deep_get_an_error_frame_and_the_socket_still_works(
    client: TestClient,
) -> None:
    game = new_game(client)
    before = client.get(f"/api/games/{game['id']}").json()
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        ws.send_json({"type": "hello", "token": game["p1"], "since": None})
        receive_until(ws, "welcome")
        for raw in [*DEEP.values(),
                    '{"type":"action","ref":"q","action":' + objects(3000) + "}"]:
            frame = _ask(ws, raw)
            assert (frame["type"], frame["ref"]) == ("error", None), frame
            assert_too_deep(frame, raw)
            assert frame["message"].startswith("the frame is not valid JSON")
            answer = _ask(ws, '{"type":"measure","ref":"m","from":{"x":0,"y":0},'
                          '"to":{"x":3,"y":4}}')
            assert (answer["type"], answer["distance"]) == ("measure_result", 5)
    after = client.get(f"/api/games/{game['id']}").json()
    assert after["seq"] == before["seq"] and after["state"] == before["state"]
