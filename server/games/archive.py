"""Commit-reveal at the end of a game, the dice proof, and game export / import.

* :func:`with_dice_reveal` — the service calls it on every batch it is about to append: a batch
  that ends the game (`game_ended`) gets a public `dice_revealed` event {"seed", "commitment"}
  appended, so the seed becomes public in the same transaction that ends the game, and never
  before.
* :func:`dice_proof` — what `GET /api/games/{id}/dice-proof` answers, recomputed from the log.
* :func:`export_document` / :func:`read_export` — the `warfield-game/1` file format
  (docs/dice.md): the game, its seat numbers (never tokens or their hashes) and its events.
  A host export contains every event, hidden ones too; a player's export (REST, after the end)
  carries hidden events only as `{"type": "hidden"}` placeholders.
* :func:`verify_export` — what `warfield verify-dice game.json` checks.
* :func:`export_from_store` / :func:`import_into_store` — the CLI's database side.

Everything but the last two is pure: values in, values out.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from server import dice
from server.games.replay import HOST, Viewer
from server.rules import core
from server.rules.core import PUBLIC, SEATS, Event, GameState, seat_visibility

if TYPE_CHECKING:
    from server.store import EventStore, GameRecord

FORMAT = "warfield-game/1"
GAME_ENDED = "game_ended"
DICE_REVEALED = "dice_revealed"
HIDDEN = "hidden"

_GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_VISIBILITIES = frozenset({PUBLIC, *(seat_visibility(s) for s in SEATS)})


class ArchiveError(ValueError):
    """An export file that cannot be read or restored; the message says why."""


# --- commit-reveal ---------------------------------------------------------------------------


def ends_game(events: Iterable[Event]) -> bool:
    return any(e.type == GAME_ENDED for e in events)


def with_dice_reveal(events: list[Event], seed: bytes) -> list[Event]:
    """`events`, plus a public `dice_revealed` event when they end the game.

    The only place the seed leaves the server: the service appends this event in the same
    transaction as the `game_ended` that triggers it.
    """
    if not ends_game(events) or any(e.type == DICE_REVEALED for e in events):
        return events
    reveal = Event(DICE_REVEALED, {"seed": seed.hex(), "commitment": dice.commitment(seed)})
    return [*events, reveal]


# --- the dice proof --------------------------------------------------------------------------


@dataclass(frozen=True)
class _RollRef:
    seq: int
    index: int  # the roll's place within its event's payload
    visible: bool
    payload: Mapping[str, Any]


def _rolls(events: Iterable[Event], viewer: Viewer = HOST) -> list[_RollRef]:
    return [
        _RollRef(e.seq, i, viewer == HOST or e.visible_to(viewer), r)
        for e in events
        for i, r in enumerate(core.rolls_of(e.payload))
    ]


_ROLL_PREFIX = re.compile(r"^roll \d+( \(start \d+\))?: ")


def _failure(ref: _RollRef | None, reason: str, start: int | None = None) -> dict[str, Any]:
    if ref is None:
        return {"seq": None, "roll": None, "start": start, "reason": reason}
    if not ref.visible:  # a roll inside a hidden event: say where, never what it showed
        reason = f"event seq {ref.seq}: a roll hidden from you does not verify"
    else:
        where = f"event seq {ref.seq}, roll {ref.index}" + (
            f" (start {start})" if start is not None else ""
        )
        reason = f"{where}: {_ROLL_PREFIX.sub('', reason)}"
    return {"seq": ref.seq, "roll": ref.index, "start": start, "reason": reason}


def dice_proof(
    commitment: str,
    seed: bytes,
    events: Sequence[Event],
    viewer: int | None = None,
) -> dict[str, Any]:
    """`GET /api/games/{id}/dice-proof`: the commitment while the game runs; after its end the
    seed and a verification of every roll of the log (all events, in seq order).

    `seed` is the server's secret; it appears in the answer only once the log holds a
    `dice_revealed` event (the game has ended).
    """
    refs = _rolls(events, viewer)
    revealed = any(e.type == DICE_REVEALED for e in events)
    if not revealed:
        return {"commitment": commitment, "revealed": False, "rolls": len(refs)}
    report = dice.verify(seed, commitment, [r.payload for r in refs])
    failures = [_failure(refs[c.index], c.reason, c.start) for c in report.failures]
    if not report.commitment_ok:
        failures.insert(0, _failure(None, "the seed does not match the commitment"))
    failures.extend(_log_commitment_failures(events, commitment, seed))
    return {
        "commitment": commitment,
        "seed": seed.hex(),
        "revealed": True,
        "verified": not failures,
        "rolls": len(refs),
        "failures": failures,
    }


def _log_commitment_failures(
    events: Sequence[Event], commitment: str, seed: bytes | None
) -> list[dict[str, Any]]:
    """The commitment in the log's first event and in the reveal must be the published one."""
    out = []
    for e in events:
        if e.type == "game_created" and e.payload.get("dice_commitment") != commitment:
            out.append(_failure(None, f"event seq {e.seq} (game_created) commits to "
                                      f"{e.payload.get('dice_commitment')!r}, not {commitment}"))
        if e.type == DICE_REVEALED:
            if e.payload.get("commitment") != commitment:
                out.append(_failure(None, f"event seq {e.seq} (dice_revealed) names commitment "
                                          f"{e.payload.get('commitment')!r}, not {commitment}"))
            if seed is not None and e.payload.get("seed") != seed.hex():
                out.append(_failure(None, f"event seq {e.seq} (dice_revealed) reveals another "
                                          "seed than the game's"))
    return out


