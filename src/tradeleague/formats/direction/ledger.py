"""The arena's log, folded from its events: seasons, rounds, and each model's rows.

The orchestrator records every step as an event (``tradeleague.league.direction``);
everything public (logs, boards, round pages) is folded from those events by
this module alone, so a board can always be re-derived from the log (C-4,
D-PUB-4). A round's calls enter a model's log only once the round has
finished, after expiry (D-PUB-1).

Event kinds and payload fields (amounts are micro-unit integer strings; the
schemas are `tradeleague.events.direction`)::

    SeasonStarted      season, started_at, start_balance, stake, payout_ppm, roster[]
    RoundStarted       season, round, open_at, expiry, ask_at, asset, entry_price,
                       candles[], participants[], prompt_version
    ModelCalled        season, v, round, agent, record (CallRecord.to_payload())
    DecisionMade       season, round, agent, direction, rationale, answered_at, ...
    TurnSkipped        season, round, agent, reason (D-SKP-1), detail, ...
    TradePlaced        season, round, agent, trade_id, kind, stake, strike, payout_ppm, ...
    TradeSettled       season, round, agent, trade_id, outcome, entry_price,
                       exit_price, pnl, payout_ppm, closed_at
    RoundVoided        season, round, reason
    RoundFinished      season, round, void, label, balances{agent: amount}
    SeasonEnded        season, reason, ended_at, balances{}
    VisitorCallLogged  season, round, agent, entrant, call (the VisitorCalled event's id)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from tradeleague.events import Event, EventKind, model_called_record
from tradeleague.events.direction import ROUND_VOIDED, TRADE_PLACED, VISITOR_CALL_LOGGED
from tradeleague.formats.direction.skips import SkipReason
from tradeleague.money import Usd

__all__ = [
    "ROUND_VOIDED",
    "TRADE_PLACED",
    "VISITOR_CALL_LOGGED",
    "Entrant",
    "Ledger",
    "LogRow",
    "RoundView",
    "SeasonView",
    "fold",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Entrant:
    """A participant as published: board name, provider, tier, exact model id (D-PUB-3).

    ``kind`` is ``model`` for the roster, ``visitor`` for a visitor's own calls
    (ranked apart, D-PUB-2). ``model_agent`` is true for an entrant built from
    a model's spec (``openai``, ``local``, ``scripted``), which then records its
    training ``cutoff`` and the cutoff's ``cutoff_source`` (both ``None`` when
    the spec gave none; ``agents.cutoff``); a baseline, a visitor, or an
    entrant recorded before cutoffs were kept has none.
    """

    name: str
    provider: str
    tier: str
    model: str
    kind: str = "model"
    model_agent: bool = False
    cutoff: str | None = None
    cutoff_source: str | None = None

    def to_payload(self) -> dict[str, str | None]:
        """Return the entrant as JSON values (the cutoff keys only for a model agent)."""
        body: dict[str, str | None] = {
            "name": self.name,
            "provider": self.provider,
            "tier": self.tier,
            "model": self.model,
            "kind": self.kind,
        }
        if self.model_agent:
            body["cutoff"] = self.cutoff
            body["cutoff_source"] = self.cutoff_source
        return body

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> Entrant:
        """Rebuild an entrant from ``to_payload``'s output."""
        return cls(
            name=str(data["name"]),
            provider=str(data["provider"]),
            tier=str(data["tier"]),
            model=str(data["model"]),
            kind=str(data.get("kind", "model")),
            model_agent="cutoff" in data,
            cutoff=None if data.get("cutoff") is None else str(data["cutoff"]),
            cutoff_source=None if data.get("cutoff_source") is None else str(data["cutoff_source"]),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class LogRow:
    """One line of a model's public log (D-PUB-3): a trade or a skip, same table.

    ``result`` is ``win``, ``loss``, ``draw`` or a skip reason (D-SKP-1).
    """

    round: str
    timestamp: datetime
    direction: str | None
    entry_price: Usd | None
    exit_price: Usd | None
    result: str
    detail: str | None
    pnl: Usd | None
    payout_ppm: int | None
    balance_after: Usd
    rationale: str | None

    @property
    def settled(self) -> bool:
        """Return whether the row is a settled trade (win, loss or draw)."""
        return self.result in ("win", "loss", "draw")


@dataclass(slots=True)
class RoundView:
    """Everything recorded about one round so far."""

    season: str
    round: str
    started: dict[str, Any]
    calls: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    decisions: dict[str, dict[str, Any]] = field(default_factory=dict)
    skips: dict[str, dict[str, Any]] = field(default_factory=dict)
    trades: dict[str, dict[str, Any]] = field(default_factory=dict)
    settlements: dict[str, dict[str, Any]] = field(default_factory=dict)
    visitors: list[str] = field(default_factory=list)
    voided: str | None = None
    finished: dict[str, Any] | None = None

    @property
    def participants(self) -> list[str]:
        """Return the roster asked in this round, then the visitors who called it."""
        return [*self.started["participants"], *self.visitors]

    @property
    def is_open(self) -> bool:
        """Return whether the round has not finished (its calls stay hidden, D-PUB-1)."""
        return self.finished is None

    @property
    def void(self) -> bool:
        """Return whether the round scores nobody (D-SKP-1 ``void``)."""
        return self.voided is not None

    def row(self, agent: str) -> LogRow:
        """Return ``agent``'s log row of this finished round."""
        if self.finished is None:
            raise ValueError(f"round {self.round} has not finished: its calls are hidden")
        decision = self.decisions.get(agent)
        settled = self.settlements.get(agent)
        skip = self.skips.get(agent)
        if self.void:
            result, detail = SkipReason.VOID.value, self.voided
        elif settled is not None:
            result, detail = str(settled["outcome"]), None
        elif skip is not None:
            result, detail = str(skip["reason"]), skip.get("detail")
        else:
            result, detail = SkipReason.UNSETTLED.value, "no record of a close"
        balance = self.finished["balances"].get(agent)
        when = decision["answered_at"] if decision else self.started["open_at"]
        counted = settled is not None and not self.void
        return LogRow(
            round=self.round,
            timestamp=datetime.fromisoformat(str(when).replace("Z", "+00:00")),
            direction=None if decision is None else str(decision["direction"]),
            entry_price=Usd(int(self.started["entry_price"]))
            if self.started.get("entry_price")
            else None,
            exit_price=Usd(int(settled["exit_price"])) if counted and settled else None,
            result=result,
            detail=None if detail is None else str(detail),
            pnl=Usd(int(settled["pnl"])) if counted and settled else None,
            payout_ppm=int(settled["payout_ppm"]) if counted and settled else None,
            balance_after=Usd(int(balance)) if balance is not None else Usd(0),
            rationale=None if decision is None else str(decision["rationale"]),
        )


@dataclass(slots=True)
class SeasonView:
    """One season: its start, its rounds in order, its end if it has ended."""

    season: str
    started: dict[str, Any]
    roster: list[Entrant]
    rounds: dict[str, RoundView] = field(default_factory=dict)
    visitors: dict[str, Entrant] = field(default_factory=dict)
    ended: dict[str, Any] | None = None

    @property
    def start_balance(self) -> Usd:
        """Return every account's starting balance this season."""
        return Usd(int(self.started["start_balance"]))

    @property
    def payout_ppm(self) -> int:
        """Return the configured payout (each trade records its actual one)."""
        return int(self.started["payout_ppm"])

    def finished_rounds(self) -> list[RoundView]:
        """Return the finished rounds, oldest first."""
        return [r for r in self.rounds.values() if not r.is_open]

    def open_rounds(self) -> list[RoundView]:
        """Return the rounds still open (calls hidden)."""
        return [r for r in self.rounds.values() if r.is_open]

    def shown_visitors(self) -> list[Entrant]:
        """Return the visitors with a call in a finished round, in order of first call.

        A visitor whose every call is on a round still open is not shown
        anywhere yet: an open round's calls are hidden (D-PUB-1).
        """
        seen = {name for r in self.rounds.values() if not r.is_open for name in r.visitors}
        return [e for e in self.visitors.values() if e.name in seen]

    def log(self, agent: str) -> list[LogRow]:
        """Return ``agent``'s full public log: every finished round it was in (D-PUB-3)."""
        return [r.row(agent) for r in self.finished_rounds() if agent in r.participants]


@dataclass(slots=True)
class Ledger:
    """All seasons of one arena, folded from its events."""

    seasons: dict[str, SeasonView] = field(default_factory=dict)

    @property
    def current(self) -> SeasonView | None:
        """Return the latest season, or ``None`` before the first."""
        return next(reversed(self.seasons.values()), None)

    def apply(self, event: Event) -> None:
        """Fold one event in; events of other kinds are ignored.

        Raises
        ------
        ValueError
            For an event about an unknown season or round.
        """
        kind = event.kind
        p: dict[str, Any] = event.payload
        if kind == EventKind.SEASON_STARTED:
            roster = [Entrant.from_payload(e) for e in p["roster"]]
            self.seasons[str(p["season"])] = SeasonView(str(p["season"]), p, roster)
            return
        if kind not in _ROUND_KINDS and kind != EventKind.SEASON_ENDED:
            return
        season = self.seasons.get(str(p["season"]))
        if season is None:
            raise ValueError(f"{kind} for unknown season {p['season']!r}")
        if kind == EventKind.SEASON_ENDED:
            season.ended = p
            return
        if kind == EventKind.ROUND_STARTED:
            season.rounds[str(p["round"])] = RoundView(season.season, str(p["round"]), p)
            return
        view = season.rounds.get(str(p["round"]))
        if view is None:
            raise ValueError(f"{kind} for unknown round {p['round']!r}")
        _apply_round(season, view, kind, p)


_ROUND_KINDS: Final = frozenset(
    {
        EventKind.ROUND_STARTED,
        EventKind.MODEL_CALLED,
        EventKind.DECISION_MADE,
        EventKind.TURN_SKIPPED,
        EventKind.TRADE_SETTLED,
        EventKind.ROUND_FINISHED,
        TRADE_PLACED,
        ROUND_VOIDED,
        VISITOR_CALL_LOGGED,
    }
)


def _apply_round(season: SeasonView, view: RoundView, kind: str, p: dict[str, Any]) -> None:
    agent = str(p.get("agent", ""))
    if kind == EventKind.MODEL_CALLED:
        view.calls.setdefault(agent, []).append(model_called_record(p))
    elif kind == EventKind.DECISION_MADE:
        view.decisions[agent] = p
    elif kind == EventKind.TURN_SKIPPED:
        view.skips.setdefault(agent, p)
    elif kind == TRADE_PLACED:
        view.trades[agent] = p
    elif kind == EventKind.TRADE_SETTLED:
        view.settlements[agent] = p
    elif kind == ROUND_VOIDED:
        view.voided = str(p["reason"])
    elif kind == VISITOR_CALL_LOGGED:
        view.visitors.append(agent)
        season.visitors.setdefault(agent, Entrant.from_payload(p["entrant"]))
    elif kind == EventKind.ROUND_FINISHED:
        view.finished = p


def fold(events: Iterable[Event]) -> Ledger:
    """Return the ledger of ``events`` (one arena's stream, in log order)."""
    ledger = Ledger()
    for event in events:
        ledger.apply(event)
    return ledger
