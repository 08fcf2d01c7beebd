"""REST limits (issue 12 item 4 e, f): writes per client address are rate limited (429 with
Retry-After, a player at play speed never meets it), and request bodies over the size limit
are refused with 413 before they are read in full."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.api.app import create_app
from server.api.limits import BodySizeLimit, Buckets, client_key
from server.config import Settings
from tests.api.helpers import auth, new_game


def app_client(tmp_path: Any, client: tuple[str, int] = ("192.0.2.1", 5000),
               **settings: Any) -> TestClient:
    return TestClient(create_app(Settings(
        DATABASE_URL=f"sqlite:///{tmp_path}/w.db", WARFIELD_DATA_DIR=str(tmp_path), **settings)),
        client=client)


# --- 4(e) the REST rate limit -----------------------------------------------------------------


def test_rest_writes_past_the_rate_get_429_with_retry_after(tmp_path: Any) -> None:
    """Burst 3, one a minute: the 4th create is `rate_limited` with Retry-After and creates
    nothing; reads are not limited; another address has its own allowance."""
    app = create_app(Settings(DATABASE_URL=f"sqlite:///{tmp_path}/w.db",
                              WARFIELD_DATA_DIR=str(tmp_path),
                              WARFIELD_REST_RATE_PER_MIN=1, WARFIELD_REST_RATE_BURST=3))
    with TestClient(app, client=("192.0.2.1", 5000)) as client:
        created = [client.post("/api/games", json={"system": "t9a"}) for _ in range(3)]
        assert [r.status_code for r in created] == [201, 201, 201]
        refused = client.post("/api/games", json={"system": "t9a"})
        assert refused.status_code == 429
        body = refused.json()
        assert body["code"] == "rate_limited" and body["message"]
        assert 0 < body["details"]["retry_after"] <= 60
        assert 1 <= int(refused.headers["retry-after"]) <= 60
        # Seat claims and actions draw on the same allowance.
        game_id = created[0].json()["id"]
        assert client.post(f"/api/games/{game_id}/seats").status_code == 429
        assert client.post(f"/api/games/{game_id}/actions", headers=auth(created[0].json()[
            "token"]), json={"action": {"type": "roll_dice", "dice": "D6"}}).status_code == 429
        # Reads are not writes.
        assert client.get(f"/api/games/{game_id}").status_code == 200
        assert len(app.state.service.store.list_games()) == 3
    with TestClient(app, client=("192.0.2.2", 5000)) as other:
        assert other.post("/api/games", json={"system": "t9a"}).status_code == 201


def test_a_player_at_play_speed_never_hits_the_rest_limit() -> None:
    """The default allowance (Settings) against a simulated clock: three hours of a player
    acting over REST every second, with bursts of 60 quick moves (a unit's models one by one)
    every few minutes, never waits."""
    settings = Settings()
    buckets = Buckets(settings.rest_rate_per_min / 60, settings.rest_rate_burst)
    now, waits = 0.0, []
    for minute in range(180):
        if minute % 3 == 0:
            waits += [buckets.take("player", now + i * 0.05) for i in range(60)]
        for second in range(60):
            waits.append(buckets.take("player", now + second))
        now += 60
    assert max(waits) == 0.0


def test_rate_limit_buckets_stay_bounded_and_count_ipv6_per_64() -> None:
    buckets = Buckets(1.0, 2, capacity=100)
    for n in range(1000):
        buckets.take(f"198.51.100.{n % 256}-{n}", 0.0)
    assert len(buckets) == 100
    a = client_key({"client": ("2001:db8:1:2::1", 1)})
    b = client_key({"client": ("2001:db8:1:2:ffff::9", 1)})
    assert a == b == "2001:db8:1:2::/64"
    assert client_key({"client": ("::ffff:192.0.2.7", 1)}) == "192.0.2.7"


def post_json(url: str, body: dict[str, Any], forwarded_for: str) -> int:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), method="POST",
        headers={"content-type": "application/json", "x-forwarded-for": forwarded_for})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.parametrize("trusted", [True, False], ids=["proxy-trusted", "proxy-untrusted"])
def test_rate_limit_counts_the_forwarded_client_only_behind_a_trusted_proxy(
    serve: Any, tmp_path: Any, trusted: bool
) -> None:
    """`warfield serve` with burst 2: from a trusted proxy (loopback, the default
    WARFIELD_FORWARDED_ALLOW_IPS) each X-Forwarded-For client has its own allowance; when the
    peer is not a trusted proxy, the header is ignored and every request counts against the
    peer's address (a client cannot dodge the limit by inventing addresses)."""
    env = {"WARFIELD_REST_RATE_PER_MIN": "1", "WARFIELD_REST_RATE_BURST": "2"}
    if not trusted:
        env["WARFIELD_FORWARDED_ALLOW_IPS"] = "10.255.255.1"
    server = serve(env, str(tmp_path / ("trusted" if trusted else "untrusted")))
    create = server.url + "/api/games"
    first = [post_json(create, {"system": "t9a"}, "203.0.113.1") for _ in range(3)]
    assert first == [201, 201, 429]
    assert post_json(create, {"system": "t9a"}, "203.0.113.2") == (201 if trusted else 429)


# --- 4(f) the body size limit -----------------------------------------------------------------


@pytest.fixture
def small_body_client(tmp_path: Any) -> Iterator[TestClient]:
    with app_client(tmp_path, WARFIELD_MAX_BODY_BYTES=4096) as client:
        yield client


def test_a_body_over_the_limit_is_refused_with_413(small_body_client: TestClient) -> None:
    client = small_body_client
    game = new_game(client)
    big = {"action": {"type": "place_token", "x": 1, "y": 1, "label": "x" * 5000}}
    answer = client.post(f"/api/games/{game['id']}/actions", json=big, headers=auth(game["p1"]))
    assert answer.status_code == 413
    assert answer.json()["code"] == "too_large" and answer.json()["details"]["limit"] == 4096
    # Nothing was applied; a body under the limit still is.
    assert client.get(f"/api/games/{game['id']}").json()["state"]["tokens"] == {}
    small = {"action": {"type": "place_token", "x": 1, "y": 1, "label": "Small"}}
    assert client.post(f"/api/games/{game['id']}/actions", json=small,
                       headers=auth(game["p1"])).status_code == 200


def test_a_chunked_body_over_the_limit_is_refused_with_413(
    small_body_client: TestClient,
) -> None:
    """No Content-Length (a streamed, chunked body): counted as it arrives."""
    client = small_body_client
    game = new_game(client)

    def chunks() -> Iterator[bytes]:
        yield b'{"action": {"type": "place_token", "x": 1, "y": 1, "label": "'
        for _ in range(10):
            yield b"y" * 1000
        yield b'"}}'

    answer = client.post(f"/api/games/{game['id']}/actions", content=chunks(),
                         headers={**auth(game["p1"]), "content-type": "application/json"})
    assert "content-length" not in {k.lower() for k in answer.request.headers}
    assert answer.status_code == 413 and answer.json()["code"] == "too_large"
    assert client.get(f"/api/games/{game['id']}").json()["state"]["tokens"] == {}


def test_a_body_over_the_limit_is_not_read_in_full() -> None:
    """At the ASGI level: with a Content-Length over the limit not one chunk is read; a body
    streamed without one is read only until it passes the limit; the app never runs."""
    reached: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["path"])

    middleware = BodySizeLimit(app, limit=1000)

    async def run(headers: list[tuple[bytes, bytes]]) -> tuple[int, int]:
        read, sent = 0, []

        async def receive() -> dict[str, Any]:
            nonlocal read
            read += 1
            return {"type": "http.request", "body": b"z" * 300, "more_body": read < 100}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "POST", "path": "/api/games", "headers": headers}
        await middleware(scope, receive, send)
        return read, sent[0]["status"]

    assert asyncio.run(run([(b"content-length", b"30000")])) == (0, 413)
    assert asyncio.run(run([(b"transfer-encoding", b"chunked")])) == (4, 413)
    assert reached == []


def test_limits_are_in_the_openapi_schema(small_body_client: TestClient) -> None:
    paths = small_body_client.get("/openapi.json").json()["paths"]
    for path, operations in paths.items():
        if "post" in operations and path.startswith("/api/"):
            assert {"413", "429"} <= set(operations["post"]["responses"]), path
