"""Issue 13 item 1: one place per difference. Game systems are variants: every per-system choice
is a field or method of the system (`server.rules.systems.GameSystem.variant`, or the data
layer's `server.data.systems.SystemData`), so no shared module names a system id.

Allowed to name ids: the system's own packages (`server/rules/<id>/`, `server/data/<id>/`), the
registry (`server/rules/systems.py`), the API's list of ids (`server/api/routes/games.py`) and
the datasheet format's list of ids and per-system profile schemas (`server/data/schema.py`:
`SystemId`, `SYSTEM_IDS`, the profiles' `system` tags). Comparing a system with a registry
(`system in SYSTEMS`, `for system in SYSTEM_IDS`) names no id and is allowed anywhere.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from server.data.schema import SYSTEM_IDS
from server.data.systems import SystemData, system_data
from server.rules import core
from server.rules.systems import SYSTEMS, GameSystem, Variant, find_system

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "server"
IDS = "|".join(SYSTEM_IDS)
# The grep: `grep -rnE "system (==|!=|in) |\"(t9a|whfb8|wh40k10)\"" server`.
NAMES_AN_ID = re.compile(rf'system (==|!=|in) |"({IDS})"')
AGAINST_A_REGISTRY = re.compile(
    r"system (==|!=|in) (SYSTEMS|SYSTEM_IDS|self\.registries|self\.systems)\b"
)
IMPORTS_A_SYSTEM = re.compile(rf"\bserver\.(rules|data)\.({IDS})\b|\bimport ({IDS})\b")
ALLOWED = {
    "server/rules/systems.py": "the registry",
    "server/api/routes/games.py": "the API's list of ids",
    "server/data/schema.py": "the datasheet format: SystemId, SYSTEM_IDS and the profile tags",
}


def _shared_modules() -> list[Path]:
    """Every server module outside the system packages and the allowed files."""
    packages = [SERVER / layer / sid for layer in ("rules", "data") for sid in SYSTEM_IDS]
    return sorted(
        path
        for path in SERVER.rglob("*.py")
        if not any(path.is_relative_to(p) for p in packages)
        and path.relative_to(ROOT).as_posix() not in ALLOWED
    )


def test_no_shared_module_names_a_system_id() -> None:
    """The issue's grep lists only the system packages, the registry and the API's id list."""
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in _shared_modules()
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if NAMES_AN_ID.search(line) and not AGAINST_A_REGISTRY.search(line)
    ]
    assert not found, "shared modules decide per system; ask the system instead:\n" + "\n".join(
        found
    )


def test_no_shared_module_imports_a_system_package() -> None:
    """Shared modules reach a system only through the registry (`find_system`,
    `system_data`); `server/rules/__init__.py` finds the system packages by listing them."""
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in _shared_modules()
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if IMPORTS_A_SYSTEM.search(line) and not line.lstrip().startswith(("#", '"'))
    ]
    assert not found, "\n".join(found)


def test_the_shape_test_would_catch_a_shared_module_naming_an_id() -> None:
    """The patterns catch what the issue counted (47 places before): a comparison with an id,
    a quoted id, an import of a system package; and let registry look-ups through."""
    for line in ('if state.system == "t9a":', 'rules = {"whfb8": x}[system]',
                 "    return system in ('t9a', 'whfb8')"):
        assert NAMES_AN_ID.search(line) and not AGAINST_A_REGISTRY.search(line), line
    assert AGAINST_A_REGISTRY.search('_require(system in SYSTEMS, "...")')
    assert IMPORTS_A_SYSTEM.search("from server.rules.t9a.ambush import ambush_options")
    assert len(_shared_modules()) > 40


@pytest.mark.parametrize("system_id", SYSTEM_IDS)
def test_every_system_declares_its_variant_and_its_army_rules(system_id: str) -> None:
    """Each id of the data format has a registered rules system with its `Variant` and a data
    package with its `SystemData`; every action registered exists in some system."""
    system = find_system(system_id)
    assert isinstance(system, GameSystem) and isinstance(system.variant, Variant)
    assert isinstance(system_data(system_id), SystemData)
    assert system_data(system_id).name == system.name
    assert set(SYSTEMS) == set(SYSTEM_IDS)
    for spec in core.ACTIONS.values():
        assert any(spec.available(s) for s in SYSTEM_IDS), spec.name
