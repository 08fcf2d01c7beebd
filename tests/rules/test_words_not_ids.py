"""Issue 19 item 3, "Words, not ids": every message a person reads names units and terrain by
name (duplicates numbered by id: "Citizen Spears (2)", terrain without a label by kind:
"Impassable terrain"); the ids stay in the machine fields (`obstacle`, `blocked_by`).

Rules behind the refusals: FACTS.md Unit Spacing (more than 1 in from other units) and
Impassable Terrain (no unit may enter it), seed citizen-spears for the units.
"""

from __future__ import annotations

import re
from typing import Any

from server.rules.naming import display_name
from server.rules.units import units_of
from tests.rules.helpers import Game

ID = re.compile(r"\b(u|ter|t)\d+\b")
SPEARS = {"datasheet": "citizen-spears", "models": 20, "files": 5}


def texts(events: list[Any]) -> list[str]:
    return [str(e.payload.get("text", "")) for e in events]


def armies(game: Game, ones: int = 2, twos: int = 1) -> None:
    game.act(1, type="submit_army", units=[SPEARS] * ones)
    game.act(2, type="submit_army", units=[SPEARS] * twos)


def test_duplicate_names_are_numbered_in_id_order() -> None:
    game = Game()
    game.act(1, type="place_terrain", kind="impassable",
             points=[(30, 20), (34, 20), (34, 24), (30, 24)])
    game.act(1, type="place_terrain", kind="cover", label="Wood",
             points=[(40, 20), (44, 20), (44, 24), (40, 24)])
    game.act(1, type="place_terrain", kind="cover", label="Wood",
             points=[(50, 20), (54, 20), (54, 24), (50, 24)])
    armies(game, ones=2, twos=1)
    ids = sorted(units_of(game.state), key=lambda u: int(u[1:]))
    assert [display_name(game.state, u) for u in ids] == [
        "Citizen Spears (1)", "Citizen Spears (2)", "Citizen Spears (3)"]
    assert [display_name(game.state, t) for t in ("ter1", "ter2", "ter3")] == [
        "Impassable terrain", "Wood (1)", "Wood (2)"]


def test_unit_spacing_refusal_names_the_unit_not_its_id() -> None:
    game = Game()
    armies(game, ones=2, twos=1)
    game.act(1, type="deploy_unit", unit="u1", x=20, y=10)
    game.act(2, type="deploy_unit", unit="u3", x=36, y=40, facing=180)
    err = game.refused(1, type="deploy_unit", unit="u2", x=24.5, y=10)
    assert err.details["rule"] == "Unit Spacing" and err.details["obstacle"] == "u1"
    assert "Citizen Spears (1) is in the way" in err.message
    assert "Citizen Spears (2) cannot deploy there" in err.message
    assert not ID.search(err.message), err.message


def test_terrain_refusals_name_the_terrain_by_label_or_kind() -> None:
    game = Game()
    game.act(1, type="place_terrain", kind="impassable",
             points=[(18, 8), (22, 8), (22, 12), (18, 12)])
    err = game.refused(2, type="place_terrain", kind="cover", label="Wood",
                       points=[(20, 10), (24, 10), (24, 14), (20, 14)])
    assert err.details["obstacle"] == "ter1"
    assert err.message == "terrain overlaps Impassable terrain"
    armies(game, ones=1, twos=1)
    err = game.refused(1, type="deploy_unit", unit=_first(game, 1), x=20, y=10)
    assert err.details["obstacle"] == "ter1"
    assert "Impassable terrain is in the way" in err.message
    assert not ID.search(err.message), err.message


def _first(game: Game, seat: int) -> str:
    return min((u.id for u in units_of(game.state).values() if u.owner == seat),
               key=lambda u: int(u[1:]))


def test_a_blocked_charge_names_the_terrain() -> None:
    """A charge whose move into contact crosses Impassable Terrain fails naming the piece
    ("Farmhouse is in the way"); `blocked_by` keeps its id."""
    game = Game()
    game.act(1, type="place_terrain", kind="impassable", label="Farmhouse",
             points=[(37.6, 28.3), (39.0, 28.3), (39.0, 28.7), (37.6, 28.7)])
    armies(game, ones=1, twos=1)
    game.act(1, type="deploy_unit", unit="u2", x=20, y=6)
    game.act(2, type="deploy_unit", unit="u3", x=20, y=42, facing=180)
    game.put("u2", 36, 27, 0)
    game.put("u3", 36, 30, 180)
    events = game.act(1, type="declare_charge", unit="u2", target="u3")
    if events[-1].type == "charge_declared":
        events += game.act(2, type="charge_reaction", reaction="hold")
    failed = [e for e in events if e.type == "charge_failed"]
    assert failed, [e.type for e in events]
    assert failed[0].payload["blocked_by"] == "ter1"
    assert "Farmhouse is in the way" in failed[0].payload["text"]
    for text in texts(events):
        assert not ID.search(text), text


def test_a_refused_preview_names_the_obstacle_for_people() -> None:
    """The preview verdict the client shows while dragging carries `obstacle_name` (words)
    beside `obstacle` (the id the table marks)."""
    from server.dice import DiceStream
    from server.rules.questions import preview

    game = Game()
    armies(game, ones=2, twos=1)
    game.act(1, type="deploy_unit", unit="u1", x=20, y=10)
    game.act(2, type="deploy_unit", unit="u3", x=36, y=40, facing=180)
    verdict = preview(game.state, 1, {"type": "deploy_unit", "unit": "u2", "x": 24.5, "y": 10},
                      DiceStream(bytes(32), 0))
    assert (verdict["legal"], verdict["obstacle"]) == (False, "u1")
    assert verdict["obstacle_name"] == "Citizen Spears (1)"
    assert not ID.search(verdict["message"]), verdict["message"]


def test_a_charge_between_units_of_one_name_numbers_them() -> None:
    """Two Citizen Spears units: the charge's texts say which is which ("Citizen Spears (1)
    declare a charge against Citizen Spears (2)"), never "u1"."""
    game = Game()
    armies(game, ones=1, twos=1)
    game.act(1, type="deploy_unit", unit="u1", x=20, y=6)
    game.act(2, type="deploy_unit", unit="u2", x=20, y=42, facing=180)
    game.put("u1", 36, 27, 0)
    game.put("u2", 36, 30, 180)
    (declared,) = game.act(1, type="declare_charge", unit="u1", target="u2")
    assert declared.payload["text"].startswith(
        "Citizen Spears (1) declare a charge against Citizen Spears (2)")
    events = game.act(2, type="charge_reaction", reaction="hold")
    for text in texts([declared, *events]):
        assert not ID.search(text), text
