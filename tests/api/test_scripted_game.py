"""Issue 4 "Show": a scripted game through the websocket — two players and a spectator, both
armies with seed units deployed, three turns of moves and a charge, the spectator receiving
every event; and the questions (preview, measure, line of sight) over ws and REST."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.helpers import new_game, receive_until


class Player:
    def __init__(self, ws: Any, token: str | None) -> None:
        self.ws = ws
        self.n = 0
        self.seen: list[int] = []
        self.log: list[dict[str, Any]] = []  # every frame received after the welcome
        ws.send_json({"type": "hello", "token": token, "since": None})
        self.welcome = receive_until(ws, "welcome")

    def receive(self) -> dict[str, Any]:
        frame: dict[str, Any] = self.ws.receive_json()
        self.log.append(frame)
        if frame["type"] == "events":
            self.seen.extend(e["seq"] for e in frame["events"])
        return frame

    def act(self, **action: Any) -> dict[str, Any]:
        self.n += 1
        ref = f"r{self.n}"
        self.ws.send_json({"type": "action", "ref": ref, "action": action})
        for _ in range(50):
            frame = self.receive()
            if frame.get("ref") == ref and frame["type"] in ("ack", "error"):
                return frame
        raise AssertionError("no answer")

    def ask(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.n += 1
        ref = f"q{self.n}"
        self.ws.send_json({"type": kind, "ref": ref, **fields})
        for _ in range(50):
            frame = self.receive()
            if frame.get("ref") == ref:
                return frame
        raise AssertionError("no answer")


def test_scripted_t9a_game(client: TestClient) -> None:
    game = new_game(client, "t9a")
    url = f"/ws/games/{game['id']}"
    with client.websocket_connect(url) as w1, client.websocket_connect(url) as w2, \
            client.websocket_connect(url) as ws:
        p1, p2, spectator = Player(w1, game["p1"]), Player(w2, game["p2"]), Player(ws, None)
        assert p1.act(type="use_preset_table", preset="village")["type"] == "ack"
        assert p1.act(type="submit_army", units=[
            {"datasheet": "mageblight-gremlin", "models": 3},
            {"datasheet": "mageblight-gremlin", "models": 3}])["type"] == "ack"
        assert p2.act(type="submit_army", units=[
            {"datasheet": "citizen-spears", "models": 20, "files": 5},
            {"datasheet": "citizen-archers", "models": 10, "files": 5}])["type"] == "ack"
        state = client.get(f"/api/games/{game['id']}").json()["state"]
        ids1 = [u for u, v in state["units"].items() if v["owner"] == 1]
        ids2 = [u for u, v in state["units"].items() if v["owner"] == 2]
        bad = p2.act(type="deploy_unit", unit=ids2[0], x=20, y=40)
        assert bad["code"] == "out_of_phase"  # player 1 deploys first
        assert p1.act(type="deploy_unit", unit=ids1[0], x=20, y=8)["type"] == "ack"
        assert p2.act(type="deploy_unit", unit=ids2[0], x=22, y=40, facing=180)["type"] == "ack"
        assert p1.act(type="deploy_unit", unit=ids1[1], x=60, y=8)["type"] == "ack"
        assert p2.act(type="deploy_unit", unit=ids2[1], x=60, y=40, facing=180)["type"] == "ack"
        gremlins, spears = ids1[0], ids2[0]

        # Questions: spectators may ask; nothing changes.
        seq_before = client.get(f"/api/games/{game['id']}").json()["seq"]
        m = spectator.ask("measure", **{"from": gremlins, "to": spears})
        assert m["type"] == "measure_result" and m["distance"] == 32.0  # fronts at y=8 and y=40
        los = spectator.ask("line_of_sight", viewer=gremlins, target=spears)
        assert los["type"] == "line_of_sight_result" and "fraction" in los
        pv = p1.ask("preview", action={"type": "move_unit", "unit": gremlins,
                                       "manoeuvre": "forward", "distance": 3})
        assert pv["type"] == "preview_result" and pv["legal"] is False  # Charge phase first
        rest = client.post(f"/api/games/{game['id']}/measure",
                           json={"from": gremlins, "to": {"x": 20, "y": 30}}).json()
        assert rest["distance"] > 0
        assert client.get(f"/api/games/{game['id']}").json()["seq"] == seq_before

        # Three turns: player 1 advances the gremlins each Movement phase, player 2 marches.
        for turn in range(1, 4):
            for player, unit, mode, dist in ((p1, gremlins, "advance", 3),
                                             (p2, spears, "march", 6)):
                assert player.act(type="end_phase")["type"] == "ack"  # Charge/Start -> Move
                preview = player.ask("preview", action={
                    "type": "move_unit", "unit": unit, "manoeuvre": "forward", "mode": mode,
                    "distance": dist})
                if preview["legal"]:
                    assert preview["swept"]["type"] == "Polygon"
                    assert player.act(type="move_unit", unit=unit, manoeuvre="forward",
                                      mode=mode, distance=dist)["type"] == "ack"
                for _ in range(4):
                    assert player.act(type="end_phase")["type"] == "ack"
            assert client.get(f"/api/games/{game['id']}").json()["state"]["turn"] == turn + 1

        # Turn 4, player 1's Charge phase: the gremlins charge the spears.
        answer = p1.act(type="declare_charge", unit=gremlins, target=spears)
        assert answer["type"] == "ack", answer
        state = client.get(f"/api/games/{game['id']}").json()["state"]
        assert state["pending_charge"]["reacting_player"] == 2  # the spears answer first
        assert p2.act(type="charge_reaction", reaction="hold")["type"] == "ack"
        final = client.get(f"/api/games/{game['id']}").json()
        events = client.get(f"/api/games/{game['id']}/events").json()["events"]
        charge = [e for e in events if e["type"].startswith("charge_")][-1]
        assert charge["payload"]["roll"]["expression"] == "2D6 maximised x1"

        # The spectator received every event, once, in order.
        while len(spectator.seen) < final["seq"] - spectator.welcome["seq"]:
            spectator.receive()
        assert spectator.seen == list(range(spectator.welcome["seq"] + 1, final["seq"] + 1))
