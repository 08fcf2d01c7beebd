"""The Docker set-up run for real: the compose stack built, started, scaled, killed, restarted,
upgraded one replica at a time, and taken down and up again, as a self-hoster would.

Needs a container engine and the four base images the project names (`python:3.11-slim`,
`postgres:16`, `redis:7`, `nginx:1.27.5`): `.ci/run` installs Debian's docker.io and
docker-compose and builds local stand-ins for the images (../shared/containers/README.md) when
Docker Hub cannot be reached. Without them every test here skips, saying why (fails under CI).

One stack for the module (project `warfield-stacktest`, published on a free loopback port, an
empty env file so a developer's `.env` does not leak in); each test leaves it as it found it:
healthy, two app replicas. Everything the module made (containers, network, volumes, the
derived upgrade image) is removed at the end; the built app image is kept, under one fixed name,
so the next run's build is a cache hit. The project's files are used unchanged; an override
file only names the image (and labels it, to prune its old builds).

No fixed sleeps: every wait polls for the state it needs and fails naming it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from tests.conftest import require

ROOT = Path(__file__).resolve().parents[2]
PROJECT = "warfield-stacktest"
IMAGE = "warfield-stacktest-app:latest"
LABEL = "org.warfield.stacktest"
BASE_IMAGES = ("python:3.11-slim", "postgres:16", "redis:7", "nginx:1.27.5")
SERVICES = ("app", "db", "redis", "proxy")
WAIT_S = 120.0  # a wait runs out only when something is wrong
# An answer the browser resends with the same `ref` (docs/protocol.md): a dropped connection to
# the database or Redis is an expected fault, never `internal`.
RESEND_CODES = frozenset({"unavailable"})

pytestmark = pytest.mark.docker


# --- the engine and the stack -----------------------------------------------------------------


def _engine_problem() -> str | None:
    if shutil.which("docker") is None or shutil.which("docker-compose") is None:
        return ("no container engine: docker and docker-compose are not installed "
                "(.ci/run installs them)")
    info = subprocess.run(["docker", "info", "--format", "{{.ServerVersion}}"],
                          capture_output=True, text=True, timeout=60)
    if info.returncode != 0:
        return f"the Docker engine does not answer: {info.stderr.strip()[:200]}"
    missing = [image for image in BASE_IMAGES
               if subprocess.run(["docker", "image", "inspect", image],
                                 capture_output=True, timeout=60).returncode != 0]
    if missing:
        return (f"base images missing: {', '.join(missing)} "
                "(build the stand-ins: sh ../shared/containers/build.sh)")
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def eventually(check: Callable[[], Any], what: str, timeout: float = WAIT_S,
               every: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(Exception):
            result = check()
            if result:
                return result
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        time.sleep(every)


def docker(*args: str, check: bool = True, timeout: float = 300) -> str:
    done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError(f"docker {' '.join(args)} failed ({done.returncode}): "
                             f"{done.stderr.strip()[-2000:]}")
    return done.stdout


@dataclass
class Stack:
    workdir: Path
    port: int
    env: dict[str, str]
    override: Path
    env_file: Path
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def compose_cmd(self) -> list[str]:
        return ["docker-compose", "--env-file", str(self.env_file), "-p", PROJECT,
                "-f", str(ROOT / "docker-compose.yml"), "-f", str(self.override)]

    def compose(self, *args: str, check: bool = True, timeout: float = 300,
                env: dict[str, str] | None = None) -> str:
        done = subprocess.run([*self.compose_cmd, *args], capture_output=True, text=True,
                              timeout=timeout, cwd=ROOT, env={**self.env, **(env or {})})
        if check and done.returncode != 0:
            raise AssertionError(f"docker-compose {' '.join(args)} failed ({done.returncode}): "
                                 f"{done.stderr.strip()[-3000:]}")
        return done.stdout

    def ids(self, service: str) -> list[str]:
        return self.compose("ps", "-q", service).split()

    def health(self, container: str) -> str:
        return docker("inspect", "-f", "{{if .State.Health}}{{.State.Health.Status}}"
                      "{{else}}{{.State.Status}}{{end}}", container).strip()

    def ip(self, container: str) -> str:
        return docker("inspect", "-f",
                      "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", container).strip()

    def all_healthy(self, replicas: int = 2) -> bool:
        apps = self.ids("app")
        if len(apps) != replicas:
            return False
        every = [*apps, *(c for s in ("db", "redis", "proxy") for c in self.ids(s))]
        return len(every) == replicas + 3 and all(self.health(c) == "healthy" for c in every)

    def wait_healthy(self, replicas: int = 2, what: str = "the stack") -> float:
        started = time.monotonic()
        try:
            eventually(lambda: self.all_healthy(replicas),
                       f"{what}: db, redis, proxy and {replicas} app replica(s) healthy")
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{self.diagnosis()}") from exc
        return time.monotonic() - started

    def diagnosis(self) -> str:
        """What a host would look at when the stack does not come up: states and log ends."""
        states = self.compose("ps", check=False)
        logs = self.compose("logs", "--no-color", "--tail", "40", check=False)
        health = "\n".join(
            f"{c[:12]}: {docker('inspect', '-f', '{{json .State.Health}}', c, check=False)[-1500:]}"
            for c in self.ids("app"))
        return f"--- ps\n{states}\n--- app health\n{health}\n--- logs\n{logs[-8000:]}"

    def proxy_log(self) -> str:
        return "\n".join(docker("logs", c, check=False) for c in self.ids("proxy"))

    def replica_of(self, game_id: str) -> str:
        """The app container the proxy sends `game_id` to (its access log names the upstream)."""
        httpx.get(f"{self.base}/api/games/{game_id}", timeout=10).raise_for_status()
        by_ip = {self.ip(c): c for c in self.ids("app")}

        def found() -> str | None:
            for line in reversed(self.proxy_log().splitlines()):
                if f"game={game_id}" in line and "upstream=" in line:
                    address = line.split("upstream=", 1)[1].split()[0]
                    return by_ip.get(address.rsplit(":", 1)[0])
            return None

        return str(eventually(found, f"the proxy log naming the replica of {game_id}"))


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    problem = _engine_problem()
    require(problem is None, problem or "")
    workdir = tmp_path_factory.mktemp("stack")
    override = workdir / "docker-compose.test.yml"
    override.write_text(
        "services:\n"
        "  app:\n"
        f"    image: {IMAGE}\n"
        "    build:\n"
        "      context: .\n"
        "      labels:\n"
        f"        {LABEL}: \"1\"\n"
    )
    env_file = workdir / "empty.env"
    env_file.write_text("")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WARFIELD_", "COMPOSE_"))}
    env.update({"WARFIELD_PORT": f"127.0.0.1:{port}", "WARFIELD_REPLICAS": "2",
                "WARFIELD_LOG_LEVEL": "info"})
    s = Stack(workdir, port, env, override, env_file)
    s.compose("down", "-v", "--remove-orphans", check=False)  # a run that was killed
    started = time.monotonic()
    s.compose("build", timeout=900)
    s.timings["build_s"] = time.monotonic() - started
    started = time.monotonic()
    try:
        s.compose("up", "-d", timeout=300)
        s.wait_healthy()
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n{s.diagnosis()}") from exc
    s.timings["up_healthy_s"] = time.monotonic() - started
    try:
        yield s
    finally:
        s.compose("down", "-v", "--remove-orphans", check=False, timeout=300)
        docker("image", "prune", "-f", "--filter", f"label={LABEL}=1", check=False)
        docker("rmi", f"{IMAGE.split(':')[0]}:generation-2", check=False)
        print(f"stack timings: {json.dumps(s.timings)}")


def new_game(base: str) -> dict[str, Any]:
    created = httpx.post(base + "/api/games", json={"system": "t9a"}, timeout=10)
    created.raise_for_status()
    game = created.json()
    seat = httpx.post(base + f"/api/games/{game['id']}/seats",
                      json={"invite": game["invite"]}, timeout=10)
    seat.raise_for_status()
    return {"id": game["id"], "p1": game["token"], "p2": seat.json()["token"]}


def game_log(base: str, game_id: str, token: str) -> list[dict[str, Any]]:
    r = httpx.get(f"{base}/api/games/{game_id}/events",
                  headers={"Authorization": f"Bearer {token}"}, timeout=10)
    r.raise_for_status()
    return list(r.json()["events"])


# --- a player that behaves like the browser across faults -------------------------------------


class Seat:
    """One socket that, like static/js, reconnects when its socket drops (saying `since`, so it
    is sent what it missed) and resends an unanswered action, or one answered with a resendable
    code, with the same `ref`: the server applies a `ref` once."""

    def __init__(self, name: str, url: Callable[[], str], game_id: str, token: str | None):
        self.name, self.url, self.game_id, self.token = name, url, game_id, token
        self.events: dict[int, dict[str, Any]] = {}
        self.last_seq = 0
        self.acks: dict[str, int] = {}
        self.refused: dict[str, dict[str, Any]] = {}  # errors no browser would resend
        self.resent: list[str] = []
        self.sent: dict[str, dict[str, Any]] = {}
        self.reconnects = 0
        self.closing = False
        self._reconnecting: asyncio.Task[None] | None = None
        self.ws: Any = None
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._up = asyncio.Event()

    async def connect(self, timeout: float = WAIT_S) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                ws = await websockets.connect(f"{self.url()}/ws/games/{self.game_id}",
                                              open_timeout=5)
                await ws.send(json.dumps({"type": "hello", "token": self.token,
                                          "since": self.last_seq or None}))
                while True:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if frame["type"] == "welcome":
                        break
                self.last_seq = max(self.last_seq, frame["seq"])
                self.ws = ws
                self._reader = asyncio.create_task(self._read(ws))
                self._up.set()
                return
            except (OSError, websockets.WebSocketException, TimeoutError) as exc:
                if time.monotonic() > deadline:
                    raise AssertionError(
                        f"{self.name} could not reconnect in {timeout:g} s") from exc
                await asyncio.sleep(0.2)

    async def _read(self, ws: Any) -> None:
        try:
            async for raw in ws:
                frame = json.loads(raw)
                if frame["type"] == "events":
                    for event in frame["events"]:
                        self.events[event["seq"]] = event
                        self.last_seq = max(self.last_seq, event["seq"])
                elif frame["type"] in ("ack", "error"):
                    waiter = self._waiting.pop(frame.get("ref"), None)
                    if waiter is not None and not waiter.done():
                        waiter.set_result(frame)
        except websockets.ConnectionClosed:
            pass
        finally:
            self._up.clear()
            for waiter in self._waiting.values():
                if not waiter.done():
                    waiter.set_exception(ConnectionError("socket closed"))
            self._waiting.clear()
            if not self.closing:
                self.reconnects += 1
                self._reconnecting = asyncio.get_running_loop().create_task(self.connect())

    async def act(self, ref: str, action: dict[str, Any], timeout: float = WAIT_S) -> None:
        """Until the action is acknowledged or refused for good, as the browser does."""
        deadline = time.monotonic() + timeout
        tries = 0
        self.sent[ref] = action
        while time.monotonic() < deadline:
            await asyncio.wait_for(self._up.wait(), max(0.1, deadline - time.monotonic()))
            waiter: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
            self._waiting[ref] = waiter
            if tries:
                self.resent.append(ref)
            tries += 1
            try:
                await self.ws.send(json.dumps({"type": "action", "ref": ref, "action": action}))
                answer = await asyncio.wait_for(waiter, 15)
            except (ConnectionError, websockets.ConnectionClosed, TimeoutError):
                continue  # the socket dropped: reconnect (the reader does), then resend
            if answer["type"] == "ack":
                self.acks[ref] = answer["seq"]
                return
            code = answer.get("code")
            if code in RESEND_CODES:
                await asyncio.sleep(min(2.0, 0.2 * tries))
                continue
            self.refused[ref] = answer
            return
        raise AssertionError(f"{self.name}: {ref} unanswered after {timeout:g} s")

    async def wait_for(self, seq: int, timeout: float = WAIT_S) -> None:
        deadline = time.monotonic() + timeout
        while self.last_seq < seq:
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name} is at seq {self.last_seq}, not {seq}")
            await asyncio.sleep(0.05)

    async def close(self) -> None:
        self.closing = True
        if self._reconnecting is not None:
            self._reconnecting.cancel()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader
        if self.ws is not None:
            await self.ws.close()


async def stream(seat: Seat, prefix: str, count: int, pause: float = 0.05) -> None:
    """`count` notes in a row, each waited for: a player acting through whatever happens."""
    for i in range(count):
        await seat.act(f"{prefix}-{i}", {"type": "note", "text": f"{prefix} note {i}"})
        await asyncio.sleep(pause)


def check_converged(log: list[dict[str, Any]], seats: list[Seat]) -> None:
    """Every acknowledged action is in the log once, with what was sent; nobody was refused;
    every socket holds the whole log."""
    by_seq = {e["seq"]: e for e in log}
    texts = [e["payload"].get("text") for e in log if e["type"] == "note_added"]
    for seat in seats:
        assert seat.refused == {}, f"{seat.name} was refused: {seat.refused}"
        assert set(seat.acks) == set(seat.sent), f"{seat.name}: an action never acknowledged"
        for ref, seq in seat.acks.items():
            text = seat.sent[ref]["text"]
            assert by_seq[seq]["type"] == "note_added", (seat.name, ref, by_seq[seq])
            assert by_seq[seq]["payload"]["text"] == text, (seat.name, ref, by_seq[seq])
            assert texts.count(text) == 1, f"{seat.name}: {ref} applied {texts.count(text)} times"
    last = max(by_seq)
    assert sorted(by_seq) == list(range(1, last + 1)), "the log has a gap"
    for seat in seats:
        assert seat.last_seq == last, f"{seat.name} is at {seat.last_seq}, the log at {last}"


def run(body: Callable[[], Any]) -> Any:
    return asyncio.run(body())


# --- the tests, in the order a self-hoster meets them -----------------------------------------


def test_the_stack_comes_up_healthy_with_the_images_guarantees(stack: Stack) -> None:
    assert httpx.get(stack.base + "/readyz", timeout=10).json() == {
        "ready": True, "database": "ok", "redis": "ok"}
    app = stack.ids("app")[0]
    config = json.loads(docker("inspect", app))[0]
    assert config["HostConfig"]["ReadonlyRootfs"] is True
    assert config["Config"]["Healthcheck"]["Test"][0] == "CMD"
    assert docker("exec", app, "id", "-u").strip() == "10001"
    # Read-only where the image's files are, writable where the app writes.
    assert subprocess.run(["docker", "exec", app, "sh", "-c", "touch /app/x"],
                          capture_output=True).returncode != 0
    for writable in ("/data", "/tmp"):
        docker("exec", app, "sh", "-c", f"touch {writable}/x && rm {writable}/x")
    # The published port is on loopback only when asked (WARFIELD_PORT=127.0.0.1:PORT).
    proxy = json.loads(docker("inspect", stack.ids("proxy")[0]))[0]
    bindings = proxy["HostConfig"]["PortBindings"]["80/tcp"]
    assert bindings == [{"HostIp": "127.0.0.1", "HostPort": str(stack.port)}]
    size = json.loads(docker("image", "inspect", IMAGE))[0]["Size"]
    stack.timings["image_mb"] = round(size / 1e6)


def test_each_game_is_served_by_one_replica_over_two_and_three(stack: Stack) -> None:
    def placement(ids: list[str], requests: int) -> dict[str, set[str]]:
        for game_id in ids:
            for _ in range(requests):
                httpx.get(f"{stack.base}/api/games/{game_id}", timeout=10).raise_for_status()
        log = stack.proxy_log()
        served: dict[str, set[str]] = {g: set() for g in ids}
        for line in log.splitlines():
            if "game=" in line and "upstream=" in line:
                game = line.split("game=", 1)[1].split()[0]
                if game in served:
                    served[game].add(line.split("upstream=", 1)[1].split()[0])
        return served

    for replicas in (2, 3):
        stack.compose("up", "-d", "--no-recreate", "--scale", f"app={replicas}")
        stack.wait_healthy(replicas, f"{replicas} replicas")
        addresses = {f"{stack.ip(c)}:8000" for c in stack.ids("app")}
        ids = [new_game(stack.base)["id"] for _ in range(6 * replicas)]
        # The proxy re-resolves `app` every 2 s: wait until it sends games to every replica.
        eventually(lambda ids=ids, addresses=addresses:  # type: ignore[misc]
                   addresses <= set().union(*placement(ids, 1).values()),
                   f"the proxy to use all {replicas} replicas", every=1.0)
        ids = [new_game(stack.base)["id"] for _ in range(6 * replicas)]
        served = placement(ids, 3)
        spread = {a: sum(1 for s in served.values() if s == {a}) for a in addresses}
        stack.timings[f"games_per_replica_of_{replicas}"] = sorted(spread.values())
        assert all(len(s) == 1 for s in served.values()), f"a game on two replicas: {served}"
        assert set().union(*served.values()) <= addresses
        assert sum(1 for n in spread.values() if n) >= 2, f"every game on one replica: {spread}"
    # Back to what the env file says (WARFIELD_REPLICAS=2): a plain `up -d` returns to it.
    stack.compose("up", "-d")
    stack.wait_healthy(2, "the stack back at WARFIELD_REPLICAS=2")


def test_kill_the_replica_holding_the_players_loses_no_acknowledged_action(stack: Stack) -> None:
    game = new_game(stack.base)
    holder = stack.replica_of(game["id"])
    other = next(c for c in stack.ids("app") if c != holder)
    other_url = f"ws://{stack.ip(other)}:8000"

    async def body() -> dict[str, float]:
        p1 = Seat("player 1 (proxy)", lambda: stack.ws_base, game["id"], game["p1"])
        p2 = Seat("player 2 (proxy)", lambda: stack.ws_base, game["id"], game["p2"])
        watcher = Seat("spectator on the other replica", lambda: other_url, game["id"], None)
        seats = [p1, p2, watcher]
        for seat in seats:
            await seat.connect()
        playing = [asyncio.create_task(stream(p1, "p1", 40)),
                   asyncio.create_task(stream(p2, "p2", 40))]
        while len(p1.acks) + len(p2.acks) < 20:
            await asyncio.sleep(0.02)
        acked_before = len(p1.acks) + len(p2.acks)
        docker("kill", "-s", "KILL", holder)
        killed = time.monotonic()
        await asyncio.gather(*playing)
        log = await asyncio.to_thread(game_log, stack.base, game["id"], game["p1"])
        for seat in seats:
            await seat.wait_for(max(e["seq"] for e in log))
        converged = time.monotonic() - killed
        check_converged(log, seats)
        assert p1.reconnects >= 1 and p2.reconnects >= 1, "the players' sockets were not cut"
        for seat in seats:
            await seat.close()
        return {"acked_before_kill": acked_before, "acked": len(p1.acks) + len(p2.acks),
                "resent": len(p1.resent) + len(p2.resent), "converged_s": round(converged, 2)}

    stack.timings["kill"] = run(body)
    # The killed replica comes back (restart: unless-stopped does not restart a killed
    # container: `up -d` does, as a host would after an outage).
    stack.compose("up", "-d")
    stack.wait_healthy(2, "the stack after the kill")


@pytest.mark.parametrize("service", ["db", "redis"])
def test_restarting_a_backing_service_mid_game_reaches_no_player_as_internal(
        stack: Stack, service: str) -> None:
    game = new_game(stack.base)
    holder = stack.replica_of(game["id"])
    other = next(c for c in stack.ids("app") if c != holder)
    other_url = f"ws://{stack.ip(other)}:8000"

    async def body() -> dict[str, Any]:
        p1 = Seat("player 1", lambda: stack.ws_base, game["id"], game["p1"])
        p2 = Seat("player 2", lambda: stack.ws_base, game["id"], game["p2"])
        # On the other replica: the events reach it through Redis.
        watcher = Seat("spectator", lambda: other_url, game["id"], None)
        seats = [p1, p2, watcher]
        for seat in seats:
            await seat.connect()
        playing = [asyncio.create_task(stream(p1, "p1", 40, 0.1)),
                   asyncio.create_task(stream(p2, "p2", 40, 0.1))]
        while len(p1.acks) + len(p2.acks) < 10:
            await asyncio.sleep(0.02)
        started = time.monotonic()
        await asyncio.to_thread(stack.compose, "restart", service)
        restarted = time.monotonic() - started
        await asyncio.gather(*playing)
        log = await asyncio.to_thread(game_log, stack.base, game["id"], game["p1"])
        for seat in seats:
            await seat.wait_for(max(e["seq"] for e in log))
        converged = time.monotonic() - started
        check_converged(log, seats)
        for seat in seats:
            await seat.close()
        return {"acked": len(p1.acks) + len(p2.acks), "resent": len(p1.resent) + len(p2.resent),
                "restart_s": round(restarted, 2), "converged_s": round(converged, 2)}

    stack.timings[f"restart_{service}"] = run(body)
    stack.wait_healthy(2, f"the stack after restarting {service}")


def test_a_rolling_upgrade_replaces_every_replica_while_the_game_goes_on(stack: Stack) -> None:
    new_image = f"{IMAGE.split(':')[0]}:generation-2"
    subprocess.run(["docker", "build", "-q", "-t", new_image, "-"], check=True, text=True,
                   capture_output=True, timeout=120,
                   input=f"FROM {IMAGE}\nLABEL {LABEL}.generation=2\n")
    new_id = docker("image", "inspect", "-f", "{{.Id}}", new_image).strip()
    docker("tag", new_image, IMAGE)
    game = new_game(stack.base)
    old = set(stack.ids("app"))

    async def body() -> dict[str, Any]:
        p1 = Seat("player 1", lambda: stack.ws_base, game["id"], game["p1"])
        p2 = Seat("player 2", lambda: stack.ws_base, game["id"], game["p2"])
        watcher = Seat("spectator", lambda: stack.ws_base, game["id"], None)
        seats = [p1, p2, watcher]
        for seat in seats:
            await seat.connect()
        playing = [asyncio.create_task(stream(p1, "p1", 60, 0.15)),
                   asyncio.create_task(stream(p2, "p2", 60, 0.15))]
        started = time.monotonic()
        rolled = await asyncio.to_thread(
            subprocess.run, ["sh", str(ROOT / "deploy" / "rolling-update.sh")],
            capture_output=True, text=True, timeout=600, cwd=ROOT,
            env={**stack.env, "COMPOSE": " ".join(stack.compose_cmd)})
        assert rolled.returncode == 0, rolled.stderr[-3000:]
        took = time.monotonic() - started
        await asyncio.gather(*playing)
        log = await asyncio.to_thread(game_log, stack.base, game["id"], game["p1"])
        for seat in seats:
            await seat.wait_for(max(e["seq"] for e in log))
        check_converged(log, seats)
        for seat in seats:
            await seat.close()
        return {"acked": len(p1.acks) + len(p2.acks), "resent": len(p1.resent) + len(p2.resent),
                "roll_s": round(took, 2)}

    stack.timings["rolling_upgrade"] = run(body)
    now = stack.ids("app")
    assert len(now) == 2 and not set(now) & old, "every replica was replaced"
    for container in now:
        assert docker("inspect", "-f", "{{.Image}}", container).strip() == new_id
    stack.wait_healthy(2, "the stack after the rolling upgrade")


def test_down_and_up_keep_the_games_and_leave_no_volume_behind(stack: Stack) -> None:
    game = new_game(stack.base)
    httpx.post(f"{stack.base}/api/games/{game['id']}/actions", timeout=10,
               headers={"Authorization": f"Bearer {game['p1']}"},
               json={"action": {"type": "note", "text": "before down"}}).raise_for_status()
    before = game_log(stack.base, game["id"], game["p1"])

    def volumes() -> set[str]:
        return set(docker("volume", "ls", "-q").split())

    volumes_before = volumes()
    stack.compose("down")
    stack.compose("up", "-d")
    stack.wait_healthy(2, "the stack after down and up")
    assert eventually(lambda: game_log(stack.base, game["id"], game["p1"]) == before,
                      "the game as it was before down")
    assert volumes() == volumes_before, "down + up left a volume behind"


def test_an_unwritable_data_directory_is_said_in_words(stack: Stack, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    data.chmod(0o755)  # root's: the image's user (10001) cannot write it
    done = subprocess.run(["docker", "run", "--rm", "-v", f"{data}:/data", IMAGE],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "/data (WARFIELD_DATA_DIR) is not writable by uid 10001" in done.stderr
    assert "chown -R 10001:10001" in done.stderr
    assert "Traceback" not in done.stderr
