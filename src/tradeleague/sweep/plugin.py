"""What a sweep asks a format for (`SweepPart`), and the kit a format's sweep part is written with.

A sweep never imports a format's package nor compares a format's name: for
each installed format with a ``sweep`` part (`tradeleague.plugin.Format.part`)
it reads the sweep file's ``[KEY]`` table, asks the part for each season's
replay options and to check each roster, runs each cell through the part, and
reads each cell's REPORT.json back through it. A format implements the part in
its own package (``league/<format>/sweeping.py``); it may import this module,
which imports no format.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, Protocol

from tradeleague.errors import ConfigError
from tradeleague.host.leaguefile import toml_day, toml_moment

__all__ = ["BoardRow", "SeasonTable", "SweepPart", "iso_moment"]


@dataclass(frozen=True, slots=True)
class BoardRow:
    """One agent's row of a cell on the merged board: its rank, its return and one detail."""

    agent: object
    rank: object
    return_: object
    detail: str

    def fields(self) -> dict[str, Any]:
        """Return the row as the merged REPORT.json writes it (agent, rank, return, detail)."""
        return {"agent": self.agent, "rank": self.rank, "return": self.return_,
                "detail": self.detail}  # fmt: skip


@dataclass(frozen=True, slots=True)
class SeasonTable:
    """One ``[KEY.seasons.NAME]`` table of a sweep file, with the readers of its values.

    Every reader raises one ``ConfigError`` sentence that names the file and
    the table; paths resolve relative to the sweep file.
    """

    values: Mapping[str, Any]
    where: str
    path: Path

    def error(self, message: str) -> ConfigError:
        """Return the error ``message`` about this table, prefixed with the file's path."""
        return ConfigError(f"{self.path}: {message}")

    def __contains__(self, key: object) -> bool:
        return key in self.values

    def get(self, key: str, default: Any = None) -> Any:
        """Return the raw value of ``key``, or ``default``."""
        return self.values.get(key, default)

    def text(self, key: str) -> str:
        """Return the non-empty string at ``key``, stripped."""
        value = self.values.get(key)
        if value is None:
            raise self.error(f"{self.where} needs {key}")
        if not isinstance(value, str) or not value.strip() or len(value) > 2000:
            raise self.error(f"{key} in {self.where} must be a non-empty string")
        return value.strip()

    def folder(self, key: str) -> str:
        """Return the existing file or folder ``key`` names, resolved, as text."""
        text = self.text(key)
        folder = Path(text).expanduser()
        folder = folder if folder.is_absolute() else self.path.parent / folder
        if not folder.exists():
            raise self.error(
                f"{key} {text!r} in {self.where} does not exist (paths are relative to the file)"
            )
        return str(folder.resolve())

    def day(self, key: str) -> date:
        """Return the day at ``key`` (a TOML date or ``"2025-06-02"``)."""
        day = toml_day(self.values.get(key))
        if day is None:
            raise self.error(f"{key} in {self.where} must be a day like 2025-06-02")
        return day

    def moment(self, key: str) -> datetime:
        """Return the UTC time at ``key`` (a TOML time or ``"2025-09-01T06:00Z"``)."""
        moment = toml_moment(self.values.get(key))
        if moment is None:
            raise self.error(f"{key} in {self.where} must be a time like 2025-09-01T06:00:00Z")
        return moment

    def days(self) -> tuple[date, date]:
        """Return ``start`` and ``end`` as days, the end after the start."""
        start, end = self.day("start"), self.day("end")
        if end <= start:
            raise self.error(f"end {end} in {self.where} is not after start {start}")
        return start, end


def iso_moment(moment: datetime) -> str:
    """Return ``moment`` as a replay option writes it (``2025-09-01T06:00:00Z``)."""
    return moment.isoformat().replace("+00:00", "Z")


class SweepPart(Protocol):
    """A format's part of ``tradeleague sweep``: its cells, one cell's run, its board rows.

    A cell is the format's own ``tradeleague replay KEY`` with the options the
    part gives for a season, the roster's ``--agent``s, ``--seed``, and the
    cell's own ``--db`` and ``--out``; so a cell run alone gives the very same
    report.
    """

    @property
    def season_keys(self) -> tuple[str, ...]:
        """The keys a ``[KEY.seasons.NAME]`` table may hold (any other is refused)."""
        ...

    def season_options(self, season: SeasonTable) -> list[str]:
        """Return the replay command's options for one season table, checked.

        Not ``--agent``, ``--seed``, ``--db`` or ``--out``: the sweep adds those.

        Raises
        ------
        ConfigError
            A missing or bad value, in one sentence (`SeasonTable.error`).
        """
        ...

    def check_roster(self, specs: list[str]) -> None:
        """Build the roster ``specs`` (``name=spec`` each) once with the replay's check.

        Calls nothing; raises ``ConfigError`` for a bad spec, a duplicate name
        or an unknown baseline.
        """
        ...

    def replay(self, argv: Sequence[str]) -> int:
        """Run ``tradeleague replay KEY *argv`` in this process; return its exit status.

        What it prints goes to this process's stdout and stderr (the sweep sends
        them to the cell's log).

        Raises
        ------
        TradeleagueError
            The command's one-sentence error (a bad option included).
        """
        ...

    def figures(self, report: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Return the per-agent figures of a cell's REPORT.json, in the report's order.

        The figures are the report's own values (exact decimal strings, never
        recomputed); the merged REPORT.json carries them as they are.
        """
        ...

    def board_row(self, figures: Mapping[str, Any]) -> BoardRow:
        """Return the merged board's row of one agent's ``figures`` (from `figures`)."""
        ...
