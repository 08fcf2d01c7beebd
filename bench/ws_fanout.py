"""Fan-out latency: how fast one validated move reaches everyone watching.

Implements ../shared/bench/PROTOCOL.md (the same protocol is run against boardgame.io 0.50):
for each K in {1, 10, 100} a fresh server (two `warfield serve` processes for `redis2`), one
game, both seats claimed, one websocket for player 1 and one for each of K spectators; player 1
places 40 tokens, sends one out-of-bounds move (refused, nothing changes), makes 10 warm-up
moves and then M recorded moves (200 for K <= 10, 100 for K = 100), one at a time, each sent
only when all K spectators and player 1 have the previous one. Latency: just before the send ->
the last spectator has parsed the frame with the move's seq and its state shows the new (x, y).
One JSON line per K on stdout; percentiles nearest-rank.

    python -m bench.ws_fanout [--config sqlite|postgres|redis2|bgio] [--k 1 10 100] [--moves M]
                              [--steps]
    warfield bench fanout --config postgres

Configurations (bench/harness.py): `sqlite`, `postgres`, `redis2` (player 1 on process A,
spectators alternate B, A) and `bgio`: boardgame.io 0.50.2's own server (bench/bgio/server.js,
`npm ci --prefix bench/bgio` once) driven by this same load generator over its socket.io wire,
so the two systems are compared with one client, one protocol, on one machine.
With `--steps` the Warfield servers time each step of the move path (server/games/steps.py)
and each line carries `steps_by_process`: CPU ms per move by step, the loop's CPU no step
covers, the commit's wall-clock time, and the collector's counts per move.
Server RSS is VmHWM from /proc/PID/status after the last move and CPU is utime + stime from
/proc/PID/stat over the recorded moves (summed over both processes for redis2).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import websockets

from bench.harness import (
    CONFIGS,
    Deployment,
    Server,
    create_game,
    http_json,
    nearest_rank,
)

TOKENS = 40
WARMUP = 10
MOVE_TIMEOUT_S = 10.0
CONNECT: dict[str, Any] = {"compression": None, "max_size": 2**22, "ping_interval": None}

__all__ = ["main", "nearest_rank", "run_one"]


class Round:
    """The move in flight: which seq and where the token must end up."""

    def __init__(self, seq: int, token: str, x: float, y: float, waiting: int) -> None:
        self.seq, self.token, self.x, self.y = seq, token, x, y
        self.remaining = waiting
        self.last_spectator = 0.0
        self.arrived: set[int] = set()
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def reached(self, client: Client) -> None:
        """`client` has the move: note when, and finish the round when everyone has it."""
        key = id(client)
        if key in self.arrived:
            return
        now = time.perf_counter()
        self.arrived.add(key)
        if client.spectator and now > self.last_spectator:
            self.last_spectator = now
        self.remaining -= 1
        if self.remaining == 0 and not self.done.done():
            self.done.set_result(None)


class Client(ABC):
    """One websocket and the little state it keeps from what it is sent (never predicted).
    Each wire (Warfield's, boardgame.io's) implements the abstract methods."""

    def __init__(self, ws: Any, spectator: bool, bench: Fanout) -> None:
        self.ws, self.spectator, self.bench = ws, spectator, bench
        self.seq = 0
        self.placed: list[str] = []
        self.task: asyncio.Task[None] | None = None

    @abstractmethod
    def position(self, token: str) -> tuple[float, float] | None:
        """Where this client's state has `token`."""

    def received(self) -> None:
        """After a state frame: does this client now have the move in flight?"""
        current = self.bench.round
        if (
            current is not None
            and self.seq >= current.seq
            and self.position(current.token) == (current.x, current.y)
        ):
            current.reached(self)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        if self.task is not None:
            self.task.cancel()

    # The player's side.
    @abstractmethod
    async def place(self, i: int, x: float, y: float) -> None:
        """Place token i at (x, y) and wait until it is acknowledged."""

    @abstractmethod
    async def refused(self, token: str, x: float, y: float) -> None:
        """Send an off-table move; assert it is refused and nothing changes."""

    @abstractmethod
    def move_frame(self, s: int, token: str, x: float, y: float) -> str:
        """The encoded frame of move number `s` of `token` to (x, y)."""


