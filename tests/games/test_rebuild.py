"""State is a fold of events: a fresh app on the same database rebuilds it identically (issue 2)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from server.api.app import create_app
from server.config import Settings
from tests.api.helpers import auth, new_game


def test_memory_thrown_away_state_rebuilt_identical(settings: Settings) -> None:
    with TestClient(create_app(settings)) as first:
        game = new_game(first)
        gid = game["id"]
        for token, action in [
            (game["p1"], {"type": "place_token", "x": 5, "y": 5, "label": "Gremlins"}),
            (game["p2"], {"type": "place_token", "x": 50, "y": 40, "facing": 180}),
            (game["p1"], {"type": "move_token", "id": "t1", "x": 9, "y": 12, "facing": 30}),
            (game["p2"], {"type": "roll_dice", "dice": "2D6", "reason": "charge"}),
            (game["p1"], {"type": "remove_token", "id": "t1"}),
            (game["p1"], {"type": "roll_dice", "dice": "D3"}),
        ]:
            r = first.post(f"/api/games/{gid}/actions", json={"action": action},
                           headers=auth(token))
            assert r.status_code == 200, r.text
        before = first.get(f"/api/games/{gid}").json()
        live_before = first.app.state.service.cached(gid).state

    with TestClient(create_app(settings)) as second:
        service = second.app.state.service
        assert service.cached(gid) is None  # nothing in memory: rebuilt from the log
        after = second.get(f"/api/games/{gid}").json()
        assert after == before
        assert service.cached(gid).state == live_before
        # The dice stream continues where it was: the next roll starts at the same position.
        r = second.post(f"/api/games/{gid}/actions", headers=auth(game["p2"]),
                        json={"action": {"type": "roll_dice", "dice": "D6"}})
        assert r.status_code == 200
        roll = second.get(f"/api/games/{gid}/events",
                          params={"since": r.json()["seq"] - 1}).json()["events"][0]
        assert roll["payload"]["roll"]["start"] == live_before.dice_position
        # Tokens still authenticate after the restart.
        assert second.get(f"/api/games/{gid}", headers=auth(game["p1"])).status_code == 200
