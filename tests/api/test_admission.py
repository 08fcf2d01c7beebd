"""Players are never locked out (issue 12 items 3 and 4c): seats are admitted whatever the
spectators do, a flooding spectator is closed, and a socket that stops reading is closed
(1013, or aborted) without holding up anyone else."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
from contextlib import ExitStack
from typing import Any

import httpx
import pytest
from starlette.websockets import WebSocketDisconnect

from tests.api.helpers import new_game, receive_until
from tests.api.test_abuse import _frame, app_client, hello


def _refused(ws: Any, token: str | None) -> tuple[dict[str, Any], int]:
    """Say hello, expect an error then a close: (the error, the close code)."""
    ws.send_json({"type": "hello", "token": token, "since": None})
    error = ws.receive_json()
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    return error, closed.value.code


def test_seats_are_welcomed_when_spectators_fill_the_game(tmp_path: Any) -> None:
    """The spectator cap is full (set low here, 500 by default): one more spectator is told
    to come back later, and both players still get their `welcome`."""
    with app_client(tmp_path, max_spectators_per_game=5) as client, ExitStack() as stack:
        game = new_game(client)
        url = f"/ws/games/{game['id']}"
        for _ in range(5):
            assert hello(stack.enter_context(client.websocket_connect(url)), None)["seat"] is None
        with client.websocket_connect(url) as extra:
            error, code = _refused(extra, None)
            assert error["code"] == "rate_limited" and error["details"]["retry_after"] > 0
            assert "spectators" in error["message"] and code == 1013
        p1 = stack.enter_context(client.websocket_connect(url))
        assert hello(p1, game["p1"])["seat"] == 1
        p2 = stack.enter_context(client.websocket_connect(url))
        assert hello(p2, game["p2"])["seat"] == 2
        p1.send_json({"type": "action", "ref": "a", "action": {"type": "note", "text": "hi"}})
        assert receive_until(p1, "ack")["ref"] == "a"


def test_each_seat_has_its_own_small_cap_of_sockets(tmp_path: Any) -> None:
    with app_client(tmp_path, max_sockets_per_seat=2, max_spectators_per_game=1) as client, \
            ExitStack() as stack:
        game = new_game(client)
        url = f"/ws/games/{game['id']}"
        def open_as(token: str | None) -> int | None:
            return hello(stack.enter_context(client.websocket_connect(url)), token)["seat"]

        for _ in range(2):
            assert open_as(game["p1"]) == 1
        with client.websocket_connect(url) as third:
            error, code = _refused(third, game["p1"])
            assert error["code"] == "rate_limited" and "seat 1" in error["message"]
            assert code == 1013
        # Seat 1's tabs take nothing from seat 2 or the spectators, nor they from it.
        assert open_as(None) is None
        for _ in range(2):
            assert open_as(game["p2"]) == 2


def test_a_flooding_spectator_is_closed_and_the_players_are_not(tmp_path: Any) -> None:
    with app_client(tmp_path, rate_limit_per_s=0.5, rate_limit_burst=2) as client:
        game = new_game(client)
        url = f"/ws/games/{game['id']}"
        with client.websocket_connect(url) as p1:
            hello(p1, game["p1"])
            with client.websocket_connect(url) as flood:
                hello(flood, None)
                for i in range(60):
                    flood.send_json({"type": "ping", "ref": i})
                answers = []
                with pytest.raises(WebSocketDisconnect) as closed:
                    while True:
                        answers.append(flood.receive_json())
                assert closed.value.code == 1008
                assert {a["type"] for a in answers} <= {"pong", "error", "presence"}
                assert any(a.get("code") == "rate_limited" for a in answers)
            seen = [receive_until(p1, "presence")["spectators"]]
            while seen[-2:] != [1, 0]:  # the player sees the spectator come and go
                seen.append(receive_until(p1, "presence")["spectators"])
            for i in range(60):  # the same flood from a player: refused, never closed
                p1.send_json({"type": "ping", "ref": i})
            refs = set()
            while len(refs) < 60:
                frame = p1.receive_json()
                assert frame["type"] in {"pong", "error"}
                refs.add(frame["ref"])
            p1.send_json({"type": "ping", "ref": "still-here"})
            assert p1.receive_json()["ref"] == "still-here"


def _raw_spectator(port: int, game_id: str) -> socket.socket:
    """A websocket spectator on a raw TCP socket with a tiny receive buffer, which says hello
    and then never reads another byte."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)  # before connect: small window
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws/games/{game_id} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    response = b""
    while b"\r\n\r\n" not in response:
        response += sock.recv(1)
    assert response.startswith(b"HTTP/1.1 101")
    sock.sendall(_frame(json.dumps({"type": "hello", "token": None, "since": None})))
    return sock


def test_a_socket_that_never_reads_is_closed_and_the_game_goes_on(serve: Any) -> None:
    """Players roll 1000D6 (a frame of several KB: every face is in it) while a spectator
    reads nothing: once its buffers are full a frame misses its send deadline and the socket
    is closed (1013, or aborted when even the close cannot be written); the players see it
    leave and keep playing."""
    import websockets

    server = serve({"WARFIELD_SEND_TIMEOUT_S": "0.5", "WARFIELD_IDLE_PING_S": "600",
                    "WARFIELD_RATE_LIMIT_PER_S": "100000", "WARFIELD_RATE_LIMIT_BURST": "100000"})
    created = httpx.post(server.url + "/api/games", json={"system": "t9a"}).json()
    gid = created["id"]

    async def play() -> int:
        async with websockets.connect(f"{server.ws_url}/ws/games/{gid}") as p1:
            await p1.send(json.dumps({"type": "hello", "token": created["token"],
                                      "since": None}))
            stuck = await asyncio.to_thread(_raw_spectator, server.port, gid)
            try:
                spectators, sent = 0, 0
                async def next_frame() -> dict[str, Any]:
                    return json.loads(await asyncio.wait_for(p1.recv(), 30))
                while spectators != 1:  # the stuck spectator is in
                    frame = await next_frame()
                    spectators = frame.get("spectators", spectators)
                # Roll until the server lets the stuck spectator go (presence 0); notes are
                # capped per game (rules/table.py), rolls are not.
                while spectators != 0:
                    # (the kernel buffers at most tcp_wmem's 4 MiB by default)
                    assert sent < 3000, "the socket that never reads was never closed"
                    sent += 1
                    await p1.send(json.dumps({"type": "action", "ref": f"n{sent}",
                                              "action": {"type": "roll_dice", "dice": "1000D6"}}))
                    while True:
                        frame = await next_frame()
                        if frame["type"] == "presence":
                            spectators = frame["spectators"]
                        if frame["type"] == "ack" and frame["ref"] == f"n{sent}":
                            break
                # The game goes on: another action is acknowledged at once.
                await p1.send(json.dumps({"type": "action", "ref": "after",
                                          "action": {"type": "note", "text": "still here"}}))
                while (frame := await next_frame()).get("ref") != "after":
                    pass
                assert frame["type"] == "ack"
                return sent
            finally:
                stuck.close()

    sent = asyncio.run(play())
    assert sent > 1  # it took a full buffer, not a refused hello, to close it
