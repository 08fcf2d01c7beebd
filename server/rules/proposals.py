"""By agreement (issue 4 item 7): a player proposes a free move or an undo; it happens only
when the opponent accepts. Everything is an event, so spectators see the whole exchange.

Actions (any time both seats play and the game is not over, whoever's turn it is):

* ``{"type": "propose", "kind": "undo", "seq": N}`` — take back every event from seq N to the
  end of the log (proposal bookkeeping aside). N must start one of the proposer's own actions
  since the opponent last acted (`own_actions`); without ``seq``: the last of them. The
  ``undo`` game order offers it with the events in words and the rolls it discards.
* ``{"type": "propose", "kind": "free_move", "unit": id, "x", "y", "facing", "files"?}`` (a
  ranked unit, placed by its front-edge centre) or ``{..., "positions": [[x, y], ...]}`` (40k
  models) — put a unit on the table anywhere, bypassing the movement rules.
* ``{"type": "accept_proposal"}`` (the opponent), ``{"type": "decline_proposal"}`` (the
  opponent declines, the proposer withdraws). Both may name the proposal: ``"id": "p3"``.

Events: ``proposal_made`` {id, by, kind, description, head, undo: {from_seq, events: [{seq,
type, text}], rolls: [{seq, type, units, unit_name, expression, total, faces}]} | free_move:
{unit, unit_after, outline}}, ``proposal_accepted`` {id, by}, ``proposal_declined`` {id, by,
withdrawn}, ``proposal_lapsed`` {id, reason}, then for an accepted undo ``events_undone``
{proposal, seqs, discarded (the rolls above), when, dice_position, rolls, next_id}
(server/rules/core.py: the state becomes the fold of the log without those seqs; dice are never
rewound) and for an accepted free move ``free_move`` {proposal, unit, by_agreement: true}. A
roll made again for the same unit in the same phase after an undo carries ``reroll`` {of,
expression, total, faces} (`mark_rerolls`).

Decisions: one open proposal at a time. A proposal lapses when the game moves on before it is
answered (any other event folded after it): accepting it then records ``proposal_lapsed``
instead, and a new proposal replaces it. A free move is checked only against the table edge,
Impassable Terrain and overlapping other units or (40k) its own models; Unit Spacing does not
apply, so players can agree to put units into base contact. It does not count as the unit's
move for the phase, yet the system judges it as it judges every move (whfb8: a unit put
within 8 in of concealing Night Goblins, or concealing goblins put within 8 in of an enemy,
releases the Fanatics; the unit stays where it was put). An undo never reaches back past a seat
being claimed or the game's end, nor further than the last `UNDO_WINDOW` events, nor past the
opponent's last action: a player takes back only their own actions (docs/rules-decisions.md
"By agreement").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from server import geometry as geo
from server.dice import DiceStream
from server.geometry import movement
from server.geometry.footprint import Footprint, footprint, models_footprint, overlapping_models
from server.geometry.formation import ModelPlacement
from server.geometry.frame import Placement
from server.rules.battle import other
from server.rules.core import (
    ANY_TIME,
    BAD_REQUEST,
    BATTLE,
    ILLEGAL_MOVE,
    OUT_OF_PHASE,
    PUBLIC,
    SETUP,
    UNDO_EVENT,
    UNDO_WINDOW,
    ActionModel,
    Event,
    GameState,
    RuleError,
    UndoEntry,
    When,
    fold_all,
    register_action,
    register_batch_hook,
    register_folder,
    register_folder_hook,
    register_projector,
    rolls_of,
)
from server.rules.core import undo_note as core_undo_note
from server.rules.naming import display_name, in_the_way, possessive
from server.rules.orders import judge, offer, refused, register_game_offer, window_refusal
from server.rules.state import changed
from server.rules.systems import variant_of
from server.rules.units import (
    Coord,
    Facing,
    Unit,
    base_of,
    datasheet_of,
    is_ranked,
    ranked_formation,
    table_of,
    unit_from_json,
    unit_of,
    with_unit,
)


def open_proposal(state: GameState) -> Mapping[str, Any] | None:
    return state.proposals.current


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


def _batches(state: GameState) -> list[tuple[int | None, list[UndoEntry]]]:
    """The undoable events grouped by the action that produced them, oldest first: (the seat
    that took it, its events). Events of a log from before batches were recorded count one
    action each, by their actor (a system event joins the action before it)."""
    out: list[tuple[int | None, list[UndoEntry]]] = []
    last_batch: int | None = None
    for entry in state.undoable:
        seq, _, actor, _, batch, by, _ = entry
        if by is None:
            if isinstance(actor, int) or not out:
                out.append((actor if isinstance(actor, int) else None, [entry]))
            else:
                out[-1][1].append(entry)
            last_batch = None
            continue
        if out and last_batch == batch:
            out[-1][1].append(entry)
        else:
            out.append((by, [entry]))
        last_batch = batch
    return out


def own_actions(state: GameState, seat: int) -> list[list[UndoEntry]]:
    """The actions `seat` may propose to take back: its own, since the opponent last acted
    (the actions at the end of the undoable history taken by `seat`), oldest first. An action
    of the opponent (a Charge Reaction, a phase ended) is the opponent's to take back."""
    run: list[list[UndoEntry]] = []
    for by, entries in reversed(_batches(state)):
        if by not in (seat, None):
            break
        run.append(entries)
    return list(reversed(run))


