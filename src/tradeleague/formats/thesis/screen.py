"""The screen: one ranking for everyone, deciding candle depth only (SPEC T-CYC-1, T-UNI-3).

Top 5 crypto and top 5 stocks by screen score (stocks only on NYSE trading
days), ties by symbol, plus each model's own holdings (added per model by the
prompt). An asset with fewer than 20 closed daily candles, or a stock with no
candle for the latest closed NYSE session (not listed yet, or its data ended),
is not eligible: it is not screened and cannot be opened.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from tradeleague.formats.thesis.candles import Candle
from tradeleague.formats.thesis.indicators import screen_score
from tradeleague.formats.thesis.preset import ThesisPreset

__all__ = ["Scored", "Screen", "eligible", "run_screen"]


@dataclass(frozen=True, slots=True)
class Scored:
    """One screened asset and its score in dollars."""

    symbol: str
    score: Fraction


@dataclass(frozen=True, slots=True)
class Screen:
    """The cycle's screen: the top assets of each class, best first."""

    crypto: tuple[Scored, ...]
    stocks: tuple[Scored, ...]

    @property
    def symbols(self) -> tuple[str, ...]:
        """Return every screened provider symbol."""
        return tuple(s.symbol for s in self.crypto + self.stocks)


def eligible(
    daily: Sequence[Candle],
    preset: ThesisPreset,
    *,
    stock_session_close: int | None = None,
) -> bool:
    """Return whether an asset with these closed daily candles may be screened and opened.

    Parameters
    ----------
    daily
        Closed daily candles in time order.
    preset
        The screen window.
    stock_session_close
        For a stock, the close instant of the latest closed NYSE session: the
        stock needs a candle that closed then. ``None`` for crypto.
    """
    if len(daily) < preset.screen_window:
        return False
    return stock_session_close is None or daily[-1].end == stock_session_close


def _top(scores: Mapping[str, Fraction], count: int) -> tuple[Scored, ...]:
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return tuple(Scored(s, v) for s, v in ranked[:count])


def run_screen(
    crypto: Mapping[str, Sequence[Candle]],
    stocks: Mapping[str, Sequence[Candle]],
    preset: ThesisPreset,
    *,
    stocks_open_today: bool,
    stock_session_close: int | None,
) -> Screen:
    """Rank eligible assets of each class and keep the top ones (T-CYC-1).

    Parameters
    ----------
    crypto, stocks
        Closed daily candles per provider symbol (benchmarks excluded).
    preset
        Top count, window and momentum look-back.
    stocks_open_today
        Whether the cycle falls on an NYSE trading day (T-UNI-3).
    stock_session_close
        The close instant of the latest closed NYSE session.
    """
    c_scores: dict[str, Fraction] = {}
    for symbol, daily in crypto.items():
        score = screen_score(daily, preset.screen_window, preset.momentum_lag)
        if score is not None and eligible(daily, preset):
            c_scores[symbol] = score
    s_scores: dict[str, Fraction] = {}
    if stocks_open_today and stock_session_close is not None:
        for symbol, daily in stocks.items():
            score = screen_score(daily, preset.screen_window, preset.momentum_lag)
            if score is not None and eligible(
                daily, preset, stock_session_close=stock_session_close
            ):
                s_scores[symbol] = score
    return Screen(_top(c_scores, preset.screen_top), _top(s_scores, preset.screen_top))
