"""Schemathesis over the OpenAPI schema (issue 8 item 5): whatever a client sends, the REST API
answers without a 5xx, with a status the schema documents and a body that matches it.

Schemathesis only generates JSON a strict encoder allows, within the schema's bounds; hostile
clients do not. So each case may also have its numbers swapped for extreme ones (NaN, Infinity,
1e300, 2**63, which Python's JSON parser accepts), and its action for one of the table's actions
with coordinates from a small pool, so that identical and collinear terrain points are likely
(issue 12 item 5: these reached a 500).

Bounded for `make test`; a host's longer run: WARFIELD_FUZZ_EXAMPLES=2000 (see the README).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis import checks

from server.api.app import create_app
from server.config import Settings
from tests.api.helpers import auth, new_game

EXAMPLES = int(os.environ.get("WARFIELD_FUZZ_EXAMPLES", "20"))


# The app is built at import (schemathesis parametrizes from its schema at collection); the
# `live` fixture runs its lifespan (migrations, service, hub) around the module's cases.
DATA_DIR = tempfile.mkdtemp(prefix="warfield-fuzz-")
# The REST rate limit is lifted: the fuzz sends far more POSTs than a player (tests/api/
# test_limits.py proves the limit).
APP = create_app(Settings(DATABASE_URL=f"sqlite:///{DATA_DIR}/w.db", WARFIELD_DATA_DIR=DATA_DIR,
                          WARFIELD_REST_RATE_PER_MIN=10**9, WARFIELD_REST_RATE_BURST=10**9))
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


def _ambush_game(client: TestClient) -> dict[str, Any]:
    """A t9a game in deployment with Gremlins waiting in Ambush (`unit`), for questions."""
    game = new_game(client, "t9a")
    for token, unit in ((game["p1"], {"datasheet": "mageblight-gremlin", "models": 3}),
                        (game["p2"], {"datasheet": "citizen-spears", "models": 20})):
        answer = client.post(f"/api/games/{game['id']}/actions", headers=auth(token),
                             json={"action": {"type": "submit_army", "units": [unit]}})
        assert answer.status_code == 200, answer.text
    units = client.get(f"/api/games/{game['id']}").json()["state"]["units"]
    gremlins = next(u for u, v in units.items() if v["datasheet"] == "mageblight-gremlin")
    answer = client.post(f"/api/games/{game['id']}/actions", headers=auth(game["p1"]),
                         json={"action": {"type": "declare_reserve", "unit": gremlins}})
    assert answer.status_code == 200, answer.text
    return {**game, "unit": gremlins}


@pytest.fixture(scope="module")
def live() -> Iterator[tuple[TestClient, dict[str, Any]]]:
    try:
        with TestClient(APP) as client:
            yield client, {**new_game(client), "ambush": _ambush_game(client)}
    finally:
        shutil.rmtree(DATA_DIR, ignore_errors=True)


EXTREMES: list[Any] = [
    math.nan, math.inf, -math.inf, 1e300, -1e300, 5e-324, 2**63, -(2**63) - 1, 10**30, -1,
]
"""Numbers a hostile client can send (json.loads reads NaN, Infinity and any integer)."""
EXTREME = st.sampled_from(EXTREMES)
COORD = st.sampled_from([0, 1, 2, 6, 36] * 3 + [72.5, -12.5, 300, 1e300, math.nan, math.inf])
"""Mostly on the table, from a small pool, so that drawn terrain points are often identical or
collinear; sometimes off it or not a number at all."""
POINT = st.tuples(COORD, COORD).map(list)
FACING = st.one_of(COORD, EXTREME)
TERRAIN = st.fixed_dictionaries({"type": st.just("place_terrain"), "kind": st.just("cover"),
                                 "points": st.lists(POINT, min_size=3, max_size=5)})
ACTION = st.one_of(
    TERRAIN,
    TERRAIN,
    st.fixed_dictionaries({"type": st.just("place_token"), "x": COORD, "y": COORD,
                           "facing": FACING}),
    st.fixed_dictionaries({"type": st.just("move_token"), "id": st.just("t1"), "x": COORD,
                           "y": COORD, "facing": FACING}),
    st.fixed_dictionaries({"type": st.just("deploy_unit"), "unit": st.just("u1"), "x": COORD,
                           "y": COORD, "facing": FACING}),
    st.fixed_dictionaries({"type": st.just("propose"), "kind": st.just("free_move"),
                           "unit": st.just("u1"), "x": COORD, "y": COORD,
                           "positions": st.lists(POINT, min_size=1, max_size=3)}),
    st.fixed_dictionaries({"type": st.just("roll_dice"), "dice": st.sampled_from(
        ["D6", "2D6", "1000000D6", "D0", "99999999999999999999D6"])}),
    st.fixed_dictionaries({"type": st.just("note"), "text": st.text(max_size=600)}),
)
NUMBER = st.one_of(COORD, EXTREME)
QUESTION_POINT = st.fixed_dictionaries({"x": NUMBER, "y": NUMBER},
                                       optional={"facing": NUMBER})
"""A point or placement of a question (`from`, `to`, `placement`)."""
EDGE_POINT = st.fixed_dictionaries({"x": NUMBER, "y": st.just(0)})
"""An ambush arrival point: on the long edge when x is on the table."""


def _extreme_numbers(value: Any, data: st.DataObject) -> Any:
    """`value` with some of its numbers (at any depth) replaced by extreme ones."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return data.draw(EXTREME) if data.draw(st.booleans()) else value
    if isinstance(value, list):
        return [_extreme_numbers(v, data) for v in value]
    if isinstance(value, dict):
        return {k: _extreme_numbers(v, data) for k, v in value.items()}
    return value


