"""The run: a pure state machine stepping one portfolio through frozen bars.

The agent sees bar ``i`` whole (it has closed) and queues market orders
(S-API-2). `step` moves to bar ``i + 1``:

1. If at the start of bar ``i + 1`` (valued at bar ``i``'s closes, the last
   prices known) equity < notional / (2 x cap), every position is force-closed
   at bar ``i + 1``'s open, queued orders are rejected with ``liquidated``, and
   the run ends with ``liquidated = true`` (S-LIQ-1).
2. Otherwise the queued orders fill in order at bar ``i + 1``'s open plus
   slippage, each whole or rejected with a reason (S-FIL-1..5), through the
   shared engine (`tradeleague.sim.execute_orders`).
3. Equity is valued at bar ``i + 1``'s close and reported (S-SCO-1). The run
   is done at the last bar.

The equity path (the starting cash, then each step's equity) is not part of
the state: whoever runs the steps appends each report's equity to it (the
service keeps one row a step), so a step costs the same at bar 5 as at bar
5,000.

Every state is an immutable value; the lifecycle of a run (`RunStatus`) has
one explicit transition table.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from tradeleague.formats.scenario.bars import ScenarioBars
from tradeleague.formats.scenario.config import ScenarioConfig
from tradeleague.money import Qty, Usd
from tradeleague.sim import (
    Fill,
    Order,
    OrderRules,
    Portfolio,
    Side,
    execute_orders,
    liquidate,
    needs_liquidation,
)

__all__ = [
    "LIQUIDATED_REASON",
    "TRANSITIONS",
    "OrderRefused",
    "RunState",
    "RunStatus",
    "StepRejection",
    "StepReport",
    "can_transition",
    "queue_orders",
    "start_run",
    "step",
]

LIQUIDATED_REASON: Final = "liquidated"
"""The rejection code of orders that a forced liquidation pre-empted (S-LIQ-1)."""


class RunStatus(enum.StrEnum):
    """Where a run is in its life."""

    ACTIVE = "active"
    COMPLETE = "complete"
    ABANDONED = "abandoned"


TRANSITIONS: Final[Mapping[RunStatus, frozenset[RunStatus]]] = {
    RunStatus.ACTIVE: frozenset({RunStatus.COMPLETE, RunStatus.ABANDONED}),
    RunStatus.COMPLETE: frozenset(),
    RunStatus.ABANDONED: frozenset(),
}
"""The only moves a run's status may make (S-SVC-3: abandoned is final)."""


def can_transition(before: RunStatus, after: RunStatus) -> bool:
    """Return whether a run may go from ``before`` to ``after``."""
    return after in TRANSITIONS[before]


@dataclass(frozen=True, slots=True)
class StepRejection:
    """An order that did not fill, with a code the agent reads and a sentence."""

    order: Order
    reason: str
    detail: str


@dataclass(frozen=True, slots=True)
class StepReport:
    """What one step did.

    Attributes
    ----------
    index
        The bar the run is now on.
    fills
        Fills at that bar's open, in order (the forced closes when liquidated).
    rejected
        Orders that did not fill.
    equity
        Equity at that bar's close (after a liquidation: its cash).
    liquidated
        Whether this step force-closed the account (S-LIQ-1).
    at_risk
        Whether the account will be liquidated at the next step unless it
        de-risks (equity < notional / (2 x cap) at this bar's close).
    done
        Whether the run is over.
    """

    index: int
    fills: tuple[Fill, ...]
    rejected: tuple[StepRejection, ...]
    equity: Usd
    liquidated: bool
    at_risk: bool
    done: bool


