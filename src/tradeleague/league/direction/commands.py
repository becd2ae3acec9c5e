"""``tradeleague replay direction``: the direction arena over frozen one-minute candles.

This module only parses the options; `replay_run` does the work and
`board_table` draws the board. With ``--replay-answers FROM_DB`` the model
agents answer from the calls recorded in FROM_DB's stream of the same name
(C-5); no model is called.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tradeleague.agents.spec import REPLAY_ANSWERS_HELP, agent_option_help
from tradeleague.formats.direction.preset import FORMAT, DirectionPreset
from tradeleague.league.direction.replay_run import DEFAULT_PAYOUT_PERCENT, ReplayRequest, replay
from tradeleague.league.direction.roster import SHOWN_BASELINES
from tradeleague.league.mask import MASK_HELP
from tradeleague.terminal.options import CheckOption, ModelsOption, PricesOption, with_cutoffs

__all__ = ["register_replay"]

_AGENT_HELP = agent_option_help(SHOWN_BASELINES) + (
    " Example: --agent up=baseline:up --agent "
    "mini=openai:openai/gpt-4o-mini@openrouter,provider=openai,tier=ECO."
)
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
_DEFAULT_TIMEOUT_S = DirectionPreset().window.total_seconds()
"""The preset's response window in seconds (45), the default of ``--timeout``."""
_TIMEOUT_HELP = (
    "Seconds each model may take to answer, from the ask (the response window); an "
    "answer with under 30 seconds left before the round's end is not placed."
)
_STREAM_HELP = (
    "Event stream the arena records to in --db; use another name to keep several "
    "replays in one database."
)

_SEED_HELP = (
    "Base seed of the seeded baselines (coin-flip): each draws from a seed of the stream, "
    "its name and this. Give the same seed to resume a stream."
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
        ] = DEFAULT_PAYOUT_PERCENT,
        db: Annotated[str | None, typer.Option(metavar="URL", help=_DB_HELP)] = None,
        out: Annotated[Path | None, typer.Option(metavar="PATH", help=_OUT_HELP)] = None,
        stream: Annotated[str, typer.Option(metavar="NAME", help=_STREAM_HELP)] = FORMAT,
        timeout: Annotated[
            float, typer.Option(metavar="SECONDS", help=_TIMEOUT_HELP)
        ] = _DEFAULT_TIMEOUT_S,
        replay_answers: Annotated[
            str | None,
            typer.Option("--replay-answers", metavar="FROM_DB", help=_REPLAY_ANSWERS_HELP),
        ] = None,
        seed: Annotated[int, typer.Option(min=0, metavar="SEED", help=_SEED_HELP)] = 0,
        prices: PricesOption = None,
        check: CheckOption = True,
        mask: Annotated[bool, typer.Option("--mask", help=MASK_HELP)] = False,
        models: ModelsOption = None,
    ) -> None:
        """Replay direction-arena rounds over frozen candles with the paper broker.

        Before the first round each model agent is asked it once (--no-check
        skips this); one that fails stops the replay with exit 3 before anything
        is written. Ends with a summary per agent; exits 3 when an agent never
        decided or never answered validly (the summary names the cause and the
        likely fix).

        Example: tradeleague replay direction --market ../shared/data/crypto_1m
        --agent up=baseline:up --agent coin=baseline:coin-flip --end 2025-09-02T06:00Z
        """
        status = replay(
            ReplayRequest(
                market=market, agents=with_cutoffs(agent, models), start=start, end=end,
                payout=payout, db=db,
                out=out, stream=stream, timeout=timeout, replay_answers=replay_answers, seed=seed,
                prices=prices, check=check, mask=mask,
            )
        )  # fmt: skip
        if status:
            raise typer.Exit(status)
