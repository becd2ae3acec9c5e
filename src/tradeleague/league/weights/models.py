"""Response bodies of the weights league's read API (``/api/v1/weights``), as ``/docs`` shows them.

Units: money is US dollars as exact decimal text (``"10000.000000"``); returns
and drawdowns on these boards are percent of the starting value to the
hundredth (``"1.25"`` is 1.25%); weights are fractions of the account; times
are ISO 8601 in UTC. The routes build their JSON themselves; these models
document it, and a test holds every answer of a filled site to them.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tradeleague.api.models import declare_error_codes
from tradeleague.league.bodies import ReadOut, read_config
from tradeleague.league.story import RACE_EXAMPLE, StoriedOut, VersusOut

__all__ = [
    "OwnedAgentOut",
    "WeightsAgentOut",
    "WeightsMarketOut",
    "WeightsSeasonOut",
    "WeightsTableOut",
    "WeightsUniverseOut",
]

declare_error_codes(
    {
        "no_season": (404, "No weights season is open to join."),
        "no_agent": (404, "This wallet has no agent in the season; create one first."),
        "agent_exists": (409, "This wallet already has an agent in the season."),
        "cannot_join": (409, "The season no longer takes new agents."),
        "division_full": (409, "The division is at its cap; try the other one."),
        "not_paused": (409, "The agent is not paused."),
        "not_pro": (409, "Only a Pro agent uses its owner's model key."),
        "invalid_model": (422, "A Pro agent needs a model spec like openai:MODEL@URL."),
        "invalid_key": (422, "The model key is empty, too long or not printable."),
        "endpoint_not_allowed": (422, "This server does not call that model endpoint."),
        "prompt_changes_exhausted": (429, "No prompt changes left today (see retry_at)."),
        "vault_unavailable": (503, "This server stores no model keys; ask the operator."),
    }
)

_PERCENT = "percent of the starting value, to the hundredth, as decimal text"


class WeightsSeasonOut(ReadOut):
    """A season: its window, status, symbols, rule versions and divisions."""

    model_config = read_config(
        {
            "season": "2026-w1",
            "start": "2026-02-02T00:00:00.000000Z",
            "end": "2026-03-02T00:00:00.000000Z",
            "status": "running",
            "final": False,
            "joinable": True,
            "symbols": ["BTC", "ETH"],
            "source": "chainlink",
            "synthetic": False,
            "replay": False,
            "scoring_version": "weights-scoring-v1",
            "prompt_version": "weights-prompt-2026-10-06.1",
            "divisions": {"open": {"agents": 12, "cap": 200}, "pro": {"agents": 4, "cap": 50}},
            "rounds": 20,
            "closed_rounds": 1,
            "holds": [],
        }
    )

    season: str = Field(description="The season's id.")
    start: str = Field(description="When the season starts (ISO 8601, UTC).")
    end: str = Field(description="When the season ends (ISO 8601, UTC).")
    status: str = Field(description="upcoming, running or ended, by the server's clock.")
    final: bool = Field(description="True once the season has ended and its table is final.")
    joinable: bool = Field(description="True while an owner may still enter an agent.")
    symbols: list[str] = Field(description="The symbols agents may weight.")
    source: str = Field(description="Where the prices come from.")
    synthetic: bool = Field(description="True when the prices are generated, not read.")
    replay: bool = Field(description="True when the season was replayed over past prices.")
    scoring_version: str = Field(description="The scoring rules the table was computed with.")
    prompt_version: str = Field(description="The prompt the model agents were given.")
    divisions: dict[str, dict[str, Any]] = Field(
        description="Per division (open, pro): how many agents it holds and its cap."
    )
    rounds: int = Field(description="Rounds played so far.")
    closed_rounds: int = Field(description="Rounds skipped because the market was closed.")
    holds: list[str] = Field(description="Symbols held back from trading this season, if any.")


class WeightsTableOut(ReadOut, StoriedOut):
    """A division's table: agents ranked by value, with the luck test and costs beside."""

    model_config = read_config(
        {
            "season": "2026-w1",
            "division": "open",
            "scoring_version": "weights-scoring-v1",
            "published_after": "2026-02-13T15:00:00.000000Z",
            "final": False,
            "significance": {"test": "bootstrap", "resamples": 2000},
            "baseline_cloud": {"kind": "coin-flip", "agents": 1000},
            "rows": [{"rank": 1, "agent": "eq", "value": "10073.000000", "season_return": "0.73"}],
            "costs": {"priced": False, "unit": "USD", "agents": {}},
            "race": RACE_EXAMPLE,
            "story": "No agent is ranked yet.",
        }
    )

    season: str = Field(description="The season's id.")
    division: str = Field(description="open or pro.")
    scoring_version: str = Field(description="The scoring rules the table was computed with.")
    published_after: str | None = Field(
        description="The last round the table includes (ISO 8601, UTC); null before the first."
    )
    final: bool = Field(description="True once the season has ended.")
    significance: dict[str, Any] = Field(
        description="How each row's verdict was tested: the test, benchmark, resamples, level."
    )
    baseline_cloud: dict[str, Any] | None = Field(
        description="Where luck alone lands: quantiles of many random agents' returns "
        f"({_PERCENT}), the luckiest, and a histogram."
    )
    rows: list[dict[str, Any]] = Field(
        description="One per agent, best first: rank (null when unranked, with the reason), "
        f"value (USD), season_return and max_drawdown ({_PERCENT}), trades, decisions, "
        "verdicts against cash and buy-and-hold, alpha, and training_cutoff (a model "
        "agent's status: before_cutoff, after_cutoff or cutoff_unknown, with its cutoff "
        "and source; null for a baseline)."
    )
    costs: dict[str, Any] = Field(
        description="Model-call costs per agent (USD) and the pricing version used."
    )