def _words(state: GameState, entry: UndoEntry) -> dict[str, Any]:
    """One undone event as a person reads it: its own text, or its kind and units by name."""
    seq, kind, actor, vis, _, _, payload = entry
    if vis != PUBLIC:
        return {"seq": seq, "type": "hidden", "text": "a hidden event"}
    note = core_undo_note(payload, vis, actor)
    names = [display_name(state, u) for u in note.get("units", ()) if isinstance(u, str)]
    text = note.get("text") or (
        kind.replace("_", " ").capitalize() + (f": {', '.join(dict.fromkeys(names))}"
                                               if names else "")
    )
    return {"seq": seq, "type": kind, "text": text}


def _rolls(state: GameState, entries: list[UndoEntry]) -> list[dict[str, Any]]:
    """The rolls an undo of `entries` discards: which event, whose, the dice shown."""
    out = []
    for seq, kind, actor, vis, _, _, payload in entries:
        if vis != PUBLIC:
            continue
        note = core_undo_note(payload, vis, actor)
        units = [u for u in note.get("units", ()) if isinstance(u, str)]
        for r in note.get("rolls", ()):
            out.append({
                "seq": seq,
                "type": kind,
                "units": units,
                "unit_name": display_name(state, units[0]) if units else None,
                "expression": r.get("expression"),
                "total": r.get("total"),
                "faces": list(r.get("faces", ())),
            })
    return out


def _undo_plan(state: GameState, seat: int, seq: int | None) -> dict[str, Any]:
    """What `seat`'s undo takes back: from the start of one of its own actions since the
    opponent last acted (`own_actions`; without `seq` the last one) to the end of the log."""
    if not state.undoable:
        raise RuleError(ILLEGAL_MOVE, "there is nothing to undo", rule="Undo")
    run = own_actions(state, seat)
    if not run:
        raise RuleError(
            ILLEGAL_MOVE,
            f"nothing of yours to undo: player {other(seat)} has acted since your last action "
            f"(only player {other(seat)} may propose to take that back)",
            rule="Undo",
        )
    starts = [entries[0][0] for entries in run]
    start = starts[-1] if seq is None else seq
    if start > head(state):
        raise RuleError(
            ILLEGAL_MOVE, f"seq {start} is past the last event ({head(state)})", rule="Undo"
        )
    if start < starts[0]:
        raise RuleError(
            ILLEGAL_MOVE,
            f"you may only take back your own actions since player {other(seat)} last acted "
            f"(from #{starts[0]}); an undo never reaches past a seat claim, the game's start "
            f"or the last {UNDO_WINDOW} events",
            rule="Undo",
            earliest=starts[0],
        )
    if start not in starts:
        raise RuleError(
            ILLEGAL_MOVE,
            f"#{start} is part of an action: an undo starts at an action's first event "
            f"({', '.join(f'#{s}' for s in starts)})",
            rule="Undo",
            starts=starts,
        )
    taken = [e for e in state.undoable if e[0] >= start]
    return {
        "from_seq": start,
        "events": [_words(state, e) for e in taken],
        "rolls": _rolls(state, taken),
        "starts": starts,
    }


