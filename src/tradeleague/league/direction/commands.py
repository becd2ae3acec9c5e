"""``tradeleague replay direction``: the direction arena over frozen one-minute candles.

Also the board's Rich table with its luck columns (D-LCK), for the CLI and the demo.
With ``--replay-answers FROM_DB`` the model agents answer from the calls recorded
in FROM_DB's stream of the same name (C-5); no model is called.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from tradeleague.agents.llm import ReplayMissed
from tradeleague.agents.spec import (
    REPLAY_ANSWERS_HELP,
    AgentSpec,
    agent_option_help,
    build_agent,
    parse_agent_spec,
    providers_for,
)
from tradeleague.disclaimer import DISCLAIMER
from tradeleague.errors import ConfigError
from tradeleague.events import EventKind
from tradeleague.formats.direction.baselines import direction_baseline
from tradeleague.formats.direction.board import Board, ModelRow
from tradeleague.formats.direction.candle import MINUTE
from tradeleague.formats.direction.preset import FORMAT, DirectionPreset
from tradeleague.formats.direction.publish import pct, report_payload
from tradeleague.formats.direction.timing import round_opens
from tradeleague.league.answers import answers_payload, summarise
from tradeleague.league.direction.replay import recorded_answers, replay_direction
from tradeleague.league.direction.roster import SHOWN_BASELINES, contestant_of
from tradeleague.llm.gateway import Gateway, ModelGateway
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway
from tradeleague.market import Dataset, load_dataset
from tradeleague.money import MICRO, format_usd
from tradeleague.store import Store, open_store
from tradeleague.terminal.console import board_console
from tradeleague.terminal.progress import round_progress, say_resuming
from tradeleague.terminal.summary import print_summary

__all__ = ["board_table", "direction_baselines", "register_replay"]


def direction_baselines(name: str) -> tuple[Any, Any]:
    """Return ``(decide, render)`` of an arena baseline: up, down, momentum or coin-flip.

    ``coin-flip`` and ``coin_flip`` are the same baseline.

    Raises
    ------
    ConfigError
        For any other name.
    """
    try:
        return direction_baseline(name.replace("-", "_"), seed=0)
    except ConfigError:
        raise ConfigError(
            f"unknown direction baseline {name!r}; choose one of: {', '.join(SHOWN_BASELINES)}"
        ) from None


def _rate(row: ModelRow) -> str:
    return "-" if row.hit_rate is None else f"{pct(row.hit_rate)}%"


def _skips(row: ModelRow, causes: Mapping[str, Counter[str]] | None) -> str:
    """Return the skip classes of ``row``, the provider faults beside ``timeout``.

    The seed's classes stay (a provider fault is a ``timeout`` skip: no answer
    came); the cause is shown beside it, e.g. ``timeout:12 (key_rejected 12)``.
    """
    faults = (causes or {}).get(row.entrant.name)
    parts = []
    for kind, count in row.skips.items():
        text = f"{kind}:{count}"
        if kind == "timeout" and faults:
            text += " (" + ", ".join(f"{c} {n}" for c, n in sorted(faults.items())) + ")"
        parts.append(text)
    return " ".join(parts) or "-"


def board_table(board: Board, causes: Mapping[str, Counter[str]] | None = None) -> Table:
    """Return the models' board as a Rich table, with the luck columns (D-SCO, D-LCK).

    Hit rates below break-even are greyed (D-SCO-6); the caption carries the
    break-even line, the luckiest-of-N line and the paper-trading line (C-1).
    ``causes`` (provider faults by class, per model) are shown beside the
    ``timeout`` skips.
    """
    luck = "-" if board.luckiest is None else f"{pct(board.luckiest)}%"
    table = Table(
        title=f"Direction arena, season {board.season} ({board.rounds} rounds, "
        f"{board.void_rounds} void)",
        caption=f"Break-even hit rate {pct(board.break_even)}% at "
        f"{pct(board.payout_ppm / MICRO)}% payout; luckiest of {len(board.models)} coin flips "
        f"at {board.luckiest_trades} trades: {luck}.\n{DISCLAIMER}",
    )
    for column in ("#", "model", "provider", "tier", "balance", "ROI", "hit", "answer"):
        table.add_column(column, justify="left" if column in ("model", "provider") else "right")
    for column in ("settled", "W/L/D", "skips", "streak", "95% CI", "to prove"):
        table.add_column(column, justify="right")
    for row in board.models:
        ci = row.interval
        grey = board.below_break_even(row)
        skips = _skips(row, causes)
        table.add_row(
            str(row.rank),
            row.entrant.name,
            row.entrant.provider,
            row.entrant.tier,
            format_usd(row.tally.balance),
            f"{pct(row.roi)}%",
            f"[dim]{_rate(row)}[/dim]" if grey else _rate(row),
            "-" if row.answer_rate is None else f"{pct(row.answer_rate)}%",
            str(row.tally.settled),
            f"{row.tally.wins}/{row.tally.losses}/{row.tally.draws}",
            skips,
            f"{row.streak:+d}",
            "-" if ci is None else f"{pct(ci.low)}-{pct(ci.high)}%",
            "-" if row.trades_to_prove is None else f"{row.trades_to_prove:,}",
        )
    return table


def _moment(text: str | None, what: str) -> datetime | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(f"{what} {text!r} is not an ISO 8601 time") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


_AGENT_HELP = agent_option_help(SHOWN_BASELINES) + (
    " Example: --agent up=baseline:up --agent "
    "mini=openai:openai/gpt-4o-mini@openrouter,provider=openai,tier=ECO."
)
_DEFAULT_PAYOUT_PERCENT = DirectionPreset().payout_ppm // 10_000
"""The preset's payout as a whole percent (80), the default of ``--payout``."""
_MARKET_HELP = (
    "Folder of one-minute candle files (<SYMBOL>.csv or .csv.gz) holding BTCUSDT, "
    "or one such file; e.g. ../shared/data/crypto_1m."
)
_START_HELP = (
    "First round's open, ISO 8601, UTC when no offset is given (e.g. 2025-09-01T06:00Z); "
    "rounded up to the five-minute grid. Default: 180 minutes after the first candle, "
    "so the first round shows its full 180 candles."
)
_END_HELP = (
    "End of the replay, ISO 8601 (e.g. 2025-09-02T06:00Z): rounds open before it "
    "(288 rounds a day). Default: the last candle."
)
_PAYOUT_HELP = (
    "What the paper broker pays on a win, percent of the 10.00 stake (80: a win "
    "+8.00, a loss -10.00, a draw 0); 0 to 1000."
)
_DB_HELP = (
    "Event store URL the rounds are recorded to, e.g. sqlite:///direction.db or "
    "postgresql+psycopg://user@host/db. Default: $TRADELEAGUE_DB, else "
    "sqlite:///./tradeleague.db."
)
_OUT_HELP = (
    "Write the board as JSON to this file (e.g. REPORT.json): per model name, "
    "provider, tier, balance, roi, hit_rate, answer_rate, settled, wins, losses, "
    "draws, skips, streak, rank, ci_low, ci_high; and the provider and tier rows."
)
_DEFAULT_TIMEOUT_S = DirectionPreset().window.total_seconds()
"""The preset's response window in seconds (45), the default of ``--timeout``."""
_TIMEOUT_HELP = (
    "Seconds each model may take to answer, from the ask (the response window); an "
    "answer with under 30 seconds left before the round's end is not placed."
)
_STREAM_HELP = (
    "Event stream the arena records to in --db; use another name to keep several "
    "replays in one database."
)

