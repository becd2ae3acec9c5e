"""Response bodies of the direction arena's API (``/api/v1/direction``), as ``/docs`` shows them.

Units: money (stakes, balances, prices) is US dollars as exact decimal text
(``"10.000000"``); hit rates, ROI and drawdowns are percent to the hundredth
(``"55.56"`` is 55.56%); payouts are parts per million of the stake; times are
ISO 8601 in UTC. The routes build their JSON themselves; these models document
it, and a test holds every answer of a filled site to them.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tradeleague.api.models import declare_error_codes
from tradeleague.league.bodies import ReadOut, read_config
from tradeleague.league.story import RACE_EXAMPLE, StoriedOut, VersusOut

__all__ = [
    "DirectionBoardsOut",
    "DirectionConfigOut",
    "DirectionIndexOut",
    "DirectionRoundOut",
    "DirectionRoundsOut",
    "ModelLogOut",
    "VisitorCallOut",
    "VisitorsBoardOut",
]

declare_error_codes(
    {
        "invalid_name": (422, "A visitor's name is empty, too long or not printable."),
        "invalid_direction": (422, "A visitor's call is not exactly up or down."),
        "no_open_round": (409, "No round takes calls now; come back when one opens."),
        "late": (409, "Calls on this round have closed; call the next one."),
        "already_called": (409, "This name has already called this round."),
        "name_taken": (409, "Another visitor called under this name first; choose another."),
    }
)

_PERCENT = "percent to the hundredth, as decimal text"
_ROUND = {
    "season": "S1",
    "round": "20240102T0635Z",
    "asset": "BTC/USD",
    "open_at": "2024-01-02T06:35:00.000000Z",
    "expiry": "2024-01-02T06:40:00.000000Z",
    "entry_price": "98.326096",
    "candles": [["2024-01-02T03:35:00.000000Z", "98.1", "98.4", "98.0", "98.3", "12.5"]],
    "prompt_version": "2026-07-16.1",
    "models": 5,
    "status": "finished",
    "void_reason": None,
    "label": "down",
    "calls": [{"model": "up", "direction": "up", "result": "loss", "pnl": "-10.000000"}],
}


class DirectionIndexOut(ReadOut):
    """What the arena holds: its seasons, and the read routes."""

    model_config = read_config(
        {"format": "direction", "seasons": ["S1"], "endpoints": ["/direction/rounds/current"]}
    )

    format: str = Field(description="The format's key: direction.")
    seasons: list[str] = Field(description="Every season's id, oldest first.")
    endpoints: list[str] = Field(description="The read routes, under /api/v1.")


class DirectionRoundOut(ReadOut):
    """One round: its asset, entry price, candles, and each model's call once it has expired."""

    model_config = read_config(_ROUND)

    season: str = Field(description="The season's id.")
    round: str = Field(description="The round's id (its open time, UTC, compact).")
    asset: str = Field(description="The pair called, up or down.")
    open_at: str = Field(description="When the round opened (ISO 8601, UTC).")
    expiry: str = Field(description="When it is scored (ISO 8601, UTC).")
    entry_price: str | None = Field(description="The price at open (USD, decimal text).")
    exit_price: str | None = Field(
        default=None,
        description="finished: the price at expiry it was scored on (USD, decimal text).",
    )
    previous: str | None = Field(
        default=None,
        description="One round's answer: the round before it in the season; null for the first.",
    )
    next: str | None = Field(
        default=None,
        description="One round's answer: the round after it in the season; null for the latest.",
    )
    candles: list[list[Any]] = Field(
        description="The candles the models saw: time (UTC), open, high, low, close, volume."
    )
    prompt_version: str = Field(description="The prompt the models were given.")
    models: int = Field(description="How many models take part.")
    status: str = Field(description="open, finished or void.")
    committed: int | None = Field(
        default=None, description="open: how many models have called (the calls stay hidden)."
    )
    void_reason: str | None = Field(default=None, description="void: why it was not scored.")
    label: str | None = Field(default=None, description="finished: what happened: up or down.")
    calls: list[dict[str, Any]] = Field(
        default_factory=list,
        description="finished: each model's call, result, P&L and balance after (USD), "
        "rationale and latency (ms).",
    )


class DirectionRoundsOut(ReadOut):
    """A season's finished rounds, newest first."""

    model_config = read_config({"season": "S1", "rounds": [_ROUND]})

    season: str = Field(description="The season's id.")
    rounds: list[DirectionRoundOut] = Field(description="The rounds, newest first.")


