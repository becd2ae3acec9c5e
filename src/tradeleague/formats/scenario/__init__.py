"""The scenario benchmark (seed 003): frozen history, one simulator, the same score every run.

Pure pieces only, read top to bottom like the methodology page: a scenario's
rules (`config`, S-SCN-1, S-FIL-2), its frozen bars (`bars`, S-SCN-2), the run
state machine on the shared engine (`run`, S-API-2/3, S-FIL-*, S-LIQ-1), the
score (`metrics`, S-SCO-1), the leaderboard order (`leaderboard`, S-SCO-2) and
the preset holding every number of the seed (`preset`, S-SVC-1/3/5, S-FIL-2).
The service that stores runs and serves them over HTTP and MCP lives in
`tradeleague.league.scenario`.
"""

from tradeleague.formats.scenario.bars import OHLCV, ScenarioBars, periods_per_year
from tradeleague.formats.scenario.config import (
    DEFAULT_CASH,
    DEFAULT_HISTORY,
    LEVERAGE_CAPS,
    ScenarioConfig,
    default_slippage,
    parse_slippage_overrides,
)
from tradeleague.formats.scenario.leaderboard import Entry, Ranked, rank
from tradeleague.formats.scenario.metrics import (
    METRICS,
    ScenarioResults,
    compute_results,
    higher_is_better,
)
from tradeleague.formats.scenario.preset import (
    HIGH_VARIANCE,
    MIN_IDLE_LIMIT,
    ServicePreset,
    SlippageTiers,
)
from tradeleague.formats.scenario.run import (
    LIQUIDATED_REASON,
    TRANSITIONS,
    OrderRefused,
    RunState,
    RunStatus,
    StepRejection,
    StepReport,
    can_transition,
    queue_orders,
    start_run,
    step,
)
from tradeleague.formats.scenario.version import version_digest

__all__ = [
    "DEFAULT_CASH",
    "DEFAULT_HISTORY",
    "HIGH_VARIANCE",
    "LEVERAGE_CAPS",
    "LIQUIDATED_REASON",
    "METRICS",
    "MIN_IDLE_LIMIT",
    "OHLCV",
    "TRANSITIONS",
    "Entry",
    "OrderRefused",
    "Ranked",
    "RunState",
    "RunStatus",
    "ScenarioBars",
    "ScenarioConfig",
    "ScenarioResults",
    "ServicePreset",
    "SlippageTiers",
    "StepRejection",
    "StepReport",
    "can_transition",
    "compute_results",
    "default_slippage",
    "higher_is_better",
    "parse_slippage_overrides",
    "periods_per_year",
    "queue_orders",
    "rank",
    "start_run",
    "step",
    "version_digest",
]