_SEED_HELP = (
    "Base seed of the seeded baselines (coin-flip): each draws from a seed of the stream, "
    "its name and this. Give the same seed to resume a stream."
)
_REPLAY_ANSWERS_HELP = (
    REPLAY_ANSWERS_HELP
    + " The calls are read from the same --stream in FROM_DB (seasons S1, S2... in the "
    "order that stream opened them): give the same --market, --start, --end, --payout "
    "and agents; the new run records into --db, whose stream must be empty."
)


def register_replay(replay_app: typer.Typer) -> None:
    """Add the ``direction`` subcommand to the ``replay`` group."""

    @replay_app.command("direction")
    def replay_direction_command(
        market: Annotated[Path, typer.Option("--market", metavar="PATH", help=_MARKET_HELP)],
        agent: Annotated[list[str], typer.Option("--agent", metavar="NAME=SPEC", help=_AGENT_HELP)],
        start: Annotated[str | None, typer.Option(metavar="TIME", help=_START_HELP)] = None,
        end: Annotated[str | None, typer.Option(metavar="TIME", help=_END_HELP)] = None,
        payout: Annotated[
            int, typer.Option(metavar="PERCENT", help=_PAYOUT_HELP)
        ] = _DEFAULT_PAYOUT_PERCENT,
        db: Annotated[str | None, typer.Option(metavar="URL", help=_DB_HELP)] = None,
        out: Annotated[Path | None, typer.Option(metavar="PATH", help=_OUT_HELP)] = None,
        stream: Annotated[str, typer.Option(metavar="NAME", help=_STREAM_HELP)] = FORMAT,
        timeout: Annotated[
            float, typer.Option(metavar="SECONDS", help=_TIMEOUT_HELP)
        ] = _DEFAULT_TIMEOUT_S,
        replay_answers: Annotated[
            str | None,
            typer.Option("--replay-answers", metavar="FROM_DB", help=_REPLAY_ANSWERS_HELP),
        ] = None,
        seed: Annotated[int, typer.Option(min=0, metavar="SEED", help=_SEED_HELP)] = 0,
    ) -> None:
        """Replay direction-arena rounds over frozen candles with the paper broker.

        Ends with a summary per agent; exits 3 when an agent never decided because
        its provider failed (the summary names the cause and the likely fix).

        Example: tradeleague replay direction --market ../shared/data/crypto_1m
        --agent up=baseline:up --agent coin=baseline:coin-flip --end 2025-09-02T06:00Z
        """
        if not 0 <= payout <= 1000:
            raise ConfigError("--payout is a percent between 0 and 1000")
        preset = DirectionPreset(payout_ppm=payout * 10_000)
        if not 0 < timeout < preset.round_length.total_seconds():
            raise ConfigError(
                f"--timeout {timeout:g}: give the seconds a model may take, more than 0 and "
                f"less than the {preset.round_length.total_seconds():g}-second round"
            )
        preset = replace(preset, window=timedelta(seconds=timeout))
        specs = [parse_agent_spec(text) for text in agent]
        check_roster(specs)
        dataset = load_dataset(market, symbols=[preset.symbol])
        if dataset.bar_size != MINUTE:
            raise ConfigError(
                f"--market {market}: the arena needs one-minute candles, "
                f"not {dataset.bar_size_text}"
            )
        series = dataset[preset.symbol]
        earliest = series.first + preset.candles * MINUTE
        first = _moment(start, "--start") or earliest
        last = _moment(end, "--end") or series.last
        if not round_opens(max(first, earliest), min(last, series.last), preset):
            raise ConfigError(
                f"no round with data between {first:%Y-%m-%d %H:%M} and {last:%Y-%m-%d %H:%M} "
                f"UTC: the candles in {market} run from {series.first:%Y-%m-%d %H:%M} to "
                f"{series.last:%Y-%m-%d %H:%M} UTC, and the first round needs "
                f"{preset.candles} minutes of history"
            )
        answers = None
        if replay_answers is not None:
            with open_store(replay_answers, upgrade=False) as source:
                answers = recorded_answers(source, stream)
        console = board_console()
        try:
            board = asyncio.run(
                _run(specs, preset, dataset, first, last, db, stream, console, answers, seed)
            )
        except ReplayMissed as exc:
            raise ConfigError(
                f"--replay-answers: {exc}; the answers' stream must hold this span recorded "
                "with the same agents, --start, --end, --payout and --timeout"
            ) from exc
        with open_store(db, upgrade=False) as store:
            summaries = summarise(store, stream)
            console.print(board_table(board, causes={s.agent: s.faults for s in summaries}))
            status = print_summary(console, store, stream, summaries)
            calls = answers_payload(store, stream) if out is not None else {}
        if out is not None:
            payload = report_payload(board)
            payload["answers"] = calls
            out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
            console.print(f"wrote {out}")
        if status:
            raise typer.Exit(status)


