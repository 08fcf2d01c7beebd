"""Issue 20 items 2 and 3, pure: the report's words and pictures, and dice luck computed from
the roll needed each event recorded with the success rule the rules use (FACTS.md "Dice": a
natural 1 always fails, a natural 6 always succeeds) and exact charge-roll distributions."""

from __future__ import annotations

import re
from fractions import Fraction
from itertools import product

import pytest

from server.dice import parse_expression
from server.games.replay import Replay
from server.games.report import (
    build_report,
    dice_luck,
    die_success_chance,
    sentence,
    table_svg,
    to_markdown,
    total_distribution,
)
from server.rules.core import Event, GameState
from server.rules.units import units_of
from tests.rules.helpers import battle

SPEARS = {"datasheet": "citizen-spears", "models": 20, "files": 5}
ARCHERS = {"datasheet": "citizen-archers", "models": 10, "files": 5}


def test_a_die_succeeds_on_the_faces_the_rules_count() -> None:
    assert die_success_chance(4) == Fraction(1, 2)
    assert die_success_chance(7) == Fraction(1, 6)  # a natural 6 still succeeds
    assert die_success_chance(1) == Fraction(5, 6)  # a natural 1 still fails
    assert die_success_chance(None) == 0
    # Re-rolling 1s at 4+: 1/2 + 1/6 * 1/2.
    assert die_success_chance(4, parse_expression("10D6 reroll 1")) == Fraction(7, 12)


def test_charge_distributions_are_exact_with_maximised_dice() -> None:
    """Swiftstride (t9a): the charge roll is Maximised, 3D6 keeping the highest two."""
    two = total_distribution(parse_expression("2D6"))
    assert sum(two.values()) == 1 and two[7] == Fraction(6, 36)
    best = total_distribution(parse_expression("2D6 maximised x1"))
    by_hand: dict[int, Fraction] = {}
    for faces in product(range(1, 7), repeat=3):
        total = sum(sorted(faces)[1:])
        by_hand[total] = by_hand.get(total, Fraction(0)) + Fraction(1, 216)
    assert best == by_hand


def roll(expression: str, faces: list[int], start: int = 0) -> dict[str, object]:
    return {"expression": expression, "dice": [{"face": f, "kept": True} for f in faces],
            "total": sum(faces), "start": start, "end": start + len(faces), "extra": {}}


def test_luck_counts_each_players_dice_against_the_odds_they_needed() -> None:
    game = battle("t9a", [SPEARS], [ARCHERS])
    state = game.state
    owners = {u.id: u.owner for u in units_of(state).values()}
    assert owners == {"u1": 1, "u2": 2}
    events = [
        Event("attack_step", {"unit": "u2", "target": "u1", "step": "to_hit", "needed": 5,
                              "roll": roll("4D6", [1, 5, 6, 4])}, seq=1),
        Event("attack_step", {"unit": "u2", "target": "u1", "step": "to_wound", "needed": 4,
                              "roll": roll("2D6", [3, 4])}, seq=2),
        Event("attack_step", {"unit": "u2", "target": "u1", "step": "armour", "needed": 6,
                              "roll": roll("D6", [6])}, seq=3),
        Event("attack_step", {"unit": "u2", "target": "u1", "step": "aegis", "needed": 5,
                              "roll": roll("D6", [2])}, seq=4),
        Event("charge_failed", {"unit": "u1", "target": "u2", "distance": 8.0, "bonus": 0,
                                "roll": roll("2D6", [3, 4])}, seq=5),
        Event("attack_step", {"unit": "u1", "target": "u2", "step": "to_hit", "needed": 4,
                              "roll": roll("2D6", [6, 6])}, seq=6, visibility="player:1"),
    ]
    luck = {seat: {r.category: r for r in rows} for seat, rows in dice_luck(events, state).items()}
    hit = luck[2]["to_hit"]
    assert (hit.trials, hit.successes) == (4, 2) and hit.expected == pytest.approx(4 / 3)
    assert hit.spread == pytest.approx((4 * (1 / 3) * (2 / 3)) ** 0.5)
    assert (luck[2]["to_wound"].trials, luck[2]["to_wound"].successes) == (2, 1)
    assert (luck[1]["armour"].successes, luck[1]["armour"].expected) == (1, pytest.approx(1 / 6))
    assert (luck[1]["special"].trials, luck[1]["special"].successes) == (1, 0)
    charge = luck[1]["charge"]
    assert (charge.trials, charge.successes) == (1, 0)
    assert charge.expected == pytest.approx(15 / 36)  # 2D6 >= 8
    assert luck[1]["to_hit"].trials == 2  # the host sees the hidden roll ...
    spectator = {r.category: r for r in dice_luck(events, state, None)[1]}
    assert spectator["to_hit"].trials == 0  # ... a spectator does not