# --- Warfield's wire (docs: ARCHITECTURE.md "Wire protocol") --------------------------------


class WarfieldClient(Client):
    def __init__(self, ws: Any, spectator: bool, bench: Fanout) -> None:
        super().__init__(ws, spectator, bench)
        self.positions: dict[str, tuple[float, float]] = {}
        self.replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.server: Server | None = None
        self.game_id = ""

    @classmethod
    async def join(cls, bench: Fanout, server: Server, game: dict[str, Any],
                   seat: int | None) -> WarfieldClient:
        ws = await websockets.connect(server.ws_url + f"/ws/games/{game['id']}", **CONNECT)
        client = cls(ws, seat is None, bench)
        client.server, client.game_id = server, game["id"]
        token = None if seat is None else game[f"p{seat}"]
        await ws.send(json.dumps({"type": "hello", "token": token, "since": None}))
        while True:
            frame = json.loads(await ws.recv())
            if frame["type"] == "welcome":
                client.seq = frame["seq"]
                for token_id, t in frame["state"].get("tokens", {}).items():
                    client.positions[token_id] = (t["x"], t["y"])
                break
        client.task = asyncio.create_task(client.read())
        return client

    def position(self, token: str) -> tuple[float, float] | None:
        return self.positions.get(token)

    async def read(self) -> None:
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
                self.received()
            elif kind in ("ack", "error"):
                waiter = self.replies.pop(frame.get("ref"), None)
                if waiter is not None and not waiter.done():
                    waiter.set_result(frame)

    async def request(self, ref: str, action: dict[str, Any]) -> dict[str, Any]:
        waiter = asyncio.get_running_loop().create_future()
        self.replies[ref] = waiter
        await self.ws.send(json.dumps({"type": "action", "ref": ref, "action": action}))
        return await asyncio.wait_for(waiter, MOVE_TIMEOUT_S)

    async def place(self, i: int, x: float, y: float) -> None:
        reply = await self.request(f"t{i}", {"type": "place_token", "x": x, "y": y,
                                             "label": f"T{i}"})
        assert reply["type"] == "ack", reply
        while len(self.placed) <= i:  # the ack may come before the event
            await asyncio.sleep(0.001)

    async def refused(self, token: str, x: float, y: float) -> None:
        before_seq, before = self.seq, dict(self.positions)
        reply = await self.request("oob", {"type": "move_token", "id": token, "x": x, "y": y})
        assert reply["type"] == "error" and reply["code"] == "illegal_move", reply
        assert self.server is not None
        view = http_json("GET", self.server.url + f"/api/games/{self.game_id}")
        assert view["seq"] == before_seq and self.positions == before
        t0 = view["state"]["tokens"][token]
        assert (t0["x"], t0["y"]) == before[token]

    def move_frame(self, s: int, token: str, x: float, y: float) -> str:
        return json.dumps({"type": "action", "ref": f"m{s}", "action": {
            "type": "move_token", "id": token, "x": x, "y": y}})


# --- boardgame.io's wire: socket.io 4 (Engine.IO 4) over a plain websocket ------------------

BGIO_GAME = "tokens"
BGIO_NSP = "/" + BGIO_GAME
BGIO_EVENT = f"42{BGIO_NSP},"  # a socket.io EVENT packet in the game's namespace


