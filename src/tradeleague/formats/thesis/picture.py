"""The market picture at one instant: prices, screen, RSI and candles (SPEC T-CYC-1..3, T-UNI-3).

Built from every symbol's candles and the NYSE calendar, reading only what is
observable at the instant (``candles.py``). Crypto 4h candles are given;
crypto days and weeks are built from them. Stocks have daily candles (and 4h
ones only when an hourly folder is given); a stock's week closes with its
week's last session. Everything here is computed once per symbol up front
(``MarketTape``) and then cut at each instant.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from tradeleague.formats.thesis.candles import (
    Candle,
    closed_before,
    daily_from_intraday,
    latest_price,
    weekly_from_daily,
)
from tradeleague.formats.thesis.indicators import rsi
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.thesis.screen import Screen, eligible, run_screen
from tradeleague.formats.thesis.universe import Universe
from tradeleague.market.calendars import TradingCalendar
from tradeleague.money import Usd
from tradeleague.stats.rounding import round_half_up

__all__ = ["INTERVALS", "MarketTape", "Picture"]

INTERVALS = ("4h", "1d", "1w")
"""The RSI and candle intervals, shortest first (T-CYC-3)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Picture:
    """What is observable at one instant.

    Attributes
    ----------
    moment
        The instant, epoch seconds.
    prices
        Latest observable price per provider symbol (benchmarks included).
    screen
        The cycle's screen (T-CYC-1).
    eligible
        Tradeable provider symbols that may be opened.
    stocks_open
        Whether NYSE is open at the instant.
    closed
        Closed candles per provider symbol and interval.
    """

    moment: int
    prices: Mapping[str, Usd]
    screen: Screen
    eligible: frozenset[str]
    stocks_open: bool
    closed: Mapping[str, Mapping[str, Sequence[Candle]]]

    def rsi(self, symbol: str, preset: ThesisPreset) -> dict[str, str | None]:
        """Return RSI-14 per interval as 2-place decimal strings, or null (T-CYC-3)."""
        out: dict[str, str | None] = {}
        for interval in INTERVALS:
            value = rsi(
                [c.close for c in self.closed.get(symbol, {}).get(interval, ())],
                preset.rsi_period,
                preset.rsi_window,
            )
            out[interval] = None if value is None else str(round_half_up(value, 2))
        return out

    def change_1d(self, symbol: str) -> str | None:
        """Return the price's change from the latest closed daily close, in percent, 2 places."""
        daily = self.closed.get(symbol, {}).get("1d", ())  # a symbol without data: none
        price = self.prices.get(symbol)
        if not daily or price is None:
            return None
        return str(round_half_up((Decimal(price) / daily[-1].close - 1) * 100, 2))


def _stock_week_end(calendar: TradingCalendar) -> Callable[[date], int]:
    def week_end(monday: date) -> int:
        sessions = calendar.sessions(monday, monday + timedelta(days=6))
        return int(calendar.session_close(sessions[-1]).timestamp()) if sessions else 0

    return week_end


class MarketTape:
    """Every symbol's candles at every interval, cut at an instant by `picture`.

    Parameters
    ----------
    universe
        The symbols.
    crypto_4h
        4h candles per crypto provider symbol (benchmark included).
    stocks_daily
        Daily candles per stock provider symbol (benchmark included).
    calendar
        The NYSE calendar.
    stocks_4h
        4h candles per stock, aligned to the session open, if an hourly folder was given.
    """

    def __init__(
        self,
        universe: Universe,
        crypto_4h: Mapping[str, Sequence[Candle]],
        stocks_daily: Mapping[str, Sequence[Candle]],
        calendar: TradingCalendar,
        stocks_4h: Mapping[str, Sequence[Candle]] | None = None,
    ) -> None:
        self.universe = universe
        self.calendar = calendar
        self._series: dict[str, dict[str, Sequence[Candle]]] = {}
        for symbol, four in crypto_4h.items():
            days = daily_from_intraday(four)
            self._series[symbol] = {"4h": four, "1d": days, "1w": weekly_from_daily(days)}
        week_end = _stock_week_end(calendar)
        for symbol, daily in stocks_daily.items():
            weekly = weekly_from_daily(daily, week_end)
            series: dict[str, Sequence[Candle]] = {"1d": daily, "1w": weekly}
            if stocks_4h is not None and symbol in stocks_4h:
                series["4h"] = stocks_4h[symbol]
            self._series[symbol] = series

    @property
    def symbols(self) -> tuple[str, ...]:
        """Return the provider symbols with candles."""
        return tuple(self._series)

    def span(self, symbol: str) -> tuple[int, int] | None:
        """Return the first candle's start and the last candle's end of ``symbol``, or ``None``."""
        series = self._series.get(symbol)
        if series is None:
            return None
        finest = series.get("4h") or series["1d"]
        return (finest[0].start, finest[-1].end) if finest else None

    def price_at(self, symbol: str, moment: int) -> Usd | None:
        """Return the latest observable price of ``symbol`` at ``moment`` (finest candles)."""
        series = self._series.get(symbol)
        if series is None:
            return None
        finest = series.get("4h") or series["1d"]
        value = latest_price(finest, moment)
        return None if value is None else Usd(value)

    def picture(self, moment: int, preset: ThesisPreset) -> Picture:
        """Return what is observable at ``moment`` (epoch seconds)."""
        closed = {
            s: {k: closed_before(v, moment) for k, v in series.items()}
            for s, series in self._series.items()
        }
        prices: dict[str, Usd] = {}
        for symbol in self._series:
            price = self.price_at(symbol, moment)
            if price is not None:
                prices[symbol] = price
        instant = datetime.fromtimestamp(moment, UTC)
        calendar = self.calendar
        last = calendar.last_closed_session(instant)
        session_close = None if last is None else int(calendar.session_close(last).timestamp())
        universe = self.universe
        crypto = {s: closed[s]["1d"] for s in universe.crypto if s in closed}
        stocks = {s: closed[s]["1d"] for s in universe.stocks if s in closed}
        screen = run_screen(
            crypto,
            stocks,
            preset,
            stocks_open_today=calendar.is_trading_day(instant.date()),
            stock_session_close=session_close,
        )
        ok = {s for s, d in crypto.items() if eligible(d, preset) and s in prices}
        if session_close is not None:
            ok |= {
                s
                for s, d in stocks.items()
                if s in prices and eligible(d, preset, stock_session_close=session_close)
            }
        return Picture(
            moment=moment,
            prices=prices,
            screen=screen,
            eligible=frozenset(ok),
            stocks_open=calendar.is_open(instant),
            closed=closed,
        )
