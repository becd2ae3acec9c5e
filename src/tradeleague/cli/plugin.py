"""The parts the CLI asks a format for, as protocols the format's package implements.

The CLI never imports a format's package: ``tradeleague demo``, ``stats null``
and ``verify`` loop over the installed formats (`tradeleague.plugin.formats`)
and ask each for the part they need (`Format.part`):

- ``demo``: `DemoPart`, the format's share of ``tradeleague demo``;
- ``null``: `NullPart`, the no-skill null ``tradeleague stats null`` prints;
- ``projections``: `ProjectionsPart`, which registers the format's read models
  with the store so that ``verify`` and ``db refresh`` rebuild them.

A format implements them structurally: it never imports this module (the CLI
is the top of the tree); the values they take and return are kits below both
(`tradeleague.terminal.demo.DemoOptions`, the store, Rich's console).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rich.console import Console

    from tradeleague.stats.null import Ints, NullKind
    from tradeleague.store import Store
    from tradeleague.terminal.demo import DemoOptions

__all__ = ["DemoPart", "DemoPlay", "NullPart", "NullRun", "ProjectionsPart"]


class DemoPlay(Protocol):
    """A format's demo, checked and ready to play into the demo's store."""

    def play(self, store: Store, console: Console) -> Sequence[str]:
        """Replay into ``store``, print the board; return what ``serve`` needs to show it.

        The returned options are added to the ``tradeleague serve`` line the
        demo prints (e.g. ``("--direction-stream", STREAM)``); most formats
        return none.
        """
        ...


class DemoPart(Protocol):
    """A format's share of ``tradeleague demo``: checked first, played in registry order."""

    def prepare(self, options: DemoOptions, console: Console) -> DemoPlay:
        """Check ``options`` and load the format's data; nothing is written yet.

        Raises
        ------
        ConfigError
            A bad option or data, in one sentence.
        """
        ...


class NullRun(Protocol):
    """No-skill agents' final values, the rounds they played and the cash they started with."""

    @property
    def values(self) -> Ints:
        """Each agent's final value, micro-units, in the order they were drawn."""
        ...

    @property
    def rounds(self) -> int:
        """The rounds the agents played."""
        ...

    @property
    def start_cash(self) -> int:
        """Each agent's starting cash, micro-units."""
        ...


class NullPart(Protocol):
    """A format's no-skill null: N agents through its real validation and fill rules."""

    def simulate(
        self,
        *,
        market: Path,
        symbols: list[str] | None,
        start: date,
        end: date,
        agents: int,
        kind: NullKind,
        seed: int,
        division: str,
    ) -> NullRun:
        """Simulate ``agents`` no-skill agents over the bars in ``market``, ``start`` to ``end``.

        Raises
        ------
        ConfigError
            A bad option (e.g. an unknown ``division``) or unreadable bars.
        """
        ...


class ProjectionsPart(Protocol):
    """Registers the format's read models with the store (idempotent)."""

    def __call__(self) -> None:
        """Register every projection the format keeps."""
        ...
