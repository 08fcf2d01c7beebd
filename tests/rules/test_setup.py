"""Issue 23 item 6: server/rules/setup.py, directly: terrain placed or preset, armies submitted,
alternating deployment and units kept in reserve (docs/protocol.md "Setting up, deploying and
moving"; whfb8 Entombed Beneath the Sands, seed 002).
"""

from __future__ import annotations

from tests.rules.helpers import Game


def test_terrain_lies_on_the_table_and_overlaps_nothing() -> None:
    """A piece off the battlefield is refused (Battlefield Edge), one over another piece too
    (Terrain Overlap, naming it); an accepted piece takes the next id and shows in the state."""
    game = Game("wh40k10")  # 60 x 44 in
    triangle = [[1, 1], [5, 1], [5, 4]]
    events = game.act(2, type="place_terrain", kind="cover", points=triangle,
                      height="standard", label="Wood")
    assert events[0].payload == {"id": "ter1", "kind": "cover",
                                 "points": [[1.0, 1.0], [5.0, 1.0], [5.0, 4.0]],
                                 "height": "standard", "label": "Wood", "action_by": 2}
    assert game.state.next_id == 2
    err = game.refused(1, type="place_terrain", kind="impassable",
                       points=[[2, 1.5], [4, 1.5], [4, 3]])
    assert (err.code, err.details) == ("illegal_move",
                                       {"rule": "Terrain Overlap", "obstacle": "ter1"})
    err = game.refused(1, type="place_terrain", kind="cover", points=[[55, 40], [62, 40],
                                                                       [62, 43]])
    assert (err.code, err.details) == ("illegal_move", {"rule": "Battlefield Edge"})
    view = game.state.to_json()["terrain"]
    assert [(t["id"], t["label"], t["height"]) for t in view] == [("ter1", "Wood", "standard")]


def test_a_preset_table_is_scaled_to_the_battlefield_and_needs_a_bare_table() -> None:
    """The village is drawn for 72 x 48 in; on a 60 x 44 in table the Farmhouse's corner
    (30, 20) lands at (25, 18.333). A table that already has terrain takes no preset."""
    game = Game("wh40k10")
    events = game.act(1, type="use_preset_table", preset="village")
    assert [e.payload["label"] for e in events] == ["Farmhouse", "Orchard", "Hill", "Marsh"]
    assert events[0].payload["points"][0] == [25.0, 18.333]
    assert [e.payload["id"] for e in events] == ["ter1", "ter2", "ter3", "ter4"]
    err = game.refused(2, type="use_preset_table", preset="ruins")
    assert (err.code, err.details) == ("illegal_move", {"rule": "Preset Table"})
    assert Game("t9a").act(1, type="use_preset_table", preset="open-field") == []


def test_an_army_takes_files_standards_and_joined_characters_from_its_entries() -> None:
    """Ranked units default to 5 files (or fewer models); a Standard Bearer is a marker; a
    joined character's name joins the unit's."""
    game = Game("t9a")
    events = game.act(1, type="submit_army", units=[
        {"datasheet": "citizen-spears", "models": 20, "standard": True,
         "joined_characters": ["highborn-commander"]},
    ])
    (spears,) = events[0].payload["units"]
    assert (spears["files"], spears["markers"], spears["name"]) == (
        5, ["standard"], "Citizen Spears + Highborn Commander"
    )
    assert [c["datasheet"] for c in spears["characters"]] == ["highborn-commander"]
    assert [e.type for e in events] == ["army_submitted"]  # player 2 has not submitted yet
    (gremlins,) = game.act(2, type="submit_army", units=[
        {"datasheet": "mageblight-gremlin", "models": 3}])[0].payload["units"]
    assert gremlins["files"] == 3
    forty = Game("wh40k10")
    boyz = forty.act(1, type="submit_army", units=[{"datasheet": "boyz", "models": 10}])
    assert boyz[0].payload["units"][0]["files"] is None  # 40k units have no files


