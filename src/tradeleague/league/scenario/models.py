"""Request and response bodies of the scenario benchmark's REST API and MCP tools.

One set of models for both interfaces: the OpenAPI document (``/docs``) and
the MCP tools' input and output schemas are generated from these, and an MCP
tool's arguments are validated by the same request model as the REST body.

Units, everywhere: money and quantities are exact decimal strings (``"199.405"``,
US dollars, or shares/units of the symbol); returns, drawdowns and volatility
are fractions of one (``0.05`` is 5%), never percent; times are ISO 8601 in UTC
(``2024-01-02T00:00:00Z``). Requests reject unknown fields.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from tradeleague.league.bodies import ChangeOut
from tradeleague.league.story import STORY_DESCRIPTION, RaceOut

__all__ = [
    "ID_PATTERN",
    "METRIC",
    "REF_PATTERN",
    "BarOut",
    "BoardScenariosOut",
    "CancelOut",
    "ChangelogOut",
    "CreateRunIn",
    "EquityPointOut",
    "FillOut",
    "LeaderboardEntryOut",
    "LeaderboardIn",
    "LeaderboardOut",
    "MarketOut",
    "OrderIn",
    "OrderOut",
    "PortfolioOut",
    "PublicRunOut",
    "PublishOut",
    "Quota",
    "RejectedOut",
    "ResultsOut",
    "RunIn",
    "RunOut",
    "RunStateOut",
    "RunsOut",
    "ScenarioOut",
    "ScenariosOut",
    "StepIn",
    "StepOut",
    "TradeIn",
    "TradesIn",
    "TradesOut",
]

ID_PATTERN = r"^[0-9A-Za-z]{1,40}$"
"""What a run or scenario id looks like."""

REF_PATTERN = r"^[0-9A-Za-z._\-]{1,100}$"
"""What a scenario reference looks like: an id, or a name (its latest version)."""

METRIC = Literal["return", "sharpe", "sortino", "max_drawdown", "volatility"]
"""The metrics a leaderboard ranks by."""

_MONEY = "US dollars as an exact decimal string"
_QTY = "units of the symbol as an exact decimal string (up to six decimals)"
_TIME = "ISO 8601, UTC"

IdempotencyKey = Annotated[
    str | None,
    Field(
        default=None,
        min_length=1,
        max_length=255,
        pattern=r"^[\x21-\x7E]+$",
        description="De-duplicates retries for the server's idempotency window ("
        "24 h by default): printable ASCII, no spaces. A retry with the same key "
        "gets the first answer, byte for byte, and does nothing twice.",
    ),
]

RunRef = Annotated[str, Field(pattern=ID_PATTERN, description="The run's id (from create_run).")]
ScenarioRef = Annotated[
    str,
    Field(
        pattern=REF_PATTERN,
        description="A scenario version's id, or a scenario's name (its latest version).",
    ),
]


def _examples(*examples: dict[str, Any]) -> ConfigDict:
    return ConfigDict(json_schema_extra={"examples": list(examples)})


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateRunIn(_In):
    # Rules: S-API-5
    """Start a run in a scenario version (counts one run against the monthly quota)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"scenario": "wk"}]})

    scenario: ScenarioRef


QUANTITY_TEXT: Final = (
    r"^(?:[1-9][0-9]{0,11}(?:\.[0-9]{1,6})?|1000000000000(?:\.0{1,6})?"
    r"|0\.(?:[1-9][0-9]{0,5}|0[1-9][0-9]{0,4}|00[1-9][0-9]{0,3}|000[1-9][0-9]{0,2}"
    r"|0000[1-9][0-9]?|00000[1-9]))$"
)
"""A quantity written as text: a positive decimal, at most 10^12, at most six decimals.

Written plainly (no sign, exponent, spaces or leading zeros), so the
document's pattern is exactly what is read."""
_QUANTITY_TEXT: Final = re.compile(QUANTITY_TEXT)


def _quantity_text(value: object) -> object:
    if isinstance(value, str) and not _QUANTITY_TEXT.match(value):
        raise ValueError(
            'a quantity as text is a plain positive decimal such as "10" or "0.5": '
            "no sign, exponent, spaces or leading zeros, at most six decimals"
        )
    return value


