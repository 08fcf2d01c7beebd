"""What the websocket benchmarks share: the servers under test, started and measured.

A configuration names what runs: `sqlite` (one `warfield serve` on a SQLite file), `postgres`
(one process on a fresh PostgreSQL database on WARFIELD_BENCH_DATABASE_URL's server, dropped
afterwards), `redis2` (two processes on that PostgreSQL plus Redis at WARFIELD_BENCH_REDIS_URL),
and `bgio` (boardgame.io 0.50's own server, `node bench/bgio/server.js`, for the side-by-side
comparison; needs `npm ci --prefix bench/bgio` once). Every server listens on a free port on
127.0.0.1; its CPU time and peak RSS come from /proc.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DEFAULT_DATABASE_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
CLK_TCK = os.sysconf("SC_CLK_TCK")
ROOT = Path(__file__).resolve().parents[1]
BGIO_DIR = ROOT / "bench" / "bgio"
# The tree whose server is measured: this one, or (before/after comparisons) another checkout,
# e.g. `git worktree add ../base main` and WARFIELD_BENCH_SERVER_ROOT=../base.
SERVER_ROOT = Path(os.environ.get("WARFIELD_BENCH_SERVER_ROOT") or ROOT).resolve()
WARFIELD_CONFIGS = ("sqlite", "postgres", "redis2")
CONFIGS = (*WARFIELD_CONFIGS, "bgio")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def bgio_missing() -> str | None:
    """Why the boardgame.io server cannot run here, or None when it can."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not (BGIO_DIR / "node_modules" / "boardgame.io").is_dir():
        return f"boardgame.io is not installed: run `npm ci --prefix {BGIO_DIR}`"
    return None


class Server:
    """One server process on a free port, its output in a log file, until `stop()`."""

    ready_path = "/readyz"

    def __init__(self, argv: list[str], env: dict[str, str], log_dir: str, port: int) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.ws_url = f"ws://127.0.0.1:{port}"
        self.log_path = os.path.join(log_dir, f"server-{port}.log")
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(argv, env=env, cwd=SERVER_ROOT, stdout=self._log,
                                     stderr=subprocess.STDOUT)
        self.pid = self.proc.pid

    def wait_ready(self, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited:\n{self.log()}")
            try:
                with urllib.request.urlopen(self.url + self.ready_path, timeout=1) as r:
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

    def profile(self, on: bool) -> None:
        """Start or stop the server's profiler (bench/profiled.py --window), if it has one."""
        if os.environ.get("WARFIELD_BENCH_PROFILE") and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGUSR1 if on else signal.SIGUSR2)

    def thread_cpu_ms(self) -> tuple[float, float]:
        """utime + stime in ms of the main thread (the event loop) and of all other threads
        (the thread pool: database calls) so far."""
        main = other = 0.0
        for task in Path(f"/proc/{self.pid}/task").iterdir():
            with contextlib.suppress(OSError):
                stat = (task / "stat").read_text()
                fields = stat[stat.rindex(")") + 2 :].split()
                ms = (int(fields[11]) + int(fields[12])) * 1000.0 / CLK_TCK
                if task.name == str(self.pid):
                    main += ms
                else:
                    other += ms
        return main, other

    def vm_mb(self, field: str = "VmHWM:") -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1]) / 1024.0
        return float("nan")

    def rss_hwm_mb(self) -> float:
        return self.vm_mb("VmHWM:")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._log.close()


def warfield_server(env: dict[str, str], data_dir: str) -> Server:
    """`python -m server.cli serve`, quiet, with the per-socket rate limit lifted (the
    protocol's player sends hundreds of moves a second, far above what a human does)."""
    port = free_port()
    full = {
        **os.environ,
        "WARFIELD_DATA_DIR": data_dir,
        "WARFIELD_LOG_LEVEL": "warning",
        "RATE_LIMIT_PER_S": "1000000",
        "RATE_LIMIT_BURST": "1000000",
        # ...and the REST write limit per address (every client here is 127.0.0.1).
        "WARFIELD_REST_RATE_PER_MIN": "1000000000",
        "WARFIELD_REST_RATE_BURST": "1000000000",
        # ...and the spectators one game admits per process (bench.ws_fanout --k 1000 puts
        # all 1,000 on one process in the `sqlite` and `postgres` configurations).
        "WARFIELD_MAX_SPECTATORS_PER_GAME": "100000",
        **env,
    }
    full["PYTHONPATH"] = str(SERVER_ROOT)  # (the server code measured: see SERVER_ROOT)
    for name in ("DATABASE_URL", "REDIS_URL"):
        if name not in env:
            full.pop(name, None)
    argv = [sys.executable, *profiler_argv(port), "server.cli", "serve",
            "--host", "127.0.0.1", "--port", str(port)]
    return Server(argv, full, data_dir, port)


