"""Schemathesis over the OpenAPI schema (issue 8 item 5): whatever a client sends, the REST API
answers without a 5xx, with a status the schema documents and a body that matches it.

Bounded for `make test`; a host's longer run: WARFIELD_FUZZ_EXAMPLES=2000 (see the README).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis import checks

from server.api.app import create_app
from server.config import Settings
from tests.api.helpers import new_game

EXAMPLES = int(os.environ.get("WARFIELD_FUZZ_EXAMPLES", "20"))


# The app is built at import (schemathesis parametrizes from its schema at collection); the
# `live` fixture runs its lifespan (migrations, service, hub) around the module's cases.
DATA_DIR = tempfile.mkdtemp(prefix="warfield-fuzz-")
# The REST rate limit is lifted: the fuzz sends far more POSTs than a player (tests/api/
# test_limits.py proves the limit).
APP = create_app(Settings(DATABASE_URL=f"sqlite:///{DATA_DIR}/w.db", WARFIELD_DATA_DIR=DATA_DIR,
                          WARFIELD_REST_RATE_PER_MIN=10**9, WARFIELD_REST_RATE_BURST=10**9))
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@pytest.fixture(scope="module")
def live() -> Iterator[tuple[TestClient, dict[str, Any]]]:
    try:
        with TestClient(APP) as client:
            yield client, new_game(client)
    finally:
        shutil.rmtree(DATA_DIR, ignore_errors=True)


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_rest_api_conforms_to_its_schema(
    case: Any, live: tuple[TestClient, dict[str, Any]]
) -> None:
    _, game = live
    # Half the cases aim at a real game, with or without a real seat token, so the fuzz gets
    # past "no such game" into the routes' own validation and the rules.
    game_id = (case.path_parameters or {}).get("game_id")
    if isinstance(game_id, str) and len(game_id) % 2 == 0:
        case.path_parameters["game_id"] = game["id"]
        if len(game_id) % 4 == 0:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {game['p1']}"}
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
