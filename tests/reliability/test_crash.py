"""Crash safety (issue 8 item 1): `kill -9` a real `warfield serve` at random points while two
players act, restart it, and check that nothing acknowledged is lost.

After each kill: every acknowledged action is in the log at its acked seq; the log's hash and
the rebuilt state equal those read before the restart (and, for a kill between actions, those
the live server reported before the kill); both players resume from their last seq with no gap
and no duplicate within 2 s; a retry of an action whose ack was lost is applied once.

Kill points: (a) right after a commit, before the fold/ack/publish, by a server started with
an event store that ends the process there (tests/reliability/crash_server.py); (b) a
`kill -9` at a random moment while both players have actions in flight; (c) a `kill -9`
between actions. Runs on SQLite and
PostgreSQL. The random choices come from WARFIELD_TEST_SEED (printed on failure) when set.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import signal
import time
from typing import Any

import httpx
import pytest

from server.rules.core import Event, GameState, fold_all
from server.store import EventStore, make_engine
from tests.reliability.client import Player

RECOVERY_S = 2.0  # the bound: clients resume within 2 s of the restart


def log_hash(events: list[Event]) -> str:
    rows = [[e.seq, e.type, e.actor, e.visibility, e.payload] for e in events]
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()


class Game:
    """The test's side of one game: both players, what they were told, the server it is on."""

    def __init__(self, serve: Any, tmp_path: Any, database_url: str, rng: random.Random):
        self.serve, self.tmp_path, self.rng = serve, tmp_path, rng
        self.database_url = database_url
        self.store = EventStore(make_engine(database_url))
        self.runs = 0
        self.server: Any = None
        self.actions: dict[str, tuple[int, dict[str, Any]]] = {}  # ref -> (seat, action)
        self.acked: dict[str, int] = {}
        self.tokens: dict[int, str] = {}  # seat -> its token id on the table
        self.counter = 0

    def start(self, crash_after: int | None = None) -> None:
        self.runs += 1
        env = {"DATABASE_URL": self.database_url, "WARFIELD_LOG_LEVEL": "warning"}
        data_dir = str(self.tmp_path / f"run{self.runs}")
        if crash_after:
            command = ("-m", "tests.reliability.crash_server", "--after", str(crash_after))
            self.server = self.serve(env, data_dir, command)
        else:
            self.server = self.serve(env, data_dir)

    def create(self) -> None:
        created = httpx.post(self.server.url + "/api/games", json={"system": "t9a"}).json()
        seat2 = httpx.post(self.server.url + f"/api/games/{created['id']}/seats",
                           json={"invite": created["invite"]}).json()
        self.id = created["id"]
        self.players = {1: Player(self.id, created["token"]), 2: Player(self.id, seat2["token"])}

    def kill(self) -> None:
        self.server.proc.send_signal(signal.SIGKILL)
        self.server.proc.wait(10)
        self.server.stop()

    def log(self) -> list[Event]:
        return self.store.events(self.id)

    def next_action(self, seat: int) -> tuple[str, dict[str, Any]]:
        """A random action of `seat` whose event names it (label, text, reason or position)."""
        self.counter += 1
        ref = f"p{seat}-{self.counter}"
        kind = self.rng.choice(["place", "move", "move", "note", "roll"])
        if seat not in self.tokens:
            kind = "place"
        if kind == "place":
            action = {"type": "place_token", "label": ref, "x": self.rng.randint(1, 70),
                      "y": self.rng.randint(1, 46)}
        elif kind == "move":
            action = {"type": "move_token", "id": self.tokens[seat],
                      "x": self.rng.randint(1, 70) + self.counter / 1000,
                      "y": self.rng.randint(1, 46)}
        elif kind == "note":
            action = {"type": "note", "text": ref}
        else:
            action = {"type": "roll_dice", "dice": self.rng.choice(["D6", "2D6", "D3"]),
                      "reason": ref}
        self.actions[ref] = (seat, action)
        return ref, action

    def answered(self, ref: str, answer: dict[str, Any]) -> None:
        assert answer["type"] == "ack", answer
        self.acked[ref] = answer["seq"]
        seat, action = self.actions[ref]
        if action["type"] == "place_token":
            self.tokens.setdefault(seat, f"t{self._placed_id(ref, answer['seq'])}")

    def _placed_id(self, ref: str, seq: int) -> str:
        event = self.log()[seq - 1]
        assert event.payload["token"]["label"] == ref
        return str(event.payload["token"]["id"]).lstrip("t")

    def check_in_log(self, refs: dict[str, int], log: list[Event]) -> None:
        """Each ref's action is the event at its acked seq, and nowhere else."""
        by_seq = {e.seq: e for e in log}
        for ref, seq in refs.items():
            seat, action = self.actions[ref]
            assert seq in by_seq, f"acknowledged {ref} (seq {seq}) is not in the log"
            assert matches(by_seq[seq], seat, ref, action), (ref, action, by_seq[seq])
            others = [e.seq for e in log if e.seq != seq and matches(e, seat, ref, action)]
            assert not others, f"{ref} applied more than once: seqs {[seq, *others]}"

    async def play(self, rounds: int) -> None:
        """Both players act in turn, each waiting for its ack."""
        for _ in range(rounds):
            for seat in (1, 2):
                ref, action = self.next_action(seat)
                self.answered(ref, await self.players[seat].act(ref, action))

    async def resume(self) -> float:
        """Reconnect both players with `since`; seconds until both have every event."""
        started = time.monotonic()
        await asyncio.gather(*(p.connect(self.server.ws_url) for p in self.players.values()))
        last = self.log()[-1].seq
        await asyncio.gather(*(p.wait_for_seq(last, 5) for p in self.players.values()))
        took = time.monotonic() - started
        for player in self.players.values():
            player.assert_contiguous(last)
        return took

    def views(self) -> dict[str, Any]:
        """The rebuilt state as each viewer sees it, and the events, from the live server."""
        out: dict[str, Any] = {}
        for who, token in (("p1", self.players[1].token), ("p2", self.players[2].token),
                           ("spectator", None)):
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            state = httpx.get(f"{self.server.url}/api/games/{self.id}", headers=headers)
            events = httpx.get(f"{self.server.url}/api/games/{self.id}/events", headers=headers)
            out[who] = {"state": state.json(), "events": events.json()}
        return out


