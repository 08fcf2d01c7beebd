"""Commit-reveal at the end of a game, export / import and verify-dice (issues 4 and 8).

Runs on SQLite and PostgreSQL (the `client` / `settings` fixtures).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from server import dice
from server.api.app import create_app
from server.config import Settings
from server.games import archive
from server.games.archive import ArchiveError
from server.rules import core
from server.rules.core import Event, GameState
from server.store import EventStore, make_engine
from tests.api.helpers import auth, new_game

ROLLS = ["2D6", "D3", "scatter", "artillery", "3D6 reroll 1", "D6 maximised x2", "2D6+3"]


def play(client: TestClient, *, end: bool = True) -> dict[str, Any]:
    """A short game: tokens, a move, every kind of roll from both seats, then a concession."""
    game = new_game(client)
    gid = game["id"]
    actions: list[tuple[str, dict[str, Any]]] = [
        (game["p1"], {"type": "place_token", "x": 5, "y": 5, "label": "Gremlins"}),
        (game["p2"], {"type": "place_token", "x": 50, "y": 40, "facing": 180}),
        (game["p1"], {"type": "move_token", "id": "t1", "x": 9, "y": 12}),
        (game["p2"], {"type": "note", "text": "charge!"}),
    ]
    for i, expr in enumerate(ROLLS):
        actions.append((game["p1"] if i % 2 else game["p2"],
                        {"type": "roll_dice", "dice": expr, "reason": f"r{i}"}))
    if end:
        actions.append((game["p2"], {"type": "concede"}))
    for token, action in actions:
        r = client.post(f"/api/games/{gid}/actions", json={"action": action}, headers=auth(token))
        assert r.status_code == 200, r.text
    return game


def store_of(client: TestClient) -> EventStore:
    store: EventStore = client.app.state.service.store  # type: ignore[attr-defined]
    return store


# --- the reveal ------------------------------------------------------------------------------


def test_ending_the_game_reveals_the_seed_in_the_same_batch(client: TestClient) -> None:
    game = play(client)
    gid = game["id"]
    events = store_of(client).events(gid)
    assert [e.type for e in events[-2:]] == ["game_ended", "dice_revealed"]
    ended, revealed = events[-2:]
    assert ended.payload == {"reason": "concede", "winner": 1, "action_by": 2}
    assert ended.actor == 2
    record = store_of(client).load_game(gid)
    assert revealed.payload == {"seed": record.dice_seed.hex(),
                                "commitment": record.dice_commitment}
    assert revealed.visibility == "public" and revealed.actor == "system"
    assert sum(e.type == "dice_revealed" for e in events) == 1
    # The game is over: nothing more can be done.
    r = client.post(f"/api/games/{gid}/actions", headers=auth(game["p1"]),
                    json={"action": {"type": "roll_dice", "dice": "D6"}})
    assert r.status_code == 409 and r.json()["code"] == "out_of_phase"


def test_no_reveal_without_an_end() -> None:
    seed = b"s" * 32
    batch = [Event("note_added", {"text": "x"}, 1)]
    assert archive.with_dice_reveal(batch, seed) == batch
    ended = [Event("game_ended", {"reason": "concede", "winner": 2}, 1)]
    out = archive.with_dice_reveal(ended, seed)
    assert out[-1] == Event("dice_revealed", {"seed": seed.hex(),
                                              "commitment": dice.commitment(seed)})
    assert archive.with_dice_reveal(out, seed) == out  # never twice


def test_a_finished_game_replays_from_its_revealed_seed(client: TestClient) -> None:
    gid = play(client)["id"]
    doc = archive.export_from_store(store_of(client), gid)
    seed = bytes.fromhex(doc["events"][-1]["payload"]["seed"])
    commitment = doc["events"][0]["payload"]["dice_commitment"]
    assert dice.commitment(seed) == commitment == doc["game"]["dice_commitment"]
    rolls = [r for e in doc["events"] for r in core.rolls_of(e["payload"])]
    assert len(rolls) == len(ROLLS)
    position = 0
    for recorded in rolls:  # every roll, recomputed from the seed alone, matches exactly
        assert recorded["start"] == position
        again = dice.DiceStream(seed, recorded["start"]).roll(recorded["expression"])
        assert again.to_payload() == recorded
        position = recorded["end"]
    report = dice.verify(seed, commitment, rolls)
    assert report.ok and report.rolls_checked == len(ROLLS)
    check = archive.verify_export(doc)
    assert check.ok and check.exit_code == 0 and check.rolls == len(ROLLS)


def test_a_tampered_face_fails_and_names_the_roll(client: TestClient) -> None:
    gid = play(client)["id"]
    doc = archive.export_from_store(store_of(client), gid)
    bad = copy.deepcopy(doc)
    target = next(e for e in bad["events"] if e["type"] == "dice_rolled"
                  and e["payload"]["roll"]["expression"] == "2D6")
    die = target["payload"]["roll"]["dice"][1]
    die["face"] = 1 if die["face"] != 1 else 6
    check = archive.verify_export(bad)
    assert not check.ok and check.exit_code == 1
    assert check.failures[0]["seq"] == target["seq"] and check.failures[0]["roll"] == 0
    assert f"event seq {target['seq']}, roll 0" in check.text()
    assert "die 1 face recorded" in check.text()


def test_a_dropped_roll_event_is_a_gap(client: TestClient) -> None:
    gid = play(client)["id"]
    doc = archive.export_from_store(store_of(client), gid)
    rolled = [e for e in doc["events"] if e["type"] == "dice_rolled"]
    doc["events"] = [e for e in doc["events"] if e is not rolled[2]]
    for i, e in enumerate(doc["events"], start=1):
        e["seq"] = i
    check = archive.verify_export(doc)
    assert not check.ok and "not accounted for" in check.text()


def test_a_wrong_seed_fails_the_commitment(client: TestClient) -> None:
    doc = archive.export_from_store(store_of(client), play(client)["id"])
    other = b"x" * 32
    doc["game"]["dice_seed"] = other.hex()
    doc["events"][-1]["payload"]["seed"] = other.hex()
    check = archive.verify_export(doc)
    assert not check.ok and "committed to" in check.text()


def test_not_revealed_yet_is_exit_2(client: TestClient) -> None:
    gid = play(client, end=False)["id"]
    doc = archive.export_from_store(store_of(client), gid)
    assert "dice_seed" not in doc["game"] and not doc["over"]
    check = archive.verify_export(doc)
    assert not check.revealed and check.exit_code == 2 and "not revealed" in check.text()


# --- export ----------------------------------------------------------------------------------


def test_export_has_seat_numbers_never_tokens(client: TestClient) -> None:
    game = play(client)
    doc = archive.export_from_store(store_of(client), game["id"])
    assert doc["format"] == "warfield-game/1" and doc["complete"] and doc["over"]
    assert doc["seats"] == [1, 2]
    assert set(doc["game"]) == {"id", "system", "name", "created_at", "dice_commitment",
                                "dice_seed"}
    text = repr(doc)
    for token in (game["p1"], game["p2"]):
        assert token not in text
    for token_hash in store_of(client).seat_hashes(game["id"]).values():
        assert token_hash not in text
    assert [e["seq"] for e in doc["events"]] == list(range(1, len(doc["events"]) + 1))
    assert set(doc["events"][0]) == {"seq", "type", "actor", "visibility", "payload"}


def test_a_player_export_keeps_hidden_events_hidden() -> None:
    seed = b"k" * 32
    stream = dice.DiceStream(seed)
    events = [
        *core_genesis(seed),
        Event("dice_rolled", {"roll": stream.roll("D6").to_payload()}, 1, "public", 3),
        Event("fanatic_hidden", {"unit": "u9", "roll": stream.roll("2D6").to_payload()},
              2, "player:2", 4),
        Event("dice_rolled", {"roll": stream.roll("D3").to_payload()}, 1, "public", 5),
        Event("game_ended", {"reason": "concede", "winner": 2}, 1, "public", 6),
        Event("dice_revealed", {"seed": seed.hex(), "commitment": dice.commitment(seed)},
              "system", "public", 7),
    ]
    from datetime import UTC, datetime

    from server.store import GameRecord

    record = GameRecord("g1", "t9a", "G", seed, dice.commitment(seed), datetime.now(UTC))
    host = archive.export_document(record, events, [1, 2])
    assert host["complete"] and host["events"][3]["payload"]["unit"] == "u9"
    p1 = archive.export_document(record, events, [1, 2], viewer=1)
    assert not p1["complete"]
    assert p1["events"][3] == {"seq": 4, "type": "hidden", "actor": 2,
                               "visibility": "player:2", "payload": {}}
    assert "u9" not in repr(p1)
    assert archive.export_document(record, events, [1, 2], viewer=2)["events"][3]["type"] \
        == "fanatic_hidden"
    # The player's copy still verifies: the gap in the stream lies where the hidden event is.
    assert archive.verify_export(host).ok
    check = archive.verify_export(p1)
    assert check.ok and check.hidden_events == 1 and check.rolls == 2, check.text()
    # ... but a gap where no hidden event lies does not.
    moved = copy.deepcopy(p1)
    moved["events"][2], moved["events"][3] = moved["events"][3], moved["events"][2]
    moved["events"][2]["seq"], moved["events"][3]["seq"] = 3, 4
    assert not archive.verify_export(moved).ok
    # A player's export cannot be imported: it lacks the hidden events.
    with pytest.raises(ArchiveError, match="hidden placeholder"):
        archive.read_export(p1)
    # And the dice proof of a spectator does not quote a hidden roll.
    tampered = list(events)
    bad = copy.deepcopy(dict(tampered[3].payload))
    bad["roll"]["total"] = 987654
    tampered[3] = Event("fanatic_hidden", bad, 2, "player:2", 4)
    proof = archive.dice_proof(dice.commitment(seed), seed, tampered, viewer=None)
    assert not proof["verified"] and "987654" not in repr(proof)
    assert proof["failures"][0]["seq"] == 4
    assert "987654" in repr(archive.dice_proof(dice.commitment(seed), seed, tampered, viewer=2))


def core_genesis(seed: bytes) -> list[Event]:
    from server.rules import table
    from server.rules.core import Battlefield

    first = table.genesis("g1", "t9a", "G", Battlefield(72, 48), dice.commitment(seed))[0]
    return [
        Event(first.type, first.payload, first.actor, first.visibility, 1),
        Event("seat_claimed", {"seat": 1}, "system", "public", 2),
    ]


# --- import ----------------------------------------------------------------------------------


def _delete_game(store: EventStore, game_id: str) -> None:
    with store.writer.begin() as conn:
        for table in ("actions", "events", "seats", "games"):
            column = "id" if table == "games" else "game_id"
            conn.execute(sa.text(f"DELETE FROM {table} WHERE {column} = :g"), {"g": game_id})


def test_export_import_round_trip_is_identical(settings: Settings) -> None:
    with TestClient(create_app(settings)) as first:
        game = play(first)
        gid = game["id"]
        store = store_of(first)
        doc = archive.export_from_store(store, gid)
        log_before = store.events(gid)
        state_before = core.fold_all(GameState(), log_before)
        view_before = first.get(f"/api/games/{gid}").json()
        _delete_game(store, gid)

    engine = make_engine(settings.effective_database_url)
    store = EventStore(engine)
    assert store.load_game(gid) is None
    new_id, tokens = archive.import_into_store(store, doc)
    assert new_id == gid and set(tokens) == {1, 2}
    assert store.events(gid) == log_before
    assert core.fold_all(GameState(), store.events(gid)) == state_before
    assert archive.export_from_store(store, gid) == doc
    with pytest.raises(ArchiveError, match="exists already"):
        archive.import_into_store(store, doc)
    copy_id, copy_tokens = archive.import_into_store(store, doc, as_new=True)
    assert copy_id != gid
    copied = store.events(copy_id)
    assert copied[0].payload["id"] == copy_id
    assert [(e.seq, e.type, e.payload) for e in copied[1:]] == \
        [(e.seq, e.type, e.payload) for e in log_before[1:]]
    engine.dispose()

    with TestClient(create_app(settings)) as second:  # served from the restored log
        assert second.get(f"/api/games/{gid}").json() == view_before
        assert second.get(f"/api/games/{gid}", headers=auth(tokens[2])).status_code == 200
        assert second.get(f"/api/games/{gid}", headers=auth(game["p1"])).status_code == 401
        proof = second.get(f"/api/games/{copy_id}/dice-proof",
                           headers=auth(copy_tokens[1])).json()
        assert proof["verified"] and proof["rolls"] == len(ROLLS)


def test_a_running_game_moves_only_with_its_seed(settings: Settings) -> None:
    with TestClient(create_app(settings)) as first:
        game = play(first, end=False)
        gid = game["id"]
        store = store_of(first)
        with pytest.raises(ArchiveError, match="--include-seed"):
            archive.import_into_store(store, archive.export_from_store(store, gid), as_new=True)
        doc = archive.export_from_store(store, gid, include_seed=True)
        position = first.app.state.service.cached(gid).state.dice_position  # type: ignore
        new_id, tokens = archive.import_into_store(store, doc, as_new=True)
    with TestClient(create_app(settings)) as second:
        r = second.post(f"/api/games/{new_id}/actions", headers=auth(tokens[1]),
                        json={"action": {"type": "roll_dice", "dice": "D6"}})
        assert r.status_code == 200
        roll = second.get(f"/api/games/{new_id}/events",
                          params={"since": r.json()["seq"] - 1}).json()["events"][0]
        assert roll["payload"]["roll"]["start"] == position  # the dice continue


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="warfield-game/0"), "unknown format"),
        (lambda d: d["events"].pop(3), "without gaps"),
        (lambda d: d["events"][4].update(visibility="everyone"), "unknown visibility"),
        (lambda d: d["events"][4].update(type="token_moved",
                                         payload={"id": "t77", "x": 1, "y": 1, "facing": 0}),
         "does not fold"),
        (lambda d: d.update(seats=[1]), "differ from the seats"),
        (lambda d: d["game"].update(id="../etc"), "game.id"),
        (lambda d: d["game"].update(dice_seed="00" * 32), "another seed"),
        (lambda d: d["events"][0]["payload"].update(dice_commitment="0" * 64),
         "commits to another"),
    ],
)
def test_import_refuses_bad_files(client: TestClient, change: Any, message: str) -> None:
    store = store_of(client)
    doc = archive.export_from_store(store, play(client)["id"])
    change(doc)
    with pytest.raises(ArchiveError, match=message):
        archive.import_into_store(store, doc, as_new=True)
