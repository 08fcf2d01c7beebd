"""Issue 19 item 3, "Words, not ids": the scripted t9a battle (the battle report's script) read
by a spectator has no internal id in any event text; ids stay in the machine fields."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from tests.api.test_t9a_battle_report import play_once

ID = re.compile(r"\b(u|ter|t)\d+\b")


def test_no_event_text_of_a_played_battle_contains_an_id(client: TestClient) -> None:
    events, _final = play_once(client)
    texts = [e["payload"]["text"] for e in events
             if isinstance(e.get("payload"), dict) and isinstance(e["payload"].get("text"), str)]
    assert len(texts) > 10  # the battle was told in words
    leaks = [t for t in texts if ID.search(t)]
    assert leaks == []
