"""The scenario benchmark's event kinds and payload schemas (C-4, S-*).

Each run writes its own stream; its account is folded by the ``portfolio``
projection. Amounts are micro-unit integers as decimal strings; ratios are
exact fractions ``n/d`` or float ``repr`` text.
"""

from __future__ import annotations

from typing import Final

from tradeleague.events.common import FILL_FIELDS, EventKind
from tradeleague.events.schema import ARR, BOOL, INT, NULL, STR, Field, opt, register, req

__all__ = [
    "FORMAT",
    "SCENARIO_ORDERS_QUEUED",
    "SCENARIO_ORDER_CANCELLED",
    "SCENARIO_RUN_ABANDONED",
    "SCENARIO_RUN_COMPLETED",
    "SCENARIO_RUN_PUBLISHED",
    "SCENARIO_RUN_STARTED",
]

FORMAT: Final = "scenario"

SCENARIO_RUN_STARTED: Final = "ScenarioRunStarted"
SCENARIO_RUN_COMPLETED: Final = "ScenarioRunCompleted"
SCENARIO_RUN_ABANDONED: Final = "ScenarioRunAbandoned"
SCENARIO_RUN_PUBLISHED: Final = "ScenarioRunPublished"
SCENARIO_ORDERS_QUEUED: Final = "ScenarioOrdersQueued"
SCENARIO_ORDER_CANCELLED: Final = "ScenarioOrderCancelled"


_RUN = req("run", STR, doc="the run id")
_BAR: Final = (
    req("index", INT, doc="the bar the step reached"),
    req("bar_time", STR, doc="that bar's time, UTC"),
)


def _s(kind: str, fields: tuple[Field, ...], doc: str) -> None:
    register(kind, FORMAT, (_RUN, *fields), doc=doc)


_s(
    SCENARIO_RUN_STARTED,
    (
        req("scenario", STR),
        req("content_hash", STR),
        req("owner", STR),
        opt(
            "version_hash",
            STR,
            doc="the digest of the scenario version's row (formats.scenario.version_digest); "
            "a run whose start names it records its orders too (older runs lack both)",
        ),
    ),
    "A run of a scenario starts (its AccountOpened follows).",
)
_s(
    SCENARIO_ORDERS_QUEUED,
    (
        req("index", INT, doc="the bar the agent sees (the orders fill at the next one)"),
        req("orders", ARR, doc="[symbol, side, quantity in micro-units] of each order, in order"),
    ),
    "Orders queued for the next step (S-API-2).",
)
_s(
    SCENARIO_ORDER_CANCELLED,
    (
        req("index", INT, doc="the bar the agent sees"),
        req("position", INT, doc="the cancelled order's place in the queue, from 0"),
    ),
    "A queued order cancelled before it filled.",
)
_s(
    EventKind.ORDER_FILLED,
    (*FILL_FIELDS, *_BAR, req("forced", BOOL, doc="a liquidation's close")),
    "One fill of a step.",
)
_s(
    EventKind.POSITION_LIQUIDATED,
    (*_BAR, req("equity", STR)),
    "Equity fell to the liquidation line: every position closed.",
)
_s(
    SCENARIO_RUN_COMPLETED,
    (
        req("return", STR),
        req("sharpe", STR, NULL),
        req("sortino", STR, NULL),
        req("max_drawdown", STR),
        req("volatility", STR, NULL),
        req("final_equity", STR),
        req("starting_cash", STR),
        req("liquidated", BOOL),
        req("steps", INT),
        opt("equity", ARR, doc="equity after each step, in micro-dollar strings"),
    ),
    "The run reached its last bar: its results.",
)
_s(SCENARIO_RUN_ABANDONED, (), "The owner abandoned the run.")
_s(SCENARIO_RUN_PUBLISHED, (), "The owner published the run's results.")
