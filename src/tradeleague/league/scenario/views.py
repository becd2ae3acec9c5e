"""JSON views of scenarios, runs, steps and results (exact decimals as strings).

Money and quantities are exact decimal strings (``"199.405"``), never floats;
metrics are floats (statistics, S-SCO-1); times are ISO 8601 UTC.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from typing import Final

from tradeleague.events import utc_iso
from tradeleague.formats.scenario import (
    OHLCV,
    RunState,
    ScenarioBars,
    ScenarioConfig,
    ScenarioResults,
    StepReport,
)
from tradeleague.money import MICRO
from tradeleague.sim import Order, needs_liquidation

__all__ = [
    "BAR_VIEWS_KEPT",
    "BarViews",
    "decimal_text",
    "market_view",
    "order_view",
    "results_view",
    "scenario_view",
    "step_view",
]


def decimal_text(micros: int) -> str:
    """Return micro-units as the shortest exact decimal text (``1500000`` -> ``"1.5"``)."""
    value = (Decimal(micros) / MICRO).normalize()
    return format(value, "f")


def _iso(moment: datetime) -> str:
    return utc_iso(moment).replace(".000000Z", "Z")


def order_view(order: Order) -> dict[str, object]:
    """Return an order as JSON."""
    return {"symbol": order.symbol, "side": order.side.value, "quantity": decimal_text(order.qty)}


def scenario_view(
    scenario_id: str,
    version: int,
    config: ScenarioConfig,
    content_hash: str,
    bars: int,
    created_at: datetime,
) -> dict[str, object]:
    """Return a scenario version as JSON."""
    return {
        "id": scenario_id,
        "name": config.name,
        "version": version,
        "symbols": list(config.symbols),
        "start": _iso(config.start),
        "end": _iso(config.end),
        "bars": bars,
        "leverage_cap": config.leverage_cap,
        "shorting": config.allow_short,
        "cash": decimal_text(config.cash),
        "slippage_bps": dict(config.slippage_bps),
        "market": config.market,
        "synthetic": config.synthetic,
        "content_hash": content_hash,
        "created_at": _iso(created_at),
    }


BAR_VIEWS_KEPT: Final = 100_000
"""The most bar views one scenario keeps (tens of MB at most; every bar, at usual sizes)."""


class BarViews:
    """One scenario's bars as the views show them, each bar's text built once.

    The bars never change (S-SCN-2), so a bar's time and prices are formatted
    the first time a view shows them and reused by every later step and market
    read of every run of the scenario. Safe across threads: two threads that
    build the same entry at once build equal values.

    Parameters
    ----------
    bars
        The scenario's frozen bars.
    """

    __slots__ = ("_bars", "_event_times", "_times", "bars")

    def __init__(self, bars: ScenarioBars) -> None:
        self.bars = bars
        self._event_times: dict[int, str] = {}
        self._times: dict[int, str] = {}
        self._bars: dict[tuple[str, int], dict[str, object]] = {}

    def event_time(self, index: int) -> str:
        """Return bar ``index``'s open time as events record it (``...T00:00:00.000000Z``)."""
        text = self._event_times.get(index)
        if text is None:
            text = self._event_times[index] = utc_iso(self.bars.timestamp(index))
        return text

    def time(self, index: int) -> str:
        """Return bar ``index``'s open time as the views show it (``...T00:00:00Z``)."""
        text = self._times.get(index)
        if text is None:
            text = self._times[index] = self.event_time(index).replace(".000000Z", "Z")
        return text

    def bar(self, symbol: str, index: int) -> dict[str, object]:
        """Return one bar's view: its time and OHLCV as exact decimal text (a fresh dict)."""
        view = self._bars.get((symbol, index))
        if view is None:
            values = self.bars.bar(symbol, index)
            view = {"timestamp": self.time(index)}
            view.update({f: decimal_text(values[f]) for f in OHLCV})
            if len(self._bars) >= BAR_VIEWS_KEPT:
                self._bars.clear()
            self._bars[(symbol, index)] = view
        return dict(view)


def market_view(
    run_id: str,
    status: str,
    state: RunState,
    views: BarViews,
    config: ScenarioConfig,
) -> dict[str, object]:
    """Return what the agent sees on its current bar (S-API-1)."""
    bars = views.bars
    i = state.index
    closes = bars.closes(i)
    portfolio = state.portfolio
    first = max(0, i - config.history + 1)
    at_risk = not state.done and needs_liquidation(portfolio, closes, config.leverage_cap)
    return {
        "run_id": run_id,
        "status": status,
        "index": i,
        "last_index": bars.last,
        "timestamp": views.time(i),
        "done": state.done,
        "liquidated": state.liquidated,
        "at_risk": at_risk,
        "bars": {s: views.bar(s, i) for s in bars.symbols},
        "history": {s: [views.bar(s, k) for k in range(first, i + 1)] for s in bars.symbols},
        "portfolio": {
            "cash": decimal_text(portfolio.cash),
            "positions": {s: decimal_text(q) for s, q in sorted(portfolio.positions.items())},
            "equity": decimal_text(portfolio.equity(closes)),
            "notional": decimal_text(portfolio.notional(closes)),
        },
        "queued": [order_view(o) for o in state.queued],
        "leverage_cap": config.leverage_cap,
        "shorting": config.allow_short,
    }


def step_view(
    run_id: str, report: StepReport, state: RunState, views: BarViews
) -> dict[str, object]:
    """Return what one step did (S-API-3)."""
    return {
        "run_id": run_id,
        "index": report.index,
        "timestamp": views.time(report.index),
        "fills": [
            {
                "symbol": f.symbol,
                "side": f.side.value,
                "quantity": decimal_text(f.qty),
                "price": decimal_text(f.price),
                "value": decimal_text(f.value),
            }
            for f in report.fills
        ],
        "rejected": [
            {**order_view(r.order), "reason": r.reason, "detail": r.detail} for r in report.rejected
        ],
        "cash": decimal_text(state.portfolio.cash),
        "equity": decimal_text(report.equity),
        "liquidated": report.liquidated,
        "at_risk": report.at_risk,
        "done": report.done,
    }


def results_view(
    run_id: str,
    scenario_id: str,
    status: str,
    results: ScenarioResults,
    extra: Mapping[str, object] | None = None,
) -> dict[str, object]:
    """Return a finished run's metrics (S-API-4): fractions of one, floats."""
    out: dict[str, object] = {
        "run_id": run_id,
        "scenario_id": scenario_id,
        "status": status,
        "return": float(results.total_return),
        "sharpe": results.sharpe,
        "sortino": results.sortino,
        "max_drawdown": float(results.max_drawdown),
        "volatility": results.volatility,
        "final_equity": decimal_text(results.final_equity),
        "starting_cash": decimal_text(results.starting_cash),
        "liquidated": results.liquidated,
        "steps": results.steps,
    }
    out.update(extra or {})
    return out
