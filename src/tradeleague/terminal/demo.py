"""What ``tradeleague demo`` was asked for: the options every format's demo part reads."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["DemoOptions"]


@dataclass(frozen=True, slots=True, kw_only=True)
class DemoOptions:
    """The demo's options (see ``tradeleague demo --help``); a format reads those it uses.

    ``market``, ``symbols``, ``end``, ``days`` and ``house_model`` shape a
    season over daily bars; ``candles`` and ``rounds`` a run of short rounds.
    """

    market: Path | None = None
    symbols: str | None = None
    end: str | None = None
    days: int = 14
    house_model: bool = True
    candles: Path | None = None
    rounds: int = 24