# --- export ----------------------------------------------------------------------------------


def _event_out(event: Event, viewer: Viewer) -> dict[str, Any]:
    if viewer == HOST or event.visible_to(viewer):
        return {
            "seq": event.seq,
            "type": event.type,
            "actor": event.actor,
            "visibility": event.visibility,
            "payload": dict(event.payload),
        }
    return {
        "seq": event.seq,
        "type": HIDDEN,
        "actor": event.actor,
        "visibility": event.visibility,
        "payload": {},
    }


def _iso(value: datetime) -> str:
    if value.tzinfo is None:  # SQLite gives naive datetimes back; they were stored as UTC
        value = value.replace(tzinfo=UTC)
    return value.isoformat()


def export_document(
    record: GameRecord,
    events: Sequence[Event],
    seats: Iterable[int],
    *,
    viewer: Viewer = HOST,
    include_seed: bool = False,
) -> dict[str, Any]:
    """A `warfield-game/1` document.

    `viewer` HOST (the CLI) exports every event, hidden ones included; a seat number or None
    (a spectator) gets hidden events as placeholders and `"complete": false`. The seed is
    included when the game is over, or with `include_seed` (a host moving a running game; that
    file is then as secret as the seed). Seat tokens and their hashes are never exported.
    """
    state = core.replay(events)
    game: dict[str, Any] = {
        "id": record.id,
        "system": record.system,
        "name": record.name,
        "created_at": _iso(record.created_at),
        "dice_commitment": record.dice_commitment,
    }
    if state.over or include_seed:
        game["dice_seed"] = record.dice_seed.hex()
    out_events = [_event_out(e, viewer) for e in events]
    return {
        "format": FORMAT,
        "game": game,
        "over": state.over,
        "complete": all(e["type"] != HIDDEN for e in out_events),
        "seats": sorted(int(s) for s in seats),
        "events": out_events,
    }


# --- reading an export -----------------------------------------------------------------------


@dataclass(frozen=True)
class Archive:
    """A validated export, ready to restore."""

    id: str
    system: str
    name: str
    created_at: datetime
    dice_commitment: str
    dice_seed: bytes
    seats: tuple[int, ...]
    events: tuple[Event, ...]
    state: GameState


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ArchiveError(message)