class ModelLogOut(ReadOut):
    """A model's log in a season: every call and skip, in order, and what its calls cost."""

    model_config = read_config(
        {
            "season": "S1",
            "model": {"name": "up", "provider": "baseline", "tier": "-", "model": "baseline:up"},
            "rows": [{"round": "20240102T0635Z", "direction": "up", "result": "loss"}],
            "cost": {"calls": 0, "cost_usd": "0.000000"},
            "pricing": {"pricing_version": None, "priced": False, "unit": "USD"},
        }
    )

    season: str = Field(description="The season's id.")
    model: dict[str, Any] = Field(description="The model: name, provider, tier, model id, kind.")
    rows: list[dict[str, Any]] = Field(
        description="Each round: direction, entry and exit prices, result, P&L and balance "
        "after (USD), payout (ppm), rationale, latency (ms)."
    )
    cost: dict[str, Any] | None = Field(
        description="Its calls, tokens and cost (USD); null when it made none."
    )
    versus: VersusOut | None = Field(
        description="Its balance after each round it was in against an account that called up "
        "on every round it traded, from the same start; null before its first round."
    )
    pricing: dict[str, Any] = Field(description="The pricing version its cost was computed with.")


class DirectionConfigOut(ReadOut):
    """A season's rules and roster, with each model's exact id."""

    model_config = read_config(
        {
            "season": "S1",
            "prompt_version": "2026-07-16.1",
            "scoring_version": "direction-scoring-1",
            "stake": "10.000000",
            "start_balance": "50000.000000",
            "payout_ppm": 800000,
            "roster": [{"name": "up", "provider": "baseline", "model": "baseline:up"}],
        }
    )

    season: str = Field(description="The season's id.")
    prompt_version: str = Field(description="The prompt the models are given.")
    scoring_version: str = Field(description="The scoring rules.")
    stake: str = Field(description="What each call stakes (USD, decimal text).")
    start_balance: str = Field(description="Each model's balance at the start (USD).")
    payout_ppm: int = Field(description="A win pays the stake times this, in parts per million.")
    roster: list[dict[str, Any]] = Field(
        description="Each model: name, provider, tier, model id, kind."
    )


class _Board(ReadOut):
    season: str = Field(description="The season's id.")
    scoring_version: str = Field(description="The scoring rules.")
    rounds: int = Field(description="Rounds scored so far.")
    payout_ppm: int = Field(description="A win pays the stake times this, in parts per million.")
    break_even: str = Field(description=f"The hit rate that breaks even ({_PERCENT}).")
    visitors: list[dict[str, Any]] = Field(
        description=f"Visitors who called, ranked like the models (hit rate in {_PERCENT})."
    )


class DirectionBoardsOut(_Board, StoriedOut):
    """The season's boards: models, providers and tiers ranked by balance, with costs."""

    model_config = read_config(
        {
            "season": "S1",
            "scoring_version": "direction-scoring-1",
            "rounds": 8,
            "void_rounds": 0,
            "payout_ppm": 800000,
            "break_even": "55.56",
            "luckiest_of_n": {"models": 5, "trades": 8, "expected_top_hit_rate": "70.18"},
            "models": [{"rank": 1, "name": "down", "balance": "50010.000000", "roi": "0.02"}],
            "providers": [{"name": "baseline", "members": ["down"], "roi": "-0.03"}],
            "tiers": [{"name": "-", "members": ["down"], "roi": "-0.04"}],
            "visitors": [],
            "costs": {"pricing_version": None, "priced": False, "unit": "USD", "agents": {}},
            "race": RACE_EXAMPLE,
            "story": "No agent is ranked yet.",
            "replay": True,
        }
    )

    replay: bool | None = Field(
        description="True for a replay over past prices, false for live rounds; null for a "
        "season whose start did not record it."
    )
    void_rounds: int = Field(description="Rounds voided (not scored).")
    luckiest_of_n: dict[str, Any] = Field(
        description=f"The hit rate the luckiest of this many coin-flippers expects ({_PERCENT})."
    )
    models: list[dict[str, Any]] = Field(
        description="Each model, best first: rank (null when unranked, with the reason), "
        f"balance (USD), roi, max_drawdown, hit_rate and its interval ({_PERCENT})."
    )
    providers: list[dict[str, Any]] = Field(description="The models pooled by provider.")
    tiers: list[dict[str, Any]] = Field(description="The models pooled by tier.")
    costs: dict[str, Any] = Field(description="Each model's calls and cost (USD).")


class VisitorsBoardOut(_Board):
    """The visitors' board: people's own calls, scored like the models'."""

    model_config = read_config(
        {
            "season": "S1",
            "scoring_version": "direction-scoring-1",
            "rounds": 8,
            "payout_ppm": 800000,
            "break_even": "55.56",
            "visitors": [{"rank": 1, "name": "ada", "hit_rate": "60.00"}],
        }
    )


class VisitorCallOut(ReadOut):
    """Your call was taken; it stays hidden until the round expires."""

    model_config = read_config(
        {
            "accepted": True,
            "round": "20240102T0635Z",
            "visitor": "ada",
            "calls_close_at": "2024-01-02T06:39:30.000000Z",
            "hidden_until": "2024-01-02T06:40:00.000000Z",
        }
    )

    accepted: bool = Field(description="Always true: refusals are errors.")
    round: str = Field(description="The round you called.")
    visitor: str = Field(description="Your name, as the board shows it.")
    calls_close_at: str = Field(description="When calls on this round close (ISO 8601, UTC).")
    hidden_until: str = Field(description="When your call is shown (the round's expiry, UTC).")
