"""The demo: a baseline competition replayed, recorded, verified (C-1, C-4, W-EXE-1, W-SCO-1)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from tradeleague import DISCLAIMER
from tradeleague.cli import app
from tradeleague.events import EventKind
from tradeleague.sim import Fill, Portfolio
from tradeleague.store import open_store

runner = CliRunner()


def _rows(output: str) -> dict[str, list[str]]:
    rows = {}
    for line in output.splitlines():
        cells = [c.strip() for c in line.split("│") if c.strip()]
        if len(cells) == 7 and cells[0].isdigit():
            rows[cells[1]] = cells
    return rows


def test_demo_on_synthetic_market_prints_a_labelled_verified_table(tmp_path: Path) -> None:
    """C-1 disclaimer, synthetic label, and W-SCO-1 entries: one per agent per round."""
    db = f"sqlite:///{tmp_path / 'demo.db'}"
    result = runner.invoke(app, ["demo", "--db", db, "--days", "25"], terminal_width=160)
    assert result.exit_code == 0, result.output
    assert "SYNTHETIC" in result.output
    assert " ".join(DISCLAIMER.split()) in " ".join(result.output.split())
    assert "verified" in result.output
    rows = _rows(result.output)
    assert set(rows) == {"cash", "buy-and-hold", "equal-weight", "momentum", "coin-flip"}
    assert rows["cash"][2:5] == ["10,000.00", "+0.00%", "0.00%"]
    assert all(r[6] == "25" for r in rows.values())
    assert rows["buy-and-hold"][5] == "1"


def test_demo_table_is_reproduced_from_the_record(tmp_path: Path) -> None:
    """C-4 / W-EXE-1: every final value re-derives from recorded prices and fills alone."""
    db = f"sqlite:///{tmp_path / 'demo.db'}"
    result = runner.invoke(app, ["demo", "--db", db, "--days", "15"], terminal_width=160)
    assert result.exit_code == 0, result.output
    rows = _rows(result.output)
    with open_store(db) as store:
        books: dict[str, Portfolio] = {}
        last_prices: dict[str, int] = {}
        for stored in store.events():
            event = stored.event
            payload = event.payload
            if event.kind == EventKind.ACCOUNT_OPENED:
                books[str(payload["account"])] = Portfolio.open(int(str(payload["cash"])))  # type: ignore[arg-type]
            elif event.kind == EventKind.ORDER_FILLED:
                fill = Fill.from_payload(payload["fill"])  # type: ignore[arg-type]
                books[str(payload["account"])] = books[str(payload["account"])].apply(fill)
            elif event.kind == EventKind.ROUND_STARTED:
                prices = payload["prices"]
                assert isinstance(prices, dict)
                last_prices = {s: int(p) for s, p in prices.items()}
    for name, book in books.items():
        value = book.equity(last_prices)  # type: ignore[arg-type]
        shown = rows[name][2].replace(",", "")
        assert re.fullmatch(r"\d+\.\d\d", shown)
        assert abs(value - int(shown.replace(".", "")) * 10_000) < 5_000


def test_demo_on_real_data(tmp_path: Path, shared_data: Path) -> None:
    """The demo replays real bars when given --market (no synthetic label then)."""
    db = f"sqlite:///{tmp_path / 'demo.db'}"
    args = ["demo", "--db", db, "--days", "10", "--market", str(shared_data / "us_equities_daily")]
    args += ["--symbols", "SPY,QQQ,SGOV,USO,AAPL", "--end", "2026-08-01"]
    result = runner.invoke(app, args, terminal_width=160)
    assert result.exit_code == 0, result.output
    assert "SYNTHETIC" not in result.output
    assert "us_equities_daily" in result.output
    assert "verified" in result.output


def test_verify_after_demo_reports_json(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'demo.db'}"
    assert runner.invoke(app, ["demo", "--db", db, "--days", "5"]).exit_code == 0
    result = runner.invoke(app, ["verify", "--db", db, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["mismatches"] == []