class WeightsAgentOut(ReadOut):
    """An agent's season: standing, every entry with its weights, trades, chart and cost."""

    model_config = read_config(
        {
            "season": "2026-w1",
            "scoring_version": "weights-scoring-v1",
            "prompt_version": "weights-prompt-2026-10-06.1",
            "agent": {"id": "eq", "name": "eq", "division": "pro", "paused": False},
            "standing": {"rank": 1, "agent": "eq", "value": "10073.000000"},
            "benchmark": "BTC",
            "scatter": [{"benchmark": -0.0126, "agent": 0.0031}],
            "summary": None,
            "summary_hidden": False,
            "entries": [{"round": "2026-02-02T15:00:00.000000Z", "kind": "decision"}],
            "trades": [],
            "chart": [{"day": "2026-02-02", "value": "10000.000000"}],
            "cost": {"calls": 0, "cost_usd": "0.000000"},
            "pricing": {"pricing_version": None, "priced": False, "unit": "USD"},
        }
    )

    season: str = Field(description="The season's id.")
    scoring_version: str = Field(description="The scoring rules the standing was computed with.")
    prompt_version: str = Field(description="The prompt the model agents were given.")
    agent: dict[str, Any] = Field(
        description="The agent: id, name, division, created_at (UTC), paused."
    )
    standing: dict[str, Any] | None = Field(
        description=f"Its row of the division's table (value in USD, returns in {_PERCENT})."
    )
    benchmark: str | None = Field(description="The symbol its alpha is measured against.")
    scatter: list[dict[str, float]] = Field(
        description="Per round: the benchmark's and the agent's return, fractions of one."
    )
    summary: str | None = Field(description="A short summary of its prompt, when written.")
    summary_hidden: bool = Field(description="True when the owner hid the summary.")
    entries: list[dict[str, Any]] = Field(
        description="Every round: decision or fault, reason, value and cash (USD), holdings."
    )
    trades: list[dict[str, Any]] = Field(
        description="Every fill: symbol, side, quantity and price (decimal text)."
    )
    chart: list[dict[str, Any]] = Field(description="Its value (USD) at each day's close.")
    versus: VersusOut | None = Field(
        description="Its value at each day's close against holding the benchmark from its "
        "first entry, both from the start cash; null with no benchmark price."
    )
    cost: dict[str, Any] | None = Field(
        description="Its model calls, tokens and cost (USD); null when it made none."
    )
    pricing: dict[str, Any] = Field(description="The pricing version its cost was computed with.")


