"""Request and response bodies of the scenario benchmark's REST API (what ``/docs`` shows).

Requests reject unknown fields. Money and quantities in responses are exact
decimal strings; metrics are numbers (fractions of one).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ID_PATTERN",
    "CreateRunIn",
    "EquityPointOut",
    "OrderIn",
    "PublicRunOut",
    "ResultsOut",
    "RunOut",
    "StepIn",
    "StepOut",
    "TradesIn",
    "TradesOut",
]

ID_PATTERN = r"^[0-9A-Za-z]{1,40}$"
"""What a run or scenario id looks like."""

IdempotencyKey = Annotated[
    str | None,
    Field(
        default=None,
        min_length=1,
        max_length=255,
        pattern=r"^[\x21-\x7E]+$",
        description="De-duplicates retries for the server's idempotency window ("
        "24 h by default): printable ASCII, no spaces.",
    ),
]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateRunIn(_In):
    # Rules: S-API-5
    """Start a run in a scenario version."""

    scenario: str = Field(
        pattern=r"^[0-9A-Za-z._\-]{1,100}$",
        description="The scenario version's id, or a scenario's name for its latest version.",
    )


class OrderIn(_In):
    # Rules: S-API-2
    """One market order: positive quantity, up to six decimals."""

    symbol: str = Field(pattern=r"^[A-Za-z0-9.\-]{1,20}$")
    side: Literal["buy", "sell", "short", "cover"]
    quantity: Decimal = Field(gt=0, le=Decimal(10) ** 12, decimal_places=6)


class TradesIn(_In):
    """Queue zero or more market orders for the next step."""

    orders: list[OrderIn] = Field(default_factory=list, max_length=200)
    idempotency_key: IdempotencyKey = None


class StepIn(_In):
    """Advance one bar."""

    idempotency_key: IdempotencyKey = None


class Quota(BaseModel):
    # Rules: S-SVC-5
    """Runs used this UTC month, the limit, and when it resets."""

    used: int
    limit: int
    resets_at: str


class RunOut(BaseModel):
    """A newly created run."""

    id: str
    scenario_id: str
    status: str
    index: int
    last_index: int
    created_at: str
    quota: Quota


class OrderOut(BaseModel):
    """A queued order."""

    symbol: str
    side: str
    quantity: str


class TradesOut(BaseModel):
    """The queue after the orders were added."""

    run_id: str
    index: int
    accepted: int
    queued: list[OrderOut]


class FillOut(BaseModel):
    # Rules: S-FIL-1, S-FIL-2
    """A fill at the next bar's open plus slippage."""

    symbol: str
    side: str
    quantity: str
    price: str
    value: str


class RejectedOut(OrderOut):
    # Rules: S-FIL-3
    """An order that did not fill, with a reason code."""

    reason: str
    detail: str


class StepOut(BaseModel):
    # Rules: S-API-3
    """What one step did."""

    run_id: str
    index: int
    timestamp: str
    fills: list[FillOut]
    rejected: list[RejectedOut]
    cash: str
    equity: str
    liquidated: bool
    at_risk: bool
    done: bool


class ResultsOut(BaseModel):
    # Rules: S-API-4, S-SCO-1
    """A completed run's metrics, fractions of one."""

    run_id: str
    scenario_id: str
    status: str
    return_: float = Field(alias="return")
    sharpe: float | None
    sortino: float | None
    max_drawdown: float
    volatility: float | None
    final_equity: str
    starting_cash: str
    liquidated: bool
    steps: int


class EquityPointOut(BaseModel):
    """A run's equity at one bar's close, USD as decimal text."""

    bar_time: str
    equity: str


class PublicRunOut(ResultsOut):
    """A published run: its metrics, equity path and fills, all from its record."""

    account: str
    published_at: str
    trades: int
    equity: list[EquityPointOut]
    fills: list[dict[str, object]]
