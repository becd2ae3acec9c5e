"""The live tape: history once, then only what is new; failures keep closed candles only."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest

from tradeleague.errors import DataError
from tradeleague.formats.thesis.candles import Candle
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.thesis.universe import Universe
from tradeleague.league.thesis.live import LiveTape, history_days

H4 = 4 * 3600
UNIVERSE = Universe(
    crypto=("ETHUSDT",), stocks=("AAPL",), crypto_benchmark="BTCUSDT", stock_benchmark="SPY"
)
T0 = int(datetime(2025, 3, 3, 16, tzinfo=UTC).timestamp())


def _bars(count: int, last_start: int) -> list[Candle]:
    starts = [last_start - H4 * (count - 1 - i) for i in range(count)]
    return [Candle(s, s + H4, 100 + i, 110 + i, 90 + i, 105 + i, 7) for i, s in enumerate(starts)]


@dataclass
class Feed:
    """Fixed candles as a feed; ``now`` is its clock, ``failing`` its broken symbols."""

    bars: dict[str, list[Candle]]
    now: int
    failing: set[str] = field(default_factory=set)
    asked: list[tuple[str, int]] = field(default_factory=list)

    async def candles(self, symbol: str, since: datetime) -> tuple[Candle, ...]:
        self.asked.append((symbol, int(since.timestamp())))
        if symbol in self.failing:
            raise DataError(f"{symbol}: the feed failed")
        return tuple(
            c for c in self.bars.get(symbol, []) if since.timestamp() <= c.start <= self.now
        )


async def test_live_tape_reads_history_then_tops_up_t_cyc_2() -> None:
    """T-CYC-2: the first read goes back for every RSI window; later ones from the last close."""
    bars = _bars(20, T0)  # the last one opens at the cycle: still forming
    crypto = Feed({"ETHUSDT": bars, "BTCUSDT": bars}, now=T0)
    stocks = Feed({"SPY": bars}, now=T0)  # AAPL has no data
    tape = LiveTape(UNIVERSE, crypto, stocks, ThesisPreset())
    first = await tape.at(T0)
    assert set(first.symbols) == {"ETHUSDT", "BTCUSDT", "SPY"}  # AAPL is left out
    picture = first.picture(T0, ThesisPreset())
    assert "AAPL" not in picture.prices
    assert "AAPL" not in picture.eligible
    assert picture.change_1d("AAPL") is None  # what a prompt's summary row reads of it
    assert picture.rsi("AAPL", ThesisPreset()) == {"4h": None, "1d": None, "1w": None}
    assert crypto.asked[0] == ("ETHUSDT", T0 - history_days(ThesisPreset()) * 86_400)
    assert first.price_at("ETHUSDT", T0) == bars[-1].open
    later = T0 + H4
    crypto.now = later
    crypto.bars["ETHUSDT"] = bars + _bars(1, later)
    crypto.asked.clear()
    second = await tape.at(later)
    assert ("ETHUSDT", bars[-2].start) in crypto.asked  # from the last candle closed at T0
    assert second.price_at("ETHUSDT", later) == 100  # the new candle's open
    # A feed that fails keeps the closed candles read before, never a forming one.
    crypto.failing.add("ETHUSDT")
    third = await tape.at(later + 60)
    assert third.price_at("ETHUSDT", later + 60) == bars[-1].close


async def test_live_tape_without_a_benchmark_is_a_data_error() -> None:
    """A benchmark never read stops the cycle with a DataError (its board needs it)."""
    bars = _bars(5, T0)
    tape = LiveTape(UNIVERSE, Feed({"BTCUSDT": bars}, now=T0), Feed({}, now=T0), ThesisPreset())
    with pytest.raises(DataError, match="the benchmark SPY"):
        await tape.at(T0)
