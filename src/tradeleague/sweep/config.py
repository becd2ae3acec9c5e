"""The sweep file: a grid of replays (formats x seasons x rosters x seeds) in one TOML file.

``load_sweep(path)`` reads and checks the whole file before anything is
written or started, and raises one ``ConfigError`` sentence for the first
mistake (an unknown key is a mistake). Paths resolve relative to the file.

The tables::

    seeds = [0, 1]                     # base seeds of the seeded baselines (default [0])
    [weights.seasons.NAME]             market, start, end, symbols, division
    [weights.rosters]                  NAME = ["agent=spec", ...]
    [direction.seasons.NAME]           market, start, end, payout
    [direction.rosters]                NAME = ["agent=spec", ...]
    [thesis.seasons.NAME]              crypto, stocks, stocks_hourly, start, end
    [thesis.rosters]                   NAME = ["agent=spec", ...]

Each format's grid is its seasons x its rosters x the seeds; the cells of all
formats make the sweep. Each cell is the format's own replay command
(``tradeleague replay weights``, ``replay direction``, ``replay thesis``) with these options,
so a cell run alone gives the very same report.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from tradeleague.errors import ConfigError
from tradeleague.host.config import toml_day, toml_moment

__all__ = ["FORMATS", "MAX_CELLS", "Cell", "Sweep", "load_sweep", "parse_sweep"]

FORMATS = ("weights", "direction", "thesis")
"""The formats a sweep replays (each has a ``tradeleague replay FORMAT``)."""

MAX_BYTES = 256 * 1024
MAX_CELLS = 1000
MAX_SEEDS = 100
MAX_TABLE = 100  # seasons or rosters of one format
MAX_AGENTS = 1000  # agents in one roster
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
_SEASON_KEYS = {
    "weights": ("market", "start", "end", "symbols", "division"),
    "direction": ("market", "start", "end", "payout"),
    "thesis": ("crypto", "stocks", "stocks_hourly", "start", "end"),
}


@dataclass(frozen=True, slots=True)
class Cell:
    """One replay of the grid: its key and the replay command's arguments (no --db, --out)."""

    format: str
    season: str
    roster: str
    seed: int
    args: tuple[str, ...]

    @property
    def key(self) -> dict[str, Any]:
        """The cell's key in the merged report: format, season, roster, seed."""
        return {"format": self.format, "season": self.season, "roster": self.roster,
                "seed": self.seed}  # fmt: skip

    @property
    def folder(self) -> Path:
        """The cell's folder under the sweep's --out (its store, report and log)."""
        return Path("cells", self.format, self.season, self.roster, f"seed-{self.seed}")

    @property
    def label(self) -> str:
        """The cell as a progress line names it."""
        return f"{self.format} {self.season} {self.roster} seed={self.seed}"

    def command(self, folder: Path) -> list[str]:
        """Return the whole replay command line, recording into ``folder``."""
        return [*self.args, "--db", f"sqlite:///{folder / 'store.db'}",
                "--out", str(folder / "REPORT.json")]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Sweep:
    """A checked sweep file: its path and its cells, in grid order."""

    path: Path
    cells: tuple[Cell, ...]


def load_sweep(path: Path) -> Sweep:
    """Read and check the sweep file at ``path``.

    Raises
    ------
    ConfigError
        For an unreadable or oversized file, malformed TOML, an unknown key, a
        bad value, a missing market folder or a grid over ``MAX_CELLS`` cells.
    """
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise ConfigError(f"{path} is {size:,} bytes: a sweep file holds at most {MAX_BYTES:,}")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the sweep file {path}: {exc}") from None
    return parse_sweep(text, path)


