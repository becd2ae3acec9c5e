"""``tradeleague run``, ``status`` and ``report``: the host over a league file.

``run`` hosts a league file: every configured format on its schedule, live
or over history (``--clock replay``). ``status`` and ``report`` read a store,
found by ``--db URL`` or by the league file's database (``--config FILE``).
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from tradeleague.cli.store import DbOption
from tradeleague.errors import ConfigError
from tradeleague.host.checks import (
    check_league,
    league_failed,
    log_league_checks,
    print_league_checks,
)
from tradeleague.host.config import LeagueConfig, load_league
from tradeleague.host.host import HostOptions, HostRun, run_host
from tradeleague.host.logs import setup_logs
from tradeleague.host.reads import season_report, status, status_lines
from tradeleague.keys import check_master_keys
from tradeleague.plugin import get
from tradeleague.store import open_store
from tradeleague.terminal.console import board_console
from tradeleague.terminal.options import CheckOption
from tradeleague.terminal.summary import print_summary

__all__ = ["register"]


class ClockKind(StrEnum):
    """The host's clock."""

    LIVE = "live"
    REPLAY = "replay"


ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config", metavar="FILE", help="The league file (TOML), e.g. examples/league.toml."
    ),
]


def _moment(text: str | None, what: str) -> datetime | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(
            f"{what} {text!r} is not an ISO 8601 time, e.g. 2025-09-02T00:00Z"
        ) from None
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


def _store_url(db: str | None, config: Path | None) -> tuple[str | None, LeagueConfig | None]:
    league = load_league(config) if config is not None else None
    return (league.store_url(db) if league is not None else db), league


def _closing_words(league: LeagueConfig, db: str | None, run: HostRun) -> None:
    """Print the boards of every season the run played, as each format's replay does."""
    console = board_console()
    rounds = "1 round" if run.rounds == 1 else f"{run.rounds} rounds"
    console.print(f"Played {rounds}.", highlight=False)
    if not run.played:
        return
    with open_store(league.store_url(db), upgrade=False) as store:
        for key, seasons in run.played.items():
            part = get(key).part("host")
            for season in seasons:
                for board in part.boards(store, season, league.formats.get(key)):
                    console.print(board)
                print_summary(console, store, season)
        console.print(f"Each season's record: tradeleague status --db {store.url}", highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``run``, ``status`` and ``report`` to the CLI."""

    @app.command("run")
    def run_command(
        config: Annotated[
            Path, typer.Option("--config", metavar="FILE", help="The league file (TOML).")
        ],
        clock: Annotated[
            ClockKind, typer.Option(help="live: the wall clock and live feeds; replay: history.")
        ] = ClockKind.LIVE,
        start: Annotated[
            str | None, typer.Option("--from", metavar="TIME", help="Replay: the first instant.")
        ] = None,
        end: Annotated[
            str | None,
            typer.Option("--to", metavar="TIME", help="Replay: rounds open before this instant."),
        ] = None,
        http: Annotated[
            str | None, typer.Option(metavar="HOST:PORT", help="Serve /healthz and /metrics here.")
        ] = None,
        db: DbOption = None,
        standby: Annotated[
            bool, typer.Option(help="On PostgreSQL, wait to lead when another host leads.")
        ] = True,
        check: CheckOption = True,
    ) -> None:
        """Host a league: every format in the league file on its schedule, until stopped.

        Under the replay clock the same schedules run over frozen history as
        fast as the machine allows, from --from to --to (exclusive), and the
        run ends by printing the board of each season it played and each
        agent's decisions and faults, as a replay does. Logs go to stderr: a
        warning when an agent's turns without a valid answer in a season
        reach 5, 10, 20, ... and when a feed goes stale; each round played is
        an info line live, a debug line under replay.

        Before the first slot each model agent is asked its format's first round
        once, built from the file's frozen data (as tradeleague agents check
        does); one that fails stops the host with exit 3 before any database is
        opened, unless --no-check.

        Example: tradeleague run --config examples/league.toml --clock replay
        --from 2025-09-02 --to 2025-09-03
        """
        league = load_league(config)  # the whole file is checked before any database
        check_master_keys()  # a malformed key stops here, not as a later vault_unavailable
        replay = clock is ClockKind.REPLAY
        first, last = _moment(start, "--from"), _moment(end, "--to")
        if replay and (first is None or last is None):
            raise ConfigError("--clock replay needs --from and --to")
        if replay and first is not None and last is not None and last <= first:
            raise ConfigError("--to must be after --from")
        if not replay and (first is not None or last is not None):
            raise ConfigError("--from and --to go with --clock replay")
        setup_logs()
        if check:  # before any database: a failed check leaves nothing behind
            checked = asyncio.run(check_league(league))
            if league_failed(checked):
                raise typer.Exit(print_league_checks(board_console(), checked))
            log_league_checks(checked)
        options = HostOptions(
            replay=replay, start=first, end=last, http=http, db=db, standby=standby
        )
        ran = run_host(league, options)
        if replay:
            _closing_words(league, db, ran)

    @app.command("status")
    def status_command(
        db: DbOption = None,
        config: ConfigOption = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """Show each format's season, last and next slot, missed slots and paused agents.

        Under each season, every agent's valid answers out of its turns and its
        last outcome (valid, or the reason code its last turn ended with). A
        season played under the replay clock gives its next slot in replay time
        (the one after the last it played), marked so; a live one, on the wall
        clock. A weights season also shows its symbols and, when they were read
        from the chain, when, from which registry, and which were left out and why.

        Example: tradeleague status --config examples/league.toml --json
        """
        url, league = _store_url(db, config)
        with open_store(url, upgrade=False) as store:
            body = status(store, league, datetime.now(UTC))
        if as_json:
            typer.echo(json.dumps(body, indent=2))
            return
        for line in status_lines(body):
            typer.echo(line)

    @app.command("report")
    def report_command(
        season: Annotated[
            str, typer.Option("--season", help="The season id (e.g. S1 for the arena).")
        ],
        out: Annotated[Path, typer.Option("--out", metavar="PATH", help="Write REPORT.json here.")],
        db: DbOption = None,
        config: ConfigOption = None,
        stream: Annotated[
            str | None,
            typer.Option(metavar="NAME", help="The arena's stream (default: the file's)."),
        ] = None,
    ) -> None:
        """Write a season's REPORT.json from the store, as its replay writes it.

        Example: tradeleague report --config examples/league.toml --season S1 --out REPORT.json
        """
        url, league = _store_url(db, config)
        with open_store(url, upgrade=False) as store:
            body = season_report(store, season, league, stream=stream)
        out.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
        typer.echo(f"wrote {out}")
