"""Shared test fixtures and the skip policy for tests that need outside services.

Tests of the PostgreSQL and Redis paths and the browser tests skip with a clear reason on a
machine without those services; under CI (`CI=true`) such a skip is turned into a failure.
"""

from __future__ import annotations

import os
import shutil

import pytest

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def require(condition: bool, reason: str) -> None:
    """Skip the calling test with `reason` unless `condition`; under CI fail instead."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required under CI=true: {reason}")
    pytest.skip(reason)


def postgres_url() -> str:
    url = os.environ.get("WARFIELD_TEST_DATABASE_URL", "")
    require(bool(url), "PostgreSQL tests need WARFIELD_TEST_DATABASE_URL (set by .ci/run)")
    return url


def redis_url() -> str:
    url = os.environ.get("WARFIELD_TEST_REDIS_URL", "")
    require(bool(url), "Redis tests need WARFIELD_TEST_REDIS_URL (set by .ci/run)")
    return url


def chromium_path() -> str:
    path = os.environ.get("WARFIELD_CHROMIUM", "/usr/bin/chromium")
    found = shutil.which(path) or (path if os.path.exists(path) else None)
    require(found is not None, f"browser tests need Debian's chromium at {path}")
    return str(found)


# --- databases -----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def postgres_database() -> object:
    """A fresh PostgreSQL database for this test session (dropped afterwards)."""
    import uuid

    import sqlalchemy as sa

    base = postgres_url()
    name = f"warfield_test_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except Exception as exc:  # noqa: BLE001 - any failure to reach the server
        require(False, f"PostgreSQL at {base} is not reachable: {exc}")
    url = sa.make_url(base).set(database=name).render_as_string(hide_password=False)
    yield url
    with admin.connect() as conn:
        conn.exec_driver_sql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
            (name,),
        )
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
    admin.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: object) -> str:
    """Each store/service test runs on both SQLite (a file) and PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/warfield.db"
    url: str = request.getfixturevalue("postgres_database")
    return url


@pytest.fixture
def settings(database_url: str, tmp_path: object) -> object:
    from server.config import Settings

    return Settings(DATABASE_URL=database_url, WARFIELD_DATA_DIR=str(tmp_path))


@pytest.fixture
def client(settings: object) -> object:
    """A TestClient of a fresh app on the parametrised database."""
    from fastapi.testclient import TestClient

    from server.api.app import create_app

    with TestClient(create_app(settings)) as test_client:  # type: ignore[arg-type]
        yield test_client


# --- a real server process -------------------------------------------------------------------


SERVE = ("-m", "server.cli", "serve")


class ServerProcess:
    """`warfield serve` in a subprocess on a free port (what `make run` starts); `command`,
    the arguments after `python`, runs another module that takes `--host` and `--port`."""

    def __init__(
        self, env: dict[str, str], data_dir: str, command: tuple[str, ...] = SERVE
    ) -> None:
        import socket
        import subprocess
        import sys

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        full_env = {**os.environ, "WARFIELD_DATA_DIR": data_dir, **env}
        self.log_path = os.path.join(data_dir, "server.log")
        os.makedirs(data_dir, exist_ok=True)
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, *command, "--host", "127.0.0.1", "--port", str(self.port)],
            env=full_env, stdout=self._log, stderr=subprocess.STDOUT,
        )
        self.wait_ready()

    def wait_ready(self, timeout: float = 60.0) -> None:
        import time
        import urllib.request

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log()}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"server did not start: {self.log()}")

    def log(self) -> str:
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")[-4000:]

    def stop(self, sig: int | None = None) -> None:
        import signal

        if self.proc.poll() is None:
            self.proc.send_signal(sig or signal.SIGTERM)
            try:
                self.proc.wait(15)
            except Exception:  # noqa: BLE001
                self.proc.kill()
                self.proc.wait(5)
        self._log.close()


@pytest.fixture
def serve(tmp_path: object) -> object:
    """Factory: start `warfield serve` processes; all are stopped after the test."""
    started: list[ServerProcess] = []

    def start(
        env: dict[str, str] | None = None,
        data_dir: str | None = None,
        command: tuple[str, ...] = SERVE,
    ) -> ServerProcess:
        server = ServerProcess(env or {}, data_dir or str(tmp_path), command)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
