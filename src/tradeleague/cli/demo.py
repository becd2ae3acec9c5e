"""``tradeleague demo``: the formats replayed on embedded defaults, offline.

No network, no key: SQLite in ``./tradeleague.db`` and, unless ``--market``
names real bars, a seeded synthetic market that is labelled synthetic wherever
it shows. The weights league runs both divisions; its Open division includes
the in-process house model when the ``local`` extra is installed.
"""

from __future__ import annotations

import asyncio
import importlib.util
import shlex
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from tradeleague import DISCLAIMER
from tradeleague.agents import InverseAgent, SharedAgent, build_agent
from tradeleague.agents.inverse import invert_json_field
from tradeleague.agents.spec import parse_agent_spec
from tradeleague.calls import CallParams
from tradeleague.errors import ConfigError
from tradeleague.formats.direction.board import Board
from tradeleague.formats.direction.candle import MINUTE
from tradeleague.formats.direction.ledger import Entrant
from tradeleague.formats.direction.preset import FORMAT as DIRECTION
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.direction.timing import round_opens
from tradeleague.formats.weights import Division
from tradeleague.league.direction.arena import Contestant
from tradeleague.league.direction.board_table import board_table
from tradeleague.league.direction.replay import replay_direction
from tradeleague.league.direction.roster import direction_baselines
from tradeleague.league.weights.board_table import render_table
from tradeleague.league.weights.replay import RosterEntry
from tradeleague.league.weights.replay_run import replay_roster
from tradeleague.league.weights.round import RoundConfig
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.local import bundled_model_path
from tradeleague.market import Dataset, load_dataset, synthetic_dataset
from tradeleague.store import Store, open_store, verify
from tradeleague.terminal.console import board_console
from tradeleague.terminal.options import DbOption
from tradeleague.terminal.progress import round_progress

__all__ = ["direction_roster", "house_model_available", "register", "weights_roster"]

HOUSE_PROMPT = (
    "Hold the three symbols with the strongest 20-day return, about 30% each, "
    "and keep the rest in cash. Give one short sentence of reason."
)
"""The demo owner's prompt for the house-model agent (W-ASK-1: sent word for word)."""


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


async def _direction(
    store: Store, candles: Dataset, rounds: int, console: Console, stream: str
) -> Board:
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


def _candles(path: Path | None) -> Dataset:
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


def demo(
    market: Annotated[
        Path | None,
        typer.Option(help="Real daily bars: a folder of <SYMBOL>.csv files (default: synthetic)."),
    ] = None,
    symbols: Annotated[
        str | None,
        typer.Option(help="Comma-separated subset, e.g. SPY,QQQ (default: every symbol)."),
    ] = None,
    end: Annotated[
        str | None,
        typer.Option(help="The day after the last one to play (default: the data's end)."),
    ] = None,
    days: Annotated[int, typer.Option(min=1, help="Calendar days of the season to replay.")] = 14,
    house_model: Annotated[
        bool, typer.Option(help="Include the offline house model (needs tradeleague\\[local]).")
    ] = True,
    candles: Annotated[
        Path | None,
        typer.Option(help="Real 1-minute BTCUSDT candles for the arena (default: synthetic)."),
    ] = None,
    rounds: Annotated[int, typer.Option(min=1, help="Direction-arena rounds to replay.")] = 24,
    db: DbOption = None,
) -> None:
    """Replay a weights-league season and direction-arena rounds offline; print the boards.

    Runs on embedded defaults: SQLite in ./tradeleague.db and a seeded synthetic
    market (clearly labelled) unless --market / --candles name real bars.
    Weights league: baselines in both divisions, and in the Open division the
    in-process house model (SmolLM2-135M: a format-valid baseline, not a
    strategist) when installed. Direction arena: up, down, momentum and coin-flip
    baselines and a contrarian meta-agent, settled by the paper broker, with
    the luck columns.
    Every price read, model call, decision and fill is a hash-chained event, and
    the record is verified at the end. Running it again resumes the same season.

    Example: tradeleague demo --rounds 12 --days 7 --db sqlite:///demo.db
    """
    console = board_console()
    dataset = _market(market, symbols)
    last = max(
        datetime.fromtimestamp(int(dataset[s].times[-1]), UTC).date() for s in dataset.symbols
    )
    stop = _parse_day(end, "--end") or last + timedelta(days=1)
    start = stop - timedelta(days=days)
    arena_candles = _candles(candles)
    arena_start, _ = demo_span(arena_candles, rounds, DirectionPreset())
    with_house = house_model and house_model_available()
    if house_model and not with_house:
        console.print(
            "[yellow]House model not installed (pip install 'tradeleague\\[local]'): "
            "baselines only.[/]"
        )
    with open_store(db) as store:
        console.print(f"Recording to {store.url}")
        if with_house:
            console.print("The house model answers on this CPU: a few seconds per Open turn.")
        season = f"demo-weights-{start.isoformat()}-{dataset.label}".replace(" ", "_")
        config = RoundConfig(params=CallParams(max_tokens=200, timeout_s=120.0))
        roster = weights_roster(with_house)
        state = asyncio.run(
            replay_roster(store, dataset, roster, season, start, stop, config, console, seed=7)
        )
        for division in Division:
            console.print(render_table(state, division))
        # Named by its candles and rounds, so running the demo again resumes it too.
        stream = f"demo-direction-{arena_start:%Y-%m-%dT%H%MZ}-{rounds}-{arena_candles.label}"
        stream = stream.replace(" ", "_")
        board = asyncio.run(_direction(store, arena_candles, rounds, console, stream))
        if arena_candles.synthetic:
            console.print(
                f"[bold yellow]Direction arena over {arena_candles.label}: "
                "SYNTHETIC candles, not real prices.[/]"
            )
        console.print(board_table(board))
        store.refresh_projections()
        report = verify(store)
    status = "[green]verified[/]" if report.ok else "[red]FAILED verification[/]"
    console.print(
        f"Record {status}: {report.events} events, chain head {report.head_hash[:12]}... "
        f"(re-check any time: tradeleague verify --db {store.url})"
    )
    console.print(
        "What these scores do not account for (luck first): `tradeleague limits`, "
        "or /api/v1/limits on `tradeleague serve`."
    )
    # Quoted for a shell (the stream's label holds parentheses) and never wrapped, so
    # the command can be pasted as printed.
    serve = shlex.join(["tradeleague", "serve", "--db", store.url, "--direction-stream", stream])
    console.print(
        f"Open the boards in a browser: {serve}, then http://127.0.0.1:8000/",
        soft_wrap=True,
        markup=False,
        highlight=False,
    )
    console.print(DISCLAIMER)
    if not report.ok:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``demo`` to ``app``."""
    app.command()(demo)
