"""The real server process: `warfield serve` answers REST and websockets (issue 2 quick start)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import websockets


async def _recv(ws: websockets.ClientConnection, kind: str) -> dict:
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 5))
        if frame["type"] == kind:
            return frame


def test_quick_start_with_a_real_process(serve: object) -> None:
    server = serve()  # type: ignore[operator]
    game = httpx.post(server.url + "/api/games", json={"system": "t9a"}).json()
    httpx.post(server.url + f"/api/games/{game['id']}/seats",
               json={"invite": game["invite"]}).raise_for_status()
    page = httpx.get(server.url + "/")
    assert page.status_code == 200

    async def play() -> None:
        url = f"{server.ws_url}/ws/games/{game['id']}"
        async with websockets.connect(url) as player, websockets.connect(url) as spectator:
            await player.send(json.dumps({"type": "hello", "token": game["token"],
                                          "since": None}))
            await spectator.send(json.dumps({"type": "hello", "token": None, "since": None}))
            assert (await _recv(player, "welcome"))["seat"] == 1
            assert (await _recv(spectator, "welcome"))["seat"] is None
            await player.send(json.dumps({"type": "action", "ref": "1", "action": {
                "type": "place_token", "x": 36, "y": 24, "label": "Gremlins"}}))
            event = (await _recv(spectator, "events"))["events"][0]
            assert event["type"] == "token_placed" and event["payload"]["token"]["x"] == 36
            # A frame over 64 KiB is refused (test_a_real_server_answers_a_frame_over_64_kib_
            # with_too_large_then_1009 checks the error frame before the close).
            await player.send("x" * (70 * 1024))
            with pytest.raises(websockets.ConnectionClosed) as closed:
                for _ in range(10):
                    await asyncio.wait_for(player.recv(), 5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009

    asyncio.run(play())
    assert "Traceback" not in server.log()


def test_a_real_server_answers_a_frame_over_64_kib_with_too_large_then_1009(
    serve: object,
) -> None:
    """docs/protocol.md: "larger: error `too_large`, close 1009". uvicorn's own limit is set
    above the app's, so the app sees the frame and answers; past that limit (256 KiB) uvicorn
    closes with 1009 before anything reads the frame (issue 12 item 6)."""
    server = serve()  # type: ignore[operator]
    game = httpx.post(server.url + "/api/games", json={"system": "t9a"}).json()
    url = f"{server.ws_url}/ws/games/{game['id']}"

    async def close_of(size: int) -> tuple[list[dict], int]:
        async with websockets.connect(url, max_size=None) as ws:
            await ws.send(json.dumps({"type": "hello", "token": None, "since": None}))
            await _recv(ws, "welcome")
            await ws.send("x" * size)
            frames = []
            with pytest.raises(websockets.ConnectionClosed) as closed:
                for _ in range(10):
                    frames.append(json.loads(await asyncio.wait_for(ws.recv(), 5)))
            assert closed.value.rcvd is not None
            return [f for f in frames if f["type"] == "error"], closed.value.rcvd.code

    errors, code = asyncio.run(close_of(70 * 1024))
    assert code == 1009 and [e["code"] for e in errors] == ["too_large"]
    assert "64 KiB" in errors[0]["message"]
    errors, code = asyncio.run(close_of(300 * 1024))
    assert code == 1009 and errors == []
    assert "Traceback" not in server.log()
