"""`warfield serve | migrate | prune | bench | export | import | verify-dice`: host commands."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from server.config import Settings

GRACEFUL_SHUTDOWN_S = 10


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from server.api.app import create_app
    from server.api.ws import drain
    from server.gcpolicy import GcPolicy

    settings = Settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    app = create_app(settings)
    gc_policy = GcPolicy(settings.gc_freeze_s, settings.gc_reclaim_s)

    class Server(uvicorn.Server):
        """uvicorn, but on SIGTERM/SIGINT our sockets are drained first: the actions in flight
        finish (committed, acknowledged), then each socket closes with 1012 so its client
        reconnects; only then does uvicorn close what is left and run the lifespan shutdown."""

        async def startup(self, sockets: list[Any] | None = None) -> None:
            await super().startup(sockets)
            gc_policy.start()  # after the lifespan start-up: migrations run, app built

        async def shutdown(self, sockets: list[Any] | None = None) -> None:
            for listener in self.servers:
                listener.close()  # no new connections while draining
            await drain(app.state.connections, timeout=GRACEFUL_SHUTDOWN_S - 2)
            await gc_policy.stop()
            await super().shutdown(sockets)

    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        ws_max_size=settings.max_frame_bytes,
        ws_ping_interval=settings.idle_ping_s,
        ws_ping_timeout=settings.idle_ping_s,
        ws_per_message_deflate=False,
        log_level=settings.log_level,
        # X-Forwarded-For names the client only when the peer is one of these proxies; the
        # REST rate limit counts per client address (server/api/limits.py, docs/hosting.md).
        proxy_headers=True,
        forwarded_allow_ips=settings.forwarded_allow_ips,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
    )
    server = Server(config)
    server.run()
    return 0 if server.started else 3


def _migrate(_args: argparse.Namespace) -> int:
    from server.store import make_engine
    from server.store.migrate import upgrade

    settings = Settings()
    engine = make_engine(settings.effective_database_url)
    upgrade(engine)
    print(f"database at {engine.url.render_as_string(hide_password=True)} is up to date")
    return 0


def _prune(args: argparse.Namespace) -> int:
    """Delete finished and abandoned games older than the retention period (docs/hosting.md)."""
    import asyncio

    from server.games.service import GameService
    from server.store import EventStore, make_engine
    from server.store.migrate import upgrade

    settings = Settings()
    days = args.days if args.days is not None else settings.retention_days
    if not days or days <= 0:
        print("warfield prune: no retention period: pass --days N or set "
              "WARFIELD_RETENTION_DAYS", file=sys.stderr)
        return 2
    engine = make_engine(settings.effective_database_url)
    try:
        upgrade(engine)
        service = GameService(EventStore(engine))
        expired = asyncio.run(service.prune(days, dry_run=args.dry_run))
    finally:
        engine.dispose()
    for game in expired:
        print(f"{game.id}\t{game.reason}\tlast event {game.last_at:%Y-%m-%d %H:%M}")
    verb = "would delete" if args.dry_run else "deleted"
    print(f"{verb} {len(expired)} game(s) finished or idle for more than {days:g} days")
    return 0


def _bench(args: argparse.Namespace) -> int:
    if args.which == "fanout":
        from bench.ws_fanout import main as fanout_main

        return fanout_main(args.bench_args)
    if args.which == "many-games":
        from bench.many_games import main as many_games_main

        return many_games_main(args.bench_args)
    if args.which == "memory-creates":
        from bench.memory_creates import main as memory_main

        return memory_main(args.bench_args)
    if args.which == "geometry":
        from bench.geometry import main as bench_main
    else:
        print(f"unknown benchmark {args.which!r}", file=sys.stderr)
        return 2
    bench_main()
    return 0


# --- export / import / verify-dice (server/games/archive.py, docs/dice.md) -------------------


def _store() -> object:
    from server.store import EventStore, make_engine
    from server.store.migrate import upgrade

    engine = make_engine(Settings().effective_database_url)
    upgrade(engine)
    return EventStore(engine)


def _read_json(path: str) -> object:
    import json

    if path == "-":
        return json.load(sys.stdin)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _export(args: argparse.Namespace) -> int:
    import json

    from server.games.archive import ArchiveError, export_from_store

    try:
        doc = export_from_store(_store(), args.game_id, include_seed=args.include_seed)  # type: ignore[arg-type]
    except ArchiveError as exc:
        print(f"warfield export: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(doc, indent=1, ensure_ascii=False))
    if args.include_seed and not doc["over"]:
        print("warfield export: this file holds the dice seed of a running game; keep it as "
              "secret as the database", file=sys.stderr)
    return 0


def _import(args: argparse.Namespace) -> int:
    import json

    from server.games.archive import ArchiveError, import_into_store

    try:
        doc = _read_json(args.file)
        game_id, tokens = import_into_store(_store(), doc, as_new=args.as_new)  # type: ignore[arg-type]
    except (OSError, json.JSONDecodeError, ArchiveError) as exc:
        print(f"warfield import: {exc}", file=sys.stderr)
        return 1
    print(f"imported game {game_id}")
    for seat, token in sorted(tokens.items()):
        print(f"seat {seat} token: {token}")
    if tokens:
        print("tokens are not exported: hand each player their new seat token (keep them secret)")
    return 0


def _verify_dice(args: argparse.Namespace) -> int:
    import json

    from server.games.archive import verify_export

    try:
        doc = _read_json(args.file)
    except (OSError, json.JSONDecodeError) as exc:
        print(f"warfield verify-dice: cannot read {args.file}: {exc}", file=sys.stderr)
        return 1
    check = verify_export(doc)
    print(check.text())
    return check.exit_code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="warfield", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the server (migrates the database first)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.set_defaults(run=_serve)
    migrate = sub.add_parser("migrate", help="bring the database schema up to date")
    migrate.set_defaults(run=_migrate)
    prune = sub.add_parser(
        "prune",
        help="delete games finished, or without an event, for more than the retention period "
             "(their events, seats and action refs too)",
    )
    prune.add_argument("--days", type=float, default=None,
                       help="the retention period (default: WARFIELD_RETENTION_DAYS)")
    prune.add_argument("--dry-run", action="store_true",
                       help="list the games that would be deleted; delete nothing")
    prune.set_defaults(run=_prune)
    bench = sub.add_parser("bench", help="run a benchmark that prints JSON")
    bench.add_argument("which", choices=["geometry", "fanout", "many-games", "memory-creates"])
    bench.add_argument("bench_args", nargs=argparse.REMAINDER,
                       help="options of the benchmark (fanout, many-games, memory-creates: "
                            "--help)")
    bench.set_defaults(run=_bench)
    export = sub.add_parser("export", help="print a game as JSON (every event; host only)")
    export.add_argument("game_id")
    export.add_argument("--include-seed", action="store_true",
                        help="include the dice seed of a running game (to move it to another "
                             "server; the file is then secret)")
    export.set_defaults(run=_export)
    imp = sub.add_parser("import", help="restore an exported game; prints new seat tokens")
    imp.add_argument("file", help="an export file, or - for stdin")
    imp.add_argument("--as-new", action="store_true", help="give the game a new id")
    imp.set_defaults(run=_import)
    verify = sub.add_parser(
        "verify-dice",
        help="recompute every roll of an exported game from its revealed seed "
             "(exit 0 verified, 1 not, 2 seed not revealed yet)",
    )
    verify.add_argument("file", help="an export file, or - for stdin")
    verify.set_defaults(run=_verify_dice)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    return int(args.run(args))


if __name__ == "__main__":
    raise SystemExit(main())
