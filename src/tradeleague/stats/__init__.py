"""Pure statistics: returns, drawdown, risk ratios, arena scores, luck (SPEC ST, S-SCO, D-LCK).

Nothing here reads a clock, a file, the network or global random state;
randomness comes from an injected, seeded ``numpy.random.Generator``. Money
comes in as integer micro-dollars and exact results go out as ``Fraction``;
ratios that need a square root are floats, and an undefined one is ``None``,
never NaN. Rounding for display follows ST-3 (:mod:`tradeleague.stats.rounding`).

The modules: ``returns`` (season return, step returns, max drawdown over a
value path), ``risk`` (Sharpe, Sortino with two downside deviations,
volatility), ``arena`` (the direction arena's ROI, hit rate, answer rate,
streak, group rows), ``luck`` (break-even, expected P&L, Wald interval, trades
to prove, luckiest of N coins), ``calculator`` (the seed's luck calculator,
rounded as published), ``bootstrap`` (the paired bootstrap test against a
baseline), ``luckiest`` (the luckiest-of-N line for return tables, by
simulation), ``ranking`` (ranked rows, then the unranked with their reason)
``verdicts`` (a test's verdict in words that say its direction) and ``alpha``
(beta against a benchmark and the alpha left, with a block-bootstrap interval).
"""

from tradeleague.stats.alpha import (
    ALPHA_NOTE,
    AlphaBeta,
    AlphaFit,
    alpha_beta,
    alpha_betas,
    alpha_words,
)
from tradeleague.stats.binary_luck import (
    Z_95,
    Z_POWER_80,
    HitRateInterval,
    break_even_hit_rate,
    expected_pnl_per_round,
    expected_top_hit_rate,
    top_hit_rate_p_value,
    trades_to_prove,
    wald_interval,
)
from tradeleague.stats.binary_scores import (
    ArenaTally,
    RoundResult,
    answer_rate,
    combine,
    hit_rate,
    roi,
    streak,
)
from tradeleague.stats.bootstrap import (
    BootstrapComparison,
    Resampling,
    SharedTest,
    paired_bootstrap,
)
from tradeleague.stats.calculator import LuckFigures, LuckReport, luck_report
from tradeleague.stats.cutoff import CUTOFF_SOURCES, CutoffStatus, cutoff_end, cutoff_mark
from tradeleague.stats.decay import (
    DECAY_METHOD,
    REFERENCE,
    Decay,
    ModelDecay,
    WindowAlpha,
    decay,
    reference,
)
from tradeleague.stats.luckiest import LuckiestOfN, luckiest_of_n
from tradeleague.stats.ranking import Placed, place
from tradeleague.stats.rating import (
    LEVEL,
    MIXED,
    Interval,
    ModelRating,
    PairTest,
    Rating,
    SeasonResult,
    holm,
    rate,
    relabel_p,
    sign_flip_p,
)
from tradeleague.stats.returns import (
    drawdown_percent,
    max_drawdown,
    return_percent,
    season_return,
    step_returns,
)
from tradeleague.stats.risk import (
    DownsideDeviation,
    downside_deviation,
    sharpe,
    sortino,
    volatility,
)
from tradeleague.stats.rounding import percent, round_half_up
from tradeleague.stats.verdicts import VERDICT_NOTE, Outcome, outcome, verdict_words

__all__ = [
    "ALPHA_NOTE",
    "CUTOFF_SOURCES",
    "DECAY_METHOD",
    "LEVEL",
    "MIXED",
    "REFERENCE",
    "VERDICT_NOTE",
    "Z_95",
    "Z_POWER_80",
    "AlphaBeta",
    "AlphaFit",
    "ArenaTally",
    "BootstrapComparison",
    "CutoffStatus",
    "Decay",
    "DownsideDeviation",
    "HitRateInterval",
    "Interval",
    "LuckFigures",
    "LuckReport",
    "LuckiestOfN",
    "ModelDecay",
    "ModelRating",
    "Outcome",
    "PairTest",
    "Placed",
    "Rating",
    "Resampling",
    "RoundResult",
    "SeasonResult",
    "SharedTest",
    "WindowAlpha",
    "alpha_beta",
    "alpha_betas",
    "alpha_words",
    "answer_rate",
    "break_even_hit_rate",
    "combine",
    "cutoff_end",
    "cutoff_mark",
    "decay",
    "downside_deviation",
    "drawdown_percent",
    "expected_pnl_per_round",
    "expected_top_hit_rate",
    "hit_rate",
    "holm",
    "luck_report",
    "luckiest_of_n",
    "max_drawdown",
    "outcome",
    "paired_bootstrap",
    "percent",
    "place",
    "rate",
    "reference",
    "relabel_p",
    "return_percent",
    "roi",
    "round_half_up",
    "season_return",
    "sharpe",
    "sign_flip_p",
    "sortino",
    "step_returns",
    "streak",
    "top_hit_rate_p_value",
    "trades_to_prove",
    "verdict_words",
    "volatility",
    "wald_interval",
]
