"""Shared test fixtures and the skip policy for tests that need outside services.

Tests of the PostgreSQL and Redis paths and the browser tests skip with a clear reason on a
machine without those services; under CI (`CI=true`) such a skip is turned into a failure.
"""

from __future__ import annotations

import os
import shutil

import pytest

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def require(condition: bool, reason: str) -> None:
    """Skip the calling test with `reason` unless `condition`; under CI fail instead."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required under CI=true: {reason}")
    pytest.skip(reason)


def postgres_url() -> str:
    url = os.environ.get("WARFIELD_TEST_DATABASE_URL", "")
    require(bool(url), "PostgreSQL tests need WARFIELD_TEST_DATABASE_URL (set by .ci/run)")
    return url


def redis_url() -> str:
    url = os.environ.get("WARFIELD_TEST_REDIS_URL", "")
    require(bool(url), "Redis tests need WARFIELD_TEST_REDIS_URL (set by .ci/run)")
    return url


def chromium_path() -> str:
    path = os.environ.get("WARFIELD_CHROMIUM", "/usr/bin/chromium")
    found = shutil.which(path) or (path if os.path.exists(path) else None)
    require(found is not None, f"browser tests need Debian's chromium at {path}")
    return str(found)
