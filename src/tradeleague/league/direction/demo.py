"""The direction arena's share of ``tradeleague demo``: a few rounds of baselines, offline.

Up, down, momentum and coin-flip baselines and a contrarian meta-agent,
settled by the paper broker, with the luck columns; over seeded synthetic
one-minute candles (labelled synthetic) unless ``--candles`` names real ones.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from rich.console import Console

from tradeleague.agents import InverseAgent, SharedAgent, build_agent
from tradeleague.agents.inverse import invert_json_field
from tradeleague.agents.spec import parse_agent_spec
from tradeleague.errors import ConfigError
from tradeleague.formats.direction.board import Board
from tradeleague.formats.direction.candle import MINUTE
from tradeleague.formats.direction.ledger import Entrant
from tradeleague.formats.direction.preset import FORMAT as DIRECTION
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.direction.timing import round_opens
from tradeleague.league.direction.arena import Contestant
from tradeleague.league.direction.board_table import board_table
from tradeleague.league.direction.replay import replay_direction
from tradeleague.league.direction.roster import direction_baselines
from tradeleague.llm.gateway import Gateway
from tradeleague.market import Dataset, load_dataset, synthetic_dataset
from tradeleague.store import Store
from tradeleague.terminal.demo import DemoOptions
from tradeleague.terminal.progress import round_progress

__all__ = ["DEMO", "DirectionDemo", "demo_candles", "demo_span", "direction_roster"]


def direction_roster(gateway: Gateway) -> list[Contestant]:
    """Return the demo arena's roster: four baselines and a contrarian meta-agent.

    The contrarian mirrors the momentum baseline's call (T-AGT-1), as the
    seed's meta-agent mirrored a model. The house model does not play here: its
    8k-token context cannot hold the arena's 180-candle prompt.
    """
    roster: list[Contestant] = []
    agents = {}
    for name in ("up", "down", "momentum", "coin_flip"):
        spec = parse_agent_spec(f"{name}=baseline:{name}")
        agent = build_agent(
            spec, gateway=gateway, format_name=DIRECTION, baseline_factory=direction_baselines
        )
        agents[name] = agent
        entrant = Entrant(name=name, provider="baseline", tier="-", model=f"baseline:{name}")
        roster.append(Contestant(entrant=entrant, agent=agent))
    shared = SharedAgent(agents["momentum"])
    roster[2] = Contestant(entrant=roster[2].entrant, agent=shared)
    # the mirror's call is momentum's turned round; its reason says so, never momentum's alone
    contrarian = invert_json_field(
        "direction",
        {"up": "down", "down": "up"},
        reason=("rationale", "Opposite of momentum, which said: "),
    )
    mirror = InverseAgent(name="contrarian", source=shared, inverter=contrarian)
    entrant = Entrant(name="contrarian", provider="meta", tier="-", model="inverse:momentum")
    roster.append(Contestant(entrant=entrant, agent=mirror))
    return roster


def demo_span(candles: Dataset, rounds: int, preset: DirectionPreset) -> tuple[datetime, datetime]:
    """Return the ``(start, end)`` holding exactly the last ``rounds`` whole rounds of ``candles``.

    Raises
    ------
    ConfigError
        If the candles hold fewer rounds than asked, after the prompt's history.
    """
    series = candles[preset.symbol]
    last = series.last
    earliest = series.first + preset.candles * MINUTE
    opens = round_opens(earliest, last, preset) if earliest < last else []
    if len(opens) < rounds:
        raise ConfigError(
            f"--rounds {rounds}: the candles ({series.first:%Y-%m-%d %H:%M} to "
            f"{last:%Y-%m-%d %H:%M} UTC) hold {len(opens)} whole rounds after the first "
            f"{preset.candles} minutes"
        )
    return opens[-rounds], last


async def demo_rounds(
    store: Store, candles: Dataset, rounds: int, console: Console, stream: str
) -> Board:
    """Play (or resume) the demo's last ``rounds`` rounds of ``candles`` into ``stream``."""
    preset = DirectionPreset()
    start, last = demo_span(candles, rounds, preset)
    async with Gateway([]) as gateway:
        roster = direction_roster(gateway)
        with round_progress(console, store, stream) as progress:
            return await replay_direction(
                store,
                candles,
                roster,
                start=start,
                end=last,
                preset=preset,
                stream=stream,
                on_round=progress.tick,
            )


def demo_candles(path: Path | None) -> Dataset:
    """Return the demo's candles: seeded synthetic ones, or the one-minute candles at ``path``."""
    symbol = DirectionPreset().symbol
    if path is None:
        return synthetic_dataset(
            1, 600, seed=7, bar_size=timedelta(minutes=1), calendar="24/7", symbols=[symbol]
        )
    dataset = load_dataset(path, symbols=[symbol])
    if dataset.bar_size != MINUTE:
        raise ConfigError(
            f"--candles {path}: the arena needs one-minute candles, not {dataset.bar_size_text}"
        )
    return dataset


@dataclass(frozen=True, slots=True)
class DirectionDemoPlay:
    """The demo's arena: its candles, its rounds and the stream they go to."""

    candles: Dataset
    rounds: int
    stream: str

    def play(self, store: Store, console: Console) -> Sequence[str]:
        """Play (or resume) the rounds into ``store`` and print the board; name the stream."""
        board = asyncio.run(demo_rounds(store, self.candles, self.rounds, console, self.stream))
        if self.candles.synthetic:
            console.print(
                f"[bold yellow]Direction arena over {self.candles.label}: "
                "SYNTHETIC candles, not real prices.[/]"
            )
        console.print(board_table(board))
        return ()  # serve finds the arena in the store (the one started last)


@dataclass(frozen=True, slots=True)
class DirectionDemo:
    """The direction arena's demo part (``cli.plugin.DemoPart``)."""

    def prepare(self, options: DemoOptions, console: Console) -> DirectionDemoPlay:
        """Load the candles (synthetic unless ``--candles``) and check they hold the rounds."""
        candles = demo_candles(options.candles)
        start, _ = demo_span(candles, options.rounds, DirectionPreset())
        # Named by its candles and rounds, so running the demo again resumes it too.
        stream = f"demo-direction-{start:%Y-%m-%dT%H%MZ}-{options.rounds}-{candles.label}"
        return DirectionDemoPlay(candles, options.rounds, stream.replace(" ", "_"))


DEMO = DirectionDemo()
"""The part the ``direction`` format names as ``demo``."""
