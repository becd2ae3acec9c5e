"""The thesis tape from live feeds: Binance 4h candles and Yahoo daily bars (T-UNI-2, T-CYC-2).

``LiveTape.at(moment)`` reads every symbol of the universe from its feed
(crypto pairs and BTC from a ``BinanceCandles``, stocks and SPY from a
``YahooCandles``, or anything with the same ``candles(symbol, since)``) and
returns the ``MarketTape`` the cycle code reads, the same type the frozen
folders give a replay; the picture then reads only what is observable at the
cycle's instant. The first read goes back far enough for every RSI window
(T-CYC-3); later reads ask only from the last candle that had closed, and
keep only closed candles between reads, so a candle still forming is never
kept past its close. A symbol whose feed fails keeps the closed candles read
before (its price is then the last close), and a symbol never read is left
out of the tape (never screened nor tradeable); a benchmark never read is an
error. Stocks have no 4h candles live (their 4h RSI is null).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Protocol

from tradeleague.errors import DataError
from tradeleague.formats.thesis.candles import Candle
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.thesis.universe import Universe
from tradeleague.market.calendars import NYSE, get_calendar

__all__ = ["CandleFeed", "LiveTape", "history_days"]

_log = logging.getLogger("tradeleague.thesis")


class CandleFeed(Protocol):
    """A live candle source: the candles of ``symbol`` opened from ``since`` to now."""

    async def candles(self, symbol: str, since: datetime) -> tuple[Candle, ...]:
        """Return the candles, oldest first."""
        ...


def history_days(preset: ThesisPreset) -> int:
    """Return the days of history a first read needs: every weekly RSI bar and one more week."""
    return (preset.rsi_window + 1) * 7


class LiveTape:
    """Candles kept between reads, topped up from the feeds at each read.

    Parameters
    ----------
    universe
        The symbols.
    crypto, stocks
        The crypto (4h) and stock (daily) feeds.
    preset
        The rules (how much history the RSI reads).
    """

    def __init__(
        self, universe: Universe, crypto: CandleFeed, stocks: CandleFeed, preset: ThesisPreset
    ) -> None:
        self.universe = universe
        self._feeds = {s: crypto for s in (*universe.crypto, universe.crypto_benchmark)}
        self._feeds |= {s: stocks for s in (*universe.stocks, universe.stock_benchmark)}
        self._closed: dict[str, list[Candle]] = {}
        self._history = timedelta(days=history_days(preset))

    async def _read(self, symbol: str, moment: int) -> Sequence[Candle] | None:
        known = self._closed.get(symbol, [])
        since = (
            datetime.fromtimestamp(known[-1].start, UTC)
            if known
            else datetime.fromtimestamp(moment, UTC) - self._history
        )
        try:
            got = await self._feeds[symbol].candles(symbol, since)
        except DataError as exc:
            _log.warning("a live feed failed", extra={"symbol": symbol, "error": str(exc)})
            return known or None
        first = got[0].start if got else None
        kept = [c for c in known if first is None or c.start < first]
        fresh = kept + list(got)
        self._closed[symbol] = [c for c in fresh if c.end <= moment]
        return fresh

    async def at(self, moment: int) -> MarketTape:
        """Return the tape as the feeds give it at ``moment`` (epoch seconds, the feeds' now).

        Raises
        ------
        DataError
            If a benchmark has never been read.
        """
        crypto: dict[str, Sequence[Candle]] = {}
        stocks: dict[str, Sequence[Candle]] = {}
        universe = self.universe
        for symbol in self._feeds:
            candles = await self._read(symbol, moment)
            if not candles:
                if symbol in universe.benchmarks:
                    raise DataError(f"the benchmark {symbol} could not be read from its feed")
                continue
            target = crypto if symbol in (*universe.crypto, universe.crypto_benchmark) else stocks
            target[symbol] = candles
        return MarketTape(universe, crypto, stocks, get_calendar(NYSE))
