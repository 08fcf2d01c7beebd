"""Attacks spilling onto a joined character are rolled against its own profile (issue 17
item 5). Seed 000 (000_ac64b535f31b5cdf.txt), Supernal: losses go "first ... towards
Rank-and-File models, and once enough ... to remove all Rank-and-File models, any remaining ...
towards Attachable Models"; Hard Target: "Shooting Attacks allocated against a Health Pool with
Hard Target suffer -X to hit" — the profile is the Health Pool's the attacks are allocated to."""

from __future__ import annotations

from server.rules.core import GameState
from tests.rules.t9a.test_combat import ARCHERS, GREMLINS, SPEARS, position, run, unit, with_units


def archers_and_one_gremlin_with_herald() -> GameState:
    """10 Citizen Archers 20 in from the Gremlins + Daemon Herald, one Gremlin left with 1 HP."""
    state = position(
        [{"datasheet": ARCHERS, "models": 10, "files": 5}, {"datasheet": SPEARS, "models": 10}],
        [{"datasheet": GREMLINS, "models": 3, "joined_characters": ["daemon-herald"]}],
        {"u1": (36.0, 10.0, 0.0), "u2": (10.0, 10.0, 0.0), "u3": (36.0, 30.0, 180.0)},
        phase="Shooting",
    )
    return with_units(state, u3={"models": 1, "damage": 3})


def test_shots_spilling_onto_the_herald_roll_against_the_heralds_profile() -> None:
    """Against the last Gremlin (1 HP left): 10 shots need 6+ (4+, Long Range, Hard Target):
    three 6s hit, wound on 4+ (S3 vs R3), Aegis 5+ fails three times: 3 unsaved, the Gremlin
    takes 1. The 2 attacks left spill onto the Daemon Herald and are rolled against *its*
    profile: 5+ to hit (no Hard Target on the Herald), 5+ to wound (S3 vs Resilience 4),
    Aegis 5+: one Health Point lost, not two."""
    state = archers_and_one_gremlin_with_herald()
    faces = [6, 6, 6, 1, 1, 1, 1, 1, 1, 1] + [6, 6, 6] + [1, 1, 1]
    faces += [5, 6] + [5, 4] + [1]
    state, events = run(state, 1, faces, type="shoot", unit="u1", target="u3")
    steps = [e.payload for e in events if e.type == "attack_step"]
    herald = [s for s in steps if "Daemon Herald" in s["text"]]
    assert herald, [s["text"] for s in steps]
    to_hit = next(s for s in herald if s["step"] == "to_hit")
    assert to_hit["dice"] == 2 and to_hit["needed"] == 5
    assert "Hard Target" not in [r["rule"] for r in to_hit["rules"]]
    to_wound = next(s for s in herald if s["step"] == "to_wound")
    assert to_wound["needed"] == 5 and "Resilience 4" in to_wound["text"]
    after = unit(state, "u3")
    assert after.models == 0
    assert [(c.name, c.damage) for c in after.characters] == [("Daemon Herald", 1)]
