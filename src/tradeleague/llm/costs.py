"""What an agent's season cost in inference, and its return net of that cost (C-5).

A model that spends $40 of tokens to earn $12 on a paper account is not the
winner, so beside each agent's paper result the reports carry what its calls
cost, from the calls the gateway recorded (one record per attempt) and a
price table (``token_prices``):

- ``calls``, ``input_tokens``, ``output_tokens``: every recorded attempt and
  the usage it reported;
- ``cost``: the sum of each call's cost, exact in micro-dollars and rounded up
  per call (``call_cost``); ``None`` ("unpriced", never zero) when the table
  has no price for a model the agent called, or an answered call reported no
  usage;
- ``cost per decision``: the cost over the decisions the agent made, rounded
  up to the micro-dollar;
- median and 95th-percentile latency of the calls (nearest rank);
- ``net return``: paper P&L minus the cost, as a share of the starting value.

An agent that made no model call (a baseline, a scripted answer file) costs
exactly zero, and says so (``basis = "no_model_calls"``).

Pure: the caller reads the records and the values; nothing here does I/O.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tradeleague.calls import Outcome
from tradeleague.llm.records import CallRecord
from tradeleague.llm.token_prices import PriceTable, call_cost
from tradeleague.money import Rounding, div_round, micros_to_str
from tradeleague.stats.rounding import percent

__all__ = ["AgentCost", "CostBasis", "agent_cost", "cost_words"]


class CostBasis(enum.StrEnum):
    """What an agent's cost figure rests on."""

    PRICED = "priced"
    """Every call was priced from the table."""
    UNPRICED = "unpriced"
    """A model the agent called has no price, or an answered call reported no usage."""
    NO_MODEL_CALLS = "no_model_calls"
    """The agent made no model call (a baseline, scripted answers): it cost nothing."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentCost:
    """One agent's inference over a season.

    Attributes
    ----------
    agent
        The agent's name.
    calls
        Recorded call attempts.
    input_tokens, output_tokens
        Usage the calls reported (a call that reported none adds nothing).
    cost
        Micro-dollars, each call rounded up; ``None`` when unpriced.
    basis
        What ``cost`` rests on.
    unpriced
        The model ids without a price (sorted), when that is why it is unpriced.
    decisions
        The agent's decisions (the denominator of cost per decision).
    latencies
        Each call's latency in milliseconds, sorted.
    """

    agent: str
    calls: int
    input_tokens: int
    output_tokens: int
    cost: int | None
    basis: CostBasis
    unpriced: tuple[str, ...]
    decisions: int
    latencies: tuple[int, ...]

    @property
    def per_decision(self) -> int | None:
        """Return the cost per decision in micro-dollars, rounded up; ``None`` if unknown."""
        if self.cost is None or self.decisions == 0:
            return None
        return div_round(self.cost, self.decisions, Rounding.UP)

    @property
    def latency_median_ms(self) -> int | None:
        """Return the median latency (the lower middle of an even count), ``None`` with no call."""
        if not self.latencies:
            return None
        return self.latencies[(len(self.latencies) - 1) // 2]

    @property
    def latency_p95_ms(self) -> int | None:
        """Return the 95th-percentile latency by nearest rank, ``None`` with no call."""
        if not self.latencies:
            return None
        return self.latencies[math.ceil(0.95 * len(self.latencies)) - 1]

    def net_return(self, start: int, end: int) -> Fraction | None:
        """Return ``(end - start - cost) / start``: the paper result net of inference.

        ``start`` and ``end`` are the agent's starting and final values in
        micro-dollars; ``None`` when the cost is unpriced or ``start`` is not positive.
        """
        if self.cost is None or start <= 0:
            return None
        return Fraction(end - start - self.cost, start)

    def to_payload(self, start: int, end: int) -> dict[str, Any]:
        """Return the JSON figures: money as exact decimal strings, the net return in percent."""
        net = self.net_return(start, end)
        per = self.per_decision
        return {
            "calls": self.calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": None if self.cost is None else micros_to_str(self.cost),
            "basis": self.basis.value,
            "unpriced_models": list(self.unpriced),
            "decisions": self.decisions,
            "cost_per_decision_usd": None if per is None else micros_to_str(per),
            "latency_median_ms": self.latency_median_ms,
            "latency_p95_ms": self.latency_p95_ms,
            "return": str(percent(Fraction(end - start, start))) if start > 0 else None,
            "net_return": None if net is None else str(percent(net)),
        }


def agent_cost(
    agent: str, records: Iterable[CallRecord], decisions: int, prices: PriceTable | None
) -> AgentCost:
    """Return ``agent``'s cost from its recorded calls and the price table (``None``: no table).

    Every record counts: a retried or failed attempt is a call. A call that did
    not answer and reported no usage costs 0 (providers do not bill it).
    """
    table = prices or PriceTable()
    calls = 0
    tokens_in = tokens_out = 0
    total: int | None = 0
    unpriced: set[str] = set()
    latencies: list[int] = []
    for record in records:
        calls += 1
        tokens_in += record.prompt_tokens or 0
        tokens_out += record.completion_tokens or 0
        latencies.append(record.latency_ms)
        price = table.get(record.model)
        if price is None:
            unpriced.add(record.model)
        cost = call_cost(
            price,
            record.prompt_tokens,
            record.completion_tokens,
            answered=record.outcome is Outcome.ANSWERED,
        )
        total = None if cost is None or total is None else total + cost
    if calls == 0:
        basis = CostBasis.NO_MODEL_CALLS
    elif total is None:
        basis = CostBasis.UNPRICED
    else:
        basis = CostBasis.PRICED
    return AgentCost(
        agent=agent,
        calls=calls,
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        cost=total,
        basis=basis,
        unpriced=tuple(sorted(unpriced)),
        decisions=decisions,
        latencies=tuple(sorted(latencies)),
    )


def cost_words(cost: Mapping[str, Any]) -> str:
    """Return a cost as a person reads it: ``0.004200``, ``unpriced``, ``0 (no model calls)``."""
    basis = cost["basis"]
    if basis == CostBasis.NO_MODEL_CALLS:
        return "0 (no model calls)"
    if cost["cost_usd"] is None:
        return "unpriced"
    return str(cost["cost_usd"])