@dataclass(frozen=True, slots=True)
class RunState:
    """A run between steps.

    Attributes
    ----------
    index
        The bar the agent sees (orders fill at the next one).
    portfolio
        Cash and positions.
    queued
        Orders waiting for the next step, in the order given.
    liquidated
        Whether the account was force-closed (S-LIQ-1).
    done
        Whether the run is over (last bar reached, or liquidated).
    """

    index: int
    portfolio: Portfolio
    queued: tuple[Order, ...]
    liquidated: bool = False
    done: bool = False

    def to_json(self) -> str:
        """Return the canonical JSON text of the state (for storage)."""
        return json.dumps(
            {
                "index": self.index,
                "portfolio": self.portfolio.state(),
                "queued": [[o.symbol, o.side.value, str(o.qty)] for o in self.queued],
                "liquidated": self.liquidated,
                "done": self.done,
            },
            sort_keys=True,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> RunState:
        """Rebuild a state from `to_json` output."""
        raw = json.loads(text)
        return cls(
            index=int(raw["index"]),
            portfolio=Portfolio.from_state(raw["portfolio"]),
            queued=tuple(Order(s, Side(side), Qty(int(q))) for s, side, q in raw["queued"]),
            liquidated=bool(raw["liquidated"]),
            done=bool(raw["done"]),
        )


def start_run(config: ScenarioConfig) -> RunState:
    """Return a fresh run on bar 0 with the scenario's starting cash (its equity at bar 0)."""
    return RunState(0, Portfolio.open(config.cash), ())


class OrderRefused(ValueError):
    """An order refused when it is placed, because it could not fill at the next step.

    ``position`` is its place among the orders placed together (from 0) and
    ``reason`` the code the step would have rejected it with
    (``exceeds_position``, ``shorting_disabled``, ``unknown_symbol``).
    """

    def __init__(self, position: int, reason: str, detail: str) -> None:
        super().__init__(f"order {position}: {detail}")
        self.position = position
        self.reason = reason
        self.detail = detail


def _most_held(state: RunState, before: Iterable[Order], symbol: str) -> tuple[int, int]:
    """Return the most ``symbol`` that could be long and short once ``before`` has filled.

    Every earlier buy (short) is counted as filled and no earlier sell (cover):
    the most an order could find at the step, whatever the fills before it.
    """
    held = state.portfolio.positions.get(symbol, 0)
    long, short = max(held, 0), max(-held, 0)
    for order in before:
        if order.symbol == symbol:
            if order.side is Side.BUY:
                long += order.qty
            elif order.side is Side.SHORT:
                short += order.qty
    return long, short


def _qty_text(micros: int) -> str:
    whole, frac = divmod(micros, 1_000_000)
    return f"{whole}.{frac:06d}".rstrip("0").rstrip(".")


def queue_orders(
    state: RunState, orders: Iterable[Order], config: ScenarioConfig, *, max_queued: int
) -> RunState:
    """Return the state with ``orders`` appended to the queue (S-API-2).

    ``max_queued`` is the preset's bound on the orders waiting for one step
    (`ServicePreset.max_queued`).

    An order that could not fill at the next step whatever happens before it
    is refused now (issue 29): a symbol outside the scenario, a short where
    shorting is off (S-FIL-4), a sell or cover of more than could be held then
    (the position now plus every earlier queued buy or short). What depends
    on the next open (the leverage cap, S-FIL-5) or on earlier orders filling
    waits for the step, which may still reject it (S-FIL-3).

    Raises
    ------
    OrderRefused
        For an order that cannot fill (its place and reason code).
    ValueError
        If the run is over, an order has a non-positive quantity, or the
        queue would exceed ``max_queued``.
    """
    if state.done:
        raise ValueError("the run is over; no more orders")
    new = tuple(orders)
    universe = set(config.symbols)
    for i, order in enumerate(new):
        if order.symbol not in universe:
            raise OrderRefused(
                i,
                "unknown_symbol",
                f"{order.symbol!r} is not in this scenario; it trades {', '.join(config.symbols)}",
            )
        if order.qty <= 0:
            raise ValueError(f"{order.symbol}: quantity must be positive")
        said = f"{order.side.value} {_qty_text(order.qty)} {order.symbol}"
        if order.side is Side.SHORT and not config.allow_short:
            raise OrderRefused(
                i, "shorting_disabled", f"{said}: this scenario does not allow shorting"
            )
        if order.side in (Side.SELL, Side.COVER):
            long, short = _most_held(state, state.queued + new[:i], order.symbol)
            most = long if order.side is Side.SELL else short
            if order.qty > most:
                what = "long" if order.side is Side.SELL else "short"
                fix = (
                    f"there is nothing to {order.side.value}"
                    if most == 0
                    else f"order at most {_qty_text(most)}"
                )
                raise OrderRefused(
                    i,
                    "exceeds_position",
                    f"{said}: at most {_qty_text(most)} could be held {what} at the next step "
                    f"(the position now plus the buys and shorts queued before it), so {fix}",
                )
    if len(state.queued) + len(new) > max_queued:
        raise ValueError(f"at most {max_queued} orders may wait for one step")
    return RunState(state.index, state.portfolio, state.queued + new, state.liquidated, state.done)


def step(
    state: RunState,
    bars: ScenarioBars,
    config: ScenarioConfig,
    *,
    rules: OrderRules | None = None,
) -> tuple[RunState, StepReport]:
    """Advance one bar: liquidate or fill the queue at the next open, then value (module doc).

    ``rules`` are ``config.order_rules()``, for a caller that keeps them
    between steps rather than building them again for each.

    Raises
    ------
    ValueError
        If the run is already over.
    """
    if state.done:
        raise ValueError("the run is over; it cannot step")
    cap = config.leverage_cap
    if rules is None:
        rules = config.order_rules()
    here, nxt = state.index, state.index + 1
    opens = bars.opens(nxt)
    closes = bars.closes(nxt)
    portfolio = state.portfolio
    if needs_liquidation(portfolio, bars.closes(here), cap):
        forced = liquidate(portfolio, opens, rules)
        portfolio, fills = forced.portfolio, forced.fills
        rejected = tuple(
            StepRejection(o, LIQUIDATED_REASON, "the account was liquidated (S-LIQ-1)")
            for o in state.queued
        )
        liquidated, done = True, True
    else:
        portfolio, fills, rejections = execute_orders(portfolio, state.queued, opens, rules)
        rejected = tuple(StepRejection(r.order, r.reason.value, r.detail) for r in rejections)
        liquidated, done = False, nxt == bars.last
    equity = portfolio.equity(closes)
    at_risk = not done and needs_liquidation(portfolio, closes, cap)
    after = RunState(nxt, portfolio, (), liquidated, done)
    return after, StepReport(nxt, fills, rejected, equity, liquidated, at_risk, done)
