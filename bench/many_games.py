"""Many games at once: G concurrent games, each with 2 players and 2 spectators; every player
moves one of its tokens every 2 s for S seconds (issue 7 item 5).

    python -m bench.many_games [--games 200] [--seconds 60] [--config sqlite|postgres|redis2]
    warfield bench many-games --games 50 --seconds 20

Prints one JSON line: action latency (send -> ack) p50/p99 in ms, errors (error frames,
timeouts, dropped sockets, and spectators that did not end on their game's last seq: must be
0), the server's CPU over the acting period (percent of one core, and ms per game per second)
and its memory (VmHWM, and the growth of VmRSS from before the games were created, per game).
Players start at random offsets within the first period so the load is spread, as with real
players. The load generator is one asyncio loop on the same machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import time
from collections.abc import Sequence
from typing import Any

import websockets

from bench.harness import (
    WARFIELD_CONFIGS,
    Deployment,
    create_game,
    http_json,
    nearest_rank,
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
    def __init__(self, deployment: Deployment, games: int, seconds: float) -> None:
        self.deployment, self.games, self.seconds = deployment, games, seconds
        self.latencies: list[float] = []
        self.errors: dict[str, int] = {}

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    async def setup(self) -> list[Game]:
        servers = self.deployment.servers
        games: list[Game] = []

        async def one(n: int) -> Game:
            # Spread over the processes (redis2): player 1 on one, player 2 on the other.
            home = servers[n % len(servers)]
            away = servers[(n + 1) % len(servers)]
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

    async def play(self, game: Game, seat: int, ends_at: float) -> None:
        loop = asyncio.get_running_loop()
        player = game.players[seat - 1]
        due = loop.time() + random.uniform(0, PERIOD_S)
        n = 0
        while True:
            await asyncio.sleep(max(0.0, due - loop.time()))
            if loop.time() >= ends_at:
                return
            n += 1
            action = {"type": "move_token", "id": player.token,
                      "x": float(random.randint(1, 71)), "y": float(random.randint(1, 47))}
            started = time.perf_counter()
            try:
                reply = await player.request(f"m{n}", action)
            except TimeoutError:
                self.error("timeout")
            else:
                if reply["type"] == "ack":
                    self.latencies.append((time.perf_counter() - started) * 1000.0)
                    game.last_ack = max(game.last_ack, reply["seq"])
                else:
                    self.error(reply.get("code", "error"))
            due += PERIOD_S

    async def run(self) -> dict[str, Any]:
        baseline_rss = self.deployment.rss_now_mb()
        setup_started = time.perf_counter()
        games = await self.setup()
        setup_s = time.perf_counter() - setup_started
        sockets = [s for g in games for s in (*g.players, *g.spectators)]
        try:
            loop = asyncio.get_running_loop()
            cpu_before = self.deployment.cpu_ms()
            started = loop.time()
            ends_at = started + self.seconds
            await asyncio.gather(*(self.play(g, seat, ends_at) for g in games for seat in (1, 2)))
            elapsed = loop.time() - started
            cpu = self.deployment.cpu_ms() - cpu_before
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
            for sock in sockets:
                with contextlib.suppress(Exception):
                    await sock.ws.close()
                if sock.task is not None:
                    sock.task.cancel()
        lat = sorted(self.latencies)
        return {
            "system": "warfield",
            "bench": "many_games",
            "config": self.deployment.config,
            "processes": len(self.deployment.servers),
            "games": self.games,
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
            "server_cpu_ms_per_game_per_s": round(cpu / elapsed / self.games, 3),
            "server_rss_mb": round(rss_hwm, 1),
            "server_rss_mb_per_game": round((rss_now - baseline_rss) / self.games, 3),
            "setup_s": round(setup_s, 1),
        }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="warfield bench many-games", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--config", choices=WARFIELD_CONFIGS, default="sqlite")
    args = parser.parse_args(argv)
    deployment = Deployment(args.config)
    try:
        result = asyncio.run(ManyGames(deployment, args.games, args.seconds).run())
    except BaseException:
        deployment.print_logs()
        raise
    finally:
        deployment.close()
    print(json.dumps(result), flush=True)
    return 0 if result["errors"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
