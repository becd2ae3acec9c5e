"""``tradeleague weights ...`` (operators and owners) and ``tradeleague replay weights``.

Operators create a season, add agents, run a round now, release holds, show
the tables and pause or resume agents; every action is one recorded event.
The replay subcommand runs a season over frozen bars with the live round code;
interrupted, it keeps whole rounds, and the same command resumes it. With
``--replay-answers FROM_DB`` its model agents answer from the calls recorded in
FROM_DB for the same season id (C-5), and no model is called.

Every operator command reads the wall clock, unless ``--now ISO`` (hidden) or
``$TRADELEAGUE_NOW`` pins it: that is for tests and for replaying an operator
action at the time it was taken, never for running a live league. A pinned
clock stands still (apart from a round's simulated model latency), and the
command says on stderr that it is pinned.
"""

from __future__ import annotations

import asyncio
import json
import math
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from tradeleague.agents.llm import ReplayMissed
from tradeleague.agents.spec import AGENT_OPTION_HELP, REPLAY_ANSWERS_HELP, parse_agent_spec
from tradeleague.calls import CallParams
from tradeleague.clock import Clock, ReplayClock, WallClock
from tradeleague.disclaimer import DISCLAIMER
from tradeleague.errors import ConfigError
from tradeleague.events.weights import season_stream
from tradeleague.feeds import FrozenBarsSource, PriceSource
from tradeleague.formats.weights import Division, TableRow, round_slot
from tradeleague.formats.weights.luck import TEST_TEXT, TableLuck
from tradeleague.formats.weights.preset import WeightsPreset
from tradeleague.league.answers import answers_payload
from tradeleague.league.pacing import LivePacing
from tradeleague.league.weights import ops, projection
from tradeleague.league.weights.agents import build_agents, owner_key_readers
from tradeleague.league.weights.replay import (
    RosterEntry,
    recorded_answers,
    replay_hours,
    replay_season_id,
    resume_agents,
    run_season,
)
from tradeleague.league.weights.report import build_report, season_luck
from tradeleague.league.weights.round import RoundConfig, play_round
from tradeleague.league.weights.state import SeasonState
from tradeleague.league.weights.universe import read_universe, taken_universe
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway
from tradeleague.market import Dataset, load_dataset
from tradeleague.money import format_usd
from tradeleague.store import Store, open_store, verify
from tradeleague.terminal.console import board_console
from tradeleague.terminal.options import DbOption
from tradeleague.terminal.progress import round_progress, say_resuming
from tradeleague.terminal.summary import print_summary

if TYPE_CHECKING:
    from tradeleague.feeds.registry import FeedRegistry

__all__ = ["operator_clock", "register", "register_replay", "render_table", "replay_roster"]

projection.register()

weights_app = typer.Typer(
    name="weights",
    help="Run the weights league: seasons, agents, rounds, holds and tables. " + DISCLAIMER,
    no_args_is_help=True,
)

SeasonOpt = Annotated[str, typer.Option("--season", help="The season id.")]
NowOpt = Annotated[
    str | None,
    typer.Option(
        "--now",
        envvar="TRADELEAGUE_NOW",
        hidden=True,
        help="Testing/replaying an operator action only: act as if it were this UTC time "
        "(ISO 8601 with an offset, e.g. 2026-10-05T15:03:00Z; default $TRADELEAGUE_NOW).",
        show_default=False,
    ),
]


def operator_clock(now: str | None) -> Clock:
    """Return the wall clock, or a clock pinned at ``now`` (testing and replay only).

    Parameters
    ----------
    now
        ``None`` for the wall clock; otherwise an ISO 8601 time with an offset
        (``Z`` allowed), from ``--now`` or ``$TRADELEAGUE_NOW``.

    Raises
    ------
    ConfigError
        If ``now`` is not such a time.
    """
    if now is None or not now.strip():
        return WallClock()
    try:
        moment = datetime.fromisoformat(now.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(f"--now/$TRADELEAGUE_NOW {now!r} is not an ISO 8601 time") from None
    if moment.tzinfo is None:
        raise ConfigError(f"--now/$TRADELEAGUE_NOW {now!r} needs an offset, e.g. Z for UTC")
    clock = ReplayClock(moment)
    typer.echo(f"clock pinned to {clock.now().isoformat()} (--now/$TRADELEAGUE_NOW)", err=True)
    return clock


def _day(text: str | None, what: str) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"{what} {text!r} is not a date like 2026-03-02") from None


