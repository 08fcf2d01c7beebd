"""Soak: a fixed number of moves over a few long games, watching memory and cost per action
(issue 21 item 4).

    python -m bench.soak [--games 1] [--moves 50000] [--max-seconds 900]
                         [--config sqlite|postgres|redis2]

One `warfield serve` (bench/harness.py configurations) on loopback. Each game has both seats
claimed, a player-1 socket and one spectator socket; player 1 places one token, then moves it
as fast as the server answers, every move with a new `ref` (what the browser client sends), the
games in parallel, until `--moves` moves are acknowledged (or `--max-seconds` passed: then
`completed` is false). Every 10,000 moves (a "block", `--block`) it records the server's
VmRSS, its CPU per action and the p99 over the block. Prints one JSON object:

- `rss_mb_at`: VmRSS after each block; `rss_mb_per_10k_moves`: the slope of a least-squares
  line through the blocks after the first (the warm-up), MB per 10,000 moves;
- `cpu_ms_per_action_by_block`: server CPU (utime + stime) per action in each block;
- `p99_ms_by_block` and `per_minute` (actions, p50, p99, worst loop lag and GC pause);
- `gc_pause_max_ms` and `loop_lag_max_ms`: the worst garbage collection and event-loop lag
  since the server started (its /metrics), plus the machine's load average before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import time
from collections.abc import Sequence
from typing import Any

from bench.harness import (
    WARFIELD_CONFIGS,
    Deployment,
    RuntimePoller,
    create_game,
    gc_by_generation,
    http_json,
    load_average,
    nearest_rank,
    runtime_figures,
    worst_of,
)
from bench.many_games import Socket

BLOCK = 10_000


def slope(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Least-squares slope of ys over xs (None for fewer than two points)."""
    if len(xs) < 2:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else None


