"""By agreement (issue 4 item 7): a player proposes a free move or an undo; it happens only
when the opponent accepts. Everything is an event, so spectators see the whole exchange.

Actions (any time both seats play and the game is not over, whoever's turn it is):

* ``{"type": "propose", "kind": "undo", "seq": N}`` — take back every event from seq N to the
  end of the log (proposal bookkeeping aside). Without ``seq``: the last event. A client undoes
  its last action by sending the seq of the first event of that action's batch (one ``events``
  frame is one action's batch); ``state.undoable`` lists what may be taken back.
* ``{"type": "propose", "kind": "free_move", "unit": id, "x", "y", "facing", "files"?}`` (a
  ranked unit, placed by its front-edge centre) or ``{..., "positions": [[x, y], ...]}`` (40k
  models) — put a unit on the table anywhere, bypassing the movement rules.
* ``{"type": "accept_proposal"}`` (the opponent), ``{"type": "decline_proposal"}`` (the
  opponent declines, the proposer withdraws). Both may name the proposal: ``"id": "p3"``.

Events: ``proposal_made`` {id, by, kind, description, head, undo: {from_seq, events: [{seq,
type}]} | free_move: {unit, unit_after}}, ``proposal_accepted`` {id, by}, ``proposal_declined``
{id, by, withdrawn}, ``proposal_lapsed`` {id, reason}, then for an accepted undo
``events_undone`` {proposal, seqs, dice_position, rolls, next_id} (server/rules/core.py: the
state becomes the fold of the log without those seqs; dice are never rewound) and for an
accepted free move ``free_move`` {proposal, unit, by_agreement: true}.

Decisions: one open proposal at a time. A proposal lapses when the game moves on before it is
answered (any other event folded after it): accepting it then records ``proposal_lapsed``
instead, and a new proposal replaces it. A free move is checked only against the table edge,
Impassable Terrain and overlapping other units or (40k) its own models; Unit Spacing does not
apply, so players can agree to put units into base contact. It does not count as the unit's
move for the phase. An undo never reaches back past a seat being claimed or the game's end,
nor further than the last `UNDO_WINDOW` events.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from pydantic import Field

from server import geometry as geo
from server.dice import DiceStream
from server.geometry import movement
from server.geometry.footprint import footprint, models_footprint, overlapping_models
from server.geometry.formation import ModelPlacement
from server.geometry.frame import Placement
from server.rules.battle import other
from server.rules.core import (
    ANY_TIME,
    BAD_REQUEST,
    ILLEGAL_MOVE,
    OUT_OF_PHASE,
    PUBLIC,
    UNDO_EVENT,
    UNDO_WINDOW,
    ActionModel,
    Event,
    GameState,
    RuleError,
    register_action,
    register_folder,
    register_projector,
)
from server.rules.units import (
    Coord,
    Facing,
    Unit,
    _base,
    _formation,
    _set,
    _unit,
    _with_unit,
    datasheet_of,
    is_ranked,
    table_of,
    unit_from_json,
)


def open_proposal(state: GameState) -> dict[str, Any] | None:
    proposal: dict[str, Any] | None = state.extra.get("proposal")
    return proposal


def head(state: GameState) -> int:
    """The seq of the last event that changed the game (not proposal bookkeeping)."""
    return state.undoable[-1][0] if state.undoable else 0


# --- propose ------------------------------------------------------------------------------------


class Propose(ActionModel):
    type: Literal["propose"]
    kind: Literal["undo", "free_move"]
    seq: int | None = Field(default=None, ge=1)
    unit: str | None = None
    x: Coord | None = None
    y: Coord | None = None
    facing: Facing = 0.0
    files: int | None = Field(default=None, ge=1, le=50)
    positions: list[tuple[Coord, Coord]] | None = Field(default=None, min_length=1,
                                                         max_length=200)


def _undo_plan(state: GameState, seq: int | None) -> dict[str, Any]:
    if not state.undoable:
        raise RuleError(ILLEGAL_MOVE, "there is nothing to undo", rule="Undo")
    first = state.undoable[0][0]
    start = state.undoable[-1][0] if seq is None else seq
    if start > head(state):
        raise RuleError(
            ILLEGAL_MOVE, f"seq {start} is past the last event ({head(state)})", rule="Undo"
        )
    if start < first:
        raise RuleError(
            ILLEGAL_MOVE,
            f"an undo reaches back to seq {first} at most (seat claims, the game's start and "
            f"the last {UNDO_WINDOW} events are the limit)",
            rule="Undo",
            earliest=first,
        )
    taken = [e for e in state.undoable if e[0] >= start]
    return {
        "from_seq": start,
        "events": [
            {"seq": s, "type": t if vis == PUBLIC else "hidden"} for s, t, _, vis in taken
        ],
    }


def _free_move_plan(state: GameState, seat: int, action: Propose) -> dict[str, Any]:
    if action.unit is None:
        raise RuleError(BAD_REQUEST, "a free move names a unit", field="unit")
    unit = _unit(state, action.unit)
    if unit.status != "on_table":
        raise RuleError(ILLEGAL_MOVE, f"{unit.name} is not on the table", rule="Free Move")
    after = placed(state, unit, action)
    return {"unit": unit.id, "unit_after": after.to_json()}


def placed(state: GameState, unit: Unit, action: Propose) -> Unit:
    """`unit` where the free move puts it, checked against the table edge, Impassable Terrain
    and overlap (geometry core), or `illegal_move` naming the rule and the obstacle."""
    table = table_of(state)
    if is_ranked(state.system):
        if action.x is None or action.y is None:
            raise RuleError(BAD_REQUEST, "a free move of a ranked unit gives x, y and facing",
                            field="x")
        files = action.files or unit.files or 1
        formation = _formation(
            state.system, unit.datasheet, unit.models, files,
            tuple(c.datasheet for c in unit.characters),
        )
        fp = footprint(formation, Placement(action.x, action.y, action.facing))
        after = dataclasses.replace(
            unit,
            placement=(round(action.x, 4), round(action.y, 4), round(action.facing % 360.0, 4)),
            files=formation.files,
        )
    else:
        if not action.positions or len(action.positions) != len(unit.positions):
            raise RuleError(
                BAD_REQUEST,
                f"{unit.name} has {len(unit.positions)} models; give one position for each",
                field="positions",
            )
        base = _base(datasheet_of(state, unit))
        fp = models_footprint([ModelPlacement(x, y, base) for x, y in action.positions])
        if overlapping_models(fp):
            raise RuleError(ILLEGAL_MOVE, f"{unit.name}'s models would overlap",
                            rule="Model Overlap", obstacle=unit.id)
        after = dataclasses.replace(
            unit, positions=tuple((round(x, 4), round(y, 4)) for x, y in action.positions)
        )
    others = [u for u in table.units if u != unit.id]
    rule, obstacle = movement.check_area(
        table, unit.id, fp.boundary, fp.boundary, charging=others, terrain_spacing=False
    )
    if rule is not None:
        raise RuleError(
            ILLEGAL_MOVE,
            f"{unit.name} cannot be put there: {rule}"
            + (f" ({obstacle} is in the way)" if obstacle else ""),
            rule=str(rule),
            obstacle=obstacle,
            swept=geo.to_geojson(fp.boundary),
        )
    return after


@register_action(
    "propose",
    Propose,
    when=ANY_TIME,
    doing="a proposal",
    needs_opponent=True,
    # the swept region of a proposed free move is agreed between the players, not measured
    sweeps=False,
)
def propose(state: GameState, seat: int, action: Propose, dice: DiceStream) -> list[Event]:
    """Propose an undo or a free move; it waits for the opponent's answer."""
    events: list[Event] = []
    current = open_proposal(state)
    if current is not None:
        if current["head"] == head(state):
            raise RuleError(
                ILLEGAL_MOVE,
                f"proposal {current['id']} by player {current['by']} is still open: accept, "
                "decline or withdraw it first",
                rule="One Proposal at a Time",
                proposal=current["id"],
            )
        events.append(_lapsed(current))
    number = int(state.extra.get("proposals_made", 0)) + 1
    payload: dict[str, Any] = {"id": f"p{number}", "by": seat, "kind": action.kind,
                               "head": head(state)}
    if action.kind == "undo":
        plan = _undo_plan(state, action.seq)
        payload["undo"] = plan
        n = len(plan["events"])
        payload["description"] = (
            f"undo {n} event{'s' if n != 1 else ''} from seq {plan['from_seq']}"
        )
    else:
        plan = _free_move_plan(state, seat, action)
        payload["free_move"] = plan
        payload["description"] = f"free move of {plan['unit']}"
    return [*events, Event("proposal_made", payload, actor=seat)]


