"""Browser tests: a real `warfield serve` in a subprocess and Debian's headless Chromium.

The server runs on a free port with its own data directory; Playwright (Python) drives
/usr/bin/chromium. `playwright install` is never used: `chromium_path()` skips (or fails under
CI=true) when the browser is missing.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import chromium_path, require
from tests.e2e.waits import WAIT_MS

pytestmark = pytest.mark.e2e

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _warfield_command() -> list[str]:
    """`python -m server.cli` run in this checkout: the server (and its static files) under
    test are this tree's, even when the venv's `warfield` script points at another checkout."""
    return [sys.executable, "-m", "server.cli"]


def _wait_ready(url: str, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"warfield serve exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=1) as res:
                if res.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("warfield serve did not become ready")


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a fresh server with its own SQLite database."""
    data = tmp_path_factory.mktemp("warfield-data")
    port = _free_port()
    # The REST rate limit is lifted: some tests set up big tables with hundreds of REST actions.
    env = {**os.environ, "WARFIELD_DATA_DIR": str(data), "WARFIELD_LOG_LEVEL": "warning",
           "WARFIELD_REST_RATE_PER_MIN": "1000000000", "WARFIELD_REST_RATE_BURST": "1000000000"}
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    log = (data / "server.log").open("wb")
    proc = subprocess.Popen(
        [*_warfield_command(), "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(base, proc)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    path = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - dev extra not installed
        require(False, "browser tests need the playwright package (pip install -e '.[dev]')")
        raise
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@dataclass
class Pages:
    """Opens pages in separate browser contexts (separate localStorage, like separate people)
    and records every console error and uncaught exception."""

    browser: Any
    errors: list[str] = field(default_factory=list)
    contexts: list[Any] = field(default_factory=list)

    def open(self, name: str, url: str, width: int = 1280, height: int = 800) -> Any:
        ctx = self.browser.new_context(viewport={"width": width, "height": height})
        ctx.set_default_timeout(WAIT_MS)  # every wait of the page's own (tests/e2e/waits.py)
        self.contexts.append(ctx)
        page = ctx.new_page()
        page.on("console", lambda m: self._console(name, m))
        page.on("pageerror", lambda e: self.errors.append(f"{name}: uncaught {e}"))
        page.goto(url)
        return page

    def _console(self, name: str, message: Any) -> None:
        if message.type == "error":
            self.errors.append(f"{name}: {message.text}")

    def close(self) -> None:
        for ctx in self.contexts:
            ctx.close()


@pytest.fixture
def pages(browser: Any) -> Iterator[Pages]:
    p = Pages(browser)
    try:
        yield p
    finally:
        p.close()
