"""Replay benchmark: `python -m bench.replay` (or `warfield bench replay`).

Plays the scripted t9a battle of tests/api/test_t9a_battle_report.py (Gremlins from Ambush,
shooting, a charge, combat, Supernal losses; then every phase ended until the game is over)
in an in-process app, or reads a `warfield export` file (`--export FILE`), and prints one JSON
object: the events, the one forward fold that builds the checkpoints, and the cost of a scrub
(the state at a seq, `Replay.state_at`, plus the viewer's projection the REST answer carries)
over every seq in a shuffled order, in microseconds, median and p99, for several checkpoint
spacings, against folding the prefix from scratch (`core.replay(log[:seq])`) each time.
Needs a checkout (the scripted battle lives in tests/).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from server.games.replay import CHECKPOINT_EVERY, Replay
from server.rules import core
from server.rules.core import Event


def scripted_battle_log() -> list[Event]:
    from fastapi.testclient import TestClient

    from server.api.app import create_app
    from server.config import Settings
    from tests.api import test_t9a_battle_report as scripted
    from tests.api.helpers import auth, new_game

    made: dict[str, Any] = {}

    def remember(client: Any, system: str = "t9a", **extra: Any) -> dict[str, Any]:
        made.update(new_game(client, system, **extra))
        return made

    with tempfile.TemporaryDirectory() as data:
        settings = Settings(DATABASE_URL=f"sqlite:///{data}/bench.db",
                            WARFIELD_DATA_DIR=Path(data))
        with TestClient(create_app(settings)) as client:
            scripted.new_game = remember  # type: ignore[assignment]
            scripted.play_once(client)
            gid = made["id"]
            for _ in range(400):
                state = client.get(f"/api/games/{gid}").json()["state"]
                if state["over"]:
                    break
                token = made["p1"] if state["active_player"] == 1 else made["p2"]
                client.post(f"/api/games/{gid}/actions", headers=auth(token),
                            json={"action": {"type": "end_phase"}})
            service = client.app.state.service  # type: ignore[attr-defined]
            return list(service.store.events(gid))


def export_log(path: str) -> list[Event]:
    doc = json.loads(Path(path).read_text())
    return [Event(e["type"], e["payload"], e["actor"], e["visibility"], e["seq"])
            for e in doc["events"]]


def project(replay: Replay, seq: int) -> dict[str, Any]:
    """A scrub as the REST answer makes it: the state at `seq`, projected for a spectator."""
    return replay.state_at(seq).to_json(None)


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter_ns()
    fn()
    return (time.perf_counter_ns() - start) / 1000


def summary(samples: Sequence[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_us": round(statistics.median(ordered), 1),
        "p99_us": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 1),
        "max_us": round(ordered[-1], 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="warfield bench replay", description=__doc__)
    parser.add_argument("--export", help="a `warfield export` file instead of the battle")
    parser.add_argument("--every", type=int, nargs="*", default=[8, CHECKPOINT_EVERY, 128],
                        help="checkpoint spacings to measure")
    args = parser.parse_args(argv)
    log = export_log(args.export) if args.export else scripted_battle_log()
    order = list(range(len(log) + 1))
    random.Random(20).shuffle(order)
    out: dict[str, Any] = {
        "bench": "replay",
        "game": args.export or "scripted t9a battle (tests/api/test_t9a_battle_report.py)",
        "events": len(log),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "spacings": {},
    }
    for every in args.every:
        build = timed(partial(Replay, log, every=every))
        replay = Replay(log, every=every)
        before = replay.folds
        scrubs = [timed(partial(replay.state_at, s)) for s in order]
        projected = [timed(partial(project, replay, s)) for s in order]
        out["spacings"][str(every)] = {
            "forward_fold_ms": round(build / 1000, 2),
            "checkpoints": len(log) // every + 1,
            "scrub": summary(scrubs),
            "scrub_with_projection": summary(projected),
            "events_folded_per_scrub": round((replay.folds - before) / (2 * len(order)), 1),
        }
    from_scratch = [timed(partial(core.replay, log[:s])) for s in order]
    out["from_scratch"] = summary(from_scratch)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
