"""Decoder fuzz of the websocket messages (issue 8 item 5): any sequence of frames — junk text,
binary, deep or odd JSON, messages of every type with fields of any shape, before or after
`hello` — gets answers or a policy close, never an unhandled exception, never an `internal`
error, and changes the game only through an acknowledged action.

Drives the real `Connection` over an in-memory socket. Bounded for `make test`;
WARFIELD_FUZZ_EXAMPLES scales it for a longer run.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import server.api.routes.questions  # noqa: F401 - registers preview, measure, line_of_sight
from server.api.ws import Connection, Connections
from server.config import Settings
from server.games.service import GameService
from server.hub import LocalHub
from server.store import EventStore, make_engine
from server.store.migrate import upgrade
from tests.reliability.fakes import FakeSocket

EXAMPLES = int(os.environ.get("WARFIELD_FUZZ_EXAMPLES", "150"))
CODES = {"bad_request", "unauthorized", "forbidden", "not_found", "stale", "out_of_phase",
         "illegal_move", "rate_limited", "too_large", "conflict"}
CLOSES = {1008, 1009, 1013}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12,
)
kinds = st.sampled_from(["hello", "action", "ping", "preview", "measure", "line_of_sight",
                         "events", "welcome"]) | st.text(max_size=10)
actions = st.fixed_dictionaries(
    {"type": st.sampled_from(["note", "place_token", "move_token", "roll_dice", "remove_token",
                              "deploy_unit", "move_unit", "end_phase", "declare_charge"])},
    optional={"text": json_values, "x": json_values, "y": json_values, "id": json_values,
              "dice": json_values, "unit": json_values, "units": json_values},
)
messages = st.fixed_dictionaries(
    {"type": kinds},
    optional={"ref": json_values, "token": json_values, "since": json_values,
              "expected_seq": json_values, "action": actions | json_values,
              "from": json_values, "to": json_values, "viewer": json_values,
              "target": json_values},
)
frames = st.one_of(
    messages.map(lambda m: ("text", json.dumps(m))),
    json_values.map(lambda v: ("text", json.dumps(v))),
    st.text(max_size=60).map(lambda t: ("text", t)),
    st.binary(max_size=60).map(lambda b: ("bytes", b)),
    st.just(("text", "[" * 5000 + "]" * 5000)),  # deep nesting
    st.just(("text", '{"type": "ping", "pad": "' + "x" * 70_000 + '"}')),  # over 64 KiB
)


def test_any_frames_get_answers_or_a_policy_close() -> None:
    loop = asyncio.new_event_loop()
    import tempfile

    data_dir = tempfile.mkdtemp(prefix="warfield-decoder-")
    config = Settings(DATABASE_URL=f"sqlite:///{data_dir}/w.db", WARFIELD_DATA_DIR=data_dir,
                      rate_limit_burst=100_000)
    engine = make_engine(config.effective_database_url)
    upgrade(engine)
    service = GameService(EventStore(engine), LocalHub())
    game = loop.run_until_complete(service.create_game("t9a"))
    seat2 = loop.run_until_complete(service.claim_seat(game.id, game.invite))
    tokens = {1: game.token, 2: seat2[1], None: None}

    async def session(sent: list[tuple[str, Any]], hello_first: bool, who: int | None) -> None:
        socket = FakeSocket()
        conn = Connection(socket, service, config, game.id, Connections())  # type: ignore[arg-type]
        task = asyncio.create_task(conn.run())
        if hello_first:
            socket.say(json.dumps({"type": "hello", "token": tokens[who], "since": 0}))
        for kind, payload in sent:
            socket.say(text=payload) if kind == "text" else socket.say(data=payload)
        socket.say(json.dumps({"type": "ping", "ref": "the-end"}))
        while not task.done() and not any(f.get("ref") == "the-end" and f["type"] == "pong"
                                           for f in socket.frames):
            await asyncio.sleep(0.001)
        socket.inbox.put_nowait({"type": "websocket.disconnect", "code": 1000})
        await task  # raises if the connection failed with an unhandled exception
        for frame in socket.frames:
            if frame["type"] == "error":
                assert frame["code"] in CODES, frame
                assert isinstance(frame["message"], str) and frame["message"]
        if socket.close_code is not None:
            assert socket.close_code in CLOSES, socket.frames
        else:
            assert any(f["type"] == "pong" for f in socket.frames)
        acked = sum(f["type"] == "ack" for f in socket.frames)
        return acked

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(sent=st.lists(frames, max_size=6), hello_first=st.booleans(),
           who=st.sampled_from([1, 2, None]))
    def check(sent: list[tuple[str, Any]], hello_first: bool, who: int | None) -> None:
        before = loop.run_until_complete(service.live(game.id)).state.seq
        acked = loop.run_until_complete(asyncio.wait_for(session(sent, hello_first, who), 10))
        after = service.store.events(game.id)
        assert [e.seq for e in after] == list(range(1, len(after) + 1))
        if not acked:
            assert len(after) == before  # nothing but an acknowledged action changes the game

    try:
        check()
    finally:
        engine.dispose()
        loop.close()
        import shutil

        shutil.rmtree(data_dir, ignore_errors=True)
