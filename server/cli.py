"""`warfield serve | migrate | prune | bench | export | import | verify-dice | report`: host
commands."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from server.config import Settings

if TYPE_CHECKING:
    from server.store import EventStore

GRACEFUL_SHUTDOWN_S = 10


class DataDirUnwritable(Exception):
    """WARFIELD_DATA_DIR cannot be written by this process: said in words, with the fix."""


def check_data_dir(data_dir: Path) -> None:
    """Create the data directory and prove this process can write a file in it.

    The image runs as uid 10001: a host directory bind-mounted on /data and owned by root
    would otherwise end in SQLite's bare "unable to open database file" traceback. Writing
    a probe file is the only test that is right for every cause (ownership, a read-only
    mount, a full disk, SELinux), where os.access is wrong for root and for ACLs."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        probe = data_dir / f".warfield-write-check-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        uid = os.getuid() if hasattr(os, "getuid") else "this user"
        raise DataDirUnwritable(
            f"the data directory {data_dir} (WARFIELD_DATA_DIR) is not writable by uid {uid}: "
            f"{exc.strerror or exc}. Give it to that user (for the Docker image, whose user is "
            f"10001: `chown -R 10001:10001 <the host directory mounted on {data_dir}>`), or "
            "point WARFIELD_DATA_DIR at a directory it can write."
        ) from exc


def _serve(args: argparse.Namespace) -> int:
    from server.api.app import create_app

    settings = Settings()
    try:
        check_data_dir(settings.data_dir)
    except DataDirUnwritable as exc:
        print(f"warfield serve: {exc}", file=sys.stderr)
        return 2
    return serve(create_app(settings), settings, args.host, args.port)


def serve(app: Any, settings: Settings, host: str, port: int) -> int:
    """Run `app` under uvicorn as `warfield serve` does (tests start a built app this way)."""
    import uvicorn

    from server.api.ws import drain
    from server.gcpolicy import GcPolicy

    gc_policy = GcPolicy(settings.gc_freeze, settings.gc_reclaim_s)

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
        host=host,
        port=port,
        ws_max_size=settings.ws_transport_max_bytes,  # above the app's limit: see Settings
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
    """The benchmarks live in `bench/` beside `server/`: a checkout installed with
    `pip install -e .` (what `make` does) has them; the server image does not."""
    modules = {"geometry": "bench.geometry", "fanout": "bench.ws_fanout",
               "many-games": "bench.many_games",
               "memory-creates": "bench.memory_creates", "replay": "bench.replay"}
    try:
        module = importlib.import_module(modules[args.which])
    except ModuleNotFoundError as exc:
        if exc.name not in ("bench", modules[args.which]):
            raise
        print("warfield bench: the benchmarks are not installed here; run them from a checkout "
              "of the source installed with `make` (or `pip install -e .`)", file=sys.stderr)
        return 2
    return int(module.main(args.bench_args))


# --- export / import / verify-dice (server/games/archive.py, docs/dice.md) -------------------


def _store() -> EventStore:
    from server.store import EventStore, make_engine
    from server.store.migrate import upgrade

    engine = make_engine(Settings().effective_database_url)
    upgrade(engine)
    return EventStore(engine)


def _read_json(path: str) -> object:
    """The JSON file at `path` ("-": stdin); `JsonInputError` when it is not JSON or nests
    deeper than any export does (server/data/json_input.py)."""
    from server.data.json_input import loads

    if path == "-":
        return loads(sys.stdin.read())
    with open(path, "rb") as f:
        return loads(f.read())