def check_roster(specs: list[AgentSpec]) -> None:
    """Build every agent once against a gateway that calls nothing: a bad spec fails first.

    Raises
    ------
    ConfigError
        For a duplicate name, an unknown baseline or an unreadable script.
    """
    names = [spec.name for spec in specs]
    if len(set(names)) != len(names):
        raise ConfigError(f"agent names must be unique: {names}")
    gateway = ReplayGateway(RecordedAnswers([]))
    for spec in specs:
        build_agent(spec, gateway=gateway, format_name=FORMAT, baseline_factory=direction_baselines)


def _rounds_recorded(store: Store, stream: str) -> int:
    return sum(1 for s in store.events(stream) if s.event.kind == EventKind.ROUND_FINISHED)


async def _run(
    specs: list[AgentSpec],
    preset: DirectionPreset,
    dataset: Dataset,
    first: datetime,
    last: datetime,
    db: str | None,
    stream: str,
    console: Console,
    answers: RecordedAnswers | None = None,
    seed: int = 0,
) -> Board:
    async with contextlib.AsyncExitStack() as stack:
        gateway: ModelGateway
        if answers is None:
            gateway = await stack.enter_async_context(Gateway(providers_for(specs)))
        else:
            gateway = ReplayGateway(answers)
        roster = [contestant_of(spec, gateway, stream, seed) for spec in specs]
        with open_store(db) as store:
            console.print(f"Recording to {store.url}, stream [bold]{stream}[/]")
            done = _rounds_recorded(store, stream)
            total = len(round_opens(first, last, preset))
            say_resuming(console, done, total, f"stream {stream}")
            with round_progress(console, store, stream) as progress:
                return await replay_direction(
                    store, dataset, roster, start=first, end=last, preset=preset, stream=stream,
                    on_round=progress.tick,
                )  # fmt: skip
