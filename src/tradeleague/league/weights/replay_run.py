"""What ``tradeleague replay weights`` does, once its options are parsed.

`plan` checks every option, file and agent before any store is created or
written (a user error is one sentence); `replay` records the season (or
resumes it), prints the tables and the summary per agent, writes REPORT.json
and returns the exit status. `replay_roster` is the season with a progress
bar, which the demo plays too.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from rich.console import Console

from tradeleague.agents.cutoff import read_models, resolve_cutoffs
from tradeleague.agents.llm import ReplayMissed
from tradeleague.agents.spec import parse_agent_spec
from tradeleague.calls import CallParams
from tradeleague.errors import ConfigError
from tradeleague.events.weights import season_stream
from tradeleague.feeds import FrozenBarsSource
from tradeleague.formats.weights import Division
from tradeleague.formats.weights.luck import TableLuck
from tradeleague.formats.weights.preset import WeightsPreset
from tradeleague.league.answers import answers_payload, season_events, summarise
from tradeleague.league.check import AgentCheck, calls_models
from tradeleague.league.costs import season_costs_payload
from tradeleague.league.mask import masked_season_id, report_mask
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.board_table import render_table
from tradeleague.league.weights.replay import (
    RosterEntry,
    check_first_round,
    recorded_answers,
    replay_hours,
    replay_season_id,
    run_season,
)
from tradeleague.league.weights.report import build_report, paper_values, season_luck
from tradeleague.league.weights.round import RoundConfig
from tradeleague.league.weights.state import SeasonState
from tradeleague.league.weights.universe import taken_universe
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway
from tradeleague.llm.token_prices import PriceTable
from tradeleague.market import Dataset, load_dataset
from tradeleague.store import Store, open_store, verify
from tradeleague.terminal.checks import print_checks
from tradeleague.terminal.console import board_console
from tradeleague.terminal.costs import cost_table
from tradeleague.terminal.exits import EXIT_FAILED
from tradeleague.terminal.options import load_prices
from tradeleague.terminal.progress import round_progress, say_resuming
from tradeleague.terminal.rows import SHOWN, rest_line
from tradeleague.terminal.summary import print_summary

__all__ = [
    "ReplayPlan",
    "ReplayRequest",
    "check_models",
    "check_roster",
    "plan",
    "replay",
    "replay_roster",
]


@dataclass(frozen=True, slots=True)
class ReplayRequest:
    """The options of ``replay weights``, as given (see the command's help for each)."""

    market: Path
    agents: list[str]
    symbols: str | None = None
    start: str | None = None
    end: str | None = None
    division: Division = Division.OPEN
    pro: list[str] | None = None
    season: str | None = None
    timeout: float = 60.0
    db: str | None = None
    out: Path | None = None
    replay_answers: str | None = None
    universe_from: str | None = None
    universe_season: str | None = None
    seed: int = 0
    prices: Path | None = None
    check: bool = True
    all_rows: bool = False
    mask: bool = False
    models: Path | None = None


@dataclass(frozen=True, slots=True)
class ReplayPlan:
    """A checked replay: the bars, the days, the roster and the season it records."""

    request: ReplayRequest
    dataset: Dataset
    start: date
    end: date
    roster: list[RosterEntry]
    divisions: list[Division]
    hours: list[datetime]
    season_id: str
    universe: dict[str, object] | None
    prices: PriceTable | None = None


def _day(text: str | None, what: str) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"{what} {text!r} is not a date like 2026-03-02") from None


def check_roster(specs: list[str]) -> None:
    """Build the agents of ``specs`` once, calling nothing, so a bad spec fails before any effect.

    Raises
    ------
    ConfigError
        For a malformed spec, a duplicate name, an unknown baseline or an
        unreadable script.
    """
    build_agents(specs, gateway=ReplayGateway(RecordedAnswers([])))


def _divisions(specs: list[str], division: Division, pro: list[str]) -> list[Division]:
    """Return each agent's division: Pro for the agents ``pro`` names, ``division`` for the rest.

    Raises
    ------
    ConfigError
        If ``pro`` names no agent of ``specs``.
    """
    names = [parse_agent_spec(s).name for s in specs]
    unknown = [n for n in pro if n not in names]
    if unknown:
        raise ConfigError(
            f"--pro {unknown[0]}: no --agent is named {unknown[0]!r} (the agents: "
            + ", ".join(names)
            + ")"
        )
    return [Division.PRO if n in pro else division for n in names]


def _taken_symbols(request: ReplayRequest) -> tuple[list[str] | None, dict[str, object] | None]:
    """Return the symbols to load (None: every file) and the universe taken with them, if any."""
    symbols = request.symbols
    names = [s.strip() for s in symbols.split(",") if s.strip()] if symbols else None
    if request.universe_from is None and request.universe_season is None:
        return names, None
    if request.universe_from is None or request.universe_season is None:
        raise ConfigError(
            "--universe-from FROM_DB and --universe-season SEASON go together: the database "
            "and the recorded season whose symbols to take"
        )
    if names is not None:
        raise ConfigError("give --symbols or --universe-from, not both")
    with open_store(request.universe_from, upgrade=False) as source_store:
        stream = season_stream(request.universe_season)
        recorded = SeasonState.from_events(stream, (e.event for e in source_store.events(stream)))
    taken, payload = taken_universe(recorded, request.season or request.universe_season)
    return list(taken), payload or None


