"""The RESP2 reader of the Redis hub (server/hub/resp.py): replies and pushed messages parsed
whole or arriving in pieces, the pub/sub message's own fast path included (issue 22)."""

from __future__ import annotations

import pytest

from server.hub import resp


def bulk(data: bytes) -> bytes:
    return b"$%d\r\n%s\r\n" % (len(data), data)


def message(channel: bytes, payload: bytes) -> bytes:
    return b"*3\r\n" + bulk(b"message") + bulk(channel) + bulk(payload)


STREAM = b"".join([
    message(b"warfield:game:g1", b"origin\nb\n[]\n[null]\n{\"type\":\"events\"}"),
    b":1\r\n",  # a PUBLISH's reply
    b"*3\r\n" + bulk(b"subscribe") + bulk(b"warfield:game:g2") + b":2\r\n",
    message(b"warfield:game:g2", b"\r\n inside a payload \r\n"),
    b"*2\r\n" + bulk(b"pong") + bulk(b"warfield-health"),
    b"-ERR wrong number of arguments\r\n",
    b"+OK\r\n",
    b"$-1\r\n",
    message(b"warfield:game:g3", b""),
])

EXPECTED: list[object] = [
    [b"message", b"warfield:game:g1", b"origin\nb\n[]\n[null]\n{\"type\":\"events\"}"],
    1,
    [b"subscribe", b"warfield:game:g2", 2],
    [b"message", b"warfield:game:g2", b"\r\n inside a payload \r\n"],
    [b"pong", b"warfield-health"],
    resp.RespError("ERR wrong number of arguments"),
    "OK",
    None,
    [b"message", b"warfield:game:g3", b""],
]


def same(got: list[object]) -> None:
    assert len(got) == len(EXPECTED)
    for reply, expected in zip(got, EXPECTED, strict=True):
        if isinstance(expected, resp.RespError):
            assert isinstance(reply, resp.RespError) and str(reply) == str(expected)
        else:
            assert reply == expected


def test_a_stream_of_replies_and_messages_parses_in_order() -> None:
    got: list[object] = []
    pos = 0
    while pos < len(STREAM):
        reply, pos = resp.parse(STREAM, pos)
        got.append(reply)
    same(got)


@pytest.mark.parametrize("cut", range(1, len(STREAM)))
def test_a_stream_cut_anywhere_gives_the_same_replies(cut: int) -> None:
    """The socket hands the bytes over in any pieces (a message's head, its payload's middle,
    a CRLF split in two): the connection waits for the rest and loses nothing."""
    got: list[object] = []
    conn = resp.RespConnection(got.append, lambda: None)
    conn.data_received(STREAM[:cut])
    conn.data_received(STREAM[cut:])
    same(got)
    assert not conn._buffer


def test_a_message_head_with_something_else_than_bulk_strings_takes_the_general_path() -> None:
    odd = b"*3\r\n$7\r\nmessage\r\n:5\r\n" + bulk(b"x")
    assert resp.parse(odd, 0) == ([b"message", 5, b"x"], len(odd))
