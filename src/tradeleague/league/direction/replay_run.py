"""What ``tradeleague replay direction`` does, once its options are parsed.

`plan` checks the payout, the response window, the roster and the candles
before any store is opened; `replay` plays (or resumes) the rounds, prints the
board and the summary per agent, writes the report and returns the exit status.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rich.console import Console

from tradeleague.agents.llm import ReplayMissed
from tradeleague.agents.spec import AgentSpec, build_agent, parse_agent_spec, providers_for
from tradeleague.errors import ConfigError
from tradeleague.events import EventKind
from tradeleague.formats.direction.board import Board, paper_values
from tradeleague.formats.direction.candle import MINUTE
from tradeleague.formats.direction.preset import FORMAT, DirectionPreset
from tradeleague.formats.direction.publish import report_payload
from tradeleague.formats.direction.timing import round_opens
from tradeleague.league.answers import answers_payload, summarise
from tradeleague.league.check import AgentCheck, calls_models
from tradeleague.league.costs import season_costs_payload
from tradeleague.league.direction.board_table import board_table
from tradeleague.league.direction.replay import (
    check_first_round,
    recorded_answers,
    replay_direction,
)
from tradeleague.league.direction.roster import contestant_of, direction_baselines
from tradeleague.league.mask import report_mask
from tradeleague.llm.gateway import Gateway, ModelGateway
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway
from tradeleague.llm.token_prices import PriceTable
from tradeleague.market import Dataset, load_dataset
from tradeleague.market.mask import mask_from_payload
from tradeleague.store import Store, open_store
from tradeleague.terminal.checks import print_checks
from tradeleague.terminal.console import board_console
from tradeleague.terminal.costs import cost_table
from tradeleague.terminal.options import load_prices
from tradeleague.terminal.progress import round_progress, say_resuming
from tradeleague.terminal.summary import print_summary

__all__ = [
    "DEFAULT_PAYOUT_PERCENT",
    "ReplayPlan",
    "ReplayRequest",
    "check_calls",
    "check_roster",
    "plan",
    "replay",
]

DEFAULT_PAYOUT_PERCENT = DirectionPreset().payout_ppm // 10_000
"""The preset's payout as a whole percent (80), the default of ``--payout``."""


@dataclass(frozen=True, slots=True)
class ReplayRequest:
    """The options of ``replay direction``, as given (see the command's help for each)."""

    market: Path
    agents: list[str]
    start: str | None = None
    end: str | None = None
    payout: int = DEFAULT_PAYOUT_PERCENT
    db: str | None = None
    out: Path | None = None
    stream: str = FORMAT
    timeout: float = DirectionPreset().window.total_seconds()
    replay_answers: str | None = None
    seed: int = 0
    prices: Path | None = None
    check: bool = True
    mask: bool = False


@dataclass(frozen=True, slots=True)
class ReplayPlan:
    """A checked replay: the rules, the roster, the candles and the span of rounds."""

    request: ReplayRequest
    preset: DirectionPreset
    specs: list[AgentSpec]
    dataset: Dataset
    first: datetime
    last: datetime
    prices: PriceTable | None = None


def _moment(text: str | None, what: str) -> datetime | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(f"{what} {text!r} is not an ISO 8601 time") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


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


def _preset(payout: int, timeout: float) -> DirectionPreset:
    """Return the arena's rules with ``--payout`` and ``--timeout`` (the response window)."""
    if not 0 <= payout <= 1000:
        raise ConfigError("--payout is a percent between 0 and 1000")
    preset = DirectionPreset(payout_ppm=payout * 10_000)
    if not 0 < timeout < preset.round_length.total_seconds():
        raise ConfigError(
            f"--timeout {timeout:g}: give the seconds a model may take, more than 0 and "
            f"less than the {preset.round_length.total_seconds():g}-second round"
        )
    return replace(preset, window=timedelta(seconds=timeout))


def plan(request: ReplayRequest) -> ReplayPlan:
    """Check every option, the roster and the candles of ``request``; nothing is written.

    Raises
    ------
    ConfigError
        The first mistake, in one sentence.
    """
    preset = _preset(request.payout, request.timeout)
    prices = load_prices(request.prices)
    specs = [parse_agent_spec(text) for text in request.agents]
    check_roster(specs)
    market = request.market
    dataset = load_dataset(market, symbols=[preset.symbol])
    if dataset.bar_size != MINUTE:
        raise ConfigError(
            f"--market {market}: the arena needs one-minute candles, not {dataset.bar_size_text}"
        )
    series = dataset[preset.symbol]
    earliest = series.first + preset.candles * MINUTE
    first = _moment(request.start, "--start") or earliest
    last = _moment(request.end, "--end") or series.last
    if not round_opens(max(first, earliest), min(last, series.last), preset):
        raise ConfigError(
            f"no round with data between {first:%Y-%m-%d %H:%M} and {last:%Y-%m-%d %H:%M} "
            f"UTC: the candles in {market} run from {series.first:%Y-%m-%d %H:%M} to "
            f"{series.last:%Y-%m-%d %H:%M} UTC, and the first round needs "
            f"{preset.candles} minutes of history"
        )
    return ReplayPlan(request, preset, specs, dataset, first, last, prices)


