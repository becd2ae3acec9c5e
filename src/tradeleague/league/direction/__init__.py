"""The direction arena's rounds, live and replayed, every step recorded as events.

The names below load their modules on first use, so the format's plug-in object
(``plugin.py``) can be read without the arena's engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tradeleague.league.direction.arena import Contestant, DirectionArena, DirectionView
    from tradeleague.league.direction.live import next_open, run_live
    from tradeleague.league.direction.replay import (
        load_board,
        load_ledger,
        replay_direction,
        run_direction_replay,
    )

_WHERE = {
    "Contestant": "arena",
    "DirectionArena": "arena",
    "DirectionView": "arena",
    "next_open": "live",
    "run_live": "live",
    "load_board": "replay",
    "load_ledger": "replay",
    "replay_direction": "replay",
    "run_direction_replay": "replay",
}

__all__ = [
    "Contestant",
    "DirectionArena",
    "DirectionView",
    "load_board",
    "load_ledger",
    "next_open",
    "replay_direction",
    "run_direction_replay",
    "run_live",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
