"""The weights league's event helpers: its stream, payload builders, and its kinds (C-4).

Every step of a season is one of these past-tense facts in the season's stream
``weights/<season id>``; the league state, the tables, the report and the
``weights_entries`` projection are folds over them. Amounts are micro-unit
integers as decimal strings; times are ISO 8601 UTC.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Final

from tradeleague.events import Event, utc_iso
from tradeleague.events.weights import (
    AGENT_CREATED,
    AGENT_PAUSED,
    AGENT_RESUMED,
    ENTRY_KINDS,
    KEY_CHANGED,
    MARKET_CLOSED,
    PROMPT_CHANGED,
    UNIVERSE_CHOSEN,
)
from tradeleague.sim import Portfolio

__all__ = [
    "AGENT_CREATED",
    "AGENT_PAUSED",
    "AGENT_RESUMED",
    "ENTRY_KINDS",
    "KEY_CHANGED",
    "MARKET_CLOSED",
    "PROMPT_CHANGED",
    "STREAM_PREFIX",
    "UNIVERSE_CHOSEN",
    "book_payload",
    "event",
    "season_stream",
]

STREAM_PREFIX: Final = "weights/"
"""Every weights season's stream starts with this."""


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
