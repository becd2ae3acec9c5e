"""The errors the accounting engine raises on purpose.

An order the engine declines is *not* an error: it comes back as a
``Rejection`` with a reason code (DESIGN principle 7). These exceptions mark
programming mistakes and corrupt events: a fill that cannot apply, a payload
that is not canonical.
"""

from __future__ import annotations

from tradeleague.errors import TradeleagueError

__all__ = ["FillError", "PayloadError", "SimError"]


class SimError(TradeleagueError):
    """Base of the accounting engine's errors."""


class FillError(SimError, ValueError):
    """A fill is malformed or cannot apply to the portfolio it was given."""


class PayloadError(SimError, ValueError):
    """A JSON payload is not the canonical form of a fill or a portfolio state."""
