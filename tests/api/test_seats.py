"""Seats belong to the invited (issue 12 item 2): seat 2 is claimed with the game's invite
secret, created with the game, stored hashed and shown only to its creator; the spectator's
view never holds it. Games made before invites existed (migration 0002) keep a claimable seat
until the host gives them an invite with `warfield invite`. On SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from server.cli import main as warfield
from tests.api.helpers import auth, receive_until


def _seats(client: TestClient, game_id: str) -> dict[str, bool]:
    return client.get(f"/api/games/{game_id}").json()["state"]["seats"]


def test_a_spectator_cannot_take_seat_2_without_the_invite(client: TestClient) -> None:
    game = client.post("/api/games", json={"system": "t9a"}).json()
    gid, invite = game["id"], game["invite"]
    assert len(invite) >= 22 and invite != game["token"]
    # Everything a spectator can read: the game, its log, the websocket's welcome.
    seen = json.dumps([client.get(f"/api/games/{gid}").json(),
                       client.get(f"/api/games/{gid}/events").json()])
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"type": "hello", "token": None, "since": 0})
        seen += json.dumps(receive_until(ws, "welcome"))
    assert invite not in seen
    bodies = ["", "{}", '{"invite": null}', '{"invite": "not-the-invite"}',
              json.dumps({"invite": game["token"]})]
    for body in bodies:
        r = client.post(f"/api/games/{gid}/seats", content=body,
                        headers={"Content-Type": "application/json"} if body else {})
        assert (r.status_code, r.json()["code"]) == (403, "forbidden"), (body, r.text)
        assert "invite" in r.json()["message"]
    garbled = client.post(f"/api/games/{gid}/seats", content='{"invite": "\\ud800"}',
                          headers={"Content-Type": "application/json"})
    assert (garbled.status_code, garbled.json()["code"]) == (400, "bad_request")
    assert _seats(client, gid) == {"1": True, "2": False}  # the refusals changed nothing
    taken = client.post(f"/api/games/{gid}/seats", json={"invite": invite})
    assert taken.status_code == 201 and taken.json()["seat"] == 2
    assert client.get(f"/api/games/{gid}", headers=auth(taken.json()["token"])).status_code == 200
    again = client.post(f"/api/games/{gid}/seats", json={"invite": invite})
    assert (again.status_code, again.json()["code"]) == (409, "conflict")


def test_an_invite_opens_only_its_own_game(client: TestClient) -> None:
    a = client.post("/api/games", json={"system": "t9a"}).json()
    b = client.post("/api/games", json={"system": "whfb8"}).json()
    r = client.post(f"/api/games/{b['id']}/seats", json={"invite": a["invite"]})
    assert (r.status_code, r.json()["code"]) == (403, "forbidden")
    assert _seats(client, b["id"]) == {"1": True, "2": False}


def test_the_invite_is_stored_only_as_its_hash(client: TestClient) -> None:
    game = client.post("/api/games", json={"system": "t9a"}).json()
    engine = client.app.state.service.store.engine  # type: ignore[attr-defined]
    with engine.connect() as conn:
        row = conn.execute(sa.text("SELECT * FROM games WHERE id = :g"), {"g": game["id"]}).one()
        events = conn.execute(sa.text("SELECT * FROM events")).all()
    assert row.invite_hash == hashlib.sha256(game["invite"].encode()).hexdigest()
    assert game["invite"] not in " ".join(str(r) for r in [row, *events])


def test_a_game_made_before_invites_keeps_its_free_seat_until_the_host_invites(
    client: TestClient, database_url: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A pre-0002 game has no invite hash (the migration adds the column as NULL): its seat 2
    is claimed as before. `warfield invite` gives it an invite; then only that one works."""
    engine = client.app.state.service.store.engine  # type: ignore[attr-defined]
    old = client.post("/api/games", json={"system": "t9a"}).json()
    old2 = client.post("/api/games", json={"system": "t9a"}).json()
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE games SET invite_hash = NULL WHERE id IN (:a, :b)"),
                     {"a": old["id"], "b": old2["id"]})
    legacy = client.post(f"/api/games/{old['id']}/seats")
    assert legacy.status_code == 201 and legacy.json()["seat"] == 2

    monkeypatch.setenv("DATABASE_URL", database_url)
    assert warfield(["invite", old2["id"]]) == 0
    printed = capsys.readouterr().out
    invite = printed.split("invite: ", 1)[1].split()[0]
    assert f"/games/{old2['id']}#join={invite}" in printed
    refused = client.post(f"/api/games/{old2['id']}/seats")
    assert (refused.status_code, refused.json()["code"]) == (403, "forbidden")
    assert client.post(f"/api/games/{old2['id']}/seats",
                       json={"invite": invite}).status_code == 201
    # Nothing to invite to once both seats are taken, nor in a game that does not exist.
    assert warfield(["invite", old2["id"]]) == 1
    assert warfield(["invite", "no-such-game"]) == 1
    assert "both seats" in capsys.readouterr().err


def test_refs_that_are_not_unicode_text_are_refused_before_the_database(
    client: TestClient,
) -> None:
    """A lone surrogate is valid JSON but no UTF-8 text: refused with `bad_request` over REST
    and over the websocket, and nothing is stored."""
    created = client.post("/api/games", json={"system": "t9a"}).json()
    gid = created["id"]
    seat2 = client.post(f"/api/games/{gid}/seats", json={"invite": created["invite"]}).json()
    body = '{"ref": "\\ud800", "action": {"type": "note", "text": "x"}}'
    r = client.post(f"/api/games/{gid}/actions", content=body,
                    headers={**auth(created["token"]), "Content-Type": "application/json"})
    assert (r.status_code, r.json()["code"]) == (400, "bad_request"), r.text
    assert "ref" in r.json()["message"]
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"type": "hello", "token": seat2["token"], "since": None})
        receive_until(ws, "welcome")
        ws.send_text('{"type": "action", "ref": "a\\udfff", "action": {"type": "note", '
                     '"text": "y"}}')
        error = receive_until(ws, "error")
        assert error["code"] == "bad_request" and "ref" in error["message"]
        assert error["ref"] == "a\udfff"  # echoed back (JSON-escaped), so the client can match
        ws.send_json({"type": "ping", "ref": "after"})
        assert receive_until(ws, "pong")["ref"] == "after"  # the socket is fine
    assert client.get(f"/api/games/{gid}").json()["seq"] == 3  # nothing was applied
    engine: Any = client.app.state.service.store.engine  # type: ignore[attr-defined]
    with engine.connect() as conn:
        stored = sa.text("SELECT count(*) FROM actions WHERE game_id = :g")
        assert conn.execute(stored, {"g": gid}).scalar() == 0
