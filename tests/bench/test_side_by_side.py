"""bench/side_by_side.py's summary (no server: `run_one` stands in): the configurations alternate
within each repetition, and each K ends with the medians and the first configuration against
the last, CPU included (issue 22's target is read from these lines)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench import side_by_side


def test_runs_alternate_and_the_summary_takes_medians_and_ratios(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[tuple[str, int]] = []
    figures = {"redis2": iter([(1.5, 3.0, 1.2), (1.1, 2.0, 1.0), (1.3, 9.0, 1.4)]),
               "sqlite": iter([(1.0, 2.0, 1.0), (1.2, 2.5, 0.9), (1.1, 1.0, 1.1)])}

    def run_one(config: str, k: int, moves: int | None) -> dict[str, Any]:
        calls.append((config, k))
        p50, p99, cpu = next(figures[config])
        return {"system": "warfield", "config": config, "K": k, "p50_ms": p50, "p95_ms": p50,
                "p99_ms": p99, "moves_per_s": 100.0, "server_cpu_ms_per_move": cpu,
                "server_rss_mb": 50.0}

    monkeypatch.setattr(side_by_side, "run_one", run_one)
    assert side_by_side.main(["--configs", "redis2", "sqlite", "--k", "10", "--repeat", "3"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    assert calls == [("redis2", 10), ("sqlite", 10)] * 3
    assert [line["config"] for line in lines[:6]] == ["redis2", "sqlite"] * 3
    redis2, sqlite, vs = lines[6:]
    assert (redis2["p50_ms"], redis2["p99_ms"], redis2["server_cpu_ms_per_move"]) == (1.3, 3.0, 1.2)
    assert (sqlite["p50_ms"], sqlite["p99_ms"], sqlite["server_cpu_ms_per_move"]) == (1.1, 2.0, 1.0)
    assert vs == {"summary": True, "K": 10, "config": "redis2", "vs": "sqlite",
                  "p50_ratio": 1.18, "p99_ratio": 1.5, "cpu_ratio": 1.2}