def bgio_create(server: Server) -> dict[str, Any]:
    """A match of bench/bgio/game.js with both seats joined through the lobby API."""
    base = server.url + f"/games/{BGIO_GAME}"
    match_id = http_json("POST", base + "/create", {"numPlayers": 2})["matchID"]
    seats = {}
    for seat in (1, 2):
        joined = http_json("POST", base + f"/{match_id}/join",
                           {"playerID": str(seat - 1), "playerName": f"P{seat}"})
        seats[f"p{seat}"] = joined["playerCredentials"]
    return {"id": match_id, **seats}


class BgioClient(Client):
    """What boardgame.io's SocketIO transport does for a client: `sync` on connect, then the
    server's `update` frames carry the whole (player-filtered) state with its `_stateID`;
    a move is `update` with the action, the client's `_stateID`, the match and the seat."""

    def __init__(self, ws: Any, spectator: bool, bench: Fanout) -> None:
        super().__init__(ws, spectator, bench)
        self.tokens: dict[str, dict[str, Any]] = {}
        self.player_id: str | None = None
        self.credentials: str | None = None
        self.match_id = ""
        self.next_update: asyncio.Future[None] | None = None

    @classmethod
    async def join(cls, bench: Fanout, server: Server, game: dict[str, Any],
                   seat: int | None) -> BgioClient:
        ws = await websockets.connect(
            server.ws_url + "/socket.io/?EIO=4&transport=websocket", **CONNECT
        )
        client = cls(ws, seat is None, bench)
        client.match_id = game["id"]
        if seat is not None:
            client.player_id, client.credentials = str(seat - 1), game[f"p{seat}"]
        opened = await ws.recv()
        assert opened.startswith("0"), opened  # Engine.IO OPEN
        await ws.send(f"40{BGIO_NSP},")  # socket.io CONNECT to the game's namespace
        while not (await ws.recv()).startswith(f"40{BGIO_NSP},"):
            pass
        await client.emit("sync", client.match_id, client.player_id, client.credentials, 2)
        while True:
            name, args = await client._next_event()
            if name == "sync":
                client._apply(args[1]["state"])
                break
        client.task = asyncio.create_task(client.read())
        return client

    async def emit(self, name: str, *args: Any) -> None:
        await self.ws.send(BGIO_EVENT + json.dumps([name, *args]))

    async def _next_event(self) -> tuple[str, list[Any]]:
        while True:
            event = await self._parse(await self.ws.recv())
            if event is not None:
                return event

    async def _parse(self, raw: str) -> tuple[str, list[Any]] | None:
        if raw == "2":  # Engine.IO PING: answer PONG or the server drops us
            await self.ws.send("3")
            return None
        if not raw.startswith(BGIO_EVENT):
            return None
        name, *args = json.loads(raw[len(BGIO_EVENT):])
        return name, args

    def _apply(self, state: dict[str, Any]) -> None:
        self.seq = state["_stateID"]
        self.tokens = state["G"]["tokens"]
        if len(self.tokens) > len(self.placed):
            self.placed = list(self.tokens)  # ids in the order they were placed

    def position(self, token: str) -> tuple[float, float] | None:
        t = self.tokens.get(token)
        return None if t is None else (t["x"], t["y"])

    async def read(self) -> None:
        async for raw in self.ws:
            event = await self._parse(raw)
            if event is None or event[0] != "update":
                continue
            self._apply(event[1][1])
            self.received()
            if self.next_update is not None and not self.next_update.done():
                self.next_update.set_result(None)

    async def _act(self, move: str, *args: Any) -> None:
        """Send a move with our `_stateID` and wait for the next update (boardgame.io
        answers every action with one, unchanged when the move was refused)."""
        self.next_update = asyncio.get_running_loop().create_future()
        await self.emit("update", self._action(move, *args), self.seq, self.match_id,
                        self.player_id)
        await asyncio.wait_for(self.next_update, MOVE_TIMEOUT_S)

    def _action(self, move: str, *args: Any) -> dict[str, Any]:
        return {"type": "MAKE_MOVE", "payload": {
            "type": move, "args": list(args), "playerID": self.player_id,
            "credentials": self.credentials}}

    async def place(self, i: int, x: float, y: float) -> None:
        before = self.seq
        await self._act("placeToken", x, y, f"T{i}")
        assert self.seq == before + 1 and len(self.placed) == i + 1, (self.seq, self.placed)

    async def refused(self, token: str, x: float, y: float) -> None:
        # boardgame.io sends no error to the client (its issue #723): the refusal shows as
        # an update whose _stateID and tokens are unchanged.
        before_seq, before = self.seq, json.dumps(self.tokens, sort_keys=True)
        await self._act("moveToken", token, x, y)
        assert self.seq == before_seq, (self.seq, before_seq)
        assert json.dumps(self.tokens, sort_keys=True) == before

    def move_frame(self, s: int, token: str, x: float, y: float) -> str:
        return BGIO_EVENT + json.dumps(["update", self._action("moveToken", token, x, y),
                                        self.seq, self.match_id, self.player_id])