def _harden(case: Any, data: st.DataObject, game: dict[str, Any]) -> None:
    """Make most cases hostile: a table action with coordinates from the pool (from seat 1 of
    the real game), question points with extreme numbers, or extreme numbers anywhere; the
    body is then sent as the bytes a lax JSON encoder writes (NaN, Infinity as bare words)."""
    body = case.body
    if not data.draw(st.integers(0, 3)):
        return  # a quarter of the cases stay as schemathesis made them
    if isinstance(body, dict) and "action" in body:
        body = {**body, "action": data.draw(ACTION)}
        case.path_parameters["game_id"] = game["id"]
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {game['p1']}"}
    elif isinstance(body, dict) and {"from", "to", "point", "placement"} & set(body):
        body = {**body, **{k: data.draw(QUESTION_POINT) for k in ("from", "to")
                           if k in body and data.draw(st.booleans())}}
        if "point" in body:
            body["point"] = data.draw(EDGE_POINT)
            if data.draw(st.integers(0, 3)):
                body["placement"] = data.draw(QUESTION_POINT)
        if "unit" in body:
            body["unit"] = game["ambush"]["unit"]
        case.path_parameters["game_id"] = game["ambush"]["id"]
    elif isinstance(body, dict | list):
        body = _extreme_numbers(body, data)
    if isinstance(body, dict | list):
        case.body = json.dumps(body).encode()
    if isinstance(case.query, dict) and case.query:
        case.query = {k: data.draw(EXTREME) if isinstance(v, int | float) else v
                      for k, v in case.query.items()}


@schema.parametrize()
@schema.given(data=st.data())
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_rest_api_conforms_to_its_schema(
    case: Any, data: st.DataObject, live: tuple[TestClient, dict[str, Any]]
) -> None:
    _, game = live
    # Half the cases aim at a real game, with or without a real seat token, so the fuzz gets
    # past "no such game" into the routes' own validation and the rules.
    game_id = (case.path_parameters or {}).get("game_id")
    if isinstance(game_id, str) and len(game_id) % 2 == 0:
        case.path_parameters["game_id"] = game["id"]
        if len(game_id) % 4 == 0:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {game['p1']}"}
    _harden(case, data, game)
    case.call_and_validate(
        checks=[
            checks.not_a_server_error,
            checks.status_code_conformance,
            checks.content_type_conformance,
            checks.response_schema_conformance,
        ]
    )


def test_unparseable_bodies_get_the_error_shape(live: tuple[TestClient, dict[str, Any]]) -> None:
    """What the fuzz found: a body that is not JSON got FastAPI's `{"detail"}`; now ErrorBody."""
    client, game = live
    for body in (b"\xff\xfe{", b"[" * 50_000 + b"]" * 50_000, b'{"action": '):
        answer = client.post(f"/api/games/{game['id']}/actions", content=body,
                             headers={"content-type": "application/json",
                                      "Authorization": f"Bearer {game['p1']}"})
        assert answer.status_code == 400
        assert answer.json()["code"] == "bad_request" and answer.json()["message"]


def test_a_seq_past_the_columns_range_is_bad_request(
    live: tuple[TestClient, dict[str, Any]],
) -> None:
    """What the fuzz found: `since=2**63` overflowed the database driver (a 500)."""
    client, game = live
    for since in (2**31, 2**63):
        answer = client.get(f"/api/games/{game['id']}/events", params={"since": since})
        assert (answer.status_code, answer.json()["code"]) == (400, "bad_request")
    assert client.get(f"/api/games/{game['id']}/events", params={"since": 2**31 - 1}).json() == {
        "events": []}
