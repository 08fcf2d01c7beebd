"""Issue 15 "Show": nothing about concealed Night Goblin Fanatics (seed 003,
../shared/seeds/003_39e99837749f8d9d.txt) reaches the opponent or a spectator before release.

The same game is played twice with the same dice seed: once with two Fanatics written down in
the Night Goblins, once with none. Everything the opponent (two tabs, and a third socket that
reconnects with `since`) and a spectator receive - every websocket frame byte for byte and
their count, REST reads of the game and of `events?since=`, a preview, a measurement, a
line-of-sight answer, the dice proof, the battle report, and the exports after the game ends
(the owner concedes before any release) - must be identical, after the game's id, tokens and
clock times are replaced by placeholders. The owner's own channel must differ (the note is
really there, so the comparison can fail)."""

from __future__ import annotations

import json
import re
import secrets
import types
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.games import service as service_module
from tests.api.helpers import auth, new_game

GOBLINS = {"datasheet": "night-goblins", "models": 20, "files": 5}
HALBERDIERS = {"datasheet": "empire-halberdiers", "models": 20, "files": 5}
SEED = bytes(range(32))
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(\+00:00|Z)?")


class Socket:
    """A websocket that keeps every text frame it receives, exactly as sent."""

    def __init__(self, ws: Any, token: str | None, since: int | None = None) -> None:
        self.ws = ws
        self.frames: list[str] = []
        self.seq = 0
        self.n = 0
        ws.send_json({"type": "hello", "token": token, "since": since})
        self.read_until(lambda f: f["type"] == "welcome")

    def read(self) -> dict[str, Any]:
        text = self.ws.receive_text()
        self.frames.append(text)
        frame: dict[str, Any] = json.loads(text)
        if frame["type"] == "welcome":
            self.seq = frame["seq"]
        if frame["type"] == "events" and frame["events"]:
            self.seq = frame["events"][-1]["seq"]
        return frame

    def read_until(self, done: Any) -> dict[str, Any]:
        for _ in range(200):
            frame = self.read()
            if done(frame):
                return frame
        raise AssertionError("frame not received")

    def drain(self, seq: int) -> None:
        while self.seq < seq:
            self.read()

    def act(self, **action: Any) -> dict[str, Any]:
        self.n += 1
        ref = f"a{self.n}"
        self.ws.send_json({"type": "action", "ref": ref, "action": action})
        answer = self.read_until(lambda f: f.get("ref") == ref)
        assert answer["type"] == "ack", (action, answer)
        return answer


