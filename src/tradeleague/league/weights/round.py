"""One weights-league round, live or replayed, recorded step by step (W-RND, W-SKP, W-EXE).

``play_round`` is the single code path of a round (C-2, C-11): read every
price once at the round's start; judge the reads (W-PX-4, W-MKT, W-HOLD); if
the market is closed, record why and stop; otherwise settle who takes part
(W-RND-3), ask the due agents in the order of who was asked longest ago
(W-SKP-4), in batches, each agent with the same message template, parameters
and deadline, through the one turn machinery every format shares
(``tradeleague.league.pacing`` and ``turns``); validate every answer by the
one validator (W-VAL); trade each decision through the shared
``tradeleague.sim.rebalance`` (W-EXE); and record an entry with the
portfolio's value at the round's prices for every agent that was due
(W-SCO-1). It returns the round's events; the caller appends them in one
transaction, so an interruption leaves whole rounds only.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from fractions import Fraction

from tradeleague.agents.base import Agent, AgentReply, Turn, reads_messages
from tradeleague.agents.baselines import WeightsView
from tradeleague.calls import CallParams, Outcome
from tradeleague.clock import Clock
from tradeleague.events import Event, EventKind, model_called_payload
from tradeleague.events import weights as ev
from tradeleague.feeds import PriceSource, SourceReading
from tradeleague.formats.weights import (
    AskFacts,
    Decision,
    Division,
    MarketAssessment,
    NoDecision,
    PreviousRound,
    SkipCode,
    SymbolLine,
    TurnCandidate,
    answer_schema,
    asking_order,
    assess_market,
    build_messages,
    counts_toward_pause,
    is_due,
    is_open_round,
    market_lines,
    no_decision_for,
    prompt_in_force,
    skip_before_asking,
    validate_answer,
)
from tradeleague.league.pacing import Pacing
from tradeleague.league.turns import GRACE_S
from tradeleague.league.weights.state import AgentState, SeasonState
from tradeleague.llm.records import CallKey
from tradeleague.market.mask import MaskTable
from tradeleague.money import Qty, Usd
from tradeleague.sim import Portfolio, RebalanceResult, SimError, rebalance
from tradeleague.store.portfolio import order_filled

__all__ = ["RoundConfig", "play_round"]

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundConfig:
    """How a round asks: identical parameters for every participant (C-2).

    Attributes
    ----------
    params
        Temperature, token cap, timeout and reasoning switch of every call.
    batch_size
        Agents asked at once; the next batch is asked when this one is done.
    history
        Closes per symbol shown to rule-based agents.
    benchmark
        The symbol buy-and-hold baselines hold.
    grace_s
        Seconds the league waits past ``params.timeout_s`` before it stops
        waiting for an agent; one that has not answered by then gets "No
        decision" with reason ``timeout`` (W-VAL-8).
    """

    params: CallParams = field(default_factory=lambda: CallParams(max_tokens=400, timeout_s=60))
    batch_size: int = 64
    history: int = 21
    benchmark: str = "SPY"
    grace_s: float = GRACE_S


def _reading_payload(hour: str, reading: SourceReading, assessed: MarketAssessment) -> list[dict]:  # type: ignore[type-arg]
    out = []
    for symbol, r in sorted(reading.readings.items()):
        check = assessed.checks[symbol]
        out.append(
            {
                "round": hour,
                "symbol": symbol,
                "answer": None if r.answer is None else str(r.answer),
                "decimals": r.decimals,
                "updated_at": None if r.updated_at is None else ev.iso(r.updated_at),
                "paused": r.paused,
                "multiplier": None if r.multiplier is None else [str(x) for x in r.multiplier],
                "price": None if check.price is None else str(check.price),
                "invalid": None if check.invalid is None else check.invalid.value,
                "error": r.error,
            }
        )
    return out


def _weights(book: Portfolio, prices: Mapping[str, Usd], value: int) -> dict[str, Fraction]:
    if value <= 0:
        return {}
    return {s: Fraction(book.positions[s] * prices[s], 10**6 * value) for s in book.positions}


def _participants(state: SeasonState, agents: Mapping[str, Agent], read_at: datetime) -> list[str]:
    """Return who is in the round, settled at its start (W-RND-3)."""
    return sorted(
        a.agent
        for a in state.agents.values()
        if a.created_at <= read_at and not a.paused and a.agent in agents
    )


class _Round:
    """The working state of one round while it is played."""

    def __init__(
        self,
        state: SeasonState,
        source: PriceSource,
        agents: Mapping[str, Agent],
        hour: datetime,
        clock: Clock,
        config: RoundConfig,
    ) -> None:
        self.state, self.source, self.agents = state, source, agents
        self.hour, self.clock, self.config = hour, clock, config
        self.preset = state.preset
        self.stream = state.stream
        self.round_text = ev.iso(hour)
        self.events: list[Event] = []
        # Within one round the prices, halts, symbols and preset are fixed, and the
        # validator and the rebalance are pure: equal answers validate alike and equal
        # books with equal targets trade alike (a roster of baselines gives many).
        self._answers: dict[str | None, Decision | NoDecision] = {}
        self._trades: dict[object, RebalanceResult] = {}

    def validated(self, text: str | None) -> Decision | NoDecision:
        """Return `validate_answer` of ``text`` for this round (each distinct text once).

        In a masked season the answer names pseudonyms: it is validated against
        them and its decision mapped back to the real symbols (weights unchanged).
        """
        found = self._answers.get(text)
        if found is None:
            mask = self.state.mask
            if mask is None:
                found = validate_answer(text, frozenset(self.state.symbols), self.preset)
            else:
                shown = frozenset(mask.shown_symbols(self.state.symbols))
                found = _unmasked(validate_answer(text, shown, self.preset), mask)
            self._answers[text] = found
        return found

    def traded(
        self,
        book: Portfolio,
        targets: Mapping[str, int],
        prices: Mapping[str, Usd],
        halted: frozenset[str],
    ) -> RebalanceResult:
        """Return `rebalance` of ``book`` to ``targets`` at the round's prices and halts.

        Raises
        ------
        SimError
            As `rebalance` does (a failure is not kept).
        """
        key = (book.cash, tuple(sorted(book.positions.items())), tuple(sorted(targets.items())))
        found = self._trades.get(key)
        if found is None:
            found = rebalance(book, targets, prices, halted, self.preset.rebalance)
            self._trades[key] = found
        return found

    def add(self, kind: str, payload: Mapping[str, object]) -> None:
        self.events.append(ev.event(self.stream, kind, payload, self.clock.now()))

    async def read(self) -> tuple[SourceReading, MarketAssessment]:
        read_at = self.clock.now()
        try:
            reading = await self.source.read(self.state.symbols, read_at)
        except Exception as exc:  # a node that cannot be read closes the market (W-MKT-2)
            _log.warning("price source %s failed: %s", self.source.name, type(exc).__name__)
            reading = SourceReading(read_at=read_at, node_block_time=None, readings={}, decimals={})
        prev = self.state.previous_round
        previous = (
            None if prev is None else PreviousRound(prices=prev.prices, halted=set(prev.halted))
        )
        assessed = assess_market(
            reading.readings,
            reading.decimals,
            read_at,
            reading.node_block_time,
            self.preset,
            previous=previous,
            holds=frozenset(self.state.holds),
            last_accepted=self.state.accepted,
        )
        if not reading.readings and not assessed.closed:  # pragma: no cover - defensive
            raise RuntimeError("a read with no feeds cannot open the market")
        return reading, assessed

    def facts_for(
        self,
        a: AgentState,
        prices: Mapping[str, Usd],
        lines: Sequence[SymbolLine],
        halted: frozenset[str],
        read_at: datetime,
    ) -> AskFacts:
        value = a.portfolio.equity(prices)
        prompt = prompt_in_force(a.prompts, read_at) or ""
        weights = _weights(a.portfolio, prices, value)
        mask = self.state.mask
        return AskFacts(
            time=self.hour,
            lines=lines,
            halted=halted,
            value=value,
            weights=weights if mask is None else {mask.symbol(s): w for s, w in weights.items()},
            prompt=prompt,
            when=None if mask is None else mask.when(self.hour),
        )

    def entry(
        self,
        kind: str,
        a: AgentState,
        book: Portfolio,
        prices: Mapping[str, Usd],
        extra: Mapping[str, object],
    ) -> None:
        payload: dict[str, object] = {"agent": a.agent, "round": self.round_text}
        payload.update(extra)
        payload.update(ev.book_payload(book, book.equity(prices)))
        self.add(kind, payload)


async def play_round(
    state: SeasonState,
    source: PriceSource,
    agents: Mapping[str, Agent],
    hour: datetime,
    pacing: Pacing,
    config: RoundConfig | None = None,
    *,
    forced: bool = False,
) -> list[Event]:
    """Play the round of ``hour`` and return its events, in order (see the module docstring).

    Parameters
    ----------
    state
        The season so far (not changed here; apply the returned events).
    source
        Where prices come from.
    agents
        The runtime agent of each agent id; an agent without one is not in the round.
    hour
        The round's hour (W-RND-1).
    pacing
        Live or replay (``tradeleague.league.pacing``): its clock stamps the
        events and moves on by each batch's slowest answer.
    config
        Call parameters and batch size.
    forced
        Whether an operator ran it outside the round clock (testing); recorded
        in its ``RoundStarted`` so the record says so (W-RND-1).
    """
    config = config or RoundConfig()
    clock = pacing.clock
    r = _Round(state, source, agents, hour, clock, config)
    reading, assessed = await r.read()
    read_at = reading.read_at
    for payload in _reading_payload(r.round_text, reading, assessed):
        r.add(EventKind.PRICE_READ, payload)
    for hold in assessed.new_holds:
        r.add(
            EventKind.PRICE_HELD,
            {
                "round": r.round_text,
                "symbol": hold.symbol,
                "before": str(hold.before),
                "after": str(hold.after),
            },
        )
    if not assessed.open:
        r.add(
            ev.MARKET_CLOSED,
            {
                "round": r.round_text,
                "read_at": ev.iso(read_at),
                "reasons": [c.value for c in assessed.closed],
                "status": assessed.status_text,
                "invalid": dict(assessed.invalid),
            },
        )
        return r.events
    prices = dict(assessed.prices)
    halted = assessed.halted_symbols
    day = hour.date()
    members = _participants(state, agents, read_at)
    open_round = is_open_round(hour, (x.hour for x in state.rounds))
    due = [a for a in (state.agents[m] for m in members) if is_due(a.division, open_round)]
    r.add(
        EventKind.ROUND_STARTED,
        {
            "round": r.round_text,
            "read_at": ev.iso(read_at),
            "prices": {s: str(p) for s, p in sorted(prices.items())},
            "halted": {s: [x.value for x in v] for s, v in sorted(assessed.halted.items())},
            "participants": members,
            "due": [a.agent for a in due],
            "open_round": open_round,
            "forced": forced,
            "source": source.name,
            "synthetic": source.synthetic,
            "prompt_version": state.preset.prompt_version,
            "scoring_version": state.preset.scoring_version,
        },
    )
    symbols = state.symbols
    lines = [SymbolLine(s, prices[s], source.returns(s, read_at)) for s in symbols]
    history = {s: source.history(s, read_at, config.history) for s in symbols}
    shown = _Shown.of(state.mask, symbols, prices, lines, history, halted, config.benchmark)
    market = market_lines(shown.lines)  # the market picture, rendered once per round
    schema = answer_schema(shown.symbols)
    candidates = [
        TurnCandidate(
            agent=a.agent, created_at=a.created_at, last_asked=a.last_asked, changed_at=a.changed_at
        )
        for a in due
    ]
    order = asking_order(candidates)
    open_used = state.open_turns_on(day)
    # W-RNK-4: Pro is ranked after every round, Open after its daily round only.
    ranked = {Division.PRO} | ({Division.OPEN} if open_round else set())
    for start in range(0, len(order), config.batch_size):
        batch = order[start : start + config.batch_size]
        asked_at = clock.now()
        asking: list[tuple[AgentState, Turn]] = []
        for cand in batch:
            a = state.agents[cand.agent]
            skip = skip_before_asking(
                cand, a.division, read_at, asked_at, hour, open_used, state.preset
            )
            if skip is not None:
                r.entry(EventKind.TURN_SKIPPED, a, a.portfolio, prices, {"reason_code": skip.value})
                continue
            if a.division is Division.OPEN:
                open_used += 1
            agent = agents[a.agent]
            # Prompt-blind agents (baselines, scripts) get no messages: building
            # them was most of a replay of baselines' time, and changes no event.
            messages = (
                build_messages(
                    r.facts_for(a, prices, shown.lines, shown.halted, read_at), state.preset, market
                )
                if reads_messages(agent)
                else ()
            )
            view = WeightsView(
                time=hour,
                symbols=shown.symbols,
                prices=shown.prices,
                history=shown.history,
                cash=a.portfolio.cash,
                holdings=shown.holdings(a.portfolio),
                benchmark=shown.benchmark,
                max_weight_bps=state.preset.max_weight_bps,
            )
            turn = Turn(
                format="weights",
                key=CallKey(state.season_id, r.round_text, a.agent, 0),
                messages=messages,
                params=config.params,
                json_schema=schema,
                view=view,
            )
            asking.append((a, turn))
        # W-VAL-8: no answer within the call's timeout plus the grace is a timeout.
        limit = timedelta(seconds=config.params.timeout_s + config.grace_s)
        asks = [(agents[a.agent], t) for a, t in asking]
        async with contextlib.aclosing(pacing.turns(asks, limit)) as turns:
            taken = sorted([t async for t in turns], key=lambda t: t.index)
        for (a, _turn), done in zip(asking, taken, strict=True):
            if done.fault is not None:  # a fault on the league's side: skip and log (W-SKP-3)
                r.entry(
                    EventKind.TURN_SKIPPED,
                    a,
                    a.portfolio,
                    prices,
                    {"reason_code": SkipCode.LEAGUE_FAULT.value, "fault": done.fault.fault},
                )
            elif done.reply is not None:
                _record_turn(r, a, done.reply, prices, halted, asked_at)
        # The batch took as long as its slowest answer (replay: recorded or simulated).
        slowest = max((t.latency_ms for t in taken), default=0)
        await clock.sleep_until(asked_at + timedelta(milliseconds=slowest))
    r.add(
        EventKind.ROUND_FINISHED,
        {"round": r.round_text, "ranked": sorted(d.value for d in ranked)},
    )
    return r.events


def _unmasked(found: Decision | NoDecision, mask: MaskTable) -> Decision | NoDecision:
    """Return a decision in pseudonyms with its real symbols (weights unchanged)."""
    if isinstance(found, NoDecision):
        return found
    return Decision(
        targets={mask.real(s): b for s, b in found.targets.items()},
        reason=found.reason,
        capped=tuple(sorted(mask.real(s) for s in found.capped)),
        reason_cut=found.reason_cut,
    )


@dataclass(frozen=True, slots=True)
class _Shown:
    """What a round shows its agents: the real facts, or in a masked season the masked ones."""

    mask: MaskTable | None
    symbols: tuple[str, ...]
    prices: Mapping[str, Usd]
    lines: Sequence[SymbolLine]
    history: Mapping[str, Sequence[Usd]]
    halted: frozenset[str]
    benchmark: str | None

    @classmethod
    def of(
        cls,
        mask: MaskTable | None,
        symbols: Sequence[str],
        prices: Mapping[str, Usd],
        lines: Sequence[SymbolLine],
        history: Mapping[str, Sequence[Usd]],
        halted: frozenset[str],
        benchmark: str,
    ) -> _Shown:
        bench = benchmark if benchmark in prices else None
        if mask is None:
            return cls(None, tuple(symbols), prices, lines, history, halted, bench)
        shown = [
            SymbolLine(mask.symbol(x.symbol), mask.price(x.symbol, x.price), x.returns)
            for x in lines
        ]
        return cls(
            mask,
            mask.shown_symbols(symbols),
            {mask.symbol(s): Usd(mask.price(s, p)) for s, p in prices.items()},
            sorted(shown, key=lambda x: x.symbol),  # no real order shows through
            {mask.symbol(s): [Usd(mask.price(s, c)) for c in h] for s, h in history.items()},
            frozenset(mask.symbol(s) for s in halted),
            None if bench is None else mask.symbol(bench),
        )

    def holdings(self, book: Portfolio) -> dict[str, Qty]:
        """Return ``book``'s holdings by the names shown."""
        if self.mask is None:
            return dict(book.positions)
        mask = self.mask
        return {mask.symbol(s): q for s, q in book.positions.items()}