Quantity = Annotated[
    Decimal,
    BeforeValidator(_quantity_text),
    WithJsonSchema(
        {
            "anyOf": [
                # multipleOf is "at most six decimals" for a JSON number
                {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "maximum": 10**12,
                    "multipleOf": 0.000001,
                },
                {"type": "string", "pattern": QUANTITY_TEXT},
            ]
        }
    ),
]
"""An order's quantity, its document equal to what the code reads."""


class OrderIn(_In):
    # Rules: S-API-2
    """One market order, filled at the next bar's open: positive quantity, up to six decimals."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"symbol": "SPY", "side": "buy", "quantity": "10"}]},
    )

    symbol: str = Field(
        pattern=r"^[A-Za-z0-9.\-]{1,20}$", description="One of the scenario's symbols."
    )
    side: Literal["buy", "sell", "short", "cover"] = Field(
        description="buy or sell a long position; short opens or adds to a short "
        "position, cover buys it back (when the scenario allows shorting)."
    )
    quantity: Quantity = Field(
        gt=0,
        le=Decimal(10) ** 12,
        decimal_places=6,
        allow_inf_nan=False,
        description='How many units: a number or a decimal string (10 or "0.5"), '
        "over 0, at most 10^12, at most six decimals.",
    )


class TradesIn(_In):
    """Queue zero or more market orders for the next step."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"orders": [{"symbol": "SPY", "side": "buy", "quantity": "10"}]}]
        },
    )

    orders: list[OrderIn] = Field(
        default_factory=list, max_length=200, description="The orders, filled in this order."
    )
    idempotency_key: IdempotencyKey = None


