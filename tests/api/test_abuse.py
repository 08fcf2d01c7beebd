"""Abuse (issue 8 item 4), one test each: the Origin allow-list, tokens never in a URL, the
per-connection rate limit, idle sockets pinged and closed, the cap on sockets per game.

(Elsewhere: frames over 64 KiB close with 1009 in test_ws.py and test_serve.py; a forged or
cross-game token gets `unauthorized` in test_ws.py; no token in the server's log in
test_metrics.py.)
"""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from server.api.app import create_app
from server.config import Settings
from tests.api.helpers import auth, new_game, receive_until


def app_client(tmp_path: Any, **settings: Any) -> TestClient:
    return TestClient(create_app(Settings(
        DATABASE_URL=f"sqlite:///{tmp_path}/w.db", WARFIELD_DATA_DIR=str(tmp_path), **settings)))


@pytest.fixture
def sqlite_client(tmp_path: Any) -> Iterator[TestClient]:
    with app_client(tmp_path) as client:
        yield client


def hello(ws: Any, token: str | None) -> dict[str, Any]:
    ws.send_json({"type": "hello", "token": token, "since": None})
    return receive_until(ws, "welcome")


@pytest.mark.parametrize(
    ("allowed", "origin", "ok"),
    [
        ("", "http://testserver", True),  # same origin as the Host
        ("", "http://evil.example", False),
        ("https://table.example", "https://table.example", True),
        ("https://table.example", "http://testserver", False),  # the list replaces same-origin
        ("https://table.example", None, True),  # not a browser: no Origin, nothing to forge
    ],
)
def test_websocket_origin_allow_list(
    tmp_path: Any, allowed: str, origin: str | None, ok: bool
) -> None:
    with app_client(tmp_path, WARFIELD_ALLOWED_ORIGINS=allowed) as client:
        game = new_game(client)
        headers = {"origin": origin} if origin else {}
        if ok:
            with client.websocket_connect(f"/ws/games/{game['id']}", headers=headers) as ws:
                assert hello(ws, game["p1"])["seat"] == 1
        else:
            with pytest.raises(WebSocketDisconnect) as refused, \
                    client.websocket_connect(f"/ws/games/{game['id']}", headers=headers):
                pass
            assert refused.value.code == 1008


def test_a_token_in_the_url_is_never_read(sqlite_client: TestClient) -> None:
    """Tokens go in `hello` or the Authorization header; a URL carrying one (which an access
    log would record) gets the spectator's view, so no client has a reason to send one."""
    client = sqlite_client
    game = new_game(client)
    for path, spec in client.get("/openapi.json").json()["paths"].items():
        for operation in spec.values():
            names = [p["name"].lower() for p in operation.get("parameters", [])
                     if p["in"] in ("query", "path")]
            assert not any("token" in n or "auth" in n for n in names), (path, names)
    client.post(f"/api/games/{game['id']}/actions", headers=auth(game["p1"]),
                json={"action": {"type": "note", "text": "x"}}).raise_for_status()
    query = f"?token={game['p1']}&access_token={game['p1']}"
    refused = client.post(f"/api/games/{game['id']}/actions{query}",
                          json={"action": {"type": "note", "text": "y"}})
    assert (refused.status_code, refused.json()["code"]) == (403, "forbidden")  # a spectator
    with client.websocket_connect(f"/ws/games/{game['id']}{query}") as ws:
        assert hello(ws, None)["seat"] is None


def test_rate_limited_with_retry_after(tmp_path: Any) -> None:
    with app_client(tmp_path, rate_limit_per_s=1.0, rate_limit_burst=3) as client:
        game = new_game(client)
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            hello(ws, game["p1"])
            for i in range(3):
                ws.send_json({"type": "action", "ref": f"a{i}",
                              "action": {"type": "note", "text": str(i)}})
                assert receive_until(ws, "ack")["ref"] == f"a{i}"
            ws.send_json({"type": "action", "ref": "a3", "action": {"type": "note", "text": "3"}})
            error = receive_until(ws, "error")
            assert (error["ref"], error["code"]) == ("a3", "rate_limited")
            assert 0 < error["details"]["retry_after"] <= 1.0
            ws.send_json({"type": "ping", "ref": "still-open"})  # the socket survives
            assert receive_until(ws, "error")["code"] == "rate_limited"
        # Nothing of the refused action was applied.
        assert client.get(f"/api/games/{game['id']}").json()["seq"] == 6