def _data_days(dataset: Dataset) -> tuple[date, date]:
    """Return the first and the last day the bars of ``dataset`` hold."""
    first = min(
        datetime.fromtimestamp(int(dataset[s].times[0]), UTC).date() for s in dataset.symbols
    )
    last = max(
        datetime.fromtimestamp(int(dataset[s].times[-1]), UTC).date() for s in dataset.symbols
    )
    return first, last


def plan(request: ReplayRequest) -> ReplayPlan:
    """Check every option, file and agent of ``request``; nothing is written.

    Raises
    ------
    ConfigError
        The first mistake, in one sentence.
    """
    prices = load_prices(request.prices)
    names, universe = _taken_symbols(request)
    dataset = load_dataset(request.market, symbols=names)
    first, last = _data_days(dataset)
    day0 = _day(request.start, "--start") or first
    day1 = _day(request.end, "--end") or last + timedelta(days=1)
    timeout = request.timeout
    if not (math.isfinite(timeout) and timeout > 0):  # nan and inf are no deadline
        raise ConfigError(f"--timeout {timeout:g}: give the seconds a model call may take, e.g. 60")
    agents = resolve_cutoffs(
        request.agents, None if request.models is None else read_models(request.models)
    )
    check_roster(agents)
    divisions = _divisions(agents, request.division, request.pro or [])
    hours = replay_hours(FrozenBarsSource(dataset), day0, day1, WeightsPreset())
    if not hours:
        raise ConfigError(
            f"no trading day with bars between {day0} and {day1}: the data in "
            f"{request.market} runs from {first} to {last}"
        )
    season_id = request.season or masked_season_id(
        replay_season_id(dataset.label, day0, day1, request.division), request.mask
    )
    if universe is not None:
        universe["season"] = season_id
    parsed = [parse_agent_spec(s) for s in agents]
    roster = [
        RosterEntry(name=p.name, spec=s, division=d)
        for p, s, d in zip(parsed, agents, divisions, strict=True)
    ]
    return ReplayPlan(
        request, dataset, day0, day1, roster, divisions, hours, season_id, universe, prices
    )


def _specs(roster: list[RosterEntry]) -> list[str]:
    return [e.spec if e.spec.startswith(f"{e.name}=") else f"{e.name}={e.spec}" for e in roster]


async def replay_roster(
    store: Store,
    dataset: Dataset,
    roster: list[RosterEntry],
    season: str,
    start: date,
    end: date,
    config: RoundConfig,
    console: Console,
    *,
    answers: RecordedAnswers | None = None,
    seed: int = 0,
    universe: dict[str, object] | None = None,
    prices: PriceTable | None = None,
    mask: bool = False,
) -> SeasonState:
    """Replay (or resume) ``season`` for ``roster`` over ``dataset`` with a progress bar.

    Model agents answer live, or from ``answers`` (recorded calls) when given;
    ``universe`` is a universe taken from a recorded season, recorded again;
    ``prices`` prices the live calls as they are recorded.
    """
    replay_gateway = None if answers is None else ReplayGateway(answers)
    _parsed, agents, gateway = build_agents(
        _specs(roster), gateway=replay_gateway, seed=seed, season=season, prices=prices
    )
    try:
        with round_progress(console, store, season_stream(season)) as progress:

            def tick(index: int, total: int, hour: datetime) -> None:
                progress.tick(index + 1, total, hour.isoformat())

            return await run_season(
                store,
                FrozenBarsSource(dataset),
                roster,
                agents,
                season_id=season,
                start=start,
                end=end,
                config=config,
                on_round=tick,
                universe=universe,
                mask=mask,
            )
    finally:
        if gateway is not None:
            await gateway.aclose()


def _config(request: ReplayRequest) -> RoundConfig:
    return RoundConfig(params=CallParams(max_tokens=400, timeout_s=request.timeout))


async def _check_calls(checked: ReplayPlan) -> list[AgentCheck]:
    """Ask each model agent the season's first round once, in memory (`check_first_round`)."""
    _parsed, agents, gateway = build_agents(
        _specs(checked.roster), seed=checked.request.seed, season=checked.season_id
    )
    try:
        return await check_first_round(
            FrozenBarsSource(checked.dataset), checked.roster, agents,
            season_id=checked.season_id, start=checked.start, end=checked.end,
            config=_config(checked.request), universe=checked.universe,
            mask=checked.request.mask,
        )  # fmt: skip
    finally:
        if gateway is not None:
            await gateway.aclose()