class StepIn(_In):
    """Advance one bar."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{}]})

    idempotency_key: IdempotencyKey = None


class RunIn(_In):
    """The MCP arguments of a call on one run."""

    run_id: RunRef


class TradeIn(TradesIn):
    """The MCP arguments of ``trade``: the run and the orders to queue."""

    run_id: RunRef


class RunStepIn(RunIn):
    """The MCP arguments of ``step``: the run, and an optional idempotency key."""

    idempotency_key: IdempotencyKey = None


class LeaderboardIn(_In):
    """The arguments of ``leaderboard``: a scenario and the metric to rank by."""

    scenario: ScenarioRef
    metric: METRIC = Field(
        default="return", description="What to rank by (return, drawdown, volatility: fractions)."
    )


class NoArgs(_In):
    """A tool that takes no arguments."""


# -- responses ---------------------------------------------------------------------------


class Quota(BaseModel):
    # Rules: S-SVC-5
    """Runs used this UTC month, the limit, and when it resets."""

    used: int = Field(description="Runs started this UTC calendar month, this one included.")
    limit: int = Field(description="Runs allowed per UTC calendar month for the account's tier.")
    resets_at: str = Field(description=f"When the count starts again ({_TIME}).")


class ScenarioOut(BaseModel):
    """One immutable scenario version: its symbols, period and trading terms."""

    model_config = _examples(
        {
            "id": "01J9Z7Q4C8M2",
            "name": "wk",
            "version": 1,
            "symbols": ["SPY", "TSLA"],
            "start": "2024-01-02T00:00:00Z",
            "end": "2025-01-01T00:00:00Z",
            "bars": 251,
            "leverage_cap": 2,
            "shorting": True,
            "cash": "100000",
            "slippage_bps": {"0": 5},
            "market": "us-equities daily",
            "synthetic": False,
            "content_hash": "9f2c…",
            "created_at": "2026-03-01T12:00:00Z",
        }
    )

    id: str = Field(description="The version's id (what runs are pinned to).")
    name: str = Field(description="The scenario's name; it names its latest version too.")
    version: int = Field(description="The version number under the name, from 1.")
    symbols: list[str] = Field(description="The symbols that can be traded.")
    start: str = Field(description=f"The first bar's time ({_TIME}).")
    end: str = Field(description=f"The end of the period, exclusive ({_TIME}).")
    bars: int = Field(description="How many bars (steps) the scenario holds.")
    leverage_cap: int = Field(description="Gross notional may be at most equity times this.")
    shorting: bool = Field(description="Whether short and cover orders are allowed.")
    cash: str = Field(description=f"Starting cash ({_MONEY}).")
    slippage_bps: dict[str, int] = Field(
        description="Slippage in basis points (1/100 of a percent) by notional tier in dollars."
    )
    market: str = Field(description="Where the bars come from.")
    synthetic: bool = Field(description="True when the bars are generated, not real history.")
    content_hash: str = Field(description="SHA-256 of the version's bars and terms.")
    created_at: str = Field(description=f"When the version was provisioned ({_TIME}).")


class ScenariosOut(BaseModel):
    """Every scenario version you can run, by name then version."""

    model_config = _examples({"scenarios": [ScenarioOut.model_json_schema()["examples"][0]]})

    scenarios: list[ScenarioOut] = Field(description="The scenario versions.")


class RunOut(BaseModel):
    """A newly created run, at bar 0, and the quota it counted against."""

    model_config = _examples(
        {
            "id": "01J9Z8A1B2C3",
            "scenario_id": "01J9Z7Q4C8M2",
            "status": "active",
            "index": 0,
            "last_index": 250,
            "created_at": "2026-03-10T12:00:00Z",
            "quota": {"used": 1, "limit": 25, "resets_at": "2026-04-01T00:00:00Z"},
        }
    )

    id: str = Field(description="The run's id: every later call names it.")
    scenario_id: str = Field(description="The scenario version the run is pinned to.")
    status: str = Field(description="active, complete or abandoned.")
    index: int = Field(description="The current bar, from 0.")
    last_index: int = Field(description="The last bar; the run is done when index reaches it.")
    created_at: str = Field(description=f"When the run was created ({_TIME}).")
    quota: Quota


class OrderOut(BaseModel):
    """A queued order."""

    symbol: str = Field(description="The symbol.")
    side: str = Field(description="buy, sell, short or cover.")
    quantity: str = Field(description=f"The quantity ({_QTY}).")


class RunStateOut(BaseModel):
    """One of your runs: its scenario, status, bar and queued orders."""

    model_config = _examples(
        {
            "id": "01J9Z8A1B2C3",
            "scenario_id": "01J9Z7Q4C8M2",
            "scenario_name": "wk",
            "status": "active",
            "index": 3,
            "last_index": 250,
            "done": False,
            "queued": [{"symbol": "SPY", "side": "buy", "quantity": "10"}],
            "created_at": "2026-03-10T12:00:00Z",
        }
    )

    id: str = Field(description="The run's id.")
    scenario_id: str = Field(description="The scenario version it is pinned to.")
    scenario_name: str = Field(description="That scenario's name.")
    status: str = Field(description="active, complete or abandoned.")
    index: int = Field(description="The current bar, from 0.")
    last_index: int = Field(description="The last bar.")
    done: bool = Field(description="True once the last bar is reached (or on liquidation).")
    queued: list[OrderOut] = Field(description="Orders waiting for the next step, in order.")
    created_at: str = Field(description=f"When the run was created ({_TIME}).")


class RunsOut(BaseModel):
    """Your runs, oldest first."""

    model_config = _examples({"runs": [RunStateOut.model_json_schema()["examples"][0]]})

    runs: list[RunStateOut] = Field(description="Every run of your account, oldest first.")


class BarOut(BaseModel):
    """One bar of one symbol."""

    timestamp: str = Field(description=f"The bar's open time ({_TIME}).")
    open: str = Field(description=f"Opening price ({_MONEY}).")
    high: str = Field(description=f"Highest price ({_MONEY}).")
    low: str = Field(description=f"Lowest price ({_MONEY}).")
    close: str = Field(description=f"Closing price ({_MONEY}).")
    volume: str = Field(description="Volume traded, units as an exact decimal string.")


class PortfolioOut(BaseModel):
    """Cash, positions and what they are worth at the current bar's close."""

    cash: str = Field(description=f"Cash ({_MONEY}); negative when borrowing.")
    positions: dict[str, str] = Field(
        description=f"Quantity held per symbol ({_QTY}); negative is short."
    )
    equity: str = Field(description=f"Cash plus positions at the close ({_MONEY}).")
    notional: str = Field(description=f"Gross value of the positions at the close ({_MONEY}).")


