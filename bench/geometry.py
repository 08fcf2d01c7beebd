"""Geometry benchmark: `python -m bench.geometry` (or `warfield bench geometry`).

Builds a 72 x 48 in table with 20 terrain features and 40 units (600 models) and prints one
JSON object with the median and p99 time in microseconds of each operation the server runs
while a unit is dragged: building a 40-model unit's footprint, distance between two units,
line of sight unit to unit, move legality checks, an ambush placement check and an ambush
placement search. Every call is timed on its own with perf_counter_ns over varied inputs.
Targets (issue 3): checks under 200 us median, line of sight under 500 us p99, search under
20 ms.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import shapely

from server.geometry import (
    Arc,
    Battlefield,
    Height,
    Placement,
    RankedFormation,
    RectBase,
    Table,
    Terrain,
    TerrainKind,
    arcs_of_point,
    check_ambush,
    distance,
    find_ambush_placement,
    footprint,
    layout,
    line_of_sight,
    move_straight,
    wheel,
)
from server.geometry.footprint import Footprint

SEED = 20240601
KINDS = [
    TerrainKind.IMPASSABLE,
    TerrainKind.BLOCKS_LOS,
    TerrainKind.COVER,
    TerrainKind.DANGEROUS,
    TerrainKind.OPEN,
]


def build_table(rng: np.random.Generator) -> Table:
    """20 terrain features and 40 units of 10 to 20 models (600 in all), none overlapping."""
    bf = Battlefield(72, 48)
    terrain: list[Terrain] = []
    for i in range(20):
        cx, cy = rng.uniform(8, 64), rng.uniform(8, 40)
        r = rng.uniform(1.5, 3.0)
        k = int(rng.integers(5, 9))
        angles = np.sort(rng.uniform(0, 2 * math.pi, k))
        pts = tuple(
            (float(cx + r * math.cos(a)), float(cy + r * math.sin(a))) for a in angles
        )
        terrain.append(Terrain(f"t{i}", pts, KINDS[i % len(KINDS)], Height.INFINITE))
    blocked = shapely.union_all([t.polygon for t in terrain if t.impassable])
    sizes = [10] * 10 + [15] * 20 + [20] * 10  # 600 models
    units: dict[str, Footprint] = {}
    taken: list[Any] = []
    for i, n in enumerate(sizes):
        base = RectBase(20, 20) if i % 2 else RectBase(25, 25)
        formation = RankedFormation(base, n, 5)
        for _ in range(2000):
            facing = 0.0 if i % 2 == 0 else 180.0
            facing += float(rng.uniform(-30, 30))
            p = Placement(float(rng.uniform(4, 68)), float(rng.uniform(4, 44)), facing)
            fp = footprint(formation, p)
            if not bf.contains_bounds(fp.boundary.bounds):
                continue
            if shapely.dwithin(fp.boundary, blocked, 1.0):
                continue
            if any(shapely.dwithin(fp.boundary, g, 1.5) for g in taken):
                continue
            units[f"u{i}"] = fp
            taken.append(fp.boundary)
            break
        else:
            raise RuntimeError("could not place all units; change SEED")
    return Table(bf, tuple(terrain), units)


def timed(fn: Callable[[int], object], n: int) -> dict[str, float]:
    """Median and p99 of n calls fn(i), in microseconds."""
    for i in range(min(n, 20)):  # warm up
        fn(i)
    samples = []
    for i in range(n):
        t0 = time.perf_counter_ns()
        fn(i)
        samples.append((time.perf_counter_ns() - t0) / 1000.0)
    samples.sort()
    p99 = samples[min(len(samples) - 1, math.ceil(0.99 * len(samples)) - 1)]
    return {
        "median_us": round(statistics.median(samples), 1),
        "p99_us": round(p99, 1),
        "n": n,
    }


def run(iterations: int = 2000, search_iterations: int = 200) -> dict[str, Any]:
    rng = np.random.default_rng(SEED)
    t0 = time.perf_counter_ns()
    table = build_table(rng)
    _ = table.index
    index_us = (time.perf_counter_ns() - t0) / 1000.0
    ids = sorted(table.units)
    t1 = time.perf_counter_ns()
    fresh = Table(table.battlefield, table.terrain, table.units)
    _ = fresh.index
    rebuild_us = (time.perf_counter_ns() - t1) / 1000.0

    forty = RankedFormation(RectBase(20, 20), 40, 8)
    spots = [
        Placement(float(x), float(y), float(f))
        for x, y, f in zip(
            rng.uniform(10, 62, 512), rng.uniform(10, 38, 512), rng.uniform(0, 360, 512),
            strict=True,
        )
    ]
    pairs = [tuple(rng.choice(len(ids), 2, replace=False)) for _ in range(512)]
    all_pairs = [(a, b) for a in range(len(ids)) for b in range(len(ids)) if a != b]
    facing_pairs = [
        (a, b)
        for a, b in all_pairs
        if Arc.FRONT in arcs_of_point(table.units[ids[a]], table.units[ids[b]].centre)
    ]
    facing_pairs = [facing_pairs[int(k)] for k in rng.permutation(len(facing_pairs))[:512]]
    moves = [(float(rng.uniform(-3, 10)), float(rng.uniform(-2, 2))) for _ in range(512)]
    turns = [float(rng.uniform(-90, 90)) for _ in range(512)]

    def cold_footprint(i: int) -> object:
        layout.cache_clear()
        return footprint(forty, spots[i % 512])

    def with_models(i: int) -> object:
        return footprint(forty, spots[i % 512]).model_polygons

    # Ambush: points on the four edges, a Gremlin-sized skirmish unit and a 20-model block.
    gremlins = RankedFormation.skirmish(RectBase(40, 40), 4, 2)
    block = RankedFormation(RectBase(25, 25), 10, 5)
    edge_cases: list[tuple[tuple[float, float], Placement, RankedFormation]] = []
    for k in range(256):
        formation = gremlins if k % 2 == 0 else block
        side = k % 4
        t = float(rng.uniform(6, 42 if side % 2 else 66))
        off = float(rng.uniform(3.5, 5.0))
        if side == 0:
            pt, req = (t, 0.0), Placement(t + rng.uniform(-2, 2), off, 0.0)
        elif side == 1:
            pt, req = (72.0, t), Placement(72 - off, t + rng.uniform(-2, 2), 90.0)
        elif side == 2:
            pt, req = (t, 48.0), Placement(t + rng.uniform(-2, 2), 48 - off, 180.0)
        else:
            pt, req = (0.0, t), Placement(off, t + rng.uniform(-2, 2), 270.0)
        edge_cases.append((pt, req, formation))

    ops: dict[str, Callable[[int], object]] = {
        "footprint_40_models": lambda i: footprint(forty, spots[i % 512]),
        "footprint_40_models_cold_layout": cold_footprint,
        "footprint_40_models_with_model_polygons": with_models,
        "distance_unit_to_unit": lambda i: distance(
            table.units[ids[pairs[i % 512][0]]], table.units[ids[pairs[i % 512][1]]]
        ),
        "line_of_sight_unit_to_unit": lambda i: line_of_sight(
            table, ids[pairs[i % 512][0]], ids[pairs[i % 512][1]]
        ),
        "line_of_sight_target_in_front_arc": lambda i: line_of_sight(
            table,
            ids[facing_pairs[i % len(facing_pairs)][0]],
            ids[facing_pairs[i % len(facing_pairs)][1]],
        ),
        "move_check_straight": lambda i: move_straight(
            table, ids[i % len(ids)], moves[i % 512][0], moves[i % 512][1]
        ),
        "move_check_wheel": lambda i: wheel(table, ids[i % len(ids)], turns[i % 512]),
        "ambush_placement_check": lambda i: check_ambush(
            table, "arriving", edge_cases[i % 256][2], edge_cases[i % 256][1],
            edge_cases[i % 256][0],
        ),
    }
    results: dict[str, Any] = {name: timed(fn, iterations) for name, fn in ops.items()}
    found = [0]

    def search(i: int) -> object:
        pt, req, formation = edge_cases[i % 256]
        p = find_ambush_placement(table, "arriving", formation, pt, req)
        found[0] += p is not None
        return p

    results["ambush_placement_search"] = timed(search, search_iterations)

    los_visible = sum(line_of_sight(table, ids[a], ids[b]).visible for a, b in pairs[:200])
    los_facing_visible = sum(
        line_of_sight(table, ids[a], ids[b]).visible for a, b in facing_pairs[:200]
    )
    legal = sum(move_straight(table, ids[i % len(ids)], *moves[i]).legal for i in range(200))
    return {
        "benchmark": "geometry",
        "table": {
            "size_in": [72, 48],
            "terrain": len(table.terrain),
            "units": len(table.units),
            "models": sum(len(fp.model_ranks) for fp in table.units.values()),
            "index_build_us": round(rebuild_us, 1),
            "scene_build_us": round(index_us, 1),
        },
        "ops": results,
        "mix": {
            "los_visible_of_200_random_pairs": int(los_visible),
            "los_visible_of_200_in_front_arc": int(los_facing_visible),
            "straight_moves_legal_of_200": int(legal),
            "searches_found_of_warmup_and_runs": int(found[0]),
        },
        "env": {
            "python": platform.python_version(),
            "shapely": shapely.__version__,
            "geos": ".".join(map(str, shapely.geos_version)),
            "numpy": np.__version__,
            "cpus": os.cpu_count(),
            "load_average_1m": round(os.getloadavg()[0], 2),
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print one JSON object."""
    parser = argparse.ArgumentParser(prog="warfield bench geometry", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=2000,
                        help="timed calls per operation (default 2000)")
    parser.add_argument("--search-iterations", type=int, default=200,
                        help="timed ambush placement searches (default 200)")
    args = parser.parse_args(argv)
    if args.iterations < 1 or args.search_iterations < 1:
        parser.error("--iterations and --search-iterations must be at least 1")
    print(json.dumps(run(args.iterations, args.search_iterations)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
