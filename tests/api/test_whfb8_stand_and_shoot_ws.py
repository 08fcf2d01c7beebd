"""Issue 14 over the websocket: a whfb8 Stand and Shoot and the Magic Phase log, as two players
and a spectator see them. Empire Halberdiers (player 1) declare a charge on Empire Handgunners
(player 2) 24 in away, within the Handguns' 24 in (FACTS.md "whfb8: the battle": Stand and
Shoot -1, the charger within range; docs/rules-decisions.md); the Handgunners Stand and Shoot:
`shots_fired` and the attack steps with their dice, the charged player's; then the charge
(M4 + 2D6, at most 16 in) fails and the Halberdiers move the highest die towards them. In the
Magic phase player 1 logs a spell (server/rules/magic.py, as t9a does). The dice are the
game's own: only what holds for every roll is asserted."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.api.helpers import SpectatorLog, new_game, ok
from tests.api.test_scripted_game import Player

HALBERDIERS = {"datasheet": "empire-halberdiers", "models": 10, "files": 5}
HANDGUNNERS = {"datasheet": "empire-handgunners", "models": 10, "files": 5}


def test_stand_and_shoot_and_the_magic_log_over_the_websocket(client: TestClient) -> None:
    game = new_game(client, "whfb8")
    url = f"/ws/games/{game['id']}"
    log = SpectatorLog(client, game["id"])
    with client.websocket_connect(url) as w1, client.websocket_connect(url) as w2, \
            client.websocket_connect(url) as ws:
        p1, p2, spectator = Player(w1, game["p1"]), Player(w2, game["p2"]), Player(ws, None)
        ok(p1, type="submit_army", units=[HALBERDIERS])
        ok(p2, type="submit_army", units=[HANDGUNNERS])
        ids = {u["datasheet"]: uid for uid, u in log.view()["units"].items()}
        halberdiers, handgunners = ids["empire-halberdiers"], ids["empire-handgunners"]
        ok(p1, type="deploy_unit", unit=halberdiers, x=36, y=12, facing=0)
        ok(p2, type="deploy_unit", unit=handgunners, x=36, y=36, facing=180)
        for _ in range(10):
            state = log.view()
            if (state["active_player"], state["phase"]) == (1, "Movement"):
                break
            ok(p1 if state["active_player"] == 1 else p2, type="end_phase")
        assert (log.view()["active_player"], log.view()["phase"]) == (1, "Movement")
        ok(p1, type="declare_charge", unit=halberdiers, target=handgunners)
        pending = log.view()["pending_charge"]
        assert "stand_and_shoot" in pending["reactions"]
        ok(p2, type="charge_reaction", reaction="stand_and_shoot")
        events = [e for e in log.drain(spectator)]
        kinds = [e["type"] for e in events]
        reaction = kinds.index("charge_reaction")
        shots = events[reaction + 1]
        assert shots["type"] == "shots_fired" and shots["actor"] == 2
        assert shots["payload"]["distance"] == 24.0 and shots["payload"]["shots"] == 5
        assert {"rule": "Stand and Shoot", "value": -1} in shots["payload"]["modifiers"]
        to_hit = events[reaction + 2]["payload"]
        # BS 3: 4+, Long Range (24 in of 24) -1, Stand and Shoot -1: 6+.
        assert to_hit["step"] == "to_hit" and to_hit["needed"] == 6
        assert len(to_hit["roll"]["dice"]) == 5
        if "charge_abandoned" in kinds:
            # Three or more of ten fell (25 %): a failed Panic Test, and no charge.
            panic = next(e for e in events if e["type"] == "panic_test")["payload"]
            assert panic["unit"] == halberdiers and panic["passed"] is False
            assert "fleeing" in log.view()["units"][halberdiers]["markers"]
        else:
            failed = next(e for e in events if e["type"] == "charge_failed")["payload"]
            die = max(d["face"] for d in failed["roll"]["dice"])
            assert failed["failed_move"]["allowed"] == die
            assert failed["failed_move"]["rule"].startswith("Failed Charge move: the highest")
            assert failed["failed_move"]["distance"] == die
            assert log.view()["units"][halberdiers]["placement"]["y"] == 12 + die

        ok(p1, type="end_phase")  # -> Magic
        assert log.view()["phase"] == "Magic"
        ok(p1, type="cast_spell", spell="Fireball", caster=halberdiers, outcome="success")
        ok(p1, type="cast_spell", spell="Curse", outcome="failure")
        assert log.view()["magic"] == {"1": {"1": 1}}
        spells = [e for e in log.drain(spectator) if e["type"] == "spell_cast"]
        assert [s["payload"]["text"] for s in spells] == [
            "Empire Halberdiers cast Fireball", "Player 1 failed to cast Curse",
        ]


