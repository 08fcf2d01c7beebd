"""Issue 18 items 1 and 2 over the API: submit_army with a unit of your own (validated like a
datasheet, kept in the game's log and shown to both players and spectators, as any army list
is), a mixed-faction army refused naming the rule, an army over its game size refused, and the
check route for a unit of your own."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.helpers import auth, new_game
from tests.data.test_own_units import sea_guard


def act(client: TestClient, game: dict[str, Any], seat: int, **action: Any) -> Any:
    return client.post(f"/api/games/{game['id']}/actions", headers=auth(game[f"p{seat}"]),
                       json={"action": action})


def test_submit_with_a_unit_of_your_own_keeps_it_in_the_log_and_shows_it(
    client: TestClient,
) -> None:
    game = new_game(client, "t9a")
    answer = act(client, game, 1, type="submit_army", faction="Highborn Elves",
                 game_size="Standard", own_units=[sea_guard()],
                 units=[{"datasheet": "my-sea-guard", "models": 20,
                         "joined_characters": ["highborn-commander"]},
                        {"datasheet": "citizen-spears", "models": 20}])
    assert answer.status_code == 200, answer.text
    events = client.get(f"/api/games/{game['id']}/events", params={"since": 0}).json()["events"]
    [army] = [e for e in events if e["type"] == "army_submitted"]
    [own] = army["payload"]["own_datasheets"]
    assert own["name"] == "Sea Guard" and own["own"] and own["id"].startswith("own-")
    # Sea Guard 50 + 20 x 12, the Commander 130, Citizen Spears 25 + 20 x 11.
    assert army["payload"]["points"] == 290 + 130 + 245
    assert army["payload"]["faction"] == "Highborn Elves"
    unit = army["payload"]["units"][0]
    assert unit["datasheet"] == own["id"] and unit["name"] == "Sea Guard + Highborn Commander"
    # Public, like any army list: a spectator's view carries the unit's datasheet and marks.
    view = client.get(f"/api/games/{game['id']}").json()["state"]
    assert view["own_datasheets"][own["id"]]["other_rules"] == [
        {"name": "Sea Drill", "text": "may re-form before shooting"}]
    assert view["army_lists"]["1"] == {"faction": "Highborn Elves", "game_size": "Standard",
                                       "points": 665}
    card = next(u for u in view["units"].values() if u["datasheet"] == own["id"])
    assert "Fearless" in card["rules"]
    # Both armies in: deployment starts, and the unit of your own deploys like any unit.
    assert act(client, game, 2, type="submit_army",
               units=[{"datasheet": "mageblight-gremlin", "models": 3}]).status_code == 200
    placed = act(client, game, 1, type="deploy_unit", unit=card["id"], x=20, y=6)
    assert placed.status_code == 200, placed.text


def test_a_bad_unit_of_your_own_is_refused_naming_the_field(client: TestClient) -> None:
    game = new_game(client, "t9a")
    bad = sea_guard(special_rules=["Flying Pigs"])
    answer = act(client, game, 1, type="submit_army", own_units=[bad],
                 units=[{"datasheet": "my-sea-guard", "models": 20}])
    assert answer.status_code == 400
    body = answer.json()
    assert body["code"] == "bad_request"
    assert "own_units.0.special_rules.0: unknown special rule 'Flying Pigs'" in body["message"]
    state = client.get(f"/api/games/{game['id']}").json()["state"]
    assert state["armies_submitted"] == [] and state["units"] == {}


def test_a_mixed_faction_army_is_refused_naming_the_army_book(client: TestClient) -> None:
    """The issue's example: a Daemon Herald cannot join Highborn Spears' army."""
    game = new_game(client, "t9a")
    answer = act(client, game, 1, type="submit_army",
                 units=[{"datasheet": "citizen-spears", "models": 20},
                        {"datasheet": "daemon-herald", "models": 1}])
    assert answer.status_code == 400
    body = answer.json()
    assert body["details"]["rule"] == "Army Book"
    assert body["message"] == ("army entry 2: Daemon Herald is from Daemon Legions, and this "
                               "army is Highborn Elves (Army Book: an army is drawn from one)")
    assert [e["code"] for e in body["details"]["errors"]] == ["wrong_faction"]


def test_an_army_over_its_game_size_is_refused_naming_the_battle_size(client: TestClient) -> None:
    game = new_game(client, "wh40k10")
    answer = act(client, game, 1, type="submit_army", game_size="Incursion",
                 units=[{"datasheet": "boyz", "models": 20}] * 6)
    assert answer.status_code == 400
    assert answer.json()["details"]["rule"] == "Battle Size"
    assert "1,020 points, over the 1,000 of Incursion (Battle Size)" in answer.json()["message"]


def test_the_check_route_answers_the_datasheet_or_the_problems(client: TestClient) -> None:
    good = client.post("/api/systems/t9a/own-units/check", json=sea_guard())
    assert good.status_code == 200, good.text
    assert good.json()["datasheet"]["name"] == "Sea Guard"
    bad = client.post("/api/systems/t9a/own-units/check",
                      json=sea_guard(models={"min": 0, "max": 5, "default": 1}))
    assert bad.status_code == 400
    assert bad.json()["details"]["problems"] == [
        "models.min: Input should be greater than or equal to 1"]
    assert client.post("/api/systems/t9a/own-units/check", content=b"[").status_code == 400
    assert client.post("/api/systems/chess/own-units/check", json={}).status_code == 404


def test_another_games_unit_of_your_own_cannot_be_named_without_bringing_it(
    client: TestClient,
) -> None:
    """A unit of your own is found by the engine while a game holds it; another army may not
    name it by id without defining it (its game's log would lack it)."""
    first = new_game(client, "t9a")
    assert act(client, first, 1, type="submit_army", own_units=[sea_guard()],
               units=[{"datasheet": "my-sea-guard", "models": 20}]).status_code == 200
    view = client.get(f"/api/games/{first['id']}").json()["state"]
    [own_id] = view["own_datasheets"]
    second = new_game(client, "t9a")
    answer = act(client, second, 1, type="submit_army",
                 units=[{"datasheet": own_id, "models": 20}])
    assert answer.status_code == 400
    assert [e["code"] for e in answer.json()["details"]["errors"]] == ["unknown_datasheet"]
