"""Hostile numbers and shapes over REST and the websocket (issue 12 items 4g and 5): every
answer is a documented code, never a 500 or `internal`; per-game limits answer `bad_request`
naming the limit.

Before: `/measure` with 1e300, NaN or Infinity was a 500, `/ambush-options` too (and a facing
of Infinity), `place_terrain` with identical or collinear points a 500 (a failed assert); the
websocket answered the same inputs with the undocumented code `internal`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.rules import setup, table
from tests.api.helpers import auth, new_game, receive_until

# Raw JSON numbers a hostile client can write: Python's parser reads them all.
HOSTILE = ["NaN", "Infinity", "-Infinity", "1e300", "-1e300", "1e400", "1" + "0" * 400]
DOCUMENTED = {"bad_request", "unauthorized", "forbidden", "not_found", "stale", "out_of_phase",
              "illegal_move", "rate_limited", "too_large"}


def _post(client: TestClient, game: dict[str, Any], path: str, raw: str,
          token: str | None = None) -> Any:
    headers = {"content-type": "application/json", **(auth(token) if token else {})}
    return client.post(f"/api/games/{game['id']}/{path}", content=raw.encode(), headers=headers)


def _ask(ws: Any, raw: str) -> dict[str, Any]:
    """Send one raw frame with ref "q" and read until its answer."""
    ws.send_text(raw)
    for _ in range(20):
        frame: dict[str, Any] = ws.receive_json()
        if frame.get("ref") == "q":
            return frame
    raise AssertionError("no answer")


def _hello(ws: Any, token: str | None) -> dict[str, Any]:
    ws.send_json({"type": "hello", "token": token, "since": None})
    return receive_until(ws, "welcome")


def _act(client: TestClient, game: dict[str, Any], token: str, **action: Any) -> Any:
    return client.post(f"/api/games/{game['id']}/actions", headers=auth(token),
                       json={"action": action})


def test_measure_refuses_non_finite_coordinates_with_bad_request(client: TestClient) -> None:
    game = new_game(client)
    bodies = [f'{{"from":{{"x":{v},"y":1}},"to":{{"x":1,"y":2}}}}' for v in HOSTILE]
    # Finite and within the largest table, but more than 12 in off this 72 x 48 one.
    bodies.append('{"from":{"x":200,"y":1},"to":{"x":1,"y":2}}')
    bodies.append('{"from":"u1","to":{"x":1,"y":-1e300}}')
    for body in bodies:
        answer = _post(client, game, "measure", body)
        assert answer.status_code == 400, (body, answer.text)
        assert answer.json()["code"] == "bad_request" and answer.json()["message"], body
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        _hello(ws, game["p1"])
        for body in bodies:
            frame = _ask(ws, '{"type":"measure","ref":"q",' + body[1:])
            assert (frame["type"], frame["code"]) == ("error", "bad_request"), (body, frame)
        ok = _ask(ws, '{"type":"measure","ref":"q","from":{"x":-12,"y":0},"to":{"x":0,"y":0}}')
        assert (ok["type"], ok["distance"]) == ("measure_result", 12)
    answer = _post(client, game, "measure", '{"from":{"x":0,"y":0},"to":{"x":3,"y":4}}')
    assert answer.status_code == 200 and answer.json()["distance"] == 5


def _ambush_game(client: TestClient) -> tuple[dict[str, Any], str]:
    game = new_game(client, "t9a")
    assert _act(client, game, game["p1"], type="submit_army", units=[
        {"datasheet": "mageblight-gremlin", "models": 3}]).status_code == 200
    assert _act(client, game, game["p2"], type="submit_army", units=[
        {"datasheet": "citizen-spears", "models": 20}]).status_code == 200
    units = client.get(f"/api/games/{game['id']}").json()["state"]["units"]
    gremlins = next(u for u, v in units.items() if v["datasheet"] == "mageblight-gremlin")
    assert _act(client, game, game["p1"], type="declare_reserve",
                unit=gremlins).status_code == 200
    return game, gremlins


def test_ambush_options_refuses_non_finite_points_and_facings_with_bad_request(
    client: TestClient,
) -> None:
    game, unit = _ambush_game(client)
    bodies = []
    for v in HOSTILE:
        bodies.append(f'{{"unit":"{unit}","point":{{"x":{v},"y":0}}}}')
        bodies.append(f'{{"unit":"{unit}","point":{{"x":20,"y":0}},'
                      f'"placement":{{"x":{v},"y":3,"facing":0}}}}')
        if v not in ("1e300", "-1e300"):  # a finite facing is normalised, not refused
            bodies.append(f'{{"unit":"{unit}","point":{{"x":20,"y":0}},'
                          f'"placement":{{"x":20,"y":3,"facing":{v}}}}}')
    bodies.append(f'{{"unit":"{unit}","point":{{"x":20,"y":100}}}}')  # 52 in off this table
    for body in bodies:
        answer = _post(client, game, "ambush-options", body)
        assert answer.status_code == 400, (body, answer.text)
        assert answer.json()["code"] == "bad_request", body
    good = f'{{"unit":"{unit}","point":{{"x":20,"y":0}},"placement":{{"x":20,"y":3,"facing":720}}}}'
    answer = _post(client, game, "ambush-options", good)
    assert answer.status_code == 200, answer.text
    assert answer.json()["requested"]["placement"]["facing"] == 0  # normalised
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        _hello(ws, None)
        for body in bodies:
            frame = _ask(ws, '{"type":"ambush_options","ref":"q",' + body[1:])
            assert (frame["type"], frame["code"]) == ("error", "bad_request"), (body, frame)
        frame = _ask(ws, '{"type":"ambush_options","ref":"q",' + good[1:])
        assert frame["type"] == "ambush_options_result"


TERRAIN = {
    "collinear": ([[1, 1], [2, 2], [3, 3]], "one line"),
    "identical": ([[1, 1], [1, 1], [1, 1]], "3 distinct points"),
    "bowtie": ([[10, 10], [20, 20], [20, 10], [10, 20]], "crosses or touches itself at (15, 15)"),
}


def _refused_terrain_leaves_the_table_bare(client: TestClient, name: str) -> None:
    points, says = TERRAIN[name]
    game = new_game(client)
    seq = client.get(f"/api/games/{game['id']}").json()["seq"]
    answer = _act(client, game, game["p1"], type="place_terrain", kind="cover", points=points)
    assert answer.status_code == 400, answer.text
    assert answer.json()["code"] == "bad_request" and says in answer.json()["message"]
    assert answer.json()["details"]["field"] == "points"
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        _hello(ws, game["p2"])
        frame = _ask(ws, json.dumps({"type": "action", "ref": "q", "action": {
            "type": "place_terrain", "kind": "cover", "points": points}}))
        assert (frame["type"], frame["code"]) == ("error", "bad_request")
        assert says in frame["message"]
    view = client.get(f"/api/games/{game['id']}").json()
    assert view["seq"] == seq and view["state"]["terrain"] == []


def test_collinear_terrain_is_refused(client: TestClient) -> None:
    _refused_terrain_leaves_the_table_bare(client, "collinear")
    _refused_terrain_leaves_the_table_bare(client, "identical")


def test_bowtie_terrain_is_refused_not_hulled(client: TestClient) -> None:
    _refused_terrain_leaves_the_table_bare(client, "bowtie")


@pytest.mark.parametrize("what", ["tokens", "terrain", "notes"])
def test_token_terrain_and_note_limits_per_game(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    """Past a game's limit (lowered to 2 here; the real ones are proven in
    tests/rules/test_limits_and_inputs.py) REST and the websocket answer `bad_request` naming
    it, and nothing is added."""
    monkeypatch.setattr(table, "MAX_TOKENS", 2)
    monkeypatch.setattr(table, "MAX_NOTES", 2)
    monkeypatch.setattr(setup, "MAX_TERRAIN_PIECES", 2)
    actions = {
        "tokens": [{"type": "place_token", "x": 5 + i, "y": 5} for i in range(4)],
        "terrain": [{"type": "place_terrain", "kind": "cover",
                     "points": [[2 + 4 * i, 2], [4 + 4 * i, 2], [4 + 4 * i, 4]]}
                    for i in range(4)],
        "notes": [{"type": "note", "text": f"note {i}"} for i in range(4)],
    }[what]
    game = new_game(client)
    for action in actions[:2]:
        assert _act(client, game, game["p1"], **action).status_code == 200
    answer = _act(client, game, game["p1"], **actions[2])
    assert answer.status_code == 400, answer.text
    assert answer.json()["code"] == "bad_request"
    assert answer.json()["details"] == {"field": what, "limit": 2}
    assert "at most 2" in answer.json()["message"]
    seq = client.get(f"/api/games/{game['id']}").json()["seq"]
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        _hello(ws, game["p2"])
        frame = _ask(ws, json.dumps({"type": "action", "ref": "q", "action": actions[3]}))
        assert (frame["type"], frame["code"]) == ("error", "bad_request")
        assert frame["details"] == {"field": what, "limit": 2}
    assert client.get(f"/api/games/{game['id']}").json()["seq"] == seq


def test_no_websocket_answer_is_internal(client: TestClient) -> None:
    """A battery of hostile frames: each answer is a result or a documented error code."""
    game = new_game(client)
    frames = []
    for v in HOSTILE[:5]:
        frames += [
            f'{{"type":"measure","ref":"q","from":{{"x":{v},"y":{v}}},"to":"t1"}}',
            f'{{"type":"measure","ref":"q","from":{{"x":1,"y":{v}}},"to":{{"x":1,"y":1}}}}',
            f'{{"type":"measure","ref":"q","from":{{"x":1,"y":1}},"to":{{"x":{v}}}}}',
            f'{{"type":"ambush_options","ref":"q","unit":"u1","point":{{"x":{v},"y":0}}}}',
            f'{{"type":"action","ref":"q","action":{{"type":"place_token","x":{v},"y":1}}}}',
            f'{{"type":"action","ref":"q","action":{{"type":"place_terrain","kind":"cover",'
            f'"points":[[1,1],[{v},1],[1,{v}]]}}}}',
            f'{{"type":"preview","ref":"q","action":{{"type":"place_token","x":1,"y":1,'
            f'"facing":{v}}}}}',
        ]
    frames += [
        '{"type":"action","ref":"q","action":{"type":"place_terrain","kind":"cover",'
        '"points":[[1,1],[2,2],[3,3]]}}',
        '{"type":"preview","ref":"q","action":{"type":"place_terrain","kind":"cover",'
        '"points":[[1,1],[1,1],[1,1]]}}',
        '{"type":"measure","ref":"q","from":[1,2],"to":null}',
        '{"type":"measure","ref":"q","from":{"x":"1","y":true},"to":"t1"}',
        '{"type":"line_of_sight","ref":"q","viewer":5,"target":{"x":1}}',
        '{"type":"ambush_options","ref":"q","unit":["u1"],"point":"edge","placement":7}',
    ]
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        _hello(ws, game["p1"])
        for raw in frames:
            frame = _ask(ws, raw)
            if frame["type"] == "error":
                assert frame["code"] in DOCUMENTED, (raw, frame)
                assert frame["code"] != "rate_limited", "test sends too fast"


def test_a_lone_surrogate_ref_never_reaches_the_database(client: TestClient) -> None:
    """JSON may spell a lone surrogate (`"\\ud800"`); the database cannot store it. It was an
    `internal` error over the websocket; now `bad_request`, and nothing is stored."""
    game = new_game(client)
    seq = client.get(f"/api/games/{game['id']}").json()["seq"]
    note = '"action":{"type":"note","text":"hi"}'
    answer = _post(client, game, "actions", '{"ref":"a\\ud800",' + note + "}", game["p1"])
    assert (answer.status_code, answer.json()["code"]) == (400, "bad_request")
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        _hello(ws, game["p1"])
        for ref in ('"\\ud800"', '"a\\udfff"'):
            ws.send_text('{"type":"action","ref":' + ref + "," + note + "}")
            frame = receive_until(ws, "error")
            assert frame["code"] == "bad_request" and "Unicode" in frame["message"]
    assert client.get(f"/api/games/{game['id']}").json()["seq"] == seq
