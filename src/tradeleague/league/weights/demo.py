"""The weights league's share of ``tradeleague demo``: a short season, both divisions, offline.

No network, no key: a seeded synthetic market, labelled synthetic wherever it
shows, unless ``--market`` names real daily bars. Baselines play in both
divisions, and in the Open division the in-process house model when the
``local`` extra is installed.
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from rich.console import Console

from tradeleague.calls import CallParams
from tradeleague.errors import ConfigError
from tradeleague.formats.weights import Division
from tradeleague.league.weights import projection
from tradeleague.league.weights.board_table import render_table
from tradeleague.league.weights.replay import RosterEntry
from tradeleague.league.weights.replay_run import replay_roster
from tradeleague.league.weights.round import RoundConfig
from tradeleague.llm.local import bundled_model_path
from tradeleague.market import Dataset, load_dataset, synthetic_dataset
from tradeleague.store import Store
from tradeleague.terminal.demo import DemoOptions

__all__ = ["DEMO", "HOUSE_PROMPT", "WeightsDemo", "house_model_available", "weights_roster"]

HOUSE_PROMPT = (
    "Hold the three symbols with the strongest 20-day return, about 30% each, "
    "and keep the rest in cash. Give one short sentence of reason."
)
"""The demo owner's prompt for the house-model agent (W-ASK-1: sent word for word)."""


_HOUSE_TURN_TIME = (
    "The house model answers on this CPU: about 5 to 25 seconds per Open turn on two cores "
    "(one Open turn a trading day): about 1 to 4 minutes for the default 14 days."
)
"""What the demo says of the house model's time: measured, 7-11 s a turn on two shared
cores and up to 22 s on a busier machine (issue 25), the default 14 days about 10 turns."""


def house_model_available() -> bool:
    """Return whether the house model can run here (the ``local`` extra and a model file)."""
    return importlib.util.find_spec("llama_cpp") is not None and bundled_model_path() is not None


def weights_roster(with_house_model: bool) -> list[RosterEntry]:
    """Return the demo's weights-league roster: baselines in both divisions, the house model."""
    entries = [
        RosterEntry(name="pro_cash", spec="baseline:cash", division=Division.PRO),
        RosterEntry(name="pro_equal", spec="baseline:equal_weight", division=Division.PRO),
        RosterEntry(name="pro_momentum", spec="baseline:momentum", division=Division.PRO),
        RosterEntry(name="open_hold", spec="baseline:buy_and_hold", division=Division.OPEN),
        RosterEntry(name="open_coin", spec="baseline:coin_flip", division=Division.OPEN),
    ]
    if with_house_model:
        entries.append(
            RosterEntry(
                name="open_house",
                spec="local:house",
                division=Division.OPEN,
                owner="demo-owner",
                prompt=HOUSE_PROMPT,
            )
        )
    return entries


def _parse_day(text: str | None, what: str) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"{what} {text!r} is not a date like 2026-03-02") from None


def _market(path: Path | None, symbols: str | None) -> Dataset:
    if path is None:
        return synthetic_dataset(8, 120, seed=7)
    names = [s.strip() for s in symbols.split(",") if s.strip()] if symbols else None
    return load_dataset(path, symbols=names)


@dataclass(frozen=True, slots=True)
class WeightsDemoPlay:
    """The demo's season: its bars, its days and whether the house model plays."""

    dataset: Dataset
    start: date
    stop: date
    with_house: bool

    def play(self, store: Store, console: Console) -> Sequence[str]:
        """Replay (or resume) the season into ``store`` and print both division tables."""
        projection.register()
        if self.with_house:
            console.print(_HOUSE_TURN_TIME)
        season = f"demo-weights-{self.start.isoformat()}-{self.dataset.label}".replace(" ", "_")
        config = RoundConfig(params=CallParams(max_tokens=200, timeout_s=120.0))
        roster = weights_roster(self.with_house)
        state = asyncio.run(
            replay_roster(
                store, self.dataset, roster, season, self.start, self.stop, config, console, seed=7
            )
        )
        for division in Division:
            console.print(render_table(state, division))
        return ()


@dataclass(frozen=True, slots=True)
class WeightsDemo:
    """The weights league's demo part (``cli.plugin.DemoPart``)."""

    def prepare(self, options: DemoOptions, console: Console) -> WeightsDemoPlay:
        """Load the bars (synthetic unless ``--market``) and pick the season's days."""
        dataset = _market(options.market, options.symbols)
        last = max(
            datetime.fromtimestamp(int(dataset[s].times[-1]), UTC).date() for s in dataset.symbols
        )
        stop = _parse_day(options.end, "--end") or last + timedelta(days=1)
        start = stop - timedelta(days=options.days)
        with_house = options.house_model and house_model_available()
        if options.house_model and not with_house:
            console.print(
                "[yellow]House model not installed (pip install 'tradeleague\\[local]'): "
                "baselines only.[/]"
            )
        return WeightsDemoPlay(dataset, start, stop, with_house)


DEMO = WeightsDemo()
"""The part the ``weights`` format names as ``demo``."""
