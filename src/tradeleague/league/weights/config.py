"""The league file's ``[weights]`` table: the weights league's seasons, roster and feed.

``WeightsConfig.parse`` checks the table with the host's kit
(``host.leaguefile.Check``), naming every mistake with its line::

    [weights]    season, start, end, roll, market, symbols | feeds, rpc_url_env, timeout_s
    [[weights.agents]]    name, spec, division

A season's symbols are ``symbols`` (a fixed list) or, with ``feeds`` (a feed
registry file, see ``tradeleague.feeds.registry``), read from the chain at each
season's start over the RPC URL in the variable ``rpc_url_env`` names
(``examples/universe/league.toml``); the registry is checked with the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any, ClassVar

from tradeleague.errors import ConfigError
from tradeleague.formats.weights import Division
from tradeleague.host.leaguefile import Check, HostAgent
from tradeleague.host.seasons import SEASON_DAYS

__all__ = ["WeightsAgent", "WeightsConfig", "next_season"]

_TABLE = "weights"
_RPC_URL_ENV = "TRADELEAGUE_RPC_URL"


@dataclass(frozen=True, slots=True, kw_only=True)
class WeightsAgent(HostAgent):
    """One roster entry of the weights league: its name, agent spec and division."""

    division: Division = Division.OPEN


@dataclass(frozen=True, slots=True, kw_only=True)
class WeightsConfig:
    """The weights league: its seasons, roster and feed.

    One season ``season`` over ``[start, end)``; or, with ``roll``, seasons of
    28 days from ``start`` (a Monday) one after another, each named
    ``<season>-<its first day>``, until ``end`` if given (W-SEA-1).

    A season's symbols are ``symbols`` (a fixed list; empty: every file of
    ``market``), or, with ``feeds`` (a feed registry), read from the chain at
    each season's start over the RPC URL in ``$rpc_url_env`` (W-UNI-1).
    """

    season: str
    start: date
    end: date | None
    agents: tuple[WeightsAgent, ...]
    roll: bool = False
    market: Path | None = None
    symbols: tuple[str, ...] = ()
    feeds: Path | None = None
    rpc_url_env: str = _RPC_URL_ENV
    timeout_s: float = 60.0

    KEYS: ClassVar[frozenset[str]] = frozenset(
        {"season", "start", "end", "roll", "market", "symbols", "feeds", "rpc_url_env"}
        | {"timeout_s", "agents"}
    )
    """The table's keys; any other is a mistake."""

    @classmethod
    def parse(cls, data: object, check: Check) -> WeightsConfig | None:
        """Return ``[weights]`` checked, or ``None`` when it has mistakes (noted in ``check``)."""
        table = check.is_table(data, _TABLE)
        if table is None:
            return None
        check.table(table, _TABLE, set(cls.KEYS))
        season = check.name(table, _TABLE, "season")
        start = check.day(table, _TABLE, "start")
        roll = check.flag(table, _TABLE, "roll")
        end = check.day(table, _TABLE, "end") if "end" in table or not roll else None
        if start is not None and end is not None and end <= start:
            check.bad(_TABLE, "end", "end must be after start")
        if roll and start is not None and start.weekday() != 0:
            check.bad(_TABLE, "start", "rolling seasons start on a Monday")
        market = check.path_of(table, _TABLE, "market")
        feeds = _feeds(check, table)
        symbols = table.get("symbols", [])
        if not isinstance(symbols, list) or not all(isinstance(s, str) for s in symbols):
            check.bad(_TABLE, "symbols", "symbols is a list of strings")
            symbols = []
        if feeds is not None and symbols:
            check.bad(
                _TABLE, "symbols", "give symbols or feeds, not both: with feeds each season's "
                "symbols are read from the chain"
            )  # fmt: skip
        timeout = _timeout(check, table)
        rpc_env = check.text(table, _TABLE, "rpc_url_env", needed=False)
        agents = _agents(check, table)
        if season is None or start is None or (end is None and not roll) or not agents:
            return None
        return cls(
            season=season, start=start, end=end, agents=agents, roll=roll, market=market,
            symbols=tuple(symbols), feeds=feeds, rpc_url_env=rpc_env or _RPC_URL_ENV,
            timeout_s=timeout,
        )  # fmt: skip


def _timeout(check: Check, table: dict[str, Any]) -> float:
    """Return a model call's timeout in seconds (60 when not given)."""
    timeout = table.get("timeout_s", 60.0)
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or not 0 < timeout <= 600:
        check.bad(_TABLE, "timeout_s", "timeout_s is a number of seconds, 0 to 600")
        return 60.0
    return float(timeout)


def _feeds(check: Check, table: dict[str, Any]) -> Path | None:
    """Return the feed registry's path, the registry checked (its mistakes at ``feeds``)."""
    feeds = check.path_of(table, _TABLE, "feeds")
    if feeds is not None and feeds.exists():
        from tradeleague.feeds.registry import load_registry  # eth_utils: slow to import

        try:
            load_registry(feeds)
        except ConfigError as exc:
            check.bad(_TABLE, "feeds", str(exc))
    return feeds


def _agents(check: Check, table: dict[str, Any]) -> tuple[WeightsAgent, ...]:
    """Return the roster, each agent in its division (``open`` when not given)."""
    agents = check.agents(table, _TABLE, extra=frozenset({"division"}))
    divisions: dict[str, Division] = {}
    for where, row in check.rows(table, _TABLE):
        if "division" not in row:
            continue
        try:
            division = Division(str(row["division"]).lower())
        except ValueError:
            check.bad(where, "division", "division is open or pro")
            continue
        if isinstance(row.get("name"), str):
            divisions.setdefault(row["name"].strip(), division)
    return tuple(
        WeightsAgent(name=a.name, spec=a.spec, division=divisions.get(a.name, Division.OPEN))
        for a in agents
    )


def next_season(config: WeightsConfig, now: datetime) -> tuple[str, date] | None:
    """Return the id and first day of the first weights season starting after ``now``.

    ``None`` when no season of the league file starts after ``now``.
    """
    first = datetime.combine(config.start, time(0), tzinfo=UTC)
    if now < first:
        name = f"{config.season}-{config.start.isoformat()}" if config.roll else config.season
        return name, config.start
    if not config.roll:
        return None
    index = (now.date() - config.start).days // SEASON_DAYS + 1
    day0 = config.start + timedelta(days=index * SEASON_DAYS)
    if config.end is not None and day0 >= config.end:
        return None
    return f"{config.season}-{day0.isoformat()}", day0