def undo_description(plan: dict[str, Any]) -> str:
    """One line for the log: how many events, and the first ones in words."""
    events = plan["events"]
    n = len(events)
    words = "; ".join(e["text"] for e in events[:3]) + ("; …" if n > 3 else "")
    return f"undo {n} event{'s' if n != 1 else ''} ({words})"


def _free_move_plan(state: GameState, seat: int, action: Propose) -> dict[str, Any]:
    if action.unit is None:
        raise RuleError(BAD_REQUEST, "a free move names a unit", field="unit")
    unit = unit_of(state, action.unit)
    if unit.status != "on_table":
        raise RuleError(ILLEGAL_MOVE, f"{unit.name} is not on the table", rule="Free Move")
    after, outline = placed(state, unit, action)
    # The outline at the proposed position: the opponent and the spectators draw it.
    return {"unit": unit.id, "unit_after": after.to_json(), "outline": geo.to_geojson(outline)}


def placed(state: GameState, unit: Unit, action: Propose) -> tuple[Unit, Any]:
    """`unit` where the free move puts it, checked against the table edge, Impassable Terrain
    and overlap (geometry core), or `illegal_move` naming the rule and the obstacle; and its
    outline there."""
    table = table_of(state)
    if is_ranked(state.system):
        if action.x is None or action.y is None:
            raise RuleError(BAD_REQUEST, "a free move of a ranked unit gives x, y and facing",
                            field="x")
        files = action.files or unit.files or 1
        formation = ranked_formation(
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
        base = base_of(datasheet_of(state, unit))
        fp = models_footprint([ModelPlacement(x, y, base) for x, y in action.positions])
        if overlapping_models(fp):
            raise RuleError(ILLEGAL_MOVE, f"{possessive(display_name(state, unit.id))} models "
                                          "would overlap",
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
            f"{display_name(state, unit.id)} cannot be put there: {rule}"
            + in_the_way(state, obstacle),
            rule=str(rule),
            obstacle=obstacle,
            swept=geo.to_geojson(fp.boundary),
        )
    return after, fp.boundary


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
                f"player {current['by']}'s proposal is still open: accept, "
                "decline or withdraw it first",
                rule="One Proposal at a Time",
                proposal=current["id"],
            )
        events.append(_lapsed(current))
    number = state.proposals.made + 1
    payload: dict[str, Any] = {"id": f"p{number}", "by": seat, "kind": action.kind,
                               "head": head(state)}
    if action.kind == "undo":
        plan = _undo_plan(state, seat, action.seq)
        payload["undo"] = {k: v for k, v in plan.items() if k != "starts"}
        payload["description"] = undo_description(plan)
    else:
        plan = _free_move_plan(state, seat, action)
        payload["free_move"] = plan
        payload["description"] = f"free move of {display_name(state, plan['unit'])}"
    return [*events, Event("proposal_made", payload, actor=seat)]


def _proposal_checks(state: GameState, seat: int) -> None:
    err = window_refusal(state, seat, "propose")
    if err is not None:
        raise err
    current = open_proposal(state)
    if current is not None and current["head"] == head(state):
        raise RuleError(
            ILLEGAL_MOVE,
            f"player {current['by']}'s proposal is still open: accept, "
            "decline or withdraw it first",
            rule="One Proposal at a Time",
            proposal=current["id"],
        )


