"""Warfield and boardgame.io, back to back: the fan-out protocol run alternately against each
configuration, repeated, then the median of each figure per system and K.

    python -m bench.side_by_side [--configs sqlite bgio] [--k 1 10 100] [--repeat 3]

Each run is one `bench.ws_fanout` line (printed as it comes). On a shared machine the load
moves under a run, so the configurations alternate within every repetition and the summary
lines take the median over repetitions: {"summary": true, "K": 100, "config": "sqlite",
"runs": 3, "p50_ms": ..., "p99_ms": ..., ...}, then for each K the ratio of p50, p99 and
server CPU per move of the first configuration to the last ("vs": "bgio").
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Sequence
from typing import Any

from bench.harness import CONFIGS
from bench.ws_fanout import run_one

FIGURES = ("p50_ms", "p95_ms", "p99_ms", "moves_per_s", "server_cpu_ms_per_move",
           "server_rss_mb")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.side_by_side", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", nargs="+", choices=CONFIGS, default=["sqlite", "bgio"])
    parser.add_argument("--k", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--moves", type=int, default=None)
    args = parser.parse_args(argv)
    runs: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for _ in range(args.repeat):
        for k in args.k:
            for config in args.configs:
                result = run_one(config, k, args.moves)
                runs.setdefault((k, config), []).append(result)
                print(json.dumps(result), flush=True)
    for k in args.k:
        medians: dict[str, dict[str, float]] = {}
        for config in args.configs:
            results = runs[(k, config)]
            medians[config] = {f: round(statistics.median(r[f] for r in results), 2)
                               for f in FIGURES}
            print(json.dumps({"summary": True, "K": k, "config": config,
                              "system": results[0]["system"], "runs": len(results),
                              **medians[config]}), flush=True)
        first, last = args.configs[0], args.configs[-1]
        if first != last:
            print(json.dumps({
                "summary": True, "K": k, "config": first, "vs": last,
                "p50_ratio": round(medians[first]["p50_ms"] / medians[last]["p50_ms"], 2),
                "p99_ratio": round(medians[first]["p99_ms"] / medians[last]["p99_ms"], 2),
                "cpu_ratio": round(medians[first]["server_cpu_ms_per_move"]
                                   / medians[last]["server_cpu_ms_per_move"], 2),
            }), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