def _export(args: argparse.Namespace) -> int:
    import json

    from server.games.archive import ArchiveError, export_from_store

    try:
        doc = export_from_store(_store(), args.game_id, include_seed=args.include_seed)
    except ArchiveError as exc:
        print(f"warfield export: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(doc, indent=1, ensure_ascii=False))
    if args.include_seed and not doc["over"]:
        print("warfield export: this file holds the dice seed of a running game; keep it as "
              "secret as the database", file=sys.stderr)
    return 0


def _import(args: argparse.Namespace) -> int:
    from server.data.json_input import JsonInputError
    from server.games.archive import ArchiveError, import_into_store
    from server.games.service import new_token, token_hash

    invite = new_token()  # stored (hashed) with the game, in the import's one transaction
    try:
        doc = _read_json(args.file)
        store = _store()
        game_id, tokens = import_into_store(
            store, doc, as_new=args.as_new, invite_hash=token_hash(invite)
        )
    except (OSError, JsonInputError, ArchiveError) as exc:
        print(f"warfield import: {exc}", file=sys.stderr)
        return 1
    print(f"imported game {game_id}")
    for seat, token in sorted(tokens.items()):
        print(f"seat {seat} token: {token}")
    if tokens:
        print("tokens are not exported: hand each player their new seat token (keep them secret)")
    if 2 not in tokens:  # seat 2 still free: only the holder of the invite may take it
        print(f"invite for seat 2: {invite} (link: <your server>/games/{game_id}#join={invite})")
    return 0


def _give_invite(store: EventStore, game_id: str) -> str:
    """A new invite secret for the game's free seat, stored hashed (the old one stops
    working); ValueError when there is no such game or no free seat."""
    from server.games.service import new_token, token_hash

    if store.load_game(game_id) is None:
        raise ValueError(f"no game {game_id!r} in this database")
    if 2 in store.seat_hashes(game_id):
        raise ValueError(f"both seats of game {game_id!r} are taken; an invite would open nothing")
    invite = new_token()
    store.set_invite_hash(game_id, token_hash(invite))
    return invite


def _invite(args: argparse.Namespace) -> int:
    try:
        invite = _give_invite(_store(), args.game_id)
    except ValueError as exc:
        print(f"warfield invite: {exc}", file=sys.stderr)
        return 1
    print(f"invite: {invite}")
    print(f"invite link: <your server>/games/{args.game_id}#join={invite}")
    print("send it to the opponent only; it replaces any earlier invite of this game")
    return 0


def _verify_dice(args: argparse.Namespace) -> int:
    from server.data.json_input import JsonInputError
    from server.games.archive import verify_export

    try:
        doc = _read_json(args.file)
    except (OSError, JsonInputError) as exc:
        print(f"warfield verify-dice: cannot read {args.file}: {exc}", file=sys.stderr)
        return 1
    check = verify_export(doc)
    print(check.text())
    return check.exit_code


def _report(args: argparse.Namespace) -> int:
    """A stored game's battle report as a spectator (or `--seat N`) may see it."""
    from server.games import archive, report
    from server.games.replay import Replay

    store: Any = _store()
    record = store.load_game(args.game_id)
    if record is None:
        print(f"warfield report: no game {args.game_id!r} in this database", file=sys.stderr)
        return 1
    events = store.events(args.game_id)
    replay = Replay(events)
    proof = archive.dice_proof(record.dice_commitment, record.dice_seed, events, args.seat)
    built = report.build_report(record.id, replay, args.seat, proof)
    text = report.to_html(built) if args.format == "html" else report.to_markdown(built)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


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
    bench.add_argument("which", choices=["geometry", "fanout", "many-games", "memory-creates",
                                         "replay"])
    bench.add_argument("bench_args", nargs=argparse.REMAINDER,
                       help="options of the benchmark (fanout, many-games, memory-creates, "
                            "replay: --help)")
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
    invite = sub.add_parser(
        "invite",
        help="give a game a new invite secret for its free seat 2 and print it (the old "
             "invite stops working; games made before invites existed need one to be safe)",
    )
    invite.add_argument("game_id")
    invite.set_defaults(run=_invite)
    verify = sub.add_parser(
        "verify-dice",
        help="recompute every roll of an exported game from its revealed seed "
             "(exit 0 verified, 1 not, 2 seed not revealed yet)",
    )
    verify.add_argument("file", help="an export file, or - for stdin")
    verify.set_defaults(run=_verify_dice)
    rep = sub.add_parser(
        "report",
        help="print a game's battle report (Markdown, or HTML) as a spectator sees it",
    )
    rep.add_argument("game_id")
    rep.add_argument("--format", choices=["markdown", "html"], default="markdown")
    rep.add_argument("--seat", type=int, choices=[1, 2], default=None,
                     help="the report as this seat sees it (its hidden events included)")
    rep.add_argument("-o", "--output", default=None, help="write to this file, not stdout")
    rep.set_defaults(run=_report)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    return int(args.run(args))


if __name__ == "__main__":
    raise SystemExit(main())
