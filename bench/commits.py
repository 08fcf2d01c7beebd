"""The durable commit path alone: one commit per action against group commit (issue 21).

    python -m bench.commits [--games 1000] [--period 5] [--seconds 20] [--url sqlite:///...]

G games on one event store (a fresh SQLite file in a temporary directory unless `--url`), each
appending one event with an action ref every P seconds (start offsets spread over the first
period, each game's next append after its previous one returned, as a game's lock orders
them), for S seconds, twice: `serial`, each append its own transaction on a worker thread (the
commit path before group commit), and `group`, through `server/store/group.py` as the server
commits. No sockets, no rules: only the queue in front of the disk. Prints one JSON line per
mode: appends, append latency (call -> durable) p50/p99/max in ms, transactions (and appends
per transaction, mean and largest), and the machine's load average.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from server.rules.core import Event
from server.store import ActionRecord, EventStore, GameRecord, make_engine
from server.store.group import GroupCommit
from server.store.migrate import upgrade
from server.store.repository import AppendRequest


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


async def drive(
    store: EventStore,
    games: Sequence[str],
    append: Callable[[AppendRequest], Awaitable[list[Event]]],
    period: float,
    seconds: float,
) -> list[float]:
    latencies: list[float] = []
    ends = time.perf_counter() + seconds
    rng = random.Random(7)

    async def game(game_id: str) -> None:
        seq = store.last_seq(game_id)
        n = 0
        await asyncio.sleep(rng.uniform(0, period))
        while time.perf_counter() < ends:
            n += 1
            started = time.perf_counter()
            request = AppendRequest(
                game_id, seq, [Event("token_moved", {"x": n, "y": 2.5}, actor=1)],
                ActionRecord(1, f"{game_id}-{seq}", "d" * 64, 0),
            )
            seq = (await append(request))[-1].seq
            latencies.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(max(0.0, period - (time.perf_counter() - started)))

    await asyncio.gather(*(game(g) for g in games))
    return latencies


def run(url: str, mode: str, count: int, period: float, seconds: float) -> dict[str, Any]:
    engine = make_engine(url)
    upgrade(engine)
    store = EventStore(engine)
    sizes: list[int] = []
    store.on_commit = sizes.append
    games = [f"{mode}-{n}" for n in range(count)]
    for g in games:
        store.create_game(
            GameRecord(g, "t9a", "bench", os.urandom(32), "ab" * 32, datetime.now(UTC)),
            f"hash-{g}", [Event("game_created", {})],
        )
    sizes.clear()
    group = GroupCommit(store.append_many)

    async def serial(request: AppendRequest) -> list[Event]:
        return await asyncio.to_thread(
            store.append, request.game_id, request.last_seq, request.events, request.action
        )

    load_before = os.getloadavg()
    latencies = asyncio.run(
        drive(store, games, serial if mode == "serial" else group.append, period, seconds)
    )
    engine.dispose()
    return {
        "bench": "commits", "mode": mode, "games": count, "period_s": period,
        "seconds": seconds, "appends": len(latencies),
        "appends_per_s": round(len(latencies) / seconds, 1),
        "p50_ms": round(statistics.median(latencies), 2) if latencies else 0.0,
        "p99_ms": round(pct(latencies, 0.99), 2), "max_ms": round(max(latencies, default=0), 2),
        "transactions": len(sizes),
        "appends_per_transaction": round(sum(sizes) / len(sizes), 2) if sizes else 0.0,
        "largest_transaction": max(sizes, default=0),
        "load_avg_before": [round(v, 2) for v in load_before],
        "load_avg_after": [round(v, 2) for v in os.getloadavg()],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.commits", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--period", type=float, default=5.0)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--url", default=None, help="a database URL (default: a new SQLite file)")
    parser.add_argument("--modes", nargs="+", default=["serial", "group"],
                        choices=["serial", "group"])
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url or f"sqlite:///{tmp}/commits.db"
        for mode in args.modes:
            print(json.dumps(run(url, mode, args.games, args.period, args.seconds)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
