"""The host's own event kinds and payload schemas (issue 12).

A host records, in the stream ``host/<format>``, the slots of a format's
schedule it did not play: ``SlotMissed`` with the reason (``host_down``: the
host was not running at the slot's time; ``no_universe``: the weights season
was to open at that slot and its universe could not be read from the chain).
A slot played is the round itself, in the format's own stream; a missed slot
is never played late.
"""

from __future__ import annotations

from typing import Final

from tradeleague.events.schema import STR, opt, register, req

__all__ = ["FORMAT", "HOST_DOWN", "NO_UNIVERSE", "SLOT_MISSED", "host_stream"]

FORMAT: Final = "host"
SLOT_MISSED: Final = "SlotMissed"
HOST_DOWN: Final = "host_down"
"""The reason of a slot whose time passed while no host was running."""
NO_UNIVERSE: Final = "no_universe"
"""The reason of a weights slot whose season could not open: no universe could be read."""


def host_stream(fmt: str) -> str:
    """Return the stream where the host records ``fmt``'s missed slots."""
    return f"host/{fmt}"


register(
    SLOT_MISSED,
    FORMAT,
    (
        req("format", STR, doc="the format whose slot it is"),
        req("season", STR, doc="the season (weights) or stream (direction)"),
        req("slot", STR, doc="the slot's time, UTC"),
        req("reason", STR, doc="why it was not played: host_down or no_universe"),
        opt("detail", STR, doc="what went wrong, in words"),
    ),
    doc="A slot of the schedule that was not played, and never will be.",
)
