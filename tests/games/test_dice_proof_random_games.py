"""Every dice proof verifies: whole games of each system played at random over the orders the
server offers (tests/games/random_play.py: the lobby's roll-offs, Ambush, Fanatics hidden and
released, the Entombed Tomb Swarm, charges and their reactions, shooting, combat, Stratagems
and the Waaagh!, undo proposals accepted and declined), each ending with its seed revealed and
`/dice-proof`'s check (`archive.dice_proof`) finding every draw of the stream accounted for
exactly once. No game gets stuck: each reaches its own end, and no offered order answers
anything but a refusal in words. The replay of each log equals the state played live."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from server.games import archive
from server.rules import core
from tests.games.random_play import ARMIES, Played, play


def _proof(game: Played) -> dict[str, object]:
    return archive.dice_proof(game.commitment, game.seed, game.log)


@pytest.mark.parametrize("system", sorted(ARMIES))
# No shrinking: a failing game is reported with its seed, which replays it exactly.
@settings(max_examples=5, deadline=None, derandomize=True, database=None,
          phases=(Phase.explicit, Phase.generate),
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.binary(min_size=32, max_size=32))
def test_every_random_game_s_dice_proof_verifies(system: str, seed: bytes) -> None:
    game = play(system, seed, actions=400)
    proof = _proof(game)
    assert proof["verified"], (system, seed.hex(), proof["failures"])
    assert proof["rolls"] == sum(len(core.rolls_of(e.payload)) for e in game.log)
    assert game.ended_by_play, (system, seed.hex(), game.state.battle.turn, game.kinds)
    assert game.longest_stall < 25, (system, seed.hex(), game.longest_stall)
    replayed = core.replay(game.log[:-1])  # the reveal is the server's, not the game's
    assert replayed.to_json(None) == game.state.to_json(None)


def test_the_random_games_reach_the_rules_the_proof_must_follow() -> None:
    """The random player is not idle: across a few games it releases Fanatics (whose later
    moves roll a scatter), brings on the Tomb Swarm, arrives from Ambush, charges, fights and
    takes back moves; a proof that only saw end_phase would prove nothing."""
    seen: set[str] = set()
    for system in sorted(ARMIES):
        for n in range(4):
            game = play(system, n.to_bytes(4, "big") * 8, actions=400,
                        armies=n % len(ARMIES[system]))
            assert _proof(game)["verified"], (system, n)
            seen.update(e.type for e in game.log)
    for kind in ("roll_off", "fanatic_released", "fanatic_moved", "entombed_emerged",
                 "ambush_rolled", "charge_succeeded", "charge_failed", "events_undone",
                 "attack_step"):
        assert kind in seen, kind


def test_the_browser_reads_dice_where_the_proof_counts_them() -> None:
    """The dice log and the replay page (static/js/ui/panels.js `rollsOf`) walk payloads with
    the same declaration as the proof: the same roll fields and the same reference keys."""
    import re
    from pathlib import Path

    text = (Path(__file__).parents[2] / "static/js/ui/panels.js").read_text()

    def listed(name: str) -> set[str]:
        found = re.search(rf"const {name} = \[([^\]]*)\]", text)
        assert found, name
        return set(re.findall(r"'([a-z_]+)'", found.group(1)))

    assert listed("ROLL_FIELDS") == core.ROLL_FIELDS
    assert listed("ROLL_REFERENCES") == core.ROLL_REFERENCES
