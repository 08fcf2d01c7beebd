"""Errors on the wire: a stable code, a human message and machine details."""

from __future__ import annotations

import logging

import sqlalchemy as sa
from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException

from server.rules.core import (
    BAD_REQUEST,
    CONFLICT,
    FORBIDDEN,
    ILLEGAL_MOVE,
    NOT_FOUND,
    OUT_OF_PHASE,
    RATE_LIMITED,
    STALE,
    TOO_LARGE,
    UNAUTHORIZED,
    UNAVAILABLE,
    RuleError,
)
from server.store import StoreUnavailable, unreachable

log = logging.getLogger(__name__)

HTTP_STATUS = {
    BAD_REQUEST: 400,
    UNAUTHORIZED: 401,
    FORBIDDEN: 403,
    NOT_FOUND: 404,
    CONFLICT: 409,
    STALE: 409,
    OUT_OF_PHASE: 409,
    TOO_LARGE: 413,
    ILLEGAL_MOVE: 422,
    RATE_LIMITED: 429,
    UNAVAILABLE: 503,
}

# What a store failure that is a restart, not a bug, is answered with (REST and websocket).
STORE_FAULTS: tuple[type[Exception], ...] = (StoreUnavailable, sa.exc.DBAPIError,
                                              sa.exc.TimeoutError)


def store_unavailable() -> RuleError:
    """The answer to a message the database could not take: `unavailable`, with when to send
    it again. The client resends it with the same `ref`, which makes it count once."""
    retry_after = StoreUnavailable.retry_after_s
    return RuleError(
        UNAVAILABLE,
        "the game's database is not answering (restarting?); send it again in a moment",
        retry=True,
        retry_after=retry_after,
    )


class ErrorBody(BaseModel):
    """Every error response: `{"code", "message", "details"}`."""

    code: str
    message: str
    details: dict[str, object] = {}


def error_responses(*codes: int) -> dict[int | str, dict[str, object]]:
    """OpenAPI `responses=` for the given statuses, all with the ErrorBody schema."""
    return {code: {"model": ErrorBody} for code in codes}


async def rule_error_handler(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RuleError)
    return JSONResponse(exc.to_wire(), status_code=HTTP_STATUS.get(exc.code, 400))


async def store_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """A request the database could not take: 503 with Retry-After when it was unreachable
    (an expected fault: the client tries again), else the bug it is (500, logged)."""
    if unreachable(exc):
        log.warning("%s %s: the database is unreachable: %s", request.method,
                    request.url.path, exc)
        error = store_unavailable()
        return JSONResponse(error.to_wire(), status_code=503,
                            headers={"Retry-After": str(round(StoreUnavailable.retry_after_s))})
    log.error("%s %s failed in the store", request.method, request.url.path, exc_info=exc)
    return JSONResponse({"code": "internal", "message": "the server failed to handle this "
                         "request; nothing was changed", "details": {}}, status_code=500)


async def validation_error_handler(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [
        {"field": ".".join(str(p) for p in e.get("loc", ()) if p != "body"), "message": e["msg"]}
        for e in exc.errors()
    ]
    first = errors[0] if errors else {"field": "", "message": "invalid request"}
    where = first["field"] or "request"
    return JSONResponse(
        {
            "code": BAD_REQUEST,
            "message": f"{where}: {first['message']}",
            "details": {"errors": errors},
        },
        status_code=400,
    )


async def http_error_handler(_request: Request, exc: Exception) -> JSONResponse:
    """Errors raised by the framework itself (a body that is not JSON, an unknown path, a
    method not allowed) in the same `{"code", "message", "details"}` shape as ours."""
    assert isinstance(exc, HTTPException)
    code = next((c for c, status in HTTP_STATUS.items() if status == exc.status_code), None)
    if code is None:
        code = BAD_REQUEST if exc.status_code < 500 else "internal"
    return JSONResponse(
        {"code": code, "message": str(exc.detail), "details": {}},
        status_code=exc.status_code,
        headers=getattr(exc, "headers", None),
    )
