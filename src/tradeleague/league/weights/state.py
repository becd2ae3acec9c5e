"""The state of a weights season, folded from its events (DESIGN principle 4).

``SeasonState.apply`` is the one fold that live rounds, replays, resumes, the
tables, the report and the read API all use: nothing about a season is known
except what its events say.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from tradeleague.events import Event, EventKind
from tradeleague.events import weights as ev
from tradeleague.formats.weights import (
    AgentRecord,
    Division,
    Entry,
    EntryKind,
    SeasonWindow,
    TableRow,
    WeightsPreset,
    counts_toward_pause,
    rank_table,
)
from tradeleague.market.mask import MaskTable, mask_from_payload
from tradeleague.money import Qty, Usd
from tradeleague.sim import Portfolio, fold_account

__all__ = ["AgentState", "RoundRecord", "SeasonState"]

_ENTRY_KIND = {
    EventKind.DECISION_MADE.value: EntryKind.DECISION,
    EventKind.NO_DECISION_MADE.value: EntryKind.NO_DECISION,
    EventKind.TURN_SKIPPED.value: EntryKind.SKIPPED,
}


def _time(text: object) -> datetime:
    return datetime.fromisoformat(str(text).replace("Z", "+00:00"))


@dataclass(slots=True)
class AgentState:
    """One agent as its events leave it."""

    agent: str
    name: str
    owner: str
    division: Division
    spec: str
    created_at: datetime
    prompts: list[tuple[datetime, str]] = field(default_factory=list)
    portfolio: Portfolio = field(default_factory=lambda: Portfolio.open(Usd(0)))
    entries: list[Entry] = field(default_factory=list)
    trades: int = 0
    last_asked: datetime | None = None
    changed_at: datetime | None = None
    paused: bool = False
    pause_reason: str | None = None
    """Why the agent is paused (the operator's words, or a W-VAL-9 skip code); None when not."""
    pause_streak: int = 0
    key_last4: str | None = None
    reasons: list[tuple[datetime, str]] = field(default_factory=list)

    def record(self) -> AgentRecord:
        """Return what the table needs."""
        return AgentRecord(
            agent=self.agent,
            name=self.name,
            created_at=self.created_at,
            entries=tuple(self.entries),
            trades=self.trades,
        )


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A round as recorded: its hour, its prices, its halted symbols and how it ran."""

    hour: datetime
    read_at: datetime
    prices: dict[str, Usd]
    halted: dict[str, list[str]]
    forced: bool = False
    """An operator ran it outside the round clock (testing, W-RND-1)."""
    open_round: bool = False
    """It was its day's Open round (W-DIV-1)."""


@dataclass(slots=True, repr=False)
class SeasonState:
    """A season folded from its events."""

    stream: str
    preset: WeightsPreset = field(default_factory=WeightsPreset)
    season_id: str = ""
    window: SeasonWindow | None = None
    symbols: tuple[str, ...] = ()
    decimals: dict[str, int] = field(default_factory=dict)
    source: str = ""
    synthetic: bool = False
    replay: bool = False
    agents: dict[str, AgentState] = field(default_factory=dict)
    rounds: list[RoundRecord] = field(default_factory=list)
    closed_hours: dict[datetime, list[str]] = field(default_factory=dict)
    holds: set[str] = field(default_factory=set)
    accepted: dict[str, Usd] = field(default_factory=dict)
    ranked_rounds: dict[Division, datetime] = field(default_factory=dict)
    finished: set[datetime] = field(default_factory=set)
    ended: bool = False
    started: bool = False
    entry_books: dict[str, list[tuple[int, int, dict[str, int]]]] = field(default_factory=dict)
    """Per agent, each entry's recorded (value, cash, holdings), in micro-units."""
    entry_answers: dict[str, list[EntryAnswer]] = field(default_factory=dict)
    """Per agent, each entry's answer: the targets asked for, the reason, the capped symbols."""
    universe: dict[str, Any] | None = None
    """The ``UniverseChosen`` payload, when the season's symbols were read from the chain."""
    open_turns: dict[date, int] = field(default_factory=dict)
    """The Open division's asked turns (decisions and No decisions) per trading day."""
    mask: MaskTable | None = None
    """A masked season's table (``MaskDrawn``): what its agents are shown instead."""

    def __repr__(self) -> str:
        # Short on purpose: asyncio.run (3.11) writes the repr of its task, result
        # included, when it puts back the SIGINT handler; a full repr of every agent's
        # entries cost a replay time that grew with its roster and rounds.
        return (
            f"SeasonState(stream={self.stream!r}, agents={len(self.agents)}, "
            f"rounds={len(self.rounds)}, ended={self.ended})"
        )

    @classmethod
    def from_events(
        cls, stream: str, events: Iterable[Event], preset: WeightsPreset | None = None
    ) -> SeasonState:
        """Fold ``events`` (the stream's, in order) into a state."""
        state = cls(stream, preset or WeightsPreset())
        for e in events:
            state.apply(e)
        return state

    def recorded(self, hour: datetime) -> bool:
        """Return whether the round of ``hour`` is already recorded (played or closed)."""
        return hour in self.finished or hour in self.closed_hours

    def apply(self, e: Event) -> None:
        """Apply one event of the stream."""
        p = e.payload_view
        kind = e.kind
        if kind == EventKind.SEASON_STARTED:
            self.started = True
            self.season_id = str(p["season"])
            self.window = SeasonWindow(_time(p["start"]), _time(p["end"]))
            self.symbols = tuple(str(s) for s in p["symbols"])  # type: ignore[attr-defined]
            self.decimals = {str(k): int(v) for k, v in p["decimals"].items()}  # type: ignore[attr-defined]
            self.source = str(p.get("source", ""))
            self.synthetic = bool(p.get("synthetic", False))
            self.replay = bool(p.get("replay", False))
        elif kind == ev.UNIVERSE_CHOSEN:
            self.universe = e.payload  # a copy of its own: the report keeps it
        elif kind == EventKind.MASK_DRAWN:
            self.mask = mask_from_payload(p)
        elif kind == EventKind.SEASON_ENDED:
            self.ended = True
        elif kind == ev.AGENT_CREATED:
            agent = str(p["agent"])
            self.agents[agent] = AgentState(
                agent=agent,
                name=str(p["name"]),
                owner=str(p["owner"]),
                division=Division(str(p["division"])),
                spec=str(p["spec"]),
                created_at=e.occurred_at,
                prompts=[(e.occurred_at, str(p.get("prompt", "")))],
                key_last4=str(p.get("key_last4") or "") or None,
            )
        elif kind == EventKind.ACCOUNT_OPENED:
            # the agent's placeholder portfolio is replaced by the opened account
            self.agents[str(p["account"])].portfolio = fold_account(None, kind, p)
        elif kind == ev.PROMPT_CHANGED:
            a = self.agents[str(p["agent"])]
            a.prompts.append((e.occurred_at, str(p["prompt"])))
            a.changed_at = e.occurred_at
        elif kind == ev.KEY_CHANGED:
            a = self.agents[str(p["agent"])]
            a.key_last4 = str(p.get("last4") or "") or None
            a.changed_at = e.occurred_at
        elif kind == ev.AGENT_PAUSED:
            a = self.agents[str(p["agent"])]
            a.paused = True
            a.pause_reason = str(p.get("reason") or "") or None
        elif kind == ev.AGENT_RESUMED:
            a = self.agents[str(p["agent"])]
            a.paused = False
            a.pause_reason = None
            a.pause_streak = 0
            a.changed_at = e.occurred_at
        elif kind == EventKind.ROUND_STARTED:
            prices = {str(s): Usd(int(str(v))) for s, v in p["prices"].items()}  # type: ignore[attr-defined]
            halted = {str(s): list(v) for s, v in p["halted"].items()}  # type: ignore[attr-defined]
            self.rounds.append(
                RoundRecord(
                    _time(p["round"]),
                    _time(p["read_at"]),
                    prices,
                    halted,
                    forced=bool(p.get("forced", False)),
                    open_round=bool(p.get("open_round", False)),
                )
            )
            for s, price in prices.items():
                if s not in halted:
                    self.accepted[s] = price
        elif kind == EventKind.PRICE_HELD:
            self.holds.add(str(p["symbol"]))
        elif kind == EventKind.PRICE_RELEASED:
            self.holds.discard(str(p["symbol"]))
        elif kind == ev.MARKET_CLOSED:
            self.closed_hours[_time(p["round"])] = [str(r) for r in p["reasons"]]  # type: ignore[attr-defined]
        elif kind == EventKind.ORDER_FILLED:
            a = self.agents[str(p["account"])]
            a.portfolio = fold_account(a.portfolio, kind, p)
            a.trades += 1
        elif kind in _ENTRY_KIND:
            self._entry(e, _ENTRY_KIND[kind])
        elif kind == EventKind.ROUND_FINISHED:
            hour = _time(p["round"])
            self.finished.add(hour)
            for d in p.get("ranked", []):  # type: ignore[attr-defined]
                self.ranked_rounds[Division(str(d))] = hour

    def _entry(self, e: Event, kind: EntryKind) -> None:
        p = e.payload_view
        a = self.agents[str(p["agent"])]
        hour = _time(p["round"])
        code = p.get("reason_code")
        a.entries.append(
            Entry(
                round=hour,
                kind=kind,
                value=int(str(p["value"])),
                reason_code=None if code is None else str(code),
            )
        )
        holdings = {str(k): int(str(v)) for k, v in p["holdings"].items()}  # type: ignore[attr-defined]
        self.entry_books.setdefault(a.agent, []).append(
            (int(str(p["value"])), int(str(p["cash"])), holdings)
        )
        self.entry_answers.setdefault(a.agent, []).append(_entry_answer(p))
        if kind is not EntryKind.SKIPPED:
            a.last_asked = _time(p["asked_at"])
            if a.division is Division.OPEN:
                day = hour.date()
                self.open_turns[day] = self.open_turns.get(day, 0) + 1
        if kind is EntryKind.DECISION:
            a.pause_streak = 0
            a.reasons.append((hour, str(p["reason"])))
        elif kind is EntryKind.NO_DECISION:
            a.pause_streak = a.pause_streak + 1 if counts_toward_pause(str(code)) else 0

    @property
    def previous_round(self) -> RoundRecord | None:
        """Return the latest recorded round, if any."""
        return self.rounds[-1] if self.rounds else None

    def open_turns_on(self, day: date) -> int:
        """Return the Open division's asked turns (decisions and No decisions) on ``day``.

        Counted as the entries are applied: a round asks it once, and a count
        over every agent's entries grew with the roster times the rounds played.
        """
        return self.open_turns.get(day, 0)

    def table(self, division: Division) -> list[TableRow]:
        """Return ``division``'s table as published after its latest ranked round (W-RNK)."""
        records = [a.record() for a in self.agents.values() if a.division is division]
        return rank_table(records, self.ranked_rounds.get(division), self.preset)

    def holdings(self, agent: str) -> dict[str, Qty]:
        """Return an agent's holdings."""
        return dict(self.agents[agent].portfolio.positions)


@dataclass(frozen=True, slots=True)
class EntryAnswer:
    """What a turn's answer asked for: targets in hundredths of a percent, reason, capped symbols.

    A no-decision or skipped entry has none of them (``None``, ``None``, empty).
    """

    targets: dict[str, int] | None
    reason: str | None
    capped: tuple[str, ...]


def _entry_answer(payload: Mapping[str, object]) -> EntryAnswer:
    targets = payload.get("targets")
    reason = payload.get("reason")
    capped = payload.get("capped")
    return EntryAnswer(
        targets=None
        if not isinstance(targets, Mapping)
        else {str(k): int(str(v)) for k, v in sorted(targets.items())},
        reason=None if reason is None else str(reason),
        capped=tuple(str(c) for c in capped) if isinstance(capped, list | tuple) else (),
    )
