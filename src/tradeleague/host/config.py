"""The league file: one TOML file that says everything a host needs (issue 12).

``load_league(path)`` reads and checks the whole file before anything touches
a database, and raises one ``ConfigError`` that names every mistake with its
line (unknown keys are mistakes). Paths resolve relative to the league file;
keys are never written in it, only the names of the environment variables
that hold them.

The host reads ``[league]``, ``[providers]`` and ``[limits]`` (``serve`` reads
it); every other table is a
format's (``Format.table``, of the installed formats), parsed into the format's
config model by its ``host`` part (``host.plugin.HostPart.parse``) with the
same checking kit (``host.leaguefile``), so one error names every mistake of the
file. A table no installed format reads is an unknown key of the top level.

The host's tables::

    [league]     db, db_env, http, head_key, head_out, prices, models
    [providers.NAME]      key_env (documentation of where each key comes from)
    [limits]     anonymous_writes, window_s (writes without an account per client
                 address, per window; ``accounts.anonymous``)
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from tradeleague.accounts.anonymous import WriteLimit
from tradeleague.agents.cutoff import read_models
from tradeleague.errors import ConfigError
from tradeleague.host.leaguefile import Check, HostAgent, Lines, toml_day, toml_moment
from tradeleague.llm.token_prices import PriceTable
from tradeleague.plugin import Format, formats

__all__ = [
    "HostAgent",
    "LeagueConfig",
    "hosted_formats",
    "load_league",
    "parse_league",
    "toml_day",
    "toml_moment",
]

_MAX_BYTES = 1_000_000
_HOST_TABLES = ("league", "providers", "limits")

T = TypeVar("T")


def hosted_formats() -> tuple[Format, ...]:
    """Return the installed formats the host plays (those with a league-file table)."""
    return tuple(f for f in formats() if f.table is not None)


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
    formats: Mapping[str, object] = field(default_factory=dict)
    """Each format's config model (its ``HostPart.parse``), by format key, in listing order."""
    providers: Mapping[str, str] = field(default_factory=dict)
    prices: PriceTable | None = None
    """The price table ``prices`` names (``llm.token_prices``): each report's costs use it."""
    limits: WriteLimit = field(default_factory=WriteLimit)
    """``[limits]``: the writes without an account ``serve`` allows a client address."""

    def of(self, kind: type[T]) -> T | None:
        """Return the format config of type ``kind`` the file holds, if any."""
        return next((c for c in self.formats.values() if isinstance(c, kind)), None)

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


def _heads(check: Check, league: Mapping[str, Any]) -> tuple[Path | None, Path | None]:
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


def _prices(check: Check, league: Mapping[str, Any]) -> PriceTable | None:
    """Return the price table ``prices`` names (a TOML file beside the league file, or a path)."""
    path = check.path_of(league, "league", "prices")
    if path is None or not path.is_file():  # a missing file is noted by path_of
        return None
    try:
        return PriceTable.from_file(path)
    except ConfigError as exc:
        check.bad("league", "prices", str(exc))
        return None


def _models(check: Check, league: Mapping[str, Any]) -> dict[str, str]:
    """Return the training cutoffs ``models`` names (a models file, ``agents.cutoff``)."""
    path = check.path_of(league, "league", "models")
    if path is None or not path.is_file():  # a missing file is noted by path_of
        return {}
    try:
        return read_models(path)
    except ConfigError as exc:
        check.bad("league", "models", str(exc))
        return {}


def _limits(check: Check, data: Mapping[str, Any]) -> WriteLimit:
    """Return ``[limits]`` (``anonymous_writes`` per ``window_s`` seconds), or the defaults."""
    table = data.get("limits", {})
    if not isinstance(table, dict):
        check.bad("limits", None, "[limits] must be a table")
        return WriteLimit()
    try:
        return WriteLimit.from_table(table)
    except ConfigError as exc:
        check.bad("limits", None, str(exc))
        return WriteLimit()


def _either(tables: Sequence[str]) -> str:
    """Return ``[a], [b] or [c]``."""
    names = [f"[{t}]" for t in tables]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _providers(check: Check, data: Mapping[str, Any]) -> dict[str, str]:
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
    return providers


def _formats(check: Check, data: Mapping[str, Any]) -> dict[str, object]:
    """Return each installed format's config, parsed by its host part, for the tables present."""
    hosted = hosted_formats()
    configs: dict[str, object] = {}
    for fmt in hosted:
        if fmt.table is not None and fmt.table in data:
            config = fmt.part("host").parse(data[fmt.table], check)
            if config is not None:
                configs[fmt.key] = config
    tables = [f.table for f in hosted if f.table is not None]
    if not set(tables) & set(data):
        check.bad("", None, f"the league runs no format: add {_either(tables or ['a format'])}")
    return configs


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
    check = Check(path, Lines(text))
    tables = {f.table for f in hosted_formats() if f.table is not None}
    check.table(data, "", {*_HOST_TABLES, *tables})
    league = data.get("league", {})
    if not isinstance(league, dict):
        check.bad("league", None, "[league] must be a table")
        league = {}
    check.table(
        league, "league", {"db", "db_env", "http", "head_key", "head_out", "prices", "models"}
    )
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
    prices = _prices(check, league)
    check.models = _models(check, league)
    providers = _providers(check, data)
    limits = _limits(check, data)
    configs = _formats(check, data)
    check.raise_any()
    return LeagueConfig(
        path=path, db=db, db_env=db_env, http=http, head_key=head_key, head_out=head_out,
        formats=configs, providers=providers, prices=prices, limits=limits,
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