HOUSE_MODEL_NOTE = (
    "The house model (SmolLM2-135M on this CPU) is a format-valid baseline, not a strategist."
)
"""Said on every table the house model plays in (issue 3: plainly, on the board)."""


def render_table(state: SeasonState, division: Division, luck: TableLuck | None = None) -> Table:
    """Return ``division``'s table for the terminal (W-RNK-3, W-SEA-3, ST-1, ST-2, C-1).

    Beside each agent: whether its result is told apart from cash and from
    buy-and-hold of the benchmark (``vs cash``, ``vs B&H``: yes/no with the
    p-value, ``few`` under the minimum entries); the caption holds the
    luckiest-of-N line (the no-skill null), the rounds it rests on and the stated test. Pass
    ``luck`` (``season_luck(state, division)``) when it is already computed.
    """
    rows: list[TableRow] = state.table(division)
    luck = season_luck(state, division) if luck is None else luck
    title = f"Weights league, {division.value} division: season {state.season_id}"
    if state.synthetic:
        title += "  [bold yellow](SYNTHETIC market)[/]"
    caption = (
        f"{luck.caption}\n{TEST_TEXT} B&H: {luck.benchmark}, held from each agent's first "
        f"entry.\nScoring {state.preset.scoring_version}. {DISCLAIMER}"
    )
    if any(
        a.division is division and a.spec.split("=")[-1].startswith("local:")
        for a in state.agents.values()
    ):
        caption = f"{HOUSE_MODEL_NOTE}\n{caption}"
    table = Table(title=title, caption=caption)
    for column in ("rank", "agent", "value (USD)", "return", "max drawdown", "trades", "decisions"):
        table.add_column(column, justify="left" if column == "agent" else "right", no_wrap=True)
    table.add_column("vs cash", justify="left", no_wrap=True)
    table.add_column("vs B&H", justify="left", no_wrap=True)
    table.add_column("unranked because", justify="left")
    for row in rows:
        verdicts = luck.rows[row.agent]
        table.add_row(
            "-" if row.rank is None else str(row.rank),
            row.name,
            format_usd(row.value),
            f"{row.season_return:+.2f}%",
            f"{row.max_drawdown:.2f}%",
            str(row.trades),
            f"{row.decisions}/{row.entries}",
            verdicts.vs_cash.short,
            verdicts.vs_buy_and_hold.short,
            "" if row.unranked_reason is None else row.unranked_reason.value,
        )
    return table


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
) -> SeasonState:
    """Replay (or resume) ``season`` for ``roster`` over ``dataset`` with a progress bar.

    Model agents answer live, or from ``answers`` (recorded calls) when given;
    ``universe`` is a universe taken from a recorded season, recorded again.
    """
    replay = None if answers is None else ReplayGateway(answers)
    specs = [e.spec if e.spec.startswith(f"{e.name}=") else f"{e.name}={e.spec}" for e in roster]
    _parsed, agents, gateway = build_agents(specs, gateway=replay, seed=seed, season=season)
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
            )
    finally:
        if gateway is not None:
            await gateway.aclose()


async def _replay(
    store: Store,
    dataset: Dataset,
    specs: list[str],
    divisions: list[Division],
    season: str,
    start: date,
    end: date,
    timeout_s: float,
    console: Console,
    answers: RecordedAnswers | None = None,
    universe: dict[str, object] | None = None,
    seed: int = 0,
) -> SeasonState:
    parsed = [parse_agent_spec(s) for s in specs]
    roster = [
        RosterEntry(name=p.name, spec=s, division=d)
        for p, s, d in zip(parsed, specs, divisions, strict=True)
    ]
    config = RoundConfig(params=CallParams(max_tokens=400, timeout_s=timeout_s))
    return await replay_roster(
        store, dataset, roster, season, start, end, config, console, answers=answers,
        universe=universe, seed=seed,
    )  # fmt: skip


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


def _rounds_recorded(store: Store, season_id: str, hours: list[datetime]) -> int:
    """Return how many of ``hours`` season ``season_id`` already holds."""
    stream = season_stream(season_id)
    if not store.count(stream):
        return 0
    state = SeasonState.from_events(stream, (s.event for s in store.events(stream)))
    return sum(1 for hour in hours if state.recorded(hour))


_REPLAY_ANSWERS_HELP = (
    REPLAY_ANSWERS_HELP
    + " The calls are found by season id: give the same --season, or for the default id "
    "(replay-<bars>-<start>-<end>-<division>) the same --market, --start, --end and "
    "--division; the new run records into --db, which must be another database (in the "
    "same one the season is simply resumed)."
)


