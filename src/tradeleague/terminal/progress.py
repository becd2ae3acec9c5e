"""Round progress for the replays: a bar with ETA on a terminal, one plain line a round elsewhere.

The counts beside the bar (decisions, no decisions, skipped turns) are read
from the events the round just recorded (``league.answers.turn_ends``), so
every format shows the same counts without its round loop knowing about the
console. ``say_resuming`` is the line every replay prints when it takes up a
season that already holds rounds.
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

from tradeleague.league.answers import DECISION, NO_DECISION, SKIPPED, turn_ends
from tradeleague.store import Store

__all__ = ["RoundProgress", "round_progress", "say_resuming"]

_COUNTED = (DECISION, NO_DECISION, SKIPPED)


@dataclass(slots=True)
class RoundProgress:
    """Reports each finished round; call ``tick(done, total, label)`` after each.

    ``unit`` names a round in the plain lines (the thesis league's ``cycle``).
    """

    console: Console
    store: Store
    stream: str | None
    cursor: int
    progress: Progress | None = None
    task: TaskID | None = None
    totals: Counter[str] = field(default_factory=Counter)
    unit: str = "round"

    def _counts(self) -> Counter[str]:
        stored = list(self.store.events(self.stream, after_seq=self.cursor))
        self.cursor = max([self.cursor, *(s.seq for s in stored)])
        return Counter(end.ending for end in turn_ends(s.event for s in stored))

    def tick(self, done: int, total: int, label: str) -> None:
        """Report that ``done`` of ``total`` rounds are over, the last being ``label``."""
        counts = self._counts()
        self.totals.update(counts)
        text = ", ".join(f"{name} {counts[name]}" for name in _COUNTED)
        if self.progress is not None and self.task is not None:
            self.progress.update(
                self.task, completed=done, total=total, description=f"{label}  {text}"
            )
        else:
            self.console.print(f"{self.unit} {done}/{total} {label}: {text}", highlight=False)
            self.console.file.flush()


def say_resuming(
    console: Console, done: int, total: int, where: str, *, unit: str = "round"
) -> None:
    """Print "resuming from round N of M (K already recorded in WHERE)" when ``done`` > 0.

    ``where`` names the record taken up, e.g. ``season S1`` or ``stream direction``;
    when every round is recorded already, it says so instead.
    """
    if done >= total > 0:
        console.print(f"all {total} {unit}s are already recorded in {where}", highlight=False)
    elif done:
        console.print(
            f"resuming from {unit} {done + 1} of {total} ({done} already recorded in {where})",
            highlight=False,
        )


@contextmanager
def round_progress(
    console: Console, store: Store, stream: str | None, *, unit: str = "round"
) -> Iterator[RoundProgress]:
    """Yield a ``RoundProgress`` over ``stream``'s new events (``None``: every stream).

    On a terminal it draws a bar with the elapsed time and an ETA; piped or
    redirected, it prints one plain line per round (``unit N/M LABEL: counts``),
    flushed at once.
    """
    head = store.head().seq
    if not console.is_terminal:
        yield RoundProgress(console, store, stream, head, unit=unit)
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
        yield RoundProgress(console, store, stream, head, progress, task, unit=unit)
