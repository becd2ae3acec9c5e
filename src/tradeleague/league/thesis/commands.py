"""``tradeleague replay thesis``: the thesis league over frozen crypto and stock folders.

This module only parses the options; `replay_run` does the work (every
argument and folder checked before the store is opened, one progress line per
cycle, whole cycles kept when interrupted, the board and a summary per agent at
the end) and `board_table` draws the board.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tradeleague.agents.spec import agent_option_help
from tradeleague.formats.thesis.baselines import BASELINES
from tradeleague.league.mask import MASK_HELP
from tradeleague.league.thesis.replay_run import DEFAULT_TIMEOUT_S, ReplayRequest, replay
from tradeleague.terminal.options import CheckOption, ModelsOption, PricesOption, with_cutoffs

__all__ = ["register_replay"]

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
_TIMEOUT_HELP = (
    "Seconds each model call may take (the answer and the correction alike); "
    "a call still unanswered then is recorded as a timeout."
)
_SEED_HELP = "Seed of the coin-flip baseline's draws; give the same seed to resume a season."
_SEASON_HELP = "Season id in --db; the same id resumes the season. Default: from the dates."


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
        ] = DEFAULT_TIMEOUT_S,
        seed: Annotated[int, typer.Option(min=0, metavar="SEED", help=_SEED_HELP)] = 0,
        prices: PricesOption = None,
        check: CheckOption = True,
        mask: Annotated[bool, typer.Option("--mask", help=MASK_HELP)] = False,
        models: ModelsOption = None,
    ) -> None:
        """Replay a thesis-league season over frozen folders, one cycle a day at 16:00 UTC.

        Before the first cycle each model agent is asked it once (--no-check
        skips this); one that fails stops the replay with exit 3 before anything
        is written. Ctrl-C keeps whole cycles; run the same command again to
        resume. Ends with a summary per agent; exits 3 when an agent never
        decided or never answered validly (the summary names the cause and the
        likely fix).

        Example: tradeleague replay thesis --crypto ../shared/data/crypto_4h
        --stocks ../shared/data/us_equities_daily --start 2025-03-03 --end 2025-03-31
        --agent cash=baseline:cash --agent hold=baseline:buy-and-hold --out REPORT.json
        """
        status = replay(
            ReplayRequest(
                crypto=crypto, stocks=stocks, start=start, end=end,
                agents=with_cutoffs(agent, models), join=join,
                stocks_hourly=stocks_hourly, db=db, season=season, out=out, timeout=timeout,
                seed=seed, prices=prices, check=check, mask=mask,
            )
        )  # fmt: skip
        if status:
            raise typer.Exit(status)
