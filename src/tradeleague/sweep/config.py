"""The sweep file: a grid of replays (formats x seasons x rosters x seeds) in one TOML file.

``load_sweep(path)`` reads and checks the whole file before anything is
written or started, and raises one ``ConfigError`` sentence for the first
mistake (an unknown key is a mistake). Paths resolve relative to the file.

The tables::

    seeds = [0, 1]                     # base seeds of the seeded baselines (default [0])
    [windows]                          LABEL = ["season", ...]  (optional: e.g. in, out)
    [weights.seasons.NAME]             market, start, end, symbols, division
    [weights.rosters]                  NAME = ["agent=spec", ...]
    [direction.seasons.NAME]           market, start, end, payout
    [direction.rosters]                NAME = ["agent=spec", ...]
    [thesis.seasons.NAME]              crypto, stocks, stocks_hourly, start, end
    [thesis.rosters]                   NAME = ["agent=spec", ...]

Any season table may also say ``mask = true``: its cells are masked replays
(``--mask``: pseudonymous symbols, day numbers, scaled prices).

Each format's grid is its seasons x its rosters x the seeds; the cells of all
formats make the sweep. Each cell is the format's own replay command
(``tradeleague replay weights``, ``replay direction``, ``replay thesis``) with these options,
so a cell run alone gives the very same report.

``[windows]`` labels periods for ``tradeleague rating --by window`` (the alpha
decay between them, `tradeleague.stats.decay`): each label lists season names
of the tables above; a season is in at most one window.

The formats are the installed ones with a ``sweep`` part
(`tradeleague.sweep.plugin.SweepPart`), in the registry's order: each part
reads its season tables and checks its rosters; this module reads the rest.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tradeleague.errors import ConfigError
from tradeleague.plugin import formats
from tradeleague.sweep.plugin import SeasonTable, SweepPart

__all__ = ["MAX_CELLS", "Cell", "Sweep", "load_sweep", "parse_sweep", "sweep_parts"]

MAX_BYTES = 256 * 1024
MAX_CELLS = 1000
MAX_SEEDS = 100
MAX_TABLE = 100  # seasons or rosters of one format
MAX_AGENTS = 1000  # agents in one roster
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


def sweep_parts() -> dict[str, SweepPart]:
    """Return the sweep part of every installed format that has one, by key, in registry order."""
    return {fmt.key: fmt.part("sweep") for fmt in formats() if fmt.has("sweep")}


@dataclass(frozen=True, slots=True)
class Cell:
    """One replay of the grid: its key and the replay command's options (no --db, --out)."""

    format: str
    season: str
    roster: str
    seed: int
    options: tuple[str, ...]

    @property
    def args(self) -> tuple[str, ...]:
        """The replay command line without --db and --out: ``replay FORMAT OPTIONS...``."""
        return ("replay", self.format, *self.options)

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

    def replay_argv(self, folder: Path) -> list[str]:
        """Return the replay command's options, recording into ``folder``."""
        return [*self.options, "--db", f"sqlite:///{folder / 'store.db'}",
                "--out", str(folder / "REPORT.json")]  # fmt: skip

    def command(self, folder: Path) -> list[str]:
        """Return the whole replay command line (``tradeleague`` left out), into ``folder``."""
        return ["replay", self.format, *self.replay_argv(folder)]


@dataclass(frozen=True, slots=True)
class Sweep:
    """A checked sweep file: its path, its cells in grid order, its windows (label: seasons)."""

    path: Path
    cells: tuple[Cell, ...]
    windows: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


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
    parts = sweep_parts()
    _keys(data, "the top level", ("seeds", "windows", *parts), path)
    seeds = _seeds(data.get("seeds", [0]), path)
    cells: list[Cell] = []
    for fmt, part in parts.items():
        if fmt not in data:
            continue
        table = _table(data[fmt], f"[{fmt}]", path)
        _keys(table, f"[{fmt}]", ("seasons", "rosters"), path)
        seasons = _named(table.get("seasons"), f"[{fmt}.seasons]", path)
        rosters = _named(table.get("rosters"), f"[{fmt}.rosters]", path)
        season_args = {
            name: _season(fmt, part, name, _table(body, f"[{fmt}.seasons.{name}]", path), path)
            for name, body in seasons.items()
        }
        roster_args = {name: _roster(fmt, part, name, body, path) for name, body in rosters.items()}
        if len(cells) + len(seasons) * len(rosters) * len(seeds) > MAX_CELLS:
            raise ConfigError(
                f"{path}: the grid holds more than {MAX_CELLS} cells; split the sweep"
            )
        for season, options in season_args.items():
            for roster, agents in roster_args.items():
                for seed in seeds:
                    cell_options = (*options, *agents, "--seed", str(seed))
                    cells.append(Cell(fmt, season, roster, seed, cell_options))
    if not cells:
        raise ConfigError(
            f"{path} names no replay: give a {_either(parts)} table with "
            "seasons and rosters (see examples/sweep.toml)"
        )
    windows = _windows(data.get("windows", {}), {c.season for c in cells}, path)
    return Sweep(path=path, cells=tuple(cells), windows=windows)


def _windows(value: object, seasons: set[str], path: Path) -> dict[str, tuple[str, ...]]:
    """Return ``[windows]``: each label's seasons, in the file's order, each season once."""
    table = _table(value, "[windows]", path)
    if len(table) > MAX_TABLE:
        raise ConfigError(f"{path}: [windows] names at most {MAX_TABLE} windows")
    windows: dict[str, tuple[str, ...]] = {}
    seen: set[str] = set()
    for label, names in table.items():
        if not _NAME.match(label):
            raise ConfigError(
                f"{path}: window {label!r} in [windows] must be 1 to 40 letters, digits, - or _"
            )
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            raise ConfigError(
                f'{path}: window {label!r} must list season names, e.g. {label} = ["june-2025"]'
            )
        for name in names:
            if name not in seasons:
                raise ConfigError(
                    f"{path}: window {label!r} names season {name!r}, which no table holds"
                )
            if name in seen:
                raise ConfigError(f"{path}: season {name!r} is in two windows")
            seen.add(name)
        windows[label] = tuple(names)
    return windows


def _either(keys: Mapping[str, object]) -> str:
    """Return ``[a], [b] or [c]`` for the tables a sweep file may hold."""
    tables = [f"[{key}]" for key in keys]
    if len(tables) < 2:
        return "".join(tables) or "format's"
    return ", ".join(tables[:-1]) + " or " + tables[-1]


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


def _season(
    fmt: str, part: SweepPart, name: str, table: Mapping[str, Any], path: Path
) -> list[str]:
    where = f"[{fmt}.seasons.{name}]"
    _keys(table, where, (*part.season_keys, "mask"), path)
    table, masked = _mask(table, where, path)
    return [*part.season_options(SeasonTable(table, where, path)), *masked]


def _mask(table: Mapping[str, Any], where: str, path: Path) -> tuple[dict[str, Any], list[str]]:
    """Return a season table without its ``mask`` key, and ``["--mask"]`` when it is true."""
    mask = table.get("mask", False)
    if not isinstance(mask, bool):
        raise ConfigError(f"{path}: mask in {where} must be true or false")
    return {k: v for k, v in table.items() if k != "mask"}, ["--mask"] if mask else []


def _roster(fmt: str, part: SweepPart, name: str, value: object, path: Path) -> list[str]:
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
        part.check_roster(specs)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {where}: {exc}") from None
    return [arg for spec in specs for arg in ("--agent", spec)]
