"""``tradeleague replay thesis``: the thesis league over frozen crypto and stock folders.

Like the other replays it checks every argument and folder before the store is
opened, prints one progress line per cycle (a bar on a terminal), keeps whole
cycles when interrupted and says so when the same command resumes them, and
ends with a summary per agent and exit status 3 when an agent never decided
because its provider failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from tradeleague.agents.spec import agent_option_help, parse_agent_spec, providers_for
from tradeleague.calls import CallParams
from tradeleague.disclaimer import DISCLAIMER
from tradeleague.errors import ConfigError
from tradeleague.events import thesis as tev
from tradeleague.events import utc_iso
from tradeleague.formats.thesis.baselines import BASELINES
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.thesis.universe import load_universe
from tradeleague.league.answers import answers_payload
from tradeleague.league.thesis.agents import build_roster
from tradeleague.league.thesis.cycle import CycleConfig
from tradeleague.league.thesis.data import load_tape, replay_sources
from tradeleague.league.thesis.null import board_null
from tradeleague.league.thesis.replay import cycle_times, replay_season_id, run_season
from tradeleague.league.thesis.report import build_report
from tradeleague.league.thesis.state import SeasonState
from tradeleague.league.turns import GRACE_S
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway
from tradeleague.store import Store, open_store
from tradeleague.terminal.console import board_console
from tradeleague.terminal.progress import round_progress, say_resuming
from tradeleague.terminal.summary import print_summary

__all__ = ["board_table", "register_replay"]

_AGENT_HELP = agent_option_help(BASELINES) + (
    " In this format inverse:NAME mirrors another agent (long and short swapped)."
    " Example: --agent hold=baseline:buy-and-hold --agent mirror=inverse:hold."
)
_JOIN_HELP = "Let an agent enter at a later cycle, NAME=CYCLE with 0 the first (e.g. mirror=20)."
_CRYPTO_HELP = "Folder of Binance 4h candle files (<PAIR>USDT.csv), e.g. ../shared/data/crypto_4h."
_STOCKS_HELP = "Folder of daily stock files (<SYMBOL>.csv), e.g. ../shared/data/us_equities_daily."
_HOURLY_HELP = (
    "Folder of hourly stock files; gives stocks a 4h RSI (e.g. ../shared/data/us_equities_1h; "
    "default: none, so a stock's 4h RSI is none)."
)
_DATE_HELP = "A UTC date, YYYY-MM-DD."
_DB_HELP = (
    "Event store URL the cycles are recorded to, e.g. sqlite:///thesis.db. "
    "Default: $TRADELEAGUE_DB, else sqlite:///./tradeleague.db."
)
_OUT_HELP = (
    "Write the report (cycles, every entry and decision, metrics, ranks, and every model "
    "call with its latency, outcome and fault) to this JSON file."
)
_DEFAULT_TIMEOUT_S = CycleConfig().params.timeout_s
"""Seconds a model call may take unless ``--timeout`` says otherwise (45)."""
_TIMEOUT_HELP = (
    "Seconds each model call may take (the answer and the correction alike); "
    "a call still unanswered then is recorded as a timeout."
)
_DAY_S = 86_400
_SEED_HELP = "Seed of the coin-flip baseline's draws; give the same seed to resume a season."
_SEASON_HELP = "Season id in --db; the same id resumes the season. Default: from the dates."


def _day(text: str, what: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"{what} {text!r} is not a date like 2025-03-03") from None


def _at(moment: int) -> datetime:
    return datetime.fromtimestamp(moment, UTC)


def _iso(moment: int) -> str:
    return utc_iso(_at(moment))


def _date(moment: int) -> date:
    return _at(moment).date()


def board_table(rows: list[dict[str, object]]) -> Table:
    """Return the board as a table: every metric, its counts (ST-1) and the verdicts (ST-2).

    The win rate rests on the closed trades, the others on the trades and decisions.
    """
    table = Table(title="Thesis league board")
    heads = (
        "rank", "name", "return", "max_drawdown", "sharpe", "sortino", "win_rate", "exposure",
        "trades", "closed_trades", "decisions", "differs_from_cash", "differs_from_spy",
    )  # fmt: skip
    shown = {"differs_from_cash": "vs cash", "differs_from_spy": "vs SPY"}
    for head in heads:
        table.add_column(shown.get(head, head.replace("_", " ")))
    for row in rows:
        name = str(row["name"]) + (" (agentic)" if row.get("agentic") else "")
        cells = [_cell(row[h]) if h != "name" else name for h in heads]
        table.add_row(*cells)
    luck = rows[0].get("luckiest_of_n") if rows else None
    line = (
        f"{luck}% (the expected best of {len(rows)} coin flippers simulated under the rules)"
        if luck is not None
        else "not simulated (the season's folders are not at hand)"
    )
    table.caption = (
        f"Luckiest of {len(rows)} agents with no skill: {line}.\n"
        "Return, max drawdown, win rate and exposure in %. vs cash, vs SPY: whether the "
        "result is distinguishable from cash and from holding SPY (a paired bootstrap over the "
        'daily returns, 5% level): "differs" can be worse as well as better.\n' + DISCLAIMER
    )
    return table


def _cell(value: object) -> str:
    """Return a board cell: a verdict as "differs" or "no", a missing figure as "-"."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "differs" if value else "no"
    return str(value)