def _parse_events(raw: Any, *, allow_hidden: bool) -> list[Event]:
    _require(isinstance(raw, list) and raw != [], "'events' must be a non-empty list")
    out: list[Event] = []
    for i, e in enumerate(raw, start=1):
        _require(isinstance(e, Mapping), f"event #{i} is not an object")
        seq, kind, actor = e.get("seq"), e.get("type"), e.get("actor")
        visibility, payload = e.get("visibility", PUBLIC), e.get("payload")
        _require(isinstance(seq, int) and not isinstance(seq, bool),
                 f"event #{i}: 'seq' must be an integer, got {seq!r}")
        _require(seq == i, f"event #{i}: seqs must run 1, 2, 3, ... without gaps; found {seq}")
        _require(isinstance(kind, str) and 0 < len(kind) <= 64,
                 f"event seq {seq}: 'type' must be a string of 1-64 characters")
        _require(allow_hidden or kind != HIDDEN,
                 f"event seq {seq} is a hidden placeholder: this is a player's export, not a "
                 "host's; only a complete export (warfield export) can be imported")
        _require(actor in ("system", *SEATS) and not isinstance(actor, bool),
                 f"event seq {seq}: 'actor' must be 1, 2 or \"system\", got {actor!r}")
        _require(visibility in _VISIBILITIES,
                 f"event seq {seq}: unknown visibility {visibility!r}")
        _require(isinstance(payload, Mapping), f"event seq {seq}: 'payload' must be an object")
        out.append(Event(kind, dict(payload), actor, visibility, seq))
    return out


def _parse_seed(value: Any, where: str) -> bytes:
    _require(isinstance(value, str) and re.fullmatch(r"[0-9a-fA-F]{2,128}", value) is not None
             and len(value) % 2 == 0, f"{where} must be a hex string")
    return bytes.fromhex(value)


def read_export(doc: Any) -> Archive:
    """Validate a complete (host) export and fold it; `ArchiveError` says what is wrong."""
    _require(isinstance(doc, Mapping), "an export must be a JSON object")
    _require(doc.get("format") == FORMAT,
             f"unknown format {doc.get('format')!r}; expected {FORMAT!r}")
    game = doc.get("game")
    _require(isinstance(game, Mapping), "'game' must be an object")
    gid, system, name = game.get("id"), game.get("system"), game.get("name")
    _require(isinstance(gid, str) and _GAME_ID.match(gid) is not None,
             f"game.id must be 1-32 letters, digits, '-' or '_', got {gid!r}")
    from server.rules.systems import SYSTEMS

    _require(system in SYSTEMS, f"game.system {system!r} is not one of {sorted(SYSTEMS)}")
    _require(isinstance(name, str) and len(name) <= 200, "game.name must be a string (<= 200)")
    commitment = game.get("dice_commitment")
    _require(isinstance(commitment, str) and _HEX64.match(commitment) is not None,
             "game.dice_commitment must be 64 lowercase hex digits")
    try:
        created_at = datetime.fromisoformat(str(game.get("created_at")))
    except ValueError:
        raise ArchiveError(f"game.created_at {game.get('created_at')!r} is not ISO 8601") from None
    if created_at.tzinfo is None:
        created_at = created_at.replace(tzinfo=UTC)

    seats = doc.get("seats")
    _require(isinstance(seats, list) and all(s in SEATS and not isinstance(s, bool)
                                             for s in seats) and len(set(seats)) == len(seats),
             f"'seats' must list distinct seat numbers out of {list(SEATS)}, got {seats!r}")
    events = _parse_events(doc.get("events"), allow_hidden=False)

    first = events[0]
    _require(first.type == "game_created", "the first event must be game_created")
    _require(first.payload.get("id") == gid and first.payload.get("system") == system,
             "the game_created event names another game id or system than 'game'")
    _require(first.payload.get("dice_commitment") == commitment,
             "the game_created event commits to another dice seed than game.dice_commitment")

    try:
        state = core.replay(events)  # (honours an agreed undo, as the live game does)
    except Exception as exc:  # noqa: BLE001 - any folder failure makes the log unusable
        where = next(iter(getattr(exc, "__notes__", ())), "the log does not fold")
        raise ArchiveError(f"{where}: {type(exc).__name__}: {exc}") from None
    _require(set(state.seats) == set(seats),
             f"'seats' {sorted(seats)} differ from the seats claimed in the log "
             f"{sorted(state.seats)}")

    seed: bytes | None = None
    if game.get("dice_seed") is not None:
        seed = _parse_seed(game["dice_seed"], "game.dice_seed")
    for e in events:
        if e.type == DICE_REVEALED:
            revealed = _parse_seed(e.payload.get("seed"), f"event seq {e.seq}: the revealed seed")
            _require(seed is None or seed == revealed,
                     f"event seq {e.seq} reveals another seed than game.dice_seed")
            seed = revealed
    _require(seed is not None,
             "the export has no dice seed (the game had not ended when it was exported); a "
             "running game can only be moved with `warfield export --include-seed`")
    assert seed is not None
    _require(dice.commitment(seed) == commitment,
             "the dice seed does not match game.dice_commitment")
    return Archive(gid, system, name, created_at, commitment, seed, tuple(sorted(seats)),
                   tuple(events), state)


