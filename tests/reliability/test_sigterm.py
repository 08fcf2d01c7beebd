"""SIGTERM (issue 8 item 1): the server finishes the actions in flight, answers them, then
closes every socket with 1012 so clients reconnect; nothing committed goes unacknowledged."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

import httpx

from server.store import EventStore, make_engine
from tests.reliability.client import Player

ACTIONS_EACH = 40  # under the per-connection burst (60), so none is rate-limited


def test_sigterm_drains_in_flight_actions_then_closes_1012(serve: Any, tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path}/warfield.db"
    env = {"DATABASE_URL": url, "WARFIELD_LOG_LEVEL": "info"}
    server = serve(env, str(tmp_path / "run1"))
    created = httpx.post(server.url + "/api/games", json={"system": "t9a"}).json()
    seat2 = httpx.post(server.url + f"/api/games/{created['id']}/seats",
                       json={"invite": created["invite"]}).json()
    players = {1: Player(created["id"], created["token"]), 2: Player(created["id"], seat2["token"])}
    sent: dict[str, tuple[int, dict[str, Any]]] = {}

    async def run() -> tuple[int, int]:
        for player in players.values():
            await player.connect(server.ws_url)
        futures = []
        for i in range(ACTIONS_EACH):
            for seat, player in players.items():
                ref, action = f"p{seat}-{i}", {"type": "note", "text": f"p{seat}-{i}"}
                sent[ref] = (seat, action)
                futures.append(await player.send_action(ref, action))
        acked_at_signal = sum(len(p.acks) for p in players.values())
        server.proc.send_signal(signal.SIGTERM)
        codes = await asyncio.gather(*(p.closed(15) for p in players.values()))
        await asyncio.gather(*futures, return_exceptions=True)
        assert codes == [1012, 1012]
        return acked_at_signal, sum(len(p.acks) for p in players.values())

    acked_at_signal, acked = asyncio.run(run())
    # uvicorn re-raises the signal once it has shut down cleanly: the exit is "by SIGTERM".
    assert server.proc.wait(15) in (0, -signal.SIGTERM)
    server.stop()
    assert "Application shutdown complete" in server.log()
    assert "Traceback" not in server.log()
    store = EventStore(make_engine(url))
    log = [e for e in store.events(created["id"]) if e.type == "note_added"]
    # Every action that was committed was also acknowledged before its socket closed ...
    committed = {e.payload["text"]: e.seq for e in log}
    assert acked > acked_at_signal, "no action was in flight when SIGTERM arrived"
    acks = {ref: seq for p in players.values() for ref, seq in p.acks.items()}
    assert committed == acks
    assert not any(p.errors for p in players.values())

    # ... and after a restart the clients resume and send what was not handled, once each.
    server = serve(env, str(tmp_path / "run2"))

    async def resume() -> None:
        for player in players.values():
            await player.connect(server.ws_url)
        for ref in sorted(set(sent) - set(acks)):
            seat, action = sent[ref]
            assert (await players[seat].act(ref, action))["type"] == "ack"
        last = store.last_seq(created["id"])
        for player in players.values():
            await player.wait_for_seq(last, 5)
            player.assert_contiguous(last)
            await player.close()

    asyncio.run(resume())
    texts = [e.payload["text"] for e in store.events(created["id"]) if e.type == "note_added"]
    assert sorted(texts) == sorted(sent)
    store.engine.dispose()