# --- the load generator ------------------------------------------------------------------------


class Fanout:
    def __init__(self, deployment: Deployment, k: int) -> None:
        self.deployment, self.k = deployment, k
        self.round: Round | None = None

    async def move(self, player: Client, s: int, token: str, x: float, y: float) -> float:
        current = self.round = Round(player.seq + 1, token, x, y, self.k + 1)
        message = player.move_frame(s, token, x, y)
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
        timing = step_timing() and self.deployment.config != "bgio"
        bgio = self.deployment.config == "bgio"
        kind: type[WarfieldClient] | type[BgioClient] = BgioClient if bgio else WarfieldClient
        game = await asyncio.to_thread(bgio_create if bgio else _create_warfield, servers[0])
        everyone: list[Client] = []
        try:
            player = await kind.join(self, servers[0], game, 1)
            everyone.append(player)
            for i in range(self.k):
                # redis2: spectators alternate B, A (the first on B, so K = 1 crosses Redis).
                server = servers[(i + 1) % len(servers)]
                everyone.append(await kind.join(self, server, game, None))

            # State: 40 tokens, token i at (i mod 73, 3i mod 49).
            for i in range(TOKENS):
                await player.place(i, i % 73, (3 * i) % 49)
            await self._settle(everyone, player.seq)
            tokens = player.placed[:TOKENS]

            # 1. One out-of-bounds move: refused, nothing changes.
            await player.refused(tokens[0], 172, 5)
            await self._settle(everyone, player.seq)

            # 2. Warm-up, 3. recorded moves.
            latencies: list[float] = []
            cpu_before = 0.0
            threads_before: list[tuple[float, float]] = []
            loop_started = 0.0
            for s in range(WARMUP + moves):
                if s == WARMUP:
                    if timing:
                        for sv in servers:
                            http_json("GET", sv.url + "/debug/steps?reset=true")
                    cpu_before = self.deployment.cpu_ms()
                    threads_before = [sv.thread_cpu_ms() for sv in servers]
                    for sv in servers:
                        sv.profile(True)
                    loop_started = time.perf_counter()
                token = tokens[s % TOKENS]
                x, y = (7 * s + 3) % 73, (11 * s + 5) % 49
                if player.position(token) == (x, y):
                    x = (x + 1) % 73
                latency = await self.move(player, s, token, x, y)
                if s >= WARMUP:
                    latencies.append(latency)
            wall = time.perf_counter() - loop_started
            for sv in servers:
                sv.profile(False)
            cpu = self.deployment.cpu_ms() - cpu_before
            by_process = [
                [round((now - then) / moves, 3) for now, then in zip(sv.thread_cpu_ms(), was,
                                                                     strict=True)]
                for sv, was in zip(servers, threads_before, strict=True)
            ]
            rss = self.deployment.rss_mb()
            step_reports = [http_json("GET", sv.url + "/debug/steps") for sv in servers] \
                if timing else []
        finally:
            for client in everyone:
                await client.close()
        latencies.sort()
        return {
            "system": self.deployment.system,
            "config": self.deployment.config,
            "K": self.k,
            "moves": moves,
            "p50_ms": round(nearest_rank(latencies, 50), 2),
            "p95_ms": round(nearest_rank(latencies, 95), 2),
            "p99_ms": round(nearest_rank(latencies, 99), 2),
            "moves_per_s": round(moves / wall, 1),
            "server_rss_mb": round(rss, 1),
            "server_cpu_ms_per_move": round(cpu / moves, 3),
            # Per process (A first): [event-loop thread, other threads (database calls)].
            "cpu_ms_per_move_by_process": by_process,
            "processes": len(servers),
            **({"steps_by_process": [per_move_steps(r, loop_ms, moves)
                                     for r, (loop_ms, _) in zip(step_reports, by_process,
                                                                strict=True)]}
               if step_reports else {}),
        }

    @staticmethod
    async def _settle(clients: list[Client], seq: int) -> None:
        deadline = time.monotonic() + MOVE_TIMEOUT_S
        while any(c.seq < seq for c in clients):
            if time.monotonic() > deadline:
                raise RuntimeError("clients did not catch up with the placements")
            await asyncio.sleep(0.002)


