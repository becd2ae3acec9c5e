"""A model's log as its page shows it: newest first, a page at a time, with a summary head.

The JSON (``/api/v1/direction/models/{name}/log``) serves the whole log,
oldest first (D-PUB-3); the page reads those rows and shows them newest
first, `LOG_PAGE` a page, under a summary: calls made, wins, losses and
draws, skips by cause, and the current streak of wins or losses.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

__all__ = ["LOG_PAGE", "log_page"]

LOG_PAGE: Final = 50
"""Rows a page of a model's log shows."""

_OUTCOMES: Final = ("win", "loss", "draw")


def _streak(rows: Sequence[Mapping[str, Any]]) -> tuple[str, int] | None:
    """Return the latest run of wins or losses (draws and skips do not break it)."""
    settled = [r["result"] for r in rows if r["result"] in ("win", "loss")]
    if not settled:
        return None
    last, count = settled[-1], 0
    for result in reversed(settled):
        if result != last:
            break
        count += 1
    return last, count


def log_page(rows: Sequence[Mapping[str, Any]], page: int) -> dict[str, Any]:
    """Return page ``page`` (1 is the newest) of ``rows`` (oldest first) and the log's summary.

    A page past the last shows the last one.
    """
    pages = max(1, -(-len(rows) // LOG_PAGE))
    page = min(max(page, 1), pages)
    newest = list(reversed(rows))
    results = Counter(str(r["result"]) for r in rows)
    return {
        "rows": newest[(page - 1) * LOG_PAGE : page * LOG_PAGE],
        "page": page,
        "pages": pages,
        "summary": {
            "rounds": len(rows),
            "calls": sum(1 for r in rows if r.get("direction")),
            "outcomes": {k: results[k] for k in _OUTCOMES},
            "skips": {k: v for k, v in sorted(results.items()) if k not in _OUTCOMES},
            "streak": _streak(rows),
        },
    }
