"""Service errors: a stable code, an HTTP status and one sentence (S-SVC-*).

Every failure a client can cause is a `ServiceError`; the REST layer renders it
as ``{"error": {"code": ..., "message": ..., **extra}}`` and the MCP layer as a
tool error with the same code and sentence.
"""

from __future__ import annotations

from collections.abc import Mapping

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.errors import TradeleagueError

__all__ = ["ServiceError"]


class ServiceError(TradeleagueError):
    """An expected failure of a service call.

    Parameters
    ----------
    status
        The HTTP status it maps to.
    code
        A stable, machine-readable code (``quota_exceeded``).
    message
        One sentence for people.
    extra
        More fields for the error object (``checkout_url``, ``resets_at``).
    """

    def __init__(
        self, status: int, code: str, message: str, extra: Mapping[str, object] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = dict(extra or {})

    def body(self) -> dict[str, object]:
        """Return the JSON error body."""
        error = {"code": self.code, "message": self.message, **self.extra}
        return {"error": error, "disclaimer": DISCLAIMER}
