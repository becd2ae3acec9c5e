"""Where a period lies against a model's training window: the rule, pure (``agents.cutoff``).

A cutoff is ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` and names the *last* day of
the training window (``2024-06`` is 30 June 2024). A period starting on or
before that day overlaps the window (``before_cutoff``: results may reflect
memory); one starting after it is ``after_cutoff``; no cutoff is
``cutoff_unknown``. The agents layer reads cutoffs from specs and models files
(`tradeleague.agents.cutoff`); a format's rules read recorded ones with this.
"""

from __future__ import annotations

import calendar
import enum
import re
from datetime import date
from typing import Any

from tradeleague.errors import ConfigError

__all__ = ["CUTOFF_SOURCES", "CutoffStatus", "cutoff_end", "cutoff_mark"]

CUTOFF_SOURCES = ("spec", "models", "house")
"""Where a recorded cutoff came from: the spec, the operator's models file, the house model."""

_CUTOFF = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$")


class CutoffStatus(enum.StrEnum):
    """Where a season's period lies against a model's training window."""

    BEFORE = "before_cutoff"
    AFTER = "after_cutoff"
    UNKNOWN = "cutoff_unknown"


def cutoff_end(text: str) -> date:
    """Return the last day of the training window a cutoff names.

    >>> cutoff_end("2024-06"), cutoff_end("2023"), cutoff_end("2024-02-10")
    (datetime.date(2024, 6, 30), datetime.date(2023, 12, 31), datetime.date(2024, 2, 10))

    Raises
    ------
    ConfigError
        For anything but ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` naming a real day.
    """
    found = _CUTOFF.match(text.strip())
    try:
        if found is None:
            raise ValueError(text)
        year, month, day = found.groups()
        y, m = int(year), int(month or 12)
        d = int(day) if day else calendar.monthrange(y, m)[1]
        return date(y, m, d)
    except ValueError:
        raise ConfigError(
            f"cutoff {text!r} must be YYYY, YYYY-MM or YYYY-MM-DD, e.g. 2024-06"
        ) from None


def cutoff_mark(cutoff: str | None, source: str | None, start: date) -> dict[str, Any]:
    """Return a model agent's cutoff mark from its recorded cutoff (``None``: unknown)."""
    if cutoff is None:
        return {"status": CutoffStatus.UNKNOWN.value, "cutoff": None, "source": None}
    before = start <= cutoff_end(cutoff)
    status = CutoffStatus.BEFORE if before else CutoffStatus.AFTER
    return {"status": status.value, "cutoff": cutoff, "source": source or "spec"}