def test_cap_on_spectator_sockets_per_game(tmp_path: Any) -> None:
    with app_client(tmp_path, max_spectators_per_game=2) as client:
        game, other = new_game(client), new_game(client)
        url = f"/ws/games/{game['id']}"
        with client.websocket_connect(url) as a, client.websocket_connect(url) as b:
            hello(a, None)
            hello(b, None)
            with client.websocket_connect(url) as c:
                c.send_json({"type": "hello", "token": None, "since": None})
                error = c.receive_json()
                assert error["code"] == "rate_limited" and error["details"]["retry_after"] > 0
                with pytest.raises(WebSocketDisconnect) as closed:
                    c.receive_json()
                assert closed.value.code == 1013  # try again later
            # The cap is per game: another game still takes sockets.
            with client.websocket_connect(f"/ws/games/{other['id']}") as d:
                assert hello(d, None)["seat"] is None
        with client.websocket_connect(url) as e:  # a freed place can be taken again
            assert hello(e, None)["seat"] is None


# --- idle sockets: a real process, a raw socket that never answers pings ----------------------


def _frame(text: str | bytes, opcode: int = 0x1) -> bytes:
    """A masked client frame (RFC 6455 5.2): text by default, or a control frame (a pong)."""
    data, mask = text.encode() if isinstance(text, str) else text, os.urandom(4)
    head = bytes([0x80 | opcode]) + (bytes([0x80 | len(data)]) if len(data) < 126
                                     else bytes([0x80 | 126]) + struct.pack("!H", len(data)))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def _raw_socket(server: Any, game_id: str) -> socket.socket:
    """A websocket opened by hand on a raw TCP socket, past the handshake."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws/games/{game_id} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}"
                  f"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
                  f"{key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    response = b""
    while b"\r\n\r\n" not in response:
        response += sock.recv(1)
    assert response.startswith(b"HTTP/1.1 101")
    return sock


def _read_frame(sock: socket.socket) -> tuple[int, bytes] | None:
    """(opcode, payload) of the next server frame; None when the server closed TCP."""
    head = sock.recv(2, socket.MSG_WAITALL)
    if len(head) < 2:
        return None
    size = head[1] & 0x7F
    if size == 126:
        size = struct.unpack("!H", sock.recv(2, socket.MSG_WAITALL))[0]
    elif size == 127:
        size = struct.unpack("!Q", sock.recv(8, socket.MSG_WAITALL))[0]
    return head[0] & 0x0F, sock.recv(size, socket.MSG_WAITALL) if size else b""


def test_idle_sockets_are_pinged_and_closed(serve: Any) -> None:
    server = serve({"WARFIELD_IDLE_PING_S": "0.3"})
    game = httpx.post(server.url + "/api/games", json={"system": "t9a"}).json()
    with _raw_socket(server, game["id"]) as sock:
        sock.sendall(_frame(json.dumps({"type": "hello", "token": None, "since": None})))
        opcodes = []
        while (frame := _read_frame(sock)) is not None:
            opcodes.append(frame[0])
            if frame[0] == 0x8:  # close
                code = struct.unpack("!H", frame[1][:2])[0]
                break
        assert 0x9 in opcodes, "the server never pinged the idle socket"
        assert code == 1011  # keepalive ping timeout: the unanswered socket is closed
        assert _read_frame(sock) is None  # ... and the TCP connection with it


def test_sockets_that_answer_pings_stay_open(serve: Any) -> None:
    """A client that answers every ping is never closed: it waits for the server's fourth ping
    (several ping intervals, each answered), then its own `ping` still gets its `pong`."""
    server = serve({"WARFIELD_IDLE_PING_S": "0.2"})
    game = httpx.post(server.url + "/api/games", json={"system": "t9a"}).json()
    with _raw_socket(server, game["id"]) as sock:
        sock.sendall(_frame(json.dumps({"type": "hello", "token": None, "since": None})))
        pings, asked, texts = 0, False, []
        while (frame := _read_frame(sock)) is not None:
            opcode, payload = frame
            assert opcode != 0x8, f"the socket was closed: {payload!r}"
            if opcode == 0x9:  # the server's ping: answer with a pong of the same payload
                sock.sendall(_frame(payload, opcode=0xA))
                pings += 1
            elif opcode == 0x1:
                texts.append(json.loads(payload))
                if texts[-1].get("ref") == "p":
                    break
            if pings == 4 and not asked:
                sock.sendall(_frame(json.dumps({"type": "ping", "ref": "p"})))
                asked = True
        assert pings >= 4 and texts and texts[-1]["type"] == "pong", texts
