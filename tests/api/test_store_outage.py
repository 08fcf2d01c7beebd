"""The database going away under a running server (a PostgreSQL restart, a dropped connection)
is an expected fault: the message in flight is answered `unavailable` with when to send it
again, never `internal`; sent again with the same ref it counts once; REST answers 503 with
Retry-After; a socket saying hello meanwhile is closed with 1013 (try again later). The real
restart runs in tests/deploy/test_stack.py; here the store fails on cue."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from server.store import StoreUnavailable
from tests.api.helpers import new_game, receive_until

NOTE = {"type": "note", "text": "the river is fordable"}


def hello(ws: Any, token: str | None) -> dict[str, Any]:
    ws.send_json({"type": "hello", "token": token})
    return receive_until(ws, "welcome")


class Outage:
    """The store's appends fail with `fault` while `down` is set (nothing is stored): the
    group commit's on SQLite, the event loop's on PostgreSQL."""

    def __init__(self, store: Any, monkeypatch: pytest.MonkeyPatch, fault: Exception) -> None:
        self.down, self.fault = True, fault
        append_many, append_many_async = store.append_many, store.append_many_async

        def failing(requests: Any) -> Any:
            if self.down:
                raise self.fault
            return append_many(requests)

        async def failing_async(requests: Any) -> Any:
            if self.down:
                raise self.fault
            return await append_many_async(requests)

        monkeypatch.setattr(store, "append_many", failing)
        monkeypatch.setattr(store, "append_many_async", failing_async)


@pytest.mark.parametrize("fault", [
    StoreUnavailable("the database cannot be reached"),
    sa.exc.OperationalError("INSERT", {}, psycopg.OperationalError("server closed the connection")),
], ids=["store-unavailable", "driver-operational-error"])
def test_an_action_the_database_cannot_take_is_unavailable_and_its_resend_counts_once(
        client: TestClient, monkeypatch: pytest.MonkeyPatch, fault: Exception) -> None:
    game = new_game(client)
    store = client.app.state.service.store  # type: ignore[attr-defined]
    with client.websocket_connect(f"/ws/games/{game['id']}") as p1:
        start = hello(p1, game["p1"])["seq"]
        outage = Outage(store, monkeypatch, fault)
        p1.send_json({"type": "action", "ref": "c-1", "action": NOTE})
        refused = receive_until(p1, "error")
        assert refused["ref"] == "c-1"
        assert refused["code"] == "unavailable", refused
        assert refused["details"]["retry"] is True
        assert refused["details"]["retry_after"] > 0
        assert len(client.get(f"/api/games/{game['id']}/events?since={start}").json()
                   ["events"]) == 0

        outage.down = False  # the database is back: the client sends the same frame again
        p1.send_json({"type": "action", "ref": "c-1", "action": NOTE})
        ack = receive_until(p1, "ack")
        p1.send_json({"type": "action", "ref": "c-1", "action": NOTE})  # (a second resend)
        assert receive_until(p1, "ack") == ack
    stored = client.get(f"/api/games/{game['id']}/events?since={start}").json()["events"]
    assert [e["type"] for e in stored] == ["note_added"]


def test_rest_answers_503_with_retry_after_while_the_database_is_away(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    store = client.app.state.service.store  # type: ignore[attr-defined]

    def down(*_args: Any, **_kwargs: Any) -> Any:
        raise sa.exc.OperationalError("INSERT", {}, Exception("connection refused"),
                                      connection_invalidated=True)

    monkeypatch.setattr(store, "create_game", down)
    answer = client.post("/api/games", json={"system": "t9a"})
    assert answer.status_code == 503
    assert answer.headers["Retry-After"] == "1"
    assert answer.json()["code"] == "unavailable"
    assert "database" in answer.json()["message"]


def test_a_store_bug_is_still_internal_not_unavailable(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a connection that failed is `unavailable`: a broken statement is a bug (500)."""
    store = client.app.state.service.store  # type: ignore[attr-defined]

    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise sa.exc.ProgrammingError("INSERT", {}, Exception("syntax error"))

    monkeypatch.setattr(store, "create_game", broken)
    answer = client.post("/api/games", json={"system": "t9a"})
    assert answer.status_code == 500
    assert answer.json()["code"] == "internal"


def test_a_hello_while_the_database_is_away_is_closed_try_again_later(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    game = new_game(client)
    service = client.app.state.service  # type: ignore[attr-defined]

    async def away(_game_id: str) -> Any:
        raise StoreUnavailable("the database cannot be reached")

    monkeypatch.setattr(service, "live", away)
    with client.websocket_connect(f"/ws/games/{game['id']}") as p1:
        p1.send_json({"type": "hello", "token": game["p1"]})
        refused = receive_until(p1, "error")
        assert refused["code"] == "unavailable"
        with pytest.raises(WebSocketDisconnect) as closed:
            p1.receive_json()
        assert closed.value.code == 1013