def matches(event: Event, seat: int, ref: str, action: dict[str, Any]) -> bool:
    if event.actor != seat:
        return False
    p = event.payload
    kind = action["type"]
    if kind == "place_token":
        return event.type == "token_placed" and p["token"]["label"] == ref
    if kind == "move_token":
        return event.type == "token_moved" and (p["x"], p["y"]) == (action["x"], action["y"])
    if kind == "note":
        return event.type == "note_added" and p["text"] == ref
    return event.type == "dice_rolled" and p["reason"] == ref


async def answers(futures: list[asyncio.Future[Any]], count: int) -> None:
    """Wait until `count` of `futures` are done (10 s without one: the server hangs)."""
    waiting = set(futures)
    while len(futures) - len(waiting) < count:
        done, waiting = await asyncio.wait(waiting, timeout=10,
                                           return_when=asyncio.FIRST_COMPLETED)
        assert done, "no answer for 10 s"


async def scenario(game: Game) -> None:
    rng = game.rng
    # --- (a) die right after the k-th commit, before the fold, the ack and the broadcast ----
    crash_after = rng.randint(3, 8)
    game.start(crash_after=crash_after)
    game.create()
    for player in game.players.values():
        await player.connect(game.server.ws_url)
    lost: tuple[int, str] | None = None
    with pytest.raises(ConnectionError):
        for _ in range(20):
            for seat in (1, 2):
                ref, action = game.next_action(seat)
                lost = (seat, ref)
                game.answered(ref, await game.players[seat].act(ref, action))
    assert game.server.proc.wait(10) == 137, game.server.log()
    game.server.stop()
    assert len(game.acked) == crash_after - 1
    before = game.log()
    assert lost is not None and lost[1] not in game.acked
    # The crash came after the commit: the unacknowledged action is durable...
    game.check_in_log({lost[1]: before[-1].seq}, before)
    game.check_in_log(game.acked, before)
    await restart_and_check(game, before)
    # ... and its retry (same ref) gets the original seq: applied once.
    seat, ref = lost
    answer = await game.players[seat].act(ref, game.actions[ref][1])
    assert answer == {"type": "ack", "ref": ref, "seq": before[-1].seq}
    game.answered(ref, answer)
    assert game.log() == before

    # --- (b) kill -9 at a random moment while both players have actions in flight ----------
    await game.play(2)
    pending: dict[str, asyncio.Future[Any]] = {}
    for _ in range(6):
        for seat in (1, 2):
            ref, action = game.next_action(seat)
            pending[ref] = await game.players[seat].send_action(ref, action)
    # The random moment is a random number of answers in (none to all but one), not a
    # random sleep: the kill comes while the remaining actions are in flight or committing.
    await answers(list(pending.values()), rng.randrange(len(pending)))
    game.kill()
    await asyncio.gather(*pending.values(), return_exceptions=True)
    for ref, future in pending.items():
        if not future.exception():
            game.answered(ref, future.result())
    before = game.log()
    game.check_in_log(game.acked, before)
    await restart_and_check(game, before)
    # Resend every action whose ack was lost, with its ref: each ends up in the log once.
    for ref in [r for r in pending if r not in game.acked]:
        seat, action = game.actions[ref]
        game.answered(ref, await game.players[seat].act(ref, action))
    game.check_in_log(game.acked, game.log())
    assert set(pending) <= set(game.acked)

    # --- (c) kill -9 between actions: the restarted server shows exactly what it showed -----
    await game.play(rng.randint(1, 4))
    await asyncio.gather(*(p.wait_for_seq(game.log()[-1].seq, 5)
                           for p in game.players.values()))
    shown = game.views()
    game.kill()
    before = game.log()
    await restart_and_check(game, before)
    assert game.views() == shown
    await game.play(1)
    last = game.log()[-1].seq
    await asyncio.gather(*(p.wait_for_seq(last, 5) for p in game.players.values()))
    for player in game.players.values():
        player.assert_contiguous(last)
        await player.close()


