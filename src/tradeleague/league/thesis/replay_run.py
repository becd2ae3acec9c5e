"""What ``tradeleague replay thesis`` does, once its options are parsed.

Like the other replays it checks every argument and folder before the store is
opened (`plan`), prints one progress line per cycle (a bar on a terminal),
keeps whole cycles when interrupted and says so when the same command resumes
them, and ends with the board, a summary per agent and the exit status
(`replay`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from rich.console import Console

from tradeleague.agents.spec import parse_agent_spec, providers_for
from tradeleague.calls import CallParams
from tradeleague.errors import ConfigError
from tradeleague.events import thesis as tev
from tradeleague.events import utc_iso
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.thesis.universe import load_universe
from tradeleague.league.answers import answers_payload
from tradeleague.league.check import AgentCheck, calls_models
from tradeleague.league.costs import season_costs_payload
from tradeleague.league.mask import masked_season_id, report_mask
from tradeleague.league.thesis.agents import build_roster
from tradeleague.league.thesis.board_table import board_table
from tradeleague.league.thesis.cycle import CycleConfig
from tradeleague.league.thesis.data import load_tape, replay_sources
from tradeleague.league.thesis.null import board_null
from tradeleague.league.thesis.replay import (
    check_first_cycle,
    cycle_times,
    replay_season_id,
    run_season,
)
from tradeleague.league.thesis.report import build_report, paper_values
from tradeleague.league.thesis.state import SeasonState
from tradeleague.league.turns import GRACE_S
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway
from tradeleague.llm.token_prices import PriceTable
from tradeleague.store import Store, open_store
from tradeleague.terminal.checks import print_checks
from tradeleague.terminal.console import board_console
from tradeleague.terminal.costs import cost_table
from tradeleague.terminal.options import load_prices
from tradeleague.terminal.progress import round_progress, say_resuming
from tradeleague.terminal.summary import print_summary

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "ReplayPlan",
    "ReplayRequest",
    "check_calls",
    "check_roster",
    "cycle_config",
    "plan",
    "replay",
]

DEFAULT_TIMEOUT_S = CycleConfig().params.timeout_s
"""Seconds a model call may take unless ``--timeout`` says otherwise (45)."""

_DAY_S = 86_400


@dataclass(frozen=True, slots=True)
class ReplayRequest:
    """The options of ``replay thesis``, as given (see the command's help for each)."""

    crypto: Path
    stocks: Path
    start: str
    end: str
    agents: list[str]
    join: list[str] | None = None
    stocks_hourly: Path | None = None
    db: str | None = None
    season: str | None = None
    out: Path | None = None
    timeout: float = DEFAULT_TIMEOUT_S
    seed: int = 0
    prices: Path | None = None
    check: bool = True
    mask: bool = False


@dataclass(frozen=True, slots=True)
class ReplayPlan:
    """A checked replay: the days, the cycles, the tape and the season it records."""

    request: ReplayRequest
    first: date
    last: date
    times: list[int]
    config: CycleConfig
    joins: list[str]
    tape: MarketTape
    season_id: str
    prices: PriceTable | None = None


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


def plan(request: ReplayRequest) -> ReplayPlan:
    """Check every option, agent and folder of ``request``; nothing is written.

    Raises
    ------
    ConfigError
        The first mistake, in one sentence.
    """
    first, last = _day(request.start, "--start"), _day(request.end, "--end")
    prices = load_prices(request.prices)
    times = cycle_times(first, last, ThesisPreset())
    config = cycle_config(request.timeout)
    joins = request.join or []
    check_roster(request.agents, joins)
    crypto, stocks = request.crypto, request.stocks
    tape = load_tape(load_universe(), crypto, stocks, request.stocks_hourly)
    _check_data(tape, times, first, last, (crypto, stocks))
    season_id = request.season or masked_season_id(replay_season_id(first, last), request.mask)
    return ReplayPlan(request, first, last, times, config, joins, tape, season_id, prices)


def _cycles_recorded(store: Store, season_id: str, times: Sequence[int]) -> int:
    """Return how many of ``times`` the season already holds."""
    stream = tev.season_stream(season_id)
    if not store.count(stream):
        return 0
    state = SeasonState.from_events((s.event for s in store.events(stream)), ThesisPreset())
    return sum(1 for t in times if _iso(t) in state.cycles)


async def _run(store: Store, checked: ReplayPlan, console: Console) -> SeasonState:
    request, season_id = checked.request, checked.season_id
    specs = [parse_agent_spec(t) for t in request.agents if "=inverse:" not in t]
    async with contextlib.AsyncExitStack() as stack:
        gateway = await stack.enter_async_context(
            Gateway(providers_for(specs), prices=checked.prices)
        )
        entrants, agents = build_roster(
            request.agents, checked.joins, gateway, request.seed, season=season_id
        )
        times = checked.times
        with round_progress(console, store, tev.season_stream(season_id), unit="cycle") as progress:

            def tick(index: int, total: int) -> None:
                progress.tick(index + 1, total, _at(times[index]).isoformat())

            return await run_season(
                store,
                checked.tape,
                entrants,
                agents,
                season_id=season_id,
                start=checked.first,
                end=checked.last,
                sources=replay_sources(request.crypto, request.stocks, request.stocks_hourly),
                config=checked.config,
                on_cycle=tick,
                mask=request.mask,
            )


async def check_calls(checked: ReplayPlan) -> list[AgentCheck]:
    """Ask each model agent the season's first cycle once, on a scratch store."""
    request, season_id = checked.request, checked.season_id
    specs = [parse_agent_spec(t) for t in request.agents if "=inverse:" not in t]
    async with Gateway(providers_for(specs)) as gateway:
        entrants, agents = build_roster(
            request.agents, checked.joins, gateway, request.seed, season=season_id
        )
        return await check_first_cycle(
            checked.tape, entrants, agents, season_id=season_id, start=checked.first,
            end=checked.last,
            sources=replay_sources(request.crypto, request.stocks, request.stocks_hourly),
            config=checked.config, mask=request.mask,
        )  # fmt: skip


def replay(request: ReplayRequest) -> int:
    """Check, record (or resume), print and report the replay ``request`` asks for.

    Returns the exit status: 0, or the summary's (an agent that never decided).

    Raises
    ------
    ConfigError
        A user error, before anything is written.
    """
    checked = plan(request)
    season_id = checked.season_id
    console = board_console()
    with open_store(request.db) as store:
        store.claim(tev.season_stream(season_id))  # refused here: nothing printed, no model called
        if request.check and calls_models(t for t in request.agents if "=inverse:" not in t):
            status = print_checks(console, asyncio.run(check_calls(checked)))
            if status:  # under the claim, before the first cycle
                return status
        console.print(f"Recording to {store.url}, season [bold]{season_id}[/]")
        done = _cycles_recorded(store, season_id, checked.times)
        say_resuming(console, done, len(checked.times), f"season {season_id}", unit="cycle")
        state = asyncio.run(_run(store, checked, console))
        report = build_report(state, board_null(state, checked.tape))
        board = report["board"]
        console.print(board_table(board if isinstance(board, list) else []))
        status = print_summary(console, store, season_id)
        costs = season_costs_payload(store, season_id, paper_values(state), checked.prices)
        console.print(cost_table(costs))
        calls = answers_payload(store, season_id) if request.out is not None else {}
    if request.out is not None:
        report["answers"] = calls
        report["costs"] = costs
        shown = report_mask(state.mask, state.ended)
        if shown is not None:
            report["mask"] = shown
        request.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        console.print(f"wrote {request.out}")
    return status
