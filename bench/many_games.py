"""Many games at once: G concurrent games, each with 2 players and 2 spectators; every player
moves one of its tokens every 2 s for S seconds (issue 7 item 5).

    python -m bench.many_games [--games 200] [--seconds 60] [--config sqlite|postgres|redis2]
                               [--period 2] [--per-game]
    warfield bench many-games --games 50 --seconds 20
    python -m bench.many_games --games 200 --seconds 30 --configs redis2 sqlite --repeat 5

`--configs A ... B --repeat N` runs the configurations alternately, N rounds, and ends with
summary lines: each configuration's medians, then A against B (the ratio of the medians, and
the median and range of the round-by-round CPU ratios).

`--period P`: each player acts every P seconds; with `--per-game` the game (not each player)
acts every P seconds, its two players taking turns (`--games 1000 --period 5 --per-game` is
one action per 5 s per game).

Prints one JSON line: action latency (send -> ack) p50/p99 in ms, errors (error frames,
timeouts, dropped sockets, and spectators that did not end on their game's last seq: must be
0), the server's CPU over the acting period (percent of one core, and ms per game per second)
and its memory (VmHWM, and the growth of VmRSS from before the games were created, per game),
the server's event-loop lag and garbage-collection pauses (its /metrics gauges, scraped every
2.5 s: the worst over the acting period, and since start), and per minute of the acting period
the actions, p99 and the worst loop lag and GC pause; plus the machine's load average.
Players start at random offsets within the first period so the load is spread, as with real
players. The load generator is one asyncio loop on the same machine; it freezes its objects
(`gc.freeze()`) after setting up, so its own garbage collections do not add to the latency.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

import websockets

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

PERIOD_S = 2.0
REPLY_TIMEOUT_S = 10.0
CONNECT = {"compression": None, "max_size": 2**22, "ping_interval": None}


class Socket:
    """One websocket: the last seq it was sent, its pending replies, whether it dropped."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.seq = 0
        self.token: str | None = None
        self.replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.dropped = False
        self.task: asyncio.Task[None] | None = None

    @classmethod
    async def join(cls, url: str, token: str | None) -> Socket:
        sock = cls(await websockets.connect(url, **CONNECT))
        await sock.ws.send(json.dumps({"type": "hello", "token": token, "since": None}))
        while True:
            frame = json.loads(await asyncio.wait_for(sock.ws.recv(), REPLY_TIMEOUT_S))
            if frame["type"] == "welcome":
                sock.seq = frame["seq"]
                break
        sock.task = asyncio.create_task(sock.read())
        return sock

    async def read(self) -> None:
        try:
            async for raw in self.ws:
                frame = json.loads(raw)
                kind = frame["type"]
                if kind == "events":
                    self.seq = frame["events"][-1]["seq"]
                elif kind in ("ack", "error"):
                    waiter = self.replies.pop(frame.get("ref"), None)
                    if waiter is not None and not waiter.done():
                        waiter.set_result(frame)
        except websockets.ConnectionClosed:
            pass
        self.dropped = True

    async def request(self, ref: str, action: dict[str, Any]) -> dict[str, Any]:
        waiter = asyncio.get_running_loop().create_future()
        self.replies[ref] = waiter
        await self.ws.send(json.dumps({"type": "action", "ref": ref, "action": action}))
        return await asyncio.wait_for(waiter, REPLY_TIMEOUT_S)


class Game:
    def __init__(self, game_id: str, players: list[Socket], spectators: list[Socket]) -> None:
        self.id, self.players, self.spectators = game_id, players, spectators
        self.last_ack = 0


