"""What people read a piece as: units, terrain and tokens by name, never by internal id.

Every message a person reads (an error's `message`, an event's `text`) names pieces through
`display_name`; the ids stay in the machine fields (`unit`, `obstacle`, `blocked_by`, ...).
Two pieces with the same name are numbered in a stable order (by id, numerically: `u5` before
`u12`), so two "Citizen Spears" read "Citizen Spears (1)" and "Citizen Spears (2)" in every
message. Terrain without a label is named by its kind ("Impassable terrain", "Cover terrain (2)").
A measured distance reads through `say_inches`/`tenths`: one rounding for every message, the same as
the client's (static/js/format.js `inches`), decided in docs/rules-decisions.md.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from decimal import ROUND_HALF_UP, Decimal

from server.rules.core import GameState

KIND_NAMES: Mapping[str, str] = {
    "impassable": "Impassable terrain",
    "blocks_los": "Sight-blocking terrain",
    "cover": "Cover terrain",
    "dangerous": "Dangerous terrain",
    "open": "Open terrain",
}
"""The name a terrain piece without a label goes by, by kind."""

UNKNOWN = "another piece"
"""What an id the state does not know reads as (a piece since removed)."""


def _id_key(piece_id: str) -> tuple[str, int, str]:
    """Numeric order of ids: the prefix, then the number (`u5` before `u12`)."""
    match = re.fullmatch(r"([^\d]*)(\d+)(.*)", piece_id)
    if match is None:
        return (piece_id, -1, "")
    return (match[1], int(match[2]), match[3])


def _numbered(piece_id: str, names: Mapping[str, str]) -> str:
    """`names[piece_id]`, numbered among the pieces that share that name."""
    name = names[piece_id]
    same = sorted((pid for pid, n in names.items() if n == name), key=_id_key)
    return name if len(same) == 1 else f"{name} ({same.index(piece_id) + 1})"


def numbered(names: Mapping[str, str]) -> dict[str, str]:
    """Each piece's name numbered among those sharing it, for what has only a view's names
    (the battle report reads the projected state): {"u5": "Boyz (1)", "u12": "Boyz (2)"}."""
    return {pid: _numbered(pid, names) for pid in names}


def unit_names(state: GameState) -> dict[str, str]:
    units = state.units
    return {uid: str(u.name) for uid, u in units.items()}


def terrain_names(state: GameState) -> dict[str, str]:
    labels = state.terrain_labels
    out: dict[str, str] = {}
    for piece in state.terrain:
        label = (labels.get(piece.id) or "").strip()
        out[piece.id] = label or KIND_NAMES.get(str(piece.kind), "Terrain")
    return out


def display_name(state: GameState, piece_id: str | None) -> str:
    """The name a person reads for a unit, terrain piece or token (numbered among duplicates)."""
    if piece_id is None:
        return UNKNOWN
    for names in (unit_names(state), terrain_names(state)):
        if piece_id in names:
            return _numbered(piece_id, names)
    token = state.tokens.get(piece_id)
    if token is not None:
        labels = {tid: t.label or "Token" for tid, t in state.tokens.items()}
        return _numbered(piece_id, labels)
    return UNKNOWN


def display_names(state: GameState, piece_ids: Iterable[str]) -> str:
    """Several pieces in words: "Farmhouse, Citizen Spears (2)"."""
    return ", ".join(display_name(state, pid) for pid in piece_ids)


def in_the_way(state: GameState, obstacle: str | None) -> str:
    """The ` (X is in the way)` tail of a blocked-move message, or nothing."""
    return f" ({display_name(state, obstacle)} is in the way)" if obstacle else ""


def possessive(name: str) -> str:
    """"Empire Handgunners'", "Tomb King's": a unit's name, owning something."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def tenths(value: float) -> str:
    """A measure to 0.1, half away from zero on the decimal a person reads: "8.3" for 8.25.

    The shortest decimal that is the float (its repr: 8.35, not 8.3499…) is rounded, so a
    value typed or shown as 8.35 goes up, and Python's half-to-even `round`/"%.1f" (8.25 -> 8.2)
    never disagrees with the client, which rounds the same digits.
    """
    number = float(value)
    if not math.isfinite(number):
        return str(number)
    said = Decimal(repr(number)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    return f"{abs(said):.1f}" if said == 0 else f"{said:.1f}"


def say_inches(value: float, limit: float | None = None) -> str:
    """A distance in words: "8.3 in" (see `tenths`).

    Given the `limit` it is measured against, a distance on the other side of it that rounds to
    the same tenth says so ("just over 8.0 in" for 8.02 against 8, "just under 12.0 in" for
    11.98 against 12), or a refusal would read "8.0 in of 8 in".
    """
    said = tenths(value)
    if limit is not None and value != limit and said == tenths(limit):
        return f"just {'over' if value > limit else 'under'} {said} in"
    return f"{said} in"
