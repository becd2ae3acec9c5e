"""The documented exception hierarchy.

Everything the project raises on purpose derives from ``TradeleagueError``; the
CLI turns these into one clear sentence and a non-zero exit, never a traceback.
Bad *answers* from agents are not exceptions: they are data with reason codes
(DESIGN principle 7).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tradeleague.disclaimer import DISCLAIMER

__all__ = [
    "ConfigError",
    "DataError",
    "IntegrityError",
    "ServiceError",
    "StoreError",
    "TradeleagueError",
    "validation_message",
]


class TradeleagueError(Exception):
    """Base of every error tradeleague raises on purpose."""


class ConfigError(TradeleagueError):
    """A setting, argument or configuration file is wrong."""


class DataError(TradeleagueError):
    """Market data could not be read or is malformed."""


class StoreError(TradeleagueError):
    """The database could not be reached or used."""


class IntegrityError(StoreError):
    """The event log failed verification (a broken chain or a derived-state mismatch)."""


class ServiceError(TradeleagueError):
    """An expected failure of a service call: a stable code, an HTTP status and one sentence.

    Every failure a client of a service (a format's, or the accounts') can
    cause is one; the REST layer renders it as
    ``{"error": {"code": ..., "message": ..., **extra}}`` and the MCP layer as a
    tool error with the same code and sentence.

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


def validation_message(problems: Iterable[Mapping[str, object]], limit: int = 5) -> str:
    """Return validation problems (pydantic's ``errors()``) as one sentence for people.

    Each problem is its place (``orders.0.side``, a request body's ``body``
    left out) and pydantic's message, without pydantic's links: the REST API's
    422 and an MCP tool's refused arguments say the same words.
    """
    said = []
    for item in list(problems)[:limit]:
        loc = item.get("loc", ())
        parts = loc if isinstance(loc, tuple | list) else (loc,)
        where = ".".join(str(p) for p in parts if p != "body")
        said.append(f"{where or 'body'}: {item.get('msg', 'invalid')}")
    return "; ".join(said) + "."
