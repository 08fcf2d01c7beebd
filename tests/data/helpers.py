"""Helpers for the data tests: a writable copy of the shipped catalogue."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

from server.data.schema import SYSTEM_IDS


def copy_catalog(destination: Path) -> Path:
    """Copy every system folder of the shipped data into ``destination`` and return it."""
    root = Path(str(resources.files("server.data")))
    for system in SYSTEM_IDS:
        shutil.copytree(root / system, destination / system)
    return destination


def write(root: Path, system: str, name: str, text: str) -> Path:
    path = root / system / name
    path.write_text(text, encoding="utf-8")
    return path
