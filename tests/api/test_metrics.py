"""Prometheus /metrics and token-free logs (issue 7 item 3)."""

from __future__ import annotations

import asyncio
import gc
import io
import json
import logging
import threading
import time

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from server.metrics import JsonFormatter, Metrics, RedactTokens, redact
from tests.api.helpers import new_game, receive_events, receive_until


def scrape(client: TestClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    r = client.get("/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain")
    samples = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


def value(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def hello(ws: object, token: str | None) -> dict:
    ws.send_json({"type": "hello", "token": token, "since": None})  # type: ignore[attr-defined]
    return receive_until(ws, "welcome")


def test_metrics_count_sockets_games_actions_and_latencies(client: TestClient) -> None:
    game = new_game(client)
    url = f"/ws/games/{game['id']}"
    with client.websocket_connect(url) as p1, client.websocket_connect(url) as spectator:
        hello(p1, game["p1"])
        hello(spectator, None)
        during = scrape(client)
        assert value(during, "warfield_open_sockets", role="player") == 1
        assert value(during, "warfield_open_sockets", role="spectator") == 1
        assert value(during, "warfield_active_games") >= 1

        p1.send_json({"type": "action", "ref": "a", "action": {"type": "place_token", "x": 1,
                                                               "y": 1}})
        assert receive_until(p1, "ack")["seq"] == 4
        p1.send_json({"type": "action", "ref": "b", "action": {"type": "move_token", "id": "t1",
                                                               "x": 172, "y": 5}})
        assert receive_until(p1, "error")["code"] == "illegal_move"
        p1.send_json({"type": "action", "ref": "c", "action": {"type": "made-up", "x": 1}})
        assert receive_until(p1, "error")["code"] == "bad_request"
        receive_events(spectator, 1)  # the spectator's socket has written the batch

    after = scrape(client)
    assert value(after, "warfield_actions_total", type="place_token", outcome="ok") == 1
    assert value(after, "warfield_actions_total", type="move_token", outcome="illegal_move") == 1
    assert value(after, "warfield_actions_total", type="other", outcome="bad_request") == 1
    assert not any(dict(k[1]).get("type") == "made-up" for k in after)  # no client-made labels
    assert value(after, "warfield_action_commit_seconds_count") == 1
    assert value(after, "warfield_events_committed_total") == 2  # seat 2 claimed, token placed
    # Both sockets wrote the one batch: two observations of commit -> delivered.
    assert value(after, "warfield_commit_delivered_seconds_count") == 2
    assert value(after, "warfield_commit_delivered_seconds_bucket", le="+Inf") == 2
    assert value(after, "warfield_open_sockets", role="player") == 0
    assert value(after, "warfield_open_sockets", role="spectator") == 0


def test_each_app_has_its_own_registry(client: TestClient, settings: object) -> None:
    from server.api.app import create_app

    new_game(client)
    with TestClient(create_app(settings)) as other:  # type: ignore[arg-type]
        assert value(scrape(other), "warfield_actions_total", type="place_token",
                     outcome="ok") == 0
        assert value(scrape(other), "warfield_active_games") == 0
    assert value(scrape(client), "warfield_active_games") >= 1


def scrape_until(client: TestClient, ready: object, seconds: float = 30.0) -> dict:
    """Scrape until `ready(samples)` holds (the runtime gauges roll every 5 s)."""
    deadline = time.monotonic() + seconds
    while True:
        samples = scrape(client)
        if ready(samples) or time.monotonic() > deadline:  # type: ignore[operator]
            return samples
        time.sleep(0.1)


def test_metrics_report_event_loop_lag_and_gc_pauses(client: TestClient) -> None:
    """Issue 21 item 3: a loop blocked for 0.3 s shows as lag (histogram, worst in the last
    interval, worst since start), and a full collection as a generation-2 GC pause."""
    client.portal.call(time.sleep, 0.3)  # type: ignore[union-attr] - blocks the app's loop
    gc.collect()  # timed by the app's gc.callbacks hook, whichever thread collects

    def ready(s: dict) -> bool:
        return value(s, "warfield_event_loop_lag_worst_seconds") >= 0.2 and value(
            s, "warfield_gc_pause_seconds_count", generation="2") >= 1

    samples = scrape_until(client, ready)
    assert value(samples, "warfield_event_loop_lag_worst_seconds") >= 0.2
    assert value(samples, "warfield_event_loop_lag_max_seconds") >= 0.2
    assert value(samples, "warfield_event_loop_lag_seconds_bucket", le="0.1") < value(
        samples, "warfield_event_loop_lag_seconds_count")
    assert value(samples, "warfield_gc_pause_seconds_count", generation="2") >= 1
    assert value(samples, "warfield_gc_pause_max_seconds") > 0
    assert ("warfield_gc_cpu_max_seconds", ()) in samples
    assert ("warfield_gc_cpu_worst_seconds", ()) in samples


def test_runtime_hooks_are_removed_when_the_app_stops(settings: object) -> None:
    from server.api.app import create_app

    hooks = len(gc.callbacks)
    with TestClient(create_app(settings)):  # type: ignore[arg-type]
        assert len(gc.callbacks) == hooks + 1
    assert len(gc.callbacks) == hooks


def test_tokens_and_bearer_headers_are_masked() -> None:
    token = "Zx9_kQ-3vBLm0pR7sT2uWA"  # the shape of a seat token (22 URL-safe characters)
    assert token not in redact(f"Authorization: Bearer {token}")
    assert "Bearer [redacted]" in redact(f"Authorization: Bearer {token}")
    assert token not in redact(json.dumps({"type": "hello", "token": token, "since": None}))
    assert token not in redact(f"GET /ws?token={token}&since=3")
    assert token not in redact(f"seat token {token} accepted")
    assert redact('{"token": null}') == '{"token": null}'
    kept = "game 3f2a9c0d1e2b4a5c moved warfield_commit_delivered to 12.5"
    assert redact(kept) == kept


def test_the_log_filter_masks_messages_arguments_and_tracebacks() -> None:
    token = "Zx9_kQ-3vBLm0pR7sT2uWA"
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactTokens())
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("warfield.test.redaction")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("hello with %s", {"token": token})
        logger.warning("header Bearer %s", token)
        try:
            raise ValueError(f"bad token {token}")
        except ValueError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
    text = stream.getvalue()
    assert token not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert [line["level"] for line in lines] == ["warning", "warning", "error"]
    assert lines[1]["msg"] == "header Bearer [redacted]"
    assert "ValueError" in lines[2]["exc"] and lines[2]["logger"] == "warfield.test.redaction"


def test_a_real_process_serves_metrics_and_logs_no_token(serve: object) -> None:
    import httpx

    server = serve({"WARFIELD_LOG_LEVEL": "debug"})  # type: ignore[operator]
    created = httpx.post(server.url + "/api/games", json={"system": "t9a"}).json()
    httpx.get(server.url + f"/api/games/{created['id']}",
              headers={"Authorization": f"Bearer {created['token']}"}).raise_for_status()
    body = httpx.get(server.url + "/metrics").text
    assert "warfield_open_sockets" in body and "warfield_action_commit_seconds_bucket" in body
    assert created["token"] not in server.log()


def test_the_access_line_is_kept_with_only_its_token_masked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """uvicorn's access formatter unpacks the record's arguments (client, method, path,
    version, status): masking must keep them, not print `--- Logging error ---` instead of
    the line (issue 12 item 6)."""
    from uvicorn.logging import AccessFormatter

    token = "Zx9_kQ-3vBLm0pR7sT2uWA"
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactTokens())
    handler.setFormatter(AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s',
                                         use_colors=False))
    logger = logging.getLogger("warfield.test.access")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        logger.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET",
                    f"/api/games/g1?token={token}&since=3", "1.1", 200)
        logger.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", "/healthz", "1.1", 200)
    finally:
        logger.removeHandler(handler)
    lines = stream.getvalue().splitlines()
    assert lines == [
        '127.0.0.1:5000 - "GET /api/games/g1?token=[redacted]&since=3 HTTP/1.1" 200 OK',
        '127.0.0.1:5000 - "GET /healthz HTTP/1.1" 200 OK',
    ]
    assert "Logging error" not in capsys.readouterr().err


