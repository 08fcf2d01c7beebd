"""whfb8 Vanguard for Skirmishers (seed 002: "Skirmishers (except models with Fly) automatically
have Vanguard"); the move itself is tested in tests/rules/whfb8/test_skirmishers.py."""

from __future__ import annotations

import pytest

from server.data import load_catalog
from server.data.schema import Datasheet
from server.rules.units import units_of
from server.rules.whfb8 import vanguard
from tests.rules.whfb8.positions import HALBERDIERS, SWARM, position


def _with_rules(base: str, extra: list[str]) -> Datasheet:
    raw = load_catalog().get("whfb8", base).model_dump(mode="json")
    names = [r["name"] if isinstance(r, dict) else r for r in raw["special_rules"]]
    return Datasheet.model_validate({**raw, "special_rules": names + extra})


def test_skirmishers_have_vanguard_unless_they_fly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed 002: the Tomb Swarm (Skirmishers) has Vanguard; the same sheet with Fly does not;
    the Halberdiers (neither rule) do not."""
    state = position([SWARM], [HALBERDIERS], {"u1": (36.0, 6.0, 0.0), "u2": (36.0, 42.0, 180.0)},
                     phase="Start")
    swarm, halberdiers = units_of(state)["u1"], units_of(state)["u2"]
    assert load_catalog().get("whfb8", "tomb-swarm").has_rule("Skirmishers")
    assert vanguard.has_vanguard(state, swarm) is True
    assert vanguard.has_vanguard(state, halberdiers) is False
    flying = _with_rules("tomb-swarm", ["Fly"])
    assert flying.has_rule("Skirmishers") and flying.has_rule("Fly")
    monkeypatch.setattr(vanguard, "datasheet_of", lambda state, unit: flying)
    assert vanguard.has_vanguard(state, swarm) is False