def _lapsed(current: dict[str, Any]) -> Event:
    return Event(
        "proposal_lapsed",
        {"id": current["id"], "reason": "the game moved on before it was answered"},
    )


# --- answer -------------------------------------------------------------------------------------


class Answer(ActionModel):
    type: Literal["accept_proposal", "decline_proposal"]
    id: str | None = None


def _answering(state: GameState, action: Answer) -> dict[str, Any]:
    current = open_proposal(state)
    if current is None:
        raise RuleError(OUT_OF_PHASE, "no proposal is open")
    if action.id is not None and action.id != current["id"]:
        raise RuleError(
            OUT_OF_PHASE,
            f"proposal {action.id} is not the open one ({current['id']})",
            proposal=current["id"],
        )
    return current


@register_action(
    "accept_proposal",
    Answer,
    when=ANY_TIME,
    doing="answering a proposal",
    needs_opponent=True,
    sweeps=False,
)
def accept_proposal(state: GameState, seat: int, action: Answer, dice: DiceStream) -> list[Event]:
    """The opponent accepts: the undo or free move happens now (or the proposal lapses if the
    game moved on since it was made)."""
    current = _answering(state, action)
    if current["by"] == seat:
        raise RuleError(
            OUT_OF_PHASE,
            f"proposal {current['id']} is yours: player {other(seat)} accepts or declines it",
            proposal=current["id"],
        )
    if current["head"] != head(state):
        return [_lapsed(current)]
    accepted = Event("proposal_accepted", {"id": current["id"], "by": seat}, actor=seat)
    if current["kind"] == "undo":
        seqs = [e["seq"] for e in current["undo"]["events"]]
        return [
            accepted,
            Event(
                UNDO_EVENT,
                {
                    "proposal": current["id"],
                    "seqs": seqs,
                    "dice_position": state.dice_position,
                    "rolls": state.rolls,
                    "next_id": state.next_id,
                },
                actor=seat,
            ),
        ]
    plan = current["free_move"]
    # Checked again against the table as it is now (it has not changed: same head).
    return [
        accepted,
        Event(
            "free_move",
            {
                "proposal": current["id"],
                "unit": plan["unit_after"],
                "by_agreement": True,
            },
            actor=current["by"],
        ),
    ]


