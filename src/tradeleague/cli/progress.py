"""Round progress for the replays: a bar with ETA on a terminal, one plain line a round elsewhere.

The counts beside the bar (decisions, no decisions, skipped turns) are read
from the events the round just recorded, so every format shows the same
counts without its round loop knowing about the console.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from tradeleague.events import EventKind
from tradeleague.store import Store

__all__ = ["RoundProgress", "round_progress"]

_COUNTED = {
    EventKind.DECISION_MADE: "decisions",
    EventKind.NO_DECISION_MADE: "no decision",
    EventKind.TURN_SKIPPED: "skipped",
}


@dataclass(slots=True)
class RoundProgress:
    """Reports each finished round; call ``tick(done, total, label)`` after each."""

    console: Console
    store: Store
    stream: str | None
    cursor: int
    progress: Progress | None = None
    task: TaskID | None = None
    totals: Counter[str] = field(default_factory=Counter)

    def _counts(self) -> Counter[str]:
        counts: Counter[str] = Counter()
        for stored in self.store.events(self.stream, after_seq=self.cursor):
            self.cursor = max(self.cursor, stored.seq)
            name = _COUNTED.get(stored.event.kind)  # type: ignore[call-overload]
            if name is not None:
                counts[name] += 1
        return counts

    def tick(self, done: int, total: int, label: str) -> None:
        """Report that ``done`` of ``total`` rounds are over, the last being ``label``."""
        counts = self._counts()
        self.totals.update(counts)
        text = ", ".join(f"{name} {counts[name]}" for name in _COUNTED.values())
        if self.progress is not None and self.task is not None:
            self.progress.update(
                self.task, completed=done, total=total, description=f"{label}  {text}"
            )
        else:
            self.console.print(f"round {done}/{total} {label}: {text}", highlight=False)
            self.console.file.flush()


@contextmanager
def round_progress(console: Console, store: Store, stream: str | None) -> Iterator[RoundProgress]:
    """Yield a ``RoundProgress`` over ``stream``'s new events (``None``: every stream).

    On a terminal it draws a bar with the elapsed time and an ETA; piped or
    redirected, it prints one plain line per round, flushed at once.
    """
    head = store.head().seq
    if not console.is_terminal:
        yield RoundProgress(console, store, stream, head)
        return
    progress = Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )
    with progress:
        task = progress.add_task("starting", total=None)
        yield RoundProgress(console, store, stream, head, progress, task)
