"""``REPORT.json`` of a weights season: every entry, every round's prices, the tables.

Anyone can recompute every entry from the report and the recorded answers
alone: each round lists its prices and halted symbols (and whether an operator
forced it outside the round clock, and whether it was the day's Open round),
each entry its value, cash and holdings, and the answer behind it (the targets in percent
after the 40% cap, the reason, the symbols the cap cut). Amounts are exact decimal strings
(micro-dollar, micro-token precision); percentages are rounded as W-SCO-2.

A season whose symbols were read from the chain also carries ``universe``: the
recorded ``UniverseChosen`` payload, every input the universe was built from
(W-UNI-1). A season over a fixed list of symbols has no such key.

Each agent also carries ``vs_cash`` and ``vs_buy_and_hold`` (ST-2: whether its
result is told apart from each baseline, by the test stated in ``significance``),
and ``significance`` holds each division's luckiest-of-N line: the no-skill
null of `tradeleague.league.weights.null` over the division's recorded rounds,
N the division's agents, with the rounds it rests on (ST-1), its kind and its
seed. ``season_luck`` computes them from the state, with generators and the
null's seed derived from the season id, so the same season gives the same numbers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any

import numpy as np

from tradeleague.agents.cutoff import training_cutoff
from tradeleague.disclaimer import DISCLAIMER
from tradeleague.events import weights as ev
from tradeleague.formats.weights import AgentRecord, Division
from tradeleague.formats.weights.luck import (
    AgentLuck,
    TableLuck,
    agent_luck,
    benchmark_symbol,
    table_luck,
)
from tradeleague.league.weights.null import season_null
from tradeleague.league.weights.state import SeasonState
from tradeleague.money import micros_to_str

__all__ = ["agent_season_luck", "build_report", "paper_values", "season_luck", "season_rng"]


def season_rng(season_id: str, division: Division, label: str) -> np.random.Generator:
    """Return the generator of ``label`` in a division's table, seeded from the season id."""
    text = f"{season_id}/{division.value}/{label}".encode()
    seed = int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")
    return np.random.default_rng(seed)


def _benchmark(state: SeasonState) -> tuple[str | None, dict[datetime, int]]:
    symbol = benchmark_symbol(state.symbols)
    prices = {r.hour: int(r.prices[symbol]) for r in state.rounds if symbol in r.prices}
    return symbol, prices


def season_luck(state: SeasonState, division: Division) -> TableLuck:
    """Return ``division``'s ST-2 verdicts and luckiest-of-N line (ST-1, ST-2).

    The line is the division's no-skill null (``season_null``), N its agents.
    """
    symbol, prices = _benchmark(state)
    records = [a.record() for a in state.agents.values() if a.division is division]
    return table_luck(
        records,
        start_cash=state.preset.start_cash,
        benchmark=symbol,
        benchmark_prices=prices,
        rng_for=lambda label: season_rng(state.season_id, division, label),
        null=season_null(state, division, len(records)),
        simulated=True,
    )


def agent_season_luck(state: SeasonState, agent: str) -> AgentLuck:
    """Return one agent's ST-2 verdicts, the same as its row in ``season_luck``."""
    a = state.agents[agent]
    record: AgentRecord = a.record()
    _, prices = _benchmark(state)
    return agent_luck(
        record,
        start_cash=state.preset.start_cash,
        benchmark_prices=prices,
        rng_for=lambda label: season_rng(state.season_id, a.division, label),
    )


def build_report(
    state: SeasonState, luck: Mapping[Division, TableLuck] | None = None
) -> dict[str, Any]:
    """Return the report of ``state`` as JSON-safe values (see the module docstring).

    Parameters
    ----------
    state
        The season.
    luck
        Each division's ``season_luck``, when already computed (it is computed otherwise).
    """
    preset = state.preset
    rows = {row.agent: row for d in Division for row in state.table(d)}
    luck = {d: season_luck(state, d) for d in Division} if luck is None else luck
    agents: list[dict[str, Any]] = []
    start = state.window.start.date() if state.window is not None else date.min
    for a in state.agents.values():
        entries = [e for e in a.entries]
        holdings_by_entry = _entry_books(state, a.agent)
        answers_by_entry = _entry_answers(state, a.agent)
        row = rows[a.agent]
        agents.append(
            {
                "name": a.name,
                "division": a.division.value,
                "entries": [
                    {
                        "round": ev.iso(e.round),
                        "kind": e.kind.value,
                        "reason_code": e.reason_code,
                        **holdings_by_entry[i],
                        **answers_by_entry[i],
                    }
                    for i, e in enumerate(entries)
                ],
                "trades": a.trades,
                "season_return": str(row.season_return),
                "max_drawdown": str(row.max_drawdown),
                "rank": row.rank,
                "unranked_reason": None
                if row.unranked_reason is None
                else row.unranked_reason.value,
                "vs_cash": luck[a.division].rows[a.agent].vs_cash.to_payload(),
                "vs_buy_and_hold": luck[a.division].rows[a.agent].vs_buy_and_hold.to_payload(),
                "alpha": luck[a.division].rows[a.agent].alpha_payload(),
                "training_cutoff": training_cutoff(a.spec, start),
            }
        )
    universe = {} if state.universe is None else {"universe": state.universe}
    return {
        "disclaimer": DISCLAIMER,
        "season": state.season_id,
        "source": state.source,
        "synthetic": state.synthetic,
        "scoring_version": preset.scoring_version,
        "prompt_version": preset.prompt_version,
        **universe,  # only a season whose symbols were read from the chain
        "agents": agents,
        "significance": {d.value: luck[d].to_payload() for d in Division},
        "rounds": [
            {
                "time": ev.iso(r.hour),
                "prices": {s: micros_to_str(p) for s, p in sorted(r.prices.items())},
                "halted": sorted(r.halted),
                "forced": r.forced,
                "open_round": r.open_round,
            }
            for r in state.rounds
        ],
        "closed_rounds": [
            {"time": ev.iso(h), "reasons": reasons}
            for h, reasons in sorted(state.closed_hours.items())
        ],
    }


def _entry_answers(state: SeasonState, agent: str) -> list[dict[str, Any]]:
    """Each entry's answer: targets as percent strings (two places), reason, capped symbols."""
    return [
        {
            "targets": None
            if answer.targets is None
            else {s: f"{v // 100}.{v % 100:02d}" for s, v in answer.targets.items()},
            "reason": answer.reason,
            "capped": list(answer.capped),
        }
        for answer in state.entry_answers.get(agent, [])
    ]


def _entry_books(state: SeasonState, agent: str) -> list[dict[str, Any]]:
    books = state.entry_books.get(agent, [])
    return [
        {
            "value": micros_to_str(value),
            "cash": micros_to_str(cash),
            "holdings": {s: micros_to_str(q) for s, q in sorted(holdings.items())},
        }
        for value, cash, holdings in books
    ]


def paper_values(
    state: SeasonState, divisions: Sequence[Division] = tuple(Division)
) -> dict[str, tuple[int, int]]:
    """Return each agent's starting cash and latest value (micro-dollars), in table order."""
    start = int(state.preset.start_cash)
    return {row.agent: (start, int(row.value)) for d in divisions for row in state.table(d)}