def profiler_argv(port: int) -> list[str]:
    """How the server module is run: `-m`, or with WARFIELD_BENCH_PROFILE=DIR under cProfile
    (bench/profiled.py), writing DIR/server-PORT.prof when it stops; `Server.profile` starts
    and stops it (the benches call it around what they measure). The profile covers the
    event-loop thread only: the database calls made in worker threads are not in it
    (`Server.thread_cpu_ms` tells the two apart)."""
    where = os.environ.get("WARFIELD_BENCH_PROFILE")
    if not where:
        return ["-m"]
    os.makedirs(where, exist_ok=True)
    return ["-m", "bench.profiled", "--window", os.path.join(where, f"server-{port}.prof")]


class BgioServer(Server):
    """boardgame.io 0.50's `Server` with the protocol's token game (bench/bgio/server.js)."""

    ready_path = "/games"

    def __init__(self, log_dir: str) -> None:
        port = free_port()
        env = {**os.environ, "NODE_ENV": "production"}
        super().__init__(["node", str(BGIO_DIR / "server.js"), str(port)], env, log_dir, port)


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
    """The server process(es) of one configuration, ready to serve; `close()` ends them."""

    def __init__(self, config: str, processes: int | None = None) -> None:
        if config not in CONFIGS:
            raise ValueError(f"unknown configuration {config!r}; one of {', '.join(CONFIGS)}")
        self.config = config
        self.system = "boardgame.io" if config == "bgio" else "warfield"
        if config == "bgio" and (why := bgio_missing()) is not None:
            raise RuntimeError(why)
        self.tmp = tempfile.TemporaryDirectory(prefix="warfield-bench-")
        self.database: Database | None = None
        self.servers: list[Server] = []
        try:
            if config == "bgio":
                self.servers.append(BgioServer(self.tmp.name))
            else:
                self._start_warfield(processes or (2 if config == "redis2" else 1))
            for server in self.servers:
                server.wait_ready()
        except BaseException:
            self.close()
            raise

    def _start_warfield(self, count: int) -> None:
        env: dict[str, str] = {}
        if self.config in ("postgres", "redis2"):
            self.database = Database(
                os.environ.get("WARFIELD_BENCH_DATABASE_URL", DEFAULT_DATABASE_URL)
            )
            env["DATABASE_URL"] = self.database.url
        if self.config == "redis2":
            env["REDIS_URL"] = os.environ.get("WARFIELD_BENCH_REDIS_URL", DEFAULT_REDIS_URL)
        for i in range(count):
            data_dir = os.path.join(self.tmp.name, f"p{i}")
            os.makedirs(data_dir)
            if self.config == "sqlite" and i:
                data_dir = os.path.join(self.tmp.name, "p0")  # one SQLite file
            self.servers.append(warfield_server(env, data_dir))

    def cpu_ms(self) -> float:
        return sum(s.cpu_ms() for s in self.servers)

    def rss_mb(self) -> float:
        return sum(s.rss_hwm_mb() for s in self.servers)

    def rss_now_mb(self) -> float:
        return sum(s.vm_mb("VmRSS:") for s in self.servers)

    def print_logs(self) -> None:
        for server in self.servers:
            print(f"--- server {server.port} log ---\n{server.log()}", file=sys.stderr)

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
    """A Warfield game with both seats claimed: its id and the two seat tokens."""
    game = http_json("POST", base + "/api/games", {"system": "t9a"})
    seat = http_json("POST", base + f"/api/games/{game['id']}/seats", {"invite": game["invite"]})
    return {"id": game["id"], "p1": game["token"], "p2": seat["token"]}


RUNTIME_GAUGES = {
    "warfield_event_loop_lag_worst_seconds": "loop_lag_worst_ms",
    "warfield_event_loop_lag_max_seconds": "loop_lag_max_ms",
    "warfield_gc_pause_worst_seconds": "gc_pause_worst_ms",
    "warfield_gc_pause_max_seconds": "gc_pause_max_ms",
    "warfield_gc_cpu_worst_seconds": "gc_cpu_worst_ms",
    "warfield_gc_cpu_max_seconds": "gc_cpu_max_ms",
}


