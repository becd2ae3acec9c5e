"""What the read models raise when asked for something that is not there."""

from __future__ import annotations

__all__ = ["NotFound"]


class NotFound(LookupError):
    """A season, division, agent, model, round or run that does not exist (answered 404)."""
