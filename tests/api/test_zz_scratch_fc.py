import json
from tests.api.helpers import SpectatorLog, auth, new_game, ok
from tests.api.test_scripted_game import Player

LED = {"datasheet": "beast-snagga-boyz", "models": 10, "joined_characters": ["wurrboy"]}
LONE = {"datasheet": "wurrboy", "models": 1}
SQUAD = {"datasheet": "intercessor-squad", "models": 5}

def mine(client, game, tok):
    return client.get(f"/api/games/{game['id']}", headers=auth(tok)).json()["state"]

def test_dump(client):
    game = new_game(client, "wh40k10")
    url = f"/ws/games/{game['id']}"
    log = SpectatorLog(client, game["id"])
    out = {}
    with client.websocket_connect(url) as w1, client.websocket_connect(url) as w2:
        p1, p2 = Player(w1, game["p1"]), Player(w2, game["p2"])
        ok(p1, type="submit_army", units=[LED, LONE, {"datasheet": "boyz", "models": 10}])
        ok(p2, type="submit_army", units=[SQUAD, SQUAD])
        st = mine(client, game, game["p1"])
        out["deploy_orders"] = st["orders"]
        out["units_undeployed"] = st["units"]
        units = st["units"]
        boyz = next(u for u, v in units.items() if v["datasheet"] == "beast-snagga-boyz")
        lone = next(u for u, v in units.items() if v["datasheet"] == "wurrboy")
        sq = [u for u, v in units.items() if v["owner"] == 2]
        print(p1.act(type="declare_strategic_reserves", unit=lone))
        ok(p2, type="deploy_unit", unit=sq[0], x=25, y=35, facing=180)
        ok(p1, type="deploy_unit", unit=boyz, x=25, y=9.5, facing=180)
        ok(p2, type="deploy_unit", unit=sq[1], x=55, y=35, facing=180)
        ok(p1, type="deploy_unit", unit=next(u for u, v in units.items() if v["datasheet"] == "boyz"), x=50, y=9.5, facing=180)
        print(mine(client, game, game["p1"])["stage"], mine(client, game, game["p1"])["active_player"])
        st = mine(client, game, game["p2"])
        out["p2_battle_orders"] = st["orders"]
        out["forty"] = st["forty"]
        out["unit_on_table"] = st["units"][sq[0]]
        st = mine(client, game, game["p1"])
        out["p1_command"] = st["orders"]
        out["lone"] = st["units"][lone]
        ok(p1, type="end_phase")
        print(p1.act(type="advance", unit=boyz))
        out["p1_movement_after_adv"] = mine(client, game, game["p1"])["orders"]
    json.dump(out, open("/tmp/fc/dump.json", "w"), indent=1)