def step_timing() -> bool:
    """Do the Warfield servers time each step of the move path (`--steps`)?"""
    return os.environ.get("WARFIELD_STEP_TIMING", "") == "1"


def per_move_steps(report: dict[str, Any], loop_ms: float, moves: int) -> dict[str, Any]:
    """A server's step totals (`GET /debug/steps`, server/games/steps.py) per recorded move:
    CPU ms per step, `loop_other_ms` (the event loop's CPU that no step covers: uvicorn reading
    frames, the hop to the database thread and back, task switches) and the collector's
    counts per move; `commit_wall_ms`: the commit by the wall clock (the disk's flush)."""
    ms = {step: round(ns / moves / 1e6, 4) for step, ns in report["cpu_ns"].items()}
    on_loop = sum(v for step, v in ms.items() if step != "commit_db")
    gc = report["gc"]
    return {
        "cpu_ms": ms,
        "loop_other_ms": round(loop_ms - on_loop, 4),
        "commit_wall_ms": round(report["commit_wall_ns"] / moves / 1e6, 4),
        "calls_per_move": {step: round(n / moves, 2) for step, n in report["calls"].items()},
        "young_allocations_per_move": round(gc["young_allocations"] / moves, 1),
        "gc_collections": gc["collections"],
        "allocated_blocks_change_per_move": round(gc["allocated_blocks_change"] / moves, 2),
    }


def _create_warfield(server: Server) -> dict[str, Any]:
    return create_game(server.url)


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop when installed (it is, with uvicorn[standard]): at K = 100 the load generator
    reads 100 frames per move on the same two cores, and the stock loop's per-read overhead
    would be part of every figure, for both systems alike."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def default_moves(k: int) -> int:
    return 200 if k <= 10 else 100


def run_one(config: str, k: int, moves: int | None) -> dict[str, Any]:
    deployment = Deployment(config)
    try:
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            return runner.run(Fanout(deployment, k).run(moves or default_moves(k)))
    except BaseException:
        deployment.print_logs()
        raise
    finally:
        deployment.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="warfield bench fanout", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", choices=CONFIGS, default="sqlite")
    parser.add_argument("--k", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--moves", type=int, default=None,
                        help="recorded moves per K (default: the protocol's 200, or 100 at K=100)")
    parser.add_argument("--steps", action="store_true",
                        help="time each step of the move path in the servers "
                             "(WARFIELD_STEP_TIMING=1, server/games/steps.py): `steps_by_process`")
    args = parser.parse_args(argv)
    if args.steps:
        os.environ["WARFIELD_STEP_TIMING"] = "1"
    for k in args.k:
        print(json.dumps(run_one(args.config, k, args.moves)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