def replay_weights(
    market: Annotated[Path, typer.Option(help="A folder of <SYMBOL>.csv bars (daily or hourly).")],
    agent: Annotated[list[str], typer.Option("--agent", help=AGENT_OPTION_HELP)],
    symbols: Annotated[
        str | None,
        typer.Option(help="Comma-separated symbols (default: every file of --market)."),
    ] = None,
    start: Annotated[
        str | None, typer.Option(help="First day (YYYY-MM-DD; default: the data's first day).")
    ] = None,
    end: Annotated[
        str | None,
        typer.Option(
            help="The day after the last (YYYY-MM-DD; default: the day after the data's last)."
        ),
    ] = None,
    division: Annotated[Division, typer.Option(help="The agents' division.")] = Division.OPEN,
    pro: Annotated[
        list[str] | None,
        typer.Option(
            "--pro",
            metavar="NAME",
            help="The agent of this --agent name plays in the Pro division instead, so one "
            "season holds both divisions, as a hosted league's does; repeat for each "
            "(default: none, every agent in --division).",
        ),
    ] = None,
    season: Annotated[
        str | None,
        typer.Option(
            help="Season id; the same id resumes (default: replay-<bars>-<start>-<end>-<division>)."
        ),
    ] = None,
    timeout: Annotated[float, typer.Option(help="Seconds each model call may take.")] = 60.0,
    db: DbOption = None,
    out: Annotated[Path | None, typer.Option(help="Write REPORT.json here.")] = None,
    replay_answers: Annotated[
        str | None,
        typer.Option("--replay-answers", metavar="FROM_DB", help=_REPLAY_ANSWERS_HELP),
    ] = None,
    universe_from: Annotated[
        str | None,
        typer.Option(
            "--universe-from",
            metavar="FROM_DB",
            help="Take the symbols from a season recorded in this database (its universe, "
            "with what it was read from, is recorded again); give --universe-season. "
            "Instead of --symbols.",
        ),
    ] = None,
    universe_season: Annotated[
        str | None,
        typer.Option(
            "--universe-season",
            metavar="SEASON",
            help="The recorded season whose symbols --universe-from takes.",
        ),
    ] = None,
    seed: Annotated[
        int,
        typer.Option(
            min=0,
            help="Base seed of the seeded baselines (coin-flip): each draws from a seed of "
            "the season, its name and this. Give the same seed to resume a season.",
        ),
    ] = 0,
) -> None:
    """Replay a weights season over frozen bars with the live rules; resumable.

    Rounds: 15:00..19:00 UTC each trading day for intraday bars, one at 15:00
    for daily bars. No look-ahead: a round's price is the latest price
    observable at its start. Ctrl-C keeps whole rounds; run the same command
    again to resume. Ends with a summary per agent; exits 3 when an agent never
    decided because its provider failed (the summary names the cause), 1 when
    the record fails verification.

    The symbols are --symbols (default: every file of --market), or those of a
    season a host recorded (--universe-from FROM_DB --universe-season SEASON):
    a season whose symbols were read from the chain keeps them, and its
    report names what they were read from.

    Example: tradeleague replay weights --market ../shared/data/us_equities_daily
    --agent cash=baseline:cash --agent mom=baseline:momentum --start 2025-06-02 --end 2025-07-01
    """
    console = board_console()
    names = [s.strip() for s in symbols.split(",") if s.strip()] if symbols else None
    universe: dict[str, object] | None = None
    if universe_from is not None or universe_season is not None:
        if universe_from is None or universe_season is None:
            raise ConfigError(
                "--universe-from FROM_DB and --universe-season SEASON go together: the database "
                "and the recorded season whose symbols to take"
            )
        if names is not None:
            raise ConfigError("give --symbols or --universe-from, not both")
        with open_store(universe_from, upgrade=False) as source_store:
            stream = season_stream(universe_season)
            recorded = SeasonState.from_events(
                stream, (e.event for e in source_store.events(stream))
            )
        taken, payload = taken_universe(recorded, season or universe_season)
        names, universe = list(taken), payload or None
    dataset = load_dataset(market, symbols=names)
    first = min(
        datetime.fromtimestamp(int(dataset[s].times[0]), UTC).date() for s in dataset.symbols
    )
    last = max(
        datetime.fromtimestamp(int(dataset[s].times[-1]), UTC).date() for s in dataset.symbols
    )
    day0 = _day(start, "--start") or first
    day1 = _day(end, "--end") or last + timedelta(days=1)
    if not (math.isfinite(timeout) and timeout > 0):  # nan and inf are no deadline
        raise ConfigError(f"--timeout {timeout:g}: give the seconds a model call may take, e.g. 60")
    check_roster(agent)
    divisions = _divisions(agent, division, pro or [])
    hours = replay_hours(FrozenBarsSource(dataset), day0, day1, WeightsPreset())
    if not hours:
        raise ConfigError(
            f"no trading day with bars between {day0} and {day1}: the data in {market} "
            f"runs from {first} to {last}"
        )
    season_id = season or replay_season_id(dataset.label, day0, day1, division)
    if universe is not None:
        universe["season"] = season_id
    answers = None
    if replay_answers is not None:
        with open_store(replay_answers, upgrade=False) as source_store:
            answers = recorded_answers(source_store, season_id)
            console.print(f"Answering from {source_store.url}: {len(answers)} recorded calls")
    with open_store(db) as store:
        console.print(f"Recording to {store.url}, season [bold]{season_id}[/]")
        done = _rounds_recorded(store, season_id, hours)
        say_resuming(console, done, len(hours), f"season {season_id}")
        try:
            state = asyncio.run(
                _replay(
                    store,
                    dataset,
                    agent,
                    divisions,
                    season_id,
                    day0,
                    day1,
                    timeout,
                    console,
                    answers,
                    universe,
                    seed,
                )
            )
        except ReplayMissed as exc:
            raise ConfigError(
                f"--replay-answers: {exc}; the answers' database must hold this season "
                "recorded with the same agents, bars, days, division and --timeout"
            ) from exc
        store.refresh_projections()
        report = verify(store)
        calls = answers_payload(store, season_id) if out is not None else {}
        luck = {d: season_luck(state, d) for d in Division}
        for shown in (d for d in Division if d in divisions):
            console.print(render_table(state, shown, luck[shown]))
        status = print_summary(console, store, season_id)
    if out is not None:
        payload = build_report(state, luck)
        payload["answers"] = calls
        out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        console.print(f"Report written to {out}")
    console.print("Record verified." if report.ok else "[red]Record FAILED verification.[/]")
    if not report.ok:
        raise typer.Exit(1)
    if status:
        raise typer.Exit(status)


