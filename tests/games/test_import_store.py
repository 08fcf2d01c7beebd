"""`warfield import` writes through the event store and reads with `core.replay` (issue 23
item 5). Runs on SQLite and PostgreSQL (the `client` fixture).

Before: `import_into_store` inserted raw SQL on `store.writer` (so on SQLite it skipped the
store's write lock that every other writer queues on), left the invite hash NULL (anyone could
then take a free seat 2 until the host ran `warfield invite`), and folded the log with a loop
of its own instead of `core.replay`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from server.games import archive
from server.games.archive import ArchiveError
from server.games.service import new_token, token_hash
from server.rules import core
from server.store import EventStore
from tests.api.helpers import auth
from tests.games.test_archive import play, store_of


class CountingStore(EventStore):
    """The app's store, counting the write transactions it opens (each under its lock)."""

    def __init__(self, engine: sa.Engine) -> None:
        super().__init__(engine)
        self.writes = 0

    @contextlib.contextmanager
    def _write(self) -> Iterator[sa.Connection]:
        self.writes += 1
        with super()._write() as conn:
            yield conn


def test_an_import_is_one_write_transaction_of_the_event_store(client: TestClient) -> None:
    store = store_of(client)
    gid = play(client)["id"]
    doc = archive.export_from_store(store, gid)
    counting = CountingStore(store.engine)
    new_id, tokens = archive.import_into_store(counting, doc, as_new=True)
    assert counting.writes == 1
    assert [(e.seq, e.type, e.payload) for e in store.events(new_id)[1:]] == \
        [(e.seq, e.type, e.payload) for e in store.events(gid)[1:]]
    assert set(store.seat_hashes(new_id)) == {1, 2}
    with pytest.raises(ArchiveError, match="exists already"):  # the store says so, not a probe
        archive.import_into_store(counting, archive.export_from_store(store, new_id))
    assert counting.writes == 2 and store.events(new_id)[-1].seq == store.events(gid)[-1].seq


def _one_seat_export(client: TestClient) -> dict[str, Any]:
    """A running game with seat 1 only, exported by the host with its seed (to move it)."""
    created = client.post("/api/games", json={"system": "t9a"}).json()
    client.post(f"/api/games/{created['id']}/actions", headers=auth(created["token"]),
                json={"action": {"type": "note", "text": "waiting for an opponent"}})
    return archive.export_from_store(store_of(client), created["id"], include_seed=True)


def test_an_imported_free_seat_opens_only_with_the_hosts_invite(client: TestClient) -> None:
    doc = _one_seat_export(client)
    invite = new_token()
    gid, tokens = archive.import_into_store(store_of(client), doc, as_new=True,
                                            invite_hash=token_hash(invite))
    assert set(tokens) == {1}
    seats = f"/api/games/{gid}/seats"
    for body in (None, {"invite": "guessed"}):
        refused = client.post(seats, json=body)
        assert (refused.status_code, refused.json()["code"]) == (403, "forbidden")
    claimed = client.post(seats, json={"invite": invite})
    assert claimed.status_code == 201 and claimed.json()["seat"] == 2


def test_an_import_without_an_invite_keeps_the_free_seat_closed(client: TestClient) -> None:
    """No invite given: the seat waits for `warfield invite` (never NULL, which opens it)."""
    gid, _ = archive.import_into_store(store_of(client), _one_seat_export(client), as_new=True)
    record = store_of(client).load_game(gid)
    assert record is not None and record.invite_hash is not None
    refused = client.post(f"/api/games/{gid}/seats")
    assert (refused.status_code, refused.json()["code"]) == (403, "forbidden")


def test_a_log_that_does_not_fold_is_refused_naming_the_event(client: TestClient) -> None:
    doc = archive.export_from_store(store_of(client), play(client)["id"])
    doc["events"][4].update(type="token_moved",
                            payload={"id": "t77", "x": 1, "y": 1, "facing": 0})
    with pytest.raises(ArchiveError, match=r"^event seq 5 \(token_moved\) does not fold: "):
        archive.read_export(doc)


def test_the_state_read_from_an_export_is_core_replay_of_its_log(client: TestClient) -> None:
    """An agreed undo in the log: the import's state leaves the undone events out, as the
    live game does (core.replay), where a plain fold of every event would not."""
    game = play(client, end=False)
    gid = game["id"]
    for token, action in [
        (game["p1"], {"type": "place_token", "x": 30, "y": 30, "label": "mistake"}),
        (game["p1"], {"type": "propose", "kind": "undo"}),
        (game["p2"], {"type": "accept_proposal"}),
    ]:
        r = client.post(f"/api/games/{gid}/actions", headers=auth(token), json={"action": action})
        assert r.status_code == 200, r.text
    store = store_of(client)
    log = store.events(gid)
    assert any(e.type == core.UNDO_EVENT for e in log)
    read = archive.read_export(archive.export_from_store(store, gid, include_seed=True))
    assert read.state == core.replay(log)
    assert read.state == client.app.state.service.cached(gid).state  # type: ignore[attr-defined]
    assert read.state != core.fold_all(core.GameState(), log)
