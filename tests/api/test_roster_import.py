"""POST /api/systems/{id}/rosters/import (issue 18 items 3 and 4): the roster's bytes in, army
entries and a mapping report out; nothing is submitted. Bad files get 400 bad_request."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from server.data.rosters import export_army

FIXTURES = Path(__file__).parent.parent / "data" / "fixtures" / "rosters"


def test_import_route_maps_a_battlescribe_roster_and_reports_skips(client: TestClient) -> None:
    body = (FIXTURES / "wh40k10-mixed-partial.ros").read_bytes()
    answer = client.post("/api/systems/wh40k10/rosters/import", content=body,
                         headers={"Content-Type": "application/xml"})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["format"] == "battlescribe-ros"
    assert data["army"] == [{"datasheet": "intercessor-squad", "models": 5}] * 2
    assert [m["datasheet"] for m in data["report"]["mapped"]] == ["intercessor-squad"] * 2
    assert [s["reason"] for s in data["report"]["skipped"]] == ["not in the catalog"] * 2


def test_imported_army_file_is_what_submit_army_takes(client: TestClient) -> None:
    units = [{"datasheet": "skeleton-warriors", "models": 20, "joined_characters": ["tomb-king"]}]
    answer = client.post("/api/systems/whfb8/rosters/import", content=export_army("whfb8", units))
    assert answer.status_code == 200, answer.text
    assert answer.json()["army"] == units
    assert answer.json()["report"]["problems"] == []


def test_import_route_refuses_an_xml_bomb_with_bad_request(client: TestClient) -> None:
    bomb = (b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa">'
            b'<!ENTITY b "&a;&a;&a;&a;">]><roster name="&b;"/>')
    answer = client.post("/api/systems/t9a/rosters/import", content=bomb)
    assert answer.status_code == 400
    assert answer.json()["code"] == "bad_request"
    assert "DTD or entities" in answer.json()["message"]


def test_import_route_refuses_a_body_over_the_limit_and_an_unknown_system(
    client: TestClient,
) -> None:
    too_big = client.post("/api/systems/t9a/rosters/import", content=b" " * (300 * 1024))
    assert too_big.status_code == 413 and too_big.json()["code"] == "too_large"
    assert client.post("/api/systems/chess/rosters/import", content=b"<roster/>").status_code == 404
