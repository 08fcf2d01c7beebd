"""`warfield serve | migrate | bench` — the host's commands."""

from __future__ import annotations

import argparse
import logging
import sys

from server.config import Settings


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from server.api.app import create_app

    settings = Settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    app = create_app(settings)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        ws_max_size=settings.max_frame_bytes,
        ws_ping_interval=settings.idle_ping_s,
        ws_ping_timeout=settings.idle_ping_s,
        ws_per_message_deflate=False,
        log_level=settings.log_level,
        proxy_headers=True,
        timeout_graceful_shutdown=10,
    )
    return 0


def _migrate(_args: argparse.Namespace) -> int:
    from server.store import make_engine
    from server.store.migrate import upgrade

    settings = Settings()
    engine = make_engine(settings.effective_database_url)
    upgrade(engine)
    print(f"database at {engine.url.render_as_string(hide_password=True)} is up to date")
    return 0


def _bench(args: argparse.Namespace) -> int:
    if args.which == "geometry":
        from bench.geometry import main as bench_main
    else:
        print(f"unknown benchmark {args.which!r}", file=sys.stderr)
        return 2
    bench_main()
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
    bench = sub.add_parser("bench", help="run a benchmark that prints JSON")
    bench.add_argument("which", choices=["geometry"])
    bench.set_defaults(run=_bench)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    return int(args.run(args))


if __name__ == "__main__":
    raise SystemExit(main())
