"""What the check before round one prints: one line per model agent, and the exit status."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape

from tradeleague.league.check import AgentCheck, failed
from tradeleague.terminal.exits import EXIT_NO_DECISIONS

__all__ = ["CHECK_HINT", "print_checks"]

CHECK_HINT = "Nothing was played. Fix the agents above, or skip this check with --no-check."
"""What follows a failed check: nothing happened, and how to go on regardless."""


def print_checks(console: Console, checks: Sequence[AgentCheck], *, title: str = "") -> int:
    """Print each model agent's check; return ``EXIT_NO_DECISIONS`` if one failed, else 0.

    ``title`` names what was checked (a format of a league file), before the heading.
    """
    if not checks:
        return 0
    head = f"{escape(title)} " if title else ""
    console.print(f"{head}[bold]Check before round one[/] (one call per model agent)")
    for check in checks:
        line = escape(check.line())
        console.print(
            f"  {line}" if check.ok else f"  [bold red]{line}[/]", highlight=False, soft_wrap=True
        )
    if not failed(checks):
        return 0
    console.print(CHECK_HINT, highlight=False, markup=False, soft_wrap=True)
    return EXIT_NO_DECISIONS
