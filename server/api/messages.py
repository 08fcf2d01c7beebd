"""What clients send, as pydantic models: REST bodies and websocket messages, one definition.

The websocket's client messages are a union discriminated by `type`; `parse_client_message`
is the one place a frame's fields are checked, and it refuses with the same `bad_request`
(`details.field`, `details.errors`) a REST body gets. The question bodies (`MeasureIn`, ...)
are the REST routes' bodies; each websocket message is its body plus `type` and `ref`.

A websocket message may carry fields the server does not know: they are ignored (a newer client
talking to an older server), while the fields it does know are checked as strictly as REST's.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    ValidationError,
)

from server.rules.core import BAD_REQUEST, RuleError
from server.rules.units import Coord, Facing

MAX_SEQ = 2**31 - 1  # the log's seq column is a 32-bit integer (SQLite and PostgreSQL)

Ref = Annotated[str, Field(min_length=1, max_length=64)]
"""A unit or token id."""


ActionRef = Annotated[str, Field(min_length=1, max_length=64)]
"""An action's idempotency key, stored with the action: 1 to 64 characters of real Unicode
text (a constrained `str` refuses a lone surrogate, which JSON can spell and no database
column can store)."""

# Messages of pydantic's that say less than they could to a client.
_MESSAGES = {
    "string_unicode": "must be a string of valid Unicode text (not a lone surrogate)",
}


# --- the bodies (REST) ---------------------------------------------------------------------

# Strict, like the JSON they come from: a string is no number and `true` no seq, over REST and
# the websocket alike (pydantic's lax mode would read "3" as 3 on one edge and not the other).
_BODY = ConfigDict(extra="forbid", strict=True)


class PointIn(BaseModel):
    """A point on the table, in inches: finite, and at most the margin (12 in) off the largest
    table (each game refuses one more than 12 in off its own table with `bad_request`)."""

    model_config = _BODY
    x: Coord
    y: Coord


class PlacementIn(PointIn):
    """A unit's front-edge centre and its facing (degrees, normalised to 0..360)."""

    facing: Facing = 0.0


def _ref_or_point(value: Any) -> str:
    return "id" if isinstance(value, str) else "point"


RefOrPoint = Annotated[
    Annotated[Ref, Tag("id")] | Annotated[PointIn, Tag("point")], Discriminator(_ref_or_point)
]


def point_of(p: PointIn | str) -> dict[str, float] | str:
    """A `RefOrPoint` as the rules take it: an id, or `{"x", "y"}`."""
    return p if isinstance(p, str) else p.model_dump()


class ActionIn(BaseModel):
    model_config = _BODY
    action: dict[str, Any]
    ref: ActionRef | None = None
    expected_seq: int | None = Field(default=None, ge=0, le=MAX_SEQ)


class PreviewIn(BaseModel):
    model_config = _BODY
    action: dict[str, Any]


class MeasureIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)
    from_: RefOrPoint = Field(alias="from")
    to: RefOrPoint


class LineOfSightIn(BaseModel):
    model_config = _BODY
    viewer: Ref
    target: Ref


class AmbushOptionsIn(BaseModel):
    model_config = _BODY
    unit: Ref
    point: PointIn
    placement: PlacementIn | None = None


# --- the websocket's client messages -------------------------------------------------------

_WS = ConfigDict(extra="ignore", strict=True, populate_by_name=True)


class Hello(BaseModel):
    """The first frame: a seat token (or null, a spectator) and the last seq seen."""

    model_config = _WS
    type: Literal["hello"]
    token: str | None = None
    since: int | None = Field(default=None, ge=0, le=MAX_SEQ)


class Ping(BaseModel):
    model_config = _WS
    type: Literal["ping"]
    ref: Any = None


class ActionMessage(ActionIn):
    """An action; `ref` is required to be real text because it is stored."""

    model_config = _WS
    type: Literal["action"]


class PreviewMessage(PreviewIn):
    model_config = _WS
    type: Literal["preview"]
    ref: Any = None


class MeasureMessage(MeasureIn):
    model_config = _WS
    type: Literal["measure"]
    ref: Any = None
    share: bool = False


class LineOfSightMessage(LineOfSightIn):
    model_config = _WS
    type: Literal["line_of_sight"]
    ref: Any = None


class AmbushOptionsMessage(AmbushOptionsIn):
    model_config = _WS
    type: Literal["ambush_options"]
    ref: Any = None


Question = PreviewMessage | MeasureMessage | LineOfSightMessage | AmbushOptionsMessage
"""Non-committing questions: answered with `<type>_result`, open to spectators."""

ClientMessage = Annotated[
    Hello | Ping | ActionMessage | Question,
    Field(discriminator="type"),
]
MESSAGE_TYPES: tuple[str, ...] = (
    "hello", "ping", "action", "preview", "measure", "line_of_sight", "ambush_options",
)
_CLIENT_MESSAGE: TypeAdapter[Hello | Ping | ActionMessage | Question] = TypeAdapter(
    ClientMessage
)


def _field(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(p) for p in loc)


def bad_request(exc: ValidationError, skip: int = 0) -> RuleError:
    """A pydantic failure as `bad_request`: the first field and why in the message, every
    failing field in `details.errors` (the shape REST's 400 has). `skip` drops that many
    leading location parts (a union's tag)."""
    errors = [
        {"field": _field(tuple(e["loc"])[skip:]), "message": _MESSAGES.get(e["type"], e["msg"])}
        for e in exc.errors()
    ]
    first = errors[0]
    return RuleError(
        BAD_REQUEST,
        f"{first['field'] or 'message'}: {first['message']}",
        field=first["field"],
        errors=errors,
    )


def parse_client_message(data: dict[str, Any]) -> Hello | Ping | ActionMessage | Question:
    """The one validation point of a websocket frame (already a JSON object with a string
    `type`): its model, or `bad_request` naming the field."""
    kind = data.get("type")
    if kind not in MESSAGE_TYPES:
        raise RuleError(
            BAD_REQUEST,
            f"unknown message type {kind!r}",
            field="type",
            known=sorted(t for t in MESSAGE_TYPES if t != "hello"),
        )
    try:  # (strict: a JSON `true` is no seq, a string no number, as in the JSON itself)
        return _CLIENT_MESSAGE.validate_python(data, strict=True)
    except ValidationError as exc:
        raise bad_request(exc, skip=1) from None  # (the first loc part is the tag)
