"""``tradeleague log``: every answer of a season: each model call, and each scripted or rule answer.

The rows come from the store (``tradeleague.league.answers``): the answer text
(shown as plain text), the latency, the outcome and the provider's error class.
The summary a replay ends with is `tradeleague.terminal.summary`.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from tradeleague.errors import ConfigError
from tradeleague.league.answers import CallRow, call_rows
from tradeleague.terminal.options import DbOption

__all__ = ["COLUMNS", "register"]

_TEXT_SHOWN = 160


def _cut(text: str | None) -> str:
    if text is None:
        return "-"
    flat = " ".join(text.split())
    return flat if len(flat) <= _TEXT_SHOWN else flat[: _TEXT_SHOWN - 1] + "…"


COLUMNS = (
    ("round", False),
    ("agent", False),
    ("answered by", False),
    ("attempt", True),
    ("outcome", False),
    ("provider fault: error", False),
    ("latency", True),
    ("prompt tokens", True),
    ("answer text", False),
)
"""The log table's headers, each saying what its column holds, and whether it is right-aligned."""


def _table(rows: list[CallRow], season: str) -> Table:
    table = Table(title=f"Answers of {season}", title_justify="left")
    for column, right in COLUMNS:
        table.add_column(column, justify="right" if right else "left", overflow="fold")
    for row in rows:
        fault = "-" if row.error_class is None else f"{row.error_class}: {_cut(row.error)}"
        table.add_row(
            row.round,
            row.agent,
            f"{row.source} (generated)" if row.generated else row.source,
            str(row.attempt),
            row.outcome,
            fault,
            f"{row.latency_ms} ms",
            "-" if row.prompt_tokens is None else str(row.prompt_tokens),
            _cut(row.text),
        )
    return table


def _nothing_logged(
    season: str, agent: str | None, round_id: str | None, every: list[CallRow]
) -> str:
    """Return the sentence for a log with no row: what was asked, and what to try next."""
    if not every:
        return (
            f"no answer is recorded for season {season!r} in this database: give the "
            "season id the replay printed (Recording to ..., season ID) and its --db."
        )
    callers = sorted({r.agent for r in every})
    if agent is not None and agent not in callers:
        return (
            f"no answer by agent {agent!r} is recorded for season {season!r}; the agents "
            f"that answered are {', '.join(callers)}."
        )
    return (
        f"no model call is recorded in round {round_id!r} of season {season!r}; give a round "
        f"as the log shows it, e.g. --round {every[0].round}."
    )


def log_command(
    season: Annotated[
        str,
        typer.Option(
            "--season",
            help="The season id, as the boards show it (e.g. S1 for an arena's season; "
            "STREAM/S1 where two arenas hold an S1).",
        ),
    ],
    agent: Annotated[str | None, typer.Option(help="Only this agent's calls.")] = None,
    round_id: Annotated[
        str | None, typer.Option("--round", help="Only this round (its id or time).")
    ] = None,
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines, not a table.")] = False,
) -> None:
    """Print every recorded answer of a season: model calls, scripted and baseline answers.

    Each row: who answered (a model, a scripted file, a baseline's generated
    answer), the answer text, latency, outcome and fault.

    Example: tradeleague log --season replay-us_equities_daily-2025-06-02-2025-06-09-open
    --agent gpt --db sqlite:///league.db
    """
    from tradeleague.store import open_store

    with open_store(db, upgrade=False) as store:
        rows = call_rows(store, season, agent=agent, round_id=round_id)
        every = [] if rows else call_rows(store, season)
    if not rows:
        raise ConfigError(_nothing_logged(season, agent, round_id, every))
    if as_json:
        for row in rows:
            typer.echo(json.dumps(row.to_payload(), sort_keys=True))
        return
    Console(highlight=False, width=max(Console().width, 150)).print(_table(rows, season))


def register(app: typer.Typer) -> None:
    """Add ``log`` to ``app``."""
    app.command("log")(log_command)
