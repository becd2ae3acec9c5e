"""Stocks' 4h RSI from an hourly folder (``--stocks-hourly``), checked against its own computation.

The issue's rule: a stock's 4h RSI is null unless an hourly folder is given; its
4h bars are aligned to the session open (09:30 New York): the hours of
[09:30, 13:30) and [13:30, close) of each session, the second ending at the
close (13:00 New York on a half day). Here the hourly CSV is read with the
``csv`` module, grouped by New York time, and Wilder's RSI computed in exact
fractions; the league's picture and the replay's REPORT.json must agree to the
hundredth.
"""

from __future__ import annotations

import csv
import itertools
import json
from datetime import UTC, date, datetime, time, timedelta
from fractions import Fraction
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.thesis.universe import load_universe
from tradeleague.league.thesis.data import load_tape

pytestmark = pytest.mark.shared_data

NEW_YORK = ZoneInfo("America/New_York")
HALF_DAYS = {date(2025, 7, 3), date(2025, 11, 28), date(2025, 12, 24)}  # NYSE closes at 13:00
HOURLY = ("AAPL", "AMZN", "GOOGL", "META", "MSFT", "NVDA", "TSLA")
PRESET = ThesisPreset()
MOMENTS = (
    datetime(2025, 9, 3, 16, tzinfo=UTC),  # mid-session: the day's first 4h bar still open
    datetime(2025, 9, 6, 16, tzinfo=UTC),  # a Saturday
    datetime(2025, 11, 28, 18, tzinfo=UTC),  # a half day's close: its first 4h bar ends here
    datetime(2026, 3, 10, 16, tzinfo=UTC),  # after the switch to summer time
)


