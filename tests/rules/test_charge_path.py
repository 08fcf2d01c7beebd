"""Issue 19 item 1, charges you can trust (server/rules/charge.py): before a charge is declared
the preview says what the server will judge (the distance needed, arc, line of sight, a blocked
path) without dice; the charge move wheels once around what blocks a straight slide (t9a and
whfb8 allow a wheel during the charge move); a failed charge moves as the system says (t9a the
Charge Range rolled, docs/rules-decisions.md "Charges"; whfb8 the highest single die of the
charge roll, FACTS.md "Failed charge").
"""

from __future__ import annotations

from typing import Any

import pytest

from server.dice import DiceStream
from server.rules.charge import charge_path
from server.rules.questions import preview
from server.rules.units import units_of
from tests.rules.helpers import Game, battle

SPEARS5 = {"datasheet": "citizen-spears", "models": 20, "files": 5}
SPEARS10 = {"datasheet": "citizen-spears", "models": 20, "files": 10}
ROCK = [(34.0, 23.0), (34.6, 23.0), (34.6, 23.6), (34.0, 23.6)]
FARMHOUSE = [(37.6, 28.3), (39.0, 28.3), (39.0, 28.7), (37.6, 28.7)]


def armies(game: Game, second: dict[str, Any]) -> tuple[str, str]:
    """Both armies submitted and deployed; the ids of player 1's and player 2's units (terrain
    placed first takes ids from the same counter)."""
    game.act(1, type="submit_army", units=[SPEARS5])
    game.act(2, type="submit_army", units=[second])
    one, two = sorted(units_of(game.state), key=lambda u: int(u[1:]))
    game.act(1, type="deploy_unit", unit=one, x=20, y=6)
    game.act(2, type="deploy_unit", unit=two, x=20, y=42, facing=180)
    return one, two


def t9a_game(terrain: list[tuple[float, float]] | None, wide: bool = True) -> Game:
    """Player 1's Citizen Spears (5 files, 3.937 in wide) at (30, 20) facing 0; player 2's
    Citizen Spears (10 files, 7.874 in wide) at (36, 32) facing 180: 12 in apart, the
    charger a little to the left of the target's front."""
    game = Game()
    if terrain:
        game.act(1, type="place_terrain", kind="impassable", label="Rock", points=terrain)
    game.ids = armies(game, SPEARS10 if wide else SPEARS5)  # type: ignore[attr-defined]
    game.put(game.ids[0], 30, 20, 0)  # type: ignore[attr-defined]
    game.put(game.ids[1], 36, 32, 180)  # type: ignore[attr-defined]
    return game


def charge_preview_of(game: Game, unit: str = "u1", target: str = "u2") -> dict[str, Any]:
    position = game.state.dice_position
    answer = preview(game.state, 1, {"type": "declare_charge", "unit": unit, "target": target},
                     DiceStream(bytes(32), position))
    assert game.state.dice_position == position
    return answer


def test_a_clear_charge_previews_the_distance_needed_arc_and_sight() -> None:
    """In the front arc and line of sight, 12 in away with nothing between: legal, needs
    12.0 in, and 2D6 + Advance Rate 5 can reach 17 in."""
    answer = charge_preview_of(t9a_game(None))
    assert answer["legal"] is True
    c = answer["explain"]
    assert c["in_arc"] is True and c["in_sight"] is True and c["blocked"] is False
    assert c["needed"] == pytest.approx(12.0, abs=0.1) and c["wheel"] == 0
    assert c["max_range"] == 17 and c["reachable"] is True


def test_a_rock_in_the_slide_is_cleared_by_one_wheel_and_the_wheel_counts() -> None:
    """A Rock in the straight slide's way: the charge move wheels (10 degrees to the right)
    and then slides into contact; the distance needed is the whole path (wheel arc + slide),
    not just the 12 in between the units."""
    game = t9a_game(ROCK)
    one, two = game.ids  # type: ignore[attr-defined]
    u = units_of(game.state)
    path = charge_path(game.state, u[one], u[two])
    assert path.rule is None and path.wheel == -10.0
    c = charge_preview_of(game, one, two)["explain"]
    assert c["blocked"] is False and c["wheel"] == -10.0
    assert c["needed"] == pytest.approx(path.length, abs=1e-3) and c["needed"] > 12.9
    game.act(1, type="declare_charge", unit=one, target=two)
    events = game.act(2, type="charge_reaction", reaction="hold")
    result = events[-1].payload
    assert result["wheel"] == -10.0
    if events[-1].type == "charge_succeeded":
        assert result["range"] >= c["needed"]
        assert game.unit(one).placement == pytest.approx((34.0315, 32.0, 0.0), abs=1e-3)
    else:
        assert result["range"] < c["needed"]


