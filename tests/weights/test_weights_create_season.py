"""``weights create-season`` says what it created and what comes next, not a bare id."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.events import weights as wev
from tradeleague.store import open_store


def test_create_season_says_what_it_created_and_where_to_look_next(
    shared_data: Path, tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'ops.db'}"
    bars = shared_data / "us_equities_1h"
    result = CliRunner().invoke(app, [
        "weights", "create-season", "--start", "2025-09-01", "--market", str(bars),
        "--symbols", "AAPL,MSFT", "--season", "S9", "--db", db,
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "Created weights season S9: 2025-09-01 00:00 UTC to 2025-09-29 00:00 UTC "
        f"(end excluded, 28 days), recorded in {db}."
    )
    assert lines[1] == "universe: 2 symbols, a fixed list: AAPL, MSFT"
    assert lines[2] == "Next:"
    assert "tradeleague weights add-agent --season S9 --name NAME" in lines[3]
    assert f"tradeleague weights run-round --season S9 --market {bars} --db {db}" in lines[4]
    assert f"tradeleague weights table --season S9 --db {db}" in lines[5]
    with open_store(db) as store:
        assert store.count(wev.season_stream("S9")) == 1  # what it says is what it recorded

    # The commands it prints run as printed (on a day the season runs).
    added = CliRunner().invoke(app, [
        "weights", "add-agent", "--season", "S9", "--name", "eq", "--owner", "0xabc",
        "--spec", "baseline:equal_weight", "--division", "open", "--db", db,
        "--now", "2025-09-02T14:00Z",
    ])  # fmt: skip
    assert added.exit_code == 0, added.output
    table = CliRunner().invoke(app, ["weights", "table", "--season", "S9", "--db", db])
    assert table.exit_code == 0, table.output
