"""What a 40k player sees while deploying: the objective markers are on the table from
deployment on (where to deploy depends on them), with who holds each."""

from __future__ import annotations

from tests.rules.helpers import Game

BOYZ = {"datasheet": "beast-snagga-boyz", "models": 10}
INTERCESSORS = {"datasheet": "intercessor-squad", "models": 5}


def test_the_objectives_are_shown_from_deployment_on() -> None:
    game = Game("wh40k10")
    game.act(1, type="submit_army", units=[BOYZ])
    assert "forty" not in game.state.to_json(1)  # setup: no armies on the table yet
    game.act(2, type="submit_army", units=[INTERCESSORS])
    assert game.state.battle.stage == "deployment"
    for viewer in (1, 2, None):
        marks = game.state.to_json(viewer)["forty"]["objectives"]
        # The five markers on the 60 x 44 in table; nobody holds one yet.
        assert [(m["x"], m["y"]) for m in marks][0] == (30, 22) and len(marks) == 5
        assert {m["controller"] for m in marks} == {None}
