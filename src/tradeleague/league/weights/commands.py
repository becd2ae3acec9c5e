"""``tradeleague weights ...`` (operators and owners) and ``tradeleague replay weights``.

Operators create a season, add agents, run a round now, release holds, show
the tables and pause or resume agents; every action is one recorded event.
The replay subcommand runs a season over frozen bars with the live round code;
interrupted, it keeps whole rounds, and the same command resumes it. With
``--replay-answers FROM_DB`` its model agents answer from the calls recorded in
FROM_DB for the same season id (C-5), and no model is called.

This module only parses the options; the work is `replay_run` (the replay),
`operator` (a new season, a round now) and `ops` (every other recorded action).

Every operator command reads the wall clock, unless ``--now ISO`` (hidden) or
``$TRADELEAGUE_NOW`` pins it: that is for tests and for replaying an operator
action at the time it was taken, never for running a live league. A pinned
clock stands still (apart from a round's simulated model latency), and the
command says on stderr that it is pinned.
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Annotated

import typer

from tradeleague.agents.spec import AGENT_OPTION_HELP, REPLAY_ANSWERS_HELP
from tradeleague.clock import Clock, ReplayClock, WallClock
from tradeleague.disclaimer import DISCLAIMER
from tradeleague.errors import ConfigError
from tradeleague.formats.weights import Division
from tradeleague.league.mask import MASK_HELP
from tradeleague.league.weights import ops, projection
from tradeleague.league.weights.board_table import render_table
from tradeleague.league.weights.operator import new_season, round_now
from tradeleague.league.weights.replay_run import ReplayRequest, replay
from tradeleague.league.weights.state import SeasonState
from tradeleague.league.weights.universe import universe_summary, universe_view
from tradeleague.store import open_store
from tradeleague.terminal.console import board_console
from tradeleague.terminal.options import CheckOption, DbOption, ModelsOption, PricesOption
from tradeleague.terminal.rows import SHOWN, rest_line

__all__ = ["operator_clock", "register", "register_replay"]

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


def _day(text: str, what: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"{what} {text!r} is not a date like 2026-03-02") from None


_REPLAY_ANSWERS_HELP = (
    REPLAY_ANSWERS_HELP
    + " The calls are found by season id: give the same --season, or for the default id "
    "(replay-<bars>-<start>-<end>-<division>) the same --market, --start, --end and "
    "--division; the new run records into --db, which must be another database (in the "
    "same one the season is simply resumed)."
)


AllRowsOpt = Annotated[
    bool,
    typer.Option(
        "--all",
        help=f"Print every agent's rows; without it a table of more than {SHOWN} agents "
        f"shows the first {SHOWN} and one line saying where the rest are (REPORT.json "
        "always holds every agent).",
    ),
]


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
    prices: PricesOption = None,
    check: CheckOption = True,
    all_rows: AllRowsOpt = False,
    mask: Annotated[bool, typer.Option("--mask", help=MASK_HELP)] = False,
    models: ModelsOption = None,
) -> None:
    """Replay a weights season over frozen bars with the live rules; resumable.

    Rounds: 15:00..19:00 UTC each trading day for intraday bars, one at 15:00
    for daily bars. No look-ahead: a round's price is the latest price
    observable at its start. Ctrl-C keeps whole rounds; run the same command
    again to resume. Before round one each model agent is asked the first
    round once (--no-check skips it); one that fails stops the replay with exit
    3 before anything is written. Ends with a summary per agent; exits 3 when an
    agent never decided or never answered validly (the summary names the cause),
    1 when the record fails verification.

    The symbols are --symbols (default: every file of --market), or those of a
    season a host recorded (--universe-from FROM_DB --universe-season SEASON):
    a season whose symbols were read from the chain keeps them, and its
    report names what they were read from.

    Example: tradeleague replay weights --market ../shared/data/us_equities_daily
    --agent cash=baseline:cash --agent mom=baseline:momentum --start 2025-06-02 --end 2025-07-01
    """
    status = replay(
        ReplayRequest(
            market=market, agents=agent, symbols=symbols, start=start, end=end,
            division=division, pro=pro, season=season, timeout=timeout, db=db, out=out,
            replay_answers=replay_answers, universe_from=universe_from,
            universe_season=universe_season, seed=seed, prices=prices, check=check,
            all_rows=all_rows,
            mask=mask,
            models=models,
        )
    )  # fmt: skip
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
    --symbols names them by hand instead. Prints what it created: the season's
    id, its days, its symbols and where they came from, and the commands that
    come next (add agents, play a round, see the table).

    Example: tradeleague weights create-season --start 2026-03-02 --market bars/
    """
    day = _day(start, "--start")
    season_id = new_season(
        operator_clock(now), day=day, db=db, market=market, feeds=feeds, rpc_url=rpc_url,
        symbols=symbols, season=season,
    )  # fmt: skip
    with open_store(db, upgrade=False) as store:
        state = ops.load_season(store, season_id)
        url = store.url
    prices = f"--feeds {feeds}" if feeds is not None else f"--market {market}"
    for line in _created_lines(state, url, prices):
        typer.echo(line)


def _created_lines(state: SeasonState, url: str, prices: str) -> list[str]:
    """Return what ``create-season`` says it created, and what to run next."""
    window = state.window
    days = "" if window is None else (
        f": {window.start:%Y-%m-%d %H:%M} UTC to {window.end:%Y-%m-%d %H:%M} UTC "
        f"(end excluded, {(window.end - window.start).days} days)"
    )  # fmt: skip
    season, db = state.season_id, f"--db {url}"
    return [
        f"Created weights season {season}{days}, recorded in {url}.",
        universe_summary(universe_view(state)),
        "Next:",
        f"  add an agent:  tradeleague weights add-agent --season {season} --name NAME "
        f"--owner OWNER --spec SPEC --division open {db}",
        f"  play a round:  tradeleague weights run-round --season {season} {prices} {db}",
        f"  see the table: tradeleague weights table --season {season} {db}",
    ]


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
    line = round_now(
        operator_clock(now), season=season, db=db, market=market, feeds=feeds,
        rpc_url=rpc_url, force=force,
    )  # fmt: skip
    typer.echo(line)


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
    agent: Annotated[str, typer.Option(help="The agent's id or name.")],
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
    agent: Annotated[str, typer.Option(help="The agent's id or name.")],
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
def table_cmd(season: SeasonOpt, db: DbOption = None, all_rows: AllRowsOpt = False) -> None:
    """Show both division tables.

    Example: tradeleague weights table --season S1 --db sqlite:///league.db
    """
    # SPEC: W-RNK-1..3, W-SEA-3.
    console = board_console()
    with open_store(db, upgrade=False) as store:
        state = ops.load_season(store, season)
        url = store.url
    limit = None if all_rows else SHOWN
    hidden = 0
    for division in Division:
        console.print(render_table(state, division, limit=limit))
        rows = state.table(division)
        hidden += len(rows) - len(rows[:limit])
    if hidden:
        where = f"the season's board on the site (`tradeleague serve --db {url}`)"
        console.print(rest_line(hidden, where), highlight=False, markup=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add the ``weights`` group to ``app``."""
    app.add_typer(weights_app)


def register_replay(replay_app: typer.Typer) -> None:
    """Add ``replay weights`` to the shared ``replay`` group."""
    replay_app.command("weights")(replay_weights)