def runtime_figures(server: Server) -> dict[str, float]:
    """The server's event-loop lag and GC pause gauges (server/metrics.py), in ms: the worst
    in its last completed 5 s interval and the worst since it started (a pause on the wall
    clock, and the CPU time of the longest collection), and the collections by generation."""
    with urllib.request.urlopen(server.url + "/metrics", timeout=10) as r:
        text = r.read().decode()
    figures: dict[str, float] = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name in RUNTIME_GAUGES:
            figures[RUNTIME_GAUGES[name]] = round(float(value) * 1000.0, 2)
        elif match := GC_SERIES.fullmatch(name):
            kind, generation = match.groups()
            figures[f"gc{generation}_{kind}"] = float(value)
    return figures


GC_SERIES = re.compile(r'warfield_gc_pause_seconds_(count|sum)\{generation="(\d)"\}')


def gc_by_generation(
    before: Sequence[dict[str, float]], after: Sequence[dict[str, float]]
) -> dict[str, dict[str, float]]:
    """Collections per generation between two `runtime_figures` of each server: how many, and
    their mean duration in ms (summed over the servers)."""
    out: dict[str, dict[str, float]] = {}
    for generation in "012":
        count = sum(a.get(f"gc{generation}_count", 0.0) - b.get(f"gc{generation}_count", 0.0)
                    for b, a in zip(before, after, strict=True))
        total = sum(a.get(f"gc{generation}_sum", 0.0) - b.get(f"gc{generation}_sum", 0.0)
                    for b, a in zip(before, after, strict=True))
        out[generation] = {"count": int(count),
                           "mean_ms": round(total / count * 1000.0, 2) if count else 0.0}
    return out


def worst_of(figures: Sequence[dict[str, float]], key: str) -> float | None:
    """The largest `key` over several servers' figures; None when no server reports it."""
    return max((f[key] for f in figures if key in f), default=None)


class RuntimePoller:
    """Scrapes every server's runtime gauges twice per interval (so no 5 s interval is missed)
    until stopped; `worst(start, end)` is the worst of each figure seen in that time span."""

    def __init__(self, servers: Sequence[Server], every_s: float = 2.5) -> None:
        self.servers, self.every_s = servers, every_s
        self.samples: list[tuple[float, int, dict[str, float]]] = []
        self._stop = False

    async def run(self) -> None:
        import asyncio

        loop = asyncio.get_running_loop()
        while not self._stop:
            for i, server in enumerate(self.servers):
                try:
                    figures = await asyncio.to_thread(runtime_figures, server)
                except OSError:
                    continue
                self.samples.append((loop.time(), i, figures))
            await asyncio.sleep(self.every_s)

    def stop(self) -> None:
        self._stop = True

    def worst(self, start: float = -math.inf, end: float = math.inf) -> dict[str, float | None]:
        """The worst of each figure sampled in [start, end): the 5 s interval gauges, and a
        new high of the since-start gauge (which no late scrape can miss)."""
        out: dict[str, float | None] = {}
        for key, since_start in (("loop_lag_worst_ms", "loop_lag_max_ms"),
                                 ("gc_pause_worst_ms", "gc_pause_max_ms"),
                                 ("gc_cpu_worst_ms", "gc_cpu_max_ms")):
            seen: list[float] = []
            high: dict[int, float] = {}  # per server (index in `servers`)
            for t, i, f in self.samples:
                new_high = since_start in f and f[since_start] > high.get(i, math.inf)
                if since_start in f:
                    high[i] = max(high.get(i, -math.inf), f[since_start])
                if not start <= t < end:
                    continue
                if key in f:
                    seen.append(f[key])
                if new_high:
                    seen.append(f[since_start])
            out[key] = max(seen) if seen else None
        return out


def load_average() -> list[float]:
    """The machine's 1, 5 and 15 minute load averages (it is shared: say how busy it was)."""
    return [round(v, 2) for v in os.getloadavg()]


def nearest_rank(sorted_values: Sequence[float], p: float) -> float:
    return sorted_values[max(0, math.ceil(p / 100.0 * len(sorted_values)) - 1)]
