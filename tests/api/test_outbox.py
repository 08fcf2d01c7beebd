"""The websocket's outbound box: frames leave in the order they were put, a waiting writer
wakes on the next put, and a cancelled writer leaves the box usable."""

from __future__ import annotations

import asyncio

import pytest

from server.api.ws import Outbox


def test_frames_leave_in_order_and_wake_the_writer() -> None:
    async def scenario() -> list[str]:
        box = Outbox()
        got: list[str] = []

        async def writer() -> None:
            while len(got) < 4:
                got.append(await box.get())

        task = asyncio.create_task(writer())
        await asyncio.sleep(0)  # the writer waits on an empty box
        box.put_nowait("a")
        box.put_nowait("b")
        await asyncio.sleep(0)
        box.put_nowait("c")
        box.put_nowait("d")
        await asyncio.wait_for(task, 1)
        assert box.empty() and box.qsize() == 0
        return got

    assert asyncio.run(scenario()) == ["a", "b", "c", "d"]


def test_a_cancelled_writer_leaves_the_box_usable() -> None:
    async def scenario() -> str:
        box = Outbox()
        task = asyncio.create_task(box.get())
        await asyncio.sleep(0)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        box.put_nowait("after")
        assert box.qsize() == 1
        return str(await asyncio.wait_for(box.get(), 1))

    assert asyncio.run(scenario()) == "after"


@pytest.mark.parametrize("size", [0, 5, 125, 126, 65535, 65536, 70000])
def test_a_frame_written_directly_is_the_websockets_librarys_own_framing(size: int) -> None:
    """`wire` builds what the websockets library sends for a text frame (unmasked, whole),
    at every length encoding (7-bit, 16-bit, 64-bit), once per frame string."""
    from websockets.frames import Frame, Opcode

    from server.api.ws import wire

    text = ("é" * size)[:size] if size % 2 else "x" * size
    expected = Frame(Opcode.TEXT, text.encode()).serialize(mask=False, extensions=[])
    assert wire(text) == expected
    assert wire(text) is wire(text)  # (built once for every socket it goes to)
