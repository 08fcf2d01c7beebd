"""The FastAPI application: REST, the websocket, the browser client, health."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict
from sqlalchemy.engine import Engine
from starlette.exceptions import HTTPException as StarletteHTTPException

from server import __version__
from server.api import ws
from server.api.errors import (
    STORE_FAULTS,
    http_error_handler,
    rule_error_handler,
    store_error_handler,
    validation_error_handler,
)
from server.api.limits import BodySizeLimit, JsonNestingLimit, RestRateLimit
from server.api.routes import archive, games, questions, replay, report, systems
from server.config import Settings
from server.games.service import GameService
from server.hub import LocalHub
from server.metrics import Metrics, configure_logging
from server.rules.core import RuleError
from server.store import EventStore, make_engine
from server.store.migrate import upgrade

log = logging.getLogger("warfield")
LIMIT_RESPONSES = {
    "413": "Request body over the size limit (`too_large`)",
    "429": "Too many requests from this address (`rate_limited`, with `Retry-After`)",
}


async def prune_periodically(service: GameService, settings: Settings) -> None:
    """With WARFIELD_RETENTION_DAYS set: delete expired games now and every interval after."""
    assert settings.retention_days
    while True:
        try:
            pruned = await service.prune(settings.retention_days)
            if pruned:
                log.info("pruned %d expired games", len(pruned))
        except Exception:  # noqa: BLE001 - a failed round (database away) waits for the next
            log.exception("pruning expired games failed")
        await asyncio.sleep(settings.prune_interval_s)
STATIC_DIR = Path(__file__).resolve().parents[2] / "static"


def _static_dir() -> Path:
    return STATIC_DIR if STATIC_DIR.exists() else Path.cwd() / "static"


class _Warfield(FastAPI):
    def openapi(self) -> dict[str, Any]:
        """The generated schema, plus what the limits of `create_app` may answer on any POST
        (added once, when the schema is first built)."""
        fresh = self.openapi_schema is None
        schema = super().openapi()
        if fresh:
            error_body = {"$ref": "#/components/schemas/ErrorBody"}
            for path, operations in schema["paths"].items():
                post = operations.get("post")
                if post is None or not path.startswith("/api/"):
                    continue
                for status, what in LIMIT_RESPONSES.items():
                    post["responses"].setdefault(status, {
                        "description": what,
                        "content": {"application/json": {"schema": error_body}},
                    })
        return schema


def create_app(
    settings: Settings | None = None,
    *,
    store_factory: Callable[[Engine], EventStore] = EventStore,
) -> FastAPI:
    """A Warfield app; migrations run and the hub starts when it starts (lifespan).

    `store_factory` builds the event store on the engine: `EventStore` itself, or in tests a
    subclass that observes or breaks it (tests/reliability/crash_server.py kills the process
    right after a commit)."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(settings.effective_database_url)
        upgrade(engine)
        hub = LocalHub()
        if settings.redis_url:
            from server.hub.redis import RedisHub

            hub = RedisHub(settings.redis_url)
        service = GameService(store_factory(engine), hub, cache_size=settings.games_cached)
        app.state.service = service
        app.state.metrics = Metrics().bind(service)
        configure_logging()
        await hub.start()
        app.state.metrics.start_runtime()
        pruning = (
            asyncio.create_task(prune_periodically(service, settings))
            if settings.retention_on else None
        )
        log.info("warfield %s serving (%s)", __version__, engine.dialect.name)
        try:
            yield
        finally:
            if pruning is not None:
                pruning.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await pruning
            await ws.drain(app.state.connections)  # (a no-op after `warfield serve` drained)
            await app.state.metrics.stop_runtime()
            await hub.stop()
            engine.dispose()

    app = _Warfield(
        title="Warfield",
        version=__version__,
        summary="A virtual tabletop for miniature wargames that knows the rules.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.connections = ws.Connections()
    app.add_exception_handler(RuleError, rule_error_handler)
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    app.add_exception_handler(StarletteHTTPException, http_error_handler)
    for fault in STORE_FAULTS:
        app.add_exception_handler(fault, store_error_handler)
    app.include_router(games.router)
    app.include_router(archive.router)
    app.include_router(systems.router)
    app.include_router(questions.router)
    app.include_router(replay.router)
    app.include_router(report.router)
    app.include_router(ws.router)
    # Outermost last: the rate limit answers before anything is read, then the body limit,
    # then (on a body that fits) the JSON nesting limit.
    app.add_middleware(JsonNestingLimit)
    app.add_middleware(BodySizeLimit, limit=settings.max_body_bytes)
    app.add_middleware(
        RestRateLimit, per_min=settings.rest_rate_per_min, burst=settings.rest_rate_burst
    )

    @app.get("/healthz", tags=["health"])
    async def healthz() -> dict[str, str]:
        """The process is alive."""
        return {"status": "ok"}

    class Readiness(BaseModel):
        model_config = ConfigDict(extra="allow")
        ready: bool

    @app.get("/readyz", tags=["health"], response_model=Readiness,
             responses={503: {"model": Readiness, "description": "Not ready"}})
    async def readyz() -> Response:
        """The database (and Redis, when configured) answer."""
        service: GameService = app.state.service
        checks: dict[str, str] = {}
        try:
            await asyncio.to_thread(service.store.ping)
            checks["database"] = "ok"
        except Exception as exc:  # noqa: BLE001 - report any failure
            checks["database"] = f"error: {type(exc).__name__}"
        if settings.redis_url:
            try:
                await service.hub.ping()
                checks["redis"] = "ok"
            except Exception as exc:  # noqa: BLE001
                checks["redis"] = f"error: {type(exc).__name__}"
        ready = all(v == "ok" for v in checks.values())
        return JSONResponse({"ready": ready, **checks}, status_code=200 if ready else 503)

    @app.get("/metrics", tags=["health"], response_class=PlainTextResponse)
    async def metrics() -> Response:
        """Prometheus metrics of this process."""
        registry: Metrics = app.state.metrics
        return Response(registry.render(), media_type=registry.content_type)

    static_dir = _static_dir()
    index = static_dir / "index.html"

    @app.get("/", include_in_schema=False)
    async def lobby() -> Response:
        if index.exists():
            return FileResponse(index)
        return JSONResponse({"warfield": __version__, "docs": "/docs"})

    @app.get("/games/{game_id}", include_in_schema=False)
    async def table_page(game_id: str) -> Response:
        if index.exists():
            return FileResponse(index)
        return JSONResponse({"game": game_id})

    @app.get("/games/{game_id}/replay", include_in_schema=False)
    async def replay_page(game_id: str) -> Response:
        if index.exists():
            return FileResponse(index)
        return JSONResponse({"game": game_id, "replay": True})

    if static_dir.exists():
        app.mount("/static", StaticFiles(directory=static_dir), name="static")
    return app