def _closed_four_hour_closes(path: Path, moment: datetime) -> list[Fraction]:
    """The closes of the 4h bars closed by ``moment``, built from the hourly file alone."""
    bars: dict[tuple[date, int], tuple[datetime, Fraction]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            stamp = datetime.fromisoformat(row["timestamp"].replace("Z", "+00:00"))
            day = stamp.astimezone(NEW_YORK).date()
            opens = datetime.combine(day, time(9, 30), NEW_YORK)
            closes = datetime.combine(day, time(13 if day in HALF_DAYS else 16), NEW_YORK)
            slot = int((stamp - opens).total_seconds()) // (4 * 3600)
            end = min(opens + timedelta(hours=4 * (slot + 1)), closes)
            bars[(day, slot)] = (end, Fraction(row["close"]))  # the slot's last hour: its close
    return [close for end, close in bars.values() if end <= moment]


def _wilder(closes: list[Fraction], period: int = 14, window: int = 250) -> Fraction | None:
    values = closes[-window:]
    if len(values) < period + 1:
        return None
    changes = [b - a for a, b in itertools.pairwise(values)]
    if not any(changes):
        return Fraction(50)
    ups = [max(c, Fraction(0)) for c in changes]
    downs = [max(-c, Fraction(0)) for c in changes]
    gain, loss = sum(ups[:period], Fraction(0)) / period, sum(downs[:period], Fraction(0)) / period
    for up, down in zip(ups[period:], downs[period:], strict=True):
        gain = (gain * (period - 1) + up) / period
        loss = (loss * (period - 1) + down) / period
    return Fraction(100) if loss == 0 else 100 - Fraction(100) / (1 + gain / loss)


def _two_places(value: Fraction | None) -> str | None:
    if value is None:
        return None
    hundredths = (value * 100 + Fraction(1, 2)).__floor__()
    return f"{hundredths // 100}.{hundredths % 100:02d}"


def expected_rsi(data: Path, symbol: str, moment: datetime) -> str | None:
    """The 4h RSI of ``symbol`` at ``moment``, computed here from the hourly file."""
    closes = _closed_four_hour_closes(data / "us_equities_1h" / f"{symbol}.csv", moment)
    return _two_places(_wilder(closes, PRESET.rsi_period, PRESET.rsi_window))


@pytest.fixture(scope="module")
def tapes(shared_data: Path) -> tuple[MarketTape, MarketTape]:
    """The universe's tape with the hourly folder, and without it."""
    universe = load_universe()
    crypto, stocks = shared_data / "crypto_4h", shared_data / "us_equities_daily"
    return (
        load_tape(universe, crypto, stocks, shared_data / "us_equities_1h"),
        load_tape(universe, crypto, stocks),
    )


@pytest.mark.parametrize("moment", MOMENTS, ids=lambda m: m.strftime("%Y-%m-%dT%H"))
def test_stocks_4h_rsi_from_the_hourly_folder_t_cyc_3(
    shared_data: Path, tapes: tuple[MarketTape, MarketTape], moment: datetime
) -> None:
    """T-CYC-3: with hourly bars a stock's 4h RSI is its own computation's; without, null."""
    hourly, daily_only = tapes
    at = int(moment.timestamp())
    with_hours = hourly.picture(at, PRESET)
    without = daily_only.picture(at, PRESET)
    for symbol in HOURLY:
        want = expected_rsi(shared_data, symbol, moment)
        assert want is not None
        assert with_hours.rsi(symbol, PRESET)["4h"] == want, symbol
        assert without.rsi(symbol, PRESET)["4h"] is None, symbol
        # The daily and weekly RSI do not depend on the hourly folder.
        assert with_hours.rsi(symbol, PRESET)["1d"] == without.rsi(symbol, PRESET)["1d"]
        assert with_hours.rsi(symbol, PRESET)["1w"] == without.rsi(symbol, PRESET)["1w"]
    assert with_hours.rsi("SPY", PRESET)["4h"] is None  # no hourly file: null still


def test_half_day_4h_bar_closes_at_the_early_close(tapes: tuple[MarketTape, MarketTape]) -> None:
    """A half day's first 4h bar (09:30 New York on) closes at 13:00 New York, not at 13:30."""
    hourly, _ = tapes
    close = int(datetime(2025, 11, 28, 18, tzinfo=UTC).timestamp())
    before = hourly.picture(close - 1, PRESET).closed["AAPL"]["4h"]
    at = hourly.picture(close, PRESET).closed["AAPL"]["4h"]
    assert len(at) == len(before) + 1
    assert (at[-1].start, at[-1].end) == (close - int(3.5 * 3600), close)
    assert at[-1].close == 278_610_000  # the bar stamped at the close belongs to its session


def _replay(data: Path, tmp: Path, hourly: bool) -> dict[str, object]:
    script = tmp / "buy.jsonl"
    answer = {
        "reasoning": "Hold the leader.",
        "market_context": {"overall_sentiment": "bullish", "key_factors": []},
        "decisions": [{"action": "open_long", "symbol": "AAPL", "percent_of_equity": 10,
                       "confidence": 0.9, "invalidation_price": 1, "thesis": "t",
                       "invalidation": "i"}],
    }  # fmt: skip
    script.write_text(json.dumps({"text": json.dumps(answer)}) + "\n", encoding="utf-8")
    name = "with" if hourly else "without"
    out = tmp / f"{name}.json"
    args = [
        "replay", "thesis", "--crypto", str(data / "crypto_4h"),
        "--stocks", str(data / "us_equities_daily"), "--start", "2025-09-02",
        "--end", "2025-09-04", "--agent", f"m=scripted:{script}",
        "--db", f"sqlite:///{tmp / name}.db", "--out", str(out),
    ]  # fmt: skip
    if hourly:
        args += ["--stocks-hourly", str(data / "us_equities_1h")]
    result = CliRunner().invoke(app, args, terminal_width=200)
    assert result.exit_code == 0, result.output
    report: dict[str, object] = json.loads(out.read_text(encoding="utf-8"))
    return report


def test_replay_thesis_stocks_hourly_reports_the_4h_rsi_t_cyc_3(
    shared_data: Path, tmp_path: Path
) -> None:
    """T-CYC-3: ``replay thesis --stocks-hourly`` reports AAPL's 4h RSI; without the flag, null."""
    with_hours = _replay(shared_data, tmp_path, hourly=True)
    without = _replay(shared_data, tmp_path, hourly=False)
    moment = datetime(2025, 9, 3, 16, tzinfo=UTC)
    cycles = with_hours["cycles"]
    assert isinstance(cycles, list)
    held = cycles[1]["rsi"]["AAPL"]  # held since the first cycle: shown in the second
    assert held["4h"] == expected_rsi(shared_data, "AAPL", moment)
    assert held["4h"] is not None
    others = without["cycles"]
    assert isinstance(others, list)
    assert others[1]["rsi"]["AAPL"]["4h"] is None
    assert others[1]["rsi"]["AAPL"]["1d"] == held["1d"]
