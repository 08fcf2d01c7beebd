"""A game made the lobby's way (`pregame: "roll_offs"`) passes `/dice-proof` in every system:
the roll-off's dice are recorded exactly as rolled, so the verifier recomputes the same record
(whose roll it is goes beside the roll, never into it)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.helpers import auth, new_game

ARMIES: dict[str, dict[str, Any]] = {
    "t9a": {"datasheet": "citizen-spears", "models": 20, "files": 5},
    "whfb8": {"datasheet": "empire-halberdiers", "models": 20, "files": 5},
    "wh40k10": {"datasheet": "boyz", "models": 10},
}


@pytest.mark.parametrize("system", sorted(ARMIES))
def test_a_lobby_made_game_with_its_roll_offs_passes_the_dice_proof(
    client: TestClient, system: str
) -> None:
    game = new_game(client, system, pregame="roll_offs")
    gid = game["id"]
    for token in (game["p1"], game["p2"]):
        r = client.post(f"/api/games/{gid}/actions", headers=auth(token),
                        json={"action": {"type": "submit_army", "units": [ARMIES[system]]}})
        assert r.status_code == 200, r.text
    log = client.get(f"/api/games/{gid}/events?since=0").json()
    events = log["events"] if isinstance(log, dict) else log
    assert any(e["type"] == "roll_off" for e in events)
    r = client.post(f"/api/games/{gid}/actions", headers=auth(game["p1"]),
                    json={"action": {"type": "concede"}})
    assert r.status_code == 200, r.text
    proof = client.get(f"/api/games/{gid}/dice-proof").json()
    assert proof["failures"] == [] and proof["verified"] is True, proof
    assert proof["rolls"] >= 2