def _record_turn(
    r: _Round,
    a: AgentState,
    reply: AgentReply,
    prices: Mapping[str, Usd],
    halted: frozenset[str],
    asked_at: datetime,
) -> None:
    for record in reply.records:
        r.add(
            EventKind.MODEL_CALLED,
            model_called_payload(agent=a.agent, round=r.round_text, record=record.to_payload()),
        )
    base: dict[str, object] = {
        "asked_at": ev.iso(asked_at),
        "outcome": reply.outcome.value,
        "text": reply.text,
        "latency_ms": reply.latency_ms,
    }
    result: Decision | NoDecision
    fault = no_decision_for(reply.outcome)
    if fault is not None and reply.outcome is not Outcome.ANSWERED:
        result = fault
    else:
        result = r.validated(reply.text)
    if isinstance(result, NoDecision):
        base.update(reason_code=result.code.value, detail=result.detail)
        r.entry(EventKind.NO_DECISION_MADE, a, a.portfolio, prices, base)
        streak = a.pause_streak + 1 if counts_toward_pause(result.code) else 0
        if a.division is Division.PRO and streak >= r.preset.pause_after_key_failures:
            r.add(ev.AGENT_PAUSED, {"agent": a.agent, "reason": result.code.value, "turns": streak})
        return
    try:
        done = r.traded(a.portfolio, result.targets, prices, halted)
    except SimError as exc:
        _log.error("rebalance of %s failed: %s", a.agent, exc)
        r.entry(
            EventKind.TURN_SKIPPED,
            a,
            a.portfolio,
            prices,
            {"reason_code": SkipCode.LEAGUE_FAULT.value, "fault": "SimError"},
        )
        return
    for fill in done.fills:
        r.events.append(
            order_filled(r.stream, a.agent, fill, r.clock.now(), {"round": r.round_text})
        )
    base.update(
        reason_code=None,
        targets={s: b for s, b in sorted(result.targets.items())},
        reason=result.reason,
        capped=list(result.capped),
        reason_cut=result.reason_cut,
        fills=len(done.fills),
        scaled=done.scaled,
    )
    r.entry(EventKind.DECISION_MADE, a, done.portfolio, prices, base)
