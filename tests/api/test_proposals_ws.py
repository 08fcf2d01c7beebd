"""Undo by agreement over the websocket (issue 4 item 7): player 2 proposes to undo their own
last action (the Charge Reaction and the charge it rolled: issue 19 item 2, a player takes back
only their own actions), player 1 accepts; the spectator sees the proposal, the acceptance and
the undo; the state after the undo equals the state before the undone action; the dice are not
rewound and every roll of the log still verifies."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.helpers import new_game
from tests.api.test_scripted_game import Player


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k not in ("seq", "proposal", "undoable")}


def test_undo_by_agreement_over_the_websocket(client: TestClient) -> None:
    game = new_game(client, "t9a")
    url = f"/ws/games/{game['id']}"
    rest = f"/api/games/{game['id']}"
    with client.websocket_connect(url) as w1, client.websocket_connect(url) as w2, \
            client.websocket_connect(url) as ws:
        p1, p2, spectator = Player(w1, game["p1"]), Player(w2, game["p2"]), Player(ws, None)
        assert p1.act(type="submit_army", units=[
            {"datasheet": "citizen-spears", "models": 20, "files": 5}])["type"] == "ack"
        assert p2.act(type="submit_army", units=[
            {"datasheet": "citizen-spears", "models": 20, "files": 5}])["type"] == "ack"
        units = client.get(rest).json()["state"]["units"]
        mine = next(u for u, v in units.items() if v["owner"] == 1)
        theirs = next(u for u, v in units.items() if v["owner"] == 2)
        assert p1.act(type="deploy_unit", unit=mine, x=36, y=10)["type"] == "ack"
        assert p2.act(type="deploy_unit", unit=theirs, x=36, y=38, facing=180)["type"] == "ack"
        # Put the units 3 in apart by agreement, then charge: the action to undo rolls dice.
        assert p1.act(type="propose", kind="free_move", unit=mine, x=36, y=35)["type"] == "ack"
        assert p2.act(type="accept_proposal")["type"] == "ack"
        assert p1.act(type="declare_charge", unit=mine, target=theirs)["type"] == "ack"
        before = client.get(rest).json()
        ack = p2.act(type="charge_reaction", reaction="hold")
        assert ack["type"] == "ack"
        after_roll = client.get(rest).json()
        batch = [e for e in client.get(f"{rest}/events?since={before['seq']}").json()["events"]]
        assert batch[-1]["type"] == "charge_succeeded" and batch[-1]["seq"] == ack["seq"]
        dice_end = batch[-1]["payload"]["roll"]["end"]

        bad = p2.act(type="accept_proposal")
        assert bad["type"] == "error" and bad["code"] == "out_of_phase"
        # Not player 1's to take back: player 2 acted last.
        assert p1.act(type="propose", kind="undo", seq=before["seq"] + 1)["type"] == "error"
        assert p2.act(type="propose", kind="undo", seq=before["seq"] + 1)["type"] == "ack"
        mid = client.get(rest).json()["state"]
        assert mid["proposal"]["kind"] == "undo" and mid["proposal"]["open"] is True
        own = p2.act(type="accept_proposal")
        assert own["type"] == "error" and own["code"] == "out_of_phase"
        done = p1.act(type="accept_proposal")
        assert done["type"] == "ack"

        final = client.get(rest).json()
        assert comparable(final["state"]) == comparable(before["state"])
        assert final["state"]["pending_charge"]["target"] == theirs
        assert final["state"]["units"][mine]["placement"] == \
            before["state"]["units"][mine]["placement"]
        assert after_roll["state"]["units"][mine]["placement"] != \
            before["state"]["units"][mine]["placement"]
        events = client.get(f"{rest}/events").json()["events"]
        undone = next(e for e in events if e["type"] == "events_undone")
        assert undone["payload"]["seqs"] == [e["seq"] for e in batch]
        assert undone["payload"]["dice_position"] == dice_end  # not rewound

        # The next roll continues the stream where the undone one ended.
        again = p2.act(type="charge_reaction", reaction="hold")
        assert again["type"] == "ack"
        last = client.get(f"{rest}/events?since={done['seq']}").json()["events"][-1]
        assert last["payload"]["roll"]["start"] == dice_end
        assert last["payload"]["reroll"]["of"] == batch[-1]["seq"]  # marked a re-roll

        # The spectator saw everything, the proposal and the undo included, in order.
        total = client.get(rest).json()["seq"]
        while len(spectator.seen) < total - spectator.welcome["seq"]:
            spectator.receive()
        assert spectator.seen == list(range(spectator.welcome["seq"] + 1, total + 1))
        kinds = [e["type"] for e in events]
        assert {"proposal_made", "proposal_accepted", "events_undone"} <= set(kinds)

        # A fresh load of the game (e.g. after a restart) rebuilds the same state.
        live_view = client.get(rest).json()
        service = client.app.state.service  # type: ignore[attr-defined]
        service._live.pop(game["id"], None)
        assert client.get(rest).json() == live_view
