"""One action's durable commit, alone: `EventStore.append_many` back to back (issue 22).

    python -m bench.append [--url URL] [--appends 600] [--warmup 50]

One game on a fresh schema (SQLite: a new file in a temporary directory unless `--url`;
PostgreSQL: a new database on the server of the `--url` given, dropped afterwards), then A
appends one after the other, each one event (a token move) with its action ref, as the server
commits an action when nothing else waits. Prints one JSON line: the wall-clock time of an
append (call -> durable) median and p99 in ms, the thread's CPU per append in ms, and the
machine's load average. No sockets, no rules, no thread hop: only the statement(s), the
driver and the disk's flush.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime

from bench.harness import Database
from server.rules.core import Event
from server.store import ActionRecord, EventStore, GameRecord, make_engine
from server.store.migrate import upgrade
from server.store.repository import AppendRequest

MOVE = {"unit": "u1", "to": [12.5, 20.25], "facing": 90.0, "path": [[1, 2], [3, 4]]}


def run(url: str, appends: int, warmup: int) -> dict[str, object]:
    engine = make_engine(url)
    try:
        upgrade(engine)
        store = EventStore(engine)
        record = GameRecord("bench", "t9a", "Bench", b"\x01" * 32, "ab" * 32, datetime.now(UTC))
        store.create_game(record, "bench-seat", [Event("game_created", {})])
        seq = 1

        def one() -> None:
            nonlocal seq
            request = AppendRequest("bench", seq, [Event("token_moved", MOVE, 1, "all")],
                                    ActionRecord(1, f"r{seq}", "d" * 64, 0))
            result = store.append_many([request])[0]
            if isinstance(result, Exception):
                raise result
            seq += 1

        for _ in range(warmup):
            one()
        walls: list[float] = []
        cpus: list[float] = []
        for _ in range(appends):
            wall, cpu = time.perf_counter(), time.thread_time()
            one()
            cpus.append((time.thread_time() - cpu) * 1000)
            walls.append((time.perf_counter() - wall) * 1000)
        return {
            "bench": "append",
            "dialect": engine.dialect.name,
            "appends": appends,
            "p50_ms": round(statistics.median(walls), 3),
            "p99_ms": round(pct(walls, 0.99), 3),
            "cpu_ms_per_append": round(statistics.mean(cpus), 3),
        }
    finally:
        engine.dispose()


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.append", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default=None, help="a database URL (default: a new SQLite file)")
    parser.add_argument("--appends", type=int, default=600)
    parser.add_argument("--warmup", type=int, default=50)
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        if args.url is None or args.url.startswith("sqlite"):
            result = run(args.url or f"sqlite:///{tmp}/append.db", args.appends, args.warmup)
        else:
            database = Database(args.url)
            try:
                result = run(database.url, args.appends, args.warmup)
            finally:
                database.drop()
    print(json.dumps({**result, "load_avg_before": [round(x, 2) for x in load_before],
                      "load_avg_after": [round(x, 2) for x in os.getloadavg()]}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
