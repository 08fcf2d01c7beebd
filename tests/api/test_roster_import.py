"""POST /api/systems/{id}/rosters/import (issue 18 items 3 and 4): the roster's bytes in, army
entries and a mapping report out; nothing is submitted. Bad files get 400 bad_request."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from server.data.rosters import export_army
from tests.api.helpers import auth, new_game

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
    assert [s["reason"] for s in data["report"]["skipped"]] == [
        "not in the catalog, and the roster prints no Unit profile with M, T, SV, W, LD and OC"
    ] * 2
    assert data["report"]["created"] == []


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


def test_a_roster_unit_the_catalog_lacks_is_submitted_deployed_and_shown_as_your_own(
    client: TestClient,
) -> None:
    """Issue 18 items 2 and 3 together: the import's unit of your own (the Redemptor
    Dreadnought, from its BSData profiles) goes into submit_army as the import answered it,
    is kept in the game's log, deploys, and its card shows its profile, its points and its
    rules (Duty Eternal kept as text)."""
    body = (FIXTURES / "wh40k10-own-units.ros").read_bytes()
    data = client.post("/api/systems/wh40k10/rosters/import", content=body).json()
    assert [c["name"] for c in data["report"]["created"]] == ["Redemptor Dreadnought"]
    game = new_game(client, "wh40k10")

    def act(seat: int, **action: object) -> object:
        answer = client.post(f"/api/games/{game['id']}/actions",
                             headers=auth(game[f"p{seat}"]), json={"action": action})
        assert answer.status_code == 200, answer.text
        return answer

    act(1, type="submit_army", units=data["army"], own_units=data["own_units"])
    act(2, type="submit_army", units=[{"datasheet": "boyz", "models": 10}])
    view = client.get(f"/api/games/{game['id']}").json()["state"]
    [sheet] = view["own_datasheets"].values()
    assert sheet["name"] == "Redemptor Dreadnought" and sheet["points"]["unit"] == 210
    assert sheet["other_rules"][0]["name"] == "Duty Eternal"
    dread = next(u for u in view["units"].values() if u["datasheet"] == sheet["id"])
    url = f"/api/games/{game['id']}"
    while (state := client.get(url).json()["state"])["stage"] == "deployment":
        seat = state["deploying"]
        uid = next(u["id"] for u in state["units"].values()
                   if u["owner"] == seat and u["status"] == "undeployed")
        x = 15 if uid == dread["id"] else 40
        act(seat, type="deploy_unit", unit=uid, x=x, y=8 if seat == 1 else 36,
            facing=0 if seat == 1 else 180)
    units = client.get(f"/api/games/{game['id']}").json()["state"]["units"]
    assert units[dread["id"]]["status"] == "on_table"


def test_upgraded_units_and_a_leader_of_your_own_go_through_submit_army(
    client: TestClient,
) -> None:
    """Issue 18 items 1-3 over the API (BSData/wh40k-10e shapes): the Intercessor Squad whose
    Sergeant took a power fist is a unit of your own based on the catalogue's, with the fist
    carried by the Sergeant and the change named with its source; the Lieutenant the catalogue
    lacks leads it (its Leader ability); both are kept in the game's public view."""
    body = (FIXTURES / "wh40k10-marines-bsdata.ros").read_bytes()
    data = client.post("/api/systems/wh40k10/rosters/import", content=body).json()
    squad_ref = data["report"]["mapped"][0]["ref"]
    leader_ref = data["report"]["created"][0]["ref"]
    assert data["own_datasheets"][squad_ref]["changes"][0]["source"] == "Power fist"
    army = [{"datasheet": squad_ref, "models": 5, "joined_characters": [leader_ref]}]
    game = new_game(client, "wh40k10")
    answer = client.post(f"/api/games/{game['id']}/actions", headers=auth(game["p1"]),
                         json={"action": {"type": "submit_army", "units": army,
                                          "own_units": data["own_units"]}})
    assert answer.status_code == 200, answer.text
    view = client.get(f"/api/games/{game['id']}").json()["state"]
    [unit] = [u for u in view["units"].values() if u["owner"] == 1]
    squad = view["own_datasheets"][unit["datasheet"]]
    assert squad["based_on"] == "intercessor-squad"
    assert squad["faction"] == "Adeptus Astartes"
    fist = next(w for w in squad["profile"]["weapons"] if w["name"] == "Power fist")
    assert fist["carried_by"] == "Intercessor Sergeant"
    assert [c["name"] for c in unit["characters"]] == ["Lieutenant"]
    leader = view["own_datasheets"][unit["characters"][0]["datasheet"]]
    assert leader["leads"] == ["intercessor-squad"] and leader["can_join"]
