"""The toy's seasons in a store: the tape, the agents, one round played, the whole replay.

A season is the stream ``toy/<id>`` (``events.streams.season_stream``). It opens
with ``SeasonStarted`` and an ``AccountOpened`` per agent; each round asks every
agent through the shared ``Pacing.turns``, records ``DecisionMade`` or
``NoDecisionMade`` (or ``TurnSkipped``), the fills of the shared rebalance as
``OrderFilled`` and ``RoundFinished``, in one transaction; its state is folded
back from those events, so running the same replay again resumes it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final

from tradeleague.agents.base import Agent, AgentReply, Turn
from tradeleague.agents.seeds import agent_seed
from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.clock import ReplayClock
from tradeleague.disclaimer import DISCLAIMER
from tradeleague.events import Event, EventKind, utc_iso
from tradeleague.events.streams import season_stream
from tradeleague.league.pacing import Pacing, ReplayPacing
from tradeleague.llm.records import CallKey
from tradeleague.market import Dataset, synthetic_dataset
from tradeleague.money import Usd
from tradeleague.sim import Portfolio, fold_account, rebalance
from tradeleague.store import Store
from tradeleague.store.portfolio import account_opened, order_filled

from .rules import CASH, board, parse_pick, targets, value_of

__all__ = [
    "BASELINES",
    "KEY",
    "ToySeason",
    "make_agent",
    "tape",
]

KEY: Final = "toy"
SYMBOLS: Final = ("AAA", "BBB", "CCC")
CASH_START: Final = Usd(10_000_000_000)
LIMIT: Final = timedelta(seconds=30)
BASELINES: Final = ("first", "last", "cash", "coin")


def tape(seed: int, days: int) -> Dataset:
    """Return the season's bars: three synthetic daily random walks (labelled synthetic)."""
    return synthetic_dataset(len(SYMBOLS), days + 1, seed=seed, symbols=SYMBOLS)


def round_times(bars: Dataset) -> list[datetime]:
    """Return the rounds' instants: every bar's close but the first."""
    return [bars.bar_close_time(bar) for bar in bars.bars(SYMBOLS[0])[1:]]


@dataclass
class _Baseline:
    """A toy baseline: answers with a symbol's name, as any agent would."""

    name: str
    rule: str
    seed: int
    kind: str = "baseline"
    turns: int = 0

    def resume(self, turns: int) -> None:
        """Continue as if ``turns`` turns had been taken (the coin's draws depend on them)."""
        self.turns = max(self.turns, turns)

    async def answer(self, turn: Turn) -> AgentReply:
        """Answer with the rule's pick among the round's symbols."""
        symbols: Sequence[str] = turn.view if isinstance(turn.view, tuple) else SYMBOLS
        choices = {"first": symbols[0], "last": symbols[-1], "cash": CASH}
        if self.rule in choices:
            text = choices[self.rule]
        else:
            text = random.Random(self.seed + self.turns).choice([*symbols, CASH])
        self.turns += 1
        return AgentReply(outcome=Outcome.ANSWERED, text=text)


def make_agent(season: str, name: str, spec: str) -> Agent:
    """Return the agent ``spec`` names (a toy baseline: first, last, cash or coin)."""
    if spec not in BASELINES:
        raise ValueError(f"no toy agent {spec!r}; choose one of: {', '.join(BASELINES)}")
    return _Baseline(name, spec, agent_seed(season, name))


@dataclass
class State:
    """A season folded from its events."""

    agents: list[str] = field(default_factory=list)
    rounds: list[str] = field(default_factory=list)
    books: dict[str, Portfolio] = field(default_factory=dict)
    decisions: dict[str, int] = field(default_factory=dict)
    turns: dict[str, int] = field(default_factory=dict)
    values: dict[str, Usd] = field(default_factory=dict)
    ended: bool = False

    def fold(self, event: Event) -> None:
        """Apply one event of the season."""
        kind, payload = event.kind, event.payload_view
        if kind == EventKind.SEASON_STARTED:
            agents = payload["agents"]
            self.agents = [str(a) for a in agents] if isinstance(agents, list) else []
        elif kind in (EventKind.ACCOUNT_OPENED, EventKind.ORDER_FILLED):
            account = str(payload["account"])
            self.books[account] = fold_account(self.books.get(account), kind, payload)
        elif kind in (EventKind.DECISION_MADE, EventKind.NO_DECISION_MADE, EventKind.TURN_SKIPPED):
            agent = str(payload["agent"])
            self.turns[agent] = self.turns.get(agent, 0) + 1
            if kind == EventKind.DECISION_MADE:
                self.decisions[agent] = self.decisions.get(agent, 0) + 1
        elif kind == EventKind.ROUND_FINISHED:
            self.rounds.append(str(payload["round"]))
            values = payload["values"]
            if isinstance(values, dict):
                self.values = {str(a): Usd(int(str(v))) for a, v in values.items()}
        elif kind == EventKind.SEASON_ENDED:
            self.ended = True


