"""Live one-minute candles from an exchange through ``ccxt`` (SPEC D-RND-1, C-11).

Any exchange ``ccxt`` supports, any pair (``BTC/USD`` or ``BTC/USDT``),
through its public REST API: ``fetch_ohlcv`` with the ``1m`` timeframe. The
exchange's still-open candle is dropped (a candle is served only once it has
closed by the clock), so live play sees what replay would. ``ccxt`` hands
prices over as floats; each is read through its shortest decimal text
(``repr``) and rounded half-even to the micro-dollar, at this boundary only.
For tests and mirrors, ``api_base`` points the exchange's REST URLs at another
host (a local server that speaks the same format).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

import ccxt.async_support as ccxt_async

from tradeleague.clock import Clock
from tradeleague.errors import ConfigError, DataError
from tradeleague.formats.direction.candle import MINUTE, Candle
from tradeleague.money import MICRO, Usd

__all__ = ["CcxtCandles", "rebase_exchange"]

_MICRO = Decimal("0.000001")


def _micros(value: object) -> Usd:
    if not isinstance(value, int | float | str):
        raise DataError(f"exchange price {value!r} is not a number")
    text = repr(value) if isinstance(value, float) else str(value)
    return Usd(int(Decimal(text).quantize(_MICRO, rounding=ROUND_HALF_EVEN) * MICRO))


def _ms(moment: datetime) -> int:
    return int(moment.timestamp()) * 1000


class CcxtCandles:
    """A live candle source over a ``ccxt`` exchange.

    Parameters
    ----------
    exchange
        A ``ccxt.async_support`` exchange instance (closed with ``aclose``).
    clock
        The clock that says which candles have closed.
    symbols
        The arena's symbol -> the exchange's market symbol
        (``{"BTCUSDT": "BTC/USDT"}``).
    """

    def __init__(self, exchange: Any, clock: Clock, symbols: Mapping[str, str]) -> None:
        self._exchange = exchange
        self._clock = clock
        self._symbols = dict(symbols)

    @classmethod
    def create(
        cls,
        exchange_id: str,
        clock: Clock,
        symbols: Mapping[str, str],
        *,
        api_base: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> CcxtCandles:
        """Build the source for the exchange ``exchange_id`` (``binance``, ``kraken``...).

        Raises
        ------
        ConfigError
            If ``ccxt`` does not know the exchange.
        """
        factory = getattr(ccxt_async, exchange_id, None)
        if factory is None:
            raise ConfigError(f"ccxt has no exchange {exchange_id!r}")
        exchange = factory({"options": dict(options or {}), "enableRateLimit": True})
        if api_base is not None:
            rebase_exchange(exchange, api_base)
        return cls(exchange, clock, symbols)

    async def aclose(self) -> None:
        """Close the exchange's HTTP session."""
        await self._exchange.close()

    def _market(self, symbol: str) -> str:
        try:
            return self._symbols[symbol]
        except KeyError:
            raise DataError(f"no exchange market for {symbol!r}") from None

    async def _fetch(self, symbol: str, since: datetime, limit: int) -> list[Candle]:
        rows = await self._exchange.fetch_ohlcv(
            self._market(symbol), "1m", since=_ms(since), limit=limit
        )
        now = self._clock.now()
        candles = []
        for row in rows:
            opened = datetime.fromtimestamp(int(row[0]) // 1000, UTC)
            if opened + MINUTE <= now:
                candles.append(Candle(opened, *(_micros(v) for v in row[1:5])))
        return candles

    async def history(self, symbol: str, end: datetime, count: int) -> tuple[Candle, ...]:
        """Return up to ``count`` closed candles ending at or before ``end``, oldest first.

        ``end`` need not be on the minute grid: the last candle is the one that
        closed at the minute boundary at or before it.
        """
        last_close = datetime.fromtimestamp(int(end.timestamp()) // 60 * 60, UTC)
        first = last_close - count * MINUTE
        got = await self._fetch(symbol, first, count)
        return tuple(c for c in got if first <= c.open_time and c.close_time <= last_close)

    async def candle(self, symbol: str, open_time: datetime) -> Candle | None:
        """Return the candle opened at ``open_time`` once closed, else ``None``."""
        if open_time + MINUTE > self._clock.now():
            return None
        got = await self._fetch(symbol, open_time, 1)
        return next((c for c in got if c.open_time == open_time), None)


def rebase_exchange(exchange: Any, api_base: str) -> None:
    """Point every REST URL of a ``ccxt`` exchange at ``api_base`` (a mirror or a test server).

    Raises
    ------
    ConfigError
        If the exchange has no REST URL.
    """
    origin = _origin(exchange.urls.get("api"))
    _rebase(exchange.urls["api"], origin, api_base.rstrip("/"))


def _origin(api: object) -> str:
    texts: list[str] = []
    _collect(api, texts)
    hosts = {t.split("/", 3)[2] for t in texts if t.startswith("https://")}
    if not hosts:
        raise ConfigError("the exchange has no REST URL to point elsewhere")
    return sorted(hosts, key=len)[0]


def _collect(value: object, into: list[str]) -> None:
    if isinstance(value, str):
        into.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _collect(item, into)


def _rebase(api: dict[str, Any], host: str, base: str) -> None:
    for key, value in api.items():
        if isinstance(value, str) and value.startswith(f"https://{host}"):
            api[key] = base + value[len(f"https://{host}") :]
        elif isinstance(value, dict):
            _rebase(value, host, base)
