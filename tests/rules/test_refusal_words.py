"""Refusals and log lines a new player reads: army entries counted from 1 as a person counts
them, datasheets by their names, the army-wide points cap without an entry number."""

from __future__ import annotations

from typing import Any

from server.data import validate_army
from tests.rules.helpers import Game

SPEARS = {"datasheet": "citizen-spears", "models": 20, "files": 5}
HERALD = {"datasheet": "daemon-herald", "models": 1}


def test_the_first_army_entry_is_entry_1() -> None:
    game = Game()
    err = game.refused(1, type="submit_army", units=[SPEARS, HERALD])
    assert err.message.startswith("army entry 2: Daemon Herald"), err.message
    assert err.details["errors"][0]["entry"] == 1  # the machine field stays the list index


def test_a_malformed_entry_is_counted_from_1() -> None:
    errors = validate_army("t9a", [SPEARS, {"datasheet": "citizen-spears", "models": "many"}])
    assert errors[0].entry == 1 and errors[0].message.startswith("entry 2 is malformed"), errors


def test_the_points_cap_is_the_armys_not_an_entrys() -> None:
    game = Game("wh40k10")
    boyz = {"datasheet": "boyz", "models": 20}
    err = game.refused(1, type="submit_army", units=[boyz] * 12, game_size="Incursion")
    assert err.message.startswith("the army costs "), err.message
    assert "entry" not in err.message


def test_a_leader_refusal_names_the_datasheets_it_may_lead() -> None:
    game = Game("wh40k10")
    led = {"datasheet": "boyz", "models": 10, "joined_characters": ["wurrboy"]}
    err = game.refused(1, type="submit_army", units=[led])
    assert "Beast Snagga Boyz" in err.message, err.message
    assert "beast-snagga-boyz" not in err.message
    assert err.message.startswith("army entry 1: "), err.message


GOBLINS = {"datasheet": "night-goblins", "models": 20, "files": 5}


def _note(fanatics: int) -> list[dict[str, Any]]:
    game = Game("whfb8")
    goblins = {**GOBLINS, "concealed": {"night-goblin-fanatic": fanatics}} if fanatics else GOBLINS
    events = game.act(1, type="submit_army", units=[goblins])
    note = [e for e in events if e.type == "fanatics_concealed"]
    assert len(note) == 1
    return [note[0].to_wire(viewer) for viewer in (2, None)]


def test_a_hidden_fanatics_note_says_what_it_is_and_nothing_of_what_it_holds() -> None:
    """Seed 003: the opponent reads that player 1's Fanatics note is hidden, not "something
    hidden"; the placeholder is the same with two Fanatics written down or none."""
    hiding, none = _note(2), _note(0)
    assert hiding == none
    for wire in hiding:
        assert wire["type"] == "hidden"
        assert wire["payload"] == {"kind": "concealed Fanatics",
                                   "about": "a hidden note every army writes, Fanatics or none"}


def test_a_proposal_refusal_names_no_proposal_id() -> None:
    """"proposal p1" reads as player 1: the open proposal is "the proposal"."""
    game = Game()
    game.act(1, type="place_terrain", kind="cover", label="Wood",
             points=[(40, 20), (44, 20), (44, 24), (40, 24)])
    game.act(1, type="propose", kind="undo")
    again = game.refused(1, type="propose", kind="undo")
    assert again.message.startswith("player 1's proposal is still open"), again.message
    mine = game.refused(1, type="accept_proposal")
    assert mine.message == "the proposal is yours: player 2 accepts or declines it"
    for err in (again, mine):
        assert "p1" not in err.message


def test_each_system_names_what_an_attack_takes_as_its_rulebook_does() -> None:
    """The unit card says "Wounds" for 40k and whfb8, "Health Points" for t9a."""
    from server.data.systems import system_data

    assert system_data("wh40k10").wound_name == "Wound"
    assert system_data("whfb8").wound_name == "Wound"
    assert system_data("t9a").wound_name == "Health Point"


def test_the_log_and_refusals_number_same_named_units() -> None:
    """Two Citizen Spears of player 1: a refusal about the second says "Citizen Spears (2)"
    (server/rules/naming.py), as the table label and the Units list do."""
    from tests.rules.helpers import battle

    game = battle("t9a", [SPEARS, SPEARS], [SPEARS])
    game.act(1, type="end_phase")  # to Movement
    err = game.refused(1, type="move_unit", unit="u2", manoeuvre="forward", distance=30)
    assert err.message.startswith("Citizen Spears (2) would move 30.0 in"), err.message
