"""The toy, a fifth format from outside the project, appears everywhere through the registry.

None of these tests, nor any file outside ``tests/formats/toy/``, names the toy
to the project: it is installed through the ``tradeleague.formats`` entry points
(``conftest.py``) and found by ``tradeleague formats``, ``replay``, the host, the
site, ``verify`` and ``sweep`` as the built-in formats are.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tradeleague.plugin import formats, get


def _cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tradeleague.cli", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_registry_finds_the_toy_beside_the_built_ins() -> None:
    keys = [f.key for f in formats()]
    assert keys == ["weights", "direction", "scenario", "thesis", "toy"]
    assert get("toy").table == "toy"


def test_tradeleague_formats_lists_the_toy(toy_env: dict[str, str], tmp_path: Path) -> None:
    done = _cli(["formats", "--json"], toy_env, tmp_path)
    assert done.returncode == 0, done.stderr
    listed = {f["key"]: f for f in json.loads(done.stdout)["formats"]}
    assert set(listed) == {"weights", "direction", "scenario", "thesis", "toy"}
    assert listed["toy"]["replay"] == "tradeleague replay toy"
    assert listed["toy"]["league_file_table"] == "[toy]"
    assert listed["toy"]["pages"] == ["/toy"]


AGENTS = ["--agent", "a=first", "--agent", "b=coin", "--agent", "c=cash"]


def _replay(
    env: dict[str, str], cwd: Path, db: Path, out: Path
) -> subprocess.CompletedProcess[str]:
    report = str(out / "REPORT.json")
    return _cli(
        ["replay", "toy", *AGENTS, "--db", f"sqlite:///{db}", "--days", "5", "--out", report],
        env,
        cwd,
    )


def test_replay_toy_runs_resumes_and_verifies(toy_env: dict[str, str], tmp_path: Path) -> None:
    first = _replay(toy_env, tmp_path, tmp_path / "a.db", tmp_path / "a")
    assert first.returncode == 0, first.stderr
    assert "5 rounds played" in first.stdout
    report = json.loads((tmp_path / "a" / "REPORT.json").read_text())
    assert report["format"] == "toy"
    assert report["rounds"] == 5
    assert report["ended"]
    assert [r["agent"] for r in report["board"]] == ["c", "a", "b"]
    again = _replay(toy_env, tmp_path, tmp_path / "a.db", tmp_path / "a")
    assert again.returncode == 0
    assert "0 rounds played" in again.stdout
    twin = _replay(toy_env, tmp_path, tmp_path / "b.db", tmp_path / "b")
    assert twin.returncode == 0
    assert (tmp_path / "b" / "REPORT.json").read_bytes() == (
        tmp_path / "a" / "REPORT.json"
    ).read_bytes()
    heads = [
        _cli(["db", "info", "--db", f"sqlite:///{tmp_path / n}.db"], toy_env, tmp_path).stdout
        for n in ("a", "b")
    ]
    head_lines = [next(x for x in h.splitlines() if x.startswith("head ")) for h in heads]
    assert head_lines[0] == head_lines[1]  # the same replay ends on the same chain head
    verified = _cli(["verify", "--db", f"sqlite:///{tmp_path / 'a.db'}"], toy_env, tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "chain correctly" in verified.stdout


def test_the_host_plays_the_toy_under_the_replay_clock(
    toy_env: dict[str, str], tmp_path: Path
) -> None:
    league = tmp_path / "league.toml"
    league.write_text(
        '[league]\ndb = "sqlite:///host.db"\n\n[toy]\nseason = "t1"\nseed = 7\ndays = 5\n'
        '[[toy.agents]]\nname = "a"\nspec = "first"\n[[toy.agents]]\nname = "b"\nspec = "coin"\n'
        '[[toy.agents]]\nname = "c"\nspec = "cash"\n'
    )
    ran = _cli(
        ["run", "--config", str(league), "--clock", "replay", "--from", "2024-01-03",
         "--to", "2024-01-10"],
        toy_env,
        tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    status = _cli(["status", "--config", str(league), "--json"], toy_env, tmp_path)
    assert status.returncode == 0, status.stderr
    assert '"format": "toy"' in status.stdout
    out = tmp_path / "report.json"
    done = _cli(["report", "--config", str(league), "--season", "t1", "--out", str(out)],
                toy_env, tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    replayed = _replay(toy_env, tmp_path, tmp_path / "r.db", tmp_path / "r")
    assert replayed.returncode == 0
    # the host wrote the replay's season: the same report, figure for figure
    assert json.loads(out.read_text()) == json.loads((tmp_path / "r" / "REPORT.json").read_text())


def test_the_site_shows_the_toy_on_its_home_and_board(
    toy_env: dict[str, str], tmp_path: Path
) -> None:
    from fastapi.testclient import TestClient

    from tradeleague.clock import WallClock
    from tradeleague.league.scenario import ScenarioService
    from tradeleague.site import create_site
    from tradeleague.store import open_store

    assert _replay(toy_env, tmp_path, tmp_path / "s.db", tmp_path / "s").returncode == 0
    service = ScenarioService(open_store(f"sqlite:///{tmp_path / 's.db'}"), WallClock())
    try:
        with TestClient(create_site(service)) as client:
            home = client.get("/")
            assert home.status_code == 200
            assert 'href="/toy"' in home.text
            assert "Toy league" in home.text
            board = client.get("/toy")
            assert board.status_code == 200
            assert "Season t1" in board.text
            assert "<td>c</td>" in board.text
            listed = client.get("/api/v1").json()["formats"]
            assert listed["toy"] == "/api/v1/toy"
            seasons = client.get("/api/v1/toy").json()["seasons"]
            assert [r["agent"] for r in seasons[0]["board"]] == ["c", "a", "b"]
            assert client.get("/methodology/toy").status_code == 200
    finally:
        service.store.close()


def test_a_sweep_runs_the_toy_cells(toy_env: dict[str, str], tmp_path: Path) -> None:
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(
        'seeds = [0, 1]\n\n[toy.seasons.short]\nseason = "t1"\ndays = 3\n\n'
        '[toy.rosters]\nthree = ["a=first", "b=coin", "c=cash"]\n'
    )
    ran = _cli(
        ["sweep", "--config", str(sweep), "--out", str(tmp_path / "out"), "--workers", "1"],
        toy_env,
        tmp_path,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    merged = json.loads((tmp_path / "out" / "REPORT.json").read_text())
    cells = merged["cells"]
    assert len(cells) == 2
    assert all(c["format"] == "toy" for c in cells)
    assert "toy" in (tmp_path / "out" / "BOARD.md").read_text()


ROOT = Path(__file__).resolve().parents[3]


def test_the_recipe_lists_exactly_the_files_the_toy_has() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("<!-- toy-files")[1].split("<!-- /toy-files -->")[0]
    listed = set(re.findall(r"`(toyformat/[\w/.]+)`", section))
    package = Path(__file__).parent / "toyformat"
    present = {
        f"toyformat/{p.relative_to(package).as_posix()}"
        for p in package.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert listed == present


def test_no_file_outside_the_toy_names_it() -> None:
    named = re.compile(r"toyformat|[\"']toy[\"']")
    outside = [
        str(p.relative_to(ROOT))
        for folder in ("src", "tests", "bench", "examples")
        for p in (ROOT / folder).rglob("*")
        if p.is_file()
        and p.suffix in {".py", ".toml", ".html", ".txt", ".cfg"}
        and "toy" not in p.relative_to(ROOT).parts[:3]
        and named.search(p.read_text(encoding="utf-8", errors="replace"))
    ]
    assert outside == []
    assert not named.search((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