class ManyGames:
    def __init__(
        self,
        deployment: Deployment,
        games: int,
        seconds: float,
        period: float = PERIOD_S,
        per_game: bool = False,
        together: bool = False,
    ) -> None:
        self.deployment, self.games, self.seconds = deployment, games, seconds
        self.period, self.per_game, self.together = period, per_game, together
        self.latencies: list[float] = []
        self.timed: list[tuple[float, float]] = []  # (loop time sent, latency ms)
        self.errors: dict[str, int] = {}

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    async def setup(self) -> list[Game]:
        servers = self.deployment.servers
        games: list[Game] = []

        async def one(n: int) -> Game:
            # Spread over the processes (redis2): player 1 on one, player 2 on the other
            # (`--together`: the whole game on one).
            home = servers[n % len(servers)]
            away = home if self.together else servers[(n + 1) % len(servers)]
            ids = await asyncio.to_thread(create_game, home.url)
            path = f"/ws/games/{ids['id']}"
            p1 = await Socket.join(home.ws_url + path, ids["p1"])
            p2 = await Socket.join(away.ws_url + path, ids["p2"])
            spectators = [await Socket.join(s.ws_url + path, None) for s in (home, away)]
            game = Game(ids["id"], [p1, p2], spectators)
            for seat, player in ((1, p1), (2, p2)):
                reply = await player.request("place", {"type": "place_token", "x": 10 * seat,
                                                       "y": 10, "label": f"P{seat}"})
                if reply["type"] != "ack":
                    raise RuntimeError(f"placing a token failed: {reply}")
                game.last_ack = max(game.last_ack, reply["seq"])
            return game

        batch = 20
        for start in range(0, self.games, batch):
            games += await asyncio.gather(*(one(n) for n in range(start,
                                                                    min(start + batch,
                                                                        self.games))))
        # The token ids, read back once.
        for game in games:
            view = await asyncio.to_thread(
                http_json, "GET", servers[0].url + f"/api/games/{game.id}"
            )
            by_owner = {t["owner"]: t["id"] for t in view["state"]["tokens"].values()}
            for seat, player in enumerate(game.players, start=1):
                player.token = by_owner[seat]
        return games

    async def play(self, game: Game, seats: Sequence[int], ends_at: float) -> None:
        """`seats` take turns acting, one action every period, until `ends_at`: an action
        due after it is not waited for (with a period longer than the run, a player would
        otherwise hold the run, and its CPU count, open until its first action was due)."""
        loop = asyncio.get_running_loop()
        due = loop.time() + random.uniform(0, self.period)
        n = 0
        while due < ends_at:
            await asyncio.sleep(max(0.0, due - loop.time()))
            player = game.players[seats[n % len(seats)] - 1]
            n += 1
            action = {"type": "move_token", "id": player.token,
                      "x": float(random.randint(1, 71)), "y": float(random.randint(1, 47))}
            started = time.perf_counter()
            sent_at = loop.time()
            try:
                reply = await player.request(f"m{n}", action)
            except TimeoutError:
                self.error("timeout")
            else:
                if reply["type"] == "ack":
                    latency = (time.perf_counter() - started) * 1000.0
                    self.latencies.append(latency)
                    self.timed.append((sent_at, latency))
                    game.last_ack = max(game.last_ack, reply["seq"])
                else:
                    self.error(reply.get("code", "error"))
            due += self.period

    async def run(self) -> dict[str, Any]:
        baseline_rss = self.deployment.rss_now_mb()
        setup_started = time.perf_counter()
        games = await self.setup()
        setup_s = time.perf_counter() - setup_started
        # The load generator's own sockets are long-lived too: keep its collector off them, so
        # that its full collections do not show up as server latency.
        gc.collect()
        gc.freeze()
        sockets = [s for g in games for s in (*g.players, *g.spectators)]
        # Let the server's 5 s runtime intervals roll past the setup before measuring.
        await asyncio.sleep(6.0)
        poller = RuntimePoller(self.deployment.servers)
        polling = asyncio.create_task(poller.run())
        try:
            loop = asyncio.get_running_loop()
            load_before = load_average()
            runtime_before = [await asyncio.to_thread(runtime_figures, s)
                              for s in self.deployment.servers]
            cpu_before = self.deployment.cpu_ms()
            threads_before = [s.thread_cpu_ms() for s in self.deployment.servers]
            for server in self.deployment.servers:
                server.profile(True)
            started = loop.time()
            ends_at = started + self.seconds
            turns = [(1, 2)] if self.per_game else [(1,), (2,)]
            await asyncio.gather(*(self.play(g, seats, ends_at) for g in games
                                   for seats in turns))
            elapsed = loop.time() - started
            cpu = self.deployment.cpu_ms() - cpu_before
            for server in self.deployment.servers:
                server.profile(False)
            actions = max(1, len(self.latencies))
            by_process = [
                [round((now - then) / actions, 3) for now, then in zip(s.thread_cpu_ms(), was,
                                                                       strict=True)]
                for s, was in zip(self.deployment.servers, threads_before, strict=True)
            ]
            load_after = load_average()
            # The last interval's gauges roll within 5 s of the end: wait for one more scrape.
            await asyncio.sleep(poller.every_s * 2 + 5.0)
            poller.stop()
            await polling
            runtime_now = [await asyncio.to_thread(runtime_figures, s)
                           for s in self.deployment.servers]
            # Every socket ends on its game's last seq (nothing lost).
            deadline = loop.time() + 5
            while loop.time() < deadline and any(
                s.seq < g.last_ack for g in games for s in (*g.players, *g.spectators)
            ):
                await asyncio.sleep(0.05)
            for game in games:
                for sock in (*game.players, *game.spectators):
                    if sock.seq != game.last_ack:
                        self.error("missed_events")
            for sock in sockets:
                if sock.dropped:
                    self.error("dropped_socket")
            rss_now = self.deployment.rss_now_mb()
            rss_hwm = self.deployment.rss_mb()
        finally:
            poller.stop()
            for sock in sockets:
                with contextlib.suppress(Exception):
                    await sock.ws.close()
                if sock.task is not None:
                    sock.task.cancel()
        lat = sorted(self.latencies)
        during = poller.worst(started, ends_at + 7.5)
        per_minute = []
        for minute in range(max(1, math.ceil(self.seconds / 60.0))):
            start = started + 60.0 * minute
            window = sorted(ms for t, ms in self.timed if start <= t < start + 60.0)
            worst = poller.worst(start, start + 60.0 + 7.5)  # a gauge reports the 5 s before
            per_minute.append({
                "minute": minute,
                "actions": len(window),
                "p50_ms": round(nearest_rank(window, 50), 2) if window else None,
                "p99_ms": round(nearest_rank(window, 99), 2) if window else None,
                "max_ms": round(window[-1], 2) if window else None,
                **worst,
            })
        return {
            "system": "warfield",
            "bench": "many_games",
            "config": self.deployment.config,
            "processes": len(self.deployment.servers),
            "games": self.games,
            "placement": "together" if self.together else "split",
            "sockets": len(sockets),
            "seconds": self.seconds,
            "actions": len(lat),
            "actions_per_s": round(len(lat) / self.seconds, 1),
            "p50_ms": round(nearest_rank(lat, 50), 2) if lat else None,
            "p99_ms": round(nearest_rank(lat, 99), 2) if lat else None,
            "max_ms": round(lat[-1], 2) if lat else None,
            "errors": sum(self.errors.values()),
            "error_kinds": self.errors,
            "server_cpu_pct": round(cpu / (elapsed * 1000.0) * 100.0, 1),
            "server_cpu_ms_per_action": round(cpu / actions, 3),
            # Per process: [event-loop thread, other threads (database calls)].
            "cpu_ms_per_action_by_process": by_process,
            "server_cpu_ms_per_game_per_s": round(cpu / elapsed / self.games, 3),
            "server_rss_mb": round(rss_hwm, 1),
            "server_rss_mb_per_game": round((rss_now - baseline_rss) / self.games, 3),
            "setup_s": round(setup_s, 1),
            "period_s": self.period,
            "acting": "per game, players alternating" if self.per_game else "per player",
            "loop_lag_worst_ms": during["loop_lag_worst_ms"],
            "gc_pause_worst_ms": during["gc_pause_worst_ms"],
            "gc_cpu_worst_ms": during["gc_cpu_worst_ms"],
            "loop_lag_max_ms_since_start": worst_of(runtime_now, "loop_lag_max_ms"),
            "gc_pause_max_ms_since_start": worst_of(runtime_now, "gc_pause_max_ms"),
            "gc_cpu_max_ms_since_start": worst_of(runtime_now, "gc_cpu_max_ms"),
            "gc_by_generation": gc_by_generation(runtime_before, runtime_now),
            "per_minute": per_minute,
            "load_avg_before": load_before,
            "load_avg_after": load_after,
        }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="warfield bench many-games", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--config", choices=WARFIELD_CONFIGS, default="sqlite")
    parser.add_argument("--period", type=float, default=PERIOD_S,
                        help="seconds between two actions of a player (of a game: --per-game)")
    parser.add_argument("--per-game", action="store_true",
                        help="the period is per game, its two players taking turns")
    parser.add_argument("--together", action="store_true",
                        help="redis2: each game's four sockets on one process (games alternate "
                             "between the processes), as the Compose proxy's hash on the game "
                             "id places them; default: every game split over both")
    parser.add_argument("--configs", nargs="+", choices=WARFIELD_CONFIGS, default=None,
                        help="run these configurations alternately, --repeat rounds, then "
                             "print each one's medians and the first against the last")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    if args.configs is None:
        result = run_one(args, args.config)
        print(json.dumps(result), flush=True)
        return 0 if result["errors"] == 0 else 1
    return side_by_side(args)


