"""`warfield export | import | verify-dice` (issue 4 item 1, issue 8 item 6), on both databases,
and `warfield bench` run from outside the checkout (issue 12 item 7)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.api.app import create_app
from server.cli import main
from server.config import Settings
from tests.api.helpers import auth, new_game
from tests.conftest import require


def _play(settings: Settings, *, end: bool = True) -> str:
    with TestClient(create_app(settings)) as client:
        game = new_game(client)
        gid = game["id"]
        actions = [{"type": "roll_dice", "dice": d} for d in ("2D6", "D3", "scatter", "3D6")]
        if end:
            actions.append({"type": "concede"})
        for action in actions:
            r = client.post(f"/api/games/{gid}/actions", json={"action": action},
                            headers=auth(game["p1"]))
            assert r.status_code == 200, r.text
    return gid


@pytest.fixture
def env(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Point the CLI (which reads its settings from the environment) at the test database."""
    monkeypatch.setenv("DATABASE_URL", settings.effective_database_url)
    monkeypatch.setenv("WARFIELD_DATA_DIR", str(settings.data_dir))
    return settings


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_export_import_verify(env: Settings, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    gid = _play(env)
    code, out, _ = _run(capsys, "export", gid)
    assert code == 0
    doc = json.loads(out)
    assert doc["game"]["id"] == gid and doc["over"] and "dice_seed" in doc["game"]
    path = tmp_path / "game.json"
    path.write_text(out)

    code, out, _ = _run(capsys, "verify-dice", str(path))
    assert code == 0 and "VERIFIED" in out and "rolls checked: 4" in out

    code, _, err = _run(capsys, "import", str(path))
    assert code == 1 and "exists already" in err
    code, out, _ = _run(capsys, "import", "--as-new", str(path))
    assert code == 0
    new_id = out.split()[2]
    tokens = [line.split()[-1] for line in out.splitlines() if line.startswith("seat ")]
    assert len(tokens) == 2 and new_id != gid
    with TestClient(create_app(env)) as client:
        r = client.get(f"/api/games/{new_id}/dice-proof", headers=auth(tokens[0]))
        assert r.status_code == 200 and r.json()["verified"] is True
    code, out, _ = _run(capsys, "export", new_id)
    again = json.loads(out)
    assert again["events"][1:] == doc["events"][1:]


def test_tampered_face_exits_1_naming_the_roll(env: Settings, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "export", _play(env))
    doc: dict[str, Any] = json.loads(out)
    event = next(e for e in doc["events"] if e["type"] == "dice_rolled"
                 and e["payload"]["roll"]["expression"] == "3D6")
    die = event["payload"]["roll"]["dice"][2]
    die["face"] = 6 if die["face"] != 6 else 5
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(doc))
    code, out, _ = _run(capsys, "verify-dice", str(path))
    assert code == 1
    assert "FAILED" in out and f"event seq {event['seq']}, roll 0" in out
    assert "die 2 face recorded" in out
    # The same through a real process: the exit status is what a shell sees.
    proc = subprocess.run([sys.executable, "-m", "server.cli", "verify-dice", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and f"event seq {event['seq']}" in proc.stdout


def test_running_game_exits_2_and_keeps_its_seed(env: Settings, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    gid = _play(env, end=False)
    code, out, _ = _run(capsys, "export", gid)
    assert code == 0 and "dice_seed" not in json.loads(out)["game"]
    path = tmp_path / "running.json"
    path.write_text(out)
    code, out, _ = _run(capsys, "verify-dice", str(path))
    assert code == 2 and "not revealed" in out
    code, _, err = _run(capsys, "import", "--as-new", str(path))
    assert code == 1 and "--include-seed" in err
    code, out, err = _run(capsys, "export", "--include-seed", gid)
    assert code == 0 and "secret" in err and "dice_seed" in json.loads(out)["game"]


def test_bad_input(env: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "export", "nope")
    assert code == 1 and "no game" in err
    path = tmp_path / "junk.json"
    path.write_text("{not json")
    assert _run(capsys, "import", str(path))[0] == 1
    assert _run(capsys, "verify-dice", str(path))[0] == 1
    path.write_text(json.dumps({"format": "something-else"}))
    code, out, _ = _run(capsys, "verify-dice", str(path))
    assert code == 1 and "unknown format" in out
    code, _, err = _run(capsys, "import", str(tmp_path / "missing.json"))
    assert code == 1


def test_an_export_file_nested_thousands_deep_is_refused_not_a_traceback(
    env: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An export file is read with the server's depth limit (server/data/json_input.py):
    nested 5,000 deep it is refused with a message, where the parser would recurse."""
    path = tmp_path / "deep.json"
    path.write_text('{"a":' * 5000 + "1" + "}" * 5000)
    code, _, err = _run(capsys, "import", str(path))
    assert code == 1 and "nests too deeply: 5000 levels" in err
    code, _, err = _run(capsys, "verify-dice", str(path))
    assert code == 1 and "nests too deeply" in err


# --- `warfield bench` (issue 12 item 7) ----------------------------------------------------------


def _installed_warfield() -> str:
    """The console script pip installed beside this interpreter (`.venv/bin/warfield`)."""
    found = shutil.which("warfield", path=str(Path(sys.executable).parent))
    require(found is not None, "the warfield console script is not installed in this venv "
            "(make .venv/.installed-dev)")
    return str(found)


def _outside_the_checkout(tmp_path: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """Run argv from an empty directory with no PYTHONPATH: only what is installed resolves."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)


def test_installed_warfield_bench_geometry_prints_json_from_another_directory(
    tmp_path: Path,
) -> None:
    proc = _outside_the_checkout(tmp_path, [_installed_warfield(), "bench", "geometry",
                                            "--iterations", "20", "--search-iterations", "2"])
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["benchmark"] == "geometry"
    assert result["table"]["models"] == 600
    assert result["ops"]["line_of_sight_unit_to_unit"]["n"] == 20
    assert result["ops"]["ambush_placement_search"]["n"] == 2
    assert all(op["median_us"] > 0 for op in result["ops"].values())


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["bench", "fanout", "--help"], "usage: warfield bench fanout"),
        (["bench", "many-games", "--help"], "usage: warfield bench many-games"),
        (["-m", "bench.ws_fanout", "--help"], "usage: warfield bench fanout"),
        (["-m", "bench.side_by_side", "--help"], "usage: python -m bench.side_by_side"),
    ],
)
def test_every_documented_bench_command_resolves_from_another_directory(
    tmp_path: Path, argv: list[str], usage: str
) -> None:
    """README: `warfield bench geometry | fanout | many-games`, `python -m bench.ws_fanout`,
    `python -m bench.side_by_side` (their full runs: tests/bench/test_fanout_smoke.py)."""
    program = sys.executable if argv[0] == "-m" else _installed_warfield()
    proc = _outside_the_checkout(tmp_path, [program, *argv])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(usage), proc.stdout[:200]


def test_bench_without_the_bench_package_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The server image installs `server` only: a clear message and exit 2, no traceback."""
    for name in [m for m in sys.modules if m == "bench" or m.startswith("bench.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "bench", None)  # import bench -> ModuleNotFoundError
    code, out, err = _run(capsys, "bench", "geometry")
    assert code == 2 and out == ""
    assert "benchmarks are not installed here" in err and "make" in err


def test_serve_names_an_unwritable_data_dir_and_its_fix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # A directory that cannot be made (its parent is a file) fails for root too, unlike a
    # permission bit: the same path SQLite would have ended in a bare traceback on.
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("WARFIELD_DATA_DIR", str(blocker / "data"))
    code, out, err = _run(capsys, "serve", "--port", "1")
    assert code == 2
    assert "is not writable" in err and "WARFIELD_DATA_DIR" in err
    assert "chown -R 10001:10001" in err
    assert "Traceback" not in err + out


def test_serve_data_dir_check_leaves_nothing_behind(tmp_path: Path) -> None:
    from server.cli import check_data_dir

    data = tmp_path / "fresh" / "data"
    check_data_dir(data)
    assert data.is_dir() and list(data.iterdir()) == []
