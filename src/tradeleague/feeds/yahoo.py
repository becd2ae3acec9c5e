"""Live stock candles for the thesis league through ``yfinance`` (Yahoo Finance, SPEC T-UNI-2).

``YahooCandles`` reads daily bars of a US stock from Yahoo's chart API
(``/v8/finance/chart/{symbol}``, ``interval=1d``) through ``yfinance``'s data
layer: its ``curl_cffi`` session with a browser's TLS fingerprint, its cookie
and crumb handshake (``fc.yahoo.com``, then ``getcrumb``; the consent flow when
that fails) and its retry under the other handshake after an HTTP error.
``yfinance``'s DataFrame path (``Ticker.history``) is not used: it keeps
process-wide caches keyed by Yahoo's URL (a time zone per ticker, past ranges),
repairs and adjusts prices in floats, and logs failures instead of raising.
The chart document is read here instead, within bounds, into the thesis
tape's ``Candle`` type:

- a bar is its NYSE session (``market/calendars.py``): its open is known from
  the session's open, the rest of it from the session's close (13:00 New York
  on a half day); a session still open at the clock's instant is kept for its
  open only (``formats/thesis/candles.py`` reads nothing else of it), exactly
  as the frozen daily files are read;
- prices are read through their shortest decimal text and rounded half-even
  to the micro-unit, here and nowhere else; volume is whole shares;
- a symbol Yahoo has no data for gives no candles; anything malformed (not
  JSON, nested or larger than the bounds, a bar outside every session, a
  missing or negative price, arrays of different lengths), an HTTP error, a
  rate limit or a transport failure is a ``DataError`` naming the symbol.

``YahooSession`` is the one place the HTTP exchange is shaped: it bounds
every answer's body (decoded, so a compressed bomb stops too) and its time,
and, given ``base_url``, sends every request meant for a ``*.yahoo.com``
host to that base instead (a mirror, or ``testing/yahoo.py`` in tests).
"""

from __future__ import annotations

import asyncio
import math
import re
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any

import numpy as np
from curl_cffi import requests as curl_requests
from curl_cffi.curl import CURL_WRITEFUNC_ERROR

from tradeleague import untrusted
from tradeleague.clock import Clock
from tradeleague.errors import DataError
from tradeleague.formats.thesis.candles import Candle
from tradeleague.market.calendars import NYSE, TradingCalendar, get_calendar
from tradeleague.money import MICRO

__all__ = ["CHART_URL", "MAX_BODY_BYTES", "YahooCandles", "YahooSession", "rebase_yahoo"]

CHART_URL = "https://query2.finance.yahoo.com/v8/finance/chart/{}"
"""Yahoo's chart endpoint, as ``yfinance`` calls it."""

MAX_BODY_BYTES = 4_000_000
"""The largest answer read (decoded); five years of daily bars are about 150 kB."""

_MAX_ROWS = 20_000
_MAX_PRICE = Decimal(1_000_000_000)
_MAX_SHARES = 10**12
_TIMEOUT_S = 20.0
_STEP = Decimal(1) / MICRO
_SYMBOL = re.compile(r"^[A-Z0-9][A-Z0-9.\-^=]{0,19}$")
_YAHOO_HOST = re.compile(r"^https://(?:[A-Za-z0-9-]+\.)*yahoo\.com(?=[/?#]|$)")


class BodyTooLarge(Exception):
    """An answer's body passed ``MAX_BODY_BYTES``; the transfer was stopped."""


def rebase_yahoo(url: str, base_url: str) -> str:
    """Return ``url`` sent to ``base_url`` if it is meant for a ``*.yahoo.com`` host.

    ``https://query2.finance.yahoo.com/v8/finance/chart/AAPL?x=1`` with base
    ``http://127.0.0.1:8000`` becomes ``http://127.0.0.1:8000/v8/finance/chart/AAPL?x=1``;
    any other URL is returned as it is.
    """
    match = _YAHOO_HOST.match(url)
    if match is None:
        return url
    rest = url[match.end() :]
    return base_url.rstrip("/") + (rest if rest.startswith("/") else "/" + rest)


