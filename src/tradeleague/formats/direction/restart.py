"""What an arena restarting on its own log needs to go on exactly (C-4, C-8, D-SEA-1).

An arena that stops (a crash, ``kill -9``, a deploy) keeps everything in its
event stream. ``read_record`` folds the stream with the one ledger fold
(``ledger.fold``'s ``Ledger``) and reads off what the arena held in memory:

- the seasons opened so far (their number) and the current one, if it has
  not ended, with its start;
- every account's balance at the broker as the record last saw it, *as if the
  trades of the rounds cut mid-way had never been placed*: a cut round is
  voided on restart with its stakes returned (D-SKP-1 ``void``), so its
  trades must not count;
- the rounds cut mid-way (started, never finished; live writes events as they
  happen, so these can exist), which the restarted arena voids exactly once;
- each participant's turns so far (rounds in which it was asked and its
  answer recorded), so agents with sequential state resume exactly;
- how many trades the broker placed (its trade numbering goes on), and the
  moment of the last event (a replay's clock goes on from there).

Balances: the last ``RoundFinished`` of the season read every balance back
from the broker (D-TRD-3). A trade of a cut round placed before that read had
its stake taken then (and, if it settled before, its credit of stake + P&L
paid), so it is taken back out: ``+ stake`` or ``- pnl``. A trade placed after
that read is not in it at all. Pure: events in, facts out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from tradeleague.events import Event, EventKind
from tradeleague.formats.direction.ledger import TRADE_PLACED, Ledger, RoundView, SeasonView
from tradeleague.money import Usd

__all__ = ["CUT_DETAIL", "ArenaRecord", "read_record", "started_at"]

CUT_DETAIL: Final = "the arena stopped before the round finished"
"""The detail of the void recorded for a round cut mid-way, once the arena is back."""


@dataclass(slots=True, kw_only=True)
class ArenaRecord:
    """An arena's state as its log holds it (see the module notes)."""

    ledger: Ledger
    season: SeasonView | None = None
    """The current season, or ``None`` if none is open (none yet, or the last ended)."""
    balances: dict[str, Usd] = field(default_factory=dict)
    """The open season's accounts (roster and visitors), cut rounds' trades taken out."""
    cut: list[RoundView] = field(default_factory=list)
    """The rounds started and never finished, in the order they opened."""
    turns: dict[str, int] = field(default_factory=dict)
    """Per participant, the rounds in which its answer (or its skip) was recorded."""
    trades_placed: int = 0
    """Every trade placed in the stream, in every season."""
    last_at: datetime | None = None
    """When the last event happened."""
    last_open: datetime | None = None
    """The open of the season's last finished round."""

    @property
    def seasons(self) -> int:
        """Return how many seasons the stream has opened."""
        return len(self.ledger.seasons)

    @property
    def rounds(self) -> set[str]:
        """Return the ids of every round started, in every season (a cut one included).

        None of them is played again: a cut round is voided on restart.
        """
        return {r for s in self.ledger.seasons.values() for r in s.rounds}


def started_at(payload: dict[str, object], name: str) -> datetime:
    """Return the UTC instant recorded under ``name`` in an event payload."""
    return datetime.fromisoformat(str(payload[name]).replace("Z", "+00:00"))


def read_record(events: Iterable[Event]) -> ArenaRecord:
    """Return the arena state recorded in ``events`` (one arena stream, in log order).

    Raises
    ------
    ValueError
        For an event about an unknown season or round (the fold's own check).
    """
    ledger = Ledger()
    record = ArenaRecord(ledger=ledger)
    index = 0
    read_at = -1  # the place of the season's last balance read (its start: none yet)
    placed: dict[tuple[str, str], int] = {}
    settled: dict[tuple[str, str], int] = {}
    for index, event in enumerate(events):
        ledger.apply(event)
        record.last_at = event.occurred_at
        p = event.payload
        kind = event.kind
        if kind == EventKind.SEASON_STARTED:
            read_at = index
        elif kind == TRADE_PLACED:
            record.trades_placed += 1
            placed[(str(p["round"]), str(p["agent"]))] = index
        elif kind == EventKind.TRADE_SETTLED:
            settled[(str(p["round"]), str(p["agent"]))] = index
        elif kind == EventKind.ROUND_FINISHED:
            read_at = index
    for season in ledger.seasons.values():
        for view in season.rounds.values():
            for name in {*view.decisions, *view.skips}:
                record.turns[name] = record.turns.get(name, 0) + 1
    current = ledger.current
    if current is None or current.ended is not None:
        return record
    record.season = current
    record.cut = current.open_rounds()
    finished = current.finished_rounds()
    last = finished[-1] if finished else None
    if last is not None and last.finished is not None:
        record.last_open = started_at(last.started, "open_at")
        seen = last.finished["balances"]
    else:
        seen = {}
    accounts = [e.name for e in current.roster] + list(current.visitors)
    balances = {n: Usd(int(str(seen.get(n, int(current.start_balance))))) for n in accounts}
    for view in record.cut:
        for agent, trade in view.trades.items():
            key = (view.round, agent)
            if placed.get(key, index + 1) > read_at or agent not in balances:
                continue
            close = view.settlements.get(agent)
            if close is not None and settled.get(key, index + 1) < read_at:
                balances[agent] = Usd(balances[agent] - int(str(close["pnl"])))
            else:
                balances[agent] = Usd(balances[agent] + int(str(trade["stake"])))
    record.balances = balances
    return record
