"""JSON from outside the server (REST bodies, websocket frames, roster files), parsed with a
limit on how deeply it nests.

Python's parser recurses once per level: input nested a few thousand deep raises
`RecursionError` (not a `ValueError`), and input a few hundred deep parses but leaves every
later recursive walk (validation, `json.dumps` of an event) close to the same limit. Nothing
Warfield reads nests more than a dozen levels (a roster file's selections, the deepest, about
14), so anything deeper than `MAX_DEPTH` is refused before it is parsed, by counting brackets
outside strings (linear, no recursion).
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

MAX_DEPTH = 64
"""The most arrays and objects one inside another that any input may have."""

# A string, to its closing quote or (not closed: not JSON) to the end of the text. Possessive,
# so that no text makes it backtrack: every quote is read past once.
_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+(?:"|\\?\Z)', re.S)
_NOT_BRACKET_BYTES = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


class JsonInputError(ValueError):
    """Input that is not JSON, or nests deeper than the limit (`depth` set, with `limit`)."""

    def __init__(self, message: str, depth: int | None = None, limit: int = MAX_DEPTH) -> None:
        super().__init__(message)
        self.message = message
        self.depth = depth
        self.limit = limit

    def details(self) -> dict[str, int]:
        """Machine details for an error answer: how deep, and the limit (when too deep)."""
        return {} if self.depth is None else {"depth": self.depth, "max_depth": self.limit}


def nesting_depth(text: str) -> int:
    """How many arrays and objects the deepest value of `text` sits in (0 for a scalar).
    Brackets inside strings do not count; for text that is not JSON it is an estimate."""
    # The strings taken out, then every byte but a bracket (in C), then a running sum: about
    # as long as parsing the text, and without recursion.
    outside = _STRING.sub("", text).encode("utf-8", "surrogatepass")
    brackets = outside.translate(None, _NOT_BRACKET_BYTES)
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def too_deep(text: str, limit: int = MAX_DEPTH) -> JsonInputError | None:
    """The refusal for `text` nested deeper than `limit`, or None."""
    depth = nesting_depth(text)
    if depth <= limit:
        return None
    return JsonInputError(
        f"the JSON nests too deeply: {depth} levels, at most {limit} accepted", depth, limit
    )


def as_text(data: str | bytes) -> str:
    """`data` as text, its encoding detected as `json.loads` does (UTF-8, -16 or -32, a
    UTF-8 byte order mark allowed)."""
    if isinstance(data, str):
        return data
    try:
        return data.decode(json.detect_encoding(data), "surrogatepass").removeprefix("\ufeff")
    except (UnicodeDecodeError, LookupError) as exc:
        raise JsonInputError(f"not valid JSON: {exc}") from None


def loads(data: str | bytes, limit: int = MAX_DEPTH) -> Any:
    """The value `data` holds; `JsonInputError` if it is not JSON or nests deeper than
    `limit`."""
    text = as_text(data)
    refused = too_deep(text, limit)
    if refused is not None:
        raise refused
    try:
        return json.loads(text)
    except ValueError as exc:
        raise JsonInputError(f"not valid JSON: {exc}") from None
    except RecursionError:  # (only with a limit above what the parser can recurse)
        raise JsonInputError("the JSON nests too deeply to be read") from None