def test_deployment_alternates_until_a_player_runs_out_then_the_other_finishes() -> None:
    """whfb8: player 1 has two units, player 2 one. Player 1 keeps the Tomb King in reserve
    (Entombed Beneath the Sands), player 2 deploys (facing 180 by default), player 1 deploys
    the last unit and the battle starts. A unit in reserve cannot be deployed as well."""
    game = Game("whfb8")
    game.act(1, type="submit_army", units=[{"datasheet": "skeleton-warriors", "models": 20},
                                           {"datasheet": "tomb-king", "models": 1}])
    game.act(2, type="submit_army", units=[{"datasheet": "empire-halberdiers", "models": 12}])
    events = game.act(1, type="declare_reserve", unit="u2", mode="reserve")
    assert [e.type for e in events] == ["unit_deployed", "deploying"]
    assert events[0].payload["rule"] == "Entombed Beneath the Sands"
    assert events[1].payload == {"deploying": 2}
    assert game.unit("u2").status == "reserve"
    events = game.act(2, type="deploy_unit", unit="u3", x=36, y=40)
    assert events[0].payload["unit"]["placement"] == {"x": 36.0, "y": 40.0, "facing": 180.0}
    assert events[1].payload == {"deploying": 1}
    err = game.refused(1, type="deploy_unit", unit="u2", x=36, y=6)
    assert (err.code, err.message) == ("out_of_phase", "Tomb King is already reserve")
    events = game.act(1, type="deploy_unit", unit="u1", x=36, y=6)
    assert [e.type for e in events] == ["unit_deployed", "battle_started"]
    assert game.state.to_json()["stage"] == "battle"


def test_a_player_with_units_left_deploys_again_when_the_other_has_none() -> None:
    game = Game("t9a")
    game.act(1, type="submit_army", units=[{"datasheet": "citizen-spears", "models": 10}])
    game.act(2, type="submit_army", units=[{"datasheet": "citizen-spears", "models": 10},
                                           {"datasheet": "citizen-spears", "models": 10}])
    assert game.act(1, type="deploy_unit", unit="u1", x=20, y=6)[-1].payload == {"deploying": 2}
    events = game.act(2, type="deploy_unit", unit="u2", x=20, y=42)
    assert events[-1].payload == {"deploying": 2}
    events = game.act(2, type="deploy_unit", unit="u3", x=50, y=42)
    assert events[-1].type == "battle_started"


def test_a_unit_of_your_own_is_kept_in_the_log_and_plays_like_any_unit_after_a_replay() -> None:
    """Issue 18 item 2: the army's units of your own travel in `army_submitted` (the log), so a
    replay of the log alone rebuilds them: the rules engine finds the datasheet (its base, its
    rules, its points) once the first game is gone."""
    import dataclasses
    import gc
    import json

    from server.dice import DiceStream
    from server.rules import core
    from server.rules.rankandflank.victory import army_points
    from server.rules.units import datasheet_of, footprint_of, units_of
    from tests.data.test_own_units import sea_guard

    game = Game("t9a")
    guard = sea_guard(name="Replayed Guard",
                      special_rules=["Fearless", "Ambush (Battlefield Edge)"])
    game.act(1, type="submit_army", own_units=[guard],
             units=[{"datasheet": "my-sea-guard", "models": 10}])
    game.act(2, type="submit_army", units=[{"datasheet": "citizen-spears", "models": 20}])
    # The log as stored (JSON), and nothing else of the first game.
    log = [dataclasses.replace(e, payload=json.loads(json.dumps(e.payload))) for e in game.log]
    sheet_id = units_of(game.state)["u1"].datasheet
    del game
    gc.collect()
    state = core.replay(log)
    unit = units_of(state)["u1"]
    sheet = datasheet_of(state, unit)
    assert (sheet.id, sheet.name, sheet.own) == (sheet_id, "Replayed Guard", True)
    assert army_points(state, 1) == 50 + 10 * 12
    # It keeps Ambush like any unit with the rule (an automated rule works).
    events = core.decide(state, 1, {"type": "declare_reserve", "unit": "u1"},
                         DiceStream(b"x" * 32, 0))
    assert events[0].payload["rule"] == "Ambush"
    assert footprint_of(state, unit) is None  # not on the table yet
