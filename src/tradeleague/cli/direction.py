"""``tradeleague replay direction``: the direction arena over frozen one-minute candles.

Also the board's Rich table with its luck columns (D-LCK), for the CLI and the demo.
With ``--replay-answers FROM_DB`` the model agents answer from the calls recorded
in FROM_DB's stream of the same name (C-5); no model is called.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import Progress
from rich.table import Table

from tradeleague.agents.llm import ReplayMissed
from tradeleague.agents.seeds import agent_seed
from tradeleague.agents.spec import (
    REPLAY_ANSWERS_HELP,
    AgentSpec,
    agent_option_help,
    build_agent,
    parse_agent_spec,
    providers_for,
)
from tradeleague.cli.console import board_console
from tradeleague.disclaimer import DISCLAIMER
from tradeleague.errors import ConfigError
from tradeleague.formats.direction.baselines import BASELINE_NAMES, direction_baseline
from tradeleague.formats.direction.board import Board, ModelRow
from tradeleague.formats.direction.candle import MINUTE
from tradeleague.formats.direction.ledger import Entrant
from tradeleague.formats.direction.preset import FORMAT, DirectionPreset
from tradeleague.formats.direction.publish import pct, report_payload
from tradeleague.league.direction.arena import Contestant
from tradeleague.league.direction.replay import recorded_answers, replay_direction
from tradeleague.llm.gateway import Gateway, ModelGateway
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway
from tradeleague.market import Dataset, load_dataset
from tradeleague.money import MICRO, format_usd
from tradeleague.store import open_store

__all__ = ["board_table", "direction_baselines", "register_replay", "seeded_baselines"]


def direction_baselines(name: str) -> tuple[Any, Any]:
    """Return ``(decide, render)`` of an arena baseline: up, down, momentum or coin_flip.

    Raises
    ------
    ConfigError
        For any other name.
    """
    return direction_baseline(name, seed=0)


def seeded_baselines(season: str, agent: str) -> Callable[[str], tuple[Any, Any]]:
    """Return the baseline factory of ``agent``: its coin draws from its own seed.

    The seed derives from the season (its stream) and the agent's name
    (`tradeleague.agents.seeds.agent_seed`), so no two coin flippers agree by accident.
    """
    seed = agent_seed(season, agent)
    return lambda name: direction_baseline(name, seed=seed)


def _rate(row: ModelRow) -> str:
    return "-" if row.hit_rate is None else f"{pct(row.hit_rate)}%"


def board_table(board: Board) -> Table:
    """Return the models' board as a Rich table, with the luck columns (D-SCO, D-LCK).

    Hit rates below break-even are greyed (D-SCO-6); the caption carries the
    break-even line, the luckiest-of-N line and the paper-trading line (C-1).
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
        skips = " ".join(f"{k}:{v}" for k, v in row.skips.items()) or "-"
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


_AGENT_HELP = agent_option_help(BASELINE_NAMES) + (
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
_STREAM_HELP = (
    "Event stream the arena records to in --db; use another name to keep several "
    "replays in one database."
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
        replay_answers: Annotated[
            str | None,
            typer.Option("--replay-answers", metavar="FROM_DB", help=_REPLAY_ANSWERS_HELP),
        ] = None,
    ) -> None:
        """Replay direction-arena rounds over frozen candles with the paper broker."""
        if not 0 <= payout <= 1000:
            raise ConfigError("--payout is a percent between 0 and 1000")
        preset = DirectionPreset(payout_ppm=payout * 10_000)
        dataset = load_dataset(market, symbols=[preset.symbol])
        series = dataset[preset.symbol]
        first = _moment(start, "--start") or series.first + preset.candles * MINUTE
        last = _moment(end, "--end") or series.last
        specs = [parse_agent_spec(text) for text in agent]
        answers = None
        if replay_answers is not None:
            with open_store(replay_answers, upgrade=False) as source:
                answers = recorded_answers(source, stream)
        try:
            board = asyncio.run(_run(specs, preset, dataset, first, last, db, stream, answers))
        except ReplayMissed as exc:
            raise ConfigError(
                f"--replay-answers: {exc}; the answers' stream must hold this span recorded "
                "with the same agents, --start, --end and --payout"
            ) from exc
        console = board_console()
        console.print(board_table(board))
        if out is not None:
            out.write_text(json.dumps(report_payload(board), indent=2) + "\n", encoding="utf-8")
            console.print(f"wrote {out}")


async def _run(
    specs: list[AgentSpec],
    preset: DirectionPreset,
    dataset: Dataset,
    first: datetime,
    last: datetime,
    db: str | None,
    stream: str,
    answers: RecordedAnswers | None = None,
) -> Board:
    async with contextlib.AsyncExitStack() as stack:
        gateway: ModelGateway
        if answers is None:
            gateway = await stack.enter_async_context(Gateway(providers_for(specs)))
        else:
            gateway = ReplayGateway(answers)
        roster = [
            Contestant(
                entrant=Entrant(
                    name=spec.name,
                    provider=spec.provider or spec.kind,
                    tier=spec.tier or "-",
                    model=spec.target,
                ),
                agent=build_agent(
                    spec,
                    gateway=gateway,
                    format_name=FORMAT,
                    baseline_factory=seeded_baselines(stream, spec.name),
                ),
            )
            for spec in specs
        ]
        with open_store(db) as store, Progress(transient=True) as progress:
            task = progress.add_task("rounds", total=None)

            def advance(done: int, total: int, round_id: str) -> None:
                progress.update(task, completed=done, total=total, description=round_id)

            return await replay_direction(
                store, dataset, roster, start=first, end=last, preset=preset, stream=stream,
                on_round=advance,
            )  # fmt: skip
