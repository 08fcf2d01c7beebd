"""A private redis-server for tests that kill and restart Redis (never the shared one)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time

import pytest

from tests.conftest import require


class OwnRedis:
    """`redis-server` on a free port, no persistence; `kill()` and `start()` at will."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--daemonize", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"redis-server on port {self.port} did not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        self.proc = None


@pytest.fixture
def own_redis() -> object:
    binary = shutil.which("redis-server")
    require(binary is not None, "the Redis restart tests need the redis-server binary")
    server = OwnRedis(str(binary))
    server.start()
    yield server
    server.kill()
