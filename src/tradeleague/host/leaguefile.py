"""The league file's checking kit: where each key is written, and every mistake with its line.

``tomllib`` keeps no line numbers, so `Lines` scans the text for where each
table and key is written, and `Check` collects every mistake with its line and
raises them together as one ``ConfigError``. The host checks ``[league]`` and
``[providers]`` with it; each format's config model (its ``HostPart.parse``)
checks its own table with the same `Check`, so every mistake of the whole file
is named at once, whichever table it is in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from tradeleague.errors import ConfigError

__all__ = ["NAME", "Check", "HostAgent", "Lines", "toml_day", "toml_moment"]

NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
"""A season's or an agent's name: letters, digits, ``_ . -``, 64 at most."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HostAgent:
    """One roster entry: its name and its agent spec (as in replays)."""

    name: str
    spec: str


class Lines:
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
        """Return the line of ``key`` in ``table`` (or of the table itself; 1 if unknown)."""
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


class Check:
    """Collects every mistake of a league file with its line; raises them together.

    Each reader returns the value (``None`` when missing or wrong) and notes a
    mistake; a config model reads all its keys, then returns ``None`` if it
    cannot be built, and `raise_any` names every mistake at once.
    """

    def __init__(self, path: Path, lines: Lines) -> None:
        self.path = path
        self.lines = lines
        self.mistakes: list[tuple[int, str]] = []
        self.models: Mapping[str, str] = {}
        """The league's models file (``[league] models``): cutoffs written into agents' specs."""

    def bad(self, table: str, key: str | None, message: str) -> None:
        """Note a mistake at ``key`` of ``table`` (at the table's header when ``key`` is None)."""
        self.mistakes.append((self.lines.of(table, key), message))

    def table(self, data: Mapping[str, Any], name: str, allowed: set[str]) -> dict[str, Any]:
        """Note every key of ``data`` not in ``allowed`` as unknown; return ``data``."""
        for key in data:
            if key not in allowed:
                where = f"[{name}]" if name else "the top level"
                self.bad(name, key, f"unknown key {key!r} in {where}")
        return dict(data)

    def is_table(self, data: object, name: str) -> dict[str, Any] | None:
        """Return ``data`` if it is a table; else note ``[name] must be a table``."""
        if not isinstance(data, dict):
            self.bad(name, None, f"[{name}] must be a table")
            return None
        return data

    def text(self, data: Mapping[str, Any], table: str, key: str, *, needed: bool) -> str | None:
        """Return ``key`` as non-empty text (stripped), or ``None`` (noted when ``needed``)."""
        value = data.get(key)
        if value is None:
            if needed:
                self.bad(table, None, f"[{table}] needs {key}")
            return None
        if not isinstance(value, str) or not value.strip() or len(value) > 2000:
            self.bad(table, key, f"{key} must be a non-empty string")
            return None
        return value.strip()

    def name(self, data: Mapping[str, Any], table: str, key: str) -> str | None:
        """Return the needed name ``key`` (a season's): letters, digits, ``_ . -`` (<= 64)."""
        value = self.text(data, table, key, needed=True)
        if value is not None and not NAME.match(value):
            self.bad(table, key, f"{key}: letters, digits, _ . - (<= 64)")
            return None
        return value

    def flag(self, data: Mapping[str, Any], table: str, key: str) -> bool:
        """Return ``key`` as true or false (false when missing or wrong)."""
        value = data.get(key, False)
        if not isinstance(value, bool):
            self.bad(table, key, f"{key} is true or false")
            return False
        return value

    def path_of(self, data: Mapping[str, Any], table: str, key: str) -> Path | None:
        """Return ``key`` as a path relative to the file, resolved (noted if it does not exist)."""
        value = self.text(data, table, key, needed=False)
        if value is None:
            return None
        path = Path(value).expanduser()
        path = path if path.is_absolute() else (self.path.parent / path)
        if not path.exists():
            self.bad(table, key, f"{key} {value!r} does not exist (paths are relative to the file)")
        return path.resolve()

    def day(self, data: Mapping[str, Any], table: str, key: str) -> date | None:
        """Return ``key`` as a day (noted when missing, a time, or not a day)."""
        value = data.get(key)
        if isinstance(value, datetime):
            self.bad(table, key, f"{key} is a day like 2025-09-02, not a time")
            return None
        day = toml_day(value)
        if day is None:
            self.bad(table, key, f"{key} must be a day like 2025-09-02")
        return day

    def moment(self, data: Mapping[str, Any], table: str, key: str) -> datetime | None:
        """Return ``key`` as a time in UTC, or ``None`` when missing (noted when wrong)."""
        value = data.get(key)
        if value is None:
            return None
        moment = toml_moment(value)
        if moment is None:
            self.bad(table, key, f"{key} must be a time like 2025-09-02T00:00:00Z")
        return moment

    def rows(self, data: Mapping[str, Any], table: str) -> list[tuple[str, dict[str, Any]]]:
        """Return ``[[table.agents]]`` as (where, row) pairs, the first 1000, tables only."""
        rows = data.get("agents")
        out: list[tuple[str, dict[str, Any]]] = []
        for index, row in enumerate(rows[:1000] if isinstance(rows, list) else []):
            if isinstance(row, dict):
                out.append((f"{table}.agents[{index}]", row))
        return out

    def agents(
        self, data: Mapping[str, Any], table: str, extra: frozenset[str] = frozenset()
    ) -> tuple[HostAgent, ...]:
        """Return the roster ``[[table.agents]]`` (``name``, ``spec`` and the ``extra`` keys).

        Each name is checked and used once; a format reads its ``extra`` keys
        from the same rows (`rows`).
        """
        rows = data.get("agents")
        if not isinstance(rows, list) or not rows:
            self.bad(table, "agents", f"[{table}] needs at least one [[{table}.agents]]")
            return ()
        out: list[HostAgent] = []
        allowed = {"name", "spec"} | extra
        for index, row in enumerate(rows[:1000]):
            where = f"{table}.agents[{index}]"
            if not isinstance(row, dict):
                self.bad(table, "agents", f"{table}.agents holds tables")
                continue
            self.table(row, where, allowed)
            name = self.text(row, where, "name", needed=True)
            spec = self.text(row, where, "spec", needed=True)
            if name is not None and not NAME.match(name):
                self.bad(where, "name", f"agent name {name!r}: letters, digits, _ . - (<= 64)")
                name = None
            if name is not None and spec is not None:
                if any(a.name == name for a in out):
                    self.bad(where, "name", f"agent name {name!r} is used twice")
                else:
                    out.append(HostAgent(name=name, spec=self._with_cutoff(name, spec)))
        return tuple(out)

    def _with_cutoff(self, name: str, spec: str) -> str:
        """Return ``spec`` with the model's training cutoff written in (`resolve_cutoffs`)."""
        from tradeleague.agents.cutoff import resolve_cutoffs

        named = resolve_cutoffs([f"{name}={spec}"], self.models)[0]
        return named.removeprefix(f"{name}=")

    def raise_any(self) -> None:
        """Raise one ``ConfigError`` naming every mistake with its line, if there is any."""
        if self.mistakes:
            listed = "; ".join(f"line {n}: {m}" for n, m in sorted(self.mistakes))
            raise ConfigError(f"{self.path}: {listed}")