_BAR = {
    "timestamp": "2024-01-05T00:00:00Z",
    "open": "470.2",
    "high": "473.1",
    "low": "468.9",
    "close": "472.65",
    "volume": "81234000",
}


class MarketOut(BaseModel):
    # Rules: S-API-1
    """What the agent sees at its current bar: bars, recent history, portfolio, queue."""

    model_config = _examples(
        {
            "run_id": "01J9Z8A1B2C3",
            "status": "active",
            "index": 3,
            "last_index": 250,
            "timestamp": "2024-01-05T00:00:00Z",
            "done": False,
            "liquidated": False,
            "at_risk": False,
            "bars": {"SPY": _BAR},
            "history": {"SPY": [_BAR]},
            "portfolio": {
                "cash": "95273.5",
                "positions": {"SPY": "10"},
                "equity": "100000",
                "notional": "4726.5",
            },
            "queued": [],
            "leverage_cap": 2,
            "shorting": True,
        }
    )

    run_id: str = Field(description="The run's id.")
    status: str = Field(description="active, complete or abandoned.")
    index: int = Field(description="The current bar, from 0.")
    last_index: int = Field(description="The last bar.")
    timestamp: str = Field(description=f"The current bar's open time ({_TIME}).")
    done: bool = Field(description="True once the run has ended.")
    liquidated: bool = Field(description="True if the run was liquidated (equity gone).")
    at_risk: bool = Field(
        description="True if the positions already exceed the leverage cap at this close."
    )
    bars: dict[str, BarOut] = Field(description="The current bar of each symbol.")
    history: dict[str, list[BarOut]] = Field(
        description="Each symbol's recent bars, oldest first, ending with the current one "
        "(at most the scenario's history length, 20 bars by default)."
    )
    portfolio: PortfolioOut
    queued: list[OrderOut] = Field(description="Orders waiting for the next step.")
    leverage_cap: int = Field(description="Gross notional may be at most equity times this.")
    shorting: bool = Field(description="Whether short and cover orders are allowed.")


class TradesOut(BaseModel):
    """The queue after the orders were added."""

    model_config = _examples(
        {
            "run_id": "01J9Z8A1B2C3",
            "index": 3,
            "accepted": 1,
            "queued": [{"symbol": "SPY", "side": "buy", "quantity": "10"}],
            "note": "Queued orders fill at the next bar's open; the leverage cap is checked …",
        }
    )

    run_id: str = Field(description="The run's id.")
    index: int = Field(description="The current bar; the orders fill at the next bar's open.")
    accepted: int = Field(description="How many orders this call queued.")
    queued: list[OrderOut] = Field(description="Every order now waiting, in fill order.")
    note: str = Field(description="Which checks wait for the step (the leverage cap).")


class CancelOut(BaseModel):
    """The order cancelled and the queue left."""

    model_config = _examples(
        {
            "run_id": "01J9Z8A1B2C3",
            "index": 3,
            "cancelled": {"symbol": "SPY", "side": "buy", "quantity": "10"},
            "queued": [],
        }
    )

    run_id: str = Field(description="The run's id.")
    index: int = Field(description="The current bar.")
    cancelled: OrderOut
    queued: list[OrderOut] = Field(description="The orders still waiting.")


class FillOut(BaseModel):
    # Rules: S-FIL-1, S-FIL-2
    """A fill at the next bar's open plus slippage."""

    symbol: str = Field(description="The symbol.")
    side: str = Field(description="buy, sell, short or cover.")
    quantity: str = Field(description=f"The quantity filled ({_QTY}).")
    price: str = Field(description=f"The fill price, slippage included ({_MONEY}).")
    value: str = Field(description=f"quantity times price ({_MONEY}).")


class RejectedOut(OrderOut):
    # Rules: S-FIL-3
    """An order that did not fill, with a reason code."""

    reason: str = Field(description="A stable reason code (leverage_exceeded, ...).")
    detail: str = Field(description="One sentence: why, and what would have passed.")


