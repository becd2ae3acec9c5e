"""One agent's inference cost from its recorded calls (C-5, W-EXE-7): exact, or "unpriced"."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction

from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.llm.costs import CostBasis, agent_cost
from tradeleague.llm.records import CallKey, CallRecord
from tradeleague.llm.token_prices import Price, PriceTable

TABLE = PriceTable({"m": Price.usd_per_million("0.15", "0.60")}, "2026-12-01")


def _call(
    model: str = "m",
    tokens: tuple[int | None, int | None] = (1_000, 100),
    latency: int = 100,
    outcome: Outcome = Outcome.ANSWERED,
) -> CallRecord:
    return CallRecord(
        key=CallKey("s", "r", "a", 0), attempt=0, final=True, provider="p", model=model,
        messages=(Message("user", "hi"),), params=CallParams(), json_schema=None, tools=(),
        outcome=outcome, text="{}", tool_calls=(), finish_reason="stop", http_status=200,
        error=None, prompt_tokens=tokens[0], completion_tokens=tokens[1], cost_micros=None,
        asked_at=datetime(2026, 1, 1, tzinfo=UTC), queued_ms=0, latency_ms=latency,
        elapsed_ms=latency,
    )  # fmt: skip


def test_cost_sums_each_call_rounded_up_and_nets_the_return() -> None:
    """W-EXE-7: 1,000 x 0.15 + 100 x 0.60 = 210 micro-dollars a call; 3 calls, 2 decisions."""
    calls = [_call(latency=ms) for ms in (300, 100, 200)]
    cost = agent_cost("a", calls, 2, TABLE)
    assert (cost.calls, cost.input_tokens, cost.output_tokens) == (3, 3_000, 300)
    assert (cost.cost, cost.basis) == (630, CostBasis.PRICED)
    assert cost.per_decision == 315
    assert (cost.latency_median_ms, cost.latency_p95_ms) == (200, 300)
    start, end = 10_000_000_000, 10_012_000_000
    assert cost.net_return(start, end) == Fraction(12_000_000 - 630, start)
    body = cost.to_payload(start, end)
    assert (body["cost_usd"], body["cost_per_decision_usd"]) == ("0.000630", "0.000315")
    assert (body["return"], body["net_return"]) == ("0.12", "0.12")
    # one odd call rounds up on its own: 1 token at 0.15 per million is 1 micro-dollar
    assert agent_cost("a", [_call(tokens=(1, 0))], 1, TABLE).cost == 1


def test_unpriced_is_never_zero_and_no_call_costs_nothing() -> None:
    """C-5: a model without a price, or an answer without usage, is unpriced; a baseline 0."""
    odd = agent_cost("a", [_call(), _call(model="x")], 2, TABLE)
    assert (odd.cost, odd.basis, odd.unpriced) == (None, CostBasis.UNPRICED, ("x",))
    assert odd.net_return(1, 2) is None
    assert odd.to_payload(10, 20)["cost_usd"] is None
    silent = agent_cost("a", [_call(tokens=(None, None))], 1, TABLE)
    assert silent.basis is CostBasis.UNPRICED
    failed = agent_cost("a", [_call(tokens=(None, None), outcome=Outcome.TIMEOUT)], 0, TABLE)
    assert (failed.cost, failed.basis, failed.per_decision) == (0, CostBasis.PRICED, None)
    assert agent_cost("a", [_call()], 1, None).basis is CostBasis.UNPRICED
    baseline = agent_cost("b", [], 5, None)
    assert (baseline.cost, baseline.basis, baseline.per_decision) == (
        0,
        CostBasis.NO_MODEL_CALLS,
        0,
    )
    assert baseline.latency_median_ms is None
    assert baseline.to_payload(100, 90)["net_return"] == "-10.00"
