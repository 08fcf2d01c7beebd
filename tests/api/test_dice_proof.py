"""`GET /api/games/{id}/dice-proof` and `/export`, and the seed never leaving the server before
the end of the game (issue 4, item 1; issue 8, item 6). SQLite and PostgreSQL."""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from fastapi.testclient import TestClient

from server import dice
from server.games import archive
from tests.api.helpers import auth, new_game


def act(client: TestClient, gid: str, token: str, action: dict[str, Any]) -> Any:
    r = client.post(f"/api/games/{gid}/actions", json={"action": action}, headers=auth(token))
    assert r.status_code == 200, r.text
    return r


def test_dice_proof_before_and_after_the_end(client: TestClient) -> None:
    game = new_game(client)
    gid = game["id"]
    proof = client.get(f"/api/games/{gid}/dice-proof").json()
    assert proof == {"commitment": game["dice_commitment"], "revealed": False, "rolls": 0}
    for expr in ("2D6", "D3", "scatter"):
        act(client, gid, game["p1"], {"type": "roll_dice", "dice": expr})
    proof = client.get(f"/api/games/{gid}/dice-proof", headers=auth(game["p2"])).json()
    assert proof == {"commitment": game["dice_commitment"], "revealed": False, "rolls": 3}

    act(client, gid, game["p1"], {"type": "concede"})
    proof = client.get(f"/api/games/{gid}/dice-proof").json()
    assert proof["revealed"] is True and proof["verified"] is True
    assert proof["rolls"] == 3 and proof["failures"] == []
    assert dice.commitment(bytes.fromhex(proof["seed"])) == game["dice_commitment"]


def _tamper(client: TestClient, gid: str, seq: int, change: Any) -> None:
    """Change the stored roll of event `seq` behind the server's back (`change(roll)`)."""
    store = client.app.state.service.store  # type: ignore[attr-defined]
    event = store.events(gid, seq - 1, seq)[0]
    payload = json.loads(json.dumps(event.payload))
    change(payload["roll"])
    with store.writer.begin() as conn:
        conn.execute(sa.text("UPDATE events SET payload = :p WHERE game_id = :g AND seq = :s")
                     .bindparams(sa.bindparam("p", type_=sa.JSON)),
                     {"p": payload, "g": gid, "s": seq})


def test_dice_proof_reports_a_corrupted_log(client: TestClient) -> None:
    game = new_game(client)
    gid = game["id"]
    seq = act(client, gid, game["p1"], {"type": "roll_dice", "dice": "3D6"}).json()["seq"]
    act(client, gid, game["p2"], {"type": "concede"})
    _tamper(client, gid, seq, lambda roll: roll.update(total=1000))
    proof = client.get(f"/api/games/{gid}/dice-proof").json()
    assert proof["verified"] is False
    assert proof["failures"][0]["seq"] == seq
    assert "total recorded 1000" in proof["failures"][0]["reason"]


def test_export_only_after_the_end(client: TestClient) -> None:
    game = new_game(client)
    gid = game["id"]
    r = client.get(f"/api/games/{gid}/export", headers=auth(game["p1"]))
    assert r.status_code == 409 and r.json()["code"] == "conflict"
    act(client, gid, game["p1"], {"type": "roll_dice", "dice": "D6"})
    act(client, gid, game["p1"], {"type": "concede"})
    doc = client.get(f"/api/games/{gid}/export").json()
    assert doc["format"] == "warfield-game/1" and doc["over"] and doc["complete"]
    assert doc["seats"] == [1, 2] and doc["game"]["id"] == gid
    assert game["p1"] not in json.dumps(doc) and game["p2"] not in json.dumps(doc)
    assert archive.verify_export(doc).exit_code == 0
    assert client.get("/api/games/nope/export").status_code == 404
    assert client.get("/api/games/nope/dice-proof").status_code == 404
    bad = client.get(f"/api/games/{gid}/export", headers=auth("forged"))
    assert bad.status_code == 401


