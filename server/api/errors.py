"""Errors on the wire: a stable code, a human message and machine details."""

from __future__ import annotations

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
    RuleError,
)

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
}


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
