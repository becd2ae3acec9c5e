"""A scenario's frozen bars: one time grid shared by every symbol (S-SCN-1, S-SCN-2).

Bars come from a `tradeleague.market.Dataset` slice. A step of the scenario is
a bar time at which *every* symbol of the universe has a bar, so "the next
bar's open" (S-FIL-1) always exists for every symbol; times where a symbol is
missing (the hourly data has a few holes) are left out, and `ScenarioBars.dropped`
says how many. The bars' content hash covers every number, so a version's bars
can be checked for change at any time (S-SCN-2).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

import numpy as np

from tradeleague.events import canonical_json
from tradeleague.market import Dataset
from tradeleague.money import Usd

__all__ = ["OHLCV", "ScenarioBars", "periods_per_year"]

OHLCV: Final = ("open", "high", "low", "close", "volume")
"""The fields of one bar, in storage order."""

_SESSION_S: Final = 23_400


def periods_per_year(bar_size: timedelta, continuous: bool) -> float:
    """Return how many bars of ``bar_size`` make a year (for annualising, S-SCO-1).

    Exchange calendars: 252 sessions a year, each of ``ceil(6.5 h / size)``
    intraday bars (7 hourly bars) or one daily bar. 24/7: 365 days.
    """
    seconds = int(bar_size.total_seconds())
    if seconds <= 0:
        raise ValueError("a bar size must be positive")
    if continuous:
        return 365 * 86_400 / seconds
    if seconds >= 86_400:
        return 252.0 * 86_400 / seconds
    return 252.0 * -(-_SESSION_S // seconds)


@dataclass(frozen=True, slots=True)
class ScenarioBars:
    """Every symbol's bars on one shared time grid, as exact integers.

    Attributes
    ----------
    symbols
        The universe, sorted.
    times
        Bar open times, epoch seconds, strictly increasing.
    values
        ``values[symbol][field][i]``: ``field`` in `OHLCV` order, micro-units.
    dropped
        Bar times left out because a symbol had no bar there.
    """

    symbols: tuple[str, ...]
    times: tuple[int, ...]
    values: Mapping[str, tuple[tuple[int, ...], ...]]
    dropped: int = 0

    def __post_init__(self) -> None:
        if len(self.times) < 2:
            raise ValueError("a scenario needs at least two bars (one step)")
        if any(b <= a for a, b in zip(self.times, self.times[1:], strict=False)):
            raise ValueError("bar times must be strictly increasing")
        if tuple(sorted(self.values)) != self.symbols:
            raise ValueError("values must hold exactly the symbols")
        n = len(self.times)
        for symbol, fields in self.values.items():
            if len(fields) != len(OHLCV) or any(len(f) != n for f in fields):
                raise ValueError(f"{symbol}: every field needs one value per bar time")

    @classmethod
    def from_dataset(cls, dataset: Dataset, symbols: Sequence[str]) -> ScenarioBars:
        """Return the bars of ``symbols`` on the times every one of them has.

        Raises
        ------
        ValueError
            If fewer than two common bar times remain.
        """
        names = tuple(sorted(dict.fromkeys(symbols)))
        series = [dataset[s] for s in names]
        union = np.unique(np.concatenate([s.times for s in series]))
        common = series[0].times
        for s in series[1:]:
            common = np.intersect1d(common, s.times, assume_unique=True)
        values: dict[str, tuple[tuple[int, ...], ...]] = {}
        for name, s in zip(names, series, strict=True):
            idx = np.searchsorted(s.times, common)
            values[name] = tuple(tuple(int(v) for v in getattr(s, f)[idx]) for f in OHLCV)
        return cls(names, tuple(int(t) for t in common), values, len(union) - len(common))

    def __len__(self) -> int:
        return len(self.times)

    @property
    def last(self) -> int:
        """Return the index of the last bar."""
        return len(self.times) - 1

    def timestamp(self, index: int) -> datetime:
        """Return bar ``index``'s open time, aware UTC."""
        return datetime.fromtimestamp(self.times[index], UTC)

    def field(self, name: str, index: int) -> dict[str, Usd]:
        """Return ``{symbol: value}`` of field ``name`` at bar ``index``."""
        k = OHLCV.index(name)
        return {s: Usd(self.values[s][k][index]) for s in self.symbols}

    def opens(self, index: int) -> dict[str, Usd]:
        """Return every symbol's open at bar ``index``."""
        return self.field("open", index)

    def closes(self, index: int) -> dict[str, Usd]:
        """Return every symbol's close at bar ``index``."""
        return self.field("close", index)

    def bar(self, symbol: str, index: int) -> dict[str, int]:
        """Return one bar as ``{"open": ..., "volume": ...}`` in micro-units."""
        fields = self.values[symbol]
        return {f: fields[k][index] for k, f in enumerate(OHLCV)}

    def rows(self) -> list[tuple[str, int, int, int, int, int, int, int]]:
        """Return ``(symbol, index, time, open, high, low, close, volume)`` rows for storage."""
        return [
            (s, i, t, *(self.values[s][k][i] for k in range(len(OHLCV))))  # type: ignore[misc]
            for s in self.symbols
            for i, t in enumerate(self.times)
        ]

    @classmethod
    def from_rows(
        cls, rows: Sequence[tuple[str, int, int, int, int, int, int, int]], dropped: int = 0
    ) -> ScenarioBars:
        """Rebuild bars from `rows` output (any order)."""
        ordered = sorted(rows, key=lambda r: (r[0], r[1]))
        symbols = tuple(sorted({r[0] for r in ordered}))
        by_symbol: dict[str, list[tuple[int, ...]]] = {s: [] for s in symbols}
        for row in ordered:
            by_symbol[row[0]].append(row[2:])
        times = tuple(r[0] for r in by_symbol[symbols[0]])
        values = {
            s: tuple(tuple(r[1 + k] for r in by_symbol[s]) for k in range(len(OHLCV)))
            for s in symbols
        }
        return cls(symbols, times, values, dropped)

    def content_hash(self) -> str:
        """Return the SHA-256 of the bars' canonical JSON (S-SCN-2)."""
        body = canonical_json(
            {
                "symbols": list(self.symbols),
                "times": list(self.times),
                "bars": {s: [list(f) for f in self.values[s]] for s in self.symbols},
            }
        )
        return hashlib.sha256(body.encode("utf-8")).hexdigest()
