"""The summary every replay ends with: each agent's decisions and faults, and the exit status.

The rows come from the store (``tradeleague.league.answers``); an agent that
never decided, because its provider failed or because it answered but never
validly, gets a line with the cause and the likely fix, and the replay exits
``EXIT_NO_DECISIONS``.
"""

from __future__ import annotations

from collections.abc import Collection

from rich.console import Console
from rich.markup import escape

from tradeleague.league.answers import AgentSummary, summarise
from tradeleague.store import Store
from tradeleague.terminal.exits import EXIT_NO_DECISIONS

__all__ = ["EXIT_NO_DECISIONS", "print_summary"]


def print_summary(
    console: Console,
    store: Store,
    season: str,
    summaries: list[AgentSummary] | None = None,
    *,
    shown: Collection[str] | None = None,
) -> int:
    """Print each agent's decisions, no-decisions and faults; return the exit status to use.

    ``shown`` keeps the lines of these agents only, and of every agent that
    never decided (the caller says where the rest are).

    Returns ``EXIT_NO_DECISIONS`` when an agent never decided, because of
    provider faults or because no answer it gave was valid (each such agent
    gets one line with the cause and the likely fix), else 0.
    """
    summaries = summarise(store, season) if summaries is None else summaries
    if not summaries:
        return 0
    console.print("[bold]Per agent[/]")
    for summary in summaries:
        if shown is not None and summary.agent not in shown and not summary.failed:
            continue
        console.print(f"  {summary.line()}", highlight=False, markup=False, soft_wrap=True)
    stranded = [s for s in summaries if s.failed]
    for summary in stranded:
        console.print(
            f"[bold red]{escape(summary.diagnosis() or '')}[/]", highlight=False, soft_wrap=True
        )
    if stranded:
        console.print(
            f"See every answer and fault: tradeleague log --season {season} --db {store.url}",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    return EXIT_NO_DECISIONS if stranded else 0