async def restart_and_check(game: Game, before: list[Event]) -> None:
    """Restart on the same database; the log and its fold are unchanged; clients resume."""
    for player in game.players.values():
        assert await player.closed() != 1000  # they saw the server die
    game.start()
    after = game.log()
    assert log_hash(after) == log_hash(before)
    rebuilt = httpx.get(f"{game.server.url}/api/games/{game.id}",
                        headers={"Authorization": f"Bearer {game.players[1].token}"}).json()
    assert rebuilt["seq"] == before[-1].seq
    assert rebuilt["state"] == fold_all(GameState(), before).to_json(1)
    took = await game.resume()
    assert took < RECOVERY_S, f"clients took {took:.2f} s to resume"


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_acknowledged_actions_survive_kill_9(
    backend: str, serve: Any, tmp_path: Any, request: pytest.FixtureRequest
) -> None:
    if backend == "postgres":
        url: str = request.getfixturevalue("postgres_database")
    else:
        url = f"sqlite:///{tmp_path}/warfield.db"
    seed = int(os.environ.get("WARFIELD_TEST_SEED") or random.randrange(2**32))
    game = Game(serve, tmp_path, url, random.Random(seed))
    try:
        asyncio.run(scenario(game))
    except BaseException as exc:
        server_log = game.server.log() if game.server else ""
        raise AssertionError(f"WARFIELD_TEST_SEED={seed}: {exc!r}\n{server_log}") from exc
    finally:
        game.store.engine.dispose()