def cycle_config(timeout_s: float) -> CycleConfig:
    """Return the cycle's call parameters for ``--timeout``, checked.

    The league waits ``timeout_s`` plus the grace the other formats give, and
    never less than the default hard deadline.

    Raises
    ------
    ConfigError
        Unless ``timeout_s`` is a number of seconds above 0 and under a day.
    """
    if not (math.isfinite(timeout_s) and 0 < timeout_s < _DAY_S):
        raise ConfigError(
            f"--timeout {timeout_s:g}: give the seconds a model call may take, more than 0 "
            f"and less than the {_DAY_S}-second day between cycles, e.g. 60"
        )
    default = CycleConfig()
    limit = max(default.limit, timedelta(seconds=timeout_s + GRACE_S))
    return CycleConfig(limit=limit, params=CallParams(timeout_s=timeout_s))


def check_roster(agent_texts: Sequence[str], join_texts: Sequence[str]) -> None:
    """Build the roster once against a gateway that calls nothing: a bad spec fails first.

    Raises
    ------
    ConfigError
        For a bad spec, a duplicate name, an unknown baseline, an unreadable
        script, a mirror of no agent or a bad ``--join``.
    """
    build_roster(agent_texts, join_texts, ReplayGateway(RecordedAnswers([])))


def _check_data(
    tape: MarketTape, times: Sequence[int], first: date, last: date, folders: Sequence[Path]
) -> None:
    """Refuse a range in which a benchmark has no candle, naming the data's range."""
    universe = tape.universe
    begin = times[0] - times[0] % _DAY_S  # the season's first day, 00:00 UTC
    for symbol, folder in zip(universe.benchmarks, folders, strict=True):
        span = tape.span(symbol)
        if span is not None and span[0] <= times[-1] and span[1] > begin:
            continue
        held = "" if span is None else (
            f": the candles in {folder} run from {_date(span[0])} to {_date(span[1] - 1)}"
        )  # fmt: skip
        raise ConfigError(f"no {symbol} candle between {first} and {last}{held}")


def _cycles_recorded(store: Store, season_id: str, times: Sequence[int]) -> int:
    """Return how many of ``times`` the season already holds."""
    stream = tev.season_stream(season_id)
    if not store.count(stream):
        return 0
    state = SeasonState.from_events((s.event for s in store.events(stream)), ThesisPreset())
    return sum(1 for t in times if _iso(t) in state.cycles)


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
        timeout: Annotated[
            float, typer.Option(metavar="SECONDS", help=_TIMEOUT_HELP)
        ] = _DEFAULT_TIMEOUT_S,
        seed: Annotated[int, typer.Option(min=0, metavar="SEED", help=_SEED_HELP)] = 0,
    ) -> None:
        """Replay a thesis-league season over frozen folders, one cycle a day at 16:00 UTC.

        Ctrl-C keeps whole cycles; run the same command again to resume. Ends
        with a summary per agent; exits 3 when an agent never decided because
        its provider failed (the summary names the cause and the likely fix).

        Example: tradeleague replay thesis --crypto ../shared/data/crypto_4h
        --stocks ../shared/data/us_equities_daily --start 2025-03-03 --end 2025-03-31
        --agent cash=baseline:cash --agent hold=baseline:buy-and-hold --out REPORT.json
        """
        first, last = _day(start, "--start"), _day(end, "--end")
        times = cycle_times(first, last, ThesisPreset())
        config = cycle_config(timeout)
        joins = join or []
        check_roster(agent, joins)
        tape = load_tape(load_universe(), crypto, stocks, stocks_hourly)
        _check_data(tape, times, first, last, (crypto, stocks))
        season_id = season or replay_season_id(first, last)
        console = board_console()
        with open_store(db) as store:
            console.print(f"Recording to {store.url}, season [bold]{season_id}[/]")
            done = _cycles_recorded(store, season_id, times)
            say_resuming(console, done, len(times), f"season {season_id}", unit="cycle")
            state = asyncio.run(
                _run(
                    store, tape, agent, joins, season_id, first, last,
                    replay_sources(crypto, stocks, stocks_hourly), config, console, seed,
                )
            )  # fmt: skip
            report = build_report(state, board_null(state, tape))
            board = report["board"]
            console.print(board_table(board if isinstance(board, list) else []))
            status = print_summary(console, store, season_id)
            calls = answers_payload(store, season_id) if out is not None else {}
        if out is not None:
            report["answers"] = calls
            out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
            console.print(f"wrote {out}")
        if status:
            raise typer.Exit(status)


async def _run(
    store: Store,
    tape: MarketTape,
    agent_texts: list[str],
    join_texts: list[str],
    season_id: str,
    start: date,
    end: date,
    sources: dict[str, str],
    config: CycleConfig,
    console: Console,
    seed: int = 0,
) -> SeasonState:
    specs = [parse_agent_spec(t) for t in agent_texts if "=inverse:" not in t]
    async with contextlib.AsyncExitStack() as stack:
        gateway = await stack.enter_async_context(Gateway(providers_for(specs)))
        entrants, agents = build_roster(agent_texts, join_texts, gateway, seed, season=season_id)
        times = cycle_times(start, end, ThesisPreset())
        with round_progress(console, store, tev.season_stream(season_id), unit="cycle") as progress:

            def tick(index: int, total: int) -> None:
                progress.tick(index + 1, total, _at(times[index]).isoformat())

            return await run_season(
                store,
                tape,
                entrants,
                agents,
                season_id=season_id,
                start=start,
                end=end,
                sources=sources,
                config=config,
                on_cycle=tick,
            )
