"""Each agent's inference cost over a season, read back from the store (C-5).

The gateway records every call attempt (``ModelCalled``) with its usage and
latency; `season_costs` folds them per agent with the price table a replay or
a league file names (``llm.costs``: exact micro-dollars, rounded up per call;
"unpriced" when a model has no price, never zero), and counts each agent's
decisions as the end-of-replay summary does (``answers.summarise``).
`costs_payload` turns them into REPORT.json's ``costs`` section, each agent's
figures beside its paper result: the return net of what its calls cost.
`SeasonCosts` is the same for the site's reads: a season's costs are read from
its events once per log head, not once per page.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any, Final

from tradeleague.agents.recorded import call_record_of
from tradeleague.events import EventKind
from tradeleague.league.answers import AgentSummary, season_events, summarise
from tradeleague.llm.costs import AgentCost, agent_cost
from tradeleague.llm.records import CallRecord, RecordFormatError
from tradeleague.llm.token_prices import PriceTable
from tradeleague.store import Store, StoredEvent

__all__ = ["SeasonCosts", "costs_payload", "season_costs", "season_costs_payload"]

_KEPT: Final = 16
"""Seasons whose costs a `SeasonCosts` keeps (the least recently computed goes first)."""


def season_costs(
    store: Store,
    season: str,
    prices: PriceTable | None,
    *,
    of_season: str | None = None,
    summaries: Sequence[AgentSummary] | None = None,
    events: Sequence[StoredEvent] | None = None,
) -> dict[str, AgentCost]:
    """Return each agent's cost over ``season`` (a season id or a stream), by first appearance.

    ``of_season`` keeps only the calls made in that season of a stream. An agent
    that decided without a model call (a baseline) is listed with no calls.
    ``summaries`` is ``summarise(store, season)`` and ``events``
    ``season_events(store, season)`` when the caller already has them.

    Raises
    ------
    RecordFormatError
        If a ``ModelCalled`` payload is not a call record.
    """
    records: dict[str, list[CallRecord]] = {}
    read = season_events(store, season) if events is None else events
    for stored in read:
        if stored.event.kind != EventKind.MODEL_CALLED:
            continue
        try:
            record = call_record_of(stored.event.payload)
        except RecordFormatError as exc:
            raise RecordFormatError(f"event {stored.seq}: not a call record: {exc}") from None
        if of_season is None or record.key.season == of_season:
            records.setdefault(record.key.agent, []).append(record)
    summaries = summarise(store, season, events=read) if summaries is None else summaries
    decisions = {s.agent: s.decisions for s in summaries}
    agents = list(dict.fromkeys([*decisions, *records]))
    return {a: agent_cost(a, records.get(a, ()), decisions.get(a, 0), prices) for a in agents}


def costs_payload(
    costs: Mapping[str, AgentCost],
    values: Mapping[str, tuple[int, int]],
    prices: PriceTable | None,
) -> dict[str, Any]:
    """Return REPORT.json's ``costs``: the price table's version and each agent's figures.

    ``values`` is each agent's starting and final paper value in micro-dollars,
    in board order; an agent on the board with no recorded turn costs nothing.
    """
    version = None if prices is None else prices.version
    agents = {}
    for agent, (start, end) in values.items():
        cost = costs.get(agent) or agent_cost(agent, (), 0, prices)
        agents[agent] = cost.to_payload(start, end)
    return {
        "pricing_version": version,
        "priced": prices is not None,
        "unit": "USD; returns in percent of the starting value, to the hundredth",
        "agents": agents,
    }


def season_costs_payload(
    store: Store,
    season: str,
    values: Mapping[str, tuple[int, int]],
    prices: PriceTable | None,
    *,
    of_season: str | None = None,
    summaries: Sequence[AgentSummary] | None = None,
    events: Sequence[StoredEvent] | None = None,
) -> dict[str, Any]:
    """Return REPORT.json's ``costs`` for ``season`` (`season_costs`, then `costs_payload`)."""
    costs = season_costs(
        store, season, prices, of_season=of_season, summaries=summaries, events=events
    )
    return costs_payload(costs, values, prices)


class SeasonCosts:
    """The site's costs of each season, priced with one table, read again only when the log grew.

    Parameters
    ----------
    prices
        The price table (``None``: every model unpriced).
    """

    def __init__(self, prices: PriceTable | None) -> None:
        self.prices = prices
        self._kept: dict[tuple[str, str | None], tuple[int, dict[str, AgentCost]]] = {}
        self._lock = threading.Lock()

    def payload(
        self,
        store: Store,
        season: str,
        values: Mapping[str, tuple[int, int]],
        *,
        of_season: str | None = None,
    ) -> dict[str, Any]:
        """Return ``costs_payload`` of ``season``, read again only when the log's head moved."""
        head = store.head().seq
        key = (season, of_season)
        with self._lock:
            kept = self._kept.get(key)
            if kept is None or kept[0] != head:
                costs = season_costs(store, season, self.prices, of_season=of_season)
                self._kept.pop(key, None)
                self._kept[key] = kept = (head, costs)
                while len(self._kept) > _KEPT:
                    del self._kept[next(iter(self._kept))]
        return costs_payload(kept[1], values, self.prices)
