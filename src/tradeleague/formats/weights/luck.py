"""Beside each agent: is it told apart from its baselines, and how far luck goes (ST-1, ST-2).

**The test** (stated under every table, ``TEST_TEXT``): a paired bootstrap
(``tradeleague.stats.paired_bootstrap``) of the mean per-entry difference
between the agent's step returns and a baseline's over the same steps: 10,000
i.i.d. resamples, two-sided, at the 5% level. A result is *distinguishable*
when the bootstrap p-value is below 0.05; with fewer than ``MIN_STEPS``
entries it is *too few entries*, not tested. A distinguishable result is told
with its direction, ``better`` or ``worse`` than the baseline
(``stats.verdicts``), never a bare "yes" that reads as "beat".

**Step returns.** Entry ``i`` of an agent (W-SCO-1) gives the step return
``value_i / value_(i-1) - 1`` with ``value_0`` the starting cash, so the first
step carries the first round's trading costs.

**Baselines** over the agent's own entry rounds: *cash* returns zero every step;
*buy-and-hold* holds the whole portfolio in the benchmark (``SPY`` when the
season has it, else its first symbol) from the agent's first entry, with no
costs: its first step is zero, step ``i`` is the benchmark's move between the
prices of the agent's entry rounds ``i-1`` and ``i`` (a round without a
benchmark price keeps the last one).

**Beta and alpha** (``stats.alpha``): the agent's step returns fitted on the
benchmark's over its entries after the first, annualised by the entries' own
spacing (steps per year = steps / years between the first and last entry), with
a block-bootstrap interval seeded per agent (``alpha/<agent>``).

**Luckiest of N** (D-LCK-3 generalised by simulation). A weights table
passes its no-skill null (``tradeleague.stats.null.SeasonNull``): N agents
with no skill, N the agents in the table, simulated under the league's own
validation and fill rules over the division's recorded rounds; the line is the
luckiest of them and the quantiles their spread, resting on those rounds
(ST-1), and the cloud beside it is the same null with more agents. A table
with no such null (the scenario league's) shows instead the expected best
season return of N agents each drawing as many steps as the table's longest
record from the benchmark's step returns over that record's rounds
(``tradeleague.stats.luckiest_of_n``: the benchmark's risk, in random order),
resting on that many entries.

Pure: every draw comes from the generators ``rng_for`` hands out, one per label.
The resamples of the test are drawn once per number of entries (label
``resamples/<entries>``, `tradeleague.stats.Resampling`) and shared by every
agent with that many entries, against both baselines: a thousand agents cost
one draw, and a row's verdict does not depend on the other rows.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, Final

import numpy as np

from tradeleague.formats.weights.scoring import AgentRecord
from tradeleague.stats import (
    AlphaBeta,
    AlphaFit,
    Outcome,
    Resampling,
    alpha_betas,
    luckiest_of_n,
    outcome,
    percent,
    round_half_up,
    verdict_words,
)
from tradeleague.stats.null import SeasonNull

__all__ = [
    "ALPHA_RESAMPLES",
    "CONFIDENCE",
    "MIN_STEPS",
    "RESAMPLES",
    "SIMULATIONS",
    "TEST_TEXT",
    "AgentLuck",
    "BaselineVerdict",
    "TableLuck",
    "Verdict",
    "agent_luck",
    "agent_step_returns",
    "benchmark_step_returns",
    "benchmark_symbol",
    "table_luck",
]

RESAMPLES: Final = 10_000
"""Bootstrap resamples per verdict."""
CONFIDENCE: Final = 0.95
"""The test's level is ``1 - CONFIDENCE`` (5%)."""
MIN_STEPS: Final = 5
"""Fewer entries than this are not tested ("too few entries")."""
SIMULATIONS: Final = 2_000
ALPHA_RESAMPLES: Final = 2_000
"""Block-bootstrap resamples behind each alpha and beta interval."""
"""Simulated seasons of N no-skill agents behind the luckiest-of-N line."""
TEST_TEXT: Final = (
    "Test: paired bootstrap of the mean per-entry step-return difference against cash "
    f"and against buy-and-hold of the benchmark, {RESAMPLES:,} resamples, two-sided, 5% "
    f"level; fewer than {MIN_STEPS} entries are not tested."
)
"""The stated test (ST-2), printed under every table."""

RngFor = Callable[[str], np.random.Generator]
"""A seeded generator for a label (``"resamples/<entries>"``, ``"luckiest"``)."""

ResamplingFor = Callable[[int], Resampling]
"""The shared resamples of a table for a number of entries (`resamplings`)."""


