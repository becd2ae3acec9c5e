"""The direction arena's preset: every number of the seed, as a default (SPEC D-*).

A league operator may run the arena with another asset, stake, payout, round
length or season; the defaults reproduce the published design exactly. The
prompt and the scoring method carry pinned version names (C-3): any edit to
the prompt text bumps ``PROMPT_VERSION``, any change to how boards are scored
bumps ``SCORING_VERSION``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Final

from tradeleague.calls import CallParams
from tradeleague.formats.direction.answer import MAX_RATIONALE
from tradeleague.money import Usd, usd
from tradeleague.sim import DEFAULT_PAYOUT_PPM

__all__ = ["FORMAT", "PROMPT_VERSION", "SCORING_VERSION", "DirectionPreset"]

FORMAT: Final = "direction"
"""The format's name in turns, events and streams."""

PROMPT_VERSION: Final = "2026-07-16.1"
"""The pinned prompt version of the seed (D-ASK-1)."""

SCORING_VERSION: Final = "direction-scoring-1"
"""The pinned scoring method: D-SCO-1..6, D-LCK-1..3 as implemented here (C-3)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DirectionPreset:
    """The arena's rules; the defaults are the seed's.

    Attributes
    ----------
    asset
        The instrument's name in the prompt (``BTC/USD``).
    symbol
        The candle source's symbol for it (``BTCUSDT`` in the frozen data).
    round_length
        Length of a round, open to expiry (D-RND-1: five minutes): a whole
        number of minutes, or, for drills and tests of the live path on the
        wall clock, a whole number of seconds that divides a minute (every
        minute boundary is then a round open). A sub-minute round drills the
        live plumbing only: its entry price is the close of the last candle
        closed by its open, and its prompt says a horizon of 0 minutes.
    window
        The response window from the ask, hard abort (D-RND-3: 45 s).
    late_cutoff
        An answer with less than this left before expiry is not placed (D-RND-4: 30 s).
    settle_grace
        A trade with no close event this long after expiry is ``unsettled`` (D-SKP-1: 45 s).
    candles
        One-minute candles shown (D-RND-1: 180).
    stake
        Stake per round, micro-dollars (D-TRD-1: 10.00).
    start_balance
        Each account's balance at a season's start (D-TRD-1: 50,000.00).
    payout_ppm
        The payout the arena expects a broker to pay on a win (80% = 800,000);
        each trade records the payout the broker actually applied (D-TRD-4).
    season_length
        A season's length (D-SEA-1: 30 days).
    season_floor
        A season ends early when any account falls below this (D-SEA-1: 200.00).
    sparkline
        Settled rounds the board's sparkline covers (D-SEA-1: 20).
    max_rationale
        A rationale longer than this many characters is shown cut there (D-ASK-3: 280).
    temperature, max_tokens, reasoning
        The call parameters, identical for every model (D-ASK-2).
    """

    asset: str = "BTC/USD"
    symbol: str = "BTCUSDT"
    round_length: timedelta = timedelta(minutes=5)
    window: timedelta = timedelta(seconds=45)
    late_cutoff: timedelta = timedelta(seconds=30)
    settle_grace: timedelta = timedelta(seconds=45)
    candles: int = 180
    stake: Usd = field(default_factory=lambda: usd(10))
    start_balance: Usd = field(default_factory=lambda: usd(50_000))
    payout_ppm: int = DEFAULT_PAYOUT_PPM
    season_length: timedelta = timedelta(days=30)
    season_floor: Usd = field(default_factory=lambda: usd(200))
    sparkline: int = 20
    max_rationale: int = MAX_RATIONALE
    temperature: float = 0.3
    max_tokens: int = 320
    reasoning: bool = False
    prompt_version: str = PROMPT_VERSION
    scoring_version: str = SCORING_VERSION

    def __post_init__(self) -> None:
        minute = timedelta(minutes=1)
        length = self.round_length
        whole_minutes = length >= minute and not length % minute
        minute_divisor = timedelta(0) < length < minute and not (
            length % timedelta(seconds=1) or minute % length
        )
        if not (whole_minutes or minute_divisor):
            raise ValueError(
                "a round is a whole number of minutes, or whole seconds dividing a minute"
            )
        if not timedelta(0) < self.window < self.round_length:
            raise ValueError("the response window must be positive and shorter than a round")
        if self.late_cutoff < timedelta(0) or self.settle_grace < timedelta(0):
            raise ValueError("the late cutoff and the settlement grace cannot be negative")
        if self.candles < 1 or self.sparkline < 1 or self.max_rationale < 1:
            raise ValueError("candles, sparkline and max_rationale must be 1 or more")
        if self.stake <= 0 or self.start_balance < self.stake or self.payout_ppm < 0:
            raise ValueError("need a positive stake, a balance covering it, a payout >= 0")

    @property
    def horizon_minutes(self) -> int:
        """Return the round length in whole minutes (the prompt's horizon; 0 for a drill round)."""
        return int(self.round_length / timedelta(minutes=1))

    def call_params(self) -> CallParams:
        """Return the call parameters every model gets (D-ASK-2, D-RND-3): no retries."""
        return CallParams(
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            reasoning=self.reasoning,
            timeout_s=self.window.total_seconds(),
            retries=0,
        )