def test_a_move_is_told_in_words() -> None:
    view = {"units": {"u1": {"name": "Citizen Spears"}}}
    moved = Event("unit_moved", {"unit": {"id": "u1"}, "manoeuvre": "wheel", "distance": 4.25})
    # One rounding everywhere (docs/rules-decisions.md): 4.25 reads 4.3, as on the table.
    assert sentence(moved, view) == "Citizen Spears wheel 4.3 in"
    advance = Event("unit_moved", {"unit": {"id": "u1"}, "manoeuvre": "models",
                                   "mode": "advance", "distance": 6})
    assert sentence(advance, view) == "Citizen Spears make an advance move 6.0 in"
    assert sentence(Event("phase_ended", {}), view) is None


def test_same_named_units_are_numbered_in_the_report_as_everywhere() -> None:
    view = {"units": {"u12": {"id": "u12", "name": "Night Goblins"},
                      "u5": {"id": "u5", "name": "Night Goblins"},
                      "u7": {"id": "u7", "name": "Empire Halberdiers"}}}
    moved = Event("unit_moved", {"unit": {"id": "u12"}, "manoeuvre": "wheel", "distance": 2})
    assert sentence(moved, view) == "Night Goblins (2) wheel 2.0 in"
    other = Event("unit_moved", {"unit": {"id": "u7"}, "manoeuvre": "wheel", "distance": 2})
    assert sentence(other, view) == "Empire Halberdiers wheel 2.0 in"


def test_the_picture_labels_two_same_named_units_apart() -> None:
    game = battle("t9a", [SPEARS, SPEARS], [ARCHERS])
    svg = table_svg(game.state.to_json(None), "Deployed")
    assert "Citizen Spears (1)</text>" in svg and "Citizen Spears (2)</text>" in svg
    assert "Citizen Archers</text>" in svg


def test_the_picture_draws_each_unit_footprint_the_state_carries() -> None:
    game = battle("t9a", [SPEARS], [ARCHERS])
    view = game.state.to_json(None)
    svg = table_svg(view, "Deployed")
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count('class="unit owner-1"') == 1 and svg.count('class="unit owner-2"') == 1
    # Player 1's unit stands near y = 6 in: drawn near the bottom (SVG y = depth - y).
    bases = [f for f in view["units"]["u1"]["footprint"]["features"]
             if f["properties"].get("role") != "boundary"]
    x, y = bases[0]["geometry"]["coordinates"][0][0]
    assert f"{x:.2f},{48 - y:.2f}" in svg


def test_a_report_has_one_picture_per_turn_played() -> None:
    game = battle("t9a", [SPEARS], [ARCHERS])
    for _ in range(12):  # six phases a player turn: two game turns begin
        game.act(int(game.state.battle.active_player), type="end_phase")
    turns = sorted({s.turn for s in Replay(game.log).steps if s.stage == "battle"})
    text = to_markdown(build_report("g", Replay(game.log), None, None))
    assert text.count('class="table-picture"') == len(turns) >= 2
    assert "## Turn 1" in text and "The game is not over" in text
    assert "Citizen Spears (20 models)" in text


