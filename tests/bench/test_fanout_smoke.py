"""The benchmarks run end to end (tiny sizes, no timing asserted): bench/ws_fanout.py and
bench/many_games.py against a real `warfield serve` process."""

from __future__ import annotations

import json

import pytest

from bench import many_games, ws_fanout


def test_fanout_prints_one_protocol_line_per_k(capsys: pytest.CaptureFixture[str]) -> None:
    assert ws_fanout.main(["--config", "sqlite", "--k", "1", "--moves", "5"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert {k: result[k] for k in ("system", "config", "K", "moves")} == {
        "system": "warfield", "config": "sqlite", "K": 1, "moves": 5}
    for key in ("p50_ms", "p95_ms", "p99_ms", "moves_per_s", "server_rss_mb"):
        assert isinstance(result[key], float) and result[key] > 0
    # CPU time comes in clock ticks (10 ms): five quick moves may honestly measure 0.
    assert isinstance(result["server_cpu_ms_per_move"], float)
    assert result["server_cpu_ms_per_move"] >= 0
    assert result["p50_ms"] <= result["p95_ms"] <= result["p99_ms"]


def test_many_games_reports_no_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert many_games.main(["--games", "2", "--seconds", "2.5"]) == 0
    result = json.loads(capsys.readouterr().out.strip())
    assert result["errors"] == 0 and result["sockets"] == 8 and result["actions"] >= 4


def test_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert ws_fanout.nearest_rank(values, 50) == 50.0
    assert ws_fanout.nearest_rank(values, 99) == 99.0
    assert ws_fanout.nearest_rank([3.0], 99) == 3.0