class StepOut(BaseModel):
    # Rules: S-API-3
    """What one step did: the fills at the new bar's open, and equity at its close."""

    model_config = _examples(
        {
            "run_id": "01J9Z8A1B2C3",
            "index": 4,
            "timestamp": "2024-01-08T00:00:00Z",
            "fills": [
                {
                    "symbol": "SPY",
                    "side": "buy",
                    "quantity": "10",
                    "price": "472.886",
                    "value": "4728.86",
                }
            ],
            "rejected": [],
            "cash": "95271.14",
            "equity": "100012.4",
            "liquidated": False,
            "at_risk": False,
            "done": False,
        }
    )

    run_id: str = Field(description="The run's id.")
    index: int = Field(description="The new current bar.")
    timestamp: str = Field(description=f"The new bar's open time ({_TIME}).")
    fills: list[FillOut] = Field(description="The queued orders that filled.")
    rejected: list[RejectedOut] = Field(description="The queued orders that did not fill.")
    cash: str = Field(description=f"Cash after the fills ({_MONEY}).")
    equity: str = Field(description=f"Equity at the new bar's close ({_MONEY}).")
    liquidated: bool = Field(description="True if the step liquidated the run.")
    at_risk: bool = Field(description="True if the positions exceed the leverage cap now.")
    done: bool = Field(description="True when the run has ended: fetch results next.")


class ResultsOut(BaseModel):
    # Rules: S-API-4, S-SCO-1
    """A completed run's metrics: returns and drawdowns are fractions of one (0.05 is 5%)."""

    model_config = ConfigDict(
        populate_by_name=True,
        json_schema_extra={
            "examples": [
                {
                    "run_id": "01J9Z8A1B2C3",
                    "scenario_id": "01J9Z7Q4C8M2",
                    "status": "complete",
                    "return": 0.0412,
                    "sharpe": 1.31,
                    "sortino": 1.9,
                    "max_drawdown": 0.052,
                    "volatility": 0.11,
                    "final_equity": "104120",
                    "starting_cash": "100000",
                    "liquidated": False,
                    "steps": 250,
                }
            ]
        },
    )

    run_id: str = Field(description="The run's id.")
    scenario_id: str = Field(description="The scenario version.")
    status: str = Field(description="complete.")
    return_: float = Field(alias="return", description="Total return, a fraction (0.05 is 5%).")
    sharpe: float | None = Field(description="Annualised Sharpe ratio; null if undefined.")
    sortino: float | None = Field(description="Annualised Sortino ratio; null if undefined.")
    max_drawdown: float = Field(description="Largest peak-to-trough fall, a fraction.")
    volatility: float | None = Field(description="Annualised volatility, a fraction.")
    final_equity: str = Field(description=f"Equity at the end ({_MONEY}).")
    starting_cash: str = Field(description=f"Cash at the start ({_MONEY}).")
    liquidated: bool = Field(description="True if the run ended in liquidation.")
    steps: int = Field(description="How many steps the run took.")


class PublishOut(BaseModel):
    """A run published to its scenario's public leaderboard."""

    model_config = _examples(
        {"run_id": "01J9Z8A1B2C3", "published": True, "published_at": "2026-03-10T12:30:00Z"}
    )

    run_id: str = Field(description="The run's id.")
    published: bool = Field(description="Always true.")
    published_at: str = Field(description=f"When it was first published ({_TIME}).")


class EquityPointOut(BaseModel):
    """A run's equity at one bar's close, USD as decimal text."""

    bar_time: str = Field(description=f"The bar's time ({_TIME}).")
    equity: str = Field(description=f"Equity at that close ({_MONEY}).")


class PublicRunOut(ResultsOut):
    """A published run: its metrics, equity path and fills, all from its record."""

    model_config = ConfigDict(
        populate_by_name=True,
        json_schema_extra={
            "examples": [
                {
                    **ResultsOut.model_json_schema()["examples"][0],
                    "account": "builder",
                    "published_at": "2026-03-10T12:30:00Z",
                    "trades": 1,
                    "equity": [{"bar_time": "2024-01-02T00:00:00.000000Z", "equity": "100000"}],
                    "fills": [],
                }
            ]
        },
    )

    account: str = Field(description="The account that ran it.")
    published_at: str = Field(description=f"When it was published ({_TIME}).")
    trades: int = Field(description="How many fills the run had.")
    equity: list[EquityPointOut] = Field(description="Equity at each bar's close, in order.")
    fills: list[dict[str, Any]] = Field(
        description="Each recorded fill: its bar (index, bar_time), whether it was forced "
        "(a liquidation), and the fill's fields with money and quantities as decimal strings."
    )
    benchmark: str | None = Field(
        default=None, description="The buy-and-hold symbol beta and alpha are measured against."
    )
    alpha: dict[str, Any] | None = Field(
        default=None,
        description="Beta against the benchmark and the alpha left per step and annualised "
        "(fractions of one), with their 95% block-bootstrap intervals; null when too few steps.",
    )
    scatter: list[dict[str, float]] = Field(
        default_factory=list,
        description="Each step's return of the run (agent) against the benchmark's, fractions.",
    )


