"""What the host needs of a format it plays: the ``host`` part of a `Format` (issue 23).

A format with a league-file table (``Format.table``) names a ``host`` part that
implements `HostPart`: its table parsed into the format's config model, the
driver that plays that config, its entries of ``tradeleague status``, its
REPORT.json for ``tradeleague report``, the boards a host run prints when it
ends (as the format's replay prints them) and the feed faults a round's events
show (the host warns when a feed goes stale). The host loops over
``tradeleague.plugin.formats()`` and asks each format for this part; it never
imports a format's package or compares a format's key.

A driver (`Driver`) plays one format's schedule: its slots in a span, whether a
slot is recorded, and one slot played. A slot whose season cannot open raises
`SlotUnplayable`; the host records it missed and never plays it late.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from tradeleague.clock import Clock
from tradeleague.events import Event
from tradeleague.host.leaguefile import Check
from tradeleague.llm.token_prices import PriceTable
from tradeleague.store import Store

if TYPE_CHECKING:
    from rich.console import RenderableType

    from tradeleague.league.check import AgentCheck

__all__ = ["Driver", "HostPart", "SlotUnplayable"]

C = TypeVar("C")


class SlotUnplayable(Exception):
    """A slot that cannot be played because its season could not open.

    The host records it missed with ``reason`` (``host/<format>``); it is never played late.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class Driver(Protocol):
    """One format's schedule, as the host plays it."""

    fmt: str
    """The format's key (the host's stream ``host/<fmt>`` and the metrics' label)."""
    season: str
    """The season (or stream) last used, for the host's logs."""
    stream: str
    """The stream the last slot played was recorded in."""
    since: datetime | None
    """Live: the instant from which the format's unplayed slots count as missed."""

    def slots(self, start: datetime, end: datetime) -> list[datetime]:
        """Return the format's slots in ``[start, end)``."""
        ...

    def season_of(self, slot: datetime) -> str:
        """Return the season (or stream) ``slot`` belongs to."""
        ...

    def played(self, slot: datetime) -> bool:
        """Return whether ``slot`` is recorded (played, or closed by the format)."""
        ...

    async def play(self, slot: datetime) -> list[Event]:
        """Play ``slot`` and return the events its round wrote ([]: read them from ``stream``).

        Raises
        ------
        SlotUnplayable
            If the slot's season cannot open.
        """
        ...

    async def aclose(self) -> None:
        """Release the driver's connections."""
        ...


class HostPart(Protocol[C]):
    """What the host asks of a format it plays; ``C`` is the format's config model.

    The config model is a frozen, typed object made only by `parse`, which
    rejects unknown keys and notes every mistake in the shared `Check` (with
    its line), so one ``ConfigError`` names the mistakes of the whole file.
    """

    def parse(self, data: object, check: Check) -> C | None:
        """Return the format's table ``data`` (``[Format.table]``) as its config model.

        ``None`` when it has mistakes, each noted in ``check``.
        """
        ...

    def driver(
        self,
        store: Store,
        config: C,
        *,
        clock: Clock | None,
        span: tuple[datetime, datetime] | None,
        prices: PriceTable | None = None,
    ) -> Driver:
        """Return the driver that plays ``config``.

        ``clock`` is the live clock, or ``None`` for the replay clock (each
        driver then keeps its own, from its first slot); ``span`` is the
        replayed ``[--from, --to)``, when given; ``prices`` (the league file's
        price table) prices each model call as the gateway records it.
        """
        ...

    def status(
        self, store: Store, config: C | None, streams: Sequence[str], now: datetime
    ) -> list[dict[str, Any]]:
        """Return the format's entries of ``tradeleague status --json``.

        One per season (or stream) in ``streams`` (every stream of the store)
        and the league file's current season (``config``, when the file has the
        table). Each entry has ``format``, ``season``, ``last_slot``,
        ``next_slot``, ``missed`` (``slot``, ``reason``), ``paused``
        (``agent``, ``reason``) and ``feeds``, and may add the format's own keys.
        """
        ...

    def status_lines(self, entry: Mapping[str, Any]) -> list[str]:
        """Return what ``tradeleague status`` prints under ``entry``'s summary line (often [])."""
        ...

    def report(
        self,
        store: Store,
        season: str,
        config: C | None,
        *,
        stream: str | None,
        prices: PriceTable | None = None,
    ) -> dict[str, Any] | None:
        """Return the REPORT.json of ``season`` as the format's replay writes it.

        ``None`` when the store holds no season of the format by that id.
        ``stream`` is the stream the operator named (``--stream``), for a
        format whose seasons share one stream; ``prices`` is the league file's
        price table, which the report's ``costs`` are priced with.
        """
        ...

    def boards(self, store: Store, season: str, config: C | None) -> list[RenderableType]:
        """Return the boards of ``season`` as the format's replay prints them when it ends.

        ``season`` is what the driver's ``season_of`` named for a slot the host
        played (a season id, or the stream a format's seasons share); [] when
        the store holds nothing of it. A host run under the replay clock
        prints them, then each agent's summary, when it ends.
        """
        ...

    async def check(self, config: C) -> list[AgentCheck] | None:
        """Ask each model agent of ``config`` the format's first round once; nothing is recorded.

        The round is built, in memory, from the league file's frozen data (its
        bars or candles) at the season's first slot, or at the data's last day
        when the season starts after it (`tradeleague.league.check`). [] when
        no agent calls a model; ``None`` when the file holds no frozen data to
        build a round from (the format is then not checked).
        """
        ...

    def feed_faults(self, events: Sequence[Event]) -> list[str] | None:
        """Return the feeds that one round's ``events`` show stale or unreadable, in words.

        Each item names the feed and why (``AAPL: stale_feed``); [] when every
        feed the round read was fresh; ``None`` when the round read no feed (a
        closed market), so the host keeps what it knew. The host warns once
        when a feed first shows here, and says when it is fresh again.
        """
        ...
