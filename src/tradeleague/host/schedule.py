"""The host's schedule: every format's slots in a span, merged in time order (pure; issue 12).

Each format's driver names its own slots (``Driver.slots``: the weights round
hours, the arena's round opens, the thesis cycles and close, each in its
format's package); the host plays them merged, a tie going to the format listed
first. ``start`` is inclusive and ``end`` exclusive for openings.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TypeVar

from tradeleague.host.plugin import Driver

__all__ = ["merged_slots"]

D = TypeVar("D", bound=Driver)


def merged_slots(drivers: Sequence[D], start: datetime, end: datetime) -> list[tuple[datetime, D]]:
    """Return every driver's slots in ``[start, end)`` with their driver, in time order."""
    order = {d.fmt: i for i, d in enumerate(drivers)}
    return sorted(
        ((s, d) for d in drivers for s in d.slots(start, end)),
        key=lambda pair: (pair[0], order[pair[1].fmt]),
    )