def check_models(checked: ReplayPlan, console: Console) -> int:
    """Check the planned season's model agents before round one; return the exit status.

    0 when every model agent passed (or none calls a model), else
    ``EXIT_NO_DECISIONS`` after one line per failed agent.
    """
    if not calls_models(checked.request.agents):
        return 0
    return print_checks(console, asyncio.run(_check_calls(checked)))


def _rounds_recorded(store: Store, season_id: str, hours: list[datetime]) -> int:
    """Return how many of ``hours`` season ``season_id`` already holds."""
    stream = season_stream(season_id)
    if not store.count(stream):
        return 0
    state = SeasonState.from_events(stream, (s.event for s in store.events(stream)))
    return sum(1 for hour in hours if state.recorded(hour))


def _answers(checked: ReplayPlan, console: Console) -> RecordedAnswers | None:
    """Return the recorded calls ``--replay-answers`` names, or None to call the models."""
    source = checked.request.replay_answers
    if source is None:
        return None
    with open_store(source, upgrade=False) as source_store:
        answers = recorded_answers(source_store, checked.season_id)
        console.print(f"Answering from {source_store.url}: {len(answers)} recorded calls")
    return answers


def _play(
    store: Store, checked: ReplayPlan, answers: RecordedAnswers | None, console: Console
) -> SeasonState:
    """Record (or resume) the planned season in ``store``."""
    request = checked.request
    config = _config(request)
    try:
        return asyncio.run(
            replay_roster(
                store, checked.dataset, checked.roster, checked.season_id, checked.start,
                checked.end, config, console, answers=answers, universe=checked.universe,
                seed=request.seed, prices=checked.prices, mask=request.mask,
            )
        )  # fmt: skip
    except ReplayMissed as exc:
        raise ConfigError(
            f"--replay-answers: {exc}; the answers' database must hold this season "
            "recorded with the same agents, bars, days, division and --timeout"
        ) from exc


def _write_report(
    out: Path,
    state: SeasonState,
    luck: dict[Division, TableLuck],
    calls: Mapping[str, object],
    costs: Mapping[str, object],
) -> None:
    payload = build_report(state, luck)
    payload["answers"] = calls
    payload["costs"] = costs
    shown = report_mask(state.mask, ended=True)  # the report is written once every round is
    if shown is not None:
        payload["mask"] = shown
    out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")


def _rest_where(request: ReplayRequest, season_id: str, url: str) -> str:
    """Return where every row of a replay's tables is, for the line under a shortened table."""
    board = f"`tradeleague weights table --season {season_id} --db {url} --all`"
    if request.out is None:
        return f"{board}, or REPORT.json (--out FILE)"
    return f"{request.out} and {board}"


def replay(request: ReplayRequest) -> int:
    """Check, record (or resume), print and report the replay ``request`` asks for.

    Returns the exit status: 0, ``EXIT_FAILED`` when the record fails
    verification, or the summary's (an agent that never decided).

    Raises
    ------
    ConfigError
        A user error, before anything is written.
    """
    console = board_console()
    checked = plan(request)
    season_id = checked.season_id
    answers = _answers(checked, console)
    with open_store(request.db) as store:
        store.claim(season_stream(season_id))  # refused here: nothing printed, no model called
        if request.check and answers is None:
            status = check_models(checked, console)  # under the claim, before round one
            if status:
                return status
        console.print(f"Recording to {store.url}, season [bold]{season_id}[/]")
        done = _rounds_recorded(store, season_id, checked.hours)
        say_resuming(console, done, len(checked.hours), f"season {season_id}")
        state = _play(store, checked, answers, console)
        store.refresh_projections()
        report = verify(store)
        events = season_events(store, season_id)  # read once for the summary, costs and calls
        calls = answers_payload(store, season_id, events=events) if request.out is not None else {}
        luck = {d: season_luck(state, d) for d in Division}
        shown_divisions = [d for d in Division if d in checked.divisions]
        limit = None if request.all_rows else SHOWN
        shown: set[str] = set()
        hidden = 0
        for division in shown_divisions:
            console.print(render_table(state, division, luck[division], limit=limit))
            rows = state.table(division)
            shown.update(r.agent for r in rows[:limit])
            hidden += len(rows) - len(rows[:limit])
        where = _rest_where(request, season_id, store.url) if hidden else ""
        if hidden:
            console.print(rest_line(hidden, where), highlight=False, markup=False, soft_wrap=True)
        summaries = summarise(store, season_id, events=events)
        status = print_summary(
            console, store, season_id, summaries, shown=shown if hidden else None
        )
        values = paper_values(state, shown_divisions)
        costs = season_costs_payload(store, season_id, values, checked.prices, summaries=summaries)
        names = {a.agent: a.name for a in state.agents.values()}
        console.print(cost_table(costs, names, shown=shown if hidden else None))
        if hidden:
            console.print(rest_line(hidden, where), highlight=False, markup=False, soft_wrap=True)
    if request.out is not None:
        _write_report(request.out, state, luck, calls, costs)
        console.print(f"Report written to {request.out}")
    console.print("Record verified." if report.ok else "[red]Record FAILED verification.[/]")
    return status if report.ok else EXIT_FAILED
