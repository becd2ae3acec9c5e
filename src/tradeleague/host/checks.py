"""The check before a host's first slot: each format's model agents, asked their first round once.

`check_league` asks every format of a league file for its check (the ``host``
part's ``check``: the format's first round played in memory over the file's
frozen data, `tradeleague.league.check`); `print_league_checks` prints one line
per model agent and returns the exit status. ``tradeleague run`` runs it before
any database is opened (unless ``--no-check``): it prints the lines and stops
when an agent failed, else logs them (a host's output is its JSON log);
``tradeleague agents check`` runs it alone.
"""

from __future__ import annotations

import logging

from rich.console import Console

from tradeleague.host.config import LeagueConfig
from tradeleague.league.check import AgentCheck, failed
from tradeleague.plugin import get
from tradeleague.terminal.checks import print_checks

__all__ = ["check_league", "league_failed", "log_league_checks", "print_league_checks"]

_log = logging.getLogger("tradeleague.host")

NOT_CHECKED = "the league file gives it no frozen data to build its first round from"
"""Why a format's agents were not checked."""


async def check_league(config: LeagueConfig) -> list[tuple[str, list[AgentCheck] | None]]:
    """Return each format's checks, in the file's order (``None``: not checkable offline)."""
    return [(key, await get(key).part("host").check(c)) for key, c in config.formats.items()]


def league_failed(checked: list[tuple[str, list[AgentCheck] | None]]) -> bool:
    """Return whether a model agent of any format failed its check."""
    return any(checks is not None and failed(checks) for _key, checks in checked)


def log_league_checks(checked: list[tuple[str, list[AgentCheck] | None]]) -> None:
    """Log each check as one line a host's log holds (an info line an agent, a warning a format)."""
    for key, checks in checked:
        if checks is None:
            _log.warning("format not checked", extra={"format": key, "why": NOT_CHECKED})
            continue
        for check in checks:
            _log.info(
                "agent checked",
                extra={"format": key, "agent": check.agent, "detail": check.detail},
            )


def print_league_checks(
    console: Console, checked: list[tuple[str, list[AgentCheck] | None]]
) -> int:
    """Print each format's checks; return ``EXIT_NO_DECISIONS`` if an agent failed, else 0."""
    status = 0
    for key, checks in checked:
        if checks is None:
            console.print(
                f"[{key}] not checked: {NOT_CHECKED}.", highlight=False, markup=False,
                soft_wrap=True,
            )  # fmt: skip
            continue
        status = print_checks(console, checks, title=f"[{key}]") or status
    return status
