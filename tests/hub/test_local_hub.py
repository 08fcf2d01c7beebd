"""`LocalHub`'s own book-keeping (server/hub/__init__.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from server.hub import LocalHub
from server.rules.core import Event


class Sink:
    def __init__(self, viewer: int | None) -> None:
        self.viewer = viewer

    def offer(self, events: Sequence[Event], frame: str) -> None:
        return None


def test_the_classes_of_a_game_follow_its_subscribers() -> None:
    """`classes` (which frames a process needs: issue 22) is kept as sockets come and go, not
    gathered from every socket on each batch: a class stays while any socket of it is here,
    a socket counted once however often it subscribes, a spectator class also while the
    game's spectator delay queue runs (it ends with the last socket here)."""
    async def body() -> None:
        hub = LocalHub()
        player, spectator, other_spectator = Sink(1), Sink(None), Sink(None)
        assert hub.classes("g") == set()
        hub.subscribe("g", player)
        hub.subscribe("g", spectator)
        hub.subscribe("g", spectator)
        hub.subscribe("g", other_spectator)
        assert hub.classes("g") == {1, None}
        hub.unsubscribe("g", spectator)
        assert hub.classes("g") == {1, None}
        hub.unsubscribe("g", other_spectator)
        hub.unsubscribe("g", other_spectator)
        assert hub.classes("g") == {1}
        hub.delay.track("g", 60, [])
        assert hub.classes("g") == {1, None}
        hub.unsubscribe("g", player)
        hub.unsubscribe("h", player)
        assert hub.classes("g") == set() and hub.watchers("g") == []
        hub.subscribe("g", Sink(2))
        assert hub.classes("g") == {2}
        await hub.stop()

    asyncio.run(body())