@register_game_offer("propose", "undo")
def _offer_undo(state: GameState, seat: int) -> dict[str, Any] | None:
    """Propose undo: this seat's last action since the opponent last acted (the opponent must
    agree), with what it takes back in words; refused with the reason otherwise."""
    err = judge(lambda: _proposal_checks(state, seat))
    if err is not None:
        return refused("propose", err, kind="undo")
    try:
        plan = _undo_plan(state, seat, None)
    except RuleError as why:
        return refused("propose", why, kind="undo")
    return offer("propose", kind="undo", undo={k: v for k, v in plan.items() if k != "starts"},
                 starts=plan["starts"])


@register_game_offer("propose", "free_move")
def _offer_free_move(state: GameState, seat: int) -> dict[str, Any] | None:
    """Free move…: put a unit anywhere if the opponent agrees (shown from the battle on)."""
    if state.battle.stage in ("setup", "deployment"):
        return None
    err = judge(lambda: _proposal_checks(state, seat))
    if err is not None:
        return refused("propose", err, kind="free_move")
    return offer("propose", kind="free_move")


@register_game_offer("accept_proposal")
def _offer_accept(state: GameState, seat: int) -> dict[str, Any] | None:
    """Accept / Decline: for the opponent of the open proposal's author."""
    current = open_proposal(state)
    if current is None or current["by"] == seat:
        return None
    return offer("accept_proposal", proposal=current["id"])


@register_game_offer("decline_proposal")
def _offer_decline(state: GameState, seat: int) -> dict[str, Any] | None:
    """Decline (the opponent) or withdraw (the author) the open proposal."""
    current = open_proposal(state)
    if current is None:
        return None
    return offer("decline_proposal", proposal=current["id"],
                 withdraw=current["by"] == seat)


def _lapsed(current: Mapping[str, Any]) -> Event:
    return Event(
        "proposal_lapsed",
        {"id": current["id"], "reason": "the game moved on before it was answered"},
    )


# --- answer -------------------------------------------------------------------------------------


class Answer(ActionModel):
    type: Literal["accept_proposal", "decline_proposal"]
    id: str | None = None


def _answering(state: GameState, action: Answer) -> Mapping[str, Any]:
    current = open_proposal(state)
    if current is None:
        raise RuleError(OUT_OF_PHASE, "no proposal is open")
    if action.id is not None and action.id != current["id"]:
        raise RuleError(
            OUT_OF_PHASE,
            "that proposal is no longer the open one: answer the one open now",
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
            f"the proposal is yours: player {other(seat)} accepts or declines it",
            proposal=current["id"],
        )
    if current["head"] != head(state):
        return [_lapsed(current)]
    accepted = Event("proposal_accepted", {"id": current["id"], "by": seat}, actor=seat)
    if current["kind"] == "undo":
        seqs = [e["seq"] for e in current["undo"]["events"]]
        discarded = current["undo"].get("rolls", [])
        return [
            accepted,
            Event(
                UNDO_EVENT,
                {
                    "proposal": current["id"],
                    "seqs": seqs,
                    # The rolls taken back, for both players to see; a roll for the same
                    # unit in the same phase afterwards is marked a re-roll (core.py).
                    "discarded": discarded,
                    "when": _when(state),
                    "dice_position": state.dice_position,
                    "rolls": state.rolls,
                    "next_id": state.next_id,
                },
                actor=seat,
            ),
        ]
    plan = current["free_move"]
    # Checked again against the table as it is now (it has not changed: same head).
    moved = Event(
        "free_move",
        {
            "proposal": current["id"],
            "unit": plan["unit_after"],
            "by_agreement": True,
        },
        actor=current["by"],
    )
    return [accepted, moved, *_put_down(state, str(plan["unit"]), moved)]


def _put_down(state: GameState, unit_id: str, moved: Event) -> list[Event]:
    """What the system's rules make of the unit arriving where the players put it, judged as
    every move is (`Variant.move_stop`; whfb8: Fanatics released when a concealing unit and an
    enemy come within 8 in). A free move has no way to stop on: its way is the unit where it
    stood, then where it is put (the end), so it ends where the players agreed."""
    if state.battle.stage != BATTLE:
        return []  # setting up: a unit put right is placed, not moved (nor deployed, judged)
    start = table_of(state).units.get(unit_id)
    end = table_of(fold_all(state, [moved])).units.get(unit_id)
    if start is None or end is None:
        return []

    def put(t: float) -> Footprint:
        return end if t >= 1.0 else start

    stop = variant_of(state.system).move_stop(state, unit_id, put)
    return [] if stop is None else stop[1]


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


