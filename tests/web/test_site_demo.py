"""After ``make demo``: the command it prints serves the demo's own boards as pages.

The README tells a new user to run ``tradeleague serve`` with the store the
demo prints (serve finds the demo's arena in it: no stream flag, issue 30 item
3); this replays a short demo, takes that command's arguments from the demo's
output and checks the site ``serve`` builds from them shows the demo's weights
tables and arena board, as the JSON API does.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path
from urllib.parse import quote

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.clock import WallClock
from tradeleague.site.serving import serve_site
from tradeleague.store import open_store
from tradeleague.web.formatting import money

README = Path(__file__).parents[2] / "README.md"


def test_the_serve_command_the_demo_prints_shows_its_boards(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'demo.db'}"
    ran = CliRunner().invoke(
        app,
        ["demo", "--db", db, "--no-house-model", "--days", "7", "--rounds", "3"],
        terminal_width=400,
    )
    assert ran.exit_code == 0, ran.output
    played = [x for x in ran.output.splitlines() if re.match(r"round \d+/3 ", x)]
    assert [x.split()[1] for x in played] == ["1/3", "2/3", "3/3"]  # demo --rounds N plays N
    flat = " ".join(ran.output.split())
    assert "(3 rounds, 0 void)" in flat
    printed = re.search(r"Open the boards in a browser: tradeleague serve (.+?), then (\S+)", flat)
    assert printed is not None, flat
    # what a user pastes into a shell is one valid command, unwrapped
    line = next(x for x in ran.output.splitlines() if x.startswith("Open the boards"))
    assert line.endswith("then http://127.0.0.1:8000/")
    command = f"tradeleague serve {printed.group(1)}"
    assert subprocess.run(["bash", "-n", "-c", command], check=False).returncode == 0, command
    args = shlex.split(printed.group(1))
    assert printed.group(2) == "http://127.0.0.1:8000/"
    options = dict(zip(args[::2], args[1::2], strict=True))
    assert set(options) == {"--db"}
    assert options["--db"] == db
    readme = README.read_text(encoding="utf-8")
    assert "After `make demo`, serve the demo's store" in readme
    assert "tradeleague serve --db sqlite:///./tradeleague.db\n" in readme

    with open_store(options["--db"]) as store:
        site, _ = serve_site(store, WallClock(), {"direction_stream": None})
        with TestClient(site) as client:
            home = client.get("/")
            seasons = client.get("/api/v1/weights").json()["seasons"]
            assert len(seasons) == 1
            season = quote(seasons[0], safe="")
            assert f'href="/weights/{season}"' in home.text
            assert 'data-story="direction"' in home.text  # the arena's leader, in a sentence
            assert home.text.count("No season yet.") == 1  # the thesis league's: not in the demo
            for division in ("pro", "open"):
                rows = client.get(f"/api/v1/weights/seasons/{season}/tables/{division}")
                assert rows.json()["rows"], division
            table = client.get(f"/weights/{season}")
            assert table.status_code == 200
            for name in ("pro_cash", "open_hold"):
                assert f'data-agent="{name}"' in table.text, name
            board = client.get("/api/v1/direction/boards").json()
            assert len(board["models"]) == 5
            arena = client.get("/direction").text
            assert "No season yet" not in arena
            for model in board["models"]:
                assert f'data-model="{model["name"]}"' in arena, model["name"]
                balance = money(model["balance"])  # the one formatting layer: to the cent
                assert f'data-field="balance" data-label="Balance (USD)">{balance}</td>' in arena
