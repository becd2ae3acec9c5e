"""The league file's ``[thesis]`` table: the thesis league's seasons, roster and prices.

``ThesisConfig.parse`` checks the table with the host's kit
(``host.leaguefile.Check``), naming every mistake with its line::

    [thesis]     season, start, end, roll, crypto, stocks, stocks_hourly, api_base, yahoo_base
    [[thesis.agents]]     name, spec, join
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, ClassVar

from tradeleague.host.leaguefile import Check, HostAgent
from tradeleague.host.seasons import SEASON_DAYS

__all__ = ["ThesisConfig"]

_TABLE = "thesis"
_DAYS = SEASON_DAYS  # a thesis season's days at most (T-SEA-1)


@dataclass(frozen=True, slots=True, kw_only=True)
class ThesisConfig:
    """The thesis league: its seasons of daily cycles, its roster and its prices.

    One season ``season`` over ``[start, end)`` (28 days at most); or, with
    ``roll``, seasons of 28 days from ``start`` one after another, each named
    ``<season>-<its first day>``, until ``end`` if given (T-SEA-1).

    Over history the prices come from the frozen folders (``crypto``: Binance
    4h files, ``stocks``: daily files, ``stocks_hourly``: hourly files for the
    stocks' 4h RSI); live, from Binance through ccxt (``api_base`` points it at
    a mirror) and Yahoo Finance through yfinance (``yahoo_base`` likewise).
    ``joins`` holds the agents that enter at a later cycle (0 is the first) of
    the first season; later seasons open with every agent.
    """

    season: str
    start: date
    end: date | None
    agents: tuple[HostAgent, ...]
    joins: tuple[tuple[str, int], ...] = ()
    roll: bool = False
    crypto: Path | None = None
    stocks: Path | None = None
    stocks_hourly: Path | None = None
    api_base: str | None = None
    yahoo_base: str | None = None

    KEYS: ClassVar[frozenset[str]] = frozenset(
        {"season", "start", "end", "roll", "crypto", "stocks", "stocks_hourly"}
        | {"api_base", "yahoo_base", "agents"}
    )
    """The table's keys; any other is a mistake."""

    @classmethod
    def parse(cls, data: object, check: Check) -> ThesisConfig | None:
        """Return ``[thesis]`` checked, or ``None`` when it has mistakes (noted in ``check``)."""
        table = check.is_table(data, _TABLE)
        if table is None:
            return None
        check.table(table, _TABLE, set(cls.KEYS))
        season = check.name(table, _TABLE, "season")
        start = check.day(table, _TABLE, "start")
        roll = check.flag(table, _TABLE, "roll")
        end = _end(check, table, start, roll)
        paths = {k: check.path_of(table, _TABLE, k) for k in ("crypto", "stocks", "stocks_hourly")}
        bases = {k: check.text(table, _TABLE, k, needed=False) for k in ("api_base", "yahoo_base")}
        for key, base in bases.items():
            if base is not None and not re.match(r"^https?://[^\s/]+", base):
                check.bad(_TABLE, key, f"{key} is an http(s) URL, e.g. https://api.binance.com")
        agents = check.agents(table, _TABLE, extra=frozenset({"join"}))
        joins = _joins(check, table)
        if season is None or start is None or (end is None and not roll) or not agents:
            return None
        return cls(
            season=season, start=start, end=end, agents=agents, joins=joins, roll=roll,
            crypto=paths["crypto"], stocks=paths["stocks"], stocks_hourly=paths["stocks_hourly"],
            api_base=bases["api_base"], yahoo_base=bases["yahoo_base"],
        )  # fmt: skip


def _end(check: Check, table: dict[str, Any], start: date | None, roll: bool) -> date | None:
    """Return the league's end: needed for one season (1 to 28 days on), optional rolling."""
    end = check.day(table, _TABLE, "end") if "end" in table or not roll else None
    days = (end - start).days if start is not None and end is not None else None
    if roll and days is not None and days < 1:
        check.bad(_TABLE, "end", "end must be after start")
        return None
    if not roll and days is not None and not 1 <= days <= _DAYS:
        check.bad(_TABLE, "end", f"end is 1 to {_DAYS} days after start (a season)")
        return None
    return end


def _joins(check: Check, table: dict[str, Any]) -> tuple[tuple[str, int], ...]:
    """Return each ``join``: the cycle (0 is the first) at which an agent enters."""
    joins: list[tuple[str, int]] = []
    for where, row in check.rows(table, _TABLE):
        if "join" not in row:
            continue
        join = row["join"]
        if not isinstance(join, int) or isinstance(join, bool) or not 0 <= join < _DAYS:
            check.bad(where, "join", f"join is the cycle an agent enters, 0 to {_DAYS - 1}")
        elif isinstance(row.get("name"), str):
            joins.append((row["name"].strip(), join))
    return tuple(joins)
