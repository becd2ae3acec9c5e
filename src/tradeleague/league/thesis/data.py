"""Frozen folders into a market tape (T-UNI-2: Binance-format crypto, Yahoo-format stocks)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from tradeleague.errors import DataError
from tradeleague.formats.thesis.candles import candles_of
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.formats.thesis.universe import Universe
from tradeleague.market.calendars import CONTINUOUS, NYSE, get_calendar
from tradeleague.market.loader import load_dataset, symbol_files
from tradeleague.market.resample import resample_series

__all__ = ["load_tape", "replay_sources"]


def replay_sources(crypto: Path, stocks: Path, stocks_hourly: Path | None) -> dict[str, str]:
    """Return the folders a replay reads, as its ``SeasonStarted`` records them.

    Each is recorded as its absolute path with links resolved, as a league file's
    folders are: the record then names the same folder whichever working directory
    or linked path the command was given, so a hosted season equals its replay.
    """
    sources = {"crypto": str(crypto.resolve()), "stocks": str(stocks.resolve())}
    if stocks_hourly is not None:
        sources["stocks_hourly"] = str(stocks_hourly.resolve())
    return sources


def load_tape(
    universe: Universe, crypto: Path, stocks: Path, stocks_hourly: Path | None = None
) -> MarketTape:
    """Load the universe's symbols from the crypto 4h and stock daily folders.

    A symbol the folder lacks is left out (it is never screened nor tradeable);
    a folder missing a benchmark is an error.

    Raises
    ------
    DataError
        For a missing folder or benchmark, or a malformed file.
    """
    crypto_files = symbol_files(crypto)
    stock_files = symbol_files(stocks)
    for folder, files, bench in (
        (crypto, crypto_files, universe.crypto_benchmark),
        (stocks, stock_files, universe.stock_benchmark),
    ):
        if bench not in files:
            raise DataError(f"{folder}: the benchmark {bench} has no file")
    c_symbols = [s for s in (*universe.crypto, universe.crypto_benchmark) if s in crypto_files]
    s_symbols = [s for s in (*universe.stocks, universe.stock_benchmark) if s in stock_files]
    c_data = load_dataset(crypto, symbols=c_symbols, calendar=CONTINUOUS)
    s_data = load_dataset(stocks, symbols=s_symbols, calendar=NYSE)
    hourly = None
    if stocks_hourly is not None:
        h_files = symbol_files(stocks_hourly)
        h_data = load_dataset(
            stocks_hourly, symbols=[s for s in s_symbols if s in h_files], calendar=NYSE
        )
        hourly = {
            s: candles_of(resample_series(h_data[s], timedelta(hours=4), h_data.calendar))
            for s in h_data.symbols
        }
    return MarketTape(
        universe,
        {s: candles_of(c_data[s]) for s in c_data.symbols},
        {s: candles_of(s_data[s]) for s in s_data.symbols},
        get_calendar(NYSE),
        hourly,
    )
