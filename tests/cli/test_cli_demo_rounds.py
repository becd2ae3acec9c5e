"""``demo --rounds N`` plays N rounds of the direction arena (issue 11)."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from rich.console import Console

from tradeleague.errors import ConfigError
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.direction.timing import round_opens
from tradeleague.league.direction.demo import demo_candles, demo_rounds, demo_span
from tradeleague.store import open_store


@pytest.mark.parametrize("rounds", [1, 5, 24])
def test_demo_span_holds_exactly_the_rounds_asked(rounds: int) -> None:
    """The span ends at the data's last candle and opens exactly ``rounds`` rounds."""
    preset = DirectionPreset()
    start, end = demo_span(demo_candles(None), rounds, preset)
    assert len(round_opens(start, end, preset)) == rounds


def test_demo_span_refuses_more_rounds_than_the_candles_hold() -> None:
    """Too many rounds is an error naming what the candles hold, before any effect."""
    with pytest.raises(ConfigError, match="whole rounds after the first 180 minutes"):
        demo_span(demo_candles(None), 10_000, DirectionPreset())


def test_demo_direction_plays_n_rounds(tmp_path: Path) -> None:
    """The demo's arena board counts exactly the rounds asked."""
    console = Console(file=io.StringIO(), width=150)
    with open_store(f"sqlite:///{tmp_path / 'demo.db'}") as store:
        board = asyncio.run(demo_rounds(store, demo_candles(None), 5, console, "demo-direction"))
    assert board.rounds == 5
    lines = [x for x in console.file.getvalue().splitlines() if x.startswith("round ")]  # type: ignore[attr-defined]
    assert len(lines) == 5