def test_a_path_blocked_by_impassable_terrain_is_warned_before_any_die() -> None:
    """The Farmhouse sits in the 3 in gap between two units of Spears: no wheel clears it. The
    preview says so (rule, obstacle in words) before the charge is declared, rolling nothing;
    the declared charge then fails on it, as warned."""
    game = Game()
    game.act(1, type="place_terrain", kind="impassable", label="Farmhouse", points=FARMHOUSE)
    one, two = armies(game, SPEARS5)
    game.put(one, 36, 27, 0)
    game.put(two, 36, 30, 180)
    answer = charge_preview_of(game, one, two)
    c = answer["explain"]
    assert answer["legal"] is True  # the charge may be declared; it cannot reach
    assert c["blocked"] is True and c["reachable"] is False
    assert c["rule"] == "Impassable Terrain" and c["obstacle"] == "ter1"
    assert c["obstacle_name"] == "Farmhouse"
    game.act(1, type="declare_charge", unit=one, target=two)
    events = game.act(2, type="charge_reaction", reaction="hold")
    assert events[-1].type == "charge_failed"
    assert events[-1].payload["blocked_by"] == "ter1"


def test_a_target_out_of_the_front_arc_is_refused_with_the_reason_in_the_preview() -> None:
    """Behind the charger: not in its front arc, refused, and the preview says which check
    failed (the distance is still given)."""
    game = t9a_game(None)
    game.put("u2", 30, 10, 0)
    answer = charge_preview_of(game)
    assert answer["legal"] is False and answer["rule"] == "Charge: Line of Sight"
    c = answer["explain"]
    assert c["in_arc"] is False and c["in_sight"] is False
    assert c["distance"] == pytest.approx(10 - 3.1496, abs=0.01)


def test_t9a_failed_charge_moves_the_charge_range_towards_the_target() -> None:
    """24 in apart, 2D6 + 5 cannot reach: the charger moves its whole Charge Range straight at
    the target (docs/rules-decisions.md "Charges")."""
    game = t9a_game(None, wide=False)
    game.put("u1", 36, 8, 0)
    game.act(1, type="declare_charge", unit="u1", target="u2")
    failed = game.act(2, type="charge_reaction", reaction="hold")[-1]
    assert failed.type == "charge_failed"
    p = failed.payload
    assert p["failed_move"]["distance"] == pytest.approx(p["range"])
    assert game.unit("u1").placement == pytest.approx((36, 8 + p["range"], 0), abs=1e-3)
    assert "Failed Charge move" in p["text"] and "u1" not in p["text"]


def test_whfb8_failed_charge_moves_the_highest_single_die() -> None:
    """Halberdiers 20 in apart cannot reach with M4 + 2D6: they move the highest single die of
    the charge roll towards the target (FACTS.md "Failed charge")."""
    halberdiers = {"datasheet": "empire-halberdiers", "models": 20, "files": 5}
    game = battle("whfb8", [halberdiers], [halberdiers])
    game.to_phase(1, "Movement")  # whfb8 charges are declared in the Movement phase
    game.put("u1", 36, 8, 0)
    game.put("u2", 36, 28, 180)
    game.act(1, type="declare_charge", unit="u1", target="u2")
    failed = game.act(2, type="charge_reaction", reaction="hold")[-1]
    assert failed.type == "charge_failed"
    p = failed.payload
    highest = max(d["face"] for d in p["roll"]["dice"] if d["kept"])
    assert p["failed_move"]["distance"] == pytest.approx(highest)
    assert game.unit("u1").placement == pytest.approx((36, 8 + highest, 0), abs=1e-3)
