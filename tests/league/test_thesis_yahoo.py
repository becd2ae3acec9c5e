"""Live stock candles through yfinance against a local server speaking Yahoo's HTTP protocol.

The server (``testing/yahoo.py``) serves the frozen daily bars as Yahoo's chart
document, behind Yahoo's cookie and crumb handshake; ``YahooCandles`` is pointed
at it through its session's base URL, the one place yfinance is sent elsewhere.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tradeleague.clock import ReplayClock
from tradeleague.errors import DataError
from tradeleague.feeds.yahoo import MAX_BODY_BYTES, YahooCandles, rebase_yahoo
from tradeleague.formats.thesis.candles import Candle, candles_of, closed_before, latest_price
from tradeleague.market.calendars import NYSE
from tradeleague.market.loader import load_dataset
from tradeleague.testing.server import serve_asgi
from tradeleague.testing.yahoo import CRUMB, YahooFake, keep_yfinance_caches_in, yahoo_app

pytestmark = pytest.mark.shared_data

JSON = {"content-type": "application/json"}
SINCE = datetime(2024, 11, 18, tzinfo=UTC)
# Tuesday 3 December 2024, 16:00 UTC: that day's session (14:30..21:00 UTC) is open.
NOW = datetime(2024, 12, 3, 16, tzinfo=UTC)


def _ts(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> int:
    return int(datetime(year, month, day, hour, minute, tzinfo=UTC).timestamp())


@pytest.fixture(scope="module", autouse=True)
def _caches(tmp_path_factory: pytest.TempPathFactory) -> None:
    keep_yfinance_caches_in(tmp_path_factory.mktemp("yfinance"))


@pytest.fixture(scope="module")
def frozen(shared_data: Path) -> dict[str, tuple[Candle, ...]]:
    """AAPL, BRK-B and SPY daily candles from the frozen folder, each at its session."""
    data = load_dataset(
        shared_data / "us_equities_daily", symbols=["AAPL", "BRK-B", "SPY"], calendar=NYSE
    )
    return {s: candles_of(data[s]) for s in data.symbols}


@pytest.fixture
def yahoo(frozen: dict[str, tuple[Candle, ...]]) -> Iterator[tuple[str, YahooFake]]:
    fake = YahooFake(candles=frozen)
    with serve_asgi(yahoo_app(fake)) as url:
        yield url, fake


async def _candles(url: str, symbol: str, now: datetime = NOW) -> tuple[Candle, ...]:
    source = YahooCandles.create(ReplayClock(now), base_url=url)
    try:
        return await source.candles(symbol, SINCE)
    finally:
        await source.aclose()


def _chart(stamps: list[object], **columns: list[object]) -> bytes:
    quote = {k: columns.get(k, [1.0] * len(stamps)) for k in ("open", "high", "low", "close")}
    quote["volume"] = columns.get("volume", [100] * len(stamps))
    result = {"meta": {"symbol": "X"}, "timestamp": stamps, "indicators": {"quote": [quote]}}
    return json.dumps({"chart": {"result": [result], "error": None}}).encode()


async def test_yahoo_daily_bars_match_the_frozen_folder_t_uni_2(
    yahoo: tuple[str, YahooFake], frozen: dict[str, tuple[Candle, ...]]
) -> None:
    """T-UNI-2, T-CYC-2: Yahoo daily bars through yfinance equal the frozen ones, to the session."""
    url, fake = yahoo
    got = await _candles(url, "AAPL")
    since, now = SINCE.timestamp(), NOW.timestamp()
    assert list(got) == [c for c in frozen["AAPL"] if since <= c.start <= now]
    # yfinance's handshake reached the server: the cookie, the crumb, then the chart with it.
    paths = [s.split("?")[0] for s in fake.seen]
    assert paths.index("GET /") < paths.index("GET /v1/test/getcrumb")
    assert paths.index("GET /v1/test/getcrumb") < paths.index("GET /v8/finance/chart/AAPL")
    chart = next(s for s in fake.seen if "/v8/finance/chart/AAPL" in s)
    assert f"crumb={CRUMB}" in chart
    assert "interval=1d" in chart
    # BRK-B travels under Yahoo's own spelling.
    assert await _candles(url, "BRK-B") == tuple(
        c for c in frozen["BRK-B"] if since <= c.start <= now
    )


async def test_yahoo_half_day_closed_day_and_the_open_session_t_uni_3(
    yahoo: tuple[str, YahooFake],
) -> None:
    """T-UNI-3: a half day closes at 13:00 New York, a holiday has no bar, an open day its open."""
    got = await _candles(yahoo[0], "SPY")
    by_day = {datetime.fromtimestamp(c.start, UTC).date().isoformat(): c for c in got}
    assert "2024-11-28" not in by_day  # Thanksgiving: NYSE closed
    half = by_day["2024-11-29"]
    assert (half.start, half.end) == (_ts(2024, 11, 29, 14, 30), _ts(2024, 11, 29, 18))
    full = by_day["2024-11-27"]
    assert (full.start, full.end) == (_ts(2024, 11, 27, 14, 30), _ts(2024, 11, 27, 21))
    today = got[-1]
    assert (today.start, today.end) == (_ts(2024, 12, 3, 14, 30), _ts(2024, 12, 3, 21))
    moment = int(NOW.timestamp())
    assert latest_price(got, moment) == today.open  # the session is open: its open, no more
    assert closed_before(got, moment)[-1].start == _ts(2024, 12, 2, 14, 30)
    # Before that session opens, the price is the last close.
    early = await _candles(yahoo[0], "SPY", datetime(2024, 12, 3, 9, tzinfo=UTC))
    assert early[-1].start == _ts(2024, 12, 2, 14, 30)
    assert latest_price(early, _ts(2024, 12, 3, 9)) == early[-1].close


async def test_yahoo_symbol_without_data_gives_no_candles(yahoo: tuple[str, YahooFake]) -> None:
    """A symbol Yahoo has no data for (its 404 Not Found), or a range without bars: no candles."""
    url, fake = yahoo
    assert await _candles(url, "ZZZZ") == ()
    empty = {"chart": {"result": [{"meta": {"symbol": "QUIET"}, "indicators": {"quote": [{}]}}],
                       "error": None}}  # fmt: skip
    fake.raw["QUIET"] = (200, json.dumps(empty).encode(), JSON)
    assert await _candles(url, "QUIET") == ()


async def test_yahoo_prices_round_half_even_to_the_micro(yahoo: tuple[str, YahooFake]) -> None:
    """Floats are read through their shortest text and rounded half-even at the micro-unit."""
    url, fake = yahoo
    day = _ts(2024, 12, 2, 14, 30)
    quiet = _ts(2024, 11, 29, 14, 30)
    fake.raw["HALF"] = (
        200,
        _chart(
            [quiet, day],
            open=[None, 1.0000005],
            high=[None, 2.5000025],
            low=[None, 1.0000005],
            close=[None, 1.0000015],
            volume=[None, 1234.0],
        ),
        JSON,
    )
    (candle,) = await _candles(url, "HALF")  # the all-null day is a day without trades
    assert (candle.open, candle.high, candle.low, candle.close) == (
        1_000_000, 2_500_002, 1_000_000, 1_000_002,
    )  # fmt: skip
    assert candle.volume == 1234 * 1_000_000


DAY = _ts(2024, 12, 2, 14, 30)
BAD_REQUEST = {"code": "Bad Request", "description": "Invalid input"}
GARBAGE: dict[str, tuple[int, bytes, dict[str, str]]] = {
    "HTML": (200, b"<html><body>Will be right back</body></html>", {"content-type": "text/html"}),
    "DEEP": (200, b"[" * 100_000, JSON),
    "BOMB": (200, gzip.compress(b" " * (MAX_BODY_BYTES + 1)), {**JSON, "content-encoding": "gzip"}),
    "HUGE": (200, b"[" + b"1," * (MAX_BODY_BYTES // 2) + b"1]", JSON),
    "LIST": (200, b"[]", JSON),
    "SHAPE": (200, json.dumps({"chart": {"result": "x", "error": None}}).encode(), JSON),
    "SHORT": (200, _chart([DAY, DAY + 86_400], open=[1.0]), JSON),
    "STRING": (200, _chart([DAY], close=["abc"]), JSON),
    "NEG": (200, _chart([DAY], low=[-1.0]), JSON),
    "NAN": (200, _chart([DAY]).replace(b'"close": [1.0]', b'"close": [NaN]'), JSON),
    "BOOL": (200, _chart([DAY], open=[True]), JSON),
    "PART": (200, _chart([DAY], open=[None]), JSON),
    "HIGH": (200, _chart([DAY], high=[0.5]), JSON),
    "SAT": (200, _chart([_ts(2024, 11, 30, 14, 30)]), JSON),
    "TWICE": (200, _chart([DAY, DAY + 60]), JSON),
    "STAMP": (200, _chart(["2024-12-02"]), JSON),
    "VOLUME": (200, _chart([DAY], volume=[1.5]), JSON),
    "ERROR": (200, json.dumps({"chart": {"result": None, "error": BAD_REQUEST}}).encode(), JSON),
}


WHY = {
    "HTML": "not a chart document", "DEEP": "nests deeper", "BOMB": "larger than",
    "HUGE": "larger than", "LIST": "malformed", "SHAPE": "not a list", "SHORT": "do not match",
    "STRING": "not a number", "NEG": "out of range", "NAN": "not a finite number",
    "BOOL": "not a number", "PART": "not a number", "HIGH": "high or low", "SAT": "no NYSE session",
    "TWICE": "repeat a session", "STAMP": "not whole seconds", "VOLUME": "whole number of shares",
    "ERROR": "reports an error",
}  # fmt: skip


@pytest.mark.parametrize("symbol", sorted(GARBAGE))
async def test_yahoo_malformed_answers_are_data_errors(
    yahoo: tuple[str, YahooFake], symbol: str
) -> None:
    """Garbage, deep, oversized (even compressed) or inconsistent answers: a DataError, no crash."""
    url, fake = yahoo
    fake.raw[symbol] = GARBAGE[symbol]
    with pytest.raises(DataError, match=f"^{symbol}: .*{WHY[symbol]}"):
        await _candles(url, symbol)


async def test_yahoo_http_errors_are_data_errors(yahoo: tuple[str, YahooFake]) -> None:
    """A server error after yfinance's retry under the consent handshake, and a rate limit."""
    url, fake = yahoo
    fake.raw["DOWN"] = (500, b"Internal Server Error", {"content-type": "text/plain"})
    with pytest.raises(DataError, match="DOWN: Yahoo answered HTTP 500"):
        await _candles(url, "DOWN")
    paths = [s.split("?")[0] for s in fake.seen]
    assert paths.count("GET /v8/finance/chart/DOWN") == 2  # yfinance retried once
    assert {"GET /consent", "POST /v2/collectConsent", "GET /copyConsent"} <= set(paths)
    fake.raw["BUSY"] = (429, b"Too Many Requests", {"content-type": "text/plain"})
    with pytest.raises(DataError, match="BUSY: Yahoo is rate-limiting"):
        await _candles(url, "BUSY")


