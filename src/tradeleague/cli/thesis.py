"""``tradeleague replay thesis``: the thesis league over frozen crypto and stock folders."""

from __future__ import annotations

import asyncio
import contextlib
import json
from datetime import date
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from tradeleague.agents.spec import agent_option_help, parse_agent_spec, providers_for
from tradeleague.cli.console import board_console
from tradeleague.errors import ConfigError
from tradeleague.formats.thesis.baselines import BASELINES
from tradeleague.formats.thesis.universe import load_universe
from tradeleague.league.thesis.agents import build_roster
from tradeleague.league.thesis.data import load_tape, replay_sources
from tradeleague.league.thesis.replay import replay_season_id, run_season
from tradeleague.league.thesis.report import build_report
from tradeleague.llm.gateway import Gateway
from tradeleague.store import open_store

__all__ = ["board_table", "register_replay"]

_AGENT_HELP = agent_option_help(BASELINES) + (
    " In this format inverse:NAME mirrors another agent (long and short swapped)."
    " Example: --agent hold=baseline:buy-and-hold --agent mirror=inverse:hold."
)
_JOIN_HELP = "Let an agent enter at a later cycle, NAME=CYCLE with 0 the first (e.g. mirror=20)."
_CRYPTO_HELP = "Folder of Binance 4h candle files (<PAIR>USDT.csv), e.g. ../shared/data/crypto_4h."
_STOCKS_HELP = "Folder of daily stock files (<SYMBOL>.csv), e.g. ../shared/data/us_equities_daily."
_HOURLY_HELP = (
    "Folder of hourly stock files; gives stocks a 4h RSI (e.g. ../shared/data/us_equities_1h)."
)
_DATE_HELP = "A UTC date, YYYY-MM-DD."
_DB_HELP = (
    "Event store URL the cycles are recorded to, e.g. sqlite:///thesis.db. "
    "Default: $TRADELEAGUE_DB, else sqlite:///./tradeleague.db."
)
_OUT_HELP = "Write the report (cycles, every entry and decision, metrics, ranks) to this JSON file."
_SEED_HELP = "Seed of the coin-flip baseline's draws; give the same seed to resume a season."
_SEASON_HELP = "Season id in --db; the same id resumes the season. Default: from the dates."


def _day(text: str, what: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"{what} {text!r} is not a date like 2025-03-03") from None


def board_table(rows: list[dict[str, object]]) -> Table:
    """Return the board as a table: every metric, its counts (ST-1) and the verdicts (ST-2)."""
    table = Table(title="Thesis league board")
    heads = (
        "rank", "name", "return", "max_drawdown", "sharpe", "sortino", "win_rate", "exposure",
        "trades", "decisions", "beats_cash", "beats_spy",
    )  # fmt: skip
    for head in heads:
        table.add_column(head.replace("_", " "))
    for row in rows:
        name = str(row["name"]) + (" (agentic)" if row.get("agentic") else "")
        cells = [str(row[h]) if h != "name" else name for h in heads]
        table.add_row(*["-" if c == "None" else c for c in cells])
    luck = rows[0].get("luckiest_of_n") if rows else None
    table.caption = f"Luckiest of {len(rows)} agents with no skill: {luck}% (simulated)."
    return table


def register_replay(replay_app: typer.Typer) -> None:
    """Add the ``thesis`` subcommand to the ``replay`` group."""

    @replay_app.command("thesis")
    def replay_thesis_command(
        crypto: Annotated[Path, typer.Option("--crypto", metavar="DIR", help=_CRYPTO_HELP)],
        stocks: Annotated[Path, typer.Option("--stocks", metavar="DIR", help=_STOCKS_HELP)],
        start: Annotated[str, typer.Option(metavar="DATE", help=_DATE_HELP)],
        end: Annotated[str, typer.Option(metavar="DATE", help=_DATE_HELP + " Exclusive.")],
        agent: Annotated[list[str], typer.Option("--agent", metavar="NAME=SPEC", help=_AGENT_HELP)],
        join: Annotated[
            list[str] | None, typer.Option("--join", metavar="NAME=CYCLE", help=_JOIN_HELP)
        ] = None,
        stocks_hourly: Annotated[
            Path | None, typer.Option("--stocks-hourly", metavar="DIR", help=_HOURLY_HELP)
        ] = None,
        db: Annotated[str | None, typer.Option(metavar="URL", help=_DB_HELP)] = None,
        season: Annotated[str | None, typer.Option(metavar="ID", help=_SEASON_HELP)] = None,
        out: Annotated[Path | None, typer.Option(metavar="PATH", help=_OUT_HELP)] = None,
        seed: Annotated[int, typer.Option(min=0, metavar="SEED", help=_SEED_HELP)] = 0,
    ) -> None:
        """Replay a thesis-league season over frozen folders (resumable).

        Example: tradeleague replay thesis --crypto ../shared/data/crypto_4h
        --stocks ../shared/data/us_equities_daily --start 2025-03-03 --end 2025-03-31
        --agent cash=baseline:cash --agent coin=baseline:coin-flip --out REPORT.json
        """
        first, last = _day(start, "--start"), _day(end, "--end")
        report = asyncio.run(
            _run(crypto, stocks, stocks_hourly, first, last, agent, join or [], db, season, seed)
        )
        console = board_console()
        board = report["board"]
        console.print(board_table(board if isinstance(board, list) else []))
        if out is not None:
            out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
            console.print(f"wrote {out}")


async def _run(
    crypto: Path,
    stocks: Path,
    hourly: Path | None,
    start: date,
    end: date,
    agent_texts: list[str],
    join_texts: list[str],
    db: str | None,
    season: str | None,
    seed: int = 0,
) -> dict[str, object]:
    specs = [parse_agent_spec(t) for t in agent_texts if "=inverse:" not in t]
    universe = load_universe()
    tape = load_tape(universe, crypto, stocks, hourly)
    async with contextlib.AsyncExitStack() as stack:
        gateway = await stack.enter_async_context(Gateway(providers_for(specs)))
        entrants, agents = build_roster(agent_texts, join_texts, gateway, seed)
        with open_store(db) as store:
            state = await run_season(
                store,
                tape,
                entrants,
                agents,
                season_id=season or replay_season_id(start, end),
                start=start,
                end=end,
                sources=replay_sources(crypto, stocks, hourly),
            )
            return build_report(state)
