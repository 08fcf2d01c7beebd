"""A hypothesis state machine over the service and the real websocket `Connection` (issue 8
item 5): create, join, connect, act, retry, disconnect, reconnect and restart, in any order.

Invariants after every step: the log's seqs are contiguous; the live state equals the replay of
the log; every socket received each seq once, in order, across its reconnects; a spectator or
the opponent never receives a hidden event's content (the seat that owns it does); a retried
`ref` gets its original ack; nothing raises and no `internal` error is ever sent.

Sockets are the real `server.api.ws.Connection` over an in-memory websocket. Hidden events come
from a test-only action `whisper` (visible to its seat), registered for this module only.
Bounded for `make test`; WARFIELD_FUZZ_EXAMPLES scales it for a longer run.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from server.api.ws import Connection, Connections
from server.config import Settings
from server.games.service import GameService
from server.hub import LocalHub
from server.rules import core
from server.rules.core import ActionModel, Event, GameState, RuleError, seat_visibility
from server.store import EventStore, make_engine
from server.store.migrate import upgrade
from tests.reliability.fakes import FakeSocket

EXAMPLES = int(os.environ.get("WARFIELD_FUZZ_EXAMPLES", "30"))
SECRET = "zz-secret-"  # every whisper's text starts with this; nobody else may ever see it
KNOWN_CODES = {"bad_request", "forbidden", "not_found", "stale", "out_of_phase",
               "illegal_move", "conflict"}


class Whisper(ActionModel):
    type: Literal["whisper"]
    text: str


def whisper(state: GameState, seat: int, action: Whisper, dice: Any) -> list[Event]:
    return [Event("whispered", {"text": action.text}, actor=seat,
                  visibility=seat_visibility(seat))]


@pytest.fixture(autouse=True, scope="module")
def _whisper_action() -> Iterator[None]:
    core.register_action("whisper", Whisper)(whisper)
    try:
        yield
    finally:
        core.ACTIONS.pop("whisper")


class Client:
    """One browser tab of a viewer; `seen` spans its reconnects."""

    def __init__(self, game: str, seat: int | None, token: str | None) -> None:
        self.game, self.seat, self.token = game, seat, token
        self.seen: list[int] = []
        self.first: int | None = None
        self.last = 0
        self.socket: FakeSocket | None = None
        self.task: asyncio.Task[None] | None = None
        self.read = 0  # frames of the current socket already taken into `seen`

    def take(self) -> list[dict[str, Any]]:
        assert self.socket is not None
        new = self.socket.frames[self.read:]
        self.read = len(self.socket.frames)
        for frame in new:
            assert frame.get("code") != "internal", frame
            if frame["type"] == "welcome":
                if self.first is None:
                    self.first = self.last = frame["seq"]
                assert frame["seq"] >= self.last
            elif frame["type"] == "events":
                for event in frame["events"]:
                    self.seen.append(event["seq"])
                    self.last = max(self.last, event["seq"])
        return new


class ServiceMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.dir = tempfile.mkdtemp(prefix="warfield-stateful-")
        self.settings = Settings(DATABASE_URL=f"sqlite:///{self.dir}/w.db",
                                 WARFIELD_DATA_DIR=self.dir, rate_limit_burst=10_000)
        self.engine: Any = None
        self.service = self._start()
        self.tokens: dict[str, dict[int, str]] = {}  # game -> seat -> token
        self.invites: dict[str, str] = {}  # game -> the invite secret that claims seat 2
        self.online: list[Client] = []
        self.offline: list[Client] = []
        self.refs: dict[tuple[str, int, str], tuple[dict[str, Any], int]] = {}

    def _start(self) -> GameService:
        if self.engine is not None:
            self.engine.dispose()
        self.engine = make_engine(self.settings.effective_database_url)
        upgrade(self.engine)
        self.connections = Connections()
        return GameService(EventStore(self.engine), LocalHub())

    def run(self, coro: Any, timeout: float = 10) -> Any:
        return self.loop.run_until_complete(asyncio.wait_for(coro, timeout))

    def teardown(self) -> None:
        for client in self.online:
            self._drop(client)
        self.engine.dispose()
        self.loop.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    # --- games and seats -----------------------------------------------------------------------

    @initialize(system=st.sampled_from(["t9a", "whfb8", "wh40k10"]))
    def first_game(self, system: str) -> None:
        """A game with both seats taken, both players and a spectator watching."""
        self.create(system)
        game = next(iter(self.tokens))
        seat, token = self.run(self.service.claim_seat(game, self.invites[game]))
        self.tokens[game][seat] = token
        for who in (1, 2, None):
            client = Client(game, who, self.tokens[game][who] if who else None)
            self.run(self._open(client, None))
            client.take()
            self.online.append(client)

    @precondition(lambda self: len(self.tokens) < 2)
    @rule(system=st.sampled_from(["t9a", "whfb8", "wh40k10"]))
    def create(self, system: str) -> None:
        created = self.run(self.service.create_game(system))
        self.tokens[created.id] = {1: created.token}
        self.invites[created.id] = created.invite

    @precondition(lambda self: self.tokens)
    @rule(data=st.data())
    def join(self, data: st.DataObject) -> None:
        game = data.draw(st.sampled_from(list(self.tokens)))
        try:
            seat, token = self.run(self.service.claim_seat(game, self.invites[game]))
        except RuleError as exc:
            assert exc.code == "conflict" and len(self.tokens[game]) == 2
            return
        self.tokens[game][seat] = token

    # --- sockets -------------------------------------------------------------------------------

    async def _open(self, client: Client, since: int | None) -> None:
        client.socket, client.read = FakeSocket(), 0
        conn = Connection(client.socket, self.service, self.settings, client.game,  # type: ignore[arg-type]
                          self.connections)
        client.task = asyncio.create_task(conn.run())
        await client.socket.inbox.put({"type": "websocket.receive", "text": json.dumps(
            {"type": "hello", "token": client.token, "since": since})})
        while not any(f["type"] == "welcome" for f in client.socket.frames):
            assert not client.task.done(), client.socket.frames
            await asyncio.sleep(0.001)

    @precondition(lambda self: self.tokens and len(self.online) < 5)
    @rule(data=st.data())
    def connect(self, data: st.DataObject) -> None:
        game = data.draw(st.sampled_from(list(self.tokens)))
        seat = data.draw(st.sampled_from([None, *self.tokens[game]]))
        client = Client(game, seat, self.tokens[game][seat] if seat else None)
        self.run(self._open(client, None))
        client.take()
        self.online.append(client)

    def _drop(self, client: Client) -> None:
        assert client.socket is not None and client.task is not None
        client.socket.inbox.put_nowait({"type": "websocket.disconnect", "code": 1001})
        self.run(client.task)
        client.take()

    @precondition(lambda self: self.online)
    @rule(data=st.data())
    def disconnect(self, data: st.DataObject) -> None:
        client = data.draw(st.sampled_from(self.online))
        self._drop(client)
        self.online.remove(client)
        self.offline.append(client)

    @precondition(lambda self: self.offline)
    @rule(data=st.data())
    def reconnect(self, data: st.DataObject) -> None:
        client = data.draw(st.sampled_from(self.offline))
        self.run(self._open(client, client.last))
        self.offline.remove(client)
        self.online.append(client)

    @rule()
    def restart(self) -> None:
        """The process dies and starts again: sockets drop, memory is rebuilt from the log."""
        for client in self.online:
            assert client.task is not None
            client.task.cancel()
            self.loop.run_until_complete(asyncio.gather(client.task, return_exceptions=True))
            client.take()
        self.offline += self.online
        self.online = []
        self.service = self._start()

    # --- actions -------------------------------------------------------------------------------

    async def _send(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        assert client.socket is not None
        start = len(client.socket.frames)
        await client.socket.inbox.put({"type": "websocket.receive", "text": json.dumps(message)})
        while True:
            for frame in client.socket.frames[start:]:
                if frame.get("ref") == message["ref"] and frame["type"] in ("ack", "error"):
                    return frame
            await asyncio.sleep(0.001)

    @precondition(lambda self: self.online)
    @rule(data=st.data(), action=st.one_of(
        st.builds(lambda t: {"type": "note", "text": t}, st.text(min_size=1, max_size=20)),
        st.builds(lambda t: {"type": "whisper", "text": SECRET + t}, st.text(max_size=10)),
        st.builds(lambda t: {"type": "whisper", "text": SECRET + t}, st.just("again")),
        st.builds(lambda x, y: {"type": "place_token", "x": x, "y": y},
                  st.integers(-5, 80), st.integers(-5, 60)),
        st.builds(lambda i, x: {"type": "move_token", "id": f"t{i}", "x": x, "y": 5},
                  st.integers(1, 4), st.integers(1, 70)),
        st.builds(lambda d: {"type": "roll_dice", "dice": d}, st.sampled_from(["D6", "2D6", "Q"])),
        st.fixed_dictionaries({"type": st.text(max_size=8)}),
    ), stale=st.sampled_from([False, False, False, True]))
    def act(self, data: st.DataObject, action: dict[str, Any], stale: bool) -> None:
        client = data.draw(st.sampled_from(self.online))
        ref = f"r{data.draw(st.integers(0, 6))}"  # few refs: retries and reuse happen
        message: dict[str, Any] = {"type": "action", "ref": ref, "action": action}
        if stale:
            message["expected_seq"] = 0
        answer = self.run(self._send(client, message))
        event(f"{action.get('type')} by {'seat' if client.seat else 'spectator'}: "
              f"{answer.get('code', 'ack')}")
        key = (client.game, client.seat or 0, ref)
        if client.seat is None:
            assert answer["code"] == "forbidden"
        elif key in self.refs:  # the ref was used before: its ack again, or refused
            first_action, seq = self.refs[key]
            if first_action == action:
                assert answer == {"type": "ack", "ref": ref, "seq": seq}
            else:
                assert answer["code"] == "bad_request" and "ref" in answer["message"]
        elif answer["type"] == "ack":
            self.refs[key] = (action, answer["seq"])
        else:
            assert answer["code"] in KNOWN_CODES, answer

    @precondition(lambda self: any(c.seat for c in self.online))
    @rule(data=st.data(), text=st.text(max_size=10))
    def whisper(self, data: st.DataObject, text: str) -> None:
        """A seat acts in secret (as a Fanatic hides in its unit): one player may see it."""
        client = data.draw(st.sampled_from([c for c in self.online if c.seat]))
        ref = f"w{data.draw(st.integers(0, 3))}"
        action = {"type": "whisper", "text": SECRET + text}
        answer = self.run(self._send(client, {"type": "action", "ref": ref, "action": action}))
        key = (client.game, client.seat or 0, ref)
        if key in self.refs and self.refs[key][0] != action:
            assert answer["code"] == "bad_request"
        else:
            assert answer["type"] == "ack", answer
            assert self.refs.setdefault(key, (action, answer["seq"]))[1] == answer["seq"]

    # --- invariants ----------------------------------------------------------------------------

    def _settle(self) -> None:
        """Let every socket's writer deliver what was committed."""
        async def settled() -> None:
            while True:
                pending = [c for c in self.online if c.take() is not None
                           and c.last < (self.service.cached(c.game) or _NoLive).state.seq]
                if not pending:
                    return
                await asyncio.sleep(0.001)

        self.run(settled(), timeout=2)  # (a bound on a hang, not a timing assertion)

    @invariant()
    def logs_are_contiguous_and_replay_equals_live(self) -> None:
        for game in self.tokens:
            log = self.service.store.events(game)
            assert [e.seq for e in log] == list(range(1, len(log) + 1))
            live = self.service.cached(game)
            if live is not None:
                assert core.fold_all(GameState(), log) == live.state
            for (g, seat, _ref), (_action, seq) in self.refs.items():
                if g == game:
                    assert log[seq - 1].actor == seat

    @invariant()
    def every_socket_sees_each_seq_once_and_no_secret_of_others(self) -> None:
        self._settle()
        for client in self.online + self.offline:
            if client.first is None:
                continue
            assert client.seen == list(range(client.first + 1, client.last + 1)), client.seen
            assert client.socket is not None
            log = {e.seq: e for e in self.service.store.events(client.game)}
            for text in client.socket.raw:
                frame = json.loads(text)
                for wire in frame.get("events", []):
                    real = log[wire["seq"]]
                    if real.visibility in ("public", f"player:{client.seat}"):
                        # (so the seat that whispered, in any tab, sees its own secret)
                        assert wire == {"seq": real.seq, "type": real.type,
                                         "actor": real.actor, "payload": dict(real.payload)}
                    else:
                        assert wire == {"seq": real.seq, "type": "hidden",
                                         "actor": real.actor, "payload": {}}
                if client.seat is None:
                    assert SECRET not in text



class _NoLive:
    class state:  # noqa: N801 - a stand-in for a game not in memory
        seq = -1


ServiceMachine.TestCase.settings = settings(
    max_examples=EXAMPLES, stateful_step_count=20, deadline=None,
    suppress_health_check=list(HealthCheck),
)
test_service_state_machine = ServiceMachine.TestCase
