"""The direction arena's rounds, live and replayed, every step recorded as events."""

from tradeleague.league.direction.arena import Contestant, DirectionArena, DirectionView
from tradeleague.league.direction.live import next_open, run_live
from tradeleague.league.direction.replay import (
    load_board,
    load_ledger,
    replay_direction,
    run_direction_replay,
)

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
