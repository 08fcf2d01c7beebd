"""The FastAPI application: REST, the websocket, the browser client, health."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException as StarletteHTTPException

from server import __version__
from server.api import ws
from server.api.errors import (
    http_error_handler,
    rule_error_handler,
    validation_error_handler,
)
from server.api.routes import archive, games, questions, systems
from server.config import Settings
from server.games.service import GameService
from server.hub import LocalHub
from server.metrics import Metrics, configure_logging
from server.rules.core import RuleError
from server.store import EventStore, make_engine
from server.store.migrate import upgrade

log = logging.getLogger("warfield")
STATIC_DIR = Path(__file__).resolve().parents[2] / "static"


def _static_dir() -> Path:
    return STATIC_DIR if STATIC_DIR.exists() else Path.cwd() / "static"


def create_app(settings: Settings | None = None) -> FastAPI:
    """A Warfield app; migrations run and the hub starts when it starts (lifespan)."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(settings.effective_database_url)
        upgrade(engine)
        hub = LocalHub()
        if settings.redis_url:
            from server.hub.redis import RedisHub

            hub = RedisHub(settings.redis_url)
        service = GameService(EventStore(engine), hub)
        app.state.service = service
        app.state.metrics = Metrics().bind(service)
        configure_logging()
        await hub.start()
        log.info("warfield %s serving (%s)", __version__, engine.dialect.name)
        try:
            yield
        finally:
            await ws.drain(app.state.connections)  # (a no-op after `warfield serve` drained)
            await hub.stop()
            engine.dispose()

    app = FastAPI(
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
    app.include_router(games.router)
    app.include_router(archive.router)
    app.include_router(systems.router)
    app.include_router(questions.router)
    app.include_router(ws.router)

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
        import asyncio

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

    if static_dir.exists():
        app.mount("/static", StaticFiles(directory=static_dir), name="static")
    return app
