"""Identifiers, each its own type, and sortable ULIDs for new ones."""

from __future__ import annotations

from typing import NewType

from ulid import ULID

__all__ = ["AgentId", "EventId", "RoundId", "RunId", "SeasonId", "Symbol", "new_id"]

AgentId = NewType("AgentId", str)
SeasonId = NewType("SeasonId", str)
RoundId = NewType("RoundId", str)
RunId = NewType("RunId", str)
EventId = NewType("EventId", str)
Symbol = NewType("Symbol", str)


def new_id() -> str:
    """Return a new lexicographically sortable ULID string (the shell's use only)."""
    return str(ULID())
