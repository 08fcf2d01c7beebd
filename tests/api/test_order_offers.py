"""Issue 23 item 2 through the API: each viewer's state carries its orders (a seat its own, a
spectator none), and the datasheets answer carries the army rules the army builder reads
instead of copying them (which characters join which unit; Standard Bearers; Leaders)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.api.helpers import auth, new_game


def test_each_viewer_reads_its_own_orders_and_a_spectator_none(client: TestClient) -> None:
    game = new_game(client, "t9a")
    spears = {"datasheet": "citizen-spears", "models": 20, "files": 5}
    for token in (game["p1"], game["p2"]):
        body = {"type": "submit_army", "units": [spears]}
        answer = client.post(f"/api/games/{game['id']}/actions", json={"action": body},
                             headers=auth(token))
        assert answer.status_code in (200, 201), answer.text
    views = {
        seat: client.get(f"/api/games/{game['id']}", headers=auth(token) if token else {})
        .json()["state"]
        for seat, token in ((1, game["p1"]), (2, game["p2"]), (None, None))
    }
    deploying = views[1]["deploying"]
    waiting = 2 if deploying == 1 else 1
    own = [uid for uid, u in views[deploying]["units"].items() if u["owner"] == deploying]
    assert views[deploying]["orders"]["units"][own[0]]["deploy_unit"]["available"] is True
    assert views[waiting]["orders"]["units"] == {}
    assert views[waiting]["orders"]["game"]["concede"]["available"] is True
    assert views[None]["orders"] == {"seat": None, "units": {}, "game": {}}


def test_the_datasheets_answer_says_who_may_join_whom(client: TestClient) -> None:
    """server/data/<id>/__init__.py `join_problems`: a 40k Leader only the Bodyguard it leads
    (seed 004: Wurrboy leads Beast Snagga Boyz); t9a characters per their join rules."""
    forty = client.get("/api/systems/wh40k10/datasheets").json()
    assert forty["army"] == {
        "ranked": False, "standards": False, "leaders": True,
        # Issue 18: one faction per army, the Battle Sizes, the rules' names.
        "factions": ["Adeptus Astartes", "Orks"], "faction_rule": "Faction keyword",
        "allies": False, "points_rule": "Battle Size",
        "game_sizes": [{"name": "Strike Force", "points": 2000},
                       {"name": "Incursion", "points": 1000},
                       {"name": "Onslaught", "points": 3000}],
        "wound_name": "Wound",  # the unit card's word for what a model loses
    }
    assert forty["joinable"]["beast-snagga-boyz"] == ["wurrboy"]
    assert all("wurrboy" not in v for k, v in forty["joinable"].items()
               if k != "beast-snagga-boyz")
    t9a = client.get("/api/systems/t9a/datasheets").json()
    assert t9a["army"]["standards"] is True and t9a["army"]["leaders"] is False
    assert "highborn-commander" in t9a["joinable"]["citizen-spears"]