class Soak:
    def __init__(
        self, deployment: Deployment, games: int, moves: int, max_seconds: float,
        block: int = BLOCK,
    ) -> None:
        self.deployment, self.games, self.moves = deployment, games, moves
        self.block = block
        self.max_seconds = max_seconds
        self.done = 0
        self.errors: dict[str, int] = {}
        self.timed: list[tuple[float, float]] = []  # (loop time sent, latency ms)
        self.blocks: list[dict[str, Any]] = []
        self._block_cpu = 0.0
        self._block_start = 0

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    async def setup(self, n: int) -> tuple[Socket, Socket, str]:
        server = self.deployment.servers[n % len(self.deployment.servers)]
        ids = await asyncio.to_thread(create_game, server.url)
        path = f"/ws/games/{ids['id']}"
        player = await Socket.join(server.ws_url + path, ids["p1"])
        spectator = await Socket.join(server.ws_url + path, None)
        reply = await player.request("place", {"type": "place_token", "x": 1.0, "y": 1.0})
        if reply["type"] != "ack":
            raise RuntimeError(f"placing a token failed: {reply}")
        view = await asyncio.to_thread(http_json, "GET", server.url + f"/api/games/{ids['id']}")
        (token,) = [t["id"] for t in view["state"]["tokens"].values()]
        return player, spectator, token

    def _close_block(self) -> None:
        cpu = self.deployment.cpu_ms()
        actions = self.done - self._block_start
        window = sorted(ms for _t, ms in self.timed[-actions:]) if actions else []
        self.blocks.append({
            "moves": self.done,
            "rss_mb": round(self.deployment.rss_now_mb(), 2),
            "cpu_ms_per_action": round((cpu - self._block_cpu) / actions, 3) if actions else None,
            "p99_ms": round(nearest_rank(window, 99), 2) if window else None,
        })
        self._block_cpu, self._block_start = cpu, self.done

    async def play(self, player: Socket, token: str, game: int, ends_at: float) -> None:
        loop = asyncio.get_running_loop()
        s = 0
        while self.done < self.moves and loop.time() < ends_at:
            s += 1
            action = {"type": "move_token", "id": token,
                      "x": float((7 * s + 3) % 71 + 1), "y": float((11 * s + 5) % 47 + 1)}
            sent_at = loop.time()
            started = time.perf_counter()
            try:
                reply = await player.request(f"g{game}m{s}", action)
            except TimeoutError:
                self.error("timeout")
                continue
            if reply["type"] != "ack":
                self.error(reply.get("code", "error"))
                continue
            self.timed.append((sent_at, (time.perf_counter() - started) * 1000.0))
            self.done += 1
            if self.done % self.block == 0:
                self._close_block()

    async def run(self) -> dict[str, Any]:
        made = [await self.setup(n) for n in range(self.games)]
        sockets = [s for p, sp, _ in made for s in (p, sp)]
        # Let the server's 5 s runtime intervals roll past the setup before measuring.
        await asyncio.sleep(6.0)
        poller = RuntimePoller(self.deployment.servers)
        polling = asyncio.create_task(poller.run())
        loop = asyncio.get_running_loop()
        try:
            load_before = load_average()
            runtime_before = [await asyncio.to_thread(runtime_figures, s)
                              for s in self.deployment.servers]
            self._block_cpu = self.deployment.cpu_ms()
            started = loop.time()
            rss_start = round(self.deployment.rss_now_mb(), 2)
            await asyncio.gather(*(self.play(p, token, n, started + self.max_seconds)
                                   for n, (p, _sp, token) in enumerate(made)))
            elapsed = loop.time() - started
            load_after = load_average()
            await asyncio.sleep(poller.every_s * 2 + 5.0)  # the last 5 s interval's gauges
            poller.stop()
            await polling
            runtime = [await asyncio.to_thread(runtime_figures, s)
                       for s in self.deployment.servers]
        finally:
            poller.stop()
            for sock in sockets:
                with contextlib.suppress(Exception):
                    await sock.ws.close()
                if sock.task is not None:
                    sock.task.cancel()
        after_warmup = self.blocks[1:]
        growth = slope([b["moves"] / 10_000 for b in after_warmup],
                       [b["rss_mb"] for b in after_warmup])
        per_minute = []
        for minute in range(max(1, math.ceil(elapsed / 60.0))):
            start = started + 60.0 * minute
            window = sorted(ms for t, ms in self.timed if start <= t < start + 60.0)
            per_minute.append({
                "minute": minute,
                "actions": len(window),
                "p50_ms": round(nearest_rank(window, 50), 2) if window else None,
                "p99_ms": round(nearest_rank(window, 99), 2) if window else None,
                **poller.worst(start, start + 60.0 + 7.5),
            })
        return {
            "system": "warfield",
            "bench": "soak",
            "config": self.deployment.config,
            "games": self.games,
            "moves": self.done,
            "completed": self.done >= self.moves,
            "seconds": round(elapsed, 1),
            "moves_per_s": round(self.done / elapsed, 1) if elapsed else None,
            "errors": sum(self.errors.values()),
            "error_kinds": self.errors,
            "block": self.block,
            "rss_mb_start": rss_start,
            "rss_mb_at": {str(b["moves"]): b["rss_mb"] for b in self.blocks},
            "rss_mb_per_10k_moves": round(growth, 3) if growth is not None else None,
            "cpu_ms_per_action_by_block": [b["cpu_ms_per_action"] for b in self.blocks],
            "p99_ms_by_block": [b["p99_ms"] for b in self.blocks],
            "gc_pause_max_ms": worst_of(runtime, "gc_pause_max_ms"),
            "gc_cpu_max_ms": worst_of(runtime, "gc_cpu_max_ms"),
            "loop_lag_max_ms": worst_of(runtime, "loop_lag_max_ms"),
            "gc_by_generation": gc_by_generation(runtime_before, runtime),
            "per_minute": per_minute,
            "load_avg_before": load_before,
            "load_avg_after": load_after,
        }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--moves", type=int, default=50_000)
    parser.add_argument("--max-seconds", type=float, default=900.0)
    parser.add_argument("--config", choices=WARFIELD_CONFIGS, default="sqlite")
    parser.add_argument("--block", type=int, default=BLOCK,
                        help="moves between two samples of RSS, CPU and p99")
    args = parser.parse_args(argv)
    deployment = Deployment(args.config)
    try:
        result = asyncio.run(Soak(deployment, args.games, args.moves, args.max_seconds,
                                  args.block).run())
    except BaseException:
        deployment.print_logs()
        raise
    finally:
        deployment.close()
    print(json.dumps(result), flush=True)
    return 0 if result["errors"] == 0 and result["completed"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