FeedsOpt = Annotated[
    Path | None,
    typer.Option(help="A Chainlink feed registry (.toml or .json): read live prices from it."),
]
RpcOpt = Annotated[
    str | None,
    typer.Option(
        "--rpc-url",
        envvar="TRADELEAGUE_RPC_URL",
        help="The node's JSON-RPC URL for --feeds (default $TRADELEAGUE_RPC_URL).",
        show_default=False,
    ),
]


@weights_app.command("create-season")
def create_season_cmd(
    start: Annotated[str, typer.Option(help="A Monday (YYYY-MM-DD), 00:00 UTC.")],
    market: Annotated[
        Path | None, typer.Option(help="Frozen bars standing in for the feeds.")
    ] = None,
    feeds: FeedsOpt = None,
    rpc_url: RpcOpt = None,
    symbols: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated symbols (default: every file of --market, or with --feeds "
            "the chain's pick)."
        ),
    ] = None,
    season: Annotated[
        str | None, typer.Option(help="Season id (default: a new id, printed).")
    ] = None,
    db: DbOption = None,
    now: NowOpt = None,
) -> None:
    """Start a 28-day season over the symbols of --feeds or --market.

    With --feeds and --rpc-url, the season holds the tokens of the registry with a
    valid price and the largest value outstanding, read from the chain now and
    recorded with every input (the same pick as a hosted season's start);
    --symbols names them by hand instead.

    Example: tradeleague weights create-season --start 2026-03-02 --market bars/
    """
    # SPEC: W-SEA-1 (a season starts on a Monday 00:00 UTC).
    names = [s.strip() for s in symbols.split(",") if s.strip()] if symbols else None
    universe: dict[str, Any] | None = None
    if feeds is not None:
        from tradeleague.feeds.registry import load_registry  # eth_utils: slow to import

        registry = load_registry(feeds)
        if names is None:  # SPEC: W-UNI-1, W-UNI-2 (the chain's pick, recorded)
            universe = _chain_universe(registry, rpc_url, season or "new", operator_clock(now))
            names = list(universe["symbols"])
        chosen = names
        missing = sorted(set(chosen) - set(registry.feeds))
        if missing:
            raise ConfigError(f"no feed on record in {feeds} for {missing}")
        decimals = {s: registry.feeds[s].decimals for s in chosen}
        source_name = f"chainlink:{registry.name}"
    elif market is not None:
        dataset = load_dataset(market, symbols=names)
        chosen = list(dataset.symbols)
        decimals = dict.fromkeys(chosen, 6)
        source_name = str(market)
    else:
        raise ConfigError("give --feeds (live Chainlink prices) or --market (frozen bars)")
    day = _day(start, "--start") or date.min
    if day.weekday() != 0:
        raise ConfigError(
            f"--start {day.isoformat()} is a {day.strftime('%A')}: a season starts on a Monday, "
            f"e.g. {(day + timedelta(days=(7 - day.weekday()) % 7)).isoformat()}"
        )
    clock = operator_clock(now)
    with open_store(db) as store:
        season_id = ops.create_season(
            store,
            clock,
            start=datetime.combine(day, datetime.min.time(), tzinfo=UTC),
            symbols=chosen,
            decimals=decimals,
            source=source_name,
            season_id=season,
            universe=universe,
        )
    typer.echo(season_id)


