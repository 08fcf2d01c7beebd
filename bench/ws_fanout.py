"""Fan-out latency: how fast one validated move reaches everyone watching.

Implements ../shared/bench/PROTOCOL.md (the same protocol is run against boardgame.io 0.50):
for each K in {1, 10, 100} a fresh `warfield serve` process (or two, for `redis2`), one game,
both seats claimed, one websocket for player 1 and one for each of K spectators; player 1
places 40 tokens, sends one out-of-bounds move (refused, nothing changes), makes 10 warm-up
moves and then M recorded moves (200 for K <= 10, 100 for K = 100), one at a time, each sent
only when all K spectators and player 1 have the previous one. Latency: just before the send ->
the last spectator has parsed the `events` frame with the move's seq and its state shows the
new (x, y). One JSON line per K on stdout; percentiles nearest-rank.

    python -m bench.ws_fanout [--config sqlite|postgres|redis2] [--k 1 10 100] [--moves M]
    warfield bench fanout --config postgres

Configurations: `sqlite` (one process, a SQLite file), `postgres` (one process, a fresh
PostgreSQL database per K on WARFIELD_BENCH_DATABASE_URL's server), `redis2` (two processes on
PostgreSQL + Redis at WARFIELD_BENCH_REDIS_URL: player 1 on A, spectators alternate A, B).
Server RSS is VmHWM from /proc/PID/status after the last move and CPU is utime + stime from
/proc/PID/stat over the recorded moves (summed over both processes for redis2).
The per-socket rate limit is lifted for the run (RATE_LIMIT_PER_S): the protocol's player sends
hundreds of moves a second, far above what a human does.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import websockets

DEFAULT_DATABASE_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
TOKENS = 40
WARMUP = 10
MOVE_TIMEOUT_S = 10.0
CLK_TCK = os.sysconf("SC_CLK_TCK")
ROOT = Path(__file__).resolve().parents[1]


# --- servers -----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """`python -m server.cli serve` on a free port, quiet, rate limit lifted."""

    def __init__(self, env: dict[str, str], data_dir: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        self.log_path = os.path.join(data_dir, f"server-{self.port}.log")
        full = {
            **os.environ,
            "WARFIELD_DATA_DIR": data_dir,
            "WARFIELD_LOG_LEVEL": "warning",
            "RATE_LIMIT_PER_S": "1000000",
            "RATE_LIMIT_BURST": "1000000",
            **env,
        }
        for name in ("DATABASE_URL", "REDIS_URL"):
            if name not in env:
                full.pop(name, None)
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1",
             "--port", str(self.port)],
            env=full, cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT,
        )
        self.pid = self.proc.pid

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited:\n{self.log()}")
            try:
                with urllib.request.urlopen(self.url + "/readyz", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"server did not become ready:\n{self.log()}")

    def log(self) -> str:
        return Path(self.log_path).read_bytes().decode(errors="replace")[-4000:]

    def cpu_ms(self) -> float:
        """utime + stime of the process so far, in ms (/proc/PID/stat fields 14 and 15)."""
        stat = Path(f"/proc/{self.pid}/stat").read_text()
        fields = stat[stat.rindex(")") + 2 :].split()
        return (int(fields[11]) + int(fields[12])) * 1000.0 / CLK_TCK

    def rss_hwm_mb(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
        return float("nan")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._log.close()


class Database:
    """A fresh PostgreSQL database on `base`'s server, dropped afterwards."""

    def __init__(self, base: str) -> None:
        import sqlalchemy as sa

        self.name = f"warfield_bench_{secrets.token_hex(5)}"
        self.admin = sa.create_engine(base, isolation_level="AUTOCOMMIT")
        with self.admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{self.name}"')
        self.url = sa.make_url(base).set(database=self.name).render_as_string(
            hide_password=False
        )

    def drop(self) -> None:
        with self.admin.connect() as conn:
            conn.exec_driver_sql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (self.name,),
            )
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{self.name}"')
        self.admin.dispose()


class Deployment:
    """The server process(es) of one configuration."""

    def __init__(self, config: str, processes: int | None = None) -> None:
        self.config = config
        self.tmp = tempfile.TemporaryDirectory(prefix="warfield-bench-")
        self.database: Database | None = None
        env: dict[str, str] = {}
        if config in ("postgres", "redis2"):
            self.database = Database(
                os.environ.get("WARFIELD_BENCH_DATABASE_URL", DEFAULT_DATABASE_URL)
            )
            env["DATABASE_URL"] = self.database.url
        if config == "redis2":
            env["REDIS_URL"] = os.environ.get("WARFIELD_BENCH_REDIS_URL", DEFAULT_REDIS_URL)
        count = processes or (2 if config == "redis2" else 1)
        self.servers: list[Server] = []
        try:
            for i in range(count):
                data_dir = os.path.join(self.tmp.name, f"p{i}")
                os.makedirs(data_dir)
                if config == "sqlite" and i:
                    data_dir = os.path.join(self.tmp.name, "p0")  # one SQLite file
                self.servers.append(Server(env, data_dir))
            for server in self.servers:
                server.wait_ready()
        except BaseException:
            self.close()
            raise

    def cpu_ms(self) -> float:
        return sum(s.cpu_ms() for s in self.servers)

    def rss_mb(self) -> float:
        return sum(s.rss_hwm_mb() for s in self.servers)

    def close(self) -> None:
        for server in self.servers:
            server.stop()
        if self.database is not None:
            self.database.drop()
        self.tmp.cleanup()