class ToySeason:
    """One toy season in ``store``: opened (or taken up), played a round at a time."""

    def __init__(self, store: Store, season: str, roster: Mapping[str, str], bars: Dataset) -> None:
        self.store = store
        self.season = season
        self.stream = season_stream(KEY, season)
        self.roster = dict(roster)
        self.bars = bars
        self.times = round_times(bars)
        self.agents = {name: make_agent(season, name, spec) for name, spec in self.roster.items()}

    def state(self) -> State:
        """Return the season folded from its events."""
        state = State()
        for stored in self.store.events(self.stream):
            state.fold(stored.event)
        return state

    def open(self) -> State:
        """Open the season if it has no events yet; resume the agents from the record."""
        state = self.state()
        if not state.agents:
            at = self.times[0]
            opening = [
                Event(
                    self.stream,
                    EventKind.SEASON_STARTED,
                    {
                        "season": self.season,
                        "format": KEY,
                        "agents": list(self.roster),
                        "specs": dict(self.roster),
                        "data": self.bars.label,
                    },
                    at,
                ),
                *(account_opened(self.stream, name, CASH_START, at) for name in self.roster),
            ]
            self.store.append(opening)
            state = self.state()
        elif state.agents != list(self.roster):
            raise ValueError(
                f"season {self.season!r} was opened with agents {', '.join(state.agents)}"
            )
        for name, agent in self.agents.items():
            resume = getattr(agent, "resume", None)
            if resume is not None:
                resume(state.turns.get(name, 0))
        return state

    def round_id(self, at: datetime) -> str:
        """Return the id of the round at ``at``: its instant in UTC."""
        return utc_iso(at)

    def prices(self, at: datetime) -> dict[str, Usd]:
        """Return every symbol's latest price observable at ``at``."""
        seen = {s: self.bars.latest_price_at(s, at) for s in SYMBOLS}
        return {s: p for s, p in seen.items() if p is not None}

    async def play(self, at: datetime, pacing: Pacing) -> list[Event]:
        """Play the round at ``at`` and append its events in one transaction."""
        state = self.open()
        rid = self.round_id(at)
        if rid in state.rounds:
            return []
        await pacing.ask(at)
        prices = self.prices(at)
        lines = "\n".join(f"{s}: {p / 1_000_000:.2f}" for s, p in sorted(prices.items()))
        messages = (
            Message("system", "Name one symbol to hold until the next round, or CASH."),
            Message("user", f"Prices at {rid}:\n{lines}\nAnswer with the symbol only."),
        )
        asks = [
            (
                agent,
                Turn(
                    format=KEY,
                    key=CallKey(self.season, rid, name),
                    messages=messages,
                    params=CallParams(),
                    view=tuple(sorted(prices)),
                ),
            )
            for name, agent in self.agents.items()
        ]
        books = dict(state.books)
        out: list[Event] = []
        async for taken in pacing.turns(asks, LIMIT):
            name = list(self.agents)[taken.index]
            reply = taken.reply
            if reply is None:
                out.append(self._turn(EventKind.TURN_SKIPPED, name, rid, at, "league_fault"))
                continue
            pick = parse_pick(reply.text if reply.outcome == Outcome.ANSWERED else None, SYMBOLS)
            if pick.symbol is None:
                reason = pick.reason if reply.outcome == Outcome.ANSWERED else reply.outcome.value
                out.append(self._turn(EventKind.NO_DECISION_MADE, name, rid, at, reason, reply))
                continue
            out.append(self._turn(EventKind.DECISION_MADE, name, rid, at, None, reply, pick.symbol))
            result = rebalance(books[name], targets(pick.symbol), prices)
            books[name] = result.portfolio
            out.extend(order_filled(self.stream, name, f, at, {"round": rid}) for f in result.fills)
        values = {name: str(value_of(books[name], prices)) for name in self.agents}
        out.append(
            Event(self.stream, EventKind.ROUND_FINISHED, {"round": rid, "values": values}, at)
        )
        self.store.append(out)
        return out

    def _turn(
        self,
        kind: str,
        agent: str,
        rid: str,
        at: datetime,
        reason: str | None,
        reply: AgentReply | None = None,
        pick: str | None = None,
    ) -> Event:
        payload: dict[str, Any] = {"agent": agent, "round": rid}
        if reason is not None:
            payload["reason_code"] = reason
        if pick is not None:
            payload["pick"] = pick
        if reply is not None and reply.text is not None:
            payload["text"] = reply.text
        return Event(self.stream, kind, payload, at)

    def close(self) -> None:
        """Record ``SeasonEnded`` once every round is played."""
        state = self.state()
        if not state.ended and len(state.rounds) == len(self.times):
            self.store.append(
                [
                    Event(
                        self.stream, EventKind.SEASON_ENDED, {"season": self.season}, self.times[-1]
                    )
                ]
            )


async def replay(season: ToySeason) -> int:
    """Play every round not yet recorded, in order, then close; return the rounds played."""
    played = 0
    state = season.open()
    clock = ReplayClock(season.times[0])
    pacing = ReplayPacing(clock)
    for at in season.times:
        if season.round_id(at) in state.rounds:
            continue
        clock.set(at)
        await season.play(at, pacing)
        played += 1
    season.close()
    return played


def report(store: Store, season: str) -> dict[str, Any] | None:
    """Return the season's REPORT.json, or None when the store holds no such toy season."""
    state = State()
    for stored in store.events(season_stream(KEY, season)):
        state.fold(stored.event)
    if not state.agents:
        return None
    values = state.values or {a: CASH_START for a in state.agents}
    rows = board(values, state.decisions, CASH_START)
    return {
        "format": KEY,
        "season": season,
        "rounds": len(state.rounds),
        "ended": state.ended,
        "board": [
            {
                "rank": r.rank,
                "agent": r.agent,
                "value_micros": str(r.value),
                "return_ppm": r.return_ppm,
                "decisions": r.decisions,
            }
            for r in rows
        ],
        "disclaimer": DISCLAIMER,
    }
