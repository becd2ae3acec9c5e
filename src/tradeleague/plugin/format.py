"""What a format names in one place: its key, title, commands, league-file table, pages and parts.

The object is cheap to import: every part that needs the format's code (its host
driver, its site, its sweep cell, its MCP tools) is named as ``"module:attribute"``
and imported the first time a shared layer asks for it, so listing the formats
(``tradeleague formats``, the root's ``--help``) loads no format's engine.

Each part's shape is a protocol owned by the layer that uses it:
``host.plugin.HostPart`` (league-file table, driver, status, report, boards, feed faults),
``web.plugin.SitePart`` (read models, JSON routes, pages, methodology, changelog),
``sweep.plugin.SweepPart`` (a grid cell and its row of the merged board),
``cli.plugin.DemoPart``, ``NullPart`` and ``ProjectionsPart`` (``tradeleague
demo``, ``stats null``, the read models ``verify`` rebuilds); the format's
package implements them.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Command", "Format", "PartMissing"]

_KEY = re.compile(r"[a-z][a-z0-9_-]{0,31}")
_TARGET = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")


class PartMissing(LookupError):
    """A shared layer asked a format for a part it does not have."""


@dataclass(frozen=True)
class Command:
    """A command a format adds: the first paragraph of its help, and the module that adds it.

    The module has ``register(app)`` for a top-level command, or
    ``register_replay(app)`` for the format's ``tradeleague replay KEY``.
    """

    summary: str
    module: str


@dataclass(frozen=True, kw_only=True)
class Format:
    """One competition format, as the shared layers see it.

    Parameters
    ----------
    key
        The format's name on the command line, in URLs and in REPORT.json
        (lower case; unique among installed formats).
    title, summary
        What the site and ``tradeleague formats`` call it, and one sentence on it.
    table
        The league file's table the format reads (``[weights]``), or None when
        the host does not play it.
    replay
        ``tradeleague replay KEY``, or None when the format has no replay.
    commands
        The top-level commands the format adds (``tradeleague weights ...``).
    pages
        The site paths the format serves, its board first (for the navigation
        and the listing).
    parts
        Each part's ``"module:attribute"``: ``host``, ``site``, ``sweep``, ``mcp``,
        ``demo``, ``null``, ``projections``, ``bundle``.
    order
        Where the format sits in listings (lower first; ties by key).
    """

    key: str
    title: str
    summary: str
    table: str | None = None
    replay: Command | None = None
    commands: Mapping[str, Command] = field(default_factory=dict)
    pages: tuple[str, ...] = ()
    parts: Mapping[str, str] = field(default_factory=dict)
    order: int = 100

    def __post_init__(self) -> None:
        if not _KEY.fullmatch(self.key):
            raise ValueError(f"a format's key must be 1-32 of a-z, 0-9, '_' or '-': {self.key!r}")
        for name, target in self.parts.items():
            if not _TARGET.fullmatch(target):
                raise ValueError(f"format {self.key!r}: part {name!r} is not 'module:attribute'")

    def has(self, name: str) -> bool:
        """Return whether the format names part ``name``."""
        return name in self.parts

    def part(self, name: str) -> Any:
        """Import and return part ``name`` (``host``, ``site``, ...).

        Raises
        ------
        PartMissing
            The format has no such part.
        """
        target = self.parts.get(name)
        if target is None:
            raise PartMissing(f"format {self.key!r} has no {name} part")
        module, _, attribute = target.partition(":")
        return getattr(importlib.import_module(module), attribute)

    def describe(self) -> dict[str, Any]:
        """Return what ``tradeleague formats --json`` prints for the format."""
        commands = {name: c.summary for name, c in sorted(self.commands.items())}
        return {
            "key": self.key,
            "title": self.title,
            "summary": self.summary,
            "replay": f"tradeleague replay {self.key}" if self.replay is not None else None,
            "commands": [f"tradeleague {name}" for name in commands],
            "league_file_table": f"[{self.table}]" if self.table is not None else None,
            "pages": list(self.pages),
            "parts": sorted(self.parts),
        }
