"""The benchmarks run end to end (tiny sizes, no timing asserted): bench/ws_fanout.py and
bench/many_games.py against real `warfield serve` processes, on every configuration.

The boardgame.io side of bench/ws_fanout.py (`--config bgio`) is a manual, side-by-side bench:
CI does not install its Node packages, so its smoke test runs only where
`npm ci --prefix bench/bgio` was run, and says so when it skips.
"""

from __future__ import annotations

import json
import statistics

import pytest

from bench import harness, many_games, ws_fanout
from tests.conftest import postgres_url, redis_url


@pytest.fixture
def bench_services(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The configuration under test, with its PostgreSQL and Redis pointed at the test ones."""
    config: str = request.param
    if config in ("postgres", "redis2"):
        monkeypatch.setenv("WARFIELD_BENCH_DATABASE_URL", postgres_url())
    if config == "redis2":
        monkeypatch.setenv("WARFIELD_BENCH_REDIS_URL", redis_url())
    return config


def check_fanout_line(line: str, system: str, config: str) -> None:
    result = json.loads(line)
    assert {k: result[k] for k in ("system", "config", "K", "moves")} == {
        "system": system, "config": config, "K": 1, "moves": 5}
    for key in ("p50_ms", "p95_ms", "p99_ms", "moves_per_s", "server_rss_mb"):
        assert isinstance(result[key], float) and result[key] > 0
    # CPU time comes in clock ticks (10 ms): five quick moves may honestly measure 0.
    assert isinstance(result["server_cpu_ms_per_move"], float)
    assert result["server_cpu_ms_per_move"] >= 0
    assert result["p50_ms"] <= result["p95_ms"] <= result["p99_ms"]


@pytest.mark.parametrize("bench_services", ["sqlite", "redis2"], indirect=True)
def test_fanout_prints_one_protocol_line_per_k(
    bench_services: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ws_fanout.main(["--config", bench_services, "--k", "1", "--moves", "5"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    check_fanout_line(lines[0], "warfield", bench_services)


def test_fanout_against_boardgame_io(capsys: pytest.CaptureFixture[str]) -> None:
    missing = harness.bgio_missing()
    if missing is not None:
        pytest.skip(f"manual side-by-side bench, not installed in CI by design: {missing}")
    assert ws_fanout.main(["--config", "bgio", "--k", "1", "--moves", "5"]) == 0
    check_fanout_line(capsys.readouterr().out.strip(), "boardgame.io", "bgio")


@pytest.mark.parametrize("bench_services", ["sqlite", "postgres", "redis2"], indirect=True)
def test_many_games_reports_no_errors(
    bench_services: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert many_games.main(["--config", bench_services, "--games", "2",
                            "--seconds", "2.5"]) == 0
    result = json.loads(capsys.readouterr().out.strip())
    assert result["config"] == bench_services
    assert result["errors"] == 0 and result["sockets"] == 8 and result["actions"] >= 4
    assert result["processes"] == (2 if bench_services == "redis2" else 1)


def test_many_games_side_by_side_alternates_and_summarises(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--configs A B --repeat N`: the runs alternate, then each configuration's medians and
    A against B (issue 22's many-games comparison)."""
    monkeypatch.setenv("WARFIELD_BENCH_DATABASE_URL", postgres_url())
    monkeypatch.setenv("WARFIELD_BENCH_REDIS_URL", redis_url())
    assert many_games.main(["--configs", "redis2", "sqlite", "--repeat", "2", "--games", "2",
                            "--seconds", "2.5"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    runs, summaries = lines[:4], lines[4:]
    assert [r["config"] for r in runs] == ["redis2", "sqlite", "redis2", "sqlite"]
    assert all(r["errors"] == 0 for r in runs)
    assert [(s["config"], s.get("vs")) for s in summaries] == [
        ("redis2", None), ("sqlite", None), ("redis2", "sqlite")]
    assert summaries[0]["runs"] == 2 and summaries[1]["p50_ms"] > 0
    assert summaries[1]["p50_ms"] == round(
        statistics.median([runs[1]["p50_ms"], runs[3]["p50_ms"]]), 3)
    vs = summaries[2]
    assert vs["p50_ratio"] == round(summaries[0]["p50_ms"] / summaries[1]["p50_ms"], 2)
    assert {"p99_ratio", "cpu_per_action_ratio", "cpu_ratio_by_round_median",
            "cpu_ratio_by_round_range"} <= set(vs)
    with pytest.raises(SystemExit):
        many_games.main(["--configs", "sqlite", "sqlite"])


def test_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert harness.nearest_rank(values, 50) == 50.0
    assert harness.nearest_rank(values, 99) == 99.0
    assert harness.nearest_rank([3.0], 99) == 3.0


def test_fanout_times_each_step_of_the_move_path(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--steps`: the servers time every step of a move (server/games/steps.py) and the line
    carries them per move; each step ran as often as a move makes it run."""
    monkeypatch.setenv("WARFIELD_STEP_TIMING", "1")  # (restored after: main sets it too)
    assert ws_fanout.main(["--config", "sqlite", "--k", "1", "--moves", "5", "--steps"]) == 0
    result = json.loads(capsys.readouterr().out.strip())
    [steps] = result["steps_by_process"]
    assert set(steps["cpu_ms"]) == {"decode", "validate", "decide", "commit_db", "fold",
                                    "patch", "encode", "handoff", "write"}
    assert all(v >= 0 for v in steps["cpu_ms"].values())
    calls = steps["calls_per_move"]
    # One action frame decoded, decided and committed per move; its events frame to the
    # player and the spectator, and the player's ack: three frames written (the last move's
    # ack may still be on its way when the totals are read: the round ends with the events).
    assert (calls["decode"], calls["decide"], calls["commit_db"], calls["fold"]) == (1, 1, 1, 1)
    assert calls["encode_frames"] == 2 and calls["encode_ack"] == 1
    assert 2.8 <= calls["write"] <= 3
    assert isinstance(steps["young_allocations_per_move"], float)
    assert len(steps["gc_collections"]) == 3


@pytest.mark.parametrize("bench_services", ["sqlite", "postgres"], indirect=True)
def test_append_bench_runs(bench_services: str, capsys: pytest.CaptureFixture[str]) -> None:
    """bench/append.py: a few durable appends on a fresh SQLite file or a fresh PostgreSQL
    database (created and dropped by the bench), one JSON line."""
    from bench import append

    url = [] if bench_services == "sqlite" else ["--url", postgres_url()]
    assert append.main([*url, "--appends", "5", "--warmup", "2"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["bench"] == "append" and result["appends"] == 5
    assert result["dialect"] == ("sqlite" if bench_services == "sqlite" else "postgresql")
    assert 0 < result["p50_ms"] <= result["p99_ms"]
    assert result["cpu_ms_per_append"] >= 0
