"""A short replay end to end: events recorded, balances from the broker (D-TRD-3)."""

from __future__ import annotations

from datetime import timedelta

from direction_helpers import START, always, contestant  # type: ignore[import-not-found]

from tradeleague.league.direction import load_ledger, replay_direction
from tradeleague.market import Dataset
from tradeleague.store import Store


async def test_direction_short_replay_records_every_round(
    store: Store, synthetic_btc: Dataset
) -> None:
    """D-RND-1, D-TRD-4: twelve rounds, an always-up and an always-down model."""
    roster = [contestant("bull", always("up")), contestant("bear", always("down"))]
    board = await replay_direction(
        store, synthetic_btc, roster, start=START, end=START + timedelta(hours=1)
    )
    ledger = load_ledger(store)
    season = ledger.current
    assert season is not None
    assert len(season.finished_rounds()) == 12
    bull, bear = (next(r for r in board.models if r.entrant.name == n) for n in ("bull", "bear"))
    assert bull.tally.wins == bear.tally.losses
    assert bull.tally.settled == 12
    assert (
        bull.tally.balance
        == 50_000_000_000 + 8_000_000 * bull.tally.wins - 10_000_000 * bull.tally.losses
    )
