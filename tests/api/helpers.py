"""Small helpers for driving the API in tests."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient


def new_game(client: TestClient, system: str = "t9a", **extra: Any) -> dict[str, Any]:
    """Create a game and claim seat 2; returns ids and both tokens."""
    created = client.post("/api/games", json={"system": system, **extra})
    assert created.status_code == 201, created.text
    game = created.json()
    joined = client.post(f"/api/games/{game['id']}/seats", json={"invite": game["invite"]})
    assert joined.status_code == 201, joined.text
    return {"id": game["id"], "p1": game["token"], "p2": joined.json()["token"], **game}


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def receive_until(ws: Any, kind: str, limit: int = 20) -> dict[str, Any]:
    """Read frames until one of type `kind` (presence frames and others are skipped)."""
    for _ in range(limit):
        frame = ws.receive_json()
        if frame["type"] == kind:
            return frame
    raise AssertionError(f"no {kind!r} frame within {limit} frames")


def receive_events(ws: Any, count: int, limit: int = 50) -> list[dict[str, Any]]:
    """Read frames until `count` events have arrived; return them in order."""
    events: list[dict[str, Any]] = []
    for _ in range(limit):
        if len(events) >= count:
            return events
        frame = ws.receive_json()
        if frame["type"] == "events":
            events.extend(frame["events"])
    raise AssertionError(f"only {len(events)} of {count} events arrived")


class SpectatorLog:
    """A game as a spectator follows it in the scripted battles: the public state over REST
    (`view`) and every event the spectator's socket was sent, in order (`seen`, `drain`)."""

    def __init__(self, client: TestClient, game_id: str) -> None:
        self.client, self.game_id = client, game_id
        self.seen: list[dict[str, Any]] = []

    def view(self) -> dict[str, Any]:
        """The public state with its seq."""
        body = self.client.get(f"/api/games/{self.game_id}").json()
        state: dict[str, Any] = body["state"]
        state["seq"] = body["seq"]
        return state

    def drain(self, spectator: Any) -> list[dict[str, Any]]:
        """Read the spectator's frames up to the game's current seq."""
        upto = self.view()["seq"]
        while not self.seen or self.seen[-1]["seq"] < upto:
            frame = spectator.receive()
            if frame["type"] == "events":
                self.seen.extend(frame["events"])
        return self.seen


def ok(player: Any, **action: Any) -> dict[str, Any]:
    """`player` acts and the server acknowledges it."""
    answer: dict[str, Any] = player.act(**action)
    assert answer["type"] == "ack", (action, answer)
    return answer
