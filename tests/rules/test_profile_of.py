"""Issue 23 item 3: each system reads its own profile through its own typed accessor
(`server/rules/<system>/profiles.py: profile_of`), which refuses a datasheet of another system
with `WrongSystem` instead of letting an attribute error surface somewhere later."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from server.data import Datasheet, load_catalog
from server.data.schema import SYSTEM_IDS, WrongSystem
from server.rules.t9a.profiles import profile_of as t9a_profile_of
from server.rules.wh40k10.profiles import profile_of as wh40k10_profile_of
from server.rules.whfb8.profiles import profile_of as whfb8_profile_of

ACCESSORS: dict[str, Callable[[Datasheet], object]] = {
    "t9a": t9a_profile_of,
    "whfb8": whfb8_profile_of,
    "wh40k10": wh40k10_profile_of,
}


def test_every_system_has_an_accessor() -> None:
    assert set(ACCESSORS) == set(SYSTEM_IDS)


@pytest.mark.parametrize("system", SYSTEM_IDS)
def test_profile_of_reads_every_sheet_of_its_own_system(system: str) -> None:
    sheets = load_catalog().datasheets(system)
    assert sheets
    for sheet in sheets:
        profile = ACCESSORS[system](sheet)
        assert profile is sheet.profile
        assert profile.system == system


@pytest.mark.parametrize(
    ("system", "other"), [(s, o) for s in SYSTEM_IDS for o in SYSTEM_IDS if s != o]
)
def test_profile_of_refuses_a_sheet_of_another_system(system: str, other: str) -> None:
    sheet = load_catalog().datasheets(other)[0]
    with pytest.raises(WrongSystem) as refused:
        ACCESSORS[system](sheet)
    assert str(refused.value) == f"{sheet.id} is a {other} datasheet, not a {system} one"


def test_rule_printed_is_the_sheets_wording_or_the_bare_name() -> None:
    """The Mageblight Gremlin's page prints "Hard Target (1)" (seed 000); a rule it does not
    lacks is named bare."""
    gremlin = load_catalog().get("t9a", "mageblight-gremlin")
    assert gremlin.rule_printed("Hard Target") == "Hard Target (1)"
    assert gremlin.rule("Frenzy") is None
    assert gremlin.rule_printed("Frenzy") == "Frenzy"
