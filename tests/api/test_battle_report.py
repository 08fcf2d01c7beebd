"""Issue 20 items 1-3 over REST: the replay state of a stored game, the battle report of the
scripted t9a battle (tests/api/test_t9a_battle_report.py) with one picture per turn, and its
dice luck against a hand count; `warfield report GAME_ID`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from fastapi.testclient import TestClient

from server.api.app import create_app
from server.cli import main
from server.config import Settings
from server.rules import core
from server.rules.core import ActionModel, Event, GameState, seat_visibility
from tests.api import test_t9a_battle_report as scripted
from tests.api.helpers import auth, new_game
from tests.games.test_replay import secret_rules  # noqa: F401 - a fixture used below

SAVES = ("armour", "aegis")


def play_scripted_battle(client: TestClient) -> dict[str, Any]:
    """The scripted t9a battle, then player 1 concedes (if the dice had not ended it)."""
    made: dict[str, Any] = {}

    def remember(c: TestClient, system: str = "t9a", **extra: Any) -> dict[str, Any]:
        made.update(new_game(c, system, **extra))
        return made

    original = scripted.new_game
    scripted.new_game = remember  # type: ignore[assignment]
    try:
        scripted.play_once(client)
    finally:
        scripted.new_game = original  # type: ignore[assignment]
    return made


def hand_count(events: list[dict[str, Any]], owners: dict[str, int]) -> dict[str, dict[str, Any]]:
    """Per player and step, dice and successes counted face by face: a natural 1 fails, a 6
    succeeds, else the face must reach the roll needed; the expectation is the count of
    faces that succeed over six, per die."""
    out: dict[str, dict[str, Any]] = {}
    for e in events:
        p = e["payload"]
        if e["type"] != "attack_step" or p["step"] == "attacks" or p["needed"] is None:
            continue
        if p["roll"] is None:  # a step no die was rolled for (no six to roll again): no luck
            continue
        key = p["step"] if p["step"] in ("to_hit", "to_wound", "armour") else "special"
        seat = owners[p["target"] if p["step"] in SAVES else p["unit"]]
        faces = [d["face"] for d in p["roll"]["dice"] if d["kept"]]
        ok = [f for f in faces if f != 1 and (f == 6 or f >= p["needed"])]
        chance = len([f for f in range(1, 7) if f != 1 and (f == 6 or f >= p["needed"])]) / 6
        row = out.setdefault(f"{seat}:{key}", {"trials": 0, "successes": 0, "expected": 0.0})
        row["trials"] += len(faces)
        row["successes"] += len(ok)
        row["expected"] += len(faces) * chance
    return out


def test_the_scripted_battle_report_has_a_picture_per_turn_and_luck_matching_a_hand_count(
    client: TestClient,
) -> None:
    game = play_scripted_battle(client)
    gid = game["id"]
    # A running game: its players may replay and read the report; spectators may not. (The
    # game's dice are its own: a battle the dice already ended is public at once.)
    running = not client.get(f"/api/games/{gid}").json()["state"]["over"]
    if running:
        assert client.get(f"/api/games/{gid}/report").status_code == 403
        assert client.get(f"/api/games/{gid}/state?at=1").json()["code"] == "forbidden"
    assert client.get(f"/api/games/{gid}/report", headers=auth(game["p2"])).status_code == 200
    if running:
        r = client.post(f"/api/games/{gid}/actions", json={"action": {"type": "concede"}},
                        headers=auth(game["p1"]))
        assert r.status_code == 200, r.text

    events = client.get(f"/api/games/{gid}/events").json()["events"]
    final = client.get(f"/api/games/{gid}").json()["state"]
    timeline = client.get(f"/api/games/{gid}/timeline").json()
    assert [s["seq"] for s in timeline["steps"]] == [e["seq"] for e in events]
    turns = sorted({s["turn"] for s in timeline["steps"] if s["stage"] == "battle"})
    assert turns == list(range(1, len(turns) + 1)) and len(turns) >= 2

    page = client.get(f"/api/games/{gid}/report?format=html")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    sections = re.findall(r'<section class="turn" data-turn="(\d+)">(.*?)</section>', page.text,
                          re.S)
    assert [int(t) for t, _ in sections] == turns
    for _, body in sections:  # one picture of the table per turn, units drawn
        assert body.count('<svg xmlns="http://www.w3.org/2000/svg" class="table-picture"') == 1
    assert 'class="unit owner-2"' in sections[0][1]
    text = client.get(f"/api/games/{gid}/report").text
    assert text.startswith("# Battle report")
    assert text.count("class=\"table-picture\"") == len(turns)
    for words in ("## Armies", "Citizen Spears (30 models)", "Mageblight Gremlin",
                  "declare a charge against Citizen Spears", "Combat score", "## Result",
                  "## Dice luck", "every roll verified"):
        assert words in text, words
    if running:  # player 1 conceded: the opponent wins (a game the dice ended says its own)
        assert "Player 2 wins" in text

    owners = {uid: u["owner"] for uid, u in final["units"].items()}
    expected = hand_count(events, owners)
    assert expected, "the battle rolled no dice against a target"
    luck = client.get(f"/api/games/{gid}/luck").json()
    assert luck["proof"]["verified"] is True
    for seat, rows in luck["players"].items():
        for row in rows:
            if row["category"] == "charge":
                continue
            hand = expected.get(f"{seat}:{row['category']}",
                                {"trials": 0, "successes": 0, "expected": 0.0})
            assert row["trials"] == hand["trials"], (seat, row)
            assert row["successes"] == hand["successes"], (seat, row)
            assert row["expected"] == pytest.approx(hand["expected"], abs=1e-3), (seat, row)
    charges = [e for e in events if e["type"] in ("charge_succeeded", "charge_failed")]
    charged = next(r for r in luck["players"]["1"] if r["category"] == "charge")
    assert charged["trials"] == len(charges)
    assert charged["successes"] == sum(e["type"] == "charge_succeeded" for e in charges)
    assert '<circle class="rolled" data-category="to_hit"' in luck["charts"]["1"]

    # The replay state at a seq is the spectator's projection then; bad seqs are refused.
    last = events[-1]["seq"]
    at = client.get(f"/api/games/{gid}/state?at={last}").json()
    assert at["state"] == final and at["event"] == events[-1]
    beyond = client.get(f"/api/games/{gid}/state?at={last + 1}")
    assert beyond.status_code == 400 and beyond.json()["code"] == "bad_request"
    assert client.get(f"/api/games/{gid}/state?at=-1").status_code == 400
    assert client.get(f"/api/games/{gid}/report?format=pdf").status_code == 400


def test_a_running_game_replays_for_its_players_up_to_now(client: TestClient) -> None:
    game = new_game(client, "t9a")
    gid = game["id"]
    for seat in ("p1", "p2"):
        r = client.post(f"/api/games/{gid}/actions", headers=auth(game[seat]),
                        json={"action": {"type": "place_token", "label": seat, "x": 5, "y": 5}})
        assert r.status_code == 200, r.text
    now = client.get(f"/api/games/{gid}", headers=auth(game["p1"])).json()
    back = client.get(f"/api/games/{gid}/state?at={now['seq'] - 1}", headers=auth(game["p1"]))
    assert back.status_code == 200
    assert len(back.json()["state"]["tokens"]) == 1 and len(now["state"]["tokens"]) == 2
    latest = client.get(f"/api/games/{gid}/state?at={now['seq']}", headers=auth(game["p2"]))
    assert latest.json()["state"]["tokens"] == now["state"]["tokens"]
    assert client.get(f"/api/games/{gid}/timeline").status_code == 403


def test_a_game_that_does_not_exist_has_no_replay_or_report(client: TestClient) -> None:
    for path in ("state?at=0", "timeline", "report", "luck"):
        r = client.get(f"/api/games/nope/{path}")
        assert r.status_code == 404 and r.json()["code"] == "not_found", path


def test_warfield_report_prints_the_battle_report(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("DATABASE_URL", settings.effective_database_url)
    monkeypatch.setenv("WARFIELD_DATA_DIR", str(settings.data_dir))
    with TestClient(create_app(settings)) as client:
        game = play_scripted_battle(client)
    assert main(["report", game["id"]]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Battle report") and "## Turn 1" in out and "## Dice luck" in out
    path = tmp_path / "report.html"
    assert main(["report", game["id"], "--format", "html", "-o", str(path)]) == 0
    assert path.read_text().startswith("<!doctype html>") and "table-picture" in path.read_text()
    assert main(["report", "nope"]) == 1
    assert "no game 'nope'" in capsys.readouterr().err


@pytest.fixture
def secret_actions(secret_rules: None) -> Iterator[None]:  # noqa: F811 - the fixture
    """Test-only actions: `test_hide` (a `test_secret_hidden` event only its seat sees) and
    `test_reveal` (the public `test_secret_revealed`), on the folders of tests/games."""

    class Hide(ActionModel):
        type: Literal["test_hide"]
        where: str

    class Reveal(ActionModel):
        type: Literal["test_reveal"]

    def hide(state: GameState, seat: int, action: Hide, dice: Any) -> list[Event]:
        return [Event("test_secret_hidden", {"where": action.where}, actor=seat,
                      visibility=seat_visibility(seat))]

    def reveal(state: GameState, seat: int, action: Reveal, dice: Any) -> list[Event]:
        return [Event("test_secret_revealed", {}, actor=seat)]

    core.register_action("test_hide", Hide)(hide)
    core.register_action("test_reveal", Reveal)(reveal)
    try:
        yield
    finally:
        core.ACTIONS.pop("test_hide")
        core.ACTIONS.pop("test_reveal")


def test_hidden_events_stay_hidden_in_rest_replay_for_the_opponent_and_spectators(
    client: TestClient, secret_actions: None,
) -> None:
    game = new_game(client, "t9a")
    gid = game["id"]

    def act(seat: str, **action: Any) -> int:
        r = client.post(f"/api/games/{gid}/actions", json={"action": action},
                        headers=auth(game[seat]))
        assert r.status_code == 200, r.text
        return int(r.json()["seq"])

    hidden = act("p1", type="test_hide", where="behind the hill")
    shown_then = {
        who: client.get(f"/api/games/{gid}", headers=auth(game[who]) if who else {}).json()
        for who in ("p1", "p2", None)
    }
    act("p2", type="place_token", label="flag", x=5, y=5)
    revealed = act("p1", type="test_reveal")
    act("p1", type="concede")

    for who in ("p1", "p2", None):
        headers = auth(game[who]) if who else {}
        at = client.get(f"/api/games/{gid}/state?at={hidden}", headers=headers).json()
        assert at["state"] == shown_then[who]["state"], who  # exactly what they were shown
        steps = client.get(f"/api/games/{gid}/timeline", headers=headers).json()["steps"]
        kind = next(s["type"] for s in steps if s["seq"] == hidden)
        if who == "p1":
            assert at["state"]["test_secret"] == "behind the hill"
            assert at["event"]["type"] == "test_secret_hidden" and kind == "test_secret_hidden"
        else:
            assert at["state"]["test_secret"] == "a secret"
            assert at["event"] == {"seq": hidden, "type": "hidden", "actor": 1, "payload": {}}
            assert kind == "hidden"
            before = client.get(f"/api/games/{gid}/state?at={revealed - 1}", headers=headers)
            assert before.json()["state"]["test_secret"] == "a secret"
            assert "behind the hill" not in before.text
        after = client.get(f"/api/games/{gid}/state?at={revealed}", headers=headers).json()
        assert after["state"]["test_secret"] == "behind the hill"
