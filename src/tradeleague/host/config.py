"""The league file: one TOML file that says everything a host needs (issue 12).

``load_league(path)`` reads and checks the whole file before anything touches
a database, and raises one ``ConfigError`` that names every mistake with its
line (unknown keys are mistakes). Paths resolve relative to the league file;
keys are never written in it, only the names of the environment variables
that hold them.

A weights league's symbols are ``symbols`` (a fixed list) or, with ``feeds``
(a feed registry file, see ``tradeleague.feeds.registry``), read from the chain
at each season's start over the RPC URL in the variable ``rpc_url_env`` names
(``examples/universe/league.toml``); the registry is checked with the file.

The tables::

    [league]     db, db_env, http, head_key, head_out
    [weights]    season, start, end, roll, market, symbols | feeds, rpc_url_env, timeout_s
    [[weights.agents]]    name, spec, division
    [direction]  stream, start, market, exchange, symbol, api_base, payout, drill
    [[direction.agents]]  name, spec
    [thesis]     season, start, end, roll, crypto, stocks, stocks_hourly, api_base, yahoo_base
    [[thesis.agents]]     name, spec, join
    [providers.NAME]      key_env (documentation of where each key comes from)
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from tradeleague.errors import ConfigError
from tradeleague.formats.weights import Division

__all__ = [
    "DirectionConfig",
    "HostAgent",
    "LeagueConfig",
    "ThesisConfig",
    "WeightsConfig",
    "load_league",
    "parse_league",
    "toml_day",
    "toml_moment",
]

_MAX_BYTES = 1_000_000
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_THESIS_DAYS = 28  # a thesis season's days at most (T-SEA-1)


@dataclass(frozen=True, slots=True, kw_only=True)
class HostAgent:
    """One roster entry: its name, its agent spec (as in replays) and its division."""

    name: str
    spec: str
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
    agents: tuple[HostAgent, ...]
    roll: bool = False
    market: Path | None = None
    symbols: tuple[str, ...] = ()
    feeds: Path | None = None
    rpc_url_env: str = "TRADELEAGUE_RPC_URL"
    timeout_s: float = 60.0


@dataclass(frozen=True, slots=True, kw_only=True)
class DirectionConfig:
    """The direction arena: its stream, roster and candle feed (frozen or ccxt)."""

    agents: tuple[HostAgent, ...]
    stream: str = "direction"
    start: datetime | None = None
    market: Path | None = None
    exchange: str = "binance"
    symbol: str = "BTC/USDT"
    api_base: str | None = None
    payout: int = 80
    drill: bool = False


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


@dataclass(frozen=True, slots=True, kw_only=True)
class LeagueConfig:
    """A whole league file, checked."""

    path: Path
    db: str | None = None
    db_env: str | None = None
    """The variable the file says holds the database URL (``db`` is read from it)."""
    http: str | None = None
    head_key: Path | None = None
    """The Ed25519 key (``db keygen``) the host signs its chain head with."""
    head_out: Path | None = None
    """Where the host writes its signed head after every slot (``host.heads``)."""
    weights: WeightsConfig | None = None
    direction: DirectionConfig | None = None
    thesis: ThesisConfig | None = None
    providers: Mapping[str, str] = field(default_factory=dict)

    def store_url(self, override: str | None = None) -> str | None:
        """Return the database URL: ``override`` (``--db``), else the file's.

        ``None`` (the default store) only when the file names no database at all.

        Raises
        ------
        ConfigError
            If the file reads its URL from a variable that is not set.
        """
        if override is not None:
            return override
        if self.db is None and self.db_env is not None:
            raise ConfigError(
                f"{self.path}: set ${self.db_env} to the database URL (the file's db_env), "
                "or give --db"
            )
        return self.db


class _Lines:
    """Where each table and key of a TOML text is written (tomllib keeps no lines)."""

    def __init__(self, text: str) -> None:
        self.tables: dict[str, int] = {}
        self.keys: dict[tuple[str, str], int] = {}
        table = ""
        counts: dict[str, int] = {}
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.strip()
            header = re.match(r"^\[\[?\s*([^\]]+?)\s*\]\]?", line)
            if header:
                name = header.group(1).replace('"', "")
                if line.startswith("[["):
                    index = counts.get(name, 0)
                    counts[name] = index + 1
                    name = f"{name}[{index}]"
                table = name
                self.tables.setdefault(table, number)
                continue
            key = re.match(r'^"?([A-Za-z0-9_.-]+)"?\s*=', line)
            if key:
                self.keys.setdefault((table, key.group(1)), number)

    def of(self, table: str, key: str | None = None) -> int:
        if key is not None and (table, key) in self.keys:
            return self.keys[(table, key)]
        if key is not None:  # a key written as a table of its own: [table.key] or [[table.key]]
            inner = f"{table}.{key}" if table else key
            for name in (inner, f"{inner}[0]"):
                if name in self.tables:
                    return self.tables[name]
        return self.tables.get(table, 1)


def toml_day(value: object) -> date | None:
    """Return a TOML day (a date value, or text like ``2025-09-02``); ``None`` for anything else."""
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            return None
    return None


def toml_moment(value: object) -> datetime | None:
    """Return a TOML time in UTC (a datetime value, or ISO text; naive means UTC), else ``None``.

    The sweep file reads its times with this too, so a time means the same in both files.
    """
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    if isinstance(value, datetime):
        return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    return None


class _Check:
    """Collects every mistake with its line; raises them together."""

    def __init__(self, path: Path, lines: _Lines) -> None:
        self.path = path
        self.lines = lines
        self.mistakes: list[tuple[int, str]] = []

    def bad(self, table: str, key: str | None, message: str) -> None:
        self.mistakes.append((self.lines.of(table, key), message))

    def table(self, data: Mapping[str, Any], name: str, allowed: set[str]) -> dict[str, Any]:
        for key in data:
            if key not in allowed:
                where = f"[{name}]" if name else "the top level"
                self.bad(name, key, f"unknown key {key!r} in {where}")
        return dict(data)

    def text(self, data: Mapping[str, Any], table: str, key: str, *, needed: bool) -> str | None:
        value = data.get(key)
        if value is None:
            if needed:
                self.bad(table, None, f"[{table}] needs {key}")
            return None
        if not isinstance(value, str) or not value.strip() or len(value) > 2000:
            self.bad(table, key, f"{key} must be a non-empty string")
            return None
        return value.strip()

    def path_of(self, data: Mapping[str, Any], table: str, key: str) -> Path | None:
        value = self.text(data, table, key, needed=False)
        if value is None:
            return None
        path = Path(value).expanduser()
        path = path if path.is_absolute() else (self.path.parent / path)
        if not path.exists():
            self.bad(table, key, f"{key} {value!r} does not exist (paths are relative to the file)")
        return path.resolve()

    def day(self, data: Mapping[str, Any], table: str, key: str) -> date | None:
        value = data.get(key)
        if isinstance(value, datetime):
            self.bad(table, key, f"{key} is a day like 2025-09-02, not a time")
            return None
        day = toml_day(value)
        if day is None:
            self.bad(table, key, f"{key} must be a day like 2025-09-02")
        return day

    def moment(self, data: Mapping[str, Any], table: str, key: str) -> datetime | None:
        value = data.get(key)
        if value is None:
            return None
        moment = toml_moment(value)
        if moment is None:
            self.bad(table, key, f"{key} must be a time like 2025-09-02T00:00:00Z")
        return moment

    def agents(
        self,
        data: Mapping[str, Any],
        table: str,
        divisions: bool,
        extra: frozenset[str] = frozenset(),
    ) -> tuple[HostAgent, ...]:
        rows = data.get("agents")
        if not isinstance(rows, list) or not rows:
            self.bad(table, "agents", f"[{table}] needs at least one [[{table}.agents]]")
            return ()
        out: list[HostAgent] = []
        allowed = {"name", "spec", "division"} if divisions else {"name", "spec"}
        allowed |= extra
        for index, row in enumerate(rows[:1000]):
            where = f"{table}.agents[{index}]"
            if not isinstance(row, dict):
                self.bad(table, "agents", f"{table}.agents holds tables")
                continue
            self.table(row, where, allowed)
            name = self.text(row, where, "name", needed=True)
            spec = self.text(row, where, "spec", needed=True)
            if name is not None and not _NAME.match(name):
                self.bad(where, "name", f"agent name {name!r}: letters, digits, _ . - (<= 64)")
                name = None
            division = Division.OPEN
            if divisions and "division" in row:
                try:
                    division = Division(str(row["division"]).lower())
                except ValueError:
                    self.bad(where, "division", "division is open or pro")
            if name is not None and spec is not None:
                if any(a.name == name for a in out):
                    self.bad(where, "name", f"agent name {name!r} is used twice")
                out.append(HostAgent(name=name, spec=spec, division=division))
        return tuple(out)

    def raise_any(self) -> None:
        if self.mistakes:
            listed = "; ".join(f"line {n}: {m}" for n, m in sorted(self.mistakes))
            raise ConfigError(f"{self.path}: {listed}")


def _weights(check: _Check, data: Any) -> WeightsConfig | None:
    if not isinstance(data, dict):
        check.bad("weights", None, "[weights] must be a table")
        return None
    allowed = {"season", "start", "end", "roll", "market", "symbols", "feeds", "rpc_url_env"}
    allowed |= {"timeout_s"}
    check.table(data, "weights", allowed | {"agents"})
    season = check.text(data, "weights", "season", needed=True)
    if season is not None and not _NAME.match(season):
        check.bad("weights", "season", "season: letters, digits, _ . - (<= 64)")
    start = check.day(data, "weights", "start")
    roll = data.get("roll", False)
    if not isinstance(roll, bool):
        check.bad("weights", "roll", "roll is true or false")
        roll = False
    end = check.day(data, "weights", "end") if "end" in data or not roll else None
    if start is not None and end is not None and end <= start:
        check.bad("weights", "end", "end must be after start")
    if roll and start is not None and start.weekday() != 0:
        check.bad("weights", "start", "rolling seasons start on a Monday")
    market = check.path_of(data, "weights", "market")
    feeds = check.path_of(data, "weights", "feeds")
    symbols = data.get("symbols", [])
    if not isinstance(symbols, list) or not all(isinstance(s, str) for s in symbols):
        check.bad("weights", "symbols", "symbols is a list of strings")
        symbols = []
    timeout = data.get("timeout_s", 60.0)
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or not 0 < timeout <= 600:
        check.bad("weights", "timeout_s", "timeout_s is a number of seconds, 0 to 600")
        timeout = 60.0
    if feeds is not None and symbols:
        check.bad(
            "weights", "symbols", "give symbols or feeds, not both: with feeds each season's "
            "symbols are read from the chain"
        )  # fmt: skip
    if feeds is not None and feeds.exists():
        from tradeleague.feeds.registry import load_registry  # eth_utils: slow to import

        try:
            load_registry(feeds)
        except ConfigError as exc:
            check.bad("weights", "feeds", str(exc))
    rpc_env = check.text(data, "weights", "rpc_url_env", needed=False)
    agents = check.agents(data, "weights", divisions=True)
    if season is None or start is None or (end is None and not roll) or not agents:
        return None
    return WeightsConfig(
        season=season, start=start, end=end, agents=agents, roll=roll, market=market,
        symbols=tuple(symbols), feeds=feeds, rpc_url_env=rpc_env or "TRADELEAGUE_RPC_URL",
        timeout_s=float(timeout),
    )  # fmt: skip


def _direction(check: _Check, data: Any) -> DirectionConfig | None:
    if not isinstance(data, dict):
        check.bad("direction", None, "[direction] must be a table")
        return None
    allowed = {"stream", "start", "market", "exchange", "symbol", "api_base", "payout", "drill"}
    check.table(data, "direction", allowed | {"agents"})
    stream = check.text(data, "direction", "stream", needed=False) or "direction"
    market = check.path_of(data, "direction", "market")
    payout = data.get("payout", 80)
    if not isinstance(payout, int) or isinstance(payout, bool) or not 0 <= payout <= 1000:
        check.bad("direction", "payout", "payout is a whole percent, 0 to 1000")
        payout = 80
    drill = data.get("drill", False)
    if not isinstance(drill, bool):
        check.bad("direction", "drill", "drill is true or false")
        drill = False
    agents = check.agents(data, "direction", divisions=False)
    return DirectionConfig(
        agents=agents, stream=stream, start=check.moment(data, "direction", "start"),
        market=market, exchange=check.text(data, "direction", "exchange", needed=False)
        or "binance", symbol=check.text(data, "direction", "symbol", needed=False) or "BTC/USDT",
        api_base=check.text(data, "direction", "api_base", needed=False), payout=payout,
        drill=drill,
    )  # fmt: skip


def _thesis(check: _Check, data: Any) -> ThesisConfig | None:
    if not isinstance(data, dict):
        check.bad("thesis", None, "[thesis] must be a table")
        return None
    allowed = {"season", "start", "end", "roll", "crypto", "stocks", "stocks_hourly"}
    check.table(data, "thesis", allowed | {"api_base", "yahoo_base", "agents"})
    season = check.text(data, "thesis", "season", needed=True)
    if season is not None and not _NAME.match(season):
        check.bad("thesis", "season", "season: letters, digits, _ . - (<= 64)")
        season = None
    start = check.day(data, "thesis", "start")
    roll = data.get("roll", False)
    if not isinstance(roll, bool):
        check.bad("thesis", "roll", "roll is true or false")
        roll = False
    end = check.day(data, "thesis", "end") if "end" in data or not roll else None
    days = (end - start).days if start is not None and end is not None else None
    if roll and days is not None and days < 1:
        check.bad("thesis", "end", "end must be after start")
        end = None
    elif not roll and days is not None and not 1 <= days <= _THESIS_DAYS:
        check.bad("thesis", "end", f"end is 1 to {_THESIS_DAYS} days after start (a season)")
        end = None
    paths = {k: check.path_of(data, "thesis", k) for k in ("crypto", "stocks", "stocks_hourly")}
    bases = {k: check.text(data, "thesis", k, needed=False) for k in ("api_base", "yahoo_base")}
    for key, base in bases.items():
        if base is not None and not re.match(r"^https?://[^\s/]+", base):
            check.bad("thesis", key, f"{key} is an http(s) URL, e.g. https://api.binance.com")
    agents = check.agents(data, "thesis", divisions=False, extra=frozenset({"join"}))
    joins: list[tuple[str, int]] = []
    rows = data.get("agents")
    for index, row in enumerate(rows[:1000] if isinstance(rows, list) else []):
        if not isinstance(row, dict) or "join" not in row:
            continue
        join = row["join"]
        where = f"thesis.agents[{index}]"
        if not isinstance(join, int) or isinstance(join, bool) or not 0 <= join < _THESIS_DAYS:
            check.bad(where, "join", f"join is the cycle an agent enters, 0 to {_THESIS_DAYS - 1}")
        elif isinstance(row.get("name"), str):
            joins.append((row["name"].strip(), join))
    if season is None or start is None or (end is None and not roll) or not agents:
        return None
    return ThesisConfig(
        season=season, start=start, end=end, agents=agents, joins=tuple(joins), roll=roll,
        crypto=paths["crypto"], stocks=paths["stocks"], stocks_hourly=paths["stocks_hourly"],
        api_base=bases["api_base"], yahoo_base=bases["yahoo_base"],
    )  # fmt: skip


def _heads(check: _Check, league: Mapping[str, Any]) -> tuple[Path | None, Path | None]:
    """Return ``head_key`` (an existing file) and ``head_out`` (in an existing folder)."""
    key = check.path_of(league, "league", "head_key")
    text = check.text(league, "league", "head_out", needed=False)
    out = None
    if text is not None:
        out = Path(text).expanduser()
        out = (out if out.is_absolute() else check.path.parent / out).resolve()
        if not out.parent.is_dir():
            check.bad("league", "head_out", f"head_out {text!r} is not in an existing folder")
        elif out.is_dir():
            check.bad("league", "head_out", f"head_out {text!r} is a folder: name a file in it")
    if (key is None) != (out is None):
        given, missing = ("head_out", "head_key") if key is None else ("head_key", "head_out")
        check.bad("league", given, f"{given} needs {missing} beside it")
    return key, out


def parse_league(text: str, path: Path) -> LeagueConfig:
    """Check the league file's ``text`` (read from ``path``) and return it.

    Raises
    ------
    ConfigError
        Naming every mistake with its line.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not TOML: {exc}") from None
    check = _Check(path, _Lines(text))
    check.table(data, "", {"league", "weights", "direction", "thesis", "providers"})
    league = data.get("league", {})
    if not isinstance(league, dict):
        check.bad("league", None, "[league] must be a table")
        league = {}
    check.table(league, "league", {"db", "db_env", "http", "head_key", "head_out"})
    db = check.text(league, "league", "db", needed=False)
    db_env = check.text(league, "league", "db_env", needed=False)
    if db is not None and db_env is not None:
        check.bad("league", "db_env", "give db or db_env, not both")
    if db is None and db_env is not None:
        db = os.environ.get(db_env) or None
    if db is not None and db.startswith("sqlite:///") and not db.startswith("sqlite:////"):
        relative = db.removeprefix("sqlite:///")
        if relative and relative != ":memory:":
            db = f"sqlite:///{(path.parent / relative).resolve()}"
    http = check.text(league, "league", "http", needed=False)
    if http is not None and not re.match(r"^[A-Za-z0-9.\-:\[\]]+:\d{1,5}$", http):
        check.bad("league", "http", "http is HOST:PORT, e.g. 127.0.0.1:9108")
    head_key, head_out = _heads(check, league)
    providers: dict[str, str] = {}
    table = data.get("providers", {})
    if not isinstance(table, dict):
        check.bad("providers", None, "[providers] must hold tables")
        table = {}
    for name, entry in table.items():
        where = f"providers.{name}"
        if not isinstance(entry, dict):
            check.bad("providers", name, f"[{where}] must be a table")
            continue
        check.table(entry, where, {"key_env"})
        key_env = check.text(entry, where, "key_env", needed=True)
        if key_env is not None:
            providers[name] = key_env
    weights = _weights(check, data["weights"]) if "weights" in data else None
    direction = _direction(check, data["direction"]) if "direction" in data else None
    thesis = _thesis(check, data["thesis"]) if "thesis" in data else None
    if not {"weights", "direction", "thesis"} & set(data):
        check.bad("", None, "the league runs no format: add [weights], [direction] or [thesis]")
    check.raise_any()
    return LeagueConfig(
        path=path, db=db, db_env=db_env, http=http, head_key=head_key, head_out=head_out,
        weights=weights, direction=direction, thesis=thesis, providers=providers,
    )  # fmt: skip


def load_league(path: Path) -> LeagueConfig:
    """Read and check the league file at ``path`` (see `parse_league`).

    Raises
    ------
    ConfigError
        If the file cannot be read, is too large, or holds any mistake.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read the league file {path}: {exc.strerror}") from None
    if len(raw) > _MAX_BYTES:
        raise ConfigError(f"{path} is larger than {_MAX_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8 text") from None
    return parse_league(text, path.resolve())
