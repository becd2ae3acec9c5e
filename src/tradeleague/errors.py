"""The documented exception hierarchy.

Everything the project raises on purpose derives from ``TradeleagueError``; the
CLI turns these into one clear sentence and a non-zero exit, never a traceback.
Bad *answers* from agents are not exceptions: they are data with reason codes
(DESIGN principle 7).
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "DataError",
    "IntegrityError",
    "StoreError",
    "TradeleagueError",
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
