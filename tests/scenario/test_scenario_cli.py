"""The scenario commands: ``scenario create``, ``keys create``, ``serve`` (S-SCN-1, S-SVC-4)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from tradeleague.accounts import hash_key
from tradeleague.accounts.tables import api_keys
from tradeleague.cli import app, main
from tradeleague.market import synthetic_dataset
from tradeleague.money import MICRO
from tradeleague.store import open_store

SYMBOLS = ("AAPL", "SPY", "TSLA")


def _market(folder: Path) -> Path:
    """Write a small folder of hourly-looking bars, one CSV per symbol."""
    data = synthetic_dataset(len(SYMBOLS), 30, seed=5, symbols=SYMBOLS)
    folder.mkdir()
    for symbol in SYMBOLS:
        bars = data.series[symbol]
        lines = ["timestamp,open,high,low,close,volume"]
        for i, ts in enumerate(bars.times):
            stamp = datetime.fromtimestamp(int(ts), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            values = (bars.open[i], bars.high[i], bars.low[i], bars.close[i], bars.volume[i])
            lines.append(stamp + "," + ",".join(str(Decimal(int(v)) / MICRO) for v in values))
        (folder / f"{symbol}.csv").write_text("\n".join(lines) + "\n")
    return folder


def test_scenario_create_provisions_a_version(tmp_path: Path, sqlite_url: str) -> None:
    """S-SCN-1, S-FIL-2: the command stores the universe, cap, shorting, cash and slippage."""
    market = _market(tmp_path / "bars")
    args = [
        "scenario", "create", "cli-demo", "--market", str(market), "--symbols", "tsla,SPY,AAPL",
        "--start", "2000-01-01", "--end", "2100-01-01", "--leverage", "4", "--shorting",
        "--cash", "25000", "--slippage", "AAPL=12", "--json", "--db", sqlite_url,
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    view = json.loads(result.stdout)
    assert view["symbols"] == ["AAPL", "SPY", "TSLA"]
    assert (view["leverage_cap"], view["shorting"], view["cash"]) == (4, True, "25000")
    assert view["slippage_bps"] == {"AAPL": 12, "SPY": 3, "TSLA": 20}
    assert view["bars"] == 30
    assert view["version"] == 1
    again = CliRunner().invoke(app, [*args[:-3], "--db", sqlite_url])
    assert again.exit_code == 0, again.output
    assert "cli-demo v1" in again.stdout  # same rules, same bars: the same version


def test_keys_create_prints_the_key_once_and_stores_its_hash(sqlite_url: str) -> None:
    """S-SVC-4: the key goes to stdout once; the database holds only its SHA-256."""
    result = CliRunner().invoke(
        app, ["keys", "create", "--account", "ada", "--tier", "pro", "--db", sqlite_url]
    )
    assert result.exit_code == 0, result.output
    key = result.stdout.strip()
    assert key.startswith("tl_")
    assert len(key) > 40
    assert "shown once" in result.stderr
    with open_store(sqlite_url) as store, store.engine.connect() as conn:
        rows = conn.execute(sa.select(api_keys)).all()
    assert [(r.key_hash, r.account) for r in rows] == [(hash_key(key), "ada")]
    assert all(key not in str(value) for value in rows[0])
    database = Path(sqlite_url.removeprefix("sqlite:///"))
    stored = b"".join(p.read_bytes() for p in database.parent.glob(database.name + "*"))
    assert key.encode() not in stored
    bad = CliRunner().invoke(app, ["keys", "create", "--account", "ada", "--tier", "gold"])
    assert bad.exit_code != 0


def test_serve_help_names_its_options() -> None:
    """The serve command documents --db, --host and --port."""
    result = CliRunner().invoke(app, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--db", "--host", "--port"):
        assert option in result.stdout


def test_a_bad_scenario_is_exit_2_and_one_sentence(tmp_path: Path, sqlite_url: str) -> None:
    """S-SCN-1: invalid rules fail with exit status 2 and one sentence, never a traceback."""
    market = _market(tmp_path / "bars")
    exe = Path(sys.executable).with_name("tradeleague")
    argv = f"scenario create bad --market {market} --symbols AAPL --start 2000-01-01"
    argv += f" --end 2100-01-01 --db {sqlite_url} --leverage 3"
    done = subprocess.run(
        [str(exe), *argv.split()],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert "leverage cap 3: one of (1, 2, 4, 10)" in lines[0]


def test_a_bad_slippage_override_is_exit_2(
    tmp_path: Path,
    sqlite_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """S-FIL-2: an override that is not SYM=BPS is refused in one sentence, exit status 2."""
    market = _market(tmp_path / "bars")
    argv = [
        "tradeleague", "scenario", "create", "bad", "--market", str(market), "--symbols", "AAPL",
        "--start", "2000-01-01", "--end", "2100-01-01", "--db", sqlite_url, "--slippage", "AAPL",
    ]  # fmt: skip
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as stop:
        main()
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "write SYMBOL=BPS" in err
    assert "Traceback" not in err
