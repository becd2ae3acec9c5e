"""CLI commands: ``tradeleague data ...`` (look at market data before using it)."""

from __future__ import annotations

import inspect as pyinspect
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from tradeleague.market import Dataset, GapReport, find_gaps, load_dataset

__all__ = ["inspect_summary", "register"]

_SHOWN_GAPS = 3

_LAYOUT = """\
PATH is a folder holding one file per symbol, named <SYMBOL>.csv or
<SYMBOL>.csv.gz (gzip), or a single such file. Every file starts with the
header timestamp,open,high,low,close,volume; timestamps are UTC, written
YYYY-MM-DDTHH:MM:SSZ, and stamp each bar's OPEN time (daily US-equity bars
are stamped 00:00Z on the session date). Rows are strictly increasing in time.
The folders of ../shared/data (us_equities_daily, us_equities_1h, crypto_1m,
crypto_4h, crypto_1d) follow this layout.
"""

_JSON_KEYS = """\
With --json, one JSON object is printed with the keys: label, source,
synthetic, calendar ("XNYS" or "24/7"), bar_size (e.g. "1h"),
bar_size_seconds, rows, first, last, missing_bars, unexpected_bars and
symbols: a list of objects with symbol, first, last, rows, expected_bars,
missing_bars, unexpected_bars, first_missing (up to 3 UTC times) and
first_unexpected (up to 3). Times are ISO 8601 UTC ending in Z.
"""


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _session_labelled(dataset: Dataset) -> bool:
    return not dataset.calendar.continuous and dataset.bar_size.total_seconds() >= 86_400


def _show(moment: datetime, dataset: Dataset) -> str:
    if _session_labelled(dataset):
        return moment.date().isoformat()
    return moment.strftime("%Y-%m-%d %H:%M")


def inspect_summary(dataset: Dataset, gaps: dict[str, GapReport]) -> dict[str, Any]:
    """Return the JSON-ready summary ``data inspect --json`` prints."""
    per_symbol = []
    for symbol in dataset.symbols:
        series, report = dataset[symbol], gaps[symbol]
        per_symbol.append(
            {
                "symbol": symbol,
                "first": _iso(series.first),
                "last": _iso(series.last),
                "rows": len(series),
                "expected_bars": report.expected,
                "missing_bars": len(report.missing),
                "unexpected_bars": len(report.unexpected),
                "first_missing": [_iso(t) for t in report.missing[:_SHOWN_GAPS]],
                "first_unexpected": [_iso(t) for t in report.unexpected[:_SHOWN_GAPS]],
            }
        )
    return {
        "label": dataset.label,
        "source": dataset.source,
        "synthetic": dataset.synthetic,
        "calendar": dataset.calendar.name,
        "bar_size": dataset.bar_size_text,
        "bar_size_seconds": int(dataset.bar_size.total_seconds()),
        "rows": dataset.rows,
        "first": _iso(min(dataset[s].first for s in dataset.symbols)),
        "last": _iso(max(dataset[s].last for s in dataset.symbols)),
        "missing_bars": sum(s["missing_bars"] for s in per_symbol),
        "unexpected_bars": sum(s["unexpected_bars"] for s in per_symbol),
        "symbols": per_symbol,
    }


def _gap_list(times: tuple[datetime, ...], dataset: Dataset) -> str:
    parts: list[str] = []
    for i, moment in enumerate(times):
        same_day = i > 0 and times[i - 1].date() == moment.date()
        parts.append(moment.strftime("%H:%M") if same_day else _show(moment, dataset))
    return ", ".join(parts)


def _table(dataset: Dataset, gaps: dict[str, GapReport]) -> Table:
    kind = "[bold yellow]SYNTHETIC[/] " if dataset.synthetic else ""
    table = Table(
        title=f"{kind}{dataset.label}: {dataset.bar_size_text} bars, {dataset.calendar.name}",
        caption=f"source: {dataset.source} (times UTC)",
        title_justify="left",
    )
    table.add_column("symbol", no_wrap=True)
    table.add_column("first", no_wrap=True)
    table.add_column("last", no_wrap=True)
    table.add_column("rows", justify="right", no_wrap=True)
    table.add_column("missing bars (first few)")
    for symbol in dataset.symbols:
        series, report = dataset[symbol], gaps[symbol]
        if report.missing:
            shown = f"{len(report.missing):,}: " + _gap_list(report.missing[:_SHOWN_GAPS], dataset)
            if len(report.missing) > _SHOWN_GAPS:
                shown += " ..."
        else:
            shown = "[green]0[/]"
        if report.unexpected:
            shown += f"; {len(report.unexpected):,} off-grid"
        table.add_row(
            symbol,
            _show(series.first, dataset),
            _show(series.last, dataset),
            f"{len(series):,}",
            shown,
        )
    return table


def _summary(summary: dict[str, Any]) -> str:
    first, last = summary["first"], summary["last"]
    made = "synthetic" if summary["synthetic"] else "real history"
    return (
        f"{summary['label']} ({made}): {len(summary['symbols'])} symbols, "
        f"{summary['rows']:,} bars of {summary['bar_size']} on the {summary['calendar']} "
        f"calendar, {first} .. {last}; {summary['missing_bars']:,} missing bars, "
        f"{summary['unexpected_bars']:,} off the calendar's grid."
    )


def inspect(
    path: Annotated[Path, typer.Argument(help="A data folder or one <SYMBOL>.csv[.gz] file.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of a table.")
    ] = False,
    symbols: Annotated[
        str | None,
        typer.Option(
            "--symbols", help="Only these symbols, comma separated: AAPL,MSFT (default: all)."
        ),
    ] = None,
) -> None:
    """Load a market-data folder or file, check it, and summarise each symbol.

    Shows each symbol's first and last bar, the bar size, the row count, and the
    bars its trading calendar expects but the file lacks (gaps), then a summary.
    A missing path or a malformed file is reported in one sentence (exit status 2).

    Example: tradeleague data inspect ../shared/data/us_equities_daily --symbols SPY,QQQ
    """
    wanted = None if symbols is None else [s for s in symbols.split(",") if s.strip()]
    dataset = load_dataset(path, symbols=wanted)
    gaps = find_gaps(dataset)
    summary = inspect_summary(dataset, gaps)
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
        return
    console = Console()
    console.print(_table(dataset, gaps))
    console.print(_summary(summary), highlight=False)


def register(app: typer.Typer) -> None:
    """Add the ``data`` command group to ``app``."""
    group = typer.Typer(
        name="data",
        help="Inspect market data (bar files) before a league or a replay uses it.",
        no_args_is_help=True,
    )
    group.command(
        "inspect",
        help=pyinspect.cleandoc(inspect.__doc__ or "") + "\n\n" + _LAYOUT + "\n" + _JSON_KEYS,
    )(inspect)
    app.add_typer(group, name="data")