def _rounds_recorded(store: Store, stream: str) -> int:
    return sum(1 for s in store.events(stream) if s.event.kind == EventKind.ROUND_FINISHED)


async def _run(
    store: Store, checked: ReplayPlan, console: Console, answers: RecordedAnswers | None = None
) -> Board:
    request, preset = checked.request, checked.preset
    stream = request.stream
    async with contextlib.AsyncExitStack() as stack:
        gateway: ModelGateway
        if answers is None:
            gateway = await stack.enter_async_context(
                Gateway(providers_for(checked.specs), prices=checked.prices)
            )
        else:
            gateway = ReplayGateway(answers)
        roster = [contestant_of(spec, gateway, stream, request.seed) for spec in checked.specs]
        console.print(f"Recording to {store.url}, stream [bold]{stream}[/]")
        done = _rounds_recorded(store, stream)
        total = len(round_opens(checked.first, checked.last, preset))
        say_resuming(console, done, total, f"stream {stream}")
        with round_progress(console, store, stream) as progress:
            return await replay_direction(
                store, checked.dataset, roster, start=checked.first, end=checked.last,
                preset=preset, stream=stream, on_round=progress.tick, mask=request.mask,
            )  # fmt: skip


async def check_calls(checked: ReplayPlan) -> list[AgentCheck]:
    """Ask each model agent the span's first round once, on a scratch store."""
    request = checked.request
    async with Gateway(providers_for(checked.specs)) as gateway:
        roster = [contestant_of(s, gateway, request.stream, request.seed) for s in checked.specs]
        return await check_first_round(
            checked.dataset, roster, start=checked.first, end=checked.last,
            preset=checked.preset, mask=request.mask,
        )  # fmt: skip


def _masks(store: Store, stream: str) -> dict[str, object]:
    """Return each masked season's table, for the report of a replay that has finished."""
    out: dict[str, object] = {}
    for stored in store.events(stream):
        e = stored.event
        if e.kind == EventKind.MASK_DRAWN:
            table = mask_from_payload(e.payload_view)
            out[str(e.payload_view.get("season"))] = report_mask(table, ended=True)
    return out


def replay(request: ReplayRequest) -> int:
    """Check, play (or resume), print and report the replay ``request`` asks for.

    Returns the exit status: 0, or the summary's (an agent that never decided).

    Raises
    ------
    ConfigError
        A user error, before anything is written.
    """
    checked = plan(request)
    answers = None
    if request.replay_answers is not None:
        with open_store(request.replay_answers, upgrade=False) as source:
            answers = recorded_answers(source, request.stream)
    console = board_console()
    with open_store(request.db) as store:
        store.claim(request.stream)  # refused here: nothing printed, no model called
        if request.check and answers is None and calls_models(request.agents):
            status = print_checks(console, asyncio.run(check_calls(checked)))
            if status:  # under the claim, before round one
                return status
        try:
            board = asyncio.run(_run(store, checked, console, answers))
        except ReplayMissed as exc:
            raise ConfigError(
                f"--replay-answers: {exc}; the answers' stream must hold this span recorded "
                "with the same agents, --start, --end, --payout and --timeout"
            ) from exc
    out = request.out
    with open_store(request.db, upgrade=False) as store:
        summaries = summarise(store, request.stream)
        console.print(board_table(board, causes={s.agent: s.faults for s in summaries}))
        status = print_summary(console, store, request.stream, summaries)
        costs = season_costs_payload(
            store, request.stream, paper_values(board), checked.prices, of_season=board.season
        )
        console.print(cost_table(costs))
        calls = answers_payload(store, request.stream) if out is not None else {}
        masks = _masks(store, request.stream) if out is not None and request.mask else None
    if out is not None:
        payload = report_payload(board)
        payload["answers"] = calls
        payload["costs"] = costs
        if masks is not None:
            payload["mask"] = masks
        out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        console.print(f"wrote {out}")
    return status
