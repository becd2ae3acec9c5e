"""A thesis season folded from its events: books, entries, equity paths (T-CYC-10, T-MON-2).

Every fact comes from the stream, so a resumed season continues exactly where
the recorded one stopped: each ``AttemptJudged``, ``InvalidationBroken`` and
``PositionInvalidated`` carries the book after it (a pending monitor close is
a mark on the book's thesis, T-MON-1), and ``RoundFinished`` the equity path;
``NullPricesRead`` keeps what the board's no-skill null reads at each cycle.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from tradeleague.events import Event, EventKind
from tradeleague.events import thesis as tev
from tradeleague.formats.thesis.book import Book, book_from_payload
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.market.mask import MaskTable, mask_from_payload

__all__ = ["AgentState", "SeasonState"]


@dataclass(slots=True)
class AgentState:
    """One agent's season so far."""

    name: str
    spec: str
    kind: str
    agentic: bool
    entered: int
    book: Book
    attempts: int = 0
    entries: list[dict[str, object]] = field(default_factory=list)
    equity: list[int] = field(default_factory=list)
    gross: list[int] = field(default_factory=list)
    realised: list[int] = field(default_factory=list)
    trades: int = 0
    decisions: int = 0


@dataclass(slots=True)
class SeasonState:
    """The season's state; `apply` folds one event."""

    preset: ThesisPreset
    season: str = ""
    start: str = ""
    end: str = ""
    started: bool = False
    ended: bool = False
    scoring_version: str = ""
    prompt_version: str = ""
    sources: dict[str, str] = field(default_factory=dict)
    replay: bool = False
    agents: dict[str, AgentState] = field(default_factory=dict)
    cycles: dict[str, dict[str, object]] = field(default_factory=dict)
    null_prices: dict[str, dict[str, object]] = field(default_factory=dict)
    """Each cycle's ``NullPricesRead`` by its instant (a record written before it had none)."""
    finished: set[str] = field(default_factory=set)
    monitor_closes: list[dict[str, object]] = field(default_factory=list)
    last_index: int = -1
    last_cycle: str = ""
    monitored_to: str = ""
    mask: MaskTable | None = None
    """A masked season's table (``MaskDrawn``): what its agents are shown instead."""

    @classmethod
    def from_events(cls, events: Iterable[Event], preset: ThesisPreset) -> SeasonState:
        """Fold a season's events in order."""
        state = cls(preset)
        for event in events:
            state.apply(event)
        return state

    def apply(self, event: Event) -> None:
        """Fold one event."""
        kind, p = event.kind, event.payload
        if kind == EventKind.SEASON_STARTED:
            self.started = True
            self.season, self.start, self.end = str(p["season"]), str(p["start"]), str(p["end"])
            self.scoring_version = str(p["scoring_version"])
            self.prompt_version = str(p["prompt_version"])
            sources = p["sources"]
            if isinstance(sources, dict):
                self.sources = {str(k): str(v) for k, v in sources.items()}
            self.replay = bool(p["replay"])
        elif kind == EventKind.MASK_DRAWN:
            self.mask = mask_from_payload(p)
        elif kind == tev.AGENT_ENTERED:
            name = str(p["agent"])
            self.agents[name] = AgentState(
                name=name,
                spec=str(p["spec"]),
                kind=str(p["kind"]),
                agentic=bool(p["agentic"]),
                entered=int(str(p["cycle"])),
                book=Book.open(self.preset.start_cash),
            )
        elif kind == EventKind.ROUND_STARTED:
            self.cycles[str(p["round"])] = dict(p)
            self.last_index = int(str(p["index"]))
            self.last_cycle = str(p["round"])
            self.monitored_to = str(p["round"])
        elif kind == tev.NULL_PRICES_READ:
            self.null_prices[str(p["round"])] = dict(p)
        elif kind == tev.ATTEMPT_JUDGED:
            agent = self.agents[str(p["agent"])]
            agent.attempts += 1
            agent.entries.append(dict(p))
            book = p["book"]
            if isinstance(book, dict):
                agent.book = book_from_payload(book)
            decisions = p["decisions"]
            if isinstance(decisions, list):
                agent.decisions += len(decisions)
                for d in decisions:
                    if isinstance(d, dict) and d.get("fill") is not None:
                        agent.trades += 1
                    if isinstance(d, dict) and d.get("realised") is not None:
                        agent.realised.append(int(str(d["realised"])))
        elif kind == tev.POSITION_INVALIDATED:
            agent = self.agents[str(p["agent"])]
            book = p["book"]
            if isinstance(book, dict):
                agent.book = book_from_payload(book)
            agent.trades += 1
            agent.realised.append(int(str(p["realised"])))
            self.monitor_closes.append(dict(p))
            self.monitored_to = max(self.monitored_to, str(p["time"]))
        elif kind == tev.INVALIDATION_BROKEN:
            book = p["book"]
            if isinstance(book, dict):
                self.agents[str(p["agent"])].book = book_from_payload(book)
            self.monitored_to = max(self.monitored_to, str(p["time"]))
        elif kind == EventKind.ROUND_FINISHED:
            self.finished.add(str(p["round"]))
            equity = p["equity"]
            if isinstance(equity, dict):
                for name, row in equity.items():
                    if isinstance(row, dict) and name in self.agents:
                        self.agents[name].equity.append(int(str(row["equity"])))
                        self.agents[name].gross.append(int(str(row["gross"])))
        elif kind == EventKind.SEASON_ENDED:
            self.ended = True
