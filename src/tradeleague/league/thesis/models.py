"""Response bodies of the thesis league's read API (``/api/v1/thesis``), as ``/docs`` shows them.

Units: money, prices and quantities are exact decimal text (US dollars, or
units of the symbol); returns, drawdowns, exposure and win rates on these
boards are percent to the hundredth (``"1.05"`` is 1.05%); times are ISO 8601
in UTC. The routes build their JSON themselves; these models document it, and
a test holds every answer of a filled site to them.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tradeleague.league.bodies import ReadOut, read_config
from tradeleague.league.story import RACE_EXAMPLE, StoriedOut, VersusOut

__all__ = ["ThesisAgentOut", "ThesisBoardOut"]

_PERCENT = "percent to the hundredth, as decimal text"


class ThesisBoardOut(ReadOut, StoriedOut):
    """A season's board: agents ranked by return, with the luck test and costs."""

    model_config = read_config(
        {
            "season": "2026-t1",
            "start": "2026-02-12T00:00:00.000000Z",
            "end": "2026-02-17T00:00:00.000000Z",
            "cycles": 5,
            "ended": True,
            "replay": True,
            "scoring_version": "thesis-scoring-v2",
            "prompt_version": "thesis-prompt-2026-12-01.2",
            "rows": [{"rank": 1, "name": "hold", "return": "0.35", "max_drawdown": "0.18"}],
            "luckiest_of_n": {"kind": "coin-flip", "agents": 5, "luckiest": "0.69"},
            "baseline_cloud": {"kind": "coin-flip", "agents": 1000},
            "costs": {"pricing_version": None, "priced": False, "unit": "USD", "agents": {}},
            "race": RACE_EXAMPLE,
            "story": "No agent is ranked yet.",
        }
    )

    season: str = Field(description="The season's id.")
    start: str = Field(description="When the season starts (ISO 8601, UTC).")
    end: str = Field(description="When it ends (ISO 8601, UTC).")
    cycles: int = Field(description="Decision cycles played so far.")
    ended: bool = Field(description="True once the season is over and the board final.")
    replay: bool = Field(description="True when the season was replayed over past prices.")
    scoring_version: str = Field(description="The scoring rules.")
    prompt_version: str = Field(description="The prompt the model agents were given.")
    rows: list[dict[str, Any]] = Field(
        description="Each agent, best first: rank (null when unranked, with the reason), "
        f"return, max_drawdown, exposure and win_rate ({_PERCENT}), sharpe, sortino, "
        "trades, verdicts against cash and SPY, alpha."
    )
    luckiest_of_n: dict[str, Any] | None = Field(
        description=f"What the luckiest of this many no-skill agents returns ({_PERCENT})."
    )
    baseline_cloud: dict[str, Any] | None = Field(
        description=f"Where luck alone lands: quantiles of random agents' returns ({_PERCENT})."
    )
    costs: dict[str, Any] = Field(description="Each agent's model calls and cost (USD).")


class ThesisAgentOut(ReadOut):
    """An agent's season: every decision and thesis with its outcome, metrics and cost."""

    model_config = read_config(
        {
            "season": "2026-t1",
            "name": "hold",
            "kind": "baseline",
            "agentic": False,
            "spec": "baseline:hold",
            "entered_cycle": 0,
            "entries": [{"cycle": "2026-02-12T16:00:00.000000Z", "outcome": "answered"}],
            "monitor_closes": [],
            "metrics": {"return": "0.35", "max_drawdown": "0.18"},
            "counts": {"trades": 3, "closed_trades": 0, "decisions": 3},
            "verdicts": {"steps": 4, "vs_cash": "not_distinguishable", "vs_spy": "worse"},
            "alpha": {"steps": 4, "beta": "-0.320", "outcome": "not_distinguishable"},
            "scatter": [{"benchmark": 0.01, "agent": 0.002}],
            "equity": ["100000.000000", "100350.000000"],
            "rank": 1,
            "unranked_reason": None,
            "unranked_text": None,
            "cost": None,
            "pricing": {"pricing_version": None, "priced": False, "unit": "USD"},
        }
    )

    season: str = Field(description="The season's id.")
    name: str = Field(description="The agent's name.")
    kind: str = Field(description="baseline, scripted or model.")
    agentic: bool = Field(description="True when it may call tools between decisions.")
    spec: str = Field(description="How the agent was specified (its spec text).")
    entered_cycle: int = Field(description="The cycle it joined at (0: from the start).")
    equity: list[str] = Field(
        description="Its account value after each cycle, oldest first, the first the "
        "starting value (USD, decimal text)."
    )
    versus: VersusOut | None = Field(
        description="Its equity after each cycle it played against holding SPY from the same "
        "start cash; null with no SPY price."
    )
    entries: list[dict[str, Any]] = Field(
        description="Each cycle: outcome, reasoning, decisions and theses, equity and cash "
        "(USD), positions."
    )
    monitor_closes: list[dict[str, Any]] = Field(
        description="Positions the monitor closed at an invalidation level: time (UTC), "
        "symbol, level, price, quantity and fee (decimal text)."
    )
    metrics: dict[str, Any] = Field(
        description=f"return, max_drawdown, exposure, win_rate ({_PERCENT}); sharpe, sortino."
    )
    counts: dict[str, int] = Field(description="trades, closed_trades and decisions.")
    verdicts: dict[str, Any] = Field(description="Whether it differs from cash and from SPY.")
    alpha: dict[str, Any] | None = Field(
        description="Beta and alpha against SPY with their intervals (alpha in percent)."
    )
    training_cutoff: dict[str, Any] | None = Field(
        description="Where the season lies against the model's training cutoff: status "
        "(before_cutoff: results may reflect memory; after_cutoff; cutoff_unknown), cutoff "
        "and source; null for a baseline."
    )
    scatter: list[dict[str, float]] = Field(
        description="Per step: the benchmark's and the agent's return, fractions of one."
    )
    rank: int | None = Field(description="Its place on the board; null when unranked.")
    unranked_reason: str | None = Field(description="Why it is unranked (a code), or null.")
    unranked_text: str | None = Field(description="The reason in words, or null.")
    cost: dict[str, Any] | None = Field(description="Its calls and cost (USD), or null.")
    pricing: dict[str, Any] = Field(description="The pricing version its cost was computed with.")
