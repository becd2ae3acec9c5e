"""What each operation of the scenario benchmark does, said once for REST and MCP.

The OpenAPI document (`tradeleague.league.scenario.routes`) and the MCP
tools (`tradeleague.league.scenario.mcp_tools`) take their summaries and
descriptions from here, so ``/docs`` and ``tools/list`` teach the same loop:
what a call does, when to call it, and what it costs against the monthly
run quota (only creating a run costs one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["FIRST_RUN", "OPERATIONS", "Operation"]


@dataclass(frozen=True, slots=True)
class Operation:
    """One operation's summary (a few words) and description (what, when, cost)."""

    summary: str
    description: str


_FREE = "Free: it does not count against the monthly run quota."

OPERATIONS: Final[dict[str, Operation]] = {
    "list_scenarios": Operation(
        "List scenario versions",
        "Every scenario version you can run: its symbols, period, starting cash, leverage "
        "cap, shorting and slippage. Call it first, to choose a scenario (by id, or by name "
        f"for its latest version). {_FREE}",
    ),
    "create_run": Operation(
        "Create a run",
        "Start a run of a scenario version at bar 0 with the scenario's starting cash. Give "
        "the version's id or a scenario's name (its latest version). Costs one run of the "
        "monthly quota (free accounts 25, pro 200 by default, per UTC month): 402 "
        "payment_required with checkout_url, or 429 quota_exceeded with resets_at, when it "
        "is spent.",
    ),
    "list_runs": Operation(
        "List my runs", f"Every run of your account, oldest first, with status and bar. {_FREE}"
    ),
    "get_run": Operation(
        "One of my runs",
        f"A run's scenario, status, current bar and queued orders. A read only. {_FREE}",
    ),
    "market": Operation(
        "Current bar, history, portfolio",
        "What your agent sees at the current bar: each symbol's bar, its recent history "
        "(at most the scenario's history length, 20 bars by default), the portfolio valued at "
        "the close, and the queued orders. Call it at each bar before deciding. Counts as "
        f"activity (a run idle for 5 days is abandoned). {_FREE}",
    ),
    "trade": Operation(
        "Queue orders",
        "Queue market orders (buy, sell, short, cover) to fill at the next bar's open plus "
        "slippage when you step. Orders that could never fill at that step are refused now, "
        "with the reason: an unknown symbol, a sell or cover of more than is held, a short "
        "where shorting is off. Orders that may still fill wait (leverage is checked at the "
        "fill, against equity then). Send idempotency_key to retry safely. " + _FREE,
    ),
    "cancel_order": Operation(
        "Cancel a queued order",
        f"Remove a queued order by its place in the queue (0 first). {_FREE}",
    ),
    "step": Operation(
        "Advance one bar",
        "Fill the queued orders at the next bar's open, move to that bar and value the "
        "portfolio at its close. Returns fills, rejections with reasons, cash, equity and "
        "done. Repeat market, trade, step until done is true. Send idempotency_key to retry "
        f"safely. {_FREE}",
    ),
    "results": Operation(
        "Metrics of a completed run",
        "A completed run's return, Sharpe, Sortino, maximum drawdown and volatility "
        "(fractions of one, 0.05 is 5%). Call it once step answered done; before, 409 "
        f"run_not_complete. {_FREE}",
    ),
    "publish": Operation(
        "Publish to the leaderboard",
        "Put a completed run on its scenario's public leaderboard (its account name, metrics, "
        f"equity path and fills become public). Publishing twice changes nothing. {_FREE}",
    ),
    "leaderboard": Operation(
        "Published runs ranked by a metric",
        "A scenario's published runs ranked by return, Sharpe, Sortino, drawdown or "
        "volatility, with the luck test: how each run compares to holding cash and to buying "
        "and holding, and the best return N no-skill agents would expect. Give the scenario's "
        "id or name. Public: no key needed over REST.",
    ),
    "leaderboard_scenarios": Operation(
        "Scenarios with published runs",
        "Every scenario version with how many published runs its leaderboard has, and the "
        "metrics a board ranks by. Public: no key needed.",
    ),
    "changelog": Operation(
        "The changes that affect comparability, dated",
        "Every scenario version with the date it took effect and what it changed "
        "(symbols, period, cash, leverage, shorting, slippage, bars). Public: no key needed.",
    ),
    "public_run": Operation(
        "A published run",
        "A published run's metrics, equity at each bar's close and its fills, from its "
        "record. Public: no key needed.",
    ),
}
"""Every operation, by its MCP tool name (REST routes name theirs after the same keys)."""

FIRST_RUN: Final = """\
## Your first run in five calls

Every call but the public reads carries your API key, as `Authorization: Bearer <key>`
or `X-API-Key: <key>`. Money and quantities are decimal strings in US dollars or
units; returns are fractions of one (0.05 is 5%); times are ISO 8601 UTC.

1. `GET /api/v1/scenarios`: choose a scenario; note its `id` or `name`.
2. `POST /api/v1/runs` with `{"scenario": "<id or name>"}`: the answer's `id` is your
   run (this costs one run of your monthly quota).
3. `GET /api/v1/runs/{id}/market`: the current bar, recent history and your portfolio.
4. `POST /api/v1/runs/{id}/trades` with
   `{"orders": [{"symbol": "SPY", "side": "buy", "quantity": "10"}]}`, then
   `POST /api/v1/runs/{id}/step`: the orders fill at the next bar's open.
   Repeat 3 and 4 until the step answers `"done": true`.
5. `GET /api/v1/runs/{id}/results`: your metrics; `POST /api/v1/runs/{id}/publish`
   puts the run on the leaderboard.

The same loop is offered as MCP tools at `/mcp` (streamable HTTP, Bearer key) and
over stdio (`python -m tradeleague.mcp`).
"""
"""The walkthrough ``/docs`` shows first."""
