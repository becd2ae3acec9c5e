"""Market data: bars, datasets, calendars, snapshots and the no-look-ahead rule.

Pure: nothing here reads a clock, the network or global random state. Files are
read only by ``load_dataset``, when asked. The rule for when a price becomes
observable is in ``tradeleague.market.observe``.
"""

from __future__ import annotations

from tradeleague.market.bars import Bar, BarSeries, format_bar_size, parse_bar_size
from tradeleague.market.calendars import CONTINUOUS, NYSE, TradingCalendar, get_calendar
from tradeleague.market.dataset import Dataset
from tradeleague.market.gaps import GapReport, find_gaps
from tradeleague.market.loader import load_dataset
from tradeleague.market.observe import (
    Observed,
    PriceObservation,
    bar_close_time,
    bar_open_time,
)
from tradeleague.market.resample import resample
from tradeleague.market.returns import trailing_return, trailing_returns
from tradeleague.market.snapshot import Snapshot, take_snapshot
from tradeleague.market.synthetic import synthetic_dataset

__all__ = [
    "CONTINUOUS",
    "NYSE",
    "Bar",
    "BarSeries",
    "Dataset",
    "GapReport",
    "Observed",
    "PriceObservation",
    "Snapshot",
    "TradingCalendar",
    "bar_close_time",
    "bar_open_time",
    "find_gaps",
    "format_bar_size",
    "get_calendar",
    "load_dataset",
    "parse_bar_size",
    "resample",
    "synthetic_dataset",
    "take_snapshot",
    "trailing_return",
    "trailing_returns",
]