# --- verify-dice -----------------------------------------------------------------------------


@dataclass
class DiceCheck:
    """What `warfield verify-dice` found. `revealed` False: nothing could be checked yet."""

    revealed: bool
    ok: bool
    commitment: str = ""
    rolls: int = 0
    hidden_events: int = 0
    failures: list[dict[str, Any]] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 2 if not self.revealed else (0 if self.ok else 1)

    def text(self) -> str:
        lines = [f"commitment: {self.commitment or '(none)'}"]
        if not self.revealed:
            lines.append("the dice seed is not revealed yet: the game has not ended, so its "
                         "rolls cannot be checked")
            return "\n".join(lines)
        lines.append(f"rolls checked: {self.rolls}")
        if self.hidden_events:
            lines.append(f"{self.hidden_events} event(s) are hidden in this export: their rolls "
                         "could not be recomputed; a gap in the stream is accepted only where a "
                         "hidden event lies")
        if self.ok:
            lines.append("VERIFIED: the seed matches the commitment and every roll recomputes "
                         "exactly")
        else:
            lines.append(f"FAILED: {len(self.failures)} problem(s)")
            lines.extend(f"  - {f['reason']}" for f in self.failures)
        return "\n".join(lines)


def verify_export(doc: Any) -> DiceCheck:
    """Recompute every roll of an export (host's or player's) from its revealed seed."""
    try:
        _require(isinstance(doc, Mapping), "an export must be a JSON object")
        _require(doc.get("format") == FORMAT,
                 f"unknown format {doc.get('format')!r}; expected {FORMAT!r}")
        game = doc.get("game")
        _require(isinstance(game, Mapping), "'game' must be an object")
        commitment = game.get("dice_commitment")
        _require(isinstance(commitment, str), "game.dice_commitment is missing")
        events = _parse_events(doc.get("events"), allow_hidden=True)
    except ArchiveError as exc:
        return DiceCheck(True, False, failures=[_failure(None, f"unreadable export: {exc}")])
    assert isinstance(commitment, str) and isinstance(game, Mapping)

    seed: bytes | None = None
    failures: list[dict[str, Any]] = []
    try:
        if game.get("dice_seed") is not None:
            seed = _parse_seed(game["dice_seed"], "game.dice_seed")
        for e in events:
            if e.type == DICE_REVEALED:
                revealed = _parse_seed(e.payload.get("seed"), f"event seq {e.seq}'s seed")
                seed = seed or revealed
    except ArchiveError as exc:
        failures.append(_failure(None, str(exc)))
    if seed is None and not failures:
        return DiceCheck(False, False, commitment)
    if seed is None:
        return DiceCheck(True, False, commitment, failures=failures)

    hidden = sum(1 for e in events if e.type == HIDDEN)
    refs = _rolls(events)
    report = dice.verify(seed, commitment, [r.payload for r in refs], contiguous=not hidden)
    if not report.commitment_ok:
        failures.append(_failure(None, f"SHA-256 of the seed is {dice.commitment(seed)}, but "
                                       f"the game committed to {commitment}"))
    failures.extend(_failure(refs[c.index], c.reason, c.start) for c in report.failures)
    if hidden:
        failures.extend(_gaps_outside_hidden(events))
    failures.extend(_log_commitment_failures(events, commitment, seed))
    return DiceCheck(True, not failures, commitment, len(refs), hidden, failures)