def parse_sweep(text: str, path: Path) -> Sweep:
    """Check the TOML ``text`` of a sweep file at ``path`` and return its cells."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None
    _keys(data, "the top level", ("seeds", *FORMATS), path)
    seeds = _seeds(data.get("seeds", [0]), path)
    cells: list[Cell] = []
    for fmt in FORMATS:
        if fmt not in data:
            continue
        table = _table(data[fmt], f"[{fmt}]", path)
        _keys(table, f"[{fmt}]", ("seasons", "rosters"), path)
        seasons = _named(table.get("seasons"), f"[{fmt}.seasons]", path)
        rosters = _named(table.get("rosters"), f"[{fmt}.rosters]", path)
        season_args = {
            name: _season(fmt, name, _table(body, f"[{fmt}.seasons.{name}]", path), path)
            for name, body in seasons.items()
        }
        roster_args = {name: _roster(fmt, name, body, path) for name, body in rosters.items()}
        if len(cells) + len(seasons) * len(rosters) * len(seeds) > MAX_CELLS:
            raise ConfigError(
                f"{path}: the grid holds more than {MAX_CELLS} cells; split the sweep"
            )
        for season, options in season_args.items():
            for roster, agents in roster_args.items():
                for seed in seeds:
                    args = ("replay", fmt, *options, *agents, "--seed", str(seed))
                    cells.append(Cell(fmt, season, roster, seed, args))
    if not cells:
        raise ConfigError(
            f"{path} names no replay: give a [weights], [direction] or [thesis] table with "
            "seasons and rosters (see examples/sweep.toml)"
        )
    return Sweep(path=path, cells=tuple(cells))


def _table(value: object, where: str, path: Path) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: {where} must be a table")
    return value


def _keys(table: Mapping[str, Any], where: str, allowed: tuple[str, ...], path: Path) -> None:
    for key in table:
        if key not in allowed:
            raise ConfigError(
                f"{path}: unknown key {key!r} in {where}; allowed: {', '.join(allowed)}"
            )


def _seeds(value: object, path: Path) -> list[int]:
    if not isinstance(value, list) or not value or len(value) > MAX_SEEDS:
        raise ConfigError(f"{path}: seeds must be a list of 1 to {MAX_SEEDS} whole numbers")
    for seed in value:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
            raise ConfigError(f"{path}: seed {seed!r} must be a whole number from 0 to 2147483647")
    if len(set(value)) != len(value):
        raise ConfigError(f"{path}: seeds {value} repeat a seed")
    return list(value)


def _named(value: object, where: str, path: Path) -> Mapping[str, Any]:
    if value is None:
        raise ConfigError(f"{path}: {where} is missing; give at least one")
    table = _table(value, where, path)
    if not table or len(table) > MAX_TABLE:
        raise ConfigError(f"{path}: {where} must name 1 to {MAX_TABLE} entries")
    for name in table:
        if not _NAME.match(name):
            raise ConfigError(
                f"{path}: name {name!r} in {where} must be 1 to 40 letters, digits, - or _"
            )
    return table


def _text(table: Mapping[str, Any], key: str, where: str, path: Path) -> str:
    value = table.get(key)
    if value is None:
        raise ConfigError(f"{path}: {where} needs {key}")
    if not isinstance(value, str) or not value.strip() or len(value) > 2000:
        raise ConfigError(f"{path}: {key} in {where} must be a non-empty string")
    return value.strip()


def _folder(table: Mapping[str, Any], key: str, where: str, path: Path) -> str:
    text = _text(table, key, where, path)
    folder = Path(text).expanduser()
    folder = folder if folder.is_absolute() else path.parent / folder
    if not folder.exists():
        raise ConfigError(
            f"{path}: {key} {text!r} in {where} does not exist (paths are relative to the file)"
        )
    return str(folder.resolve())


def _day(table: Mapping[str, Any], key: str, where: str, path: Path) -> date:
    day = toml_day(table.get(key))
    if day is None:
        raise ConfigError(f"{path}: {key} in {where} must be a day like 2025-06-02")
    return day


def _moment(table: Mapping[str, Any], key: str, where: str, path: Path) -> datetime:
    moment = toml_moment(table.get(key))
    if moment is None:
        raise ConfigError(f"{path}: {key} in {where} must be a time like 2025-09-01T06:00:00Z")
    return moment


def _season(fmt: str, name: str, table: Mapping[str, Any], path: Path) -> list[str]:
    where = f"[{fmt}.seasons.{name}]"
    _keys(table, where, _SEASON_KEYS[fmt], path)
    if fmt == "thesis":
        return _thesis_season(table, where, path)
    args = ["--market", _folder(table, "market", where, path)]
    if fmt == "weights":
        start, end = _day(table, "start", where, path), _day(table, "end", where, path)
        if end <= start:
            raise ConfigError(f"{path}: end {end} in {where} is not after start {start}")
        args += ["--start", start.isoformat(), "--end", end.isoformat()]
        if "symbols" in table:
            symbols = table["symbols"]
            if (
                not isinstance(symbols, list)
                or not 0 < len(symbols) <= 500
                or not all(isinstance(s, str) and _NAME.match(s) for s in symbols)
            ):
                raise ConfigError(
                    f'{path}: symbols in {where} must be a list of 1 to 500 symbols like "SPY"'
                )
            args += ["--symbols", ",".join(symbols)]
        division = table.get("division", "open")
        if division not in ("open", "pro"):
            raise ConfigError(f'{path}: division in {where} must be "open" or "pro"')
        args += ["--division", division]
    else:
        first, last = _moment(table, "start", where, path), _moment(table, "end", where, path)
        if last <= first:
            raise ConfigError(f"{path}: end in {where} is not after start")
        args += ["--start", _iso(first), "--end", _iso(last)]
        payout = table.get("payout", 80)
        if isinstance(payout, bool) or not isinstance(payout, int) or not 0 <= payout <= 1000:
            raise ConfigError(f"{path}: payout in {where} must be a whole percent from 0 to 1000")
        args += ["--payout", str(payout), "--stream", "direction"]
    return args


def _thesis_season(table: Mapping[str, Any], where: str, path: Path) -> list[str]:
    args = ["--crypto", _folder(table, "crypto", where, path),
            "--stocks", _folder(table, "stocks", where, path)]  # fmt: skip
    if "stocks_hourly" in table:
        args += ["--stocks-hourly", _folder(table, "stocks_hourly", where, path)]
    start, end = _day(table, "start", where, path), _day(table, "end", where, path)
    if end <= start:
        raise ConfigError(f"{path}: end {end} in {where} is not after start {start}")
    return [*args, "--start", start.isoformat(), "--end", end.isoformat()]


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def _roster(fmt: str, name: str, value: object, path: Path) -> list[str]:
    where = f"roster {name!r} of [{fmt}.rosters]"
    if (
        not isinstance(value, list)
        or not 0 < len(value) <= MAX_AGENTS
        or not all(isinstance(v, str) and "=" in v and len(v) <= 2000 for v in value)
    ):
        raise ConfigError(
            f"{path}: {where} must be a list of 1 to {MAX_AGENTS} agents written "
            '"name=spec", e.g. "cash=baseline:cash"'
        )
    specs = [spec.strip() for spec in value]
    try:
        _check_roster(fmt, specs)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {where}: {exc}") from None
    return [arg for spec in specs for arg in ("--agent", spec)]


def _check_roster(fmt: str, specs: list[str]) -> None:
    """Build the roster once with the replay's own check, calling nothing."""
    if fmt == "weights":
        from tradeleague.league.weights.replay_run import check_roster

        check_roster(specs)
    elif fmt == "thesis":
        from tradeleague.league.thesis.agents import build_roster
        from tradeleague.llm.replay import RecordedAnswers, ReplayGateway

        build_roster(specs, [], ReplayGateway(RecordedAnswers([])))
    else:
        from tradeleague.agents.spec import parse_agent_spec
        from tradeleague.league.direction.replay_run import check_roster as check_direction

        check_direction([parse_agent_spec(spec) for spec in specs])
