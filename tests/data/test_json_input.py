"""server/data/json_input.py: the nesting depth of outside JSON, counted without parsing it,
and the parse that refuses anything deeper than the limit."""

from __future__ import annotations

import pytest

from server.data.json_input import MAX_DEPTH, JsonInputError, loads, nesting_depth


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("1", 0),
        ('"[[[{{{"', 0),  # brackets inside a string do not nest anything
        ('"a \\" [[[ \\\\"', 0),  # nor after an escaped quote or an escaped backslash
        ("[]", 1),
        ('{"a": [1, {"b": "]]]]"}], "c": {}}', 3),
        ("[[1], [[2]], 3]", 3),
        ("[" * 5000 + "]" * 5000, 5000),
        ('[["a', 2),  # a string not closed runs to the end (not JSON: the parser says so)
        ('["\\', 1),
        ('"\\""' * 1000 + "[", 1),  # strings holding an escaped quote, one after another
    ],
)
def test_nesting_depth_counts_arrays_and_objects_outside_strings(text: str, depth: int) -> None:
    assert nesting_depth(text) == depth


def test_loads_reads_json_up_to_the_limit_and_refuses_one_level_more() -> None:
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    assert loads(b'\xef\xbb\xbf{"a": [1]}') == {"a": [1]}  # a UTF-8 byte order mark
    assert loads('{"a": "x"}'.encode("utf-16")) == {"a": "x"}
    with pytest.raises(JsonInputError) as caught:
        loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert caught.value.details() == {"depth": MAX_DEPTH + 1, "max_depth": MAX_DEPTH}
    assert "nests too deeply" in caught.value.message


@pytest.mark.parametrize("text", ["{not json", "", "[1,]", '{"a": 1', b"\xff\xfe\x00"])
def test_loads_refuses_what_is_not_json_with_the_same_error(text: str | bytes) -> None:
    with pytest.raises(JsonInputError) as caught:
        loads(text)
    assert caught.value.message.startswith("not valid JSON") and caught.value.details() == {}