def play(client: TestClient, monkeypatch: pytest.MonkeyPatch, fanatics: int) -> dict[str, Any]:
    """The game up to the opponent's march to 10 in of the goblins (no release), then the
    owner concedes. Returns every channel's bytes."""
    monkeypatch.setattr(
        service_module,
        "secrets",
        types.SimpleNamespace(token_bytes=lambda n: SEED[:n], token_hex=secrets.token_hex,
                              token_urlsafe=secrets.token_urlsafe),
    )
    game = new_game(client, "whfb8")
    monkeypatch.undo()
    gid, base = game["id"], f"/api/games/{game['id']}"
    url = f"/ws/games/{gid}"
    out: dict[str, Any] = {}
    goblins = {**GOBLINS, "concealed": {"night-goblin-fanatic": fanatics}} if fanatics else GOBLINS
    with client.websocket_connect(url) as w1, client.websocket_connect(url) as w2, \
            client.websocket_connect(url) as w2b, client.websocket_connect(url) as ws:
        p1 = Socket(w1, game["p1"])
        p2 = Socket(w2, game["p2"])
        p2b = Socket(w2b, game["p2"])
        spectator = Socket(ws, None)
        sockets = (p1, p2, p2b, spectator)

        def step(who: Socket, **action: Any) -> None:
            seq = who.act(**action)["seq"]
            for s in sockets:
                s.drain(seq)

        def units() -> dict[str, str]:
            state = client.get(base).json()["state"]
            return {u["datasheet"]: uid for uid, u in state["units"].items()}

        step(p1, type="submit_army", units=[goblins])
        step(p2, type="submit_army", units=[HALBERDIERS])
        ids = units()
        gob, hal = ids["night-goblins"], ids["empire-halberdiers"]
        step(p1, type="deploy_unit", unit=gob, x=36, y=11, facing=0)
        step(p2, type="deploy_unit", unit=hal, x=36, y=37, facing=180)

        def to_phase(seat: int, phase: str) -> None:
            for _ in range(12):
                state = client.get(base).json()["state"]
                if state["active_player"] == seat and state["phase"] == phase:
                    return
                step(p1 if state["active_player"] == 1 else p2, type="end_phase")
            raise AssertionError("phase not reached")

        to_phase(1, "Movement")
        step(p1, type="move_unit", unit=gob, manoeuvre="forward", distance=8, mode="march")
        to_phase(2, "Movement")
        step(p2, type="move_unit", unit=hal, manoeuvre="forward", distance=8, mode="march")
        # The halberdiers are 10 in from the goblins: every question the opponent may ask.
        for name, who in (("p2", game["p2"]), ("spectator", None)):
            headers = auth(who) if who else {}
            out[f"rest {name}"] = client.get(base, headers=headers).text
            out[f"events {name}"] = client.get(f"{base}/events?since=0", headers=headers).text
            out[f"events since 9 {name}"] = client.get(
                f"{base}/events?since=9", headers=headers
            ).text
            out[f"dice proof {name}"] = client.get(f"{base}/dice-proof", headers=headers).text
        preview = {"type": "move_unit", "unit": hal, "manoeuvre": "forward", "distance": 4}
        out["preview p2"] = client.post(f"{base}/preview", headers=auth(game["p2"]),
                                        json={"action": preview}).text
        out["measure"] = client.post(f"{base}/measure",
                                     json={"from": gob, "to": hal}).text
        out["line of sight"] = client.post(f"{base}/line-of-sight",
                                           json={"viewer": hal, "target": gob}).text
        with client.websocket_connect(url) as w2c:
            again = Socket(w2c, game["p2"], since=4)
            out["p2 reconnect"] = list(again.frames)
        step(p1, type="concede")
        for s in sockets:
            s.drain(client.get(base).json()["seq"])
        for name, who in (("p2", game["p2"]), ("spectator", None)):
            headers = auth(who) if who else {}
            out[f"export {name}"] = client.get(f"{base}/export", headers=headers).text
            out[f"report {name}"] = client.get(f"{base}/report", headers=headers).text
        out["p1"] = list(p1.frames)
        out["p2"] = list(p2.frames)
        out["p2 tab"] = list(p2b.frames)
        out["spectator"] = list(spectator.frames)
    words = [gid, game["p1"], game["p2"], game.get("invite") or gid]
    return {key: _scrub(value, words) for key, value in out.items()}


def _scrub(value: Any, words: list[str]) -> Any:
    if isinstance(value, list):
        return [_scrub(v, words) for v in value]
    for i, word in enumerate(words):
        if word:
            value = value.replace(word, f"<{i}>")
    return TIME.sub("<time>", value)


def test_nothing_of_the_concealed_fanatics_reaches_the_opponent_or_a_spectator(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 15 item 1: "the opponent and spectators learn nothing ... until release" -
    frames, their number and sizes, REST reads, events?since=, preview, measure, line of
    sight, dice proof, report, exports and the welcome after a reconnect."""
    hiding = play(client, monkeypatch, 2)
    plain = play(client, monkeypatch, 0)
    for channel in hiding:
        if channel == "p1":
            continue
        assert hiding[channel] == plain[channel], channel
    assert len(hiding["spectator"]) == len(plain["spectator"])
    assert [len(f) for f in hiding["p2"]] == [len(f) for f in plain["p2"]]
    # The owner's own frames carry the note: the comparison would see it if it leaked.
    assert hiding["p1"] != plain["p1"]
    assert any('"fanatics_concealed"' in f for f in hiding["p1"])
    assert not any("fanatics_concealed" in f for f in hiding["spectator"])
    theirs = [
        e
        for f in hiding["p2"]
        for e in json.loads(f).get("events", [])
        if e["type"] == "fanatics_concealed"
    ]
    assert [e["payload"] for e in theirs] == [{"seat": 2, "units": {}}]  # their own, empty


def test_the_datasheets_endpoint_marks_the_fanatic_page_automated(client: TestClient) -> None:
    """Issue 15 "Show": GET /api/systems/whfb8/datasheets marks the Fanatic page's rules
    automated (each proved in tests/rules/whfb8/test_fanatics.py)."""
    body = client.get("/api/systems/whfb8/datasheets").json()
    rules = {r["name"]: r for r in body["rules"]}
    fanatic = next(d for d in body["datasheets"] if d["id"] == "night-goblin-fanatic")
    for entry in fanatic["special_rules"]:
        name = entry if isinstance(entry, str) else entry.get("name", "")
        base = name.split(" (")[0]
        assert rules[base]["automated"], base
    assert rules["Ball and Chain"]["automated"]
