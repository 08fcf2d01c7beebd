"""Ambush over the websocket and REST (seed 000, Ambush; issue 5 item 1): Mageblight Gremlins
wait in Ambush, player 2 logs spells in their Magic Phase, the Gremlins roll each Movement
Phase from Player Turn 2 (automatic from 5), ask the server for the nearest valid placement
from an edge point, and arrive; the spectator sees every step with its rule in words."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.helpers import new_game
from tests.api.test_scripted_game import Player


def _end_phases_until(p: dict[int, Player], state: dict[str, Any], phase: str) -> None:
    """End phases (as whoever is active) until player 1's `phase`."""
    for _ in range(40):
        view = state["view"]()
        if view["active_player"] == 1 and view["phase"] == phase:
            return
        assert p[view["active_player"]].act(type="end_phase")["type"] == "ack"
    raise AssertionError("phase never reached")


def test_gremlins_arrive_from_ambush_over_the_websocket(client: TestClient) -> None:
    game = new_game(client, "t9a")
    url = f"/ws/games/{game['id']}"

    def view() -> dict[str, Any]:
        body: dict[str, Any] = client.get(f"/api/games/{game['id']}").json()["state"]
        return body

    with client.websocket_connect(url) as w1, client.websocket_connect(url) as w2, \
            client.websocket_connect(url) as ws:
        p1, p2, spectator = Player(w1, game["p1"]), Player(w2, game["p2"]), Player(ws, None)
        players = {1: p1, 2: p2}
        assert p1.act(type="submit_army", units=[
            {"datasheet": "mageblight-gremlin", "models": 3, "files": 3}])["type"] == "ack"
        assert p2.act(type="submit_army", units=[
            {"datasheet": "citizen-spears", "models": 20, "files": 5}])["type"] == "ack"
        units = view()["units"]
        gremlins = next(u for u in units if units[u]["datasheet"] == "mageblight-gremlin")
        spears = next(u for u in units if u != gremlins)
        assert p1.act(type="declare_reserve", unit=gremlins)["type"] == "ack"
        assert p2.act(type="deploy_unit", unit=spears, x=36, y=40, facing=180)["type"] == "ack"

        # Player 2 casts two spells (and fails one) in their Magic Phase of Game Turn 1.
        _end_phases_until(players, {"view": view}, "Charge")  # player 1, turn 1
        for _ in range(3):
            assert p1.act(type="end_phase")["type"] == "ack"
        for _ in range(7):
            if view()["active_player"] == 2 and view()["phase"] == "Magic":
                break
            assert players[view()["active_player"]].act(type="end_phase")["type"] == "ack"
        for name, outcome in (("Fireball", "success"), ("Hex", "failure"), ("Bolt", "success")):
            assert p2.act(type="cast_spell", spell=name, outcome=outcome)["type"] == "ack"
        assert view()["magic"]["2"] == {"2": 2}

        arrived = False
        for _turn in range(2, 6):
            _end_phases_until(players, {"view": view}, "Movement")
            unit = view()["units"][gremlins]
            if "ambush_ready" not in unit["markers"]:
                assert p1.act(type="end_phase")["type"] == "ack"
                continue
            answer = p1.ask("ambush_options", unit=gremlins, point={"x": 20, "y": 0},
                            placement={"x": 20, "y": 9, "facing": 0})
            assert answer["type"] == "ambush_options_result"
            assert not answer["requested"]["legal"]  # 9 in out: corners beyond 6 in
            nearest = answer["nearest"]
            assert nearest is not None and answer["zone"]["type"] == "Polygon"
            # The Unit Boundary in the unit's frame, for the client's ghost: 3 files of 40 mm
            # with 12.5 mm skirmish gaps, one rank deep, the front edge at y = 0.
            xs = [p[0] for p in answer["outline"]]
            ys = [p[1] for p in answer["outline"]]
            assert abs(max(xs) - min(xs) - (3 * 40 + 2 * 12.5) / 25.4) < 1e-3
            assert abs(max(ys)) < 1e-3 and abs(min(ys) + 40 / 25.4) < 1e-3
            ack = p1.act(type="arrive_from_ambush", unit=gremlins, point=[20, 0],
                         x=nearest["x"], y=nearest["y"], facing=nearest["facing"])
            assert ack["type"] == "ack", ack
            arrived = True
            break
        assert arrived
        unit = view()["units"][gremlins]
        assert unit["status"] == "on_table" and unit["footprint"] is not None
        moved = p1.act(type="move_unit", unit=gremlins, manoeuvre="forward", distance=1)
        assert moved["type"] == "error" and moved["code"] == "illegal_move"

        # REST: the same question; a unit that is not in Ambush is refused.
        rest = client.post(f"/api/games/{game['id']}/ambush-options",
                           json={"unit": spears, "point": {"x": 20, "y": 0}})
        assert rest.status_code == 409 and rest.json()["code"] == "out_of_phase"

        # The spectator saw the rolls (the first with Maximised x2 from the two spells) and
        # the arrival, each with its rule and words.
        seen: list[dict[str, Any]] = []
        for _ in range(400):
            frame = spectator.receive()
            if frame["type"] == "events":
                seen.extend(frame["events"])
            if any(e["type"] == "unit_arrived" for e in seen):
                break
        rolls = [e["payload"] for e in seen if e["type"] == "ambush_rolled"]
        assert rolls and rolls[0]["maximised"] == 2 and rolls[0]["rule"] == "Ambush"
        assert len(rolls[0]["roll"]["dice"]) == 3
        arrival = next(e["payload"] for e in seen if e["type"] == "unit_arrived")
        assert "arrive from Ambush" in arrival["text"]
        assert spectator.seen == sorted(set(spectator.seen))