class YahooSession(curl_requests.Session[curl_requests.Response]):
    """``yfinance``'s kind of session (``curl_cffi``, a browser's fingerprint), bounded.

    Parameters
    ----------
    base_url
        Where requests for ``*.yahoo.com`` go instead (``None``: Yahoo itself).
    max_bytes
        The largest body read; a larger one stops the transfer (`BodyTooLarge`).
    timeout_s
        The longest any one request may take, whatever its caller asks.
    """

    def __init__(
        self,
        *,
        base_url: str | None = None,
        max_bytes: int = MAX_BODY_BYTES,
        timeout_s: float = _TIMEOUT_S,
    ) -> None:
        plain = base_url is not None and base_url.startswith("http://")
        # Over plain HTTP (a local server) ask for HTTP/1.1, not an h2c upgrade.
        super().__init__(impersonate="chrome", http_version="v1" if plain else None)
        self.base_url_override = base_url
        self.max_bytes = max_bytes
        self.timeout_s = timeout_s

    def request(  # type: ignore[override]
        self, method: Any, url: str, **kwargs: Any
    ) -> curl_requests.Response:
        """Send the request (rebased, time-bounded) and read at most ``max_bytes`` of its body.

        Raises
        ------
        BodyTooLarge
            If the body is longer than ``max_bytes``.
        """
        if self.base_url_override is not None:
            url = rebase_yahoo(url, self.base_url_override)
        asked = kwargs.get("timeout")
        kwargs["timeout"] = (
            min(float(asked), self.timeout_s)
            if isinstance(asked, int | float) and asked > 0
            else self.timeout_s
        )
        body = bytearray()
        over = False

        def sink(chunk: bytes) -> int:
            nonlocal over
            if len(body) + len(chunk) > self.max_bytes:
                over = True
                return CURL_WRITEFUNC_ERROR
            body.extend(chunk)
            return len(chunk)

        kwargs.pop("stream", None)
        kwargs["content_callback"] = sink
        try:
            response = super().request(method, url, **kwargs)
        except curl_requests.RequestsError:
            if over:
                raise BodyTooLarge(f"the answer is larger than {self.max_bytes} bytes") from None
            raise
        response.content = bytes(body)
        return response


def _new_data(session: YahooSession) -> Any:
    """Return a ``yfinance`` data client of its own over ``session``.

    ``yfinance.data.YfData`` is a process-wide singleton whose cookie and
    crumb outlive a change of session; each source builds its own instance
    (``__init__`` without the singleton's ``__call__``), so a session, its
    cookie and its crumb always belong together.
    """
    from yfinance.data import YfData  # heavy: imported only when a live source is built

    data = YfData.__new__(YfData)
    YfData.__init__(data, session=session)
    return data


