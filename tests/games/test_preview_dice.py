"""Issue 12 item 1, the service side: a preview never sees the game's dice. `GameService.preview`
decides on a throwaway stream (a fresh random seed at the game's position), and neither a
preview nor a refused action moves the game's dice."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from server.config import Settings
from server.dice import DiceStream
from server.games import service as service_module
from server.games.service import GameService
from server.hub import LocalHub
from server.rules.core import RuleError
from server.store import EventStore, make_engine
from server.store.migrate import upgrade


async def _moving_40k_game(service: GameService) -> tuple[str, str, str]:
    """A wh40k10 game at player 1's Movement phase: Boyz u1 against Intercessors u2."""
    game = await service.create_game("wh40k10")
    await service.claim_seat(game.id, game.invite)
    await service.act(game.id, 1, {"type": "submit_army",
                                   "units": [{"datasheet": "boyz", "models": 10}]})
    await service.act(game.id, 2, {"type": "submit_army",
                                   "units": [{"datasheet": "intercessor-squad", "models": 5}]})
    await service.act(game.id, 1, {"type": "deploy_unit", "unit": "u1", "x": 20, "y": 8})
    await service.act(game.id, 2, {"type": "deploy_unit", "unit": "u2", "x": 20, "y": 36,
                                   "facing": 180})
    await service.act(game.id, 1, {"type": "end_phase"})  # Command -> Movement
    return game.id, "u1", "u2"


def test_a_preview_decides_on_a_throwaway_stream_and_moves_no_die(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = Settings(DATABASE_URL=f"sqlite:///{tmp_path}/w.db", WARFIELD_DATA_DIR=str(tmp_path))
    engine = make_engine(config.effective_database_url)
    upgrade(engine)
    service = GameService(EventStore(engine), LocalHub())
    seen: list[DiceStream] = []
    real_preview = service_module.questions.preview

    def spy(state: Any, seat: Any, action: Any, dice: DiceStream) -> dict[str, Any]:
        seen.append(dice)
        return real_preview(state, seat, action, dice)

    monkeypatch.setattr(service_module.questions, "preview", spy)

    async def scenario() -> None:
        game_id, u1, _ = await _moving_40k_game(service)
        live = await service.live(game_id)
        position = live.state.dice_position
        game_dice = DiceStream(live.record.dice_seed, position).roll("30D6").to_payload()
        answers = [await service.preview(game_id, 1, {"type": "advance", "unit": u1})
                   for _ in range(3)]
        assert all(a == answers[0] for a in answers) and answers[0]["legal"] is True
        assert len(seen) == 3 and all(d.position == position + 1 for d in seen)
        for dice in seen:  # each preview rolled its own stream, never the game's
            assert dice.commitment != live.record.dice_commitment
            again = DiceStream(dice._seed, position).roll("30D6").to_payload()
            assert again["dice"] != game_dice["dice"]
        # A refused Advance move: no die rolled, none reported, the dice where they were.
        ahead = [[x, y + 20] for x, y in live.state.units[u1].positions]
        with pytest.raises(RuleError) as err:
            await service.act(game_id, 1, {"type": "move_models", "unit": u1,
                                           "positions": ahead, "advance": True})
        assert err.value.details["rule"] == "Advance"
        assert (await service.live(game_id)).state.dice_position == position
        # The real Advance rolls the game's next die, as the commitment says.
        await service.act(game_id, 1, {"type": "advance", "unit": u1})
        state = (await service.live(game_id)).state
        assert state.dice_position == position + 1
        assert state.moves.phase[u1]["advanced"] == game_dice["dice"][0]["face"]

    asyncio.run(scenario())