def _chain_universe(
    registry: FeedRegistry, rpc_url: str | None, season: str, clock: Clock
) -> dict[str, Any]:
    """Read the universe of ``registry`` from the node at ``rpc_url`` now."""
    if not rpc_url:
        raise ConfigError(
            "--feeds needs --rpc-url or $TRADELEAGUE_RPC_URL to read the universe from the "
            "chain (or name the symbols with --symbols)"
        )
    return asyncio.run(
        read_universe(registry, rpc_url, season=season, at=clock.now(), preset=WeightsPreset())
    )


@weights_app.command("add-agent")
def add_agent_cmd(
    season: SeasonOpt,
    name: Annotated[str, typer.Option(help="The agent's name.")],
    owner: Annotated[str, typer.Option(help="The owner (wallet).")],
    spec: Annotated[str, typer.Option(help="The model spec, e.g. openai:MODEL@URL.")],
    division: Annotated[
        Division, typer.Option(help="open or pro (never changes).")
    ] = Division.OPEN,
    prompt: Annotated[str, typer.Option(help="The owner's prompt.")] = "",
    db: DbOption = None,
    now: NowOpt = None,
) -> None:
    """Create an agent with 10,000 virtual USD.

    Example: tradeleague weights add-agent --season S1 --name mom --owner 0xabc
    --spec baseline:momentum --division pro
    """
    # SPEC: W-PF-1, W-REC-1, W-DIV-3.
    clock = operator_clock(now)
    with open_store(db, upgrade=False) as store:
        state = ops.load_season(store, season)
        agent = ops.add_agent(
            store,
            clock,
            state,
            name=name,
            owner=owner,
            division=division,
            spec=spec,
            prompt=prompt,
        )
    typer.echo(agent)


def _round_source(
    state: SeasonState, market: Path | None, feeds: Path | None, rpc_url: str | None
) -> PriceSource:
    bars = (
        None
        if market is None
        else FrozenBarsSource(load_dataset(market, symbols=list(state.symbols)))
    )
    if feeds is not None:
        if not rpc_url:
            raise ConfigError("--feeds needs --rpc-url or $TRADELEAGUE_RPC_URL")
        # web3 is slow to import: only a live price source pays for it.
        from tradeleague.feeds.chainlink import ChainlinkSource
        from tradeleague.feeds.registry import load_registry

        return ChainlinkSource(load_registry(feeds), rpc_url, history=bars)
    if bars is None:
        raise ConfigError("give --feeds with --rpc-url (live) or --market (frozen bars)")
    return bars