@register_action(
    "decline_proposal", Answer, when=ANY_TIME, doing="answering a proposal", needs_opponent=True
)
def decline_proposal(
    state: GameState, seat: int, action: Answer, dice: DiceStream
) -> list[Event]:
    """The opponent declines, or the proposer withdraws: nothing happens."""
    current = _answering(state, action)
    return [
        Event(
            "proposal_declined",
            {"id": current["id"], "by": seat, "withdrawn": current["by"] == seat},
            actor=seat,
        )
    ]


# --- folds and what the players see --------------------------------------------------------------


@register_folder("proposal_made")
def _fold_made(state: GameState, event: Event) -> GameState:
    return _set(
        state,
        proposal=dict(event.payload),
        proposals_made=int(state.extra.get("proposals_made", 0)) + 1,
    )


def _closed(state: GameState, event: Event) -> GameState:
    return _set(state, proposal=None)


for _name in ("proposal_accepted", "proposal_declined", "proposal_lapsed"):
    register_folder(_name)(_closed)


@register_folder(UNDO_EVENT)
def _fold_undone(state: GameState, event: Event) -> GameState:
    """Only the counters: `replay` already left the undone events out of the fold."""
    p = event.payload
    return dataclasses.replace(
        state,
        dice_position=max(state.dice_position, int(p.get("dice_position", 0))),
        rolls=max(state.rolls, int(p.get("rolls", 0))),
        next_id=max(state.next_id, int(p.get("next_id", 1))),
    )


@register_folder("free_move")
def _fold_free_move(state: GameState, event: Event) -> GameState:
    return _with_unit(state, unit_from_json(event.payload["unit"]))


@register_projector
def _project_proposals(state: GameState, viewer: int | None, out: dict[str, Any]) -> None:
    current = open_proposal(state)
    out["proposal"] = None if current is None else {
        **current,
        "open": current["head"] == head(state),
    }
    out["undoable"] = [
        {"seq": s, "type": t if vis == PUBLIC else "hidden", "actor": a}
        for s, t, a, vis in state.undoable[-20:]
    ]


__all__ = ["accept_proposal", "decline_proposal", "propose"]
