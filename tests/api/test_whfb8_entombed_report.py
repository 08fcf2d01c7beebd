"""Issue 14 "Show": "A scripted whfb8 game over the websocket, like the t9a one: a Tomb Swarm
emerges from the sands near Empire Halberdiers, charges, fights with Poisoned Attacks, the
Halberdiers test for Fear, and the loser of the round breaks (or, if it is the Swarm, takes
Unstable wounds); the log reads like a battle report" (seed 002, Entombed Beneath the Sands).

Two players and a spectator on the websocket. The Swarm is kept Entombed; from turn 2 it rolls
to arrive, its marker goes down 8 in in front of the Halberdiers, the scatter and artillery
dice move it, and it emerges (onto the Halberdiers' front, charging, when the marker lands
under them); then it charges, and they fight. The dice are the game's own, so the story is
played out: a Mishap that destroys the Swarm, a charge that fails or rounds that are drawn
start another game (at most ATTEMPTS)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.helpers import SpectatorLog, new_game, ok
from tests.api.test_scripted_game import Player
from tests.api.test_t9a_battle_report import rules_of

SWARM = {"datasheet": "tomb-swarm", "models": 3, "files": 3}
HALBERDIERS = {"datasheet": "empire-halberdiers", "models": 20, "files": 5}
ATTEMPTS = 6


def play_once(client: TestClient) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One game until a round of combat has a loser, the Swarm is lost or the game ends;
    returns the spectator's events and the final public state."""
    game = new_game(client, "whfb8")
    url = f"/ws/games/{game['id']}"

    log = SpectatorLog(client, game["id"])
    view, drain = log.view, log.drain

    with client.websocket_connect(url) as w1, client.websocket_connect(url) as w2, \
            client.websocket_connect(url) as ws:
        p1, p2, spectator = Player(w1, game["p1"]), Player(w2, game["p2"]), Player(ws, None)
        players = {1: p1, 2: p2}

        ok(p1, type="submit_army", units=[SWARM])
        ok(p2, type="submit_army", units=[HALBERDIERS])
        ids = {u["datasheet"]: uid for uid, u in view()["units"].items()}
        swarm, halberdiers = ids["tomb-swarm"], ids["empire-halberdiers"]
        ok(p1, type="declare_reserve", unit=swarm)
        ok(p2, type="deploy_unit", unit=halberdiers, x=36, y=36, facing=180)

        charged: set[int] = set()
        for _ in range(400):
            state = view()
            if state["stage"] == "over":
                break
            seat, phase, turn = state["active_player"], state["phase"], state["turn"]
            me, them = state["units"][swarm], state["units"][halberdiers]
            if me["status"] == "destroyed":
                break
            engaged = bool(me["engaged_with"] or them["engaged_with"])
            ready = "ambush_ready" in me["markers"]
            if phase == "Movement" and seat == 1 and ready:
                waiting = (state.get("entombed") or {}).get(swarm)
                if waiting is None:
                    # 8 in in front of the Halberdiers' front edge (y = 36).
                    ok(p1, type="place_entombed_marker", unit=swarm, x=36, y=28)
                else:
                    ok(p1, type="emerge", unit=swarm, **waiting["suggested"])
                continue
            on_table = me["status"] == "on_table"
            if (phase == "Movement" and seat == 1 and on_table and not engaged
                    and turn not in charged and not me["moved"]):
                charged.add(turn)
                ok(p1, type="declare_charge", unit=swarm, target=halberdiers)
                ok(p2, type="charge_reaction", reaction="hold")
                continue
            if phase == "Close Combat" and engaged and on_table and not me["moved"].get("fought"):
                ok(players[seat], type="fight_combat", unit=swarm)
                if any(e["type"] == "combat_score" and e["payload"]["winner"]
                       for e in drain(spectator)):
                    break
                continue
            ok(players[seat], type="end_phase")
        return drain(spectator), view()


def test_a_tomb_swarm_emerges_from_the_sands_charges_and_fights(
    client: TestClient, tmp_path: Any
) -> None:
    for _attempt in range(ATTEMPTS):
        events, final = play_once(client)
        decided = [e for e in events if e["type"] == "combat_score" and e["payload"]["winner"]]
        emerged = [e for e in events if e["type"] == "entombed_emerged"]
        story = [r for e in events for r in sorted(rules_of(e))]
        if not decided or not emerged or "Poisoned Attacks" not in story:
            continue  # lost to a Mishap, the charge never landed or every round was drawn
        seqs = [e["seq"] for e in events]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))

        def first(pred: Any, events: list[dict[str, Any]] = events) -> int:
            found = [i for i, e in enumerate(events) if pred(e)]
            assert found, [(e["type"], sorted(rules_of(e))) for e in events if rules_of(e)]
            return found[0]

        rolled = first(lambda e: e["type"] == "ambush_rolled" and e["payload"]["arrives"])
        marker = first(lambda e: e["type"] == "entombed_marker"
                       and e["payload"]["outcome"] != "mishap")
        emerge = first(lambda e: e["type"] == "entombed_emerged")
        contact = first(lambda e: e["type"] == "charge_succeeded"
                        or (e["type"] == "entombed_emerged" and e["payload"]["charging"]))
        fear = first(lambda e: e["type"] == "fear_test")
        poison = first(lambda e: "Poisoned Attacks" in rules_of(e))
        score = first(lambda e: e["type"] == "combat_score" and e["payload"]["winner"])
        assert rolled < marker < emerge <= contact < fear < poison < score
        m = events[marker]["payload"]
        assert [r["expression"] for r in m["rolls"]] == ["scatter", "artillery"]
        assert m["chosen"] == [36, 28] and not m["misfire"]
        after = events[score + 1]
        assert after["type"] == "break_test"
        loser = 2 if events[score]["payload"]["winner"] == 1 else 1
        if loser == 1:
            assert after["payload"]["rule"] == "Unstable" and after["payload"]["roll"] is None
        else:
            assert after["payload"]["roll"] is not None
        report = "\n".join(
            e["payload"]["text"]
            + "".join(f" [{r['text']}]" for r in e["payload"].get("rules") or []
                      if isinstance(r, dict) and r.get("text"))
            for e in events
            if e["payload"].get("text")
        )
        (tmp_path / "entombed-battle-report.txt").write_text(report + "\n")
        for words in ("for Ambushers", "marker at (36, 28), scatter and artillery dice",
                      "from the sands", "Fear test", "Poisoned Attacks: +1 to wound",
                      "Combat result"):
            assert words in report, words
        assert final["stage"] in ("battle", "over")
        return
    raise AssertionError(f"no game in {ATTEMPTS} where the Swarm emerged and a round was won")