@weights_app.command("run-round")
def run_round_cmd(
    season: SeasonOpt,
    market: Annotated[
        Path | None,
        typer.Option(help="Frozen bars: the feeds, or with --feeds the returns' history."),
    ] = None,
    feeds: FeedsOpt = None,
    rpc_url: RpcOpt = None,
    db: DbOption = None,
    force: Annotated[
        bool,
        typer.Option(
            help="Run outside the round clock (testing): the round is this hour's, recorded "
            "as forced; at most one round an hour still holds."
        ),
    ] = False,
    now: NowOpt = None,
) -> None:
    """Run a round now, if the round clock allows.

    Prices come from Chainlink (--feeds and --rpc-url) or from frozen bars (--market).
    A forced round (--force) still belongs to the hour it runs in, one round an
    hour, and is recorded as forced; its 50-minute cut-off counts from the hour,
    so Pro agents of a round forced 50 minutes or more into its hour are
    skipped. A forced round is a played round: the day's first is its Open
    round, so a later regular round that day does not ask the Open division.

    Example: tradeleague weights run-round --season S1 --market ../shared/data/us_equities_1h
    """
    # SPEC: W-RND-1 (the round clock), W-SKP-2 (the cut-off), W-DIV-1 (the Open round).
    clock = operator_clock(now)
    with open_store(db, upgrade=False) as store:
        state = ops.load_season(store, season)
        moment = clock.now()
        slot = round_slot(moment, state.preset)
        if slot is None and not force:
            raise ConfigError(
                "no round starts now: rounds start 15:00-19:00 UTC, first ten minutes"
            )
        forced = slot is None
        hour = slot or moment.replace(minute=0, second=0, microsecond=0)
        if state.recorded(hour):
            raise ConfigError(f"the round of {hour.isoformat()} is already recorded")
        if state.window is None or not state.window.running(moment):
            raise ConfigError("the season is not running")  # W-SEA-2
        source = _round_source(state, market, feeds, rpc_url)
        specs = [f"{a.agent}={a.spec}" for a in state.agents.values()]
        _, agents, gateway = build_agents(
            specs, season=state.season_id, api_keys=owner_key_readers(store, state)
        )
        # the agents are built afresh each round: a coin flip or a script goes on where
        # the record says it stopped, not from its first draw or line
        resume_agents(state, agents)

        async def go() -> list[object]:
            try:
                return list(
                    await play_round(state, source, agents, hour, LivePacing(clock), forced=forced)
                )
            finally:
                if gateway is not None:
                    await gateway.aclose()

        events = asyncio.run(go())
        store.append(events)  # type: ignore[arg-type]
    note = " (forced, outside the round clock)" if forced else ""
    typer.echo(f"round {hour.isoformat()}{note}: {len(events)} events recorded")


@weights_app.command("release-hold")
def release_hold_cmd(
    season: SeasonOpt,
    symbol: Annotated[str, typer.Option(help="The held symbol.")],
    by: Annotated[str, typer.Option(help="Who releases it.")],
    db: DbOption = None,
    now: NowOpt = None,
) -> None:
    """Release a price hold from the next round; the release is recorded.

    Example: tradeleague weights release-hold --season S1 --symbol SPY --by operator
    """
    # SPEC: W-HOLD-2.
    clock = operator_clock(now)
    with open_store(db, upgrade=False) as store:
        ops.release_hold(store, clock, ops.load_season(store, season), symbol, by)
    typer.echo(f"released {symbol}")


@weights_app.command("pause")
def pause_cmd(
    season: SeasonOpt,
    agent: Annotated[str, typer.Option(help="The agent id.")],
    db: DbOption = None,
    now: NowOpt = None,
) -> None:
    """Pause an agent: it is not asked until resumed.

    Example: tradeleague weights pause --season S1 --agent mom
    """
    clock = operator_clock(now)
    with open_store(db, upgrade=False) as store:
        ops.pause_agent(store, clock, ops.load_season(store, season), agent, "operator")
    typer.echo(f"paused {agent}")


@weights_app.command("resume")
def resume_cmd(
    season: SeasonOpt,
    agent: Annotated[str, typer.Option(help="The agent id.")],
    db: DbOption = None,
    now: NowOpt = None,
) -> None:
    """Resume a paused agent.

    Example: tradeleague weights resume --season S1 --agent mom
    """
    # SPEC: W-VAL-9.
    clock = operator_clock(now)
    with open_store(db, upgrade=False) as store:
        ops.resume_agent(store, clock, ops.load_season(store, season), agent)
    typer.echo(f"resumed {agent}")


@weights_app.command("table")
def table_cmd(season: SeasonOpt, db: DbOption = None) -> None:
    """Show both division tables.

    Example: tradeleague weights table --season S1 --db sqlite:///league.db
    """
    # SPEC: W-RNK-1..3, W-SEA-3.
    console = board_console()
    with open_store(db, upgrade=False) as store:
        state = ops.load_season(store, season)
    for division in Division:
        console.print(render_table(state, division))


def register(app: typer.Typer) -> None:
    """Add the ``weights`` group to ``app``."""
    app.add_typer(weights_app)


def register_replay(replay_app: typer.Typer) -> None:
    """Add ``replay weights`` to the shared ``replay`` group."""
    replay_app.command("weights")(replay_weights)
