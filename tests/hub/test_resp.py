"""The fan-out's own RESP2 connection (server/hub/resp.py): commands are encoded as Redis reads
them, replies are parsed whole however the bytes arrive, and errors stay errors."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.hub import resp
from tests.conftest import redis_url


def test_a_command_is_an_array_of_bulk_strings() -> None:
    assert resp.encode_command("PUBLISH", "warfield:game:g", "a\r\nb") == (
        b"*3\r\n$7\r\nPUBLISH\r\n$15\r\nwarfield:game:g\r\n$4\r\na\r\nb\r\n"
    )
    assert resp.encode_command("SET", b"\xff") == b"*2\r\n$3\r\nSET\r\n$1\r\n\xff\r\n"


def test_replies_are_parsed_whole_whatever_the_chunks() -> None:
    """A pushed message, an integer, a status, an error, a nil: fed one byte at a time they
    come out the same, in order, and nothing comes out of a reply cut short."""
    stream = (b"*3\r\n$7\r\nmessage\r\n$4\r\nch:1\r\n$6\r\nhe\r\nlo\r\n"
              b":2\r\n+PONG\r\n-ERR wrong\r\n$-1\r\n*0\r\n")
    got: list[Any] = []
    lost: list[bool] = []
    conn = resp.RespConnection(got.append, lambda: lost.append(True))
    for i in range(len(stream)):
        conn.data_received(stream[i : i + 1])
    assert got[:3] == [[b"message", b"ch:1", b"he\r\nlo"], 2, "PONG"]
    assert isinstance(got[3], resp.RespError) and str(got[3]) == "ERR wrong"
    assert got[4:] == [None, []]
    got.clear()
    conn.data_received(b"*2\r\n$3\r\nabc\r\n$11\r\nshort")
    assert got == []
    conn.data_received(b"er one\r\n")
    assert got == [[b"abc", b"shorter one"]]
    assert lost == []


@pytest.mark.redis
def test_publish_and_subscribe_over_the_connection() -> None:
    url = redis_url()

    async def body() -> None:
        pushed: list[Any] = []
        replies: list[Any] = []
        lost = asyncio.Event()
        sub = await resp.connect(url, pushed.append, lost.set, 2.0)
        pub = await resp.connect(url, replies.append, lambda: None, 2.0)
        sub.send("SUBSCRIBE", "warfield:test:resp")
        while not pushed:
            await asyncio.sleep(0.01)
        assert pushed[0] == [b"subscribe", b"warfield:test:resp", 1]
        for text in ("one", "two\nlines"):
            pub.send("PUBLISH", "warfield:test:resp", text)
        while len(pushed) < 3:
            await asyncio.sleep(0.01)
        assert pushed[1:] == [[b"message", b"warfield:test:resp", b"one"],
                              [b"message", b"warfield:test:resp", b"two\nlines"]]
        assert replies == [1, 1]  # one subscriber heard each
        sub.abort()
        await asyncio.wait_for(lost.wait(), 5)
        pub.abort()

    asyncio.run(asyncio.wait_for(body(), 30))
