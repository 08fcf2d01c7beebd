"""REST: a game's state at any seq, as the viewer was shown it then, and its timeline.

`GET /api/games/{id}/state?at=SEQ` folds the log up to SEQ (`core.replay`, through
server/games/replay.py's checkpoints) and projects it for the authenticated viewer;
`GET /api/games/{id}/timeline` lists every event as the viewer may see it with the turn, player
and phase after it. A finished game can be replayed by anyone; a running one by its players
only, up to now (a spectator watches it live).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from pydantic import BaseModel
from starlette.applications import Starlette

from server.api.deps import ServiceDep, TokenDep
from server.api.errors import error_responses
from server.games import delay
from server.games.replay import Replay, timeline
from server.games.service import GameService, LiveGame
from server.rules.core import BAD_REQUEST, FORBIDDEN, GameState, RuleError

router = APIRouter(prefix="/api/games", tags=["replay"])
GameId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
MAX_SEQ = 2**31 - 1
REPLAYS_CACHED = 32


class ReplayCache:
    """The `Replay` of the games replayed lately (least recently used dropped first), each
    brought up to the game's seq before it answers; one lock per game, so one fold at a time."""

    def __init__(self, size: int = REPLAYS_CACHED) -> None:
        self.size = size
        self._replays: OrderedDict[str, Replay] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}

    async def of(self, service: GameService, live: LiveGame) -> Replay:
        game_id = live.record.id
        lock = self._locks.setdefault(game_id, asyncio.Lock())
        async with lock:
            target = live.state.seq
            replay = self._replays.get(game_id)
            if replay is not None and (replay.seq > target or not _same_game(replay, live)):
                replay = None  # the game was deleted and its id used again
            if replay is None:
                events = await asyncio.to_thread(service.store.events, game_id, 0, target)
                replay = await asyncio.to_thread(Replay, events)
            elif replay.seq < target:
                newer = await asyncio.to_thread(service.store.events, game_id, replay.seq, target)
                await asyncio.to_thread(replay.extend, newer)
            self._replays[game_id] = replay
            self._replays.move_to_end(game_id)
            while len(self._replays) > self.size:
                gone, _ = self._replays.popitem(last=False)
                self._locks.pop(gone, None)
            return replay


def _same_game(replay: Replay, live: LiveGame) -> bool:
    first = replay.events[0] if replay.events else None
    return first is None or first.payload.get("dice_commitment") in (
        None, live.record.dice_commitment
    )


def replay_cache(app: Starlette) -> ReplayCache:
    """The app's `ReplayCache` (REST and the websocket share it)."""
    state = app.state
    cache: ReplayCache | None = getattr(state, "replays", None)
    if cache is None:
        cache = state.replays = ReplayCache()
    return cache


def replays(request: Request) -> ReplayCache:
    return replay_cache(request.app)


async def state_at_seq(
    service: GameService, cache: ReplayCache, live: LiveGame, seq: int
) -> GameState:
    """`core.replay(log[:seq])` from the game's replay checkpoints (a spectator's delayed view)."""
    replay = await cache.of(service, live)
    return await asyncio.to_thread(replay.state_at, min(seq, replay.seq))


ReplaysDep = Annotated[ReplayCache, Depends(replays)]


async def replay_for(
    service: GameService, cache: ReplayCache, game_id: str, token: str | None
) -> tuple[int | None, LiveGame, Replay]:
    """The viewer, the live game and its replay up to now; a spectator only once it is over
    (and, in a game with a spectator delay, once its whole log is older than the delay)."""
    viewer = await service.authenticate(game_id, token)
    live = await service.live(game_id)
    if viewer is None and not live.state.over:
        raise RuleError(
            FORBIDDEN,
            "a running game can be replayed by its players only; spectators can replay it "
            "once it is over",
        )
    visible = await delay.horizon(service, live) if viewer is None else None
    replay = await cache.of(service, live)
    if visible is not None and visible < replay.seq:
        raise RuleError(
            FORBIDDEN,
            f"this game keeps spectators {delay.delay_of(live)} s behind; its end can be "
            "replayed by spectators once the delay has passed",
            delay_s=delay.delay_of(live),
        )
    return viewer, live, replay


class ReplayState(BaseModel):
    id: str
    system: str
    seq: int
    last: int
    over: bool
    event: dict[str, Any] | None
    state: dict[str, Any]


class TimelineEntry(BaseModel):
    seq: int
    stage: str
    turn: int | None
    player: int | None
    phase: str | None
    type: str
    actor: int | str


class Timeline(BaseModel):
    id: str
    system: str
    last: int
    over: bool
    steps: list[TimelineEntry]


@router.get(
    "/{game_id}/state",
    response_model=ReplayState,
    responses=error_responses(400, 401, 403, 404),
)
async def state_at(
    game_id: GameId,
    service: ServiceDep,
    token: TokenDep,
    cache: ReplaysDep,
    at: Annotated[int, Query(ge=0, le=MAX_SEQ)],
) -> ReplayState:
    """The game's state at seq `at` as this viewer was shown it then (hidden parts stay
    hidden until the game revealed them), with the event of that seq as the viewer sees it."""
    viewer, live, replay = await replay_for(service, cache, game_id, token)
    if at > replay.seq:
        raise RuleError(
            BAD_REQUEST, f"the game has {replay.seq} events; there is no seq {at} yet",
            field="at", last=replay.seq,
        )
    state = await asyncio.to_thread(replay.state_at, at)
    view = await asyncio.to_thread(state.to_json, viewer)
    return ReplayState(
        id=game_id,
        system=live.state.system,
        seq=at,
        last=replay.seq,
        over=replay.state.over,
        event=replay.events[at - 1].to_wire(viewer) if at else None,
        state=view,
    )


@router.get(
    "/{game_id}/timeline",
    response_model=Timeline,
    responses=error_responses(400, 401, 403, 404),
)
async def read_timeline(
    game_id: GameId, service: ServiceDep, token: TokenDep, cache: ReplaysDep
) -> Timeline:
    """Every event of the game (hidden ones as `hidden`) with the turn, active player and
    phase after it: the replay's scrubber."""
    viewer, live, replay = await replay_for(service, cache, game_id, token)
    return Timeline(
        id=game_id,
        system=live.state.system,
        last=replay.seq,
        over=replay.state.over,
        steps=[TimelineEntry(**s) for s in timeline(replay, viewer)],
    )
