"""The weights league's event kinds and payload builders (C-4, DESIGN principle 4).

Every step of a season is one of these past-tense facts in the season's stream
``weights/<season id>``; the league state, the tables, the report and the
``weights_entries`` projection are folds over them. Amounts are micro-unit
integers as decimal strings; times are ISO 8601 UTC.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Final

from tradeleague.events import Event, EventKind, utc_iso
from tradeleague.sim import Portfolio

__all__ = [
    "AGENT_CREATED",
    "AGENT_PAUSED",
    "AGENT_RESUMED",
    "KEY_CHANGED",
    "MARKET_CLOSED",
    "PROMPT_CHANGED",
    "STREAM_PREFIX",
    "book_payload",
    "event",
    "season_stream",
]

STREAM_PREFIX: Final = "weights/"
"""Every weights season's stream starts with this."""

AGENT_CREATED: Final = "AgentCreated"
PROMPT_CHANGED: Final = "PromptChanged"
KEY_CHANGED: Final = "KeyChanged"
AGENT_PAUSED: Final = "AgentPaused"
AGENT_RESUMED: Final = "AgentResumed"
MARKET_CLOSED: Final = "MarketClosed"

ENTRY_KINDS: Final = (
    EventKind.DECISION_MADE.value,
    EventKind.NO_DECISION_MADE.value,
    EventKind.TURN_SKIPPED.value,
)
"""The three kinds that are an entry in an agent's record (W-SCO-1)."""


def season_stream(season_id: str) -> str:
    """Return the stream of season ``season_id``."""
    return f"{STREAM_PREFIX}{season_id}"


def event(stream: str, kind: str, payload: Mapping[str, object], at: datetime) -> Event:
    """Return an event of ``kind`` in ``stream`` at ``at``."""
    return Event(stream, kind, payload, at)


def book_payload(portfolio: Portfolio, value: int) -> dict[str, object]:
    """Return the value, cash and holdings fields an entry carries."""
    return {
        "value": str(value),
        "cash": str(int(portfolio.cash)),
        "holdings": {s: str(int(q)) for s, q in sorted(portfolio.positions.items())},
    }


def iso(moment: datetime) -> str:
    """Return ``moment`` as canonical UTC text."""
    return utc_iso(moment)
