"""The thesis league's preset: every number of seed 004 (and ours) in one place.

The defaults reproduce the seed's design with the decisions the seed leaves
open (SPEC T-ACT-4..6 "ours"). The versions are pinned (C-3): a change that
affects comparability gets a new name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tradeleague.money import Usd, usd

__all__ = ["PROMPT_VERSION", "SCORING_VERSION", "ThesisPreset"]

SCORING_VERSION = "thesis-scoring-v2"
"""Return, drawdown, Sharpe, Sortino, win rate and exposure (T-SCO-1, C-3).

v2: the monitor checks held stocks while NYSE is closed too, and closes one
whose level a session's close broke at the next open (T-MON-1); v1 saw only
the opens, so a break by a close that the next open undid was never closed.
"""

PROMPT_VERSION = "thesis-prompt-2026-12-01.2"
"""The pinned version of the templates in ``prompt.py`` (C-3)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ThesisPreset:
    """The rules' numbers; the defaults are seed 004's and ours.

    Attributes
    ----------
    start_cash
        Cash each model starts with (T-UNI-1).
    fee_ppm
        Fee per fill, parts per million of value, rounded up (T-CYC-8: 0.1%).
    min_percent, max_percent
        Bounds of ``percent_of_equity`` on an open or add (T-ACT-2, T-ACT-3).
    max_positions
        Positions held at once (T-ACT-3).
    min_confidence_pct, max_confidence_pct
        The confidence gate in hundredths (T-ACT-4: 0.80 to 1.00).
    screen_top
        Assets per class given full candle depth (T-CYC-1).
    screen_window, momentum_lag
        Closed daily bars averaged, and the momentum's look-back (T-CYC-1).
    rsi_period, rsi_window
        RSI length and the closed bars it reads (T-CYC-3).
    candles_shown
        Raw candles per interval shown for a screened or held asset (T-CYC-5).
    cycle_hour
        The UTC hour of the daily cycle.
    monitor_minutes
        Minutes between monitor checks (T-MON-1).
    season_days
        A season's length (T-SEA-1).
    churn, no_reopen
        Whether the churn and no-reopen rules apply (T-ACT-6: configurable).
    max_decisions
        Decisions read from one answer; more make the answer invalid (ours).
    max_answer_chars
        Longest answer read (ours).
    text_max_chars
        A thesis, rationale or reasoning longer than this is cut (ours).
    """

    start_cash: Usd = field(default_factory=lambda: usd(10_000))
    fee_ppm: int = 1_000
    min_percent: int = 10
    max_percent: int = 100
    max_positions: int = 10
    min_confidence_pct: int = 80
    max_confidence_pct: int = 100
    screen_top: int = 5
    screen_window: int = 20
    momentum_lag: int = 10
    rsi_period: int = 14
    rsi_window: int = 250
    candles_shown: int = 30
    cycle_hour: int = 16
    monitor_minutes: int = 15
    season_days: int = 28
    churn: bool = True
    no_reopen: bool = True
    max_decisions: int = 20
    max_answer_chars: int = 40_000
    text_max_chars: int = 1_000

    def __post_init__(self) -> None:
        if not 0 < self.min_percent <= self.max_percent <= 100:
            raise ValueError("percent bounds must satisfy 0 < min <= max <= 100")
        if not 0 <= self.min_confidence_pct <= self.max_confidence_pct <= 100:
            raise ValueError("confidence bounds must lie in 0..100 hundredths")
        if self.max_positions < 1 or self.screen_top < 0 or self.season_days < 1:
            raise ValueError("positions and season length must be positive")
        if self.monitor_minutes < 1 or 60 % self.monitor_minutes:
            raise ValueError("monitor minutes must divide an hour")