def test_a_real_process_logs_the_access_line_of_a_url_with_a_token(serve: object) -> None:
    import httpx

    server = serve()  # type: ignore[operator]
    created = httpx.post(server.url + "/api/games", json={"system": "t9a"}).json()
    httpx.get(server.url + f"/api/games/{created['id']}?token={created['token']}")
    httpx.get(server.url + "/healthz?after=1").raise_for_status()
    def full_log() -> str:
        with open(server.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    deadline = time.monotonic() + 10
    while "/healthz?after=1" not in (log := full_log()):  # the access log is written
        assert time.monotonic() < deadline, log
        time.sleep(0.05)
    wanted = f'"GET /api/games/{created["id"]}?token=[redacted] HTTP/1.1" 200 OK'
    access = [line for line in log.splitlines() if line.startswith("INFO:") and wanted in line]
    assert len(access) == 1, log
    assert created["token"] not in log and "Logging error" not in log


def test_the_runtime_watcher_survives_lifespans_on_two_event_loops() -> None:
    """An app whose lifespan is started on one event loop and ended on another (test harnesses
    such as Schemathesis run a loop per test) stops its loop-lag watcher without awaiting a task
    of a foreign loop, and a later start on a new loop runs a live watcher again."""
    metrics = Metrics()
    first = asyncio.new_event_loop()
    started = threading.Event()
    worker = threading.Thread(
        target=lambda: (first.call_soon(started.set), first.run_forever()), daemon=True
    )
    worker.start()
    assert started.wait(30)
    asyncio.run_coroutine_threadsafe(_start(metrics), first).result(30)
    task = metrics._runtime
    assert task is not None and task.get_loop() is first

    asyncio.run(metrics.stop_runtime())  # another loop: cancelled over there, not awaited here
    assert metrics._runtime is None and metrics._on_gc not in gc.callbacks
    asyncio.run_coroutine_threadsafe(_until_done(task), first).result(30)
    assert task.cancelled()

    async def again() -> bool:
        metrics.start_runtime()
        alive = metrics._runtime is not None and not metrics._runtime.done()
        await metrics.stop_runtime()
        return alive

    assert asyncio.run(again())
    first.call_soon_threadsafe(first.stop)
    worker.join(30)
    first.close()


async def _start(metrics: Metrics) -> None:
    metrics.start_runtime()


async def _until_done(task: asyncio.Task[None]) -> None:
    while not task.done():
        await asyncio.sleep(0.01)
