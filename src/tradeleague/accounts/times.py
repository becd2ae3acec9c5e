"""Times as the services show them, and the month a quota counts (S-SVC-5)."""

from __future__ import annotations

from datetime import UTC, datetime

from tradeleague.events import utc_iso

__all__ = ["iso", "month_bounds"]


def iso(moment: datetime) -> str:
    """Return ``moment`` as ISO 8601 UTC, without zero microseconds."""
    return utc_iso(moment).replace(".000000Z", "Z")


def month_bounds(moment: datetime) -> tuple[datetime, datetime]:
    """Return the start of ``moment``'s UTC month and the start of the next (S-SVC-5)."""
    start = moment.astimezone(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    nxt = (
        start.replace(year=start.year + 1, month=1)
        if start.month == 12
        else start.replace(month=start.month + 1)
    )
    return start, nxt
