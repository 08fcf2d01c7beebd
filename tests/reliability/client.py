"""A small websocket player for tests against a real `warfield serve` process.

It keeps what a real client keeps across reconnects: the seqs of the events it has received
(to check for gaps and duplicates), its acks by `ref`, and its last seq for `hello.since`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import websockets


class Player:
    def __init__(self, game_id: str, token: str | None) -> None:
        self.game_id, self.token = game_id, token
        self.seen: list[int] = []  # every event seq received, in arrival order, all sockets
        self.events: dict[int, dict[str, Any]] = {}
        self.first_seq: int | None = None  # the first welcome's seq
        self.last_seq: int | None = None  # highest seq known (welcome or events)
        self.acks: dict[str, int] = {}
        self.errors: dict[str, dict[str, Any]] = {}
        self.close_code: int | None = None
        self.ws: Any = None
        self._answers: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._progress = asyncio.Event()

    async def connect(self, ws_url: str) -> dict[str, Any]:
        """Open a socket and say hello with `since` = the last seq seen; return the welcome."""
        self.ws = await websockets.connect(f"{ws_url}/ws/games/{self.game_id}")
        self.close_code = None
        await self.ws.send(json.dumps({"type": "hello", "token": self.token,
                                       "since": self.last_seq}))
        while True:
            frame = json.loads(await asyncio.wait_for(self.ws.recv(), 10))
            if frame["type"] == "welcome":
                break
            assert frame["type"] == "presence", frame
        if self.first_seq is None:
            self.first_seq = self.last_seq = frame["seq"]
        assert frame["seq"] >= (self.last_seq or 0), "the server went back in time"
        self._reader = asyncio.create_task(self._read(self.ws))
        return frame

    async def _read(self, ws: Any) -> None:
        try:
            async for raw in ws:
                self._on(json.loads(raw))
        except websockets.ConnectionClosed:
            pass
        finally:
            rcvd = ws.protocol.close_rcvd
            self.close_code = rcvd.code if rcvd is not None else 1006
            for future in self._answers.values():
                if not future.done():
                    future.set_exception(ConnectionError("socket closed"))
            self._answers.clear()
            self._progress.set()

    def _on(self, frame: dict[str, Any]) -> None:
        kind = frame["type"]
        if kind == "events":
            for event in frame["events"]:
                self.seen.append(event["seq"])
                self.events[event["seq"]] = event
                self.last_seq = max(self.last_seq or 0, event["seq"])
        elif kind in ("ack", "error"):
            ref = frame.get("ref")
            if kind == "ack":
                self.acks[ref] = frame["seq"]
            else:
                self.errors[ref] = frame
            future = self._answers.pop(ref, None)
            if future is not None and not future.done():
                future.set_result(frame)
        self._progress.set()

    async def send_action(self, ref: str, action: dict[str, Any]) -> asyncio.Future[Any]:
        """Send an action; the future resolves with its ack or error (or fails on close)."""
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._answers[ref] = future
        await self.ws.send(json.dumps({"type": "action", "ref": ref, "action": action}))
        return future

    async def act(self, ref: str, action: dict[str, Any]) -> dict[str, Any]:
        return await asyncio.wait_for(await self.send_action(ref, action), 10)

    async def wait_for_seq(self, seq: int, timeout: float) -> None:
        """Until an event with seq >= `seq` has arrived (or the welcome said so)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while (self.last_seq or 0) < seq:
            self._progress.clear()
            left = deadline - loop.time()
            if left <= 0:
                raise TimeoutError(f"seq {self.last_seq} < {seq} after {timeout} s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._progress.wait(), left)

    async def closed(self, timeout: float = 10) -> int:
        """Wait until the socket is closed; its close code (1006: no close frame)."""
        assert self._reader is not None
        await asyncio.wait_for(asyncio.shield(self._reader), timeout)
        assert self.close_code is not None
        return self.close_code

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await self._reader

    def assert_contiguous(self, until: int) -> None:
        """Every seq after the first welcome up to `until` arrived exactly once, in order."""
        assert self.first_seq is not None
        expected = list(range(self.first_seq + 1, until + 1))
        assert self.seen == expected, (
            f"gaps {sorted(set(expected) - set(self.seen))}, "
            f"duplicates {sorted({s for s in self.seen if self.seen.count(s) > 1})}"
        )