def test_the_seed_never_leaves_before_the_end(client: TestClient) -> None:
    """A scripted game over REST and the websocket (two players, a spectator): the seed's hex
    appears in no response and no frame until the game ends, then in the reveal."""
    game = new_game(client)
    gid = game["id"]
    seed = client.app.state.service.cached(gid).record.dice_seed  # type: ignore[attr-defined]
    secret = seed.hex()
    seen: list[str] = []

    def rest(method: str, url: str, **kw: Any) -> Any:
        r = client.request(method, url, **kw)
        seen.append(r.text)
        return r

    frames: dict[int, list[dict[str, Any]]] = {1: [], 2: [], 0: []}

    def read_until(ws: Any, who: int, want: Any) -> dict[str, Any]:
        for _ in range(100):
            frame = ws.receive_json()
            frames[who].append(frame)
            seen.append(json.dumps(frame))
            if want(frame):
                return frame
        raise AssertionError("frame not received")

    def events_of(who: int) -> list[dict[str, Any]]:
        return [e for f in frames[who] if f["type"] == "events" for e in f["events"]]

    def wait_events(ws: Any, who: int, seq: int) -> None:
        if not any(e["seq"] >= seq for e in events_of(who)):
            read_until(ws, who, lambda f: f["type"] == "events"
                       and any(e["seq"] >= seq for e in f["events"]))

    url = f"/ws/games/{gid}"
    with client.websocket_connect(url) as p1, client.websocket_connect(url) as p2, \
            client.websocket_connect(url) as spectator:
        sockets = ((p1, 1, game["p1"]), (p2, 2, game["p2"]), (spectator, 0, None))
        for ws, who, token in sockets:
            ws.send_json({"type": "hello", "token": token, "since": 0})
            read_until(ws, who, lambda f: f["type"] == "welcome")
        script = [
            (p1, 1, {"type": "place_token", "x": 10, "y": 10}),
            (p2, 2, {"type": "roll_dice", "dice": "2D6", "reason": "charge"}),
            (p1, 1, {"type": "roll_dice", "dice": "D6 maximised x1"}),
            (p2, 2, {"type": "roll_dice", "dice": "scatter"}),
            (p1, 1, {"type": "roll_dice", "dice": "artillery"}),
            (p2, 2, {"type": "roll_dice", "dice": "nonsense"}),  # an error frame too
        ]
        for i, (ws, who, action) in enumerate(script):
            ws.send_json({"type": "action", "ref": f"c{i}", "action": action})
            read_until(ws, who, lambda f: f["type"] in ("ack", "error"))
        for ws, who, _ in sockets:
            wait_events(ws, who, 8)
            assert [e["seq"] for e in events_of(who)] == list(range(1, 9))
        for token in (game["p1"], game["p2"], None):
            headers = auth(token) if token else {}
            rest("GET", f"/api/games/{gid}", headers=headers)
            rest("GET", f"/api/games/{gid}/events", headers=headers)
            rest("GET", f"/api/games/{gid}/dice-proof", headers=headers)
            rest("GET", f"/api/games/{gid}/export", headers=headers)
            for action in ({"type": "concede"}, {"type": "roll_dice", "dice": "D6"}):
                preview = rest("POST", f"/api/games/{gid}/preview", headers=headers,
                               json={"action": action})
                assert preview.status_code in (200, 403), preview.text
        p1.send_json({"type": "preview", "ref": "p", "action": {"type": "concede"}})
        read_until(p1, 1, lambda f: f.get("ref") == "p")
        rest("GET", "/openapi.json")
        assert len(seen) > 20
        assert all(secret not in text for text in seen), "the seed leaked before the end"
        # In the database only the games table holds it.
        with client.app.state.service.store.engine.connect() as conn:  # type: ignore
            dump = repr(conn.execute(sa.text("SELECT * FROM events")).all())
        assert secret not in dump

        p2.send_json({"type": "action", "ref": "end", "action": {"type": "concede"}})
        read_until(p2, 2, lambda f: f["type"] == "ack")
        for ws, who, _ in sockets:
            wait_events(ws, who, 10)
            end = [e for e in events_of(who) if e["seq"] > 8]
            assert [e["type"] for e in end] == ["game_ended", "dice_revealed"]
            assert end[1]["payload"] == {"seed": secret, "commitment": game["dice_commitment"]}
    proof = rest("GET", f"/api/games/{gid}/dice-proof").json()
    assert proof["seed"] == secret and proof["verified"] and proof["rolls"] == 4


def test_a_failed_check_reads_in_words_not_python_dict_text(client: TestClient) -> None:
    """A roll whose recorded details were changed fails in words, on the proof and in the
    battle report: no dict or list printed as Python writes it."""
    game = new_game(client)
    gid = game["id"]
    seq = act(client, gid, game["p1"], {"type": "roll_dice", "dice": "2D6"}).json()["seq"]
    act(client, gid, game["p2"], {"type": "concede"})
    _tamper(client, gid, seq, lambda roll: roll.update(extra={"seat": 1, "reason": "x"}))
    proof = client.get(f"/api/games/{gid}/dice-proof").json()
    assert proof["verified"] is False
    reason = proof["failures"][0]["reason"]
    assert "reason, seat" in reason and "{" not in reason and "[" not in reason, reason
    report = client.get(f"/api/games/{gid}/report", headers=auth(game["p1"]))
    assert report.status_code == 200, report.text
    assert "reason, seat" in report.text and "{'" not in report.text