def test_no_dice_means_no_luck_rows_filled() -> None:
    rows = dice_luck([], GameState())
    assert all(r.trials == 0 for seat in rows.values() for r in seat)


def test_40k_attack_sequences_count_in_the_luck_chart() -> None:
    """Issue 16 with issue 20: the hit, wound and save rolls of a 40k attack sequence
    (`attacks_resolved`) count like the rank-and-flank attack steps: hits and wounds for the
    shooter's player, saves for the target's."""
    from server.games.report import dice_luck
    from tests.rules.wh40k10.game import deployed, scripted, to_phase

    state = to_phase(deployed(), 2, "Shooting")
    faces = [6] * 4 + [1] * 6 + [5] * 4 + [1] * 4  # 4 hits of 10, 4 wounds of 4, 4 failed saves
    state, events, _ = scripted(state, 2, faces, type="shoot_weapons", unit="u2",
                                weapons=[{"weapon": "Bolt rifle", "target": "u1"}])
    luck = {seat: {r.category: r for r in rows} for seat, rows in dice_luck(events, state).items()}
    assert (luck[2]["to_hit"].trials, luck[2]["to_hit"].successes) == (10, 4)
    assert (luck[2]["to_wound"].trials, luck[2]["to_wound"].successes) == (4, 4)
    assert (luck[1]["armour"].trials, luck[1]["armour"].successes) == (4, 0)
    assert abs(luck[2]["to_hit"].expected - 10 * 5 / 6) < 1e-9  # Heavy: 2+


def test_the_picture_labels_each_terrain_piece_with_its_name_and_kind() -> None:
    """Terrain is not an unlabelled block: each piece carries its name (or, unnamed, its kind)
    and kind in readable text (at least 1 in tall: 10 px at the report's 720 px), inside the
    board even for a piece at the table's edge."""
    view = {
        "battlefield": {"width": 72, "depth": 48},
        "terrain": [
            {"id": "ter1", "kind": "cover", "label": "Wood",
             "points": [[10, 10], [14, 10], [14, 14], [10, 14]]},
            {"id": "ter2", "kind": "blocks_los", "points": [[0, 44], [3, 44], [3, 48], [0, 48]]},
        ],
        "units": {},
    }
    svg = table_svg(view, "Setup")
    labels = re.findall(r'<text class="terrain-label" x="([\d.]+)" y="([\d.]+)" '
                        r'font-size="([\d.]+)"[^>]*>([^<]*)</text>', svg)
    assert [t[3] for t in labels] == ["Wood (cover)", "Blocks line of sight"]
    for x, y, size, text in labels:
        assert float(size) >= 1.0
        half = len(text) * float(size) * 0.3  # a generous half width of sans-serif text
        assert half <= float(x) <= 72 - half and float(size) <= float(y) <= 48, (x, y, text)
    # The Wood's label is at its middle (12, 12) -> SVG (12, 36), a little below for the
    # baseline.
    assert abs(float(labels[0][0]) - 12) < 0.01 and 36 <= float(labels[0][1]) <= 37


def test_the_report_tells_shooting_fights_fanatics_and_roll_offs_in_words() -> None:
    """A random 40k game's shooting and fights and a whfb8 game's released Fanatics are told
    in the report (each event's own text), not "Nothing happened this turn"."""
    import hashlib

    from server.rules.core import undone_seqs
    from tests.games.random_play import play

    told: set[str] = set()
    for system in ("wh40k10", "whfb8"):
        for n in range(4):
            game = play(system, hashlib.sha256(f"{system}{n}".encode()).digest(), actions=400)
            text = to_markdown(build_report("g", Replay(game.log[:-1]), None, None))
            undone = undone_seqs(game.log)  # an agreed undo takes them out of the story
            for e in (e for e in game.log if e.seq not in undone):
                words = e.payload.get("text")
                if e.type in ("attacks_resolved", "fanatic_released", "roll_off") and words:
                    assert str(words).split(":")[0] in text, (e.type, words)
                    told.add(e.type)
    assert told == {"attacks_resolved", "fanatic_released", "roll_off"}