def run_one(args: argparse.Namespace, config: str) -> dict[str, Any]:
    deployment = Deployment(config)
    try:
        return asyncio.run(ManyGames(deployment, args.games, args.seconds, args.period,
                                     args.per_game, args.together).run())
    except BaseException:
        deployment.print_logs()
        raise
    finally:
        deployment.close()


SUMMARY_FIGURES = ("p50_ms", "p99_ms", "server_cpu_ms_per_action")


def side_by_side(args: argparse.Namespace) -> int:
    """`--configs A ... B --repeat N`: the configurations alternate within each round (the
    machine's speed drifts between runs on a shared host: a pair of neighbouring runs compares
    like with like), each run's line printed as it comes; then per configuration the median of
    each figure, and for the first against the last the ratio of those medians and the median
    (and range) of the round-by-round CPU ratios."""
    if len(set(args.configs)) != len(args.configs):
        raise SystemExit("--configs: name each configuration once")
    runs: dict[str, list[dict[str, Any]]] = {config: [] for config in args.configs}
    errors = 0
    for _ in range(args.repeat):
        for config in args.configs:
            result = run_one(args, config)
            runs[config].append(result)
            errors += result["errors"]
            print(json.dumps(result), flush=True)
    medians = {config: {f: round(statistics.median(r[f] for r in results), 3)
                        for f in SUMMARY_FIGURES}
               for config, results in runs.items()}
    for config, figures in medians.items():
        print(json.dumps({"summary": True, "config": config, "runs": len(runs[config]),
                          "placement": runs[config][0]["placement"], **figures}), flush=True)
    first, last = args.configs[0], args.configs[-1]
    if first != last:
        rounds = [r for a, b in zip(runs[first], runs[last], strict=True)
                  if (r := ratio(a["server_cpu_ms_per_action"], b["server_cpu_ms_per_action"]))
                  is not None]
        print(json.dumps({
            "summary": True, "config": first, "vs": last,
            **{f.replace("_ms", "").replace("server_", "") + "_ratio":
               ratio(medians[first][f], medians[last][f]) for f in SUMMARY_FIGURES},
            "cpu_ratio_by_round_median": round(statistics.median(rounds), 2) if rounds else None,
            "cpu_ratio_by_round_range": [min(rounds), max(rounds)] if rounds else None,
        }), flush=True)
    return 0 if errors == 0 else 1


def ratio(a: float, b: float) -> float | None:
    """a / b to two places; None when b is 0 (a short run's CPU can measure 0 ticks)."""
    return round(a / b, 2) if b else None


if __name__ == "__main__":
    raise SystemExit(main())
