"""An in-memory websocket for driving the real `server.api.ws.Connection` without a server."""

from __future__ import annotations

import asyncio
import json
from typing import Any


class FakeSocket:
    """The ASGI side of a websocket, in memory: what `Connection` reads and writes."""

    def __init__(self) -> None:
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.frames: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.close_code: int | None = None

    async def receive(self) -> dict[str, Any]:
        return await self.inbox.get()

    async def send_text(self, text: str) -> None:
        if self.close_code is not None:
            raise RuntimeError("send after close")
        self.raw.append(text)
        self.frames.append(json.loads(text))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.close_code = code

    def say(self, text: str | None = None, data: bytes | None = None) -> None:
        message: dict[str, Any] = {"type": "websocket.receive"}
        if text is not None:
            message["text"] = text
        if data is not None:
            message["bytes"] = data
        self.inbox.put_nowait(message)
