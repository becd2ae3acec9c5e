"""The weights read models are folded once and caught up from the last seq seen (C-4).

A season's events are copied into a fresh store a few at a time; after each
batch the cached read models, which only ever applied what was new, answer
exactly what read models folding the whole stream afresh answer.
"""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.clock import ReplayClock
from tradeleague.events import Event
from tradeleague.league.weights.reads import WeightsReads
from tradeleague.store import StoredEvent, open_store
from tradeleague.store.live_fold import StreamFold

T0 = datetime(2026, 1, 5, tzinfo=UTC)


def test_stream_fold_applies_only_what_is_new(sqlite_url: str) -> None:
    """A fold reads the events after its last seq; another stream's events never reach it."""
    seen: list[int] = []

    def apply(state: list[int], stored: StoredEvent) -> None:
        state.append(int(str(stored.event.payload["n"])))
        seen.append(stored.seq)

    fold: StreamFold[list[int]] = StreamFold("a", list, apply)
    with open_store(sqlite_url) as store:
        store.append([Event("a", "Noted", {"n": 1}, T0), Event("b", "Noted", {"n": 9}, T0)])
        with fold.current(store) as state:
            assert state == [1]
        store.append([Event("a", "Noted", {"n": 2}, T0)])
        with fold.current(store) as state:
            assert state == [1, 2]
        with fold.current(store) as state:
            assert state == [1, 2]
    assert seen == [1, 3], "each event applied once"
    assert fold.last_seq == 3


@pytest.mark.shared_data
def test_cached_reads_equal_fresh_reads_as_the_season_grows(
    shared_data: Path, tmp_path: Path
) -> None:
    """Read models caught up batch by batch answer what a whole fold answers."""
    source = f"sqlite:///{tmp_path / 'source.db'}"
    result = CliRunner().invoke(
        app,
        [
            "replay", "weights", "--market", str(shared_data / "us_equities_daily"),
            "--symbols", "SPY,QQQ,SGOV", "--start", "2026-07-06", "--end", "2026-07-17",
            "--season", "grow", "--agent", "hold=baseline:buy_and_hold",
            "--agent", "coin=baseline:coin_flip", "--agent", "cash=baseline:cash",
            "--db", source,
        ],
        env={"COLUMNS": "200"},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    with open_store(source) as store:
        events = [s.event for s in store.events()]
    clock = ReplayClock(datetime(2026, 7, 10, 20, tzinfo=UTC))
    with open_store(f"sqlite:///{tmp_path / 'copy.db'}") as copy:
        cached = WeightsReads(lambda: contextlib.nullcontext(copy), clock=clock)
        step = max(1, len(events) // 5)
        for end in range(step, len(events) + step, step):
            copy.append(events[end - step : end])
            fresh = WeightsReads(lambda: contextlib.nullcontext(copy), clock=clock)
            assert cached.index() == fresh.index()
            if not fresh.index()["seasons"]:
                continue
            assert cached.season("grow") == fresh.season("grow")
            for division in ("open", "pro"):
                assert cached.table("grow", division) == fresh.table("grow", division)
            for agent in ("hold", "coin", "cash"):
                assert cached.agent("grow", agent) == fresh.agent("grow", agent)
            assert cached.market("grow") == fresh.market("grow")
