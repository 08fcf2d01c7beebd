"""A game created the lobby's way, with its roll-offs, passes `/dice-proof` and `warfield
verify-dice` in every system: each roll-off die is kept as it was rolled (whose die it was is
said beside it), so the proof recomputes it exactly. SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.games import archive
from tests.api.helpers import auth, new_game

ARMIES: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {
    "t9a": ([{"datasheet": "citizen-spears", "models": 20}],
            [{"datasheet": "mageblight-gremlin", "models": 3}]),
    "whfb8": ([{"datasheet": "empire-halberdiers", "models": 20}],
              [{"datasheet": "night-goblins", "models": 20,
                "concealed": {"night-goblin-fanatic": 2}}]),
    "wh40k10": ([{"datasheet": "beast-snagga-boyz", "models": 10}],
                [{"datasheet": "intercessor-squad", "models": 5}]),
}


@pytest.mark.parametrize("system", sorted(ARMIES))
def test_a_lobby_game_with_roll_offs_passes_its_dice_proof(client: TestClient,
                                                           system: str) -> None:
    game = new_game(client, system, pregame="roll_offs")
    gid = game["id"]
    for token, units in zip((game["p1"], game["p2"]), ARMIES[system], strict=True):
        r = client.post(f"/api/games/{gid}/actions", headers=auth(token),
                        json={"action": {"type": "submit_army", "units": units}})
        assert r.status_code == 200, r.text
    events = client.get(f"/api/games/{gid}/events", headers=auth(game["p1"])).json()["events"]
    rolled = [e for e in events if e["type"] == "roll_off"]
    assert rolled and all(len(e["payload"]["seats"]) == len(e["payload"]["rolls"])
                          for e in rolled)
    assert all(r["extra"] == {} for e in rolled for r in e["payload"]["rolls"])
    r = client.post(f"/api/games/{gid}/actions", headers=auth(game["p2"]),
                    json={"action": {"type": "concede"}})
    assert r.status_code == 200, r.text

    proof = client.get(f"/api/games/{gid}/dice-proof").json()
    assert proof["verified"] is True, proof["failures"]
    assert proof["rolls"] >= 2 and proof["failures"] == []
    doc = client.get(f"/api/games/{gid}/export").json()
    check = archive.verify_export(doc)
    assert check.exit_code == 0, check.failures