class LeaderboardEntryOut(BaseModel):
    # Rules: S-SCO-2
    """One published run on a leaderboard."""

    rank: int | None = Field(description="1 is best; ties share a rank; null when unranked.")
    run_id: str = Field(description="The run's id.")
    account: str = Field(description="The account that ran it.")
    value: float | None = Field(description="The ranking metric's value (fractions for returns).")
    final_equity: str = Field(description=f"Equity at the end ({_MONEY}).")
    return_: float = Field(alias="return", description="Total return, a fraction.")
    max_drawdown: float = Field(description="Largest fall, a fraction.")
    liquidated: bool = Field(description="True if the run was liquidated.")
    steps: int = Field(description="Steps taken.")
    trades: int = Field(description="Fills recorded.")
    vs_cash: dict[str, Any] = Field(
        description="The run against holding cash: verdict, p_value (decimal string), steps."
    )
    vs_buy_and_hold: dict[str, Any] = Field(
        description="The run against buying and holding the scenario's symbols: same fields."
    )
    alpha: dict[str, Any] | None = Field(
        default=None,
        description="Beta and alpha against the benchmark with their 95% intervals (fractions).",
    )
    unranked_reason: str | None = Field(
        default=None, description="Why the run is listed after the ranked ones (a code), or null."
    )
    unranked_text: str | None = Field(
        default=None, description="The same reason in words, or null."
    )

    model_config = ConfigDict(populate_by_name=True)


class LeaderboardOut(BaseModel):
    # Rules: S-SCO-2
    """A scenario's published runs ranked by a metric, with the luck test beside them."""

    model_config = _examples(
        {
            "scenario": ScenarioOut.model_json_schema()["examples"][0],
            "metric": "return",
            "entries": [],
            "significance": {"test": "…", "luckiest_of_n": None},
            "baseline_cloud": None,
            "race": {"unit": "USD", "start": "100000", "leader": None, "lines": []},
            "story": "No run is ranked yet.",
        }
    )

    scenario: ScenarioOut
    metric: str = Field(description="The metric ranked by.")
    entries: list[LeaderboardEntryOut] = Field(description="The runs, best first.")
    significance: dict[str, Any] = Field(
        description="The stated test and the luckiest-of-N line: the expected best return "
        "of N no-skill agents (N the published runs), returns as decimal strings."
    )
    baseline_cloud: dict[str, Any] | None = Field(
        description="No-skill agents' final returns (quantiles, bins) with each run placed "
        "in it; null with no published run."
    )
    race: RaceOut = Field(
        description="Every published run's equity step by step, the leader named."
    )
    story: str = Field(description=STORY_DESCRIPTION)


class BoardScenarioOut(ScenarioOut):
    """A scenario version and how many published runs it has."""

    published_runs: int = Field(description="Published runs on its leaderboard.")


class BoardScenariosOut(BaseModel):
    """The scenarios and their published runs, with the metrics a board can rank by."""

    model_config = _examples(
        {
            "metrics": ["return", "sharpe", "sortino", "max_drawdown", "volatility"],
            "scenarios": [{**ScenarioOut.model_json_schema()["examples"][0], "published_runs": 3}],
        }
    )

    metrics: list[str] = Field(description="The metrics a leaderboard ranks by.")
    scenarios: list[BoardScenarioOut] = Field(description="Every scenario version.")


class ChangelogOut(BaseModel):
    # Rules: C-3
    """Every scenario version, dated, with what changed."""

    model_config = _examples(
        {"changes": [{"date": "2026-03-01", "change": "Scenario wk version 1 published: …"}]}
    )

    changes: list[ChangeOut] = Field(description="The changes, oldest first.")