def _price(symbol: str, what: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise DataError(f"{symbol}: Yahoo's {what} {value!r} is not a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise DataError(f"{symbol}: Yahoo's {what} {value!r} is not a finite number")
    try:
        exact = Decimal(repr(value) if isinstance(value, float) else str(value))
    except InvalidOperation:
        raise DataError(f"{symbol}: Yahoo's {what} {value!r} is not a number") from None
    if not 0 < exact <= _MAX_PRICE:
        raise DataError(f"{symbol}: Yahoo's {what} {value!r} is out of range")
    micros = int(exact.quantize(_STEP, rounding=ROUND_HALF_EVEN) * MICRO)
    if micros <= 0:
        raise DataError(f"{symbol}: Yahoo's {what} {value!r} rounds to zero")
    return micros


def _shares(symbol: str, value: object) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX_SHARES:
        raise DataError(f"{symbol}: Yahoo's volume {value!r} is not a whole number of shares")
    return value * MICRO


def _field(mapping: object, key: str, symbol: str) -> object:
    if not isinstance(mapping, dict):
        raise DataError(f"{symbol}: Yahoo's chart document is malformed (no {key!r})")
    return mapping.get(key)


def parse_chart(
    symbol: str, body: bytes, calendar: TradingCalendar, since: int, now: int
) -> tuple[Candle, ...]:
    """Return the daily candles of a chart document opened in ``[since, now]``.

    Pure: the HTTP exchange is `YahooCandles.candles`'s. A document whose chart
    reports ``Not Found``, or holds no bars, gives no candles.

    Raises
    ------
    DataError
        If the document is not a chart document, or any bar is malformed.
    """
    try:
        doc = untrusted.loads(body, max_chars=MAX_BODY_BYTES)
    except untrusted.UntrustedJSON as exc:
        raise DataError(f"{symbol}: Yahoo's answer is not a chart document ({exc})") from None
    chart = _field(doc, "chart", symbol)
    error = _field(chart, "error", symbol)
    if error is not None:
        code = _field(error, "code", symbol)
        if code == "Not Found":
            return ()
        description = _field(error, "description", symbol)
        raise DataError(f"{symbol}: Yahoo reports an error: {str(description)[:200]}")
    results = _field(chart, "result", symbol)
    if results is None or results == []:
        return ()
    if not isinstance(results, list):
        raise DataError(f"{symbol}: Yahoo's chart result is not a list")
    result = results[0]
    stamps = _field(result, "timestamp", symbol)
    if stamps is None:
        return ()  # Yahoo sends no timestamps when no bar falls in the range
    quotes = _field(_field(result, "indicators", symbol), "quote", symbol)
    if not isinstance(stamps, list) or not isinstance(quotes, list) or not quotes:
        raise DataError(f"{symbol}: Yahoo's chart has no bars where bars belong")
    if len(stamps) > _MAX_ROWS:
        raise DataError(f"{symbol}: Yahoo sent more than {_MAX_ROWS} bars")
    columns = [_field(quotes[0], k, symbol) for k in ("open", "high", "low", "close", "volume")]
    if not all(isinstance(c, list) and len(c) == len(stamps) for c in columns):
        raise DataError(f"{symbol}: Yahoo's price arrays do not match its timestamps")
    if not all(isinstance(t, int) and not isinstance(t, bool) for t in stamps):
        raise DataError(f"{symbol}: Yahoo's timestamps are not whole seconds")
    times = np.array(stamps, dtype=np.int64) if stamps else np.zeros(0, dtype=np.int64)
    sessions = calendar.containing(times)
    opens, closes = calendar.opens, calendar.closes
    out: list[Candle] = []
    for i, stamp in enumerate(stamps):
        row = [c[i] for c in columns]  # type: ignore[index]
        if all(v is None for v in row):
            continue  # a day Yahoo lists without a trade
        index = int(sessions[i])
        if index < 0:
            raise DataError(f"{symbol}: Yahoo's bar at {stamp} falls in no NYSE session")
        start, end = int(opens[index]), int(closes[index])
        if out and start <= out[-1].start:
            raise DataError(f"{symbol}: Yahoo's bars are out of order or repeat a session")
        o, h, lo, c = (
            _price(symbol, k, v)
            for k, v in zip(("open", "high", "low", "close"), row[:4], strict=True)
        )
        if h < max(o, c) or lo > min(o, c):
            raise DataError(f"{symbol}: Yahoo's bar at {stamp} has its high or low out of range")
        candle = Candle(start, end, o, h, lo, c, _shares(symbol, row[4]))
        if since <= start <= now:
            out.append(candle)
    return tuple(out)


class YahooCandles:
    """Daily bars of US stocks from Yahoo Finance through ``yfinance``.

    Parameters
    ----------
    data
        A ``yfinance`` data client (`_new_data`) over a `YahooSession`.
    session
        That session (closed by `aclose`).
    clock
        The clock that says which sessions have opened.
    """

    def __init__(self, data: Any, session: YahooSession, clock: Clock) -> None:
        self._data = data
        self._session = session
        self._clock = clock
        self._calendar = get_calendar(NYSE)
        self._lock = asyncio.Lock()  # one curl handle: one request at a time

    @classmethod
    def create(
        cls, clock: Clock, *, base_url: str | None = None, timeout_s: float = _TIMEOUT_S
    ) -> YahooCandles:
        """Build the source over Yahoo Finance (or ``base_url``, see `YahooSession`)."""
        session = YahooSession(base_url=base_url, timeout_s=timeout_s)
        return cls(_new_data(session), session, clock)

    async def aclose(self) -> None:
        """Close the HTTP session."""
        self._session.close()

    def _fetch(self, symbol: str, params: dict[str, str]) -> tuple[int, bytes]:
        from yfinance.exceptions import YFRateLimitError

        try:
            response = self._data.get(url=CHART_URL.format(symbol), params=params)
        except BodyTooLarge as exc:
            raise DataError(f"{symbol}: {exc}") from None
        except YFRateLimitError:
            raise DataError(f"{symbol}: Yahoo is rate-limiting this client (HTTP 429)") from None
        except curl_requests.RequestsError as exc:
            raise DataError(
                f"{symbol}: Yahoo could not be reached ({type(exc).__name__})"
            ) from None
        except Exception as exc:  # a third-party library's failure is the data's, never a crash
            raise DataError(f"{symbol}: the Yahoo exchange failed ({type(exc).__name__})") from None
        return int(response.status_code), bytes(response.content)

    async def candles(self, symbol: str, since: datetime) -> tuple[Candle, ...]:
        """Return the daily candles of ``symbol`` (``BRK-B``) opened from ``since`` to now.

        Raises
        ------
        DataError
            For a symbol that is no Yahoo ticker, an HTTP error, or a malformed answer.
        """
        if not _SYMBOL.match(symbol):
            raise DataError(f"{symbol!r} is not a Yahoo ticker")
        now = int(self._clock.now().timestamp())
        first = int(since.timestamp())
        params = {
            "period1": str(first),
            "period2": str(now + 1),
            "interval": "1d",
            "includePrePost": "false",
            "events": "div,splits",
        }
        async with self._lock:
            status, body = await asyncio.to_thread(self._fetch, symbol, params)
        if status == 404:
            return parse_chart(symbol, body, self._calendar, first, now)  # Not Found: no bars
        if status != 200:
            raise DataError(f"{symbol}: Yahoo answered HTTP {status}")
        return parse_chart(symbol, body, self._calendar, first, now)
