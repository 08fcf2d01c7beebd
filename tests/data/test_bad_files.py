"""A bad data file gives a clear error naming the file and the field."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from server.data import CatalogError, load_catalog_from

from .helpers import copy_catalog, write

GOOD = """
id: test-unit
name: Test Unit
base: {shape: rectangular, width_mm: 20, depth_mm: 20}
models: {min: 10, max: 20, default: 10}
default_files: 5
profile:
  height: Standard
  type: Infantry
  global_characteristics: {advance_rate: 5, march_rate: 10, discipline: 7}
  defensive: {health_points: 1, defensive_skill: 3, resilience: 3, armour: 0}
  offensive:
    - {name: Soldier, attacks: 1, offensive_skill: 3, strength: 3, armour_penetration: 0,
       agility: 3}
special_rules: [Hard Target (1)]
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return copy_catalog(tmp_path)


def load_error(root: Path) -> str:
    with pytest.raises(CatalogError) as caught:
        load_catalog_from(root)
    return str(caught.value)


def test_the_good_fixture_loads(root: Path) -> None:
    write(root, "t9a", "test-unit.yaml", GOOD)
    assert load_catalog_from(root).get("t9a", "test-unit").name == "Test Unit"


@pytest.mark.parametrize(
    ("old", "new", "where", "message"),
    [
        ("default: 10}", "default: 30}", "models", "min <= default <= max"),
        ("min: 10, max: 20", "min: 20, max: 10", "models", "min <= default <= max"),
        ("width_mm: 20,", "width_mm: -20,", "base.width_mm", "greater than 0"),
        ("width_mm: 20, depth_mm: 20", "width_mm: 20", "base", "needs width_mm and depth_mm"),
        ("shape: rectangular", "shape: square", "base.shape", "'rectangular', 'round' or 'oval'"),
        ("Hard Target (1)", "Hard Target (one)", "special_rules.0", "whole number"),
        ("Hard Target (1)", "Hard Taget (1)", "special_rules.0", "unknown special rule"),
        ("Hard Target (1)", "Fearless (3)", "special_rules.0", "takes no parameter"),
        (
            "discipline: 7",
            "discipline: seven",
            "profile.global_characteristics.discipline",
            "valid integer",
        ),
        ("default_files: 5", "default_files: 11", "(file)", "default_files 11 exceeds"),
        ("id: test-unit", "id: Test Unit", "id", "should match pattern"),
        ("name: Test Unit", "name: Test Unit\ncolour: red", "colour", "Extra inputs"),
    ],
)
def test_bad_field(root: Path, old: str, new: str, where: str, message: str) -> None:
    assert old in GOOD
    write(root, "t9a", "test-unit.yaml", GOOD.replace(old, new))
    error = load_error(root)
    assert f"t9a/test-unit.yaml: {where}: " in error
    assert re.search(re.escape(message), error), error


def test_duplicate_id_names_both_files(root: Path) -> None:
    write(root, "t9a", "a-copy.yaml", GOOD)
    write(root, "t9a", "test-unit.yaml", GOOD)
    error = load_error(root)
    assert "t9a/test-unit.yaml: id: 'test-unit' is already used by t9a/a-copy.yaml" in error


def test_invalid_yaml(root: Path) -> None:
    write(root, "t9a", "test-unit.yaml", "id: [unclosed\n")
    assert "t9a/test-unit.yaml: not valid YAML" in load_error(root)


def test_not_a_mapping(root: Path) -> None:
    write(root, "t9a", "test-unit.yaml", "- just\n- a list\n")
    assert "t9a/test-unit.yaml: expected a mapping" in load_error(root)


def test_wrong_system_folder(root: Path) -> None:
    write(root, "whfb8", "test-unit.yaml", GOOD.replace("id: test-unit", "system: t9a\nid: x"))
    assert "whfb8/test-unit.yaml: system: 't9a' but the file is under whfb8/" in load_error(root)


def test_leader_of_an_unknown_unit(root: Path) -> None:
    path = root / "wh40k10" / "wurrboy.yaml"
    path.write_text(path.read_text().replace("leads: [beast-snagga-boyz]", "leads: [gretchin]"))
    assert "wh40k10/wurrboy.yaml: leads.0: unknown datasheet 'gretchin'" in load_error(root)


def test_missing_rules_registry(root: Path) -> None:
    (root / "t9a" / "rules.yaml").unlink()
    assert "t9a/rules.yaml: file is missing" in load_error(root)


def test_registry_with_a_malformed_rule(root: Path) -> None:
    path = root / "t9a" / "rules.yaml"
    path.write_text(
        path.read_text() + "  - name: Broken\n    param: int\n    form: plain\n    summary: x\n"
    )
    error = load_error(root)
    assert re.search(r"t9a/rules\.yaml: rules\.\d+: rule 'Broken': form 'plain'", error), error


def test_every_problem_is_reported(root: Path) -> None:
    write(root, "t9a", "test-unit.yaml", GOOD.replace("default: 10}", "default: 30}"))
    write(root, "whfb8", "broken.yaml", "id: [unclosed\n")
    error = load_error(root)
    assert "t9a/test-unit.yaml" in error and "whfb8/broken.yaml" in error