def _gaps_outside_hidden(events: Sequence[Event]) -> list[dict[str, Any]]:
    """Contiguity when some events are hidden: a forward gap must have a hidden event in it."""
    out: list[dict[str, Any]] = []
    expected, hidden_since = 0, False
    for e in events:
        if e.type == HIDDEN:
            hidden_since = True
            continue
        for i, roll in enumerate(core.rolls_of(e.payload)):
            start, end = roll.get("start"), roll.get("end")
            if not isinstance(start, int) or not isinstance(end, int):
                continue  # reported as malformed already
            if start != expected and not (hidden_since and start > expected):
                ref = _RollRef(e.seq, i, True, roll)
                out.append(_failure(ref, f"expected start {expected}; draws are missing or "
                                         "used twice", start))
            expected, hidden_since = end, False
    return out


# --- the database side (CLI) -----------------------------------------------------------------


def export_from_store(
    store: EventStore, game_id: str, *, include_seed: bool = False
) -> dict[str, Any]:
    """The host's export of a stored game: every event; the seed once the game is over."""
    record = store.load_game(game_id)
    if record is None:
        raise ArchiveError(f"no game {game_id!r} in this database")
    return export_document(
        record,
        store.events(game_id),
        store.seat_hashes(game_id),
        include_seed=include_seed,
    )


def import_into_store(
    store: EventStore, doc: Any, *, as_new: bool = False, invite_hash: str | None = None
) -> tuple[str, dict[int, str]]:
    """Restore an export through the event store (one write transaction); return the game id
    and a new token for each seat.

    Tokens are not exported, so every seat gets a fresh one for the host to hand out; a free
    seat 2 opens with the invite whose hash is `invite_hash` (none given: with no invite yet).
    Refuses an id that exists unless `as_new`, which gives the game a new id (the one change
    made to the log: the id in its game_created event).
    """
    from sqlalchemy.exc import SQLAlchemyError

    from server.games.service import new_token, token_hash
    from server.store import GameExists, GameRecord

    archive = read_export(doc)
    game_id, events = archive.id, list(archive.events)
    if as_new:
        game_id = secrets.token_hex(8)
        first = events[0]
        events[0] = Event(first.type, {**first.payload, "id": game_id}, first.actor,
                          first.visibility, first.seq)
    tokens = {seat: new_token() for seat in archive.seats}
    record = GameRecord(
        id=game_id,
        system=archive.system,
        name=archive.name,
        dice_seed=archive.dice_seed,
        dice_commitment=archive.dice_commitment,
        created_at=archive.created_at,
        # A free seat 2 opens only with an invite (migration 0002): the caller's, or else a
        # secret nobody holds until the host runs `warfield invite`. Never NULL, which would
        # let anyone claim it.
        invite_hash=invite_hash or token_hash(new_token()),
    )
    try:
        store.import_game(record, {s: token_hash(t) for s, t in tokens.items()}, events)
    except GameExists:
        raise ArchiveError(f"a game {game_id!r} exists already; use --as-new to import it "
                           "under a new id") from None
    except SQLAlchemyError as exc:  # a constraint of the database refused the log
        raise ArchiveError(f"could not import game {game_id!r}: {exc}") from None
    return game_id, tokens
