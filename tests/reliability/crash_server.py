"""`warfield serve` with a crash switch, for tests/reliability/test_crash.py only.

    python -m tests.reliability.crash_server --after N --host H --port P

serves the same app as `warfield serve` (same settings from the environment, same uvicorn
setup, `server.cli.serve`), built with an event store that ends the process with exit status
137, as if `kill -9`ed, right after its N-th action commits: the transaction is durable, and
nothing has been folded, acknowledged or published. The switch lives here, in the tests, so
the server's own code has none.
"""

from __future__ import annotations

import argparse
import os
import threading
from collections.abc import Sequence

from sqlalchemy.engine import Engine

from server.api.app import create_app
from server.cli import serve
from server.config import Settings
from server.rules.core import Event
from server.store import EventStore
from server.store.repository import AppendRequest

EXIT_KILLED = 137  # what a shell reports for a process ended by SIGKILL


class CrashAfterCommit(EventStore):
    """An event store whose `after`-th successful append (an action's commit: the service
    appends nothing else) ends the process before it returns: the transaction that held it
    (with the other games' appends of its group commit, server/store/group.py) is durable,
    and nobody was told of any of them."""

    def __init__(self, engine: Engine, after: int) -> None:
        super().__init__(engine)
        self.after = after
        self.commits = 0
        self._count = threading.Lock()  # (SQLite's appends run in worker threads)

    def append_many(self, requests: Sequence[AppendRequest]) -> list[list[Event] | Exception]:
        # (`append` is `append_many` of one)
        return self._counted(super().append_many(requests))

    async def append_many_async(
        self, requests: Sequence[AppendRequest]
    ) -> list[list[Event] | Exception]:
        # (PostgreSQL's commits, on the event loop: server/store/group.py)
        return self._counted(await super().append_many_async(requests))

    def _counted(self, results: list[list[Event] | Exception]) -> list[list[Event] | Exception]:
        with self._count:
            before = self.commits
            self.commits += sum(not isinstance(r, Exception) for r in results)
            if before < self.after <= self.commits:
                os._exit(EXIT_KILLED)
        return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.reliability.crash_server")
    parser.add_argument("--after", type=int, required=True, help="die after this many commits")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    settings = Settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)

    def store(engine: Engine) -> EventStore:
        return CrashAfterCommit(engine, args.after)

    return serve(create_app(settings, store_factory=store), settings, args.host, args.port)


if __name__ == "__main__":
    raise SystemExit(main())
