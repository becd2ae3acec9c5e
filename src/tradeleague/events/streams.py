"""How an event stream is named: the one rule, for every format's seasons and runs.

A season of a format is the stream ``<format>/<season id>`` (``weights/S1``,
``thesis/replay-2025-03-03-2025-03-31``); a scenario run is
``scenario-run/<run id>``. Every writer and reader names a stream through
`season_stream`, so the names (and the chain heads that hash them) never drift.
"""

from __future__ import annotations

__all__ = ["season_of", "season_stream", "stream_prefix"]


def stream_prefix(kind: str) -> str:
    """Return what every stream of ``kind`` (a format's key, or ``scenario-run``) starts with."""
    return f"{kind}/"


def season_stream(kind: str, season_id: str) -> str:
    """Return the stream of season (or run) ``season_id`` of ``kind``: ``KIND/ID``.

    Parameters
    ----------
    kind
        The format's key (``weights``, ``thesis``), or ``scenario-run`` for a
        scenario benchmark's run.
    season_id
        The season's (or run's) id.
    """
    return f"{stream_prefix(kind)}{season_id}"


def season_of(kind: str, stream: str) -> str | None:
    """Return the season id of ``stream`` if it is a stream of ``kind``, else None."""
    prefix = stream_prefix(kind)
    return stream[len(prefix) :] if stream.startswith(prefix) else None
