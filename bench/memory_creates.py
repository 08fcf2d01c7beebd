"""Memory of a server under a stream of game creates while one spectator idles on an old game.

    python -m bench.memory_creates [--creates 20000] [--concurrency 8] [--max-seconds 1200]
    warfield bench memory-creates --creates 5000

Starts one `warfield serve` on a SQLite file on a free loopback port, creates one game, attaches
one spectator websocket to it (it says `hello`, then idles), then creates `--creates` more games
over `POST /api/games`, and prints one JSON object: the server's RSS (VmRSS from
/proc/PID/status, MB) after the spectator is attached ("before") and after the creates
("after"), RSS at every tenth of the way, the games it keeps in memory at the end
(`warfield_active_games` from /metrics, bounded by WARFIELD_GAMES_CACHED), and whether the
spectator was still connected. Stops early (and says how many creates were done) after
`--max-seconds`.

The REST rate limit is lifted for the server it starts (WARFIELD_REST_RATE_PER_MIN and
WARFIELD_REST_RATE_BURST set to 1e9): one address creating 20,000 games is exactly what the
limit is there to stop, and this measures the cache, not the limit.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

import httpx
import websockets

from bench.harness import Server, warfield_server

LIFTED = "1000000000"


async def spectate(ws_url: str, game_id: str) -> Any:
    """A spectator socket past `hello` (welcome received), left idle."""
    ws = await websockets.connect(f"{ws_url}/ws/games/{game_id}", compression=None)
    await ws.send(json.dumps({"type": "hello", "token": None, "since": None}))
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if frame["type"] == "welcome":
            return ws


def games_cached(server: Server) -> int:
    text = httpx.get(server.url + "/metrics", timeout=10).text
    match = re.search(r"^warfield_active_games\s+([0-9.e+]+)$", text, re.MULTILINE)
    return int(float(match.group(1))) if match else -1


async def run(server: Server, creates: int, concurrency: int, max_seconds: float) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        first = (await http.post("/api/games", json={"system": "t9a"})).json()
        ws = await spectate(server.ws_url, first["id"])
        before = server.vm_mb("VmRSS:")
        done, errors = 0, 0
        checkpoints: dict[str, float] = {}
        step = max(1, creates // 10)
        started = time.monotonic()
        deadline = started + max_seconds

        async def worker() -> None:
            nonlocal done, errors
            while done < creates and time.monotonic() < deadline:
                done += 1
                answer = await http.post("/api/games", json={"system": "t9a"})
                if answer.status_code != 201:
                    errors += 1
                if done % step == 0:
                    checkpoints[str(done)] = round(server.vm_mb("VmRSS:"), 1)

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        seconds = time.monotonic() - started
        spectator_open = ws.close_code is None
        await ws.close()
    return {
        "bench": "memory_creates",
        "creates": done,
        "completed": done >= creates,
        "errors": errors,
        "seconds": round(seconds, 1),
        "rss_mb": {"before": round(before, 1), "after": round(server.vm_mb("VmRSS:"), 1)},
        "rss_mb_at": checkpoints,
        "games_cached": games_cached(server),
        "spectator_open": spectator_open,
        "rest_rate_limit": "lifted for this server (WARFIELD_REST_RATE_PER_MIN/BURST=1e9)",
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="warfield bench memory-creates", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--creates", type=int, default=20_000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--max-seconds", type=float, default=1200.0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="warfield-memory-") as data_dir:
        server = warfield_server({"WARFIELD_REST_RATE_PER_MIN": LIFTED,
                                  "WARFIELD_REST_RATE_BURST": LIFTED}, data_dir)
        try:
            server.wait_ready()
            result = asyncio.run(run(server, args.creates, args.concurrency, args.max_seconds))
        except BaseException:
            print(server.log(), file=sys.stderr)
            raise
        finally:
            server.stop()
    print(json.dumps(result), flush=True)
    return 0 if result["errors"] == 0 and result["spectator_open"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