class WeightsMarketOut(ReadOut):
    """The market's status for a season's latest round, and why."""

    model_config = read_config(
        {
            "season": "2026-w1",
            "holds": [],
            "status": "open",
            "text": "Market open",
            "round": "2026-02-13T15:00:00.000000Z",
            "forced": False,
            "open_round": True,
            "read_at": "2026-02-13T15:00:00.000000Z",
            "reasons": [],
            "invalid": {},
            "prices": {"BTC": "97000.120000"},
            "halted": {},
        }
    )

    season: str = Field(description="The season's id.")
    holds: list[str] = Field(description="Symbols held back from trading.")
    status: str = Field(description="open, closed, league_paused, or unknown before any read.")
    text: str = Field(description="The status in words.")
    round: str | None = Field(description="The round read last (ISO 8601, UTC).")
    forced: bool = Field(default=False, description="open: the operator forced it open.")
    open_round: bool = Field(default=False, description="open: an entry round is open now.")
    read_at: str | None = Field(default=None, description="When prices were read (UTC).")
    reasons: list[dict[str, str]] = Field(
        default_factory=list, description="closed: each reason's code and text."
    )
    invalid: dict[str, str] = Field(
        default_factory=dict, description="Per symbol, why its price read was refused."
    )
    prices: dict[str, str] = Field(
        default_factory=dict, description="open: each symbol's price (USD, decimal text)."
    )
    halted: dict[str, list[str]] = Field(
        default_factory=dict, description="open: symbols halted this round, with why."
    )


class WeightsUniverseOut(ReadOut):
    """A season's universe: its symbols and every input they were chosen from."""

    model_config = read_config({"season": "2026-w1", "symbols": ["BTC"], "built_from": "list"})

    season: str = Field(description="The season's id.")
    symbols: list[str] = Field(description="The symbols chosen.")
    built_from: str = Field(description="chain (read on chain) or list (the operator's list).")
    read_at: str | None = Field(default=None, description="chain: when it was read (UTC).")
    registry: str | None = Field(default=None, description="chain: the feed registry read.")
    chain_id: int | None = Field(default=None, description="chain: the chain's id.")
    node_block_time: str | None = Field(default=None, description="chain: the block's time.")
    size: int | None = Field(default=None, description="chain: how many symbols were chosen.")
    stale_before: str | None = Field(
        default=None, description="chain: feeds updated before this were left out (UTC)."
    )
    taken_from: str | None = Field(
        default=None, description="chain: the recorded season it was copied from, if any."
    )
    rows: list[dict[str, Any]] = Field(
        default_factory=list,
        description="chain: every candidate: rank, price and value (USD), supply, why left out.",
    )


class OwnedAgentOut(ReadOut):
    """The wallet's weights agent after the change."""

    model_config = read_config(
        {
            "agent": {
                "id": "0x5290…-1",
                "season": "2026-w1",
                "name": "my-desk",
                "division": "open",
                "model": "house",
                "prompt": "Hold the three largest coins, equal weight.",
                "prompt_changes_left_today": 2,
                "paused": False,
                "key": None,
                "summary": None,
                "created_at": "2026-02-02T10:00:00.000000Z",
            }
        }
    )

    agent: dict[str, Any] = Field(
        description="The agent: id, season, name, division, model, prompt, prompt changes "
        "left this UTC day, paused, the model key masked (Pro), summary, created_at (UTC)."
    )