def http_json(method: str, url: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.loads(r.read())


def create_game(base: str) -> dict[str, Any]:
    game = http_json("POST", base + "/api/games", {"system": "t9a"})
    seat = http_json("POST", base + f"/api/games/{game['id']}/seats")
    return {"id": game["id"], "p1": game["token"], "p2": seat["token"]}


def nearest_rank(sorted_values: Sequence[float], p: float) -> float:
    return sorted_values[max(0, math.ceil(p / 100.0 * len(sorted_values)) - 1)]


# --- the load generator ------------------------------------------------------------------------


class Round:
    """The move in flight: which seq and where the token must end up."""

    def __init__(self, seq: int, token: str, x: float, y: float, waiting: int) -> None:
        self.seq, self.token, self.x, self.y = seq, token, x, y
        self.remaining = waiting
        self.last_spectator = 0.0
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()


class Client:
    """One websocket and the little state it folds from the events it is sent."""

    def __init__(self, ws: Any, spectator: bool, bench: Fanout) -> None:
        self.ws, self.spectator, self.bench = ws, spectator, bench
        self.seq = 0
        self.positions: dict[str, tuple[float, float]] = {}
        self.placed: list[str] = []
        self.replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.task: asyncio.Task[None] | None = None

    async def hello(self, token: str | None) -> None:
        await self.ws.send(json.dumps({"type": "hello", "token": token, "since": None}))
        while True:
            frame = json.loads(await self.ws.recv())
            if frame["type"] == "welcome":
                self.seq = frame["seq"]
                for token_id, t in frame["state"].get("tokens", {}).items():
                    self.positions[token_id] = (t["x"], t["y"])
                break
        self.task = asyncio.create_task(self.read())

    async def read(self) -> None:
        perf = time.perf_counter
        async for raw in self.ws:
            frame = json.loads(raw)
            kind = frame["type"]
            if kind == "events":
                for event in frame["events"]:
                    payload = event["payload"]
                    if event["type"] == "token_moved":
                        self.positions[payload["id"]] = (payload["x"], payload["y"])
                    elif event["type"] == "token_placed":
                        token = payload["token"]
                        self.positions[token["id"]] = (token["x"], token["y"])
                        self.placed.append(token["id"])
                    self.seq = event["seq"]
                current = self.bench.round
                if (
                    current is not None
                    and self.seq >= current.seq
                    and self.positions.get(current.token) == (current.x, current.y)
                ):
                    now = perf()
                    if self.spectator and now > current.last_spectator:
                        current.last_spectator = now
                    self.bench.arrived(self)
            elif kind in ("ack", "error"):
                waiter = self.replies.pop(frame.get("ref"), None)
                if waiter is not None and not waiter.done():
                    waiter.set_result(frame)

    async def request(self, ref: str, action: dict[str, Any]) -> dict[str, Any]:
        waiter = asyncio.get_running_loop().create_future()
        self.replies[ref] = waiter
        await self.ws.send(json.dumps({"type": "action", "ref": ref, "action": action}))
        return await asyncio.wait_for(waiter, MOVE_TIMEOUT_S)


class Fanout:
    def __init__(self, deployment: Deployment, k: int) -> None:
        self.deployment, self.k = deployment, k
        self.round: Round | None = None
        self.arrived_in_round: set[int] = set()

    def arrived(self, client: Client) -> None:
        current = self.round
        if current is None or id(client) in self.arrived_in_round:
            return
        self.arrived_in_round.add(id(client))
        current.remaining -= 1
        if current.remaining == 0 and not current.done.done():
            current.done.set_result(None)

    async def move(self, player: Client, s: int, token: str, x: float, y: float) -> float:
        self.arrived_in_round = set()
        current = self.round = Round(player.seq + 1, token, x, y, self.k + 1)
        message = json.dumps({"type": "action", "ref": f"m{s}", "action": {
            "type": "move_token", "id": token, "x": x, "y": y}})
        started = time.perf_counter()
        await player.ws.send(message)
        try:
            await asyncio.wait_for(current.done, MOVE_TIMEOUT_S)
        except TimeoutError:
            raise RuntimeError(f"move {s} took over {MOVE_TIMEOUT_S} s") from None
        self.round = None
        return (current.last_spectator - started) * 1000.0

    async def run(self, moves: int) -> dict[str, Any]:
        servers = self.deployment.servers
        game = create_game(servers[0].url)
        path = f"/ws/games/{game['id']}"
        connect = {"compression": None, "max_size": 2**22, "ping_interval": None}
        player = Client(await websockets.connect(servers[0].ws_url + path, **connect),
                        False, self)
        await player.hello(game["p1"])
        spectators: list[Client] = []
        for i in range(self.k):
            server = servers[i % len(servers)] if len(servers) > 1 else servers[0]
            # redis2: spectators alternate A and B (the first on B, so K = 1 crosses Redis).
            if len(servers) > 1:
                server = servers[(i + 1) % len(servers)]
            client = Client(await websockets.connect(server.ws_url + path, **connect), True,
                            self)
            await client.hello(None)
            spectators.append(client)
        everyone = [player, *spectators]
        try:
            # State: 40 tokens, token i at (i mod 73, 3i mod 49).
            for i in range(TOKENS):
                reply = await player.request(f"t{i}", {"type": "place_token", "x": i % 73,
                                                       "y": (3 * i) % 49, "label": f"T{i}"})
                assert reply["type"] == "ack", reply
            await self._settle(everyone, player.seq if player.seq else 0)
            while len(player.placed) < TOKENS:
                await asyncio.sleep(0.001)
            tokens = player.placed[:TOKENS]
            await self._settle(everyone, 3 + TOKENS)

            # 1. One out-of-bounds move: refused, nothing changes.
            before_seq, before = player.seq, dict(player.positions)
            reply = await player.request("oob", {"type": "move_token", "id": tokens[0],
                                                 "x": 172, "y": 5})
            assert reply["type"] == "error" and reply["code"] == "illegal_move", reply
            view = http_json("GET", servers[0].url + f"/api/games/{game['id']}")
            assert view["seq"] == before_seq and player.positions == before
            t0 = view["state"]["tokens"][tokens[0]]
            assert (t0["x"], t0["y"]) == (0, 0)

            # 2. Warm-up, 3. recorded moves.
            latencies: list[float] = []
            cpu_before = 0.0
            loop_started = 0.0
            for s in range(WARMUP + moves):
                if s == WARMUP:
                    cpu_before = self.deployment.cpu_ms()
                    loop_started = time.perf_counter()
                token = tokens[s % TOKENS]
                x, y = (7 * s + 3) % 73, (11 * s + 5) % 49
                if player.positions[token] == (x, y):
                    x = (x + 1) % 73
                latency = await self.move(player, s, token, x, y)
                if s >= WARMUP:
                    latencies.append(latency)
            wall = time.perf_counter() - loop_started
            cpu = self.deployment.cpu_ms() - cpu_before
            rss = self.deployment.rss_mb()
        finally:
            for client in everyone:
                with contextlib.suppress(Exception):
                    await client.ws.close()
                if client.task is not None:
                    client.task.cancel()
        latencies.sort()
        return {
            "system": "warfield",
            "config": self.deployment.config,
            "K": self.k,
            "moves": moves,
            "p50_ms": round(nearest_rank(latencies, 50), 2),
            "p95_ms": round(nearest_rank(latencies, 95), 2),
            "p99_ms": round(nearest_rank(latencies, 99), 2),
            "moves_per_s": round(moves / wall, 1),
            "server_rss_mb": round(rss, 1),
            "server_cpu_ms_per_move": round(cpu / moves, 3),
            "processes": len(servers),
        }

    @staticmethod
    async def _settle(clients: list[Client], seq: int) -> None:
        deadline = time.monotonic() + MOVE_TIMEOUT_S
        while any(c.seq < seq for c in clients):
            if time.monotonic() > deadline:
                raise RuntimeError("clients did not catch up with the placements")
            await asyncio.sleep(0.002)


def default_moves(k: int) -> int:
    return 200 if k <= 10 else 100


def run_one(config: str, k: int, moves: int | None) -> dict[str, Any]:
    deployment = Deployment(config)
    try:
        return asyncio.run(Fanout(deployment, k).run(moves or default_moves(k)))
    except BaseException:
        for server in deployment.servers:
            print(f"--- server {server.port} log ---\n{server.log()}", file=sys.stderr)
        raise
    finally:
        deployment.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="warfield bench fanout", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", choices=["sqlite", "postgres", "redis2"], default="sqlite")
    parser.add_argument("--k", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--moves", type=int, default=None,
                        help="recorded moves per K (default: the protocol's 200, or 100 at K=100)")
    args = parser.parse_args(argv)
    for k in args.k:
        print(json.dumps(run_one(args.config, k, args.moves)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