def resamplings(rng_for: RngFor) -> ResamplingFor:
    """Return the table's resamples per number of entries, each drawn once from its label."""
    drawn: dict[int, Resampling] = {}

    def of(steps: int) -> Resampling:
        if steps not in drawn:
            rng = rng_for(f"resamples/{steps}")
            drawn[steps] = Resampling(steps, rng=rng, resamples=RESAMPLES)
        return drawn[steps]

    return of


class Verdict(enum.StrEnum):
    """Whether a result is told apart from a baseline (ST-2), without its direction.

    Kept for the ``verdict`` key of earlier reports; ``Outcome`` says the direction.
    """

    DISTINGUISHABLE = "distinguishable"
    NOT_DISTINGUISHABLE = "not distinguishable"
    TOO_FEW = "too few entries"


@dataclass(frozen=True, slots=True, kw_only=True)
class BaselineVerdict:
    """One agent against one baseline.

    Attributes
    ----------
    outcome
        The outcome of the test with its direction: better, worse, not
        distinguishable, too few.
    steps
        Entries (paired steps) it rests on (ST-1).
    p_value
        The bootstrap p-value; ``None`` when not tested.
    mean_difference
        Mean per-step return difference, agent minus baseline (a fraction); ``None``
        when not tested.
    """

    outcome: Outcome
    steps: int
    p_value: float | None = None
    mean_difference: float | None = None

    @property
    def verdict(self) -> Verdict:
        """Return the outcome without its direction (the older ``verdict`` key)."""
        if self.outcome is Outcome.TOO_FEW:
            return Verdict.TOO_FEW
        if self.outcome is Outcome.NOT_DISTINGUISHABLE:
            return Verdict.NOT_DISTINGUISHABLE
        return Verdict.DISTINGUISHABLE

    def words(self, baseline: str) -> str:
        """Return the verdict in words with its p-value: ``worse than cash (p=0.017)``."""
        text = verdict_words(self.outcome, baseline)
        if self.p_value is None:
            return text
        return f"{text} (p={round_half_up(self.p_value, 3)})"

    def to_payload(self) -> dict[str, Any]:
        """Return JSON-safe values: the outcome, the p-value (4 places) and the steps."""
        return {
            "verdict": self.verdict.value,
            "outcome": self.outcome.value,
            "p_value": None if self.p_value is None else str(round_half_up(self.p_value, 4)),
            "steps": self.steps,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentLuck:
    """One row's verdicts against cash and buy-and-hold, and its beta and alpha.

    ``alpha`` fits the agent's step returns on the benchmark's over the entries
    after its first (the benchmark is held from the first entry, so its first
    step is no move), ``None`` with too few; ``steps`` are those pairs, the
    agent's return then the benchmark's, for the agent page's scatter.
    """

    agent: str
    vs_cash: BaselineVerdict
    vs_buy_and_hold: BaselineVerdict
    alpha: AlphaBeta | None = None
    steps: tuple[tuple[float, float], ...] = ()

    def alpha_payload(self) -> dict[str, Any] | None:
        """Return the beta and alpha figures for JSON (``None`` when not fitted)."""
        return None if self.alpha is None else self.alpha.to_payload()


@dataclass(frozen=True, slots=True, kw_only=True)
class TableLuck:
    """A table's ST-2 columns and its luckiest-of-N line.

    Attributes
    ----------
    benchmark
        The buy-and-hold baseline's symbol, ``None`` for a season with no symbols.
    agents
        N, the agents in the table.
    steps
        Entries the luckiest-of-N line rests on (the longest record's).
    luckiest
        The expected best season return of N no-skill agents (a fraction); ``None``
        with fewer than two entries to draw from.
    rows
        The verdicts by agent id.
    simulated
        Whether the line is the table's no-skill null under the league's rules (a
        weights table): then ``luckiest`` is ``None`` and ``null`` holds the line.
    null
        That null; ``None`` while the division has no agent or no round.
    """

    benchmark: str | None
    agents: int
    steps: int
    luckiest: float | None
    rows: Mapping[str, AgentLuck]
    simulated: bool = False
    null: SeasonNull | None = None

    @property
    def luckiest_pct(self) -> Decimal | None:
        """Return the luckiest-of-N line in percent, rounded by ST-3."""
        return None if self.luckiest is None else percent(self.luckiest)

    @property
    def caption(self) -> str:
        """Return the table's caption line: the luckiest-of-N line and the entries behind it."""
        if self.null is not None:
            n, q = self.null.line, self.null.line.quantiles
            return (
                f"Luckiest of {n.agents} agents with no skill: {self.null.expected_best:+.2f}% "
                f"expected (the best of {n.agents} {self.null.kind.value} agents, averaged over "
                f"{self.null.seasons} simulated seasons under {self.null.rules} over {n.rounds} "
                f"rounds, seed {self.null.seed}; one season of {n.agents}: best "
                f"{n.luckiest:+.2f}%, median {q['p50']:+.2f}%, 95th percentile {q['p95']:+.2f}%)."
            )
        if self.simulated:
            return f"Luckiest of {self.agents} agents with no skill: - (no round yet)."
        line = self.luckiest_pct
        if line is None:
            return f"Luckiest of {self.agents} agents with no skill: - (too few entries)."
        return (
            f"Luckiest of {self.agents} agents with no skill: {line:+.2f}% "
            f"(simulated from {self.benchmark} over {self.steps} entries)."
        )

    def to_payload(self) -> dict[str, Any]:
        """Return the line and the stated test as JSON-safe values (ST-1, ST-2).

        A simulated line (``simulated``) holds what ``tradeleague stats null --json``
        prints for the same rounds, agents and seed, with the kind and the seed:
        ``None`` figures while the division has no agent or no round.
        """
        test = {
            "test": TEST_TEXT,
            "benchmark": self.benchmark,
            "resamples": RESAMPLES,
            "level": str(round_half_up(1 - CONFIDENCE, 2)),
            "min_entries": MIN_STEPS,
        }
        if self.simulated:
            return {**test, "luckiest_of_n": self._null_line()}
        line = self.luckiest_pct
        return {
            **test,
            "luckiest_of_n": {
                "agents": self.agents,
                "entries": self.steps,
                "simulations": SIMULATIONS,
                "expected_best_return": None if line is None else str(line),
            },
        }

    def _null_line(self) -> dict[str, Any]:
        n = None if self.null is None else self.null.line
        rules = "the league's rules" if self.null is None else self.null.rules
        return {
            "method": f"simulated under {rules}",
            "kind": None if self.null is None else self.null.kind.value,
            "seed": None if self.null is None else self.null.seed,
            "agents": self.agents,
            "rounds": 0 if n is None else n.rounds,
            "quantiles": None if n is None else {k: str(v) for k, v in n.quantiles.items()},
            "luckiest": None if n is None else str(n.luckiest),
            "expected_best": None if self.null is None else str(self.null.expected_best),
            "seasons": 0 if self.null is None else self.null.seasons,
        }


def benchmark_symbol(symbols: Sequence[str]) -> str | None:
    """Return the benchmark: ``SPY`` when present, else the first symbol, else ``None``."""
    if "SPY" in symbols:
        return "SPY"
    return symbols[0] if symbols else None


def agent_step_returns(start_cash: int, values: Sequence[int]) -> list[float]:
    """Return the step returns of entry values (micro-dollars) from ``start_cash``.

    A step from a value of zero or less returns ``-1`` if it fell further, else ``0``.
    """
    out: list[float] = []
    before = start_cash
    for value in values:
        out.append(value / before - 1.0 if before > 0 else (-1.0 if value < before else 0.0))
        before = value
    return out


def benchmark_step_returns(prices: Sequence[int | None]) -> list[float]:
    """Return buy-and-hold's step returns at the given prices: 0 first, then each move.

    A missing price (``None``) keeps the last known one (a zero step).
    """
    out: list[float] = []
    last: int | None = None
    for price in prices:
        if price is not None and price > 0:
            out.append(0.0 if last is None else price / last - 1.0)
            last = price
        else:
            out.append(0.0)
    return out


def _verdicts(
    pairs: Sequence[tuple[Sequence[float], Sequence[float]]], resampling: ResamplingFor
) -> list[BaselineVerdict]:
    """Return each (agent, baseline) pair's verdict, the pairs of one length tested at once."""
    out: list[BaselineVerdict | None] = [None] * len(pairs)
    by_steps: dict[int, list[int]] = {}
    for i, (agent, _baseline) in enumerate(pairs):
        steps = len(agent)
        if steps < MIN_STEPS:
            out[i] = BaselineVerdict(outcome=Outcome.TOO_FEW, steps=steps)
        else:
            by_steps.setdefault(steps, []).append(i)
    for steps, indices in by_steps.items():
        tested = [pairs[i] for i in indices]
        results = resampling(steps).test_many(tested, confidence=CONFIDENCE)
        for i, result in zip(indices, results, strict=True):
            out[i] = BaselineVerdict(
                outcome=outcome(result),
                steps=steps,
                p_value=result.p_value,
                mean_difference=result.mean_difference,
            )
    return [v for v in out if v is not None]


@dataclass(frozen=True, slots=True)
class _Series:
    """One record's step returns, its benchmark's over the same entries, and its alpha's inputs."""

    agent: list[float]
    held: list[float]
    periods_per_year: float | None


def _series(
    record: AgentRecord, start_cash: int, benchmark_prices: Mapping[datetime, int]
) -> _Series:
    agent = agent_step_returns(start_cash, [e.value for e in record.entries])
    held = benchmark_step_returns([benchmark_prices.get(e.round) for e in record.entries])
    rounds = [e.round for e in record.entries]
    periods = None
    if len(rounds) > 1 and rounds[-1] > rounds[0]:
        years = (rounds[-1] - rounds[0]).total_seconds() / (365.25 * 86_400)
        periods = (len(rounds) - 1) / years
    return _Series(agent, held, periods)


def _lucks(
    records: Sequence[AgentRecord],
    *,
    start_cash: int,
    benchmark_prices: Mapping[datetime, int],
    rng_for: RngFor,
    resampling: ResamplingFor,
) -> list[AgentLuck]:
    """Return each record's row, every record's tests against one baseline taken at once."""
    series = [_series(r, start_cash, benchmark_prices) for r in records]
    vs_cash = _verdicts([(s.agent, [0.0] * len(s.agent)) for s in series], resampling)
    vs_held = _verdicts([(s.agent, s.held) for s in series], resampling)
    fitted = [i for i, s in enumerate(series) if s.periods_per_year is not None]
    fits = alpha_betas(
        [
            AlphaFit(
                series[i].agent[1:],
                series[i].held[1:],
                rng_for(f"alpha/{records[i].agent}"),
                series[i].periods_per_year or 0.0,
            )
            for i in fitted
        ],
        resamples=ALPHA_RESAMPLES,
    )
    alphas: dict[int, AlphaBeta | None] = dict(zip(fitted, fits, strict=True))
    rows: list[AgentLuck] = []
    for i, (record, s, cash, held) in enumerate(
        zip(records, series, vs_cash, vs_held, strict=True)
    ):
        rows.append(
            AgentLuck(
                agent=record.agent,
                vs_cash=cash,
                vs_buy_and_hold=held,
                alpha=alphas.get(i),
                steps=tuple(zip(s.agent[1:], s.held[1:], strict=True)),
            )
        )
    return rows


def agent_luck(
    record: AgentRecord,
    *,
    start_cash: int,
    benchmark_prices: Mapping[datetime, int],
    rng_for: RngFor,
    resampling: ResamplingFor | None = None,
) -> AgentLuck:
    """Return one record's verdicts against cash and buy-and-hold, and its alpha (see below).

    ``resampling`` is the table's (`resamplings` of ``rng_for``), drawn here
    when not given: the same figures either way, and the same as the record's
    row of `table_luck`.
    """
    shared = resamplings(rng_for) if resampling is None else resampling
    (row,) = _lucks(
        [record],
        start_cash=start_cash,
        benchmark_prices=benchmark_prices,
        rng_for=rng_for,
        resampling=shared,
    )
    return row


def table_luck(
    records: Sequence[AgentRecord],
    *,
    start_cash: int,
    benchmark: str | None,
    benchmark_prices: Mapping[datetime, int],
    rng_for: RngFor,
    null: SeasonNull | None = None,
    simulated: bool = False,
) -> TableLuck:
    """Return the ST-2 verdicts of every record and the table's luckiest-of-N line.

    Parameters
    ----------
    records
        The table's agents (all of them: N counts ranked and unranked alike).
    start_cash
        Every agent's starting value, micro-dollars.
    benchmark
        The buy-and-hold symbol (``benchmark_symbol``).
    benchmark_prices
        The benchmark's reference price at each round hour, micro-dollars.
    rng_for
        A seeded generator per label (see the module notes).
    null
        The table's no-skill null under the league's rules (``None`` while it has
        no agent or no round).
    simulated
        Whether the line is the null (a weights table): no resampled line is drawn.
    """
    lucks = _lucks(
        records,
        start_cash=start_cash,
        benchmark_prices=benchmark_prices,
        rng_for=rng_for,
        resampling=resamplings(rng_for),
    )
    rows = {row.agent: row for row in lucks}
    longest: list[float] = []
    for record in records:
        if len(record.entries) > len(longest):
            prices = [benchmark_prices.get(e.round) for e in record.entries]
            longest = benchmark_step_returns(prices)
    steps = len(longest)
    line: float | None = None
    if steps >= 2 and records and not simulated:
        line = luckiest_of_n(
            longest[1:],
            agents=len(records),
            steps=steps,
            rng=rng_for("luckiest"),
            simulations=SIMULATIONS,
        ).expected_best
    return TableLuck(
        benchmark=benchmark,
        agents=len(records),
        steps=steps,
        luckiest=line,
        rows=rows,
        simulated=simulated,
        null=null,
    )