async def test_yahoo_unreachable_and_bad_symbols_are_data_errors(
    yahoo: tuple[str, YahooFake],
) -> None:
    """Nothing listening, or a symbol that is no ticker (never sent): a DataError."""
    with serve_asgi(yahoo_app(YahooFake())) as gone:
        pass  # the server stopped: its port refuses
    with pytest.raises(DataError, match="AAPL: Yahoo could not be reached"):
        await _candles(gone, "AAPL")
    url, fake = yahoo
    for bad in ("../etc/passwd", "aapl", "", "A" * 30):
        with pytest.raises(DataError, match="is not a Yahoo ticker"):
            await _candles(url, bad)
    assert fake.seen == []


def test_rebase_yahoo_moves_only_yahoo_hosts() -> None:
    """The one place yfinance is pointed elsewhere: every *.yahoo.com URL, nothing else."""
    base = "http://127.0.0.1:9000/"
    assert rebase_yahoo("https://fc.yahoo.com", base) == "http://127.0.0.1:9000/"
    assert (
        rebase_yahoo("https://query2.finance.yahoo.com/v8/finance/chart/AAPL?a=1", base)
        == "http://127.0.0.1:9000/v8/finance/chart/AAPL?a=1"
    )
    assert rebase_yahoo("https://guce.yahoo.com/consent", base) == "http://127.0.0.1:9000/consent"
    for other in (
        "https://yahoo.com.evil.example/x",
        "https://example.com/",
        "http://fc.yahoo.com/",
    ):
        assert rebase_yahoo(other, base) == other
