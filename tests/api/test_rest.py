"""REST: games, seats, reads as a viewer, events, errors (issue 2, on SQLite and PostgreSQL)."""

from __future__ import annotations

import hashlib

import sqlalchemy as sa
from fastapi.testclient import TestClient

from tests.api.helpers import auth, new_game


def test_create_game_defaults_per_system(client: TestClient) -> None:
    for system, size in [("t9a", (72, 48)), ("whfb8", (72, 48)), ("wh40k10", (60, 44))]:
        r = client.post("/api/games", json={"system": system, "name": "Friday"})
        assert r.status_code == 201
        body = r.json()
        assert body["system"] == system and body["seat"] == 1
        assert len(body["token"]) >= 22 and len(body["dice_commitment"]) == 64
        state = client.get(f"/api/games/{body['id']}").json()["state"]
        assert (state["battlefield"]["width"], state["battlefield"]["depth"]) == size
        assert state["name"] == "Friday"


def test_battlefield_can_be_overridden(client: TestClient) -> None:
    r = client.post("/api/games", json={"system": "t9a", "battlefield": {"width": 48, "depth": 48}})
    state = client.get(f"/api/games/{r.json()['id']}").json()["state"]
    assert state["battlefield"] == {"width": 48.0, "depth": 48.0}


def test_bad_create_requests(client: TestClient) -> None:
    for body in [{"system": "chess"}, {}, {"system": "t9a", "battlefield": {"width": -1,
                                                                           "depth": 4}}]:
        r = client.post("/api/games", json=body)
        assert r.status_code == 400
        assert r.json()["code"] == "bad_request" and r.json()["message"]
    r = client.post("/api/games", content=b"{not json", headers={"content-type":
                                                                 "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "bad_request"


def test_second_seat_then_conflict(client: TestClient) -> None:
    game = client.post("/api/games", json={"system": "t9a"}).json()
    r = client.post(f"/api/games/{game['id']}/seats", json={"invite": game["invite"]})
    assert r.status_code == 201 and r.json()["seat"] == 2
    assert r.json()["token"] != game["token"]
    again = client.post(f"/api/games/{game['id']}/seats", json={"invite": game["invite"]})
    assert again.status_code == 409 and again.json()["code"] == "conflict"


def test_unknown_game_is_404(client: TestClient) -> None:
    for r in [client.get("/api/games/nope"), client.post("/api/games/nope/seats"),
              client.get("/api/games/nope/events")]:
        assert r.status_code == 404 and r.json()["code"] == "not_found"


def test_tokens_are_stored_only_as_hashes(client: TestClient) -> None:
    game = new_game(client)
    engine = client.app.state.service.store.engine
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT token_hash FROM seats WHERE game_id = :g"),
                            {"g": game["id"]}).scalars().all()
    assert sorted(rows) == sorted(hashlib.sha256(t.encode()).hexdigest()
                                  for t in (game["p1"], game["p2"]))
    with engine.connect() as conn:
        dump = " ".join(str(r) for r in conn.execute(sa.text("SELECT * FROM events")).all())
    assert game["p1"] not in dump and game["p2"] not in dump


def test_read_with_and_without_tokens(client: TestClient) -> None:
    game = new_game(client)
    assert client.get(f"/api/games/{game['id']}").status_code == 200
    assert client.get(f"/api/games/{game['id']}", headers=auth(game["p1"])).status_code == 200
    bad = client.get(f"/api/games/{game['id']}", headers=auth("forged-token"))
    assert bad.status_code == 401 and bad.json()["code"] == "unauthorized"
    other = new_game(client)
    cross = client.get(f"/api/games/{game['id']}", headers=auth(other["p1"]))
    assert cross.status_code == 401
    basic = client.get(f"/api/games/{game['id']}", headers={"Authorization": "Basic abc"})
    assert basic.status_code == 401


def test_actions_over_rest_and_events_since(client: TestClient) -> None:
    game = new_game(client)
    gid = game["id"]
    r = client.post(f"/api/games/{gid}/actions", headers=auth(game["p1"]),
                    json={"action": {"type": "place_token", "x": 3, "y": 4, "label": "Spears"}})
    assert r.status_code == 200 and r.json() == {"seq": 4}
    r = client.post(f"/api/games/{gid}/actions", headers=auth(game["p2"]),
                    json={"action": {"type": "roll_dice", "dice": "2D6", "reason": "charge"}})
    assert r.json() == {"seq": 5}
    events = client.get(f"/api/games/{gid}/events", params={"since": 3}).json()["events"]
    assert [(e["seq"], e["type"], e["actor"]) for e in events] == [
        (4, "token_placed", 1), (5, "dice_rolled", 2)]
    roll = events[1]["payload"]["roll"]
    assert len(roll["dice"]) == 2 and roll["total"] == sum(d["face"] for d in roll["dice"])
    view = client.get(f"/api/games/{gid}").json()
    assert view["seq"] == 5 and view["state"]["tokens"]["t1"]["label"] == "Spears"
    assert client.get(f"/api/games/{gid}/events", params={"since": -1}).status_code == 400


def test_rest_action_errors_change_nothing(client: TestClient) -> None:
    game = new_game(client)
    gid = game["id"]
    cases = [
        (None, {"action": {"type": "note", "text": "x"}}, 403, "forbidden"),
        (game["p1"], {"action": {"type": "place_token", "x": 100, "y": 4}}, 422, "illegal_move"),
        (game["p1"], {"action": {"type": "fly"}}, 400, "bad_request"),
        (game["p1"], {"action": {"type": "note", "text": "x"}, "expected_seq": 1}, 409, "stale"),
    ]
    for token, body, status, code in cases:
        r = client.post(f"/api/games/{gid}/actions", json=body,
                        headers=auth(token) if token else {})
        assert (r.status_code, r.json()["code"]) == (status, code), r.text
    assert client.get(f"/api/games/{gid}").json()["seq"] == 3
    stale = client.post(f"/api/games/{gid}/actions", headers=auth(game["p1"]),
                        json={"action": {"type": "note", "text": "x"}, "expected_seq": 1})
    assert stale.json()["details"]["seq"] == 3


def test_openapi_and_systems(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert "/api/games" in schema["paths"] and "/api/games/{game_id}/seats" in schema["paths"]
    assert client.get("/docs").status_code == 200
    systems = client.get("/api/systems").json()["systems"]
    assert {s["id"] for s in systems} == {"t9a", "whfb8", "wh40k10"}
    assert client.get("/api/systems/chess/datasheets").status_code == 404


def test_health(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["database"] == "ok"
