"""Issue 16: a Stratagem used over the websocket in a 40k game, two players and a spectator.
The Boyz Advance; their player spends 1 CP on Command Re-roll (the core rules: re-roll an
Advance roll; the same Stratagem once per phase; docs/rules-decisions.md "wh40k10 Stratagems").
The spectator sees the CP spent and both dice; the player's offers say why it cannot be used
again; a second use and an out-of-moment Go to Ground are refused with stable codes."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.api.helpers import SpectatorLog, auth, new_game, ok
from tests.api.test_scripted_game import Player

LED = {"datasheet": "beast-snagga-boyz", "models": 10, "joined_characters": ["wurrboy"]}
SQUAD = {"datasheet": "intercessor-squad", "models": 5}


def test_command_reroll_over_the_websocket(client: TestClient) -> None:
    game = new_game(client, "wh40k10")
    url = f"/ws/games/{game['id']}"
    log = SpectatorLog(client, game["id"])
    with client.websocket_connect(url) as w1, client.websocket_connect(url) as w2, \
            client.websocket_connect(url) as ws:
        p1, p2, spectator = Player(w1, game["p1"]), Player(w2, game["p2"]), Player(ws, None)
        ok(p1, type="submit_army", units=[LED])
        ok(p2, type="submit_army", units=[SQUAD])
        units = log.view()["units"]
        boyz = next(u for u, v in units.items() if v["owner"] == 1)
        squad = next(u for u, v in units.items() if v["owner"] == 2)
        ok(p1, type="deploy_unit", unit=boyz, x=25, y=9.5, facing=180)
        ok(p2, type="deploy_unit", unit=squad, x=25, y=35, facing=180)
        state = log.view()
        assert state["active_player"] == 1 and state["phase"] == "Command"
        assert state["forty"]["cp"] == {"1": 1, "2": 1}
        ok(p1, type="end_phase")
        ok(p1, type="advance", unit=boyz)
        ok(p1, type="use_stratagem", stratagem="Command Re-roll", roll="advance")
        seen = log.drain(spectator)
        rolled = next(e for e in seen if e["type"] == "advance_rolled")["payload"]
        paid = next(e for e in seen if e["type"] == "stratagem_used")["payload"]
        reroll = next(e for e in seen if e["type"] == "command_reroll")["payload"]
        assert paid["stratagem"] == "Command Re-roll" and paid["cost"] == 1
        assert paid["cp_left"] == 0
        old = rolled["allowance"] - rolled["move"]
        assert reroll["old"] == [old] and len(reroll["new"]) == 1
        assert reroll["allowance"] == rolled["move"] + reroll["new"][0]
        assert log.view()["forty"]["cp"] == {"1": 0, "2": 1}
        mine = client.get(f"/api/games/{game['id']}", headers=auth(game["p1"])).json()["state"]
        offered = {s["name"]: s for s in mine["orders"]["game"]["stratagems"]["stratagems"]}
        assert offered["Command Re-roll"]["available"] is False
        assert "already been used this phase" in offered["Command Re-roll"]["reason"]
        assert mine["orders"]["units"][boyz]["move_models"]["allowance"] == (
            reroll["allowance"]
        )
        again = p1.act(type="use_stratagem", stratagem="Command Re-roll", roll="advance")
        assert again["type"] == "error" and again["code"] == "illegal_move"
        early = p2.act(type="use_stratagem", stratagem="Go to Ground", unit=squad)
        assert early["type"] == "error" and early["code"] == "out_of_phase"
        assert log.view()["forty"]["cp"] == {"1": 0, "2": 1}
