"""CLI commands: ``tradeleague stats``, the statistics a reader checks a board with.

``stats luck`` is the direction arena's luck calculator (SPEC D-LCK-1..3,
D-SCO-6; seed 001, section 07): for people, a table with one line of
explanation per number; with ``--json``, exactly one JSON object whose numbers
are rounded as published (see :mod:`tradeleague.stats.calculator`).
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from fractions import Fraction
from typing import Annotated

import typer
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.errors import ConfigError
from tradeleague.stats.calculator import LuckFigures, LuckReport, luck_report
from tradeleague.stats.rounding import round_half_up

__all__ = ["register", "stats_app"]

MAX_TRADES = 10_000_000
"""Largest sample the calculator takes (the luckiest-of-N sum is linear in it)."""

stats_app = typer.Typer(
    name="stats",
    help=(
        "Statistics for reading a board honestly: how much of a result is luck.\n\n"
        "[bold]luck[/] reads a direction-arena hit rate against a coin flip: its 95% "
        "interval, break-even at the payout, trades needed to prove it, and the luckiest "
        "of N coin flips.\n\n"
        "Example: [bold]tradeleague stats luck --hit-rate 53.1 --trades 750[/] "
        "(the seed's 53.1% over 750 settled trades, 15 models, 80% payout).\n\n" + DISCLAIMER
    ),
    no_args_is_help=True,
    rich_markup_mode="rich",
)


def register(app: typer.Typer) -> None:
    """Add the ``stats`` command group to ``app``."""
    app.add_typer(stats_app, name="stats")


def _exact(value: float) -> Fraction:
    """Return the decimal a person typed (``53.1``) as an exact fraction, not its binary float."""
    return Fraction(Decimal(repr(value)))


def _check(ok: bool, option: str, sentence: str) -> None:
    """Raise ``ConfigError`` naming ``option`` unless ``ok``.

    ``tradeleague.cli.main`` turns it into one sentence on stderr and exit status 2.
    """
    if not ok:
        raise ConfigError(f"{option}: {sentence}")


def _validate(
    hit_rate: float, trades: int, models: int, payout: float, stake: float, rounds_per_day: float
) -> None:
    _check(
        math.isfinite(hit_rate) and 0 <= hit_rate <= 100,
        "--hit-rate",
        f"the hit rate is a percent from 0 to 100, not {hit_rate}.",
    )
    _check(
        hit_rate != 50,
        "--hit-rate",
        "a hit rate of exactly 50 is a coin flip: no number of trades can prove it differs "
        "from one.",
    )
    _check(
        1 <= trades <= MAX_TRADES,
        "--trades",
        f"the number of settled trades must be from 1 to {MAX_TRADES:,}, not {trades}.",
    )
    _check(models >= 1, "--models", f"the number of models must be 1 or more, not {models}.")
    _check(
        math.isfinite(payout) and payout > 0,
        "--payout",
        f"the payout is a positive percent of the stake, not {payout}.",
    )
    _check(
        math.isfinite(stake) and stake > 0, "--stake", f"the stake must be positive, not {stake}."
    )
    _check(
        math.isfinite(rounds_per_day) and rounds_per_day > 0,
        "--rounds-per-day",
        f"rounds per day must be positive, not {rounds_per_day}.",
    )


@stats_app.command("luck")
def luck(
    hit_rate: Annotated[
        float,
        typer.Option(
            "--hit-rate",
            help="Observed hit rate in percent: wins / (wins + losses), draws and skips "
            "excluded. Seed example: 53.1.",
            show_default=False,
        ),
    ],
    trades: Annotated[
        int,
        typer.Option(
            "--trades",
            help="Settled trades the hit rate rests on. Seed example: 750.",
            show_default=False,
        ),
    ],
    models: Annotated[
        int,
        typer.Option("--models", help="Models on the board: the N in 'luckiest of N coin flips'."),
    ] = 15,
    payout: Annotated[
        float,
        typer.Option(
            "--payout", help="Percent of the stake a winning trade returns (80 -> a win pays +8)."
        ),
    ] = 80.0,
    stake: Annotated[
        float, typer.Option("--stake", help="Virtual USD staked per round; a loss costs it.")
    ] = 10.0,
    rounds_per_day: Annotated[
        float,
        typer.Option(
            "--rounds-per-day", help="Rounds a model trades in a day, to turn trades into days."
        ),
    ] = 270.0,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print one JSON object instead of the table (percentages in percent units).",
        ),
    ] = False,
) -> None:
    """Say how much of a hit rate is luck.

    Reads an observed hit rate against a coin flip: its 95% confidence interval,
    the break-even hit rate at the payout, what a coin flip earns per round, how
    many trades it would take to prove the rate, and the best score fifteen (or
    --models) pure coin flips are expected to reach at the same sample size.

    Seed example: [bold]tradeleague stats luck --hit-rate 53.1 --trades 750[/]
    gives 49.5-56.7% (+/- 3.6 points, contains 50%), break-even 55.56%, -1.00
    per round at 50%, 2,040 trades (about 7.6 days at 270 rounds a day), and
    53.2% for the luckiest of 15 coin flips.

    With --json: one object with keys ci_low, ci_high, half_width,
    contains_coin_flip, break_even, ev_per_round_at_coin_flip, trades_to_prove,
    days_to_prove, luckiest_of_n; percentages in percent units, rounded half up
    to the decimals above (interval, days and luckiest 1; break-even and P&L 2).
    """
    _validate(hit_rate, trades, models, payout, stake, rounds_per_day)
    report = luck_report(
        hit_rate=_exact(hit_rate) / 100,
        trades=trades,
        models=models,
        payout=_exact(payout) / 100,
        stake=_exact(stake),
        rounds_per_day=_exact(rounds_per_day),
    )
    figures = report.figures()
    if as_json:
        typer.echo(json.dumps(figures.as_json()))
        return
    Console().print(_panel(report, figures))


def _pct(value: Decimal | str) -> str:
    return f"{value}%"


def _plain(value: Fraction) -> str:
    """Return a fraction that came from decimal input as plain decimal text (``270``, ``53.1``)."""
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return format(exact.normalize(), "f")


def _usd(value: Decimal | Fraction) -> str:
    amount = round_half_up(value, 2)
    return f"-${-amount:,.2f}" if amount < 0 else f"+${amount:,.2f}"


def _verdict(report: LuckReport, f: LuckFigures, rate: str) -> Text:
    if f.contains_coin_flip:
        head = "Indistinguishable from chance. "
        body = (
            f"At {report.trades:,} trades, a {rate} hit rate has a confidence interval that "
            "still contains 50%. It is consistent with skill and equally consistent with a "
            "lucky coin."
        )
    elif report.hit_rate > Fraction(1, 2):
        head = "Distinguishable from chance. "
        body = (
            f"At {report.trades:,} trades, a {rate} hit rate has a 95% confidence interval "
            "that lies above 50%."
        )
    else:
        head = "Distinguishable from chance, on the wrong side. "
        body = (
            f"At {report.trades:,} trades, a {rate} hit rate has a 95% confidence interval "
            "that lies below 50%."
        )
    if report.hit_rate < report.break_even:
        body += f" Below break-even ({_pct(f.break_even)}), it loses money at this payout."
    if float(report.hit_rate) <= report.luckiest:
        body += (
            f" It is no higher than the luckiest of {report.models} coin flips "
            f"({_pct(f.luckiest_of_n)})."
        )
    return Text.assemble((head, "bold"), body)


def _panel(report: LuckReport, f: LuckFigures) -> Panel:
    rate = _pct(_plain(report.hit_rate * 100))
    payout = _pct(_plain(report.payout * 100))
    days = "" if f.days_to_prove is None else f"; about {f.days_to_prove} days"
    table = Table.grid(padding=(0, 2))
    table.add_column("value", justify="right", no_wrap=True, style="bold")
    table.add_column("what it means")
    rows = [
        (
            f"{f.ci_low} - {f.ci_high}%",
            f"95% interval, +/- {f.half_width} points",
            f"where the true hit rate plausibly lies, from {report.trades:,} settled trades.",
        ),
        (
            "yes" if f.contains_coin_flip else "no",
            "contains 50%",
            "whether a pure coin flip is inside that interval.",
        ),
        (_pct(f.break_even), "break-even hit", f"1 / (1 + payout), at a payout of {payout}."),
        (
            _usd(f.ev_per_round_at_coin_flip),
            "edge of a coin flip",
            f"expected per round at 50%: a win returns {_usd(report.stake * report.payout)}, "
            f"a loss {_usd(-report.stake)}.",
        ),
        (
            f"{f.trades_to_prove:,}",
            "trades to prove it",
            f"to tell {rate} from 50% at 95% confidence and 80% power"
            f"{days} at {_plain(report.rounds_per_day)} rounds a day.",
        ),
        (
            _pct(f.luckiest_of_n),
            f"luckiest of {report.models} coin flips",
            "expected top score with no skill at all.",
        ),
    ]
    for value, label, meaning in rows:
        table.add_row(value, Text.assemble((label, "bold"), ": ", meaning))
    return Panel(
        Group(table, Text(""), _verdict(report, f, rate), Text(""), Text(DISCLAIMER, style="dim")),
        title=f"How much of this is luck: {rate} over {report.trades:,} trades",
        expand=False,
    )