# --- alone at the table --------------------------------------------------------------------------


class TakeBack(ActionModel):
    type: Literal["take_back"]
    seq: int | None = Field(default=None, ge=1)


def _alone(state: GameState, seat: int) -> None:
    """Taking back without agreement is for a player alone at the table: nobody else can have
    seen, let alone agreed to, what is taken back."""
    if len(state.seats) >= 2:
        raise RuleError(
            OUT_OF_PHASE,
            f"player {other(seat)} has joined: propose the undo, and they accept or decline it",
            rule="Undo",
            seats=sorted(state.seats),
        )


def _army_plan(state: GameState, seat: int, seq: int | None) -> dict[str, Any]:
    """With both seats taken: the plan that takes back `seat`'s submitted army, and nothing
    else. While the opponent has not submitted theirs nobody has built on it (deployment
    starts only with both armies in), so it needs no agreement; anything else is an undo by
    agreement (`propose`)."""
    opponent = other(seat)
    if seat not in state.muster.armies or opponent in state.muster.armies:
        _alone(state, seat)
    try:
        plan = _undo_plan(state, seat, seq)
    except RuleError as why:
        raise RuleError(
            why.code,
            f"player {opponent} has acted since you submitted your army: propose the undo, "
            "and they accept or decline it",
            rule="Undo",
        ) from None
    first = plan["events"][0] if plan["events"] else {}
    if first.get("type") != "army_submitted" or plan["from_seq"] != plan["starts"][-1]:
        _alone(state, seat)
    return plan


def _take_back_plan(state: GameState, seat: int, seq: int | None) -> dict[str, Any]:
    """What `take_back` takes back: alone at the table, any of your own setup actions; with
    both seats taken, only your army, before the opponent has submitted theirs."""
    if len(state.seats) >= 2:
        return _army_plan(state, seat, seq)
    return _undo_plan(state, seat, seq)


@register_action("take_back", TakeBack, when=[When(SETUP)], doing="taking back a setup action")
def take_back(state: GameState, seat: int, action: TakeBack, dice: DiceStream) -> list[Event]:
    """Before player 2 joins, player 1 takes back their own setup actions (terrain placed,
    moved or removed, an army submitted) at once: the same plan as a proposed undo (from one
    of their actions to the end of the log), with no opponent to ask. Once both seats are
    taken, a player still takes back their own army at once while the opponent has not
    submitted theirs (`_army_plan`); any other undo is by agreement (`propose`)."""
    plan = _take_back_plan(state, seat, action.seq)
    alone = len(state.seats) < 2
    return [
        Event(
            UNDO_EVENT,
            {
                "proposal": None,
                "alone": alone,
                "army": not alone,
                "seqs": [e["seq"] for e in plan["events"]],
                "discarded": plan["rolls"],
                "when": _when(state),
                "dice_position": state.dice_position,
                "rolls": state.rolls,
                "next_id": state.next_id,
                "text": f"Player {seat} took back: {undo_description(plan)}"
                if alone
                else f"Player {seat} took back their army",
            },
            actor=seat,
        )
    ]


@register_game_offer("take_back")
def _offer_take_back(state: GameState, seat: int) -> dict[str, Any] | None:
    """Take back, in setup, with what it takes back in words: for the player alone at the
    table; with both seats taken, for a player whose army is in while the opponent's is not
    (refused with the reason when the opponent has acted since)."""
    if state.battle.stage != "setup":
        return None
    if len(state.seats) >= 2 and (
        seat not in state.muster.armies or other(seat) in state.muster.armies
    ):
        return None
    try:
        plan = _take_back_plan(state, seat, None)
    except RuleError as why:
        return refused("take_back", why)
    return offer("take_back", undo={k: v for k, v in plan.items() if k != "starts"},
                 starts=plan["starts"], army=len(state.seats) >= 2)


