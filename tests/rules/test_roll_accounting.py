"""Where an event keeps its dice is declared once (`core.ROLL_KEYS`: the shape of
`Roll.to_payload()`): a roll counts for the dice proof and the stream position wherever it sits
in a payload, so no event kind has to list its rolls and none can forget one."""

from __future__ import annotations

from server import dice
from server.dice import DiceStream
from server.rules import core
from tests.rules.helpers import SEED


def test_a_roll_is_known_by_its_shape_at_any_depth_and_in_draw_order() -> None:
    stream = DiceStream(SEED, 0)
    first, second, third = (stream.roll(e).to_payload() for e in ("scatter", "2D6", "D3"))
    payload = {"text": "x", "whirl": {"hits": [{"unit": "u2", "wounds": third}]},
               "roll": second, "scatter": first, "roll_index": 1}
    found = core.rolls_of(payload)
    assert found == [first, second, third]
    assert core.dice_end(payload) == stream.position
    assert dice.verify(SEED, dice.commitment(SEED), found).ok


def test_the_declared_shape_is_what_a_roll_records() -> None:
    recorded = DiceStream(SEED, 0).roll("D6").to_payload()
    assert set(recorded) >= core.ROLL_KEYS
    assert core.rolls_of({"undo": {"expression": "D6", "total": 3, "faces": [3]}}) == []
