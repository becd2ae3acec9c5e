"""The weights league's preset: every number of seed 000 as a default, never a constant.

An operator can run the same format with another stake, cap, clock or season
length by building another ``WeightsPreset``; the defaults reproduce the
published design exactly. The versions named here are pinned (C-3): any change
that affects comparability gets a new name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from tradeleague.money import Usd, usd
from tradeleague.sim import RebalanceParams

__all__ = ["PROMPT_VERSION", "SCORING_VERSION", "WeightsPreset"]

SCORING_VERSION = "weights-scoring-v1"
"""The scoring method of seed 000 (W-SEA-3, C-3)."""

PROMPT_VERSION = "weights-prompt-2026-10-06.1"
"""The pinned version of the message template in ``prompt.py`` (C-3)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class WeightsPreset:
    """The rules' numbers; the defaults are seed 000's.

    Attributes
    ----------
    start_cash
        Cash every agent starts a season with (W-PF-1).
    max_weight_bps
        The largest weight a decision can give one symbol (W-PF-3, W-VAL-7).
    reason_max_chars
        A longer reason is cut to this length (W-VAL-7).
    universe_size
        Symbols in the league (W-UNI-1).
    min_price_micros
        A price below this is not valid (W-PX-4: 0.01 USD).
    max_exact_answer
        The largest raw feed answer computed with exactly (W-PX-4, ours: 2**53 - 1,
        the largest integer a JavaScript client reads exactly).
    future_tolerance
        An update time further ahead than this is not valid (W-PX-4).
    stale_after
        A feed silent for longer is halted (W-MKT-1: 25 hours).
    node_max_age
        The node's latest block may be at most this old (W-MKT-2).
    recent_update
        Some feed must have published within this (W-MKT-2: 3 hours).
    max_halted
        More halted symbols close the market (W-MKT-2, W-HOLD-3).
    hold_move_ppm
        A move above this (parts per million) puts a symbol on hold (W-HOLD-1: 30%).
    round_hours
        The UTC hours a round may start on (W-RND-1).
    round_start_window
        A round starts within this much of its hour (W-RND-1: ten minutes).
    pro_cutoff
        A Pro agent not asked this far into the hour is skipped (W-SKP-2).
    open_cap, pro_cap
        Most agents per division (W-DIV-1, W-DIV-2).
    open_daily_allowance
        House-model turns per day in the Open division (W-SKP-1; ours: 200, the cap).
    pause_after_key_failures
        Key or model rejections in a row that pause a Pro agent (W-VAL-9).
    prompt_changes_per_day
        Prompt changes an owner may make per UTC day (W-REC-2).
    season_days
        A season's length (W-SEA-1).
    rebalance
        Threshold, fee and slippage of the trades (W-EXE-3, W-EXE-5).
    """

    start_cash: Usd = field(default_factory=lambda: usd(10_000))
    max_weight_bps: int = 4_000
    reason_max_chars: int = 240
    universe_size: int = 20
    min_price_micros: int = 10_000
    max_exact_answer: int = 2**53 - 1
    future_tolerance: timedelta = timedelta(minutes=5)
    stale_after: timedelta = timedelta(hours=25)
    node_max_age: timedelta = timedelta(minutes=5)
    recent_update: timedelta = timedelta(hours=3)
    max_halted: int = 2
    hold_move_ppm: int = 300_000
    round_hours: tuple[int, ...] = (15, 16, 17, 18, 19)
    round_start_window: timedelta = timedelta(minutes=10)
    pro_cutoff: timedelta = timedelta(minutes=50)
    open_cap: int = 200
    pro_cap: int = 50
    open_daily_allowance: int = 200
    pause_after_key_failures: int = 3
    prompt_changes_per_day: int = 3
    season_days: int = 28
    min_trading_days: int = 5
    min_decisions: int = 3
    rebalance: RebalanceParams = field(default_factory=RebalanceParams)
    scoring_version: str = SCORING_VERSION
    prompt_version: str = PROMPT_VERSION

    def __post_init__(self) -> None:
        if not 0 < self.max_weight_bps <= 10_000:
            raise ValueError("max_weight_bps must be in 1..10,000")
        if self.reason_max_chars < 1 or self.universe_size < 1:
            raise ValueError("reason_max_chars and universe_size must be positive")
        if any(not 0 <= h <= 23 for h in self.round_hours) or not self.round_hours:
            raise ValueError("round_hours must be UTC hours 0..23")
        if list(self.round_hours) != sorted(set(self.round_hours)):
            raise ValueError("round_hours must be increasing")