# --- folds and what the players see --------------------------------------------------------------


@register_folder("proposal_made")
def _fold_made(state: GameState, event: Event) -> GameState:
    proposals = changed(state.proposals, current=dict(event.payload),
                                    made=state.proposals.made + 1)
    return state.evolve(proposals=proposals)


def _closed(state: GameState, event: Event) -> GameState:
    return state.evolve(proposals=changed(state.proposals, current=None))


for _name in ("proposal_accepted", "proposal_declined", "proposal_lapsed"):
    register_folder(_name)(_closed)


def _when(state: GameState) -> list[Any]:
    """The moment a re-roll must fall in: the active player, the phase and the game turn."""
    b = state.battle
    return [b.active_player, b.phase, b.turn]


@register_folder(UNDO_EVENT)
def _fold_undone(state: GameState, event: Event) -> GameState:
    """The counters (`replay` already left the undone events out of the fold) and the rolls
    discarded, so that the roll re-made for them is marked a re-roll (`mark_rerolls`)."""
    p = event.payload
    discarded = tuple({**r, "when": p.get("when")} for r in p.get("discarded", ()))
    return state.evolve(
        proposals=changed(state.proposals, discarded_rolls=discarded),
        dice_position=max(state.dice_position, int(p.get("dice_position", 0))),
        rolls=max(state.rolls, int(p.get("rolls", 0))),
        next_id=max(state.next_id, int(p.get("next_id", 1))),
    )


@register_folder("free_move")
def _fold_free_move(state: GameState, event: Event) -> GameState:
    return with_unit(state, unit_from_json(event.payload["unit"]))


@register_projector
def _project_proposals(state: GameState, viewer: int | None, out: dict[str, Any]) -> None:
    current = open_proposal(state)
    out["proposal"] = None if current is None else {
        **current,
        "open": current["head"] == head(state),
    }
    out["undoable"] = [
        {"seq": e[0], "type": e[1] if e[3] == PUBLIC else "hidden", "actor": e[2]}
        for e in state.undoable[-20:]
    ]


@register_batch_hook
def mark_rerolls(state: GameState, seat: int, events: list[Event]) -> list[Event]:
    """After an accepted undo took back a roll, the first roll made again by the same unit in
    the same phase is a re-roll: its event says so (`reroll`: the discarded roll), and its
    text too. Folding it takes the discarded roll off the list."""
    waiting = list(state.proposals.discarded_rolls)
    if not waiting:
        return events
    now = _when(state)
    out = []
    for event in events:
        units = core_undo_note(event.payload, event.visibility, event.actor).get("units", ())
        match = None
        if event.visibility == PUBLIC and rolls_of(event.payload) and units:
            # The same unit's roll (the first unit an event names is the one that rolls: the
            # charger, the fleeing unit), the same kind of event first.
            same = [r for r in waiting if r.get("when") == now
                    and (r.get("units") or [None])[0] == units[0]]
            match = next((r for r in same if r.get("type") == event.type),
                         same[0] if same else None)
        if match is not None:
            waiting.remove(match)
            faces = ", ".join(str(f) for f in match.get("faces", ()))
            payload = {**event.payload, "reroll": {
                "of": match["seq"], "expression": match.get("expression"),
                "total": match.get("total"), "faces": match.get("faces", [])}}
            if isinstance(payload.get("text"), str):
                payload["text"] += f" (a re-roll: the undone roll was {faces})"
            event = dataclasses.replace(event, payload=payload)
        out.append(event)
    return out


@register_folder_hook
def _fold_reroll(state: GameState, event: Event) -> GameState:
    """A re-roll folded: its discarded roll is no longer waiting."""
    r = event.payload.get("reroll")
    waiting = state.proposals.discarded_rolls
    if not isinstance(r, dict) or not waiting:
        return state
    left = tuple(w for w in waiting
                 if w.get("seq") != r.get("of") or w.get("faces") != r.get("faces"))
    return state.evolve(proposals=changed(state.proposals, discarded_rolls=left))


__all__ = ["accept_proposal", "decline_proposal", "propose"]
